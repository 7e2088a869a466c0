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

// one returns the entity of the given type at urn, nil when urn names
// another entity type or nothing is stored for it.
func one[T any](ctx context.Context, r *Resolver, urn, entityType string, mk func(string) *T) (*T, error) {
	if urnType(urn) != entityType {
		return nil, nil
	}
	ok, err := r.loaderOf(ctx).exists(ctx, urn)
	if err != nil || !ok {
		return nil, err
	}
	return mk(urn), nil
}

// Dataset returns a dataset by URN.
func (r *queryResolver) Dataset(ctx context.Context, urn string) (*model.Dataset, error) {
	return one(ctx, r.Resolver, urn, "dataset", func(u string) *model.Dataset { return &model.Dataset{Urn: u} })
}

// Chart returns a chart by URN.
func (r *queryResolver) Chart(ctx context.Context, urn string) (*model.Chart, error) {
	return one(ctx, r.Resolver, urn, "chart", func(u string) *model.Chart { return &model.Chart{Urn: u} })
}

// Dashboard returns a dashboard by URN.
func (r *queryResolver) Dashboard(ctx context.Context, urn string) (*model.Dashboard, error) {
	return one(ctx, r.Resolver, urn, "dashboard", func(u string) *model.Dashboard { return &model.Dashboard{Urn: u} })
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

// GlossaryTerm returns a glossary term by URN.
func (r *queryResolver) GlossaryTerm(ctx context.Context, urn string) (*model.GlossaryTerm, error) {
	return one(ctx, r.Resolver, urn, "glossaryTerm", func(u string) *model.GlossaryTerm { return &model.GlossaryTerm{Urn: u} })
}

// GlossaryNode returns a glossary node by URN.
func (r *queryResolver) GlossaryNode(ctx context.Context, urn string) (*model.GlossaryNode, error) {
	return one(ctx, r.Resolver, urn, "glossaryNode", func(u string) *model.GlossaryNode { return &model.GlossaryNode{Urn: u} })
}

// Tag returns a tag by URN.
func (r *queryResolver) Tag(ctx context.Context, urn string) (*model.Tag, error) {
	return one(ctx, r.Resolver, urn, "tag", func(u string) *model.Tag { return &model.Tag{Urn: u} })
}

// Container returns a container by URN.
func (r *queryResolver) Container(ctx context.Context, urn string) (*model.Container, error) {
	return one(ctx, r.Resolver, urn, "container", func(u string) *model.Container { return &model.Container{Urn: u} })
}

// Domain returns a domain by URN.
func (r *queryResolver) Domain(ctx context.Context, urn string) (*model.Domain, error) {
	return one(ctx, r.Resolver, urn, "domain", func(u string) *model.Domain { return &model.Domain{Urn: u} })
}

// DataFlow returns a data flow by URN.
func (r *queryResolver) DataFlow(ctx context.Context, urn string) (*model.DataFlow, error) {
	return one(ctx, r.Resolver, urn, "dataFlow", func(u string) *model.DataFlow { return &model.DataFlow{Urn: u} })
}

// DataJob returns a data job by URN.
func (r *queryResolver) DataJob(ctx context.Context, urn string) (*model.DataJob, error) {
	return one(ctx, r.Resolver, urn, "dataJob", func(u string) *model.DataJob { return &model.DataJob{Urn: u} })
}

// MlModel returns an ML model by URN.
func (r *queryResolver) MlModel(ctx context.Context, urn string) (*model.MLModel, error) {
	return one(ctx, r.Resolver, urn, "mlModel", func(u string) *model.MLModel { return &model.MLModel{Urn: u} })
}

// DataPlatform returns a data platform by URN.
func (r *queryResolver) DataPlatform(ctx context.Context, urn string) (*model.DataPlatform, error) {
	return one(ctx, r.Resolver, urn, "dataPlatform", func(u string) *model.DataPlatform { return &model.DataPlatform{Urn: u} })
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
