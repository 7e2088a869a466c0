package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/oidc"
	"github.com/catalogd/catalogd/internal/restli"
	"github.com/catalogd/catalogd/internal/webui"
)

// apiRoots are the first path segments of the API: the web app never
// answers them, so that a mistyped API call gets the API's 404 rather than
// the app's page.
var apiRoots = map[string]bool{
	"api": true, "openapi": true, "openapi.json": true, "aspects": true, "entities": true, "entitiesV2": true,
	"relationships": true, "operations": true, "gms": true, "config": true, "health": true, "metrics": true,
	"restli": true, "debug": true,
	strings.TrimPrefix(auth.LoginPath, "/"): true, strings.TrimPrefix(auth.LogoutPath, "/"): true,
	strings.TrimPrefix(auth.SignUpPath, "/"): true, strings.TrimPrefix(auth.ResetCredentialsPath, "/"): true,
	strings.TrimPrefix(auth.AuthenticatePath, "/"): true, strings.TrimPrefix(auth.SSOPath, "/"): true,
	strings.Trim(auth.CallbackPath, "/"): true, strings.TrimPrefix(audit.TrackPath, "/"): true,
}

func isAPIPath(p string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	return apiRoots[first]
}

// withApp puts the web app behind the API's routes: a GET or HEAD no API
// route takes is the app's. It returns the handler and the route namer of
// the metrics.
func withApp(api *restli.Handler, app *webui.App) (http.Handler, func(*http.Request) string) {
	if app == nil {
		return api, api.Route
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if api.Route(r) == "" && app.Serves(r) {
			app.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
	route := func(r *http.Request) string {
		if p := api.Route(r); p != "" {
			return p
		}
		if app.Serves(r) {
			return "GET /{app}"
		}
		return ""
	}
	return h, route
}

// registerSignIn adds datahub-frontend's browser routes: sign-in (sso is
// nil without single sign-on) and the app's analytics events, recorded
// when analytics is true.
func registerSignIn(api *restli.Handler, svc *auth.Service, rec *audit.Recorder, withUI, analytics bool, sso *ssoConfig) {
	// Without the web app, signing in and out happens on the GraphQL
	// explorer, the one page of catalogd's own that signs in.
	loginPage := webui.GraphiQLPath
	if withUI {
		loginPage = auth.WebLoginPath
	}
	fail := func(w http.ResponseWriter, r *http.Request, err error) {
		slog.WarnContext(r.Context(), "single sign-on failed", "err", err)
		http.Redirect(w, r, loginPage+"?error_msg="+url.QueryEscape("Single sign-on failed: "+err.Error()), http.StatusFound)
	}
	var start func(w http.ResponseWriter, r *http.Request, next string)
	if sso != nil {
		start = func(w http.ResponseWriter, r *http.Request, next string) {
			if err := sso.client.Start(w, r, next); err != nil {
				fail(w, r, err)
			}
		}
	}
	api.HandleFunc("GET "+auth.LogoutPath, svc.LogoutHandler(loginPage))
	api.HandleFunc("GET "+auth.AuthenticatePath, svc.AuthenticateHandler(loginPage, start))
	api.HandleFunc("POST "+auth.SignUpPath, svc.SignUpHandler(restli.WriteError))
	api.HandleFunc("POST "+auth.ResetCredentialsPath, svc.ResetHandler(restli.WriteError))
	api.HandleFunc("POST "+audit.TrackPath, rec.TrackHandler(analytics, actorOf, restli.WriteError))
	api.HandleFunc("GET "+auth.SSOPath, func(w http.ResponseWriter, r *http.Request) {
		if start == nil {
			http.Redirect(w, r, loginPage+"?error_msg="+url.QueryEscape("SSO is not configured"), http.StatusFound)
			return
		}
		start(w, r, "/")
	})
	api.HandleFunc("GET "+oidc.CallbackPath, func(w http.ResponseWriter, r *http.Request) {
		if sso == nil {
			http.Redirect(w, r, loginPage+"?error_msg="+url.QueryEscape("SSO is not configured"), http.StatusFound)
			return
		}
		id, next, err := sso.client.Callback(w, r)
		if err != nil {
			fail(w, r, err)
			return
		}
		res, err := svc.SSOLogin(r.Context(), auth.ExternalUser{
			Username: id.Username, Email: id.Email, FirstName: id.FirstName, LastName: id.LastName,
			FullName: id.FullName, DisplayName: id.DisplayName, Picture: id.Picture, Groups: id.Groups,
		}, sso.provisioning)
		if err != nil {
			fail(w, r, err)
			return
		}
		svc.SetSession(w, r, res)
		http.Redirect(w, r, auth.LocalRedirect(next), http.StatusFound)
	})
}

// ssoConfig is single sign-on with OpenID Connect, as configured.
type ssoConfig struct {
	client       *oidc.Client
	provisioning auth.Provisioning
}

// openSSO reads datahub-frontend's AUTH_OIDC_* settings; nil when OpenID
// Connect is not enabled. base is the server's own URL, the default of
// AUTH_OIDC_BASE_URL.
func openSSO(getenv func(string) string, svc *auth.Service, base string) (*ssoConfig, error) {
	on, err := envBool(getenv, "AUTH_OIDC_ENABLED", false)
	if err != nil || !on {
		return nil, err
	}
	cfg := oidc.Config{
		ClientID: getenv("AUTH_OIDC_CLIENT_ID"), ClientSecret: getenv("AUTH_OIDC_CLIENT_SECRET"),
		DiscoveryURI: getenv("AUTH_OIDC_DISCOVERY_URI"), BaseURL: envOr(getenv, "AUTH_OIDC_BASE_URL", base),
		Scope: getenv("AUTH_OIDC_SCOPE"), UserNameClaim: getenv("AUTH_OIDC_USER_NAME_CLAIM"),
		UserNameClaimRegex: getenv("AUTH_OIDC_USER_NAME_CLAIM_REGEX"), GroupsClaim: getenv("AUTH_OIDC_GROUPS_CLAIM"),
		ClientAuthMethod: getenv("AUTH_OIDC_CLIENT_AUTHENTICATION_METHOD"),
	}
	for _, t := range []struct {
		env string
		d   *time.Duration
	}{{"AUTH_OIDC_CONNECT_TIMEOUT", &cfg.ConnectTimeout}, {"AUTH_OIDC_READ_TIMEOUT", &cfg.ReadTimeout}} {
		if v := getenv(t.env); v != "" {
			ms, err := strconv.Atoi(v)
			if err != nil || ms <= 0 {
				return nil, fmt.Errorf("%s must be a positive number of milliseconds, not %q", t.env, v)
			}
			*t.d = time.Duration(ms) * time.Millisecond
		}
	}
	mac := hmac.New(sha256.New, svc.SigningKey())
	mac.Write([]byte("catalogd oidc state"))
	cfg.StateKey = mac.Sum(nil)
	client, err := oidc.New(cfg)
	if err != nil {
		return nil, err
	}
	var p auth.Provisioning
	for _, b := range []struct {
		env string
		def bool
		v   *bool
	}{{"AUTH_OIDC_JIT_PROVISIONING_ENABLED", true, &p.JIT}, {"AUTH_OIDC_PRE_PROVISIONING_REQUIRED", false, &p.PreProvisioned},
		{"AUTH_OIDC_EXTRACT_GROUPS_ENABLED", false, &p.Groups}} {
		if *b.v, err = envBool(getenv, b.env, b.def); err != nil {
			return nil, err
		}
	}
	return &ssoConfig{client: client, provisioning: p}, nil
}

func envBool(getenv func(string) string, key string, def bool) (bool, error) {
	v := getenv(key)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s must be true or false, not %q", key, v)
	}
	return b, nil
}
