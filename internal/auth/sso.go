package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/catalog"
)

// ExternalUser is a user an identity provider vouched for (single sign-on).
type ExternalUser struct {
	Username                                          string
	Email, FirstName, LastName, FullName, DisplayName string
	Picture                                           string
	Groups                                            []string
}

// Provisioning says what a single sign-on may create, as DataHub's
// AUTH_OIDC_JIT_PROVISIONING_ENABLED, AUTH_OIDC_PRE_PROVISIONING_REQUIRED
// and AUTH_OIDC_EXTRACT_GROUPS_ENABLED do.
type Provisioning struct {
	// JIT creates a user who does not exist yet (DataHub's default).
	JIT bool
	// PreProvisioned refuses users who do not exist (when JIT is off).
	PreProvisioned bool
	// Groups creates the user's groups that do not exist and makes the
	// user's group membership exactly those groups (JIT only).
	Groups bool
}

// SSOLogin signs in a user an identity provider vouched for, provisioning
// them (and their groups) as p says, and issues a session. Unlike DataHub,
// which marks every such user active, a suspended or removed user stays so
// and is refused: suspension must hold whatever the sign-in.
func (s *Service) SSOLogin(ctx context.Context, u ExternalUser, p Provisioning) (LoginResult, error) {
	urn := userURN(u.Username)
	// The root user and the system sign in with their own credentials
	// only: an account at the provider that happens to bear their name
	// must not become them.
	if _, err := catalog.ParseURN(urn); err != nil || reservedUsers[urn] {
		return LoginResult{}, catalog.Errorf(catalog.Forbidden, "%q cannot sign in through single sign-on", u.Username)
	}
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"corpUserInfo", "corpUserStatus", "status"})
	if err != nil {
		return LoginResult{}, fmt.Errorf("read user %s: %w", urn, err)
	}
	exists := false
	hasStatus := false
	for _, a := range m[urn] {
		exists = exists || a.Name == "corpUserInfo"
		hasStatus = hasStatus || a.Name == "corpUserStatus"
	}
	var props []catalog.Proposal
	switch {
	case !exists && p.JIT:
		info := map[string]any{"active": true}
		for k, v := range map[string]string{"firstName": u.FirstName, "lastName": u.LastName, "fullName": u.FullName,
			"email": u.Email, "displayName": u.DisplayName} {
			if v != "" {
				info[k] = v
			}
		}
		props = append(props, proposal("corpuser", urn, "corpUserInfo", info))
		if u.Picture != "" {
			props = append(props, proposal("corpuser", urn, "corpUserEditableInfo", map[string]any{"pictureLink": u.Picture}))
		}
	case !exists && p.PreProvisioned:
		return LoginResult{}, catalog.Errorf(catalog.Forbidden,
			"user %s has not been provisioned in catalogd: ask your administrator to create the account", urn)
	}
	if p.JIT && p.Groups {
		gp, err := s.provisionGroups(ctx, urn, u.Groups)
		if err != nil {
			return LoginResult{}, err
		}
		props = append(props, gp...)
	}
	if !hasStatus {
		props = append(props, s.activeStatus(urn))
	}
	if len(props) > 0 {
		if _, err := s.ingest.Ingest(preauthorized(ctx), catalog.SystemActor, props); err != nil {
			return LoginResult{}, fmt.Errorf("provision %s: %w", urn, err)
		}
		s.policies.invalidate()
	}
	ok, err := s.active(ctx, urn)
	if err != nil {
		return LoginResult{}, err
	}
	if !ok {
		s.recordSignIn(ctx, audit.FailedLogInEvent, urn, audit.LoginSSO)
		return LoginResult{}, errInactive
	}
	return s.startSession(ctx, urn, audit.LoginSSO)
}

// provisionGroups returns the proposals that create the groups of names
// that do not exist yet and set user's membership to them. Group URNs are
// the URL-encoded names, as DataHub makes them.
func (s *Service) provisionGroups(ctx context.Context, user string, names []string) ([]catalog.Proposal, error) {
	var urns, display []string
	seen := map[string]bool{}
	for _, n := range names {
		g := catalog.NewURN("corpGroup", url.QueryEscape(n))
		if _, err := catalog.ParseURN(g); err != nil || seen[g] {
			continue
		}
		seen[g] = true
		urns, display = append(urns, g), append(display, n)
	}
	var props []catalog.Proposal
	if len(urns) > 0 {
		m, err := s.db.LatestAspects(ctx, urns, []string{"corpGroupInfo"})
		if err != nil {
			return nil, fmt.Errorf("read groups: %w", err)
		}
		for i, g := range urns {
			if len(m[g]) == 0 {
				props = append(props, proposal("corpGroup", g, "corpGroupInfo", map[string]any{
					"displayName": display[i], "email": "", "admins": []string{}, "members": []string{}, "groups": []string{},
				}))
			}
		}
	}
	if urns == nil {
		urns = []string{}
	}
	return append(props, proposal("corpuser", user, "groupMembership", map[string]any{"groups": urns})), nil
}

// SetSession sets the session cookies of res on w (a sign-in handled
// outside this package, such as single sign-on).
func (s *Service) SetSession(w http.ResponseWriter, r *http.Request, res LoginResult) {
	s.setSession(w, r, res)
}
