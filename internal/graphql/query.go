package graphql

import (
	"context"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// Me returns the caller with the platform privileges its policies grant.
// Without an auth service (Config.Auth nil) every caller holds every
// platform privilege, as in DataHub with authorization disabled.
func (r *queryResolver) Me(ctx context.Context) (*model.AuthenticatedUser, error) {
	actor := actorOf(ctx)
	r.loaderOf(ctx).prime(ctx, []string{actor})
	privs, err := r.platformPrivileges(ctx, actor)
	if err != nil {
		return nil, err
	}
	return &model.AuthenticatedUser{CorpUser: &model.CorpUser{Urn: actor}, PlatformPrivileges: privs}, nil
}

// storedAs reports whether urn names an entity of the registry's type
// entityType with something stored for it: the root fields that look
// entities up by URN answer null otherwise.
func (r *Resolver) storedAs(ctx context.Context, urn, entityType string) (bool, error) {
	if urnType(urn) != entityType {
		return false, nil
	}
	return r.loaderOf(ctx).exists(ctx, urn)
}

// keyed returns the entity of the given type at urn whether or not anything
// is stored for it, as DataHub answers users and groups: from their key,
// which it makes from the URN when none is stored, so that a removed one
// reads with its aspects null and exists false. It is nil when urn is
// malformed or names another entity type.
func keyed[T any](urn, entityType string, mk func(string) *T) *T {
	u, err := catalog.ParseURN(urn)
	if err != nil || u.EntityType() != entityType {
		return nil
	}
	return mk(urn)
}

// CorpUser returns a user by URN, stored or not (see keyed).
func (r *queryResolver) CorpUser(_ context.Context, urn string) (*model.CorpUser, error) {
	return keyed(urn, "corpuser", func(u string) *model.CorpUser { return &model.CorpUser{Urn: u} }), nil
}

// CorpGroup returns a group by URN, stored or not (see keyed).
func (r *queryResolver) CorpGroup(_ context.Context, urn string) (*model.CorpGroup, error) {
	return keyed(urn, "corpGroup", func(u string) *model.CorpGroup { return &model.CorpGroup{Urn: u} }), nil
}

// Entity returns any entity by URN.
func (r *queryResolver) Entity(ctx context.Context, urn string) (model.Entity, error) {
	e := model.EntityOf(urn)
	if e == nil {
		return nil, nil
	}
	ok, err := r.loaderOf(ctx).exists(ctx, urn)
	if err != nil || !ok {
		return nil, err
	}
	return e, nil
}

// Entities returns entities by URN in request order, reading them all with
// one store query.
func (r *queryResolver) Entities(ctx context.Context, urns []string, checkForExistence *bool) ([]model.Entity, error) {
	l := r.loaderOf(ctx)
	l.prime(ctx, urns)
	out := make([]model.Entity, 0, len(urns))
	for _, u := range urns {
		e := model.EntityOf(u)
		if deref(checkForExistence) {
			ok, err := l.exists(ctx, u)
			if err != nil {
				return nil, err
			}
			if !ok || e == nil {
				continue
			}
		}
		out = append(out, e)
	}
	return out, nil
}
