package graphql

import (
	"context"
	"net/url"
	"slices"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// The legacy update mutations (updateDataset, updateChart, ...) replace
// each aspect their input names with the value the input gives, as
// DataHub's update input mappers do: an ownership update is the whole list
// of owners, a tags update the whole list of tags. As in DataHub, the
// caller needs EDIT_ENTITY, or every specific privilege of the parts the
// input gives (EDIT_ENTITY_OWNERS for ownership, and so on).

// legacyUpdate is what one of these inputs asks for, whichever entity it
// is for.
type legacyUpdate struct {
	ownership *model.OwnershipUpdate
	// tags is the tags update that wins when the input has both of its
	// tags fields: globalTags for most entities, tags for a chart.
	tags        *model.GlobalTagsUpdate
	description *string
	// editableName is a dataset's editable name, only set with
	// description.
	editableName *string
	editable     bool
	deprecation  *model.DatasetDeprecationUpdate
	memory       *model.InstitutionalMemoryUpdate
	schema       *model.EditableSchemaMetadataUpdate
}

func firstTags(a, b *model.GlobalTagsUpdate) *model.GlobalTagsUpdate {
	if a != nil {
		return a
	}
	return b
}

// UpdateDataset applies the legacy dataset update.
func (r *mutationResolver) UpdateDataset(ctx context.Context, urn string, in model.DatasetUpdateInput) (*model.Dataset, error) {
	u := legacyUpdate{ownership: in.Ownership, tags: firstTags(in.GlobalTags, in.Tags), deprecation: in.Deprecation,
		memory: in.InstitutionalMemory, schema: in.EditableSchemaMetadata}
	if e := in.EditableProperties; e != nil {
		u.editable, u.description, u.editableName = true, ptr(e.Description), e.Name
	}
	if err := r.updateLegacy(ctx, urn, "dataset", u); err != nil {
		return nil, err
	}
	return &model.Dataset{Urn: urn}, nil
}

// UpdateChart applies the legacy chart update; its tags field wins over
// globalTags, as in DataHub.
func (r *mutationResolver) UpdateChart(ctx context.Context, urn string, in model.ChartUpdateInput) (*model.Chart, error) {
	u := legacyUpdate{ownership: in.Ownership, tags: firstTags(in.Tags, in.GlobalTags)}
	if e := in.EditableProperties; e != nil {
		u.editable, u.description = true, ptr(e.Description)
	}
	if err := r.updateLegacy(ctx, urn, "chart", u); err != nil {
		return nil, err
	}
	return &model.Chart{Urn: urn}, nil
}

// UpdateDashboard applies the legacy dashboard update.
func (r *mutationResolver) UpdateDashboard(ctx context.Context, urn string, in model.DashboardUpdateInput) (*model.Dashboard, error) {
	u := legacyUpdate{ownership: in.Ownership, tags: firstTags(in.GlobalTags, in.Tags)}
	if e := in.EditableProperties; e != nil {
		u.editable, u.description = true, ptr(e.Description)
	}
	if err := r.updateLegacy(ctx, urn, "dashboard", u); err != nil {
		return nil, err
	}
	return &model.Dashboard{Urn: urn}, nil
}

// UpdateDataFlow applies the legacy data flow update.
func (r *mutationResolver) UpdateDataFlow(ctx context.Context, urn string, in model.DataFlowUpdateInput) (*model.DataFlow, error) {
	u := legacyUpdate{ownership: in.Ownership, tags: firstTags(in.GlobalTags, in.Tags)}
	if e := in.EditableProperties; e != nil {
		u.editable, u.description = true, ptr(e.Description)
	}
	if err := r.updateLegacy(ctx, urn, "dataFlow", u); err != nil {
		return nil, err
	}
	return &model.DataFlow{Urn: urn}, nil
}

// UpdateDataJob applies the legacy data job update.
func (r *mutationResolver) UpdateDataJob(ctx context.Context, urn string, in model.DataJobUpdateInput) (*model.DataJob, error) {
	u := legacyUpdate{ownership: in.Ownership, tags: firstTags(in.GlobalTags, in.Tags)}
	if e := in.EditableProperties; e != nil {
		u.editable, u.description = true, ptr(e.Description)
	}
	if err := r.updateLegacy(ctx, urn, "dataJob", u); err != nil {
		return nil, err
	}
	return &model.DataJob{Urn: urn}, nil
}

// updateLegacy writes the aspects u names on urn, an existing entity of
// type entity, in one write.
func (r *Resolver) updateLegacy(ctx context.Context, urn, entity string, u legacyUpdate) error {
	if err := r.mustExist(ctx, urn, entity); err != nil {
		return err
	}
	st := stamp(ctx)
	var p proposals
	if u.ownership != nil {
		o, err := ownershipOf(u.ownership, st)
		if err != nil {
			return err
		}
		p.add(urn, "ownership", o)
	}
	if u.deprecation != nil {
		p.add(urn, "datasetDeprecation", models.DatasetDeprecation{Deprecated: u.deprecation.Deprecated,
			DecommissionTime: u.deprecation.DecommissionTime, Note: u.deprecation.Note, Actor: ptr(st.Actor)})
	}
	if u.memory != nil {
		m := models.InstitutionalMemory{Elements: make([]models.InstitutionalMemoryMetadata, 0, len(u.memory.Elements))}
		for _, e := range u.memory.Elements {
			if urnType(e.Author) != "corpuser" {
				return invalidf("link author %s is not a corpuser URN", e.Author)
			}
			if u, err := url.Parse(e.URL); err != nil || u.Scheme == "" || u.Host == "" && u.Opaque == "" {
				return invalidf("%q is not a URL", e.URL)
			}
			at := st.Time
			if e.CreatedAt != nil {
				at = *e.CreatedAt
			}
			m.Elements = append(m.Elements, models.InstitutionalMemoryMetadata{Url: e.URL, Description: deref(e.Description),
				CreateStamp: models.AuditStamp{Time: at, Actor: e.Author}})
		}
		p.add(urn, "institutionalMemory", m)
	}
	if u.tags != nil {
		g, err := globalTagsOf(u.tags)
		if err != nil {
			return err
		}
		p.add(urn, "globalTags", g)
	}
	if u.schema != nil {
		es := models.EditableSchemaMetadata{Created: &st, LastModified: &st, EditableSchemaFieldInfo: []models.EditableSchemaFieldInfo{}}
		for _, f := range u.schema.EditableSchemaFieldInfo {
			info := models.EditableSchemaFieldInfo{FieldPath: f.FieldPath, Description: f.Description}
			if f.GlobalTags != nil {
				g, err := globalTagsOf(f.GlobalTags)
				if err != nil {
					return err
				}
				info.GlobalTags = &g
			}
			es.EditableSchemaFieldInfo = append(es.EditableSchemaFieldInfo, info)
		}
		p.add(urn, "editableSchemaMetadata", es)
	}
	if u.editable {
		t, ok := descriptionTargets[entity]
		if !ok {
			return invalidf("a %s has no editable properties", entity)
		}
		v := map[string]any{t.field: deref(u.description), "created": st, "lastModified": st}
		if u.editableName != nil {
			v["name"] = *u.editableName
		}
		p.add(urn, t.aspect, v)
	}
	if p.err != nil {
		return p.err
	}
	ctx, err := r.requireEdit(ctx, urn, "update "+urn, u.privileges())
	if err != nil {
		return err
	}
	return r.write(ctx, p.list...)
}

// privileges are the specific privileges DataHub asks of an update, each
// needed when EDIT_ENTITY is not held.
func (u legacyUpdate) privileges() []string {
	var out []string
	for _, c := range []struct {
		given bool
		privs []string
	}{
		{u.memory != nil, []string{"EDIT_ENTITY_DOC_LINKS"}},
		{u.ownership != nil, []string{"EDIT_ENTITY_OWNERS"}},
		{u.deprecation != nil, []string{"EDIT_ENTITY_STATUS"}},
		{u.editable, []string{"EDIT_ENTITY_DOCS"}},
		{u.tags != nil, []string{"EDIT_ENTITY_TAGS"}},
		{u.schema != nil, []string{"EDIT_DATASET_COL_TAGS", "EDIT_DATASET_COL_DESCRIPTION"}},
	} {
		if c.given {
			out = append(out, c.privs...)
		}
	}
	return out
}

// requireEdit fails with Forbidden unless the caller holds EDIT_ENTITY on
// urn, or every one of all; it returns ctx marked so that the writes this
// authorizes go through.
func (r *Resolver) requireEdit(ctx context.Context, urn, what string, all []string) (context.Context, error) {
	if r.auth == nil {
		return ctx, nil
	}
	res, actor := auth.Resource{Type: urnType(urn), URN: urn}, actorOf(ctx)
	ok, err := r.auth.Allowed(ctx, actor, res, auth.PrivEditEntity)
	if err != nil {
		return nil, err
	}
	if !ok {
		for _, p := range all {
			if err := r.auth.Require(ctx, actor, res, what, p); err != nil {
				return nil, err
			}
		}
		if len(all) == 0 {
			return nil, catalog.Errorf(catalog.Forbidden, "%s is unauthorized to %s", actor, what)
		}
	}
	return auth.Delegated(ctx), nil
}

// ownershipOf is the ownership an OwnershipUpdate gives: each owner of the
// ownership type named (its legacy type then CUSTOM), else of the legacy
// type given (CUSTOM when none), sourced from a service, as in DataHub.
func ownershipOf(in *model.OwnershipUpdate, st models.AuditStamp) (models.Ownership, error) {
	o := models.Ownership{Owners: make([]models.Owner, 0, len(in.Owners)), LastModified: &st}
	for _, ou := range in.Owners {
		if t := urnType(ou.Owner); t != "corpuser" && t != "corpGroup" {
			return o, invalidf("owner %s is not a corpuser or corpGroup URN", ou.Owner)
		}
		ow := models.Owner{Owner: ou.Owner, Type: models.OwnershipType("CUSTOM"), Source: &models.OwnershipSource{Type: models.OwnershipSourceType("SERVICE")}}
		if ou.Type != nil {
			ow.Type = models.OwnershipType(*ou.Type)
		}
		if t := deref(ou.OwnershipTypeUrn); t != "" {
			if urnType(t) != "ownershipType" {
				return o, invalidf("%s is not an ownershipType URN", t)
			}
			ow.TypeUrn, ow.Type = ptr(t), models.OwnershipType("CUSTOM")
		}
		o.Owners = append(o.Owners, ow)
	}
	return o, nil
}

// globalTagsOf is the globalTags a GlobalTagsUpdate gives.
func globalTagsOf(in *model.GlobalTagsUpdate) (models.GlobalTags, error) {
	g := models.GlobalTags{Tags: make([]models.TagAssociation, 0, len(in.Tags))}
	for _, t := range in.Tags {
		if t == nil || t.Tag == nil {
			continue
		}
		if urnType(t.Tag.Urn) != "tag" {
			return g, invalidf("Failed to update tag with urn %s, invalid urn", t.Tag.Urn)
		}
		if !slices.ContainsFunc(g.Tags, func(a models.TagAssociation) bool { return a.Tag == t.Tag.Urn }) {
			g.Tags = append(g.Tags, models.TagAssociation{Tag: t.Tag.Urn})
		}
	}
	return g, nil
}

// UpdateTag sets a tag's name and description and, as DataHub does, makes
// the caller its only owner (of ownership type none), whatever ownership
// the input gives. The tag's colour is kept.
func (r *mutationResolver) UpdateTag(ctx context.Context, urn string, in model.TagUpdateInput) (*model.Tag, error) {
	if err := r.mustExist(ctx, urn, "tag"); err != nil {
		return nil, err
	}
	if in.Urn != urn {
		return nil, invalidf("the input's urn %s is not the tag updated, %s", in.Urn, urn)
	}
	st := stamp(ctx)
	var p proposals
	p.add(urn, "ownership", models.Ownership{Owners: []models.Owner{{Owner: st.Actor, Type: models.OwnershipType("NONE"),
		TypeUrn: ptr("urn:li:ownershipType:__system__none"), Source: &models.OwnershipSource{Type: models.OwnershipSourceType("SERVICE")}}}, LastModified: &st})
	if p.err != nil {
		return nil, p.err
	}
	props := append(p.list, edited(urn, "tagProperties", func(t *models.TagProperties, _ bool) bool {
		t.Name, t.Description = in.Name, in.Description
		return true
	}))
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return &model.Tag{Urn: urn}, nil
}

// BatchUpdateSoftDeleted marks entities removed (or back), in one write.
// As in DataHub it takes DELETE_ENTITY on every one of them.
func (r *mutationResolver) BatchUpdateSoftDeleted(ctx context.Context, in model.BatchUpdateSoftDeletedInput) (*bool, error) {
	urns := uniq(in.Urns)
	for _, u := range urns {
		if _, err := catalog.ParseURN(u); err != nil {
			return nil, err
		}
		ok, err := r.loaderOf(ctx).exists(ctx, u)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, invalidf("Failed to soft delete entity with urn %s. Entity does not exist.", u)
		}
	}
	if r.auth != nil {
		for _, u := range urns {
			if err := r.auth.Require(ctx, actorOf(ctx), auth.Resource{Type: urnType(u), URN: u}, "delete entity "+u, auth.PrivDeleteEntity); err != nil {
				return nil, err
			}
		}
		ctx = auth.Delegated(ctx)
	}
	props := make([]catalog.Proposal, 0, len(urns))
	for _, u := range urns {
		props = append(props, edited(u, "status", func(s *models.Status, _ bool) bool {
			s.Removed = ptr(in.Deleted)
			return true
		}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// UpdateEmbed sets (or, with no renderUrl, keeps) the URL an entity's page
// embeds; an empty one stops the embedding. EDIT_ENTITY_EMBED is enough, as in DataHub.
func (r *mutationResolver) UpdateEmbed(ctx context.Context, in model.UpdateEmbedInput) (*bool, error) {
	if err := r.mustExist(ctx, in.Urn); err != nil {
		return nil, err
	}
	ctx, err := r.delegate(ctx, "update the embed of the entity", []string{in.Urn}, "EDIT_ENTITY_EMBED")
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, edited(in.Urn, "embed", func(e *models.Embed, _ bool) bool {
		if in.RenderURL != nil {
			e.RenderUrl = in.RenderURL
		}
		return true
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// UpdateDisplayProperties sets the colour and icon of an entity (a domain
// or glossary node in the UI); fields left out keep their value. As in
// DataHub it takes MANAGE_DOMAINS.
func (r *mutationResolver) UpdateDisplayProperties(ctx context.Context, urn string, in model.DisplayPropertiesUpdateInput) (*bool, error) {
	if err := r.mustExist(ctx, urn); err != nil {
		return nil, err
	}
	if err := r.requirePlatform(ctx, "update display properties", auth.PrivManageDomains); err != nil {
		return nil, err
	}
	err := r.write(auth.Delegated(ctx), editedObject(urn, "displayProperties", func(m map[string]any, _ bool) error {
		if in.ColorHex != nil {
			m["colorHex"] = *in.ColorHex
		}
		if ic := in.Icon; ic != nil {
			icon := asObject(m["icon"])
			if icon == nil {
				icon = map[string]any{}
			}
			if ic.Name != nil {
				icon["name"] = *ic.Name
			}
			if ic.Style != nil {
				icon["style"] = *ic.Style
			}
			if ic.IconLibrary != nil {
				icon["iconLibrary"] = string(*ic.IconLibrary)
			}
			for _, f := range []string{"iconLibrary", "name", "style"} {
				if _, ok := icon[f]; !ok {
					return invalidf("Failed to update display properties of %s: an icon needs its %s", urn, f)
				}
			}
			m["icon"] = icon
		}
		return nil
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}
