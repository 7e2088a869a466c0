package auth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Browser sessions, as DataHub's web server (datahub-frontend) keeps them.
//
// A successful sign-in sets two cookies: SessionCookie, HttpOnly, holding
// the session token, and ActorCookie, readable by the web app, holding the
// signed-in user's URN (the app takes its presence to mean "signed in").
// A request without an Authorization header is authenticated by them when
// both are present and agree, as datahub-frontend requires: the app signs
// out by deleting the actor cookie, which ends the session at once even
// before it calls LogoutPath.
//
// Cookies are sent by the browser whatever page caused the request, so a
// write authenticated by them must come from a page of this origin: writes
// from other origins (cross-site request forgery) are refused with 403, by
// net/http's CrossOriginProtection (Sec-Fetch-Site, else Origin against
// Host). The sign-in endpoints, which set the cookies, are checked too, so
// that another site cannot sign a browser in as someone else. Requests with
// an Authorization header are not checked: a browser never adds one to a
// cross-site request without the server's consent (CORS), which catalogd
// never gives.

// Cookie names, datahub-frontend's: Play's session cookie and the actor
// cookie the web app reads.
const (
	SessionCookie = "PLAY_SESSION"
	ActorCookie   = "actor"
)

// Paths of the browser sign-in flow, as datahub-frontend serves them.
const (
	LogoutPath           = "/logOut"
	SignUpPath           = "/signUp"
	ResetCredentialsPath = "/resetNativeUserCredentials"
	AuthenticatePath     = "/authenticate"
	SSOPath              = "/sso"
	CallbackPath         = "/callback/"
	// WebLoginPath is the web app's sign-in page.
	WebLoginPath = "/login"
)

// CookieConfig says how session cookies are set, with datahub-frontend's
// defaults and settings (AUTH_SESSION_TTL_HOURS, AUTH_COOKIE_SAME_SITE,
// AUTH_COOKIE_SECURE).
type CookieConfig struct {
	// TTL is how long a browser session lasts: the cookies' lifetime and
	// that of the session token inside. 0 is DefaultSessionDuration.
	TTL time.Duration
	// SameSite is the cookies' SameSite attribute; 0 is Lax.
	SameSite http.SameSite
	// Secure marks the cookies Secure; they are also Secure on a request
	// that came over TLS.
	Secure bool
}

// ParseSameSite reads AUTH_COOKIE_SAME_SITE's values (LAX, STRICT, NONE, in
// any case); "" is Lax.
func ParseSameSite(v string) (http.SameSite, error) {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "", "LAX":
		return http.SameSiteLaxMode, nil
	case "STRICT":
		return http.SameSiteStrictMode, nil
	case "NONE":
		return http.SameSiteNoneMode, nil
	}
	return 0, catalog.Errorf(catalog.Invalid, "cookie SameSite must be LAX, STRICT or NONE, not %q", v)
}

// sessionTTL is the lifetime of a session token from a sign-in.
func (s *Service) sessionTTL() time.Duration {
	if s.cfg.Cookies.TTL > 0 {
		return s.cfg.Cookies.TTL
	}
	return DefaultSessionDuration
}

// crossOrigin refuses writes from pages of other origins.
var crossOrigin = http.NewCrossOriginProtection()

// errCrossOrigin refuses a cookie-authenticated write from another origin.
var errCrossOrigin = catalog.Errorf(catalog.Forbidden,
	"cross-origin request refused: a request authenticated by the session cookie must come from a page of this server, or authenticate with an Authorization header")

// checkSameOrigin refuses a state-changing request sent by a browser from
// a page of another origin.
func checkSameOrigin(r *http.Request) error {
	if crossOrigin.Check(r) != nil {
		return errCrossOrigin
	}
	return nil
}

// hasSessionCookie reports whether r carries a session cookie.
func hasSessionCookie(r *http.Request) bool {
	c, err := r.Cookie(SessionCookie)
	return err == nil && c.Value != ""
}

// cookieSession authenticates r by its session cookies: the token must be
// valid and the actor cookie must name its user.
func (s *Service) cookieSession(ctx context.Context, r *http.Request) (Actor, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return Actor{}, errUnauthorized
	}
	a, err := s.verify(ctx, c.Value)
	if err != nil {
		return Actor{}, err
	}
	ac, err := r.Cookie(ActorCookie)
	if err != nil || cookieURN(ac.Value) != a.URN {
		return Actor{}, errUnauthorized
	}
	return a, nil
}

// SessionActor returns the user signed in by r's session cookies, if any.
func (s *Service) SessionActor(r *http.Request) (string, bool) {
	if !hasSessionCookie(r) {
		return "", false
	}
	a, err := s.cookieSession(r.Context(), r)
	if err != nil {
		return "", false
	}
	return a.URN, true
}

// cookieURN decodes an actor cookie value, which js-cookie may have
// percent-encoded when the app rewrote it.
func cookieURN(v string) string {
	if strings.Contains(v, "%") {
		if u, err := url.QueryUnescape(v); err == nil {
			return u
		}
	}
	return v
}

// setSession sets the session cookies of a sign-in.
func (s *Service) setSession(w http.ResponseWriter, r *http.Request, res LoginResult) {
	age := int(time.Until(time.UnixMilli(res.ExpiresAt)).Seconds())
	if res.ExpiresAt == 0 || age <= 0 {
		age = int(s.sessionTTL().Seconds())
	}
	for _, c := range []*http.Cookie{
		{Name: SessionCookie, Value: res.AccessToken, HttpOnly: true},
		{Name: ActorCookie, Value: res.ActorURN},
	} {
		c.Path, c.MaxAge = "/", age
		s.cookieAttrs(c, r)
		http.SetCookie(w, c)
	}
	w.Header().Set("Cache-Control", "no-store")
}

func (s *Service) cookieAttrs(c *http.Cookie, r *http.Request) {
	c.SameSite = s.cfg.Cookies.SameSite
	if c.SameSite == 0 {
		c.SameSite = http.SameSiteLaxMode
	}
	c.Secure = s.cfg.Cookies.Secure || r.TLS != nil || c.SameSite == http.SameSiteNoneMode
}

// clearSession deletes the session cookies.
func (s *Service) clearSession(w http.ResponseWriter, r *http.Request) {
	for _, name := range []string{SessionCookie, ActorCookie} {
		c := &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: name == SessionCookie}
		s.cookieAttrs(c, r)
		http.SetCookie(w, c)
	}
	w.Header().Set("Cache-Control", "no-store")
}

// LogoutHandler serves GET LogoutPath: it deletes the session cookies and
// redirects to next (the web app's sign-in page). As in DataHub, the
// session token inside the cookie is not stored anywhere, so it is not
// revoked: the browser no longer has it.
func (s *Service) LogoutHandler(next string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.clearSession(w, r)
		http.Redirect(w, r, next, http.StatusFound)
	}
}

// AuthenticateHandler serves GET AuthenticatePath, where the web app sends
// a browser whose request was refused for want of a session: a signed-in
// browser goes back to redirect_uri, another to single sign-on when sso is
// set, else to the sign-in page loginPage.
func (s *Service) AuthenticateHandler(loginPage string, sso func(w http.ResponseWriter, r *http.Request, next string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		next := LocalRedirect(r.URL.Query().Get("redirect_uri"))
		if next == LogoutPath {
			next = "/"
		}
		if _, ok := s.SessionActor(r); ok {
			http.Redirect(w, r, next, http.StatusFound)
			return
		}
		if sso != nil {
			sso(w, r, next)
			return
		}
		http.Redirect(w, r, loginPage+"?redirect_uri="+url.QueryEscape(next), http.StatusFound)
	}
}

// LocalRedirect returns p when it is a path on this server, else "/": a
// redirect parameter must not send the browser to another site.
func LocalRedirect(p string) string {
	u, err := url.Parse(p)
	if p == "" || err != nil || u.Scheme != "" || u.Host != "" || u.User != nil ||
		!strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return "/"
	}
	return p
}

// SignUpHandler serves POST SignUpPath: a new native user from an invite
// token, signed in at once (the answer is /logIn's, with the cookies).
func (s *Service) SignUpHandler(writeError func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in SignUp
		if !decodeBody(w, r, writeError, &in, `{"fullName", "email", "title", "password", "inviteToken"}`) {
			return
		}
		res, err := s.SignUp(r.Context(), in)
		s.answerSignIn(w, r, writeError, res, err)
	}
}

// ResetHandler serves POST ResetCredentialsPath: a native user's new
// password from a reset token, signed in at once.
func (s *Service) ResetHandler(writeError func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in ResetCredentials
		if !decodeBody(w, r, writeError, &in, `{"email", "password", "resetToken"}`) {
			return
		}
		res, err := s.ResetCredentials(r.Context(), in)
		s.answerSignIn(w, r, writeError, res, err)
	}
}

// decodeBody reads a small JSON body into v, answering a malformed one.
func decodeBody(w http.ResponseWriter, r *http.Request, writeError func(http.ResponseWriter, *http.Request, error), v any, shape string) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		writeError(w, r, catalog.WithOp("read request body", err))
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, r, catalog.Errorf(catalog.Invalid, "malformed request body: expected %s", shape))
		return false
	}
	return true
}

func (s *Service) answerSignIn(w http.ResponseWriter, r *http.Request, writeError func(http.ResponseWriter, *http.Request, error), res LoginResult, err error) {
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.setSession(w, r, res)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}
