// Package oidc signs browsers in with an OpenID Connect provider, by the
// authorization code flow, as DataHub's web server does with its AUTH_OIDC_*
// settings: the provider is found by discovery, the browser is sent to it
// with the configured scopes, and the code it comes back with is exchanged
// for an ID token, whose signature, issuer, audience, expiry and nonce are
// checked (github.com/coreos/go-oidc). The username is read from a claim
// (email by default) through a regular expression, the groups from another.
//
// What the flow must remember between the redirect and the callback (the
// state, the nonce, the PKCE verifier and where to go afterwards) travels
// in a short-lived HttpOnly cookie, MACed so that it cannot be forged: no
// server-side state, so any replica can take the callback.
package oidc

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// CallbackPath is where the provider sends the browser back, under the
// base URL: DataHub's /callback/oidc, to register with the provider.
const CallbackPath = "/callback/oidc"

// stateCookie carries the flow's state between redirect and callback.
const stateCookie = "catalogd_oidc"

// stateTTL bounds how long a sign-in at the provider may take.
const stateTTL = 10 * time.Minute

// Config is DataHub's OIDC configuration (AUTH_OIDC_*).
type Config struct {
	ClientID     string
	ClientSecret string
	// DiscoveryURI is the provider's discovery document
	// (.../.well-known/openid-configuration) or its issuer URL.
	DiscoveryURI string
	// BaseURL is where users reach catalogd; the callback is under it.
	BaseURL string
	// Scope is space-separated; default "openid profile email".
	Scope string
	// UserNameClaim names the claim the username comes from; default email.
	UserNameClaim string
	// UserNameClaimRegex picks the username out of that claim (its whole
	// match); default (.*).
	UserNameClaimRegex string
	// GroupsClaim names the claims (comma-separated) groups come from;
	// default groups.
	GroupsClaim string
	// ClientAuthMethod is client_secret_basic (default) or
	// client_secret_post.
	ClientAuthMethod string
	// ConnectTimeout and ReadTimeout bound calls to the provider; default
	// 1 s and 5 s.
	ConnectTimeout, ReadTimeout time.Duration
	// StateKey MACs the state cookie.
	StateKey []byte
}

// Identity is who the provider says signed in.
type Identity struct {
	Username    string
	Email       string
	FirstName   string
	LastName    string
	FullName    string
	DisplayName string
	Picture     string
	Groups      []string
}

// Client runs the flow with one provider. It is safe for concurrent use.
type Client struct {
	cfg     Config
	re      *regexp.Regexp
	scopes  []string
	groups  []string
	http    *http.Client
	mu      sync.Mutex
	prov    *oidc.Provider // discovered on first use, so that catalogd starts while the provider is down
	issuer  string
	authURL string
}

// New checks cfg and returns a client; the provider is contacted on the
// first sign-in.
func New(cfg Config) (*Client, error) {
	for name, v := range map[string]string{"client id": cfg.ClientID, "client secret": cfg.ClientSecret,
		"discovery URI": cfg.DiscoveryURI, "base URL": cfg.BaseURL} {
		if v == "" {
			return nil, fmt.Errorf("OpenID Connect needs its %s", name)
		}
	}
	if len(cfg.StateKey) == 0 {
		return nil, errors.New("OpenID Connect needs a state key")
	}
	set := func(p *string, def string) {
		if strings.TrimSpace(*p) == "" {
			*p = def
		}
	}
	set(&cfg.Scope, "openid profile email")
	set(&cfg.UserNameClaim, "email")
	set(&cfg.UserNameClaimRegex, "(.*)")
	set(&cfg.GroupsClaim, "groups")
	set(&cfg.ClientAuthMethod, "client_secret_basic")
	if cfg.ClientAuthMethod != "client_secret_basic" && cfg.ClientAuthMethod != "client_secret_post" {
		return nil, fmt.Errorf("OpenID Connect client authentication method must be client_secret_basic or client_secret_post, not %q", cfg.ClientAuthMethod)
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = time.Second
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 5 * time.Second
	}
	re, err := regexp.Compile(cfg.UserNameClaimRegex)
	if err != nil {
		return nil, fmt.Errorf("OpenID Connect username claim regex: %w", err)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	c := &Client{cfg: cfg, re: re, scopes: strings.Fields(cfg.Scope)}
	for _, g := range strings.Split(cfg.GroupsClaim, ",") {
		if g = strings.TrimSpace(g); g != "" {
			c.groups = append(c.groups, g)
		}
	}
	if !containsString(c.scopes, oidc.ScopeOpenID) {
		c.scopes = append([]string{oidc.ScopeOpenID}, c.scopes...)
	}
	c.issuer = strings.TrimSuffix(strings.TrimRight(cfg.DiscoveryURI, "/"), "/.well-known/openid-configuration")
	c.http = &http.Client{
		Timeout: cfg.ConnectTimeout + cfg.ReadTimeout,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: cfg.ConnectTimeout}).DialContext,
			TLSHandshakeTimeout:   cfg.ConnectTimeout + cfg.ReadTimeout,
			ResponseHeaderTimeout: cfg.ReadTimeout,
		},
	}
	return c, nil
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// provider discovers the provider once it answers.
func (c *Client) provider(ctx context.Context) (*oidc.Provider, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prov != nil {
		return c.prov, nil
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, c.http), c.issuer)
	if err != nil {
		return nil, fmt.Errorf("discover the OpenID provider %s: %w", c.issuer, err)
	}
	c.prov = p
	return p, nil
}

func (c *Client) oauth(p *oidc.Provider) *oauth2.Config {
	ep := p.Endpoint()
	ep.AuthStyle = oauth2.AuthStyleInHeader
	if c.cfg.ClientAuthMethod == "client_secret_post" {
		ep.AuthStyle = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{
		ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret, Endpoint: ep,
		RedirectURL: c.cfg.BaseURL + CallbackPath, Scopes: c.scopes,
	}
}

// flow is what the state cookie holds.
type flow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"r"`
	Expires  int64  `json:"e"`
}

func random() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (c *Client) mac(b []byte) []byte {
	m := hmac.New(sha256.New, c.cfg.StateKey)
	m.Write(b)
	return m.Sum(nil)
}

// Start sends the browser to the provider; next is the local path to
// return to after signing in.
func (c *Client) Start(w http.ResponseWriter, r *http.Request, next string) error {
	p, err := c.provider(r.Context())
	if err != nil {
		return err
	}
	f := flow{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), Next: next, Expires: time.Now().Add(stateTTL).Unix()}
	b, _ := json.Marshal(f)
	http.SetCookie(w, &http.Cookie{
		Name:  stateCookie,
		Value: base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(c.mac(b)),
		Path:  CallbackPath, MaxAge: int(stateTTL.Seconds()), HttpOnly: true,
		// Lax: the provider's redirect back is a top-level navigation.
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil || strings.HasPrefix(c.cfg.BaseURL, "https:"),
	})
	u := c.oauth(p).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	http.Redirect(w, r, u, http.StatusFound)
	return nil
}

// readFlow reads and checks the state cookie.
func (c *Client) readFlow(r *http.Request) (flow, error) {
	var f flow
	ck, err := r.Cookie(stateCookie)
	if err != nil {
		return f, errors.New("the sign-in took too long or started in another browser: try again")
	}
	body, sig, ok := strings.Cut(ck.Value, ".")
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, c.mac(b)) || json.Unmarshal(b, &f) != nil {
		return f, errors.New("the sign-in state is not valid: try again")
	}
	if time.Now().Unix() > f.Expires {
		return f, errors.New("the sign-in took too long: try again")
	}
	return f, nil
}

// Callback completes the flow from the provider's redirect: it returns who
// signed in and the local path to go to. It deletes the state cookie.
func (c *Client) Callback(w http.ResponseWriter, r *http.Request) (Identity, string, error) {
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: "", Path: CallbackPath, MaxAge: -1, HttpOnly: true})
	f, err := c.readFlow(r)
	if err != nil {
		return Identity{}, "", err
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		return Identity{}, f.Next, fmt.Errorf("the identity provider refused the sign-in: %s %s", e, q.Get("error_description"))
	}
	if q.Get("state") == "" || !hmac.Equal([]byte(q.Get("state")), []byte(f.State)) {
		return Identity{}, f.Next, errors.New("the sign-in state does not match: try again")
	}
	ctx := oidc.ClientContext(r.Context(), c.http)
	p, err := c.provider(ctx)
	if err != nil {
		return Identity{}, f.Next, err
	}
	oc := c.oauth(p)
	tok, err := oc.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return Identity{}, f.Next, fmt.Errorf("exchange the authorization code: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, f.Next, errors.New("the identity provider returned no ID token")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: c.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return Identity{}, f.Next, fmt.Errorf("verify the ID token: %w", err)
	}
	if !hmac.Equal([]byte(idt.Nonce), []byte(f.Nonce)) {
		return Identity{}, f.Next, errors.New("the ID token's nonce does not match")
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return Identity{}, f.Next, fmt.Errorf("read the ID token's claims: %w", err)
	}
	// The userinfo endpoint may know more (names, groups); the ID token's
	// claims stand where both speak.
	if p.UserInfoEndpoint() != "" {
		if ui, err := p.UserInfo(ctx, oauth2.StaticTokenSource(tok)); err == nil && ui.Subject == idt.Subject {
			more := map[string]any{}
			if ui.Claims(&more) == nil {
				for k, v := range more {
					if _, ok := claims[k]; !ok {
						claims[k] = v
					}
				}
			}
		}
	}
	id, err := c.identity(claims)
	return id, f.Next, err
}

// identity maps claims to an Identity.
func (c *Client) identity(claims map[string]any) (Identity, error) {
	str := func(k string) string { s, _ := claims[k].(string); return s }
	raw := str(c.cfg.UserNameClaim)
	if raw == "" {
		return Identity{}, fmt.Errorf("the identity provider's token has no %q claim to take the username from", c.cfg.UserNameClaim)
	}
	name := c.re.FindString(raw)
	if name == "" {
		return Identity{}, fmt.Errorf("no username in the %q claim %q by the pattern %s", c.cfg.UserNameClaim, raw, c.re)
	}
	id := Identity{
		Username: name, Email: str("email"), FirstName: str("given_name"), LastName: str("family_name"),
		FullName: str("name"), Picture: str("picture"),
	}
	if id.FullName == "" && id.FirstName != "" && id.LastName != "" {
		id.FullName = id.FirstName + " " + id.LastName
	}
	id.DisplayName = id.FullName
	for _, g := range c.groups {
		id.Groups = append(id.Groups, groupNames(claims[g])...)
	}
	return id, nil
}

// groupNames reads a groups claim: a list of names, or a string holding a
// JSON list or comma-separated names.
func groupNames(v any) []string {
	var out []string
	switch v := v.(type) {
	case []any:
		for _, g := range v {
			if s, ok := g.(string); ok && strings.TrimSpace(s) != "" {
				out = append(out, strings.TrimSpace(s))
			}
		}
	case string:
		var list []string
		if json.Unmarshal([]byte(v), &list) != nil {
			list = strings.Split(v, ",")
		}
		for _, s := range list {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
