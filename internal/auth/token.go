package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Token types and versions, as DataHub names them: session tokens are
// stateless (version 1), personal tokens are also stored (version 2).
const (
	Session  = "SESSION"
	Personal = "PERSONAL"

	statelessVersion = "1"
	statefulVersion  = "2"
	issuer           = "datahub-metadata-service"
	actorTypeUser    = "USER"
)

// DefaultSessionDuration is how long a token from POST /logIn lives
// (DataHub's SESSION_TOKEN_DURATION_MS).
const DefaultSessionDuration = 24 * time.Hour

// claims are DataHub's token claims.
type claims struct {
	ActorType string `json:"actorType"`
	ActorID   string `json:"actorId"`
	Type      string `json:"type"`
	Version   string `json:"version"`
	jwt.RegisteredClaims
}

// Actor is an authenticated caller.
type Actor struct {
	URN string
	// TokenType is Session or Personal for token callers, "" for the system
	// client and for unauthenticated development mode.
	TokenType string
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor attached by the middleware, or the zero Actor.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// userURN returns the corpuser URN of a username.
func userURN(name string) string { return catalog.NewURN("corpuser", name) }

// issue signs a token of the given type for the user urn. A stateful token
// is valid only while stored; a zero ttl means no expiry (stored tokens only).
func (s *Service) issue(urn, typ string, ttl time.Duration, stateful bool) (token string, id string, expiresAt int64, err error) {
	u, err := catalog.ParseURN(urn)
	if err != nil || u.EntityType() != "corpuser" {
		return "", "", 0, catalog.Errorf(catalog.Invalid, "actor %q is not a corpuser URN", urn)
	}
	now := s.now()
	c := claims{
		ActorType: actorTypeUser, ActorID: u.ID(), Type: typ, Version: statelessVersion,
		RegisteredClaims: jwt.RegisteredClaims{
			Subject: u.ID(), Issuer: issuer, ID: uuid.NewString(), IssuedAt: jwt.NewNumericDate(now),
		},
	}
	if stateful {
		c.Version = statefulVersion
	}
	if ttl > 0 {
		exp := now.Add(ttl)
		c.ExpiresAt = jwt.NewNumericDate(exp)
		expiresAt = exp.UnixMilli()
	}
	token, err = jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.signingKey)
	if err != nil {
		return "", "", 0, fmt.Errorf("sign token: %w", err)
	}
	return token, s.tokenHash(token), expiresAt, nil
}

// tokenHash is the id of a stored token: the hex SHA-256 of the salt and the
// token. It identifies the token without revealing it.
func (s *Service) tokenHash(token string) string {
	h := sha256.New()
	h.Write(s.tokenSalt)
	h.Write([]byte(token))
	return hex.EncodeToString(h.Sum(nil))
}

// errExpired is DataHub's message for an expired token.
var errExpired = catalog.Errorf(catalog.Unauthorized, "Failed to validate DataHub token. Token has expired.")

// errUnauthorized is the message for every other authentication failure: it
// says nothing about why, so that probing learns nothing.
var errUnauthorized = catalog.Errorf(catalog.Unauthorized, "Unauthorized to perform this action.")

// errInactive refuses a valid token whose user is suspended, removed or
// deleted: DataHub answers 403 "Actor is not active" there too.
var errInactive = catalog.Errorf(catalog.Forbidden, "Actor is not active")

// cachedToken is a token whose signature and claims were verified. It holds
// nothing that can change: whether the token may still be used is read from
// the store on every request (see live).
type cachedToken struct {
	actor     Actor
	expiresAt time.Time // zero: no expiry
	stateful  bool      // a stored (personal) token, which revocation can end
}

// tokenCache holds verified tokens by their hash, so that a request pays for
// a map lookup rather than a signature check. It is bounded: when full it is
// emptied, which only costs re-verification.
type tokenCache struct {
	mu sync.RWMutex
	m  map[string]*cachedToken
}

const tokenCacheMax = 100_000

func (c *tokenCache) get(k string) *cachedToken {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[k]
}

func (c *tokenCache) put(k string, t *cachedToken) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= tokenCacheMax {
		clear(c.m)
	}
	c.m[k] = t
}

func (c *tokenCache) evict(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// verify authenticates a bearer token.
func (s *Service) verify(ctx context.Context, token string) (Actor, error) {
	key := s.tokenHash(token)
	t := s.tokens.get(key)
	if t == nil {
		var err error
		if t, err = s.parse(token); err != nil {
			return Actor{}, err
		}
		s.tokens.put(key, t)
	}
	if !t.expiresAt.IsZero() && !s.now().Before(t.expiresAt) {
		s.tokens.evict(key)
		return Actor{}, errExpired
	}
	if err := s.live(ctx, t.actor.URN, key, t.stateful); err != nil {
		return Actor{}, err
	}
	return t.actor, nil
}

// parse checks a token's signature and claims.
func (s *Service) parse(token string) (*cachedToken, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return s.signingKey, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithTimeFunc(s.now))
	if err != nil {
		if errors.Is(err, jwt.ErrTokenExpired) {
			return nil, errExpired
		}
		return nil, errUnauthorized
	}
	if c.ActorID == "" || c.ActorType != actorTypeUser || (c.Type != Session && c.Type != Personal) {
		return nil, errUnauthorized
	}
	if c.Issuer != "" && c.Issuer != issuer {
		return nil, errUnauthorized
	}
	t := &cachedToken{actor: Actor{URN: userURN(c.ActorID), TokenType: c.Type}, stateful: c.Version == statefulVersion}
	if c.ExpiresAt != nil {
		t.expiresAt = c.ExpiresAt.Time
	}
	return t, nil
}

// userStateAspects are the aspects that decide whether a user is active.
var userStateAspects = []string{"corpUserKey", "corpUserStatus", "status"}

// live checks what can end a verified token before it expires: a stored
// token must still have its entity (deleting it is how DataHub revokes
// one), and the token's user must exist and be neither suspended nor
// removed (DataHub's ActorContext.isActive, with existence enforced as its
// default configuration does).
//
// It reads the store on every request, in one query over the primary key,
// rather than trusting a cache: a revocation or a suspension committed by
// any replica, or by any other writer of the database, then holds for the
// very next request everywhere, with no window and no message to miss.
// BenchmarkMiddleware measures what it costs.
func (s *Service) live(ctx context.Context, user, hash string, stateful bool) error {
	urns, names := []string{user}, userStateAspects
	tokenURN := ""
	if stateful {
		tokenURN = tokenPrefix + hash
		urns = append(urns, tokenURN)
		names = append(names[:len(names):len(names)], "dataHubAccessTokenInfo")
	}
	m, err := s.db.LatestAspects(ctx, urns, names)
	if err != nil {
		return fmt.Errorf("check token: %w", err)
	}
	if stateful {
		var info *TokenMeta
		for _, a := range m[tokenURN] {
			if a.Name == "dataHubAccessTokenInfo" {
				meta, err := metaOf(tokenURN, a.Value)
				if err != nil {
					return err
				}
				info = &meta
			}
		}
		if info == nil || info.ActorURN != user {
			return errUnauthorized
		}
	}
	// The system cannot be suspended (nor is it a stored user).
	if user == catalog.SystemActor {
		return nil
	}
	ok, err := activeUser(user, m[user])
	if err != nil {
		return err
	}
	if !ok {
		return errInactive
	}
	return nil
}

// activeUser decides from a user's userStateAspects whether it is active:
// it exists (has its key aspect), is not soft-deleted and not suspended.
func activeUser(urn string, aspects []catalog.Aspect) (bool, error) {
	exists := false
	for _, a := range aspects {
		if a.Name == "corpUserKey" {
			exists = true
			continue
		}
		var v struct {
			Status  string `json:"status"`
			Removed bool   `json:"removed"`
		}
		if err := json.Unmarshal(a.Value, &v); err != nil {
			return false, fmt.Errorf("decode %s of %s: %w", a.Name, urn, err)
		}
		if v.Removed || strings.EqualFold(v.Status, "SUSPENDED") {
			return false, nil
		}
	}
	return exists, nil
}

// parseAuthorization authenticates the Authorization header value h.
func (s *Service) parseAuthorization(ctx context.Context, h string) (Actor, error) {
	scheme, cred, ok := strings.Cut(h, " ")
	if !ok {
		return Actor{}, errUnauthorized
	}
	cred = strings.TrimSpace(cred)
	switch strings.ToLower(scheme) {
	case "bearer":
		return s.verify(ctx, cred)
	case "basic":
		// DataHub's system client sends "Basic id:secret" in plain text.
		id, secret, ok := strings.Cut(cred, ":")
		if ok && s.isSystemClient(id, secret) {
			return Actor{URN: catalog.SystemActor}, nil
		}
	}
	return Actor{}, errUnauthorized
}
