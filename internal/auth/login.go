package auth

import (
	"context"
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

// Login throttling: after freeFailures consecutive failures for one user
// from one address, attempts are refused for a window that doubles with
// each further failure, up to maxLockout. A success resets the count.
const (
	freeFailures = 4
	baseLockout  = time.Second
	maxLockout   = 15 * time.Minute
	// loginStateTTL forgets quiet users, bounding the limiter's memory.
	loginStateTTL = time.Hour
)

type loginState struct {
	failures    int
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

// check refuses an attempt while key is locked out.
func (l *loginLimiter) check(key string, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.m[key]; st != nil && now.Before(st.lockedUntil) {
		return &LockedError{RetryAfter: st.lockedUntil.Sub(now)}
	}
	return nil
}

// record notes the outcome of an attempt.
func (l *loginLimiter) record(key string, ok bool, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ok {
		delete(l.m, key)
		return
	}
	if len(l.m) > 100_000 {
		for k, st := range l.m {
			if now.Sub(st.last) > loginStateTTL {
				delete(l.m, k)
			}
		}
	}
	st := l.m[key]
	if st == nil || now.Sub(st.last) > loginStateTTL {
		st = &loginState{}
		l.m[key] = st
	}
	st.failures++
	st.last = now
	if n := st.failures - freeFailures; n > 0 {
		d := baseLockout << min(n-1, 20)
		st.lockedUntil = now.Add(min(d, maxLockout))
	}
}

// errBadLogin is the one answer to a wrong username or password: it does
// not say which was wrong.
var errBadLogin = catalog.Errorf(catalog.Unauthorized, "Invalid username or password")

// Client is where a login attempt comes from.
type Client struct {
	// Address is the client's network address.
	Address string
}

// LoginResult is what a successful login returns.
type LoginResult struct {
	AccessToken string `json:"accessToken"`
	ActorURN    string `json:"actorUrn"`
	ExpiresAt   int64  `json:"expiresAt"`
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
	key := username + "\x00" + client.Address
	now := s.now()
	if err := s.logins.check(key, now); err != nil {
		s.recordLogin(ctx, audit.FailedLogInEvent, urn)
		return LoginResult{}, err
	}
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
	s.logins.record(key, ok, now)
	if !ok {
		s.recordLogin(ctx, audit.FailedLogInEvent, urn)
		return LoginResult{}, errBadLogin
	}
	token, _, exp, err := s.issue(urn, Session, DefaultSessionDuration, false)
	if err != nil {
		return LoginResult{}, err
	}
	s.recordLogin(ctx, audit.LogInEvent, urn)
	return LoginResult{AccessToken: token, ActorURN: urn, ExpiresAt: exp}, nil
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
	if s.audit == nil {
		return
	}
	ev := audit.Event{Type: typ, Actor: urn, EntityURN: urn, EntityType: "corpuser", LoginSource: audit.LoginPassword}
	if err := s.audit.Record(ctx, ev); err != nil {
		slog.ErrorContext(ctx, "record login event", "type", typ, "err", err)
	}
}

// LoginHandler serves POST LoginPath: {username, password} → a session.
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
		sess, err := s.Login(r.Context(), in.Username, in.Password, Client{Address: ClientIP(r)})
		if le, ok := err.(*LockedError); ok {
			writeLocked(w, r, le)
			return
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
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
