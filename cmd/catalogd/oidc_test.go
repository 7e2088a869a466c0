package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/golang-jwt/jwt/v5"
)

// testProvider is a small OpenID provider for the tests: discovery, keys,
// an authorize endpoint that signs in whoever it is told to at once, and a
// token endpoint that checks the client, the code and its PKCE verifier and
// answers a signed ID token.
type testProvider struct {
	*httptest.Server
	t      *testing.T
	key    *rsa.PrivateKey
	mu     sync.Mutex
	grants map[string]grant
	claims map[string]any // of the next user to sign in
}

type grant struct {
	nonce, challenge, redirect string
	claims                     map[string]any
}

const (
	testClientID     = "catalogd-test"
	testClientSecret = "client-secret-for-tests"
)

func startTestProvider(t *testing.T) *testProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &testProvider{t: t, key: key, grants: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

func (p *testProvider) discovery(w http.ResponseWriter, _ *http.Request) {
	_ = json.NewEncoder(w).Encode(map[string]any{
		"issuer": p.URL, "authorization_endpoint": p.URL + "/authorize", "token_endpoint": p.URL + "/token",
		"jwks_uri": p.URL + "/jwks", "response_types_supported": []string{"code"},
		"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"},
	})
}

func (p *testProvider) jwks(w http.ResponseWriter, _ *http.Request) {
	b64 := base64.RawURLEncoding.EncodeToString
	_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]any{
		"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
		"n": b64(p.key.N.Bytes()), "e": b64(big.NewInt(int64(p.key.E)).Bytes()),
	}}})
}

// signInNext sets who signs in at the next authorization.
func (p *testProvider) signInNext(claims map[string]any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.claims = claims
}

func (p *testProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != testClientID || q.Get("response_type") != "code" || !strings.Contains(" "+q.Get("scope")+" ", " openid ") ||
		q.Get("code_challenge_method") != "S256" || q.Get("nonce") == "" || q.Get("state") == "" {
		p.t.Errorf("authorize request: %s", r.URL.RawQuery)
		http.Error(w, "bad request", 400)
		return
	}
	code := randomCode()
	p.mu.Lock()
	p.grants[code] = grant{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), claims: p.claims}
	p.mu.Unlock()
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
}

func (p *testProvider) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok || id != testClientID || secret != testClientSecret {
		http.Error(w, `{"error":"invalid_client"}`, 401)
		return
	}
	p.mu.Lock()
	g, found := p.grants[r.FormValue("code")]
	delete(p.grants, r.FormValue("code"))
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
	if !found || r.FormValue("grant_type") != "authorization_code" || r.FormValue("redirect_uri") != g.redirect ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		http.Error(w, `{"error":"invalid_grant"}`, 400)
		return
	}
	now := time.Now()
	claims := jwt.MapClaims{"iss": p.URL, "aud": testClientID, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "nonce": g.nonce}
	for k, v := range g.claims {
		claims[k] = v
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = "k1"
	idToken, err := tok.SignedString(p.key)
	if err != nil {
		p.t.Error(err)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": randomCode(), "token_type": "Bearer", "expires_in": 300, "id_token": idToken})
}

func randomCode() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// oidcEnv configures single sign-on with p.
func oidcEnv(p *testProvider, more map[string]string) map[string]string {
	env := map[string]string{
		"AUTH_OIDC_ENABLED": "true", "AUTH_OIDC_CLIENT_ID": testClientID, "AUTH_OIDC_CLIENT_SECRET": testClientSecret,
		"AUTH_OIDC_DISCOVERY_URI": p.URL + "/.well-known/openid-configuration",
	}
	for k, v := range more {
		env[k] = v
	}
	return env
}

// TestBrowserOIDC signs in through the local provider: the user and their
// groups are created on the way, and the browser lands signed in where it
// was going.
func TestBrowserOIDC(t *testing.T) {
	ctx := newBrowser(t)
	p := startTestProvider(t)
	s := startAuthServerEnv(t, oidcEnv(p, map[string]string{
		"AUTH_OIDC_USER_NAME_CLAIM_REGEX": "[^@]+", "AUTH_OIDC_EXTRACT_GROUPS_ENABLED": "true",
	}), "--ui", testApp)
	p.signInNext(map[string]any{"sub": "u-1", "email": "alice@example.com", "given_name": "Alice", "family_name": "Liddell",
		"groups": []string{"Data Engineers", "analysts"}})

	// A request without a session goes through /authenticate to the provider.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/authenticate?redirect_uri=%2Fsearch%3Fquery%3Dx")); err != nil {
		t.Fatalf("sign in: %v\n%s", err, s.stderr)
	}
	if who := signedInAs(t, ctx, s); who != "urn:li:corpuser:alice" {
		t.Fatalf("after single sign-on the app shows %q\n%s", who, s.stderr)
	}
	if loc := mustRun(t, ctx, chromedp.Location()); loc != s.URL+"/search?query=x" {
		t.Errorf("after single sign-on the browser is at %s", loc)
	}
	if status, body := pageGraphQL(t, ctx, `{ me { corpUser { urn properties { fullName email } } } }`); status != 200 ||
		!strings.Contains(body, `"fullName":"Alice Liddell"`) || !strings.Contains(body, `"email":"alice@example.com"`) {
		t.Errorf("the new user's own view: %d %s", status, body)
	}
	st, b := s.call(t, bearer(s.admin), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:alice")+"?aspects=List(groupMembership,corpUserStatus)", nil)
	if st != 200 || !strings.Contains(string(b), "urn:li:corpGroup:Data+Engineers") || !strings.Contains(string(b), "urn:li:corpGroup:analysts") ||
		!strings.Contains(string(b), `"ACTIVE"`) {
		t.Errorf("alice after the sign-on: %d %s", st, b)
	}
	st, b = s.call(t, bearer(s.admin), "GET", "/entitiesV2/"+pathEscape("urn:li:corpGroup:Data+Engineers")+"?aspects=List(corpGroupInfo)", nil)
	if st != 200 || !strings.Contains(string(b), `"displayName":"Data Engineers"`) {
		t.Errorf("provisioned group: %d %s", st, b)
	}

	// A suspended user stays out, whatever the provider says.
	s.setUserStatus(t, "urn:li:corpuser:alice", "SUSPENDED")
	mustRun(t, ctx, chromedp.Click(chromedp.CSS("#logout")))
	waitFor[bool](t, ctx, "the sign-in page", `location.pathname === "/login" || null`)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/sso")); err != nil {
		t.Fatal(err)
	}
	msg := waitFor[string](t, ctx, "the refusal", `location.pathname === "/login" ? new URLSearchParams(location.search).get("error_msg") : null`)
	if !strings.Contains(msg, "Actor is not active") {
		t.Errorf("suspended user's sign-on ends with %q", msg)
	}
}

// TestOIDCRefusals checks callbacks that must not sign anyone in, and a
// provider that requires users to exist beforehand.
func TestOIDCRefusals(t *testing.T) {
	p := startTestProvider(t)
	s := startAuthServerEnv(t, oidcEnv(p, map[string]string{
		"AUTH_OIDC_JIT_PROVISIONING_ENABLED": "false", "AUTH_OIDC_PRE_PROVISIONING_REQUIRED": "true",
	}), "--ui", testApp)
	jar := newJar(t)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	signIn := func(claims map[string]any) *url.URL {
		t.Helper()
		p.signInNext(claims)
		resp, err := c.Get(s.URL + "/sso")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Request.URL
	}
	// Not provisioned: refused, no session.
	if u := signIn(map[string]any{"sub": "u-2", "email": "bob@example.com"}); u.Path != "/login" || !strings.Contains(u.Query().Get("error_msg"), "not been provisioned") {
		t.Errorf("unprovisioned user lands at %s", u)
	}
	// The root user's name at the provider is not the root user.
	if u := signIn(map[string]any{"sub": "u-4", "email": "datahub"}); u.Path != "/login" || !strings.Contains(u.Query().Get("error_msg"), "cannot sign in") {
		t.Errorf("provider's datahub lands at %s", u)
	}
	// Provisioned beforehand: signed in.
	s.cliToken(t, "carol@example.com")
	if u := signIn(map[string]any{"sub": "u-3", "email": "carol@example.com"}); u.Path != "/" {
		t.Errorf("provisioned user lands at %s", u)
	}
	if !strings.Contains(cookieHeader(jar, s.URL), "actor=urn:li:corpuser:carol@example.com") {
		t.Errorf("no session after the sign-on: %s", cookieHeader(jar, s.URL))
	}

	// A callback without the flow's state cookie, or with another state.
	for name, path := range map[string]string{
		"no state cookie": "/callback/oidc?code=x&state=y",
		"provider error":  "/callback/oidc?error=access_denied",
	} {
		resp, body := send(t, "GET", s.URL+path, "", nil, nil)
		if resp.StatusCode != 302 || !strings.HasPrefix(resp.Header.Get("Location"), "/login?error_msg=") || len(resp.Cookies()) > 1 {
			t.Errorf("%s: %d %v %s", name, resp.StatusCode, resp.Header, body)
		}
	}
}

func newJar(t *testing.T) *cookiejar.Jar {
	t.Helper()
	j, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// cookieHeader is what the jar sends to base.
func cookieHeader(j *cookiejar.Jar, base string) string {
	u, _ := url.Parse(base + "/")
	var parts []string
	for _, c := range j.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}
