package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"time"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/uptrace/bun"
)

// RootUser is the URN of the root user, which exists from the first start.
const RootUser = "urn:li:corpuser:datahub"

// DefaultSystemClientID is DataHub's id of the system client.
const DefaultSystemClientID = "__datahub_system"

// Config is what the operator chose; empty secrets are generated and kept.
type Config struct {
	// SigningKey signs access tokens (DATAHUB_TOKEN_SERVICE_SIGNING_KEY).
	SigningKey string
	// KeyFile, when set and SigningKey is not, is the file a generated
	// signing key is kept in (readable by the owner only) rather than the
	// database, so that a copy of the database alone cannot sign tokens.
	// A key an older version kept in the database moves there.
	KeyFile string
	// SystemClientID and SystemClientSecret are the system client's
	// credentials (DATAHUB_SYSTEM_CLIENT_ID / DATAHUB_SYSTEM_CLIENT_SECRET).
	SystemClientID     string
	SystemClientSecret string
	// RootPassword sets the root user's password (CATALOGD_ROOT_PASSWORD).
	RootPassword string
	// RestAuthorization also requires Get Timeseries Aspect for timeseries
	// reads, as DataHub does with REST API authorization enabled.
	RestAuthorization bool
	// Disabled is the development mode: every privilege check passes.
	Disabled bool
	// Cookies says how browser session cookies are set.
	Cookies CookieConfig
}

// Service authenticates callers and authorizes their actions. It is safe
// for concurrent use.
type Service struct {
	db       *store.DB
	bun      *bun.DB
	postgres bool
	ingest   *ingest.Service
	audit    *audit.Recorder
	cfg      Config
	now      func() time.Time

	signingKey []byte
	deviceKey  []byte // MACs login device cookies
	tokenSalt  []byte
	systemID   string
	systemHash []byte // SHA-256 of the system client's secret

	tokens tokenCache

	policies policyCache
	logins   loginLimiter
}

// Secrets reports, for the operator, what New generated and where it is.
type Secrets struct {
	// SystemSecretGenerated is true when the system client secret was
	// generated (now or at an earlier start) rather than configured.
	SystemSecretGenerated bool
	SystemClientID        string
	// SystemClientSecret is the generated secret when this start knows it:
	// when it generated it, or found it in clear in the database (where an
	// older version kept it) and replaced it with its hash. The database
	// keeps only the hash, so it is the caller's to keep for the operator.
	SystemClientSecret string
	// SigningKeyInDatabase is true when the signing key was generated and
	// is kept in the database: neither configured nor given a KeyFile.
	SigningKeyInDatabase bool
}

// New opens the auth tables in db and loads or generates the secrets.
func New(ctx context.Context, db *store.DB, cfg Config) (*Service, Secrets, error) {
	if err := db.Migrate(ctx, "auth", migrations); err != nil {
		return nil, Secrets{}, fmt.Errorf("migrate auth tables: %w", err)
	}
	s := &Service{
		db: db, bun: db.Bun(), postgres: db.Dialect() == store.Postgres, cfg: cfg, now: time.Now,
		tokens: tokenCache{m: map[string]*cachedToken{}},
		logins: loginLimiter{m: map[string]*loginState{}},
	}
	s.policies.svc = s
	s.policies.ttl = 5 * time.Second
	out := Secrets{}
	key := cfg.SigningKey
	var err error
	switch {
	case key != "":
	case cfg.KeyFile != "":
		if key, err = s.keyFile(ctx, cfg.KeyFile, secretSigningKey, 32); err != nil {
			return nil, Secrets{}, err
		}
	default:
		if key, _, err = s.secret(ctx, secretSigningKey, 32); err != nil {
			return nil, Secrets{}, err
		}
		out.SigningKeyInDatabase = true
	}
	// Used as the raw string's bytes, as DataHub does with its key.
	s.signingKey = []byte(key)
	// Derived, so that a device cookie never doubles as anything signed
	// with the key itself.
	mac := hmac.New(sha256.New, s.signingKey)
	mac.Write([]byte("catalogd login device cookie"))
	s.deviceKey = mac.Sum(nil)
	salt, _, err := s.secret(ctx, secretTokenSalt, 16)
	if err != nil {
		return nil, Secrets{}, err
	}
	s.tokenSalt = []byte(salt)
	s.systemID = cfg.SystemClientID
	if s.systemID == "" {
		s.systemID = DefaultSystemClientID
	}
	out.SystemClientID = s.systemID
	if cfg.SystemClientSecret != "" {
		s.systemHash = hashSecret(cfg.SystemClientSecret)
	} else {
		if s.systemHash, out.SystemClientSecret, err = s.systemSecret(ctx); err != nil {
			return nil, Secrets{}, err
		}
		out.SystemSecretGenerated = true
	}
	return s, out, nil
}

// SigningKey returns the key tokens are signed with (to derive other keys
// from, e.g. the audit log's scroll MAC).
func (s *Service) SigningKey() []byte { return s.signingKey }

func (s *Service) isSystemClient(id, secret string) bool {
	// Both compared in full, so that timing reveals neither.
	okID := subtle.ConstantTimeCompare([]byte(id), []byte(s.systemID))
	okSecret := subtle.ConstantTimeCompare(hashSecret(secret), s.systemHash)
	return okID&okSecret == 1
}

// Bootstrap connects the write pipeline and the audit log, and makes sure the
// root user, the default policies, roles and system ownership types exist. When it had to generate the root
// password it returns it, so that the caller can show it once.
func (s *Service) Bootstrap(ctx context.Context, ing *ingest.Service, rec *audit.Recorder) (generatedRootPassword string, err error) {
	s.ingest, s.audit = ing, rec
	if err := s.seedPolicies(ctx); err != nil {
		return "", err
	}
	if err := s.seedEntities(ctx); err != nil {
		return "", err
	}
	return s.ensureRoot(ctx)
}

// ensureRoot creates the root user with a password on first start, and
// resets the password when the operator configured one that does not match.
func (s *Service) ensureRoot(ctx context.Context) (string, error) {
	cur, err := s.credentialsOf(ctx, RootUser)
	if err != nil {
		return "", err
	}
	pw, generated := s.cfg.RootPassword, ""
	switch {
	case cur == nil && pw == "":
		pw = randomSecret(15)
		generated = pw
	case cur == nil:
	case pw == "" || verifyPassword(*cur, pw):
		return "", nil
	}
	ctx = preauthorized(ctx)
	props := []catalog.Proposal{
		proposal("corpuser", RootUser, "corpUserCredentials", hashPassword(pw)),
	}
	if cur == nil {
		props = append(props, proposal("corpuser", RootUser, "corpUserInfo", map[string]any{
			"active": true, "displayName": "DataHub", "title": "DataHub Root User", "system": true,
		}))
	}
	if _, err := s.ingest.Ingest(ctx, catalog.SystemActor, props); err != nil {
		return "", fmt.Errorf("create root user: %w", err)
	}
	return generated, nil
}

// credentialsOf reads a user's stored credentials; nil when none.
func (s *Service) credentialsOf(ctx context.Context, urn string) (*credentials, error) {
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"corpUserCredentials"})
	if err != nil {
		return nil, fmt.Errorf("read credentials: %w", err)
	}
	for _, a := range m[urn] {
		var c credentials
		if err := json.Unmarshal(a.Value, &c); err != nil {
			return nil, fmt.Errorf("decode credentials of %s: %w", urn, err)
		}
		return &c, nil
	}
	return nil, nil
}

// SetPassword creates or replaces the password of the native user username,
// creating the user when new. It is the operator's and the tests' way to
// make users; callers must have checked the caller's right to do it.
func (s *Service) SetPassword(ctx context.Context, actor, username, password string) error {
	if len(password) < 8 {
		return catalog.Errorf(catalog.Invalid, "password must be at least 8 characters")
	}
	urn := userURN(username)
	props := []catalog.Proposal{proposal("corpuser", urn, "corpUserCredentials", hashPassword(password))}
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"corpUserInfo"})
	if err != nil {
		return fmt.Errorf("read user %s: %w", urn, err)
	}
	if len(m[urn]) == 0 {
		props = append(props, proposal("corpuser", urn, "corpUserInfo", map[string]any{"active": true, "displayName": username}))
	}
	if _, err := s.ingest.Ingest(preauthorized(ctx), actor, props); err != nil {
		return fmt.Errorf("set password of %s: %w", urn, err)
	}
	return nil
}

// EnsureUser creates the user urn (active, named by its id) when it does
// not exist, and reports whether it did. Tokens work only for users that
// exist; callers must have checked the caller's right to create users.
func (s *Service) EnsureUser(ctx context.Context, actor, urn string) (created bool, err error) {
	u, err := catalog.ParseURN(urn)
	if err != nil || u.EntityType() != "corpuser" {
		return false, catalog.Errorf(catalog.Invalid, "%q is not a corpuser URN", urn)
	}
	if ok, err := s.exists(ctx, urn); err != nil || ok {
		return false, err
	}
	props := []catalog.Proposal{proposal("corpuser", urn, "corpUserInfo", map[string]any{"active": true, "displayName": u.ID()})}
	if _, err := s.ingest.Ingest(preauthorized(ctx), actor, props); err != nil {
		return false, fmt.Errorf("create user %s: %w", urn, err)
	}
	return true, nil
}

// exists reports whether the user urn exists (has its key aspect).
func (s *Service) exists(ctx context.Context, urn string) (bool, error) {
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"corpUserKey"})
	if err != nil {
		return false, fmt.Errorf("read user %s: %w", urn, err)
	}
	return len(m[urn]) > 0, nil
}

// proposal builds an UPSERT of one aspect.
func proposal(entity, urn, aspect string, v any) catalog.Proposal {
	b, _ := json.Marshal(v)
	return catalog.Proposal{EntityType: entity, EntityURN: urn, AspectName: aspect, ChangeType: catalog.Upsert, Value: b, ContentType: "application/json"}
}

type preauthorizedKey struct{}

// preauthorized marks ctx as carrying a write this package has already
// authorized (a user creating their own token, say), which the ingest
// authorizer would otherwise judge by the entity alone.
func preauthorized(ctx context.Context) context.Context {
	return context.WithValue(ctx, preauthorizedKey{}, true)
}

// Preauthorized marks ctx as carrying a write its caller has authorized by
// rules of its own (a user saving their own view or settings), which the
// ingest authorizer would otherwise judge by the entity alone.
func Preauthorized(ctx context.Context) context.Context { return preauthorized(ctx) }

func isPreauthorized(ctx context.Context) bool {
	v, _ := ctx.Value(preauthorizedKey{}).(bool)
	return v
}
