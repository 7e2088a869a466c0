package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/catalog"
)

// LoginPath is where users log in with a password.
const LoginPath = "/logIn"

// Login throttling, and why it has this shape.
//
// Guessing is slowed by counting failed attempts in a row and, from the
// fifth (freeFailures+1), refusing every further attempt for a window that
// doubles with each failure, from baseLockout up to maxLockout; a success
// resets the count. An attempt counts as failed from the moment it is
// admitted until its password proves right, under one lock, so that of any
// number of parallel attempts exactly freeFailures+1 are checked and the
// rest are refused before a password hash is computed.
//
// A lockout must cost the attacker rather than the user it targets: one
// keyed by the username alone lets anyone lock any account, the admin's
// included (OWASP's Authentication Cheat Sheet warns of exactly this). And
// letting the right password through a lockout would defeat it, for only a
// checked password can be told right from wrong. So failures are counted
// per client, two ways:
//
//   - A client that logged in as the user before presents the device cookie
//     that login set (OWASP's "device cookies" against online guessing: a
//     random id, MACed together with the username). Its failures are its
//     own, so nobody without that cookie can lock it out.
//   - Any other client is counted per username and network address. An
//     attacker locks the user out of the attacker's own address, while the
//     user logs in from anywhere else, and from a shared address (a proxy,
//     a NAT) with the cookie of an earlier login.
//
// The address is the connection's (forwarding headers are not trusted), and
// the counts live in each replica's memory: behind a load balancer an
// attacker gets up to one budget per replica. Each check costs an argon2id
// hash (tens of milliseconds of a core), which bounds guessing throughput
// whatever the number of addresses and replicas.
const (
	freeFailures = 4
	baseLockout  = time.Second
	maxLockout   = 15 * time.Minute
	// loginStateTTL forgets quiet clients, bounding the limiter's memory.
	loginStateTTL = time.Hour
	// maxLoginStates is the number of clients past which quiet ones are
	// forgotten.
	maxLoginStates = 100_000
)

// DeviceCookie names the cookie a successful login sets: it lets the client
// log in as that user despite failures other clients caused.
const DeviceCookie = "catalogd_device"

// deviceCookieAge is how long a device cookie is kept by the browser.
const deviceCookieAge = 365 * 24 * time.Hour

type loginState struct {
	failures    int // in a row, counting the attempts still being checked
	lockedUntil time.Time
	last        time.Time
}

type loginLimiter struct {
	mu sync.Mutex
	m  map[string]*loginState
}

// LockedError refuses a login during a lockout window.
type LockedError struct{ RetryAfter time.Duration }

func (e *LockedError) Error() string {
	return fmt.Sprintf("too many failed login attempts; retry in %d seconds", int(e.RetryAfter.Seconds()+0.999))
}

// lockout is the window the failures-th failure in a row starts.
func lockout(failures int) time.Duration {
	n := failures - freeFailures
	if n <= 0 {
		return 0
	}
	return min(baseLockout<<min(n-1, 20), maxLockout)
}

// admit refuses an attempt while key is locked out, and otherwise counts it
// as failed (and locks key accordingly) until settle learns its outcome.
func (l *loginLimiter) admit(key string, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.m[key]
	if st != nil && now.Before(st.lockedUntil) {
		return &LockedError{RetryAfter: st.lockedUntil.Sub(now)}
	}
	if st == nil || now.Sub(st.last) > loginStateTTL {
		if len(l.m) >= maxLoginStates {
			for k, old := range l.m {
				if now.Sub(old.last) > loginStateTTL {
					delete(l.m, k)
				}
			}
		}
		st = &loginState{}
		l.m[key] = st
	}
	st.failures++
	st.last = now
	st.lockedUntil = now.Add(lockout(st.failures))
	return nil
}

// outcome is how an admitted attempt ended.
type outcome int

const (
	// unchecked: the password could not be checked (the store failed), so
	// the attempt does not count.
	unchecked outcome = iota
	failed
	succeeded
)

// settle records the outcome of an attempt admit let through.
func (l *loginLimiter) settle(key string, o outcome, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.m[key]
	switch {
	case o == succeeded:
		delete(l.m, key)
	case st == nil:
		// A success settled meanwhile reset the count; a failure still
		// counts after it.
		if o == failed {
			l.m[key] = &loginState{failures: 1, last: now}
		}
	case o == failed:
		// The window runs from when the failure is known.
		st.last = now
		st.lockedUntil = maxTime(st.lockedUntil, now.Add(lockout(st.failures)))
	default:
		st.failures = max(st.failures-1, 0)
		if lockout(st.failures) == 0 {
			st.lockedUntil = time.Time{}
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// newDevice returns a device cookie value for username: a random id and a
// MAC binding it to the username.
func (s *Service) newDevice(username string) string {
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	return base64.RawURLEncoding.EncodeToString(append(id, s.deviceMAC(username, id)...))
}

// device returns the id of a device cookie value issued for username, or
// false when it is not one.
func (s *Service) device(username, cookie string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(cookie)
	if err != nil || len(b) != 32 {
		return "", false
	}
	id, mac := b[:16], b[16:]
	if !hmac.Equal(mac, s.deviceMAC(username, id)) {
		return "", false
	}
	return string(id), true
}

func (s *Service) deviceMAC(username string, id []byte) []byte {
	m := hmac.New(sha256.New, s.deviceKey)
	m.Write([]byte(username))
	m.Write([]byte{0})
	m.Write(id)
	return m.Sum(nil)[:16]
}

// throttleKey is the count an attempt from c to log in as username goes to.
func (s *Service) throttleKey(username string, c Client) string {
	if id, ok := s.device(username, c.Device); ok {
		return "device\x00" + username + "\x00" + id
	}
	return "address\x00" + username + "\x00" + c.Address
}

// errBadLogin is the one answer to a wrong username or password: it does
// not say which was wrong.
var errBadLogin = catalog.Errorf(catalog.Unauthorized, "Invalid username or password")

// Client is where a login attempt comes from.
type Client struct {
	// Address is the client's network address.
	Address string
	// Device is the DeviceCookie the client sent, if any.
	Device string
}

// LoginResult is what a successful login returns.
type LoginResult struct {
	AccessToken string `json:"accessToken"`
	ActorURN    string `json:"actorUrn"`
	ExpiresAt   int64  `json:"expiresAt"`
	// Device is a new DeviceCookie value for the client.
	Device string `json:"-"`
}

// Login checks a native user's password and issues a session token. Every
// attempt is audited (LogInEvent or FailedLogInEvent).
func (s *Service) Login(ctx context.Context, username, password string, client Client) (LoginResult, error) {
	username = strings.TrimSpace(username)
	if username == "" || password == "" {
		return LoginResult{}, catalog.Errorf(catalog.Invalid, "username and password are required")
	}
	urn := userURN(username)
	if _, err := catalog.ParseURN(urn); err != nil {
		return LoginResult{}, errBadLogin
	}
	key := s.throttleKey(username, client)
	if err := s.logins.admit(key, s.now()); err != nil {
		s.recordLogin(ctx, audit.FailedLogInEvent, urn)
		return LoginResult{}, err
	}
	result := unchecked
	defer func() { s.logins.settle(key, result, s.now()) }()
	creds, err := s.credentialsOf(ctx, urn)
	if err != nil {
		return LoginResult{}, err
	}
	// Unknown users cost a hash too, so that timing does not tell which
	// usernames exist.
	ok := false
	if creds != nil {
		ok = verifyPassword(*creds, password)
	} else {
		verifyPassword(dummyCredentials, password)
	}
	if ok {
		ok, err = s.active(ctx, urn)
		if err != nil {
			return LoginResult{}, err
		}
	}
	if !ok {
		result = failed
		s.recordLogin(ctx, audit.FailedLogInEvent, urn)
		return LoginResult{}, errBadLogin
	}
	result = succeeded
	token, _, exp, err := s.issue(urn, Session, s.sessionTTL(), false)
	if err != nil {
		return LoginResult{}, err
	}
	s.recordLogin(ctx, audit.LogInEvent, urn)
	return LoginResult{AccessToken: token, ActorURN: urn, ExpiresAt: exp, Device: s.newDevice(username)}, nil
}

// dummyCredentials are verified against for unknown users.
var dummyCredentials = hashPassword(randomSecret(12))

// active reports whether the user exists and is not suspended or removed.
func (s *Service) active(ctx context.Context, urn string) (bool, error) {
	m, err := s.db.LatestAspects(ctx, []string{urn}, userStateAspects)
	if err != nil {
		return false, fmt.Errorf("read status of %s: %w", urn, err)
	}
	return activeUser(urn, m[urn])
}

// recordLogin audits a login attempt. A failure to record is logged, not
// returned: the attempt's answer must not depend on the audit log.
func (s *Service) recordLogin(ctx context.Context, typ, urn string) {
	s.recordSignIn(ctx, typ, urn, audit.LoginPassword)
}

// recordSignIn audits a sign-in attempt from source (an audit.Login* name).
func (s *Service) recordSignIn(ctx context.Context, typ, urn, source string) {
	if s.audit == nil {
		return
	}
	ev := audit.Event{Type: typ, Actor: urn, EntityURN: urn, EntityType: "corpuser", LoginSource: source}
	if err := s.audit.Record(ctx, ev); err != nil {
		slog.ErrorContext(ctx, "record login event", "type", typ, "err", err)
	}
}

// LoginHandler serves POST LoginPath: {username, password} → a session
// token in the answer, and the browser session cookies (see session.go).
// writeError answers errors in the protocol's format.
func (s *Service) LoginHandler(writeError func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil {
			writeError(w, r, catalog.WithOp("read request body", err))
			return
		}
		var in struct {
			Username string `json:"username"`
			Password string `json:"password"`
		}
		if err := json.Unmarshal(body, &in); err != nil {
			writeError(w, r, catalog.Errorf(catalog.Invalid, "malformed request body: expected {\"username\", \"password\"}"))
			return
		}
		c := Client{Address: ClientIP(r)}
		if ck, err := r.Cookie(DeviceCookie); err == nil {
			c.Device = ck.Value
		}
		sess, err := s.Login(r.Context(), in.Username, in.Password, c)
		if le, ok := err.(*LockedError); ok {
			writeLocked(w, r, le)
			return
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		http.SetCookie(w, &http.Cookie{
			Name: DeviceCookie, Value: sess.Device, Path: LoginPath, MaxAge: int(deviceCookieAge.Seconds()),
			HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
		})
		s.setSession(w, r, sess)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(sess)
	}
}

// writeLocked answers 429 with Retry-After, in the rest.li error shape the
// other errors use (no Kind maps to 429, and no other endpoint needs one).
func writeLocked(w http.ResponseWriter, r *http.Request, le *LockedError) {
	const exceptionClass = "com.linkedin.restli.server.RestLiServiceException"
	secs := int(le.RetryAfter.Seconds() + 0.999)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-RestLi-Error-Response", "true")
	w.WriteHeader(http.StatusTooManyRequests)
	msg := le.Error()
	_ = json.NewEncoder(w).Encode(map[string]any{
		"status": http.StatusTooManyRequests, "message": msg, "exceptionClass": exceptionClass,
		"stackTrace": fmt.Sprintf("%s [HTTP Status:%d]: %s", exceptionClass, http.StatusTooManyRequests, msg),
	})
}
