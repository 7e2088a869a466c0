package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Token durations, DataHub's AccessTokenDuration values.
var durations = map[string]time.Duration{
	"ONE_HOUR":     time.Hour,
	"ONE_DAY":      24 * time.Hour,
	"ONE_WEEK":     7 * 24 * time.Hour,
	"ONE_MONTH":    30 * 24 * time.Hour,
	"THREE_MONTHS": 90 * 24 * time.Hour,
	"SIX_MONTHS":   180 * 24 * time.Hour,
	"ONE_YEAR":     365 * 24 * time.Hour,
	"NO_EXPIRY":    0,
}

// ParseDuration maps an AccessTokenDuration name to a lifetime (0: none).
func ParseDuration(name string) (time.Duration, error) {
	d, ok := durations[name]
	if !ok {
		return 0, catalog.Errorf(catalog.Invalid, "unknown token duration %q", name)
	}
	return d, nil
}

// TokenMeta describes a stored personal token; it never holds the token.
type TokenMeta struct {
	ID          string // the token's hash, the id of its entity
	URN         string
	Type        string
	Name        string
	Description string
	ActorURN    string // whose privileges the token carries
	OwnerURN    string // who created it
	CreatedAt   int64
	ExpiresAt   int64 // 0: never
}

const tokenPrefix = "urn:li:dataHubAccessToken:"

// tokenInfoAspect is the dataHubAccessTokenInfo aspect.
type tokenInfoAspect struct {
	Name        string `json:"name"`
	ActorURN    string `json:"actorUrn"`
	OwnerURN    string `json:"ownerUrn"`
	CreatedAt   int64  `json:"createdAt"`
	ExpiresAt   int64  `json:"expiresAt,omitempty"`
	Description string `json:"description,omitempty"`
}

func metaOf(urn string, raw []byte) (TokenMeta, error) {
	var v tokenInfoAspect
	if err := json.Unmarshal(raw, &v); err != nil {
		return TokenMeta{}, fmt.Errorf("decode token info of %s: %w", urn, err)
	}
	return TokenMeta{
		ID: urn[len(tokenPrefix):], URN: urn, Type: Personal, Name: v.Name, Description: v.Description,
		ActorURN: v.ActorURN, OwnerURN: v.OwnerURN, CreatedAt: v.CreatedAt, ExpiresAt: v.ExpiresAt,
	}, nil
}

// tokenInfo reads a stored token by its hash; nil when there is none.
func (s *Service) tokenInfo(ctx context.Context, hash string) (*TokenMeta, error) {
	urn := tokenPrefix + hash
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"dataHubAccessTokenInfo"})
	if err != nil {
		return nil, fmt.Errorf("read access token: %w", err)
	}
	for _, a := range m[urn] {
		meta, err := metaOf(urn, a.Value)
		if err != nil {
			return nil, err
		}
		return &meta, nil
	}
	return nil, nil
}

// mayManageTokensOf checks that caller may create, list or revoke tokens
// carrying actor's privileges: their own with Generate Personal Access
// Tokens, anyone's with Manage Access Tokens.
func (s *Service) mayManageTokensOf(ctx context.Context, caller, actor, what string) error {
	privs := []string{PrivManageAccessTokens}
	if actor == caller {
		privs = append(privs, PrivGeneratePersonal)
	}
	return s.Require(ctx, caller, Resource{}, what, privs...)
}

// mayIssueFor checks that a token for actor could be used: only a user that
// exists can authenticate (see live), so a token for any other would be
// refused on first use.
func (s *Service) mayIssueFor(ctx context.Context, actor string) error {
	if u, err := catalog.ParseURN(actor); err != nil || u.EntityType() != "corpuser" {
		return catalog.Errorf(catalog.Invalid, "actor %q is not a corpuser URN", actor)
	}
	if actor == catalog.SystemActor {
		return nil
	}
	ok, err := s.exists(ctx, actor)
	if err != nil {
		return err
	}
	if !ok {
		return catalog.Errorf(catalog.NotFound, "user %s does not exist", actor)
	}
	return nil
}

// CreateAccessToken creates a personal token for actor on behalf of caller
// and stores it (hashed), so that it can be listed and revoked. The token
// itself is returned once and never stored.
func (s *Service) CreateAccessToken(ctx context.Context, caller, actor, name, description string, ttl time.Duration) (string, TokenMeta, error) {
	if name == "" {
		return "", TokenMeta{}, catalog.Errorf(catalog.Invalid, "a token name is required")
	}
	if err := s.mayManageTokensOf(ctx, caller, actor, "create access tokens for "+actor); err != nil {
		return "", TokenMeta{}, err
	}
	if err := s.mayIssueFor(ctx, actor); err != nil {
		return "", TokenMeta{}, err
	}
	token, id, exp, err := s.issue(actor, Personal, ttl, true)
	if err != nil {
		return "", TokenMeta{}, err
	}
	info := tokenInfoAspect{Name: name, ActorURN: actor, OwnerURN: caller, CreatedAt: s.now().UnixMilli(), ExpiresAt: exp, Description: description}
	urn := tokenPrefix + id
	if _, err := s.ingest.Ingest(preauthorized(ctx), caller, []catalog.Proposal{
		proposal("dataHubAccessToken", urn, "dataHubAccessTokenInfo", info),
	}); err != nil {
		return "", TokenMeta{}, fmt.Errorf("store access token: %w", err)
	}
	meta := TokenMeta{ID: id, URN: urn, Type: Personal, Name: name, Description: description, ActorURN: actor,
		OwnerURN: caller, CreatedAt: info.CreatedAt, ExpiresAt: exp}
	return token, meta, nil
}

// IssueToken signs a stateless token of type typ (Session or Personal) for
// actor, DataHub's getAccessToken; it is not stored, so it cannot be
// revoked and lives until it expires.
func (s *Service) IssueToken(ctx context.Context, caller, actor, typ string, ttl time.Duration) (string, error) {
	if typ != Session && typ != Personal {
		return "", catalog.Errorf(catalog.Invalid, "unknown token type %q", typ)
	}
	if ttl <= 0 {
		return "", catalog.Errorf(catalog.Invalid, "a stateless token must expire")
	}
	if err := s.mayManageTokensOf(ctx, caller, actor, "generate access tokens for "+actor); err != nil {
		return "", err
	}
	if err := s.mayIssueFor(ctx, actor); err != nil {
		return "", err
	}
	token, _, _, err := s.issue(actor, typ, ttl, false)
	if err != nil {
		return "", err
	}
	return token, nil
}

// RevokeAccessToken deletes the stored token id; it stops working with the
// next request, in every process sharing the store.
func (s *Service) RevokeAccessToken(ctx context.Context, caller, id string) error {
	meta, err := s.tokenInfo(ctx, id)
	if err != nil {
		return err
	}
	if meta == nil {
		return catalog.Errorf(catalog.NotFound, "access token %s does not exist", id)
	}
	// Whoever created the token or carries it may revoke it; others need
	// Manage Access Tokens.
	if meta.OwnerURN != caller && meta.ActorURN != caller {
		if err := s.Require(ctx, caller, Resource{}, "revoke access token "+id, PrivManageAccessTokens); err != nil {
			return err
		}
	}
	if _, err := s.ingest.Ingest(preauthorized(ctx), caller, []catalog.Proposal{{
		EntityType: "dataHubAccessToken", EntityURN: meta.URN, AspectName: "dataHubAccessTokenKey", ChangeType: catalog.Delete,
	}}); err != nil {
		return fmt.Errorf("revoke access token: %w", err)
	}
	return nil
}

// ListAccessTokens lists stored tokens, newest first: all of them for a
// caller with Manage Access Tokens, else the caller's own. actor, when set,
// keeps only the tokens carrying that actor's privileges.
func (s *Service) ListAccessTokens(ctx context.Context, caller, actor string, start, count int) ([]TokenMeta, int, error) {
	all, err := s.Allowed(ctx, caller, Resource{}, PrivManageAccessTokens)
	if err != nil {
		return nil, 0, err
	}
	if !all {
		if actor != "" && actor != caller {
			return nil, 0, catalog.Errorf(catalog.Forbidden, "%s is unauthorized to list access tokens of %s", caller, actor)
		}
		if err := s.Require(ctx, caller, Resource{}, "list access tokens", PrivGeneratePersonal); err != nil {
			return nil, 0, err
		}
		actor = caller
	}
	var out []TokenMeta
	const page = 1000
	for off := 0; ; off += page {
		rows, err := s.db.ScanLatest(ctx, catalog.ScanQuery{URNLike: tokenPrefix + "%", Aspect: "dataHubAccessTokenInfo", Offset: off, Limit: page})
		if err != nil {
			return nil, 0, fmt.Errorf("list access tokens: %w", err)
		}
		for _, r := range rows {
			m, err := metaOf(r.URN, r.Value)
			if err != nil {
				return nil, 0, err
			}
			if actor == "" || m.ActorURN == actor {
				out = append(out, m)
			}
		}
		if len(rows) < page {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt > out[j].CreatedAt
		}
		return out[i].ID < out[j].ID
	})
	total := len(out)
	start = min(max(start, 0), total)
	if count < 0 {
		count = 0
	}
	return out[start:min(start+count, total)], total, nil
}
