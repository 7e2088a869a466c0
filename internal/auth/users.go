package auth

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/catalog"
)

// Native users, as DataHub manages them: an administrator shares an invite
// link (an invite token, optionally granting a role) with which people sign
// up, and a reset link (a reset token of one user, valid for a day) with
// which a user chooses a new password.
//
// An invite token is kept as an inviteToken entity keyed by a salted hash of
// the token, as DataHub does; the token itself is kept encrypted (AES-GCM,
// with a key derived from the token signing key, which the database does
// not hold), because getInviteToken shows the current one again. A reset
// token is shown once and kept only as its hash, in corpUserCredentials,
// with its expiry; it works once.

const (
	invitePrefix = "urn:li:inviteToken:"
	// resetTokenTTL is how long a reset token works, DataHub's one day.
	resetTokenTTL = 24 * time.Hour
	// minPasswordLen is the shortest password a user may choose.
	minPasswordLen = 8
)

// reservedUsers can never be signed up for: the system and the root user.
var reservedUsers = map[string]bool{catalog.SystemActor: true, RootUser: true, "urn:li:corpuser:UNKNOWN": true}

// inviteAspect is the inviteToken aspect.
type inviteAspect struct {
	Token string `json:"token"`
	Role  string `json:"role,omitempty"`
}

// inviteKey encrypts invite tokens; derived so that it doubles as nothing
// else signed with the signing key.
func (s *Service) inviteKey() []byte {
	m := hmac.New(sha256.New, s.signingKey)
	m.Write([]byte("catalogd invite token encryption"))
	return m.Sum(nil)
}

func (s *Service) seal(plain string) (string, error) {
	block, err := aes.NewCipher(s.inviteKey())
	if err != nil {
		return "", err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawStdEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(plain), []byte("inviteToken"))), nil
}

func (s *Service) open(sealed string) (string, error) {
	b, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil {
		return "", err
	}
	block, err := aes.NewCipher(s.inviteKey())
	if err != nil {
		return "", err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return "", err
	}
	if len(b) < gcm.NonceSize() {
		return "", errors.New("sealed invite token too short")
	}
	plain, err := gcm.Open(nil, b[:gcm.NonceSize()], b[gcm.NonceSize():], []byte("inviteToken"))
	return string(plain), err
}

// checkRole validates an optional role URN of an invite token.
func checkRole(role string) error {
	if role == "" {
		return nil
	}
	u, err := catalog.ParseURN(role)
	if err != nil || u.EntityType() != "dataHubRole" {
		return catalog.Errorf(catalog.Invalid, "%q is not a dataHubRole URN", role)
	}
	return nil
}

// invites returns the stored invite tokens granting role ("" for none).
func (s *Service) invites(ctx context.Context, role string) ([]Stored, error) {
	var out []Stored
	const page = 1000
	for off := 0; ; off += page {
		rows, err := s.db.ScanLatest(ctx, catalog.ScanQuery{URNLike: invitePrefix + "%", Aspect: "inviteToken", Offset: off, Limit: page})
		if err != nil {
			return nil, fmt.Errorf("list invite tokens: %w", err)
		}
		for _, r := range rows {
			var v inviteAspect
			if err := json.Unmarshal(r.Value, &v); err == nil && v.Role == role {
				out = append(out, Stored{URN: r.URN, Value: r.Value})
			}
		}
		if len(rows) < page {
			return out, nil
		}
	}
}

// GetInviteToken returns the invite token for role ("" for none), creating
// one when there is none; with regenerate, the old ones stop working and a
// new one is returned. It needs Manage Policies, as in DataHub, for a token
// can grant a role.
func (s *Service) GetInviteToken(ctx context.Context, caller, role string, regenerate bool) (string, error) {
	if err := s.Require(ctx, caller, Resource{}, "manage invite tokens", PrivManagePolicies); err != nil {
		return "", err
	}
	if err := checkRole(role); err != nil {
		return "", err
	}
	have, err := s.invites(ctx, role)
	if err != nil {
		return "", err
	}
	if len(have) == 1 && !regenerate {
		var v inviteAspect
		if err := json.Unmarshal(have[0].Value, &v); err != nil {
			return "", fmt.Errorf("decode invite token: %w", err)
		}
		// A token sealed with an earlier signing key cannot be shown
		// again: a new one replaces it.
		if tok, err := s.open(v.Token); err == nil {
			return tok, nil
		}
	}
	var props []catalog.Proposal
	for _, old := range have {
		props = append(props, catalog.Proposal{EntityType: "inviteToken", EntityURN: old.URN, AspectName: "inviteTokenKey", ChangeType: catalog.Delete})
	}
	token := randomSecret(32)
	sealed, err := s.seal(token)
	if err != nil {
		return "", fmt.Errorf("seal invite token: %w", err)
	}
	props = append(props, proposal("inviteToken", invitePrefix+s.tokenHash(token), "inviteToken", inviteAspect{Token: sealed, Role: role}))
	if _, err := s.ingest.Ingest(preauthorized(ctx), caller, props); err != nil {
		return "", fmt.Errorf("create invite token: %w", err)
	}
	return token, nil
}

// invite returns the stored invite token token, or nil.
func (s *Service) invite(ctx context.Context, token string) (*inviteAspect, error) {
	if token == "" {
		return nil, nil
	}
	urn := invitePrefix + s.tokenHash(token)
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"inviteToken"})
	if err != nil {
		return nil, fmt.Errorf("read invite token: %w", err)
	}
	for _, a := range m[urn] {
		var v inviteAspect
		if err := json.Unmarshal(a.Value, &v); err != nil {
			return nil, fmt.Errorf("decode invite token: %w", err)
		}
		return &v, nil
	}
	return nil, nil
}

// errBadInvite is the one answer to an unknown or withdrawn invite token.
var errBadInvite = catalog.Errorf(catalog.Invalid, "the invite link is not valid: ask your administrator for a new one")

// SignUp is what POST SignUpPath carries.
type SignUp struct {
	FullName    string `json:"fullName"`
	Email       string `json:"email"`
	Title       string `json:"title"`
	Password    string `json:"password"`
	InviteToken string `json:"inviteToken"`
}

// SignUp creates a native user with an invite token and signs them in. The
// username is the email address, as in DataHub. The token's role, if any,
// is granted when the user accepts it (AcceptRole), as DataHub's app does
// right after signing up.
func (s *Service) SignUp(ctx context.Context, in SignUp) (LoginResult, error) {
	in.FullName, in.Email, in.Title = strings.TrimSpace(in.FullName), strings.TrimSpace(in.Email), strings.TrimSpace(in.Title)
	for _, f := range []struct{ name, v string }{
		{"Full name", in.FullName}, {"Email", in.Email}, {"Password", in.Password}, {"Title", in.Title}, {"Invite token", in.InviteToken},
	} {
		if f.v == "" {
			return LoginResult{}, catalog.Errorf(catalog.Invalid, "%s must not be empty.", f.name)
		}
	}
	if a, err := mail.ParseAddress(in.Email); err != nil || a.Address != in.Email {
		return LoginResult{}, catalog.Errorf(catalog.Invalid, "%q is not a valid email address", in.Email)
	}
	if len(in.Password) < minPasswordLen {
		return LoginResult{}, catalog.Errorf(catalog.Invalid, "password must be at least %d characters", minPasswordLen)
	}
	inv, err := s.invite(ctx, in.InviteToken)
	if err != nil {
		return LoginResult{}, err
	}
	if inv == nil {
		return LoginResult{}, errBadInvite
	}
	urn := userURN(in.Email)
	if _, err := catalog.ParseURN(urn); err != nil {
		return LoginResult{}, catalog.Errorf(catalog.Invalid, "%q cannot be a username", in.Email)
	}
	exists, err := s.exists(ctx, urn)
	if err != nil {
		return LoginResult{}, err
	}
	if exists || reservedUsers[urn] {
		return LoginResult{}, catalog.Errorf(catalog.Conflict, "a user %s already exists: sign in, or ask for a password reset link", in.Email)
	}
	props := []catalog.Proposal{
		proposal("corpuser", urn, "corpUserInfo", map[string]any{
			"active": true, "fullName": in.FullName, "displayName": in.FullName, "email": in.Email, "title": in.Title,
		}),
		s.activeStatus(urn),
		proposal("corpuser", urn, "corpUserCredentials", hashPassword(in.Password)),
	}
	if _, err := s.ingest.Ingest(preauthorized(ctx), catalog.SystemActor, props); err != nil {
		return LoginResult{}, fmt.Errorf("sign up %s: %w", urn, err)
	}
	return s.startSession(ctx, urn, audit.LoginSignUp)
}

// activeStatus is the corpUserStatus proposal that marks urn active.
func (s *Service) activeStatus(urn string) catalog.Proposal {
	return proposal("corpuser", urn, "corpUserStatus", map[string]any{
		"status": "ACTIVE", "lastModified": map[string]any{"time": s.now().UnixMilli(), "actor": catalog.SystemActor},
	})
}

// startSession issues a session token for urn after a sign-in by source
// and audits it.
func (s *Service) startSession(ctx context.Context, urn, source string) (LoginResult, error) {
	token, _, exp, err := s.issue(urn, Session, s.sessionTTL(), false)
	if err != nil {
		return LoginResult{}, err
	}
	s.recordSignIn(ctx, audit.LogInEvent, urn, source)
	return LoginResult{AccessToken: token, ActorURN: urn, ExpiresAt: exp}, nil
}

// AcceptRole grants the caller the role of an invite token.
func (s *Service) AcceptRole(ctx context.Context, caller, token string) error {
	inv, err := s.invite(ctx, token)
	if err != nil {
		return err
	}
	if inv == nil {
		return errBadInvite
	}
	if inv.Role == "" {
		return nil
	}
	u, err := catalog.ParseURN(caller)
	if err != nil || u.EntityType() != "corpuser" {
		return catalog.Errorf(catalog.Forbidden, "only a user can accept a role")
	}
	p := proposal("corpuser", caller, "roleMembership", map[string]any{"roles": []string{inv.Role}})
	if _, err := s.ingest.Ingest(preauthorized(ctx), caller, []catalog.Proposal{p}); err != nil {
		return fmt.Errorf("grant %s to %s: %w", inv.Role, caller, err)
	}
	s.policies.invalidate()
	return nil
}

// resetCredentials extends the credentials with DataHub's reset token
// fields; the token is kept as its hash.
type resetCredentials struct {
	credentials
	PasswordResetToken        string `json:"passwordResetToken,omitempty"`
	PasswordResetTokenExpires int64  `json:"passwordResetTokenExpirationTimeMillis,omitempty"`
}

func resetHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(h[:])
}

// CreateResetToken returns a new password reset token of the native user
// urn, valid for a day; it replaces any earlier one. It needs Manage User
// Credentials, as in DataHub.
func (s *Service) CreateResetToken(ctx context.Context, caller, urn string) (string, error) {
	if err := s.Require(ctx, caller, Resource{}, "manage user credentials", PrivManageCredentials); err != nil {
		return "", err
	}
	u, err := catalog.ParseURN(urn)
	if err != nil || u.EntityType() != "corpuser" {
		return "", catalog.Errorf(catalog.Invalid, "%q is not a corpuser URN", urn)
	}
	c, err := s.credentialsOf(ctx, urn)
	if err != nil {
		return "", err
	}
	if c == nil {
		return "", catalog.Errorf(catalog.Invalid, "%s is not a native user (it has no password): it signs in elsewhere", urn)
	}
	token := randomSecret(32)
	rc := resetCredentials{credentials: *c, PasswordResetToken: resetHash(token), PasswordResetTokenExpires: s.now().Add(resetTokenTTL).UnixMilli()}
	if _, err := s.ingest.Ingest(preauthorized(ctx), caller, []catalog.Proposal{proposal("corpuser", urn, "corpUserCredentials", rc)}); err != nil {
		return "", fmt.Errorf("create reset token of %s: %w", urn, err)
	}
	return token, nil
}

// errBadReset is the one answer to a wrong, used or expired reset token,
// or an unknown user: it does not say which.
var errBadReset = catalog.Errorf(catalog.Invalid, "the reset link is not valid or has expired: ask your administrator for a new one")

// ResetCredentials is what POST ResetCredentialsPath carries.
type ResetCredentials struct {
	Email      string `json:"email"`
	Password   string `json:"password"`
	ResetToken string `json:"resetToken"`
}

// ResetCredentials sets a native user's new password with a reset token,
// which then stops working, and signs them in.
func (s *Service) ResetCredentials(ctx context.Context, in ResetCredentials) (LoginResult, error) {
	in.Email = strings.TrimSpace(in.Email)
	for _, f := range []struct{ name, v string }{{"Email", in.Email}, {"Password", in.Password}, {"Reset token", in.ResetToken}} {
		if f.v == "" {
			return LoginResult{}, catalog.Errorf(catalog.Invalid, "%s must not be empty.", f.name)
		}
	}
	if len(in.Password) < minPasswordLen {
		return LoginResult{}, catalog.Errorf(catalog.Invalid, "password must be at least %d characters", minPasswordLen)
	}
	urn := userURN(in.Email)
	if _, err := catalog.ParseURN(urn); err != nil {
		return LoginResult{}, errBadReset
	}
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"corpUserCredentials"})
	if err != nil {
		return LoginResult{}, fmt.Errorf("read credentials: %w", err)
	}
	var rc resetCredentials
	found := false
	for _, a := range m[urn] {
		if err := json.Unmarshal(a.Value, &rc); err != nil {
			return LoginResult{}, fmt.Errorf("decode credentials of %s: %w", urn, err)
		}
		found = true
	}
	want := resetHash(in.ResetToken)
	if !found || rc.PasswordResetToken == "" ||
		subtle.ConstantTimeCompare([]byte(rc.PasswordResetToken), []byte(want)) != 1 ||
		s.now().UnixMilli() > rc.PasswordResetTokenExpires {
		return LoginResult{}, errBadReset
	}
	// The new credentials carry no reset token: the link works once.
	if _, err := s.ingest.Ingest(preauthorized(ctx), catalog.SystemActor, []catalog.Proposal{
		proposal("corpuser", urn, "corpUserCredentials", hashPassword(in.Password)),
	}); err != nil {
		return LoginResult{}, fmt.Errorf("reset password of %s: %w", urn, err)
	}
	ok, err := s.active(ctx, urn)
	if err != nil {
		return LoginResult{}, err
	}
	if !ok {
		return LoginResult{}, errInactive
	}
	return s.startSession(ctx, urn, audit.LoginPasswordReset)
}

// UserProfile is what updateCorpUserProperties may change: the fields of
// corpUserEditableInfo, nil ones left as they are.
type UserProfile struct {
	DisplayName, Title, AboutMe, PictureLink, Slack, Phone, Email, Persona *string
	Teams, Skills, Platforms                                               []string
}

// UpdateProfile merges p into the editable profile of the user urn. A user
// may edit their own; others need Edit Entity on the user, or Edit Contact
// Info for the contact fields (slack, phone, email) and Edit User Profile
// for the others, as in DataHub.
func (s *Service) UpdateProfile(ctx context.Context, caller, urn string, p UserProfile) error {
	u, err := catalog.ParseURN(urn)
	if err != nil || u.EntityType() != "corpuser" {
		return catalog.Errorf(catalog.Invalid, "%q is not a corpuser URN", urn)
	}
	if p.Persona != nil {
		return catalog.Errorf(catalog.Invalid, "personas are not supported: leave personaUrn out")
	}
	for _, pl := range p.Platforms {
		if pu, err := catalog.ParseURN(pl); err != nil || pu.EntityType() != "dataPlatform" {
			return catalog.Errorf(catalog.Invalid, "%q is not a dataPlatform URN", pl)
		}
	}
	if caller != urn {
		privs := []string{PrivEditEntity}
		if p.Slack != nil || p.Phone != nil || p.Email != nil {
			privs = append(privs, "EDIT_CONTACT_INFO")
		} else {
			privs = append(privs, "EDIT_USER_PROFILE")
		}
		if err := s.Require(ctx, caller, Resource{Type: "corpuser", URN: urn}, "edit the profile of "+urn, privs...); err != nil {
			return err
		}
	}
	exists, err := s.exists(ctx, urn)
	if err != nil {
		return err
	}
	if !exists {
		return catalog.Errorf(catalog.NotFound, "user %s does not exist", urn)
	}
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"corpUserEditableInfo"})
	if err != nil {
		return fmt.Errorf("read profile of %s: %w", urn, err)
	}
	cur := map[string]any{}
	for _, a := range m[urn] {
		if err := json.Unmarshal(a.Value, &cur); err != nil {
			return fmt.Errorf("decode profile of %s: %w", urn, err)
		}
	}
	for k, v := range map[string]*string{"displayName": p.DisplayName, "title": p.Title, "aboutMe": p.AboutMe,
		"pictureLink": p.PictureLink, "slack": p.Slack, "phone": p.Phone, "email": p.Email} {
		if v != nil {
			cur[k] = *v
		}
	}
	for k, v := range map[string][]string{"teams": p.Teams, "skills": p.Skills, "platforms": p.Platforms} {
		if v != nil {
			cur[k] = v
		}
	}
	if _, err := s.ingest.Ingest(preauthorized(ctx), caller, []catalog.Proposal{proposal("corpuser", urn, "corpUserEditableInfo", cur)}); err != nil {
		return fmt.Errorf("update profile of %s: %w", urn, err)
	}
	return nil
}
