package graphql

import (
	"context"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// The resolvers of graphql/users.graphqls: invite and reset tokens and
// profile edits, decided and stored by auth.Service.

func (r *queryResolver) GetInviteToken(ctx context.Context, in model.GetInviteTokenInput) (*model.InviteToken, error) {
	return r.inviteToken(ctx, deref(in.RoleUrn), false)
}

func (r *mutationResolver) CreateInviteToken(ctx context.Context, in model.CreateInviteTokenInput) (*model.InviteToken, error) {
	return r.inviteToken(ctx, deref(in.RoleUrn), true)
}

func (r *Resolver) inviteToken(ctx context.Context, role string, regenerate bool) (*model.InviteToken, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	tok, err := a.GetInviteToken(ctx, actorOf(ctx), role, regenerate)
	if err != nil {
		return nil, err
	}
	return &model.InviteToken{InviteToken: tok}, nil
}

func (r *mutationResolver) AcceptRole(ctx context.Context, in model.AcceptRoleInput) (*bool, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	if err := a.AcceptRole(ctx, actorOf(ctx), in.InviteToken); err != nil {
		return nil, err
	}
	ok := true
	return &ok, nil
}

func (r *mutationResolver) CreateNativeUserResetToken(ctx context.Context, in model.CreateNativeUserResetTokenInput) (*model.ResetToken, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	tok, err := a.CreateResetToken(ctx, actorOf(ctx), in.UserUrn)
	if err != nil {
		return nil, err
	}
	return &model.ResetToken{ResetToken: tok}, nil
}

func (r *mutationResolver) UpdateCorpUserProperties(ctx context.Context, urn string, in model.CorpUserUpdateInput) (*model.CorpUser, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	err = a.UpdateProfile(ctx, actorOf(ctx), urn, auth.UserProfile{
		DisplayName: in.DisplayName, Title: in.Title, AboutMe: in.AboutMe, PictureLink: in.PictureLink,
		Slack: in.Slack, Phone: in.Phone, Email: in.Email, Persona: in.PersonaUrn,
		Teams: in.Teams, Skills: in.Skills, Platforms: in.PlatformUrns,
	})
	if err != nil {
		return nil, err
	}
	return &model.CorpUser{Urn: urn}, nil
}
