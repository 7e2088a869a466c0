package graphql

import (
	"context"
	"strings"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graph"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// entityFields resolves the fields every entity type shares, read from the
// aspect of the same name DataHub reads them from. The per-type resolvers
// embed it, instantiated with their model type, so each of those fields is
// written once rather than once per type.
type entityFields[T model.Entity] struct{ *Resolver }

// Type resolves Entity.type from the URN.
func (f entityFields[T]) Type(_ context.Context, obj T) (model.EntityType, error) {
	return entityTypeOf(obj.EntityURN()), nil
}

// Exists reports whether anything is stored for the entity.
func (f entityFields[T]) Exists(ctx context.Context, obj T) (*bool, error) {
	ok, err := f.loaderOf(ctx).exists(ctx, obj.EntityURN())
	if err != nil {
		return nil, err
	}
	return &ok, nil
}

// Ownership resolves the ownership aspect.
func (f entityFields[T]) Ownership(ctx context.Context, obj T) (*model.Ownership, error) {
	return f.ownership(ctx, obj.EntityURN())
}

// Deprecation resolves the deprecation aspect.
func (f entityFields[T]) Deprecation(ctx context.Context, obj T) (*model.Deprecation, error) {
	d, err := aspectOf[models.Deprecation](ctx, f.loaderOf(ctx), obj.EntityURN(), "deprecation")
	if err != nil || d == nil {
		return nil, err
	}
	return &model.Deprecation{Deprecated: d.Deprecated, DecommissionTime: d.DecommissionTime, Note: ptr(d.Note), Actor: nonEmpty(d.Actor)}, nil
}

// InstitutionalMemory resolves the institutionalMemory aspect (links).
func (f entityFields[T]) InstitutionalMemory(ctx context.Context, obj T) (*model.InstitutionalMemory, error) {
	urn := obj.EntityURN()
	m, err := aspectOf[models.InstitutionalMemory](ctx, f.loaderOf(ctx), urn, "institutionalMemory")
	if err != nil || m == nil {
		return nil, err
	}
	out := &model.InstitutionalMemory{Elements: make([]*model.InstitutionalMemoryMetadata, len(m.Elements))}
	for i, e := range m.Elements {
		out.Elements[i] = &model.InstitutionalMemoryMetadata{
			URL: e.Url, Label: e.Description, Description: e.Description,
			Author:        &model.CorpUser{Urn: e.CreateStamp.Actor},
			Created:       auditStamp(&e.CreateStamp),
			AssociatedUrn: urn,
		}
	}
	return out, nil
}

// Status resolves the status aspect (soft delete).
func (f entityFields[T]) Status(ctx context.Context, obj T) (*model.Status, error) {
	s, err := aspectOf[models.Status](ctx, f.loaderOf(ctx), obj.EntityURN(), "status")
	if err != nil || s == nil {
		return nil, err
	}
	return &model.Status{Removed: deref(s.Removed)}, nil
}

// Tags is the deprecated name of GlobalTags.
func (f entityFields[T]) Tags(ctx context.Context, obj T) (*model.GlobalTags, error) {
	return f.GlobalTags(ctx, obj)
}

// GlobalTags resolves the globalTags aspect: null before any tag was ever
// attached, an empty list after the last one was removed, as in DataHub.
func (f entityFields[T]) GlobalTags(ctx context.Context, obj T) (*model.GlobalTags, error) {
	urn := obj.EntityURN()
	l := f.loaderOf(ctx)
	g, err := aspectOf[models.GlobalTags](ctx, l, urn, "globalTags")
	if err != nil || g == nil {
		return nil, err
	}
	return globalTags(ctx, l, g, urn), nil
}

// GlossaryTerms resolves the glossaryTerms aspect, null before any term was
// ever attached.
func (f entityFields[T]) GlossaryTerms(ctx context.Context, obj T) (*model.GlossaryTerms, error) {
	urn := obj.EntityURN()
	l := f.loaderOf(ctx)
	g, err := aspectOf[models.GlossaryTerms](ctx, l, urn, "glossaryTerms")
	if err != nil || g == nil {
		return nil, err
	}
	return glossaryTerms(ctx, l, g, urn), nil
}

// Domain resolves the first domain of the domains aspect.
func (f entityFields[T]) Domain(ctx context.Context, obj T) (*model.DomainAssociation, error) {
	urn := obj.EntityURN()
	d, err := aspectOf[models.Domains](ctx, f.loaderOf(ctx), urn, "domains")
	if err != nil || d == nil || len(d.Domains) == 0 {
		return nil, err
	}
	return &model.DomainAssociation{Domain: &model.Domain{Urn: d.Domains[0]}, AssociatedUrn: urn}, nil
}

// Container resolves the parent container.
func (f entityFields[T]) Container(ctx context.Context, obj T) (*model.Container, error) {
	c, err := aspectOf[models.Container](ctx, f.loaderOf(ctx), obj.EntityURN(), "container")
	if err != nil || c == nil {
		return nil, err
	}
	return &model.Container{Urn: c.Container}, nil
}

// SubTypes resolves the subTypes aspect.
func (f entityFields[T]) SubTypes(ctx context.Context, obj T) (*model.SubTypes, error) {
	s, err := aspectOf[models.SubTypes](ctx, f.loaderOf(ctx), obj.EntityURN(), "subTypes")
	if err != nil || s == nil {
		return nil, err
	}
	return &model.SubTypes{TypeNames: s.TypeNames}, nil
}

// BrowsePaths resolves the browsePaths aspect, each path split at "/".
func (f entityFields[T]) BrowsePaths(ctx context.Context, obj T) ([]*model.BrowsePath, error) {
	b, err := aspectOf[models.BrowsePaths](ctx, f.loaderOf(ctx), obj.EntityURN(), "browsePaths")
	if err != nil || b == nil {
		return nil, err
	}
	out := make([]*model.BrowsePath, len(b.Paths))
	for i, p := range b.Paths {
		out[i] = &model.BrowsePath{Path: splitPath(p)}
	}
	return out, nil
}

// Platform resolves the platform: the dataPlatformInstance aspect when
// present, else the platform named in the URN.
func (f entityFields[T]) Platform(ctx context.Context, obj T) (*model.DataPlatform, error) {
	urn := obj.EntityURN()
	p, err := aspectOf[models.DataPlatformInstance](ctx, f.loaderOf(ctx), urn, "dataPlatformInstance")
	if err != nil {
		return nil, err
	}
	if p != nil && p.Platform != "" {
		return &model.DataPlatform{Urn: p.Platform}, nil
	}
	return &model.DataPlatform{Urn: platformFromURN(urn)}, nil
}

// platformFromURN derives the platform of an entity from its key: datasets
// and ML models name the platform URN, charts, dashboards and flows the tool,
// jobs their flow.
func platformFromURN(urn string) string {
	switch urnType(urn) {
	case "dataset", "mlModel":
		return urnPart(urn, 0)
	case "chart", "dashboard", "dataFlow":
		return catalog.NewURN("dataPlatform", urnPart(urn, 0))
	case "dataJob":
		return platformFromURN(urnPart(urn, 0))
	}
	return catalog.NewURN("dataPlatform", "unknown")
}

// Relationships resolves the edges of the entity in one direction.
func (f entityFields[T]) Relationships(ctx context.Context, obj T, in model.RelationshipsInput) (*model.EntityRelationshipsResult, error) {
	dir := catalog.Outgoing
	if in.Direction == model.RelationshipDirectionIncoming {
		dir = catalog.Incoming
	}
	start, count := page(in.Start, in.Count, 100)
	edges, total, err := f.store.Edges(ctx, catalog.EdgeQuery{URN: obj.EntityURN(), Direction: dir, Relationships: in.Types, Start: start, Count: count})
	if err != nil {
		return nil, err
	}
	out := &model.EntityRelationshipsResult{Start: &start, Total: &total, Relationships: make([]*model.EntityRelationship, 0, len(edges))}
	var urns []string
	for _, e := range edges {
		other := e.Destination
		if dir == catalog.Incoming {
			other = e.Source
		}
		ent := entityOf(other)
		if ent == nil {
			continue
		}
		urns = append(urns, other)
		out.Relationships = append(out.Relationships, &model.EntityRelationship{
			Type: e.Relationship, Direction: in.Direction, Entity: ent, Created: auditStamp(&models.AuditStamp{Time: e.Created.Time, Actor: e.Created.Actor}),
		})
	}
	out.Count = ptr(len(out.Relationships))
	f.loaderOf(ctx).prime(ctx, urns)
	return out, nil
}

// Lineage resolves the direct upstreams or downstreams of the entity.
func (f entityFields[T]) Lineage(ctx context.Context, obj T, in model.LineageInput) (*model.EntityLineageResult, error) {
	if f.lineage == nil {
		return nil, catalog.Errorf(catalog.Unavailable, "lineage is not available")
	}
	nodes, err := f.lineage.Lineage(ctx, obj.EntityURN(), lineageDirection(in.Direction), 1)
	if err != nil {
		return nil, err
	}
	start, count := page(in.Start, in.Count, 100)
	total := len(nodes)
	nodes = window(nodes, start, count)
	out := &model.EntityLineageResult{Start: &start, Count: ptr(len(nodes)), Total: &total, Filtered: ptr(0), Relationships: make([]*model.LineageRelationship, 0, len(nodes))}
	urns := make([]string, 0, len(nodes))
	for _, n := range nodes {
		ent := entityOf(n.URN)
		if ent == nil {
			continue
		}
		urns = append(urns, n.URN)
		out.Relationships = append(out.Relationships, &model.LineageRelationship{Type: n.Relationship, Entity: ent, Degree: n.Hops, Paths: []*model.EntityPath{{Path: entitiesOf(n.Path)}}})
	}
	f.loaderOf(ctx).prime(ctx, urns)
	return out, nil
}

func lineageDirection(d model.LineageDirection) graph.Direction {
	if d == model.LineageDirectionDownstream {
		return graph.Downstream
	}
	return graph.Upstream
}

// page applies DataHub's paging defaults.
func page(start, count *int, def int) (int, int) {
	s, c := deref(start), def
	if count != nil {
		c = *count
	}
	if s < 0 {
		s = 0
	}
	if c < 0 {
		c = 0
	}
	return s, c
}

// window returns the [start, start+count) slice of s.
func window[E any](s []E, start, count int) []E {
	if start >= len(s) {
		return nil
	}
	end := min(start+count, len(s))
	return s[start:end]
}

func splitPath(p string) []string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) == 1 && parts[0] == "" {
		return []string{}
	}
	return parts
}

func auditStamp(a *models.AuditStamp) *model.AuditStamp {
	if a == nil {
		return &model.AuditStamp{}
	}
	return &model.AuditStamp{Time: a.Time, Actor: nonEmpty(a.Actor)}
}

// ownership converts the ownership aspect, priming the owners.
func (r *Resolver) ownership(ctx context.Context, urn string) (*model.Ownership, error) {
	l := r.loaderOf(ctx)
	o, err := aspectOf[models.Ownership](ctx, l, urn, "ownership")
	if err != nil || o == nil {
		return nil, err
	}
	out := &model.Ownership{Owners: make([]*model.Owner, 0, len(o.Owners)), LastModified: auditStamp(o.LastModified)}
	urns := make([]string, 0, len(o.Owners))
	for _, ow := range o.Owners {
		var owner model.OwnerType
		if urnType(ow.Owner) == "corpGroup" {
			owner = &model.CorpGroup{Urn: ow.Owner}
		} else {
			owner = &model.CorpUser{Urn: ow.Owner}
		}
		urns = append(urns, ow.Owner)
		o := &model.Owner{Owner: owner, AssociatedUrn: urn}
		if t := model.OwnershipType(ow.Type); t.IsValid() {
			o.Type = &t
		}
		if ow.TypeUrn != nil {
			o.OwnershipType = &model.OwnershipTypeEntity{Urn: *ow.TypeUrn, Type: model.EntityTypeCustomOwnershipType}
		}
		out.Owners = append(out.Owners, o)
	}
	l.prime(ctx, urns)
	return out, nil
}

// globalTags converts a GlobalTags value attached to urn, priming the tags.
// The list is never null, so that removing the last tag reads as [].
func globalTags(ctx context.Context, l *loader, g *models.GlobalTags, urn string) *model.GlobalTags {
	out := &model.GlobalTags{Tags: make([]*model.TagAssociation, len(g.Tags))}
	urns := make([]string, len(g.Tags))
	for i, t := range g.Tags {
		out.Tags[i] = &model.TagAssociation{Tag: &model.Tag{Urn: t.Tag}, AssociatedUrn: urn, Context: t.Context}
		urns[i] = t.Tag
	}
	l.prime(ctx, urns)
	return out
}

// glossaryTerms converts a GlossaryTerms value attached to urn, priming the
// terms.
func glossaryTerms(ctx context.Context, l *loader, g *models.GlossaryTerms, urn string) *model.GlossaryTerms {
	out := &model.GlossaryTerms{Terms: make([]*model.GlossaryTermAssociation, len(g.Terms))}
	urns := make([]string, len(g.Terms))
	for i, t := range g.Terms {
		a := &model.GlossaryTermAssociation{Term: &model.GlossaryTerm{Urn: t.Urn}, AssociatedUrn: urn, Context: t.Context}
		if t.Actor != nil {
			a.Actor = &model.CorpUser{Urn: *t.Actor}
		}
		out.Terms[i] = a
		urns[i] = t.Urn
	}
	l.prime(ctx, urns)
	return out
}
