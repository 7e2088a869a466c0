package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// This file holds the mutations. Each reads what it changes, builds
// proposals and hands them to the ingest pipeline in one call, so that a
// mutation applies whole or not at all and is versioned, indexed and audited
// like any other write. The read-modify-write is not serialised against
// concurrent writers of the same aspect: the last write wins, as in DataHub.

// write ingests props as the caller and drops the written URNs from the
// request's cache.
func (r *Resolver) write(ctx context.Context, props ...catalog.Proposal) error {
	if len(props) == 0 {
		return nil
	}
	res, err := r.ingest.Ingest(ctx, actorOf(ctx), props)
	r.loaderOf(ctx).forget(res.URNs...)
	if err != nil {
		return err
	}
	return nil
}

// proposal builds an UPSERT of one aspect.
func proposal(urn, aspect string, v any) (catalog.Proposal, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return catalog.Proposal{}, err
	}
	return catalog.Proposal{EntityType: urnType(urn), EntityURN: urn, ChangeType: catalog.Upsert, AspectName: aspect, Value: b, ContentType: "application/json"}, nil
}

// proposals collects proposals, keeping the first error.
type proposals struct {
	list []catalog.Proposal
	err  error
}

func (p *proposals) add(urn, aspect string, v any) {
	if p.err != nil {
		return
	}
	pr, err := proposal(urn, aspect, v)
	if err != nil {
		p.err = err
		return
	}
	p.list = append(p.list, pr)
}

// edited is an UPSERT of one aspect whose new value fn derives from the
// current one, decoded into a T (the zero T, found false, when the aspect is
// absent), inside the write transaction; fn returns false to leave the
// aspect as it is. Reading the value here and writing it back would undo a
// change committed in between. fn may run more than once (a retried
// transaction), each time on a freshly decoded value.
func edited[T any](urn, aspect string, fn func(v *T, found bool) bool) catalog.Proposal {
	return catalog.Proposal{EntityType: urnType(urn), EntityURN: urn, ChangeType: catalog.Upsert, AspectName: aspect, ContentType: "application/json",
		Edit: func(cur json.RawMessage) (json.RawMessage, error) {
			v := new(T)
			if cur != nil {
				if err := jsonUnmarshal(cur, v); err != nil {
					return nil, fmt.Errorf("decode %s of %s: %w", aspect, urn, err)
				}
			}
			if !fn(v, cur != nil) {
				return nil, nil
			}
			return json.Marshal(v)
		}}
}

// mustExist fails unless urn is a well-formed URN of one of the given entity
// types (any when none) with something stored for it.
func (r *Resolver) mustExist(ctx context.Context, urn string, types ...string) error {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return err
	}
	if len(types) > 0 && !slices.Contains(types, u.EntityType()) {
		return invalidf("%s is not a %s URN", urn, joinOr(types))
	}
	ok, err := r.loaderOf(ctx).exists(ctx, urn)
	if err != nil {
		return err
	}
	if !ok {
		return invalidf("Entity %s does not exist", urn)
	}
	return nil
}

func joinOr(s []string) string {
	out := s[0]
	for _, v := range s[1:] {
		out += " or " + v
	}
	return out
}

func now() int64 { return time.Now().UnixMilli() }

func stamp(ctx context.Context) models.AuditStamp {
	return models.AuditStamp{Time: now(), Actor: actorOf(ctx)}
}

var yes = ptr(true)

// --- creating entities ---

// create makes a new entity of the given type from the id (a random UUID
// when none). The first proposal is CREATE_ENTITY so that a concurrent
// create of the same id fails rather than merging; an existing entity is
// reported as DataHub does, e.g. "This Tag already exists!".
func (r *Resolver) create(ctx context.Context, entity, what string, id *string, build func(urn string, p *proposals)) (*string, error) {
	key := deref(id)
	if key == "" {
		key = uuid.NewString()
	}
	urn := catalog.NewURN(entity, key)
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	if ok, err := r.loaderOf(ctx).exists(ctx, urn); err != nil {
		return nil, err
	} else if ok {
		return nil, invalidf("This %s already exists!", what)
	}
	var p proposals
	build(urn, &p)
	if p.err != nil {
		return nil, p.err
	}
	p.list[0].ChangeType = catalog.CreateEntity
	if err := r.write(ctx, p.list...); err != nil {
		if catalog.KindOf(err) == catalog.Conflict {
			return nil, invalidf("This %s already exists!", what)
		}
		return nil, err
	}
	return &urn, nil
}

// creatorOwnership makes the caller a technical owner of what they created,
// as DataHub does.
func creatorOwnership(ctx context.Context) models.Ownership {
	st := stamp(ctx)
	return models.Ownership{
		Owners:       []models.Owner{{Owner: st.Actor, Type: models.OwnershipType("TECHNICAL_OWNER"), TypeUrn: ptr("urn:li:ownershipType:__system__technical_owner")}},
		LastModified: &st,
	}
}

// CreateTag creates a tag.
func (r *mutationResolver) CreateTag(ctx context.Context, in model.CreateTagInput) (*string, error) {
	return r.create(ctx, "tag", "Tag", in.ID, func(urn string, p *proposals) {
		p.add(urn, "tagProperties", models.TagProperties{Name: in.Name, Description: in.Description})
		p.add(urn, "ownership", creatorOwnership(ctx))
	})
}

// CreateGlossaryTerm creates a glossary term, under a parent node if given.
func (r *mutationResolver) CreateGlossaryTerm(ctx context.Context, in model.CreateGlossaryEntityInput) (*string, error) {
	if err := r.checkParentNode(ctx, in.ParentNode); err != nil {
		return nil, err
	}
	return r.create(ctx, "glossaryTerm", "Glossary Term", in.ID, func(urn string, p *proposals) {
		p.add(urn, "glossaryTermInfo", models.GlossaryTermInfo{Name: ptr(in.Name), Definition: deref(in.Description), TermSource: "INTERNAL", ParentNode: nilIfEmpty(in.ParentNode)})
		p.add(urn, "ownership", creatorOwnership(ctx))
	})
}

// CreateGlossaryNode creates a glossary node, under a parent node if given.
func (r *mutationResolver) CreateGlossaryNode(ctx context.Context, in model.CreateGlossaryEntityInput) (*string, error) {
	if err := r.checkParentNode(ctx, in.ParentNode); err != nil {
		return nil, err
	}
	return r.create(ctx, "glossaryNode", "Glossary Node", in.ID, func(urn string, p *proposals) {
		p.add(urn, "glossaryNodeInfo", models.GlossaryNodeInfo{Name: ptr(in.Name), Definition: deref(in.Description), ParentNode: nilIfEmpty(in.ParentNode)})
		p.add(urn, "ownership", creatorOwnership(ctx))
	})
}

func (r *Resolver) checkParentNode(ctx context.Context, parent *string) error {
	if deref(parent) == "" {
		return nil
	}
	return r.mustExist(ctx, *parent, "glossaryNode")
}

func nilIfEmpty(s *string) *string {
	if deref(s) == "" {
		return nil
	}
	return s
}

// CreateDomain creates a domain, under a parent domain if given; the name
// must be unique among the domains under the same parent, as in DataHub.
func (r *mutationResolver) CreateDomain(ctx context.Context, in model.CreateDomainInput) (*string, error) {
	if deref(in.ParentDomain) != "" {
		if err := r.mustExist(ctx, *in.ParentDomain, "domain"); err != nil {
			return nil, err
		}
	}
	if taken, err := r.nameTaken(ctx, deref(in.ParentDomain), in.Name, ""); err != nil {
		return nil, err
	} else if taken {
		return nil, catalog.Errorf(catalog.Conflict, "\"%s\" already exists in this domain. Please pick a unique name.", in.Name)
	}
	return r.create(ctx, "domain", "Domain", in.ID, func(urn string, p *proposals) {
		st := stamp(ctx)
		p.add(urn, "domainProperties", models.DomainProperties{Name: in.Name, Description: in.Description, ParentDomain: nilIfEmpty(in.ParentDomain), Created: &st})
		p.add(urn, "ownership", creatorOwnership(ctx))
	})
}

// CreateGroup creates a group.
func (r *mutationResolver) CreateGroup(ctx context.Context, in model.CreateGroupInput) (*string, error) {
	return r.create(ctx, "corpGroup", "Group", in.ID, func(urn string, p *proposals) {
		st := stamp(ctx)
		p.add(urn, "corpGroupInfo", models.CorpGroupInfo{DisplayName: ptr(in.Name), Description: in.Description, Admins: []string{}, Members: []string{}, Groups: []string{}, Created: &st})
		// Made here, so native: its members are added through
		// nativeGroupMembership.
		p.add(urn, "origin", map[string]any{"type": "NATIVE"})
	})
}

// --- deleting entities ---

// remove hard-deletes an entity of one of the given types.
func (r *Resolver) remove(ctx context.Context, urn string, types ...string) (*bool, error) {
	if err := r.mustExist(ctx, urn, types...); err != nil {
		return nil, err
	}
	ent := r.reg.Entity(urnType(urn))
	if ent == nil {
		return nil, invalidf("unknown entity type in %s", urn)
	}
	err := r.write(ctx, catalog.Proposal{EntityType: ent.Name, EntityURN: urn, ChangeType: catalog.Delete, AspectName: ent.KeyAspect})
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// DeleteTag deletes a tag.
func (r *mutationResolver) DeleteTag(ctx context.Context, urn string) (*bool, error) {
	return r.remove(ctx, urn, "tag")
}

// DeleteGlossaryEntity deletes a glossary term or node. As with every
// delete, the references to it go with it: the entities a term labels lose
// it, other terms lose their relations to it, and the terms and nodes in a
// deleted node move to the top of the glossary.
func (r *mutationResolver) DeleteGlossaryEntity(ctx context.Context, urn string) (*bool, error) {
	return r.remove(ctx, urn, "glossaryTerm", "glossaryNode")
}

// RemoveUser deletes a user.
func (r *mutationResolver) RemoveUser(ctx context.Context, urn string) (*bool, error) {
	return r.remove(ctx, urn, "corpuser")
}

// RemoveGroup deletes a group.
func (r *mutationResolver) RemoveGroup(ctx context.Context, urn string) (*bool, error) {
	return r.remove(ctx, urn, "corpGroup")
}

// --- editing one aspect as a JSON object ---

// editAspect applies fn to the stored value of an aspect as a JSON object
// (def when absent) and writes the result. Working on the generic form
// keeps fields this code does not know about.
func (r *Resolver) editAspect(ctx context.Context, urn, aspect string, def func() map[string]any, fn func(m map[string]any)) error {
	return r.write(ctx, edited(urn, aspect, func(m *map[string]any, found bool) bool {
		switch {
		case found && *m != nil:
		case def != nil:
			*m = def()
		default:
			*m = map[string]any{}
		}
		fn(*m)
		return true
	}))
}

// editableStamps sets the created (first time) and lastModified stamps of
// an editable aspect.
func editableStamps(ctx context.Context, m map[string]any) {
	st := stamp(ctx)
	if _, ok := m["created"]; !ok {
		m["created"] = st
	}
	m["lastModified"] = st
}

// SetTagColor sets the colour of a tag.
func (r *mutationResolver) SetTagColor(ctx context.Context, urn string, colorHex string) (*bool, error) {
	if err := r.mustExist(ctx, urn, "tag"); err != nil {
		return nil, err
	}
	err := r.editAspect(ctx, urn, "tagProperties", func() map[string]any { return map[string]any{"name": urnPart(urn, 0)} },
		func(m map[string]any) { m["colorHex"] = colorHex })
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// UpdateParentNode moves a glossary term or node under another node, or to
// the root when parentNode is absent.
func (r *mutationResolver) UpdateParentNode(ctx context.Context, in model.UpdateParentNodeInput) (*bool, error) {
	if err := r.mustExist(ctx, in.ResourceUrn, "glossaryTerm", "glossaryNode"); err != nil {
		return nil, err
	}
	if err := r.checkParentNode(ctx, in.ParentNode); err != nil {
		return nil, err
	}
	if deref(in.ParentNode) == in.ResourceUrn {
		return nil, invalidf("a glossary node cannot be its own parent")
	}
	aspect, def := "glossaryNodeInfo", map[string]any{"definition": ""}
	if urnType(in.ResourceUrn) == "glossaryTerm" {
		aspect, def = "glossaryTermInfo", map[string]any{"definition": "", "termSource": "INTERNAL"}
	}
	err := r.editAspect(ctx, in.ResourceUrn, aspect, func() map[string]any { return def }, func(m map[string]any) {
		if p := deref(in.ParentNode); p != "" {
			m["parentNode"] = p
		} else {
			delete(m, "parentNode")
		}
	})
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// descriptionTargets says, per entity type, which aspect and field hold the
// description a user edits, and the value of that aspect when absent.
var descriptionTargets = map[string]struct {
	aspect, field string
	stamps        bool
	def           func(urn string) map[string]any
}{
	"dataset":      {"editableDatasetProperties", "description", true, nil},
	"chart":        {"editableChartProperties", "description", true, nil},
	"dashboard":    {"editableDashboardProperties", "description", true, nil},
	"dataFlow":     {"editableDataFlowProperties", "description", true, nil},
	"dataJob":      {"editableDataJobProperties", "description", true, nil},
	"container":    {"editableContainerProperties", "description", false, nil},
	"mlModel":      {"editableMlModelProperties", "description", false, nil},
	"corpGroup":    {"corpGroupEditableInfo", "description", false, nil},
	"corpuser":     {"corpUserEditableInfo", "aboutMe", false, nil},
	"tag":          {"tagProperties", "description", false, func(u string) map[string]any { return map[string]any{"name": urnPart(u, 0)} }},
	"domain":       {"domainProperties", "description", false, func(u string) map[string]any { return map[string]any{"name": urnPart(u, 0)} }},
	"glossaryTerm": {"glossaryTermInfo", "definition", false, func(string) map[string]any { return map[string]any{"termSource": "INTERNAL"} }},
	"glossaryNode": {"glossaryNodeInfo", "definition", false, nil},
}

// UpdateDescription sets the editable description of an entity, or of one
// column of a dataset (subResourceType DATASET_FIELD).
func (r *mutationResolver) UpdateDescription(ctx context.Context, in model.DescriptionUpdateInput) (*bool, error) {
	if err := r.mustExist(ctx, in.ResourceUrn); err != nil {
		return nil, err
	}
	if field, ok, err := subResourceField(in.ResourceUrn, in.SubResourceType, in.SubResource); err != nil {
		return nil, err
	} else if ok {
		st := newLabelState(ctx)
		st.editField(in.ResourceUrn, field, true, func(f *models.EditableSchemaFieldInfo) { f.Description = ptr(in.Description) })
		if err := r.write(ctx, st.proposals()...); err != nil {
			return nil, err
		}
		return yes, nil
	}
	t, ok := descriptionTargets[urnType(in.ResourceUrn)]
	if !ok {
		return nil, invalidf("updating the description of a %s is not supported", urnType(in.ResourceUrn))
	}
	var def func() map[string]any
	if t.def != nil {
		def = func() map[string]any { return t.def(in.ResourceUrn) }
	}
	err := r.editAspect(ctx, in.ResourceUrn, t.aspect, def, func(m map[string]any) {
		m[t.field] = in.Description
		if t.stamps {
			editableStamps(ctx, m)
		}
	})
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// nameTargets says, per entity type, which aspect and field hold the name a
// user edits.
var nameTargets = map[string]struct {
	aspect, field string
	def           func(urn string) map[string]any
}{
	"glossaryTerm": {"glossaryTermInfo", "name", func(string) map[string]any { return map[string]any{"definition": "", "termSource": "INTERNAL"} }},
	"glossaryNode": {"glossaryNodeInfo", "name", func(string) map[string]any { return map[string]any{"definition": ""} }},
	"domain":       {"domainProperties", "name", func(string) map[string]any { return map[string]any{} }},
	"tag":          {"tagProperties", "name", func(string) map[string]any { return map[string]any{} }},
	"corpGroup": {"corpGroupInfo", "displayName", func(string) map[string]any {
		return map[string]any{"admins": []string{}, "members": []string{}, "groups": []string{}}
	}},
	"dataset": {"editableDatasetProperties", "name", func(string) map[string]any { return map[string]any{} }},
}

// UpdateName renames an entity.
func (r *mutationResolver) UpdateName(ctx context.Context, in model.UpdateNameInput) (*bool, error) {
	if err := r.mustExist(ctx, in.Urn); err != nil {
		return nil, err
	}
	t, ok := nameTargets[urnType(in.Urn)]
	if !ok {
		return nil, invalidf("updating the name of a %s is not supported", urnType(in.Urn))
	}
	if err := r.editAspect(ctx, in.Urn, t.aspect, func() map[string]any { return t.def(in.Urn) }, func(m map[string]any) { m[t.field] = in.Name }); err != nil {
		return nil, err
	}
	return yes, nil
}

// UpdateDeprecation replaces the deprecation of an entity. Fields left out
// are reset (note to "", decommissionTime to none), as in DataHub, and the
// caller is recorded as the actor.
func (r *mutationResolver) UpdateDeprecation(ctx context.Context, in model.UpdateDeprecationInput) (*bool, error) {
	if err := r.mustExist(ctx, in.Urn); err != nil {
		return nil, err
	}
	var p proposals
	p.add(in.Urn, "deprecation", models.Deprecation{Deprecated: in.Deprecated, Note: deref(in.Note), DecommissionTime: in.DecommissionTime, Actor: actorOf(ctx)})
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return yes, nil
}

// SetDomain puts an entity in a domain.
func (r *mutationResolver) SetDomain(ctx context.Context, entityUrn string, domainUrn string) (*bool, error) {
	if err := r.mustExist(ctx, entityUrn); err != nil {
		return nil, err
	}
	if err := r.mustExist(ctx, domainUrn, "domain"); err != nil {
		return nil, err
	}
	return r.setDomains(ctx, entityUrn, []string{domainUrn})
}

// UnsetDomain takes an entity out of its domain.
func (r *mutationResolver) UnsetDomain(ctx context.Context, entityUrn string) (*bool, error) {
	if err := r.mustExist(ctx, entityUrn); err != nil {
		return nil, err
	}
	return r.setDomains(ctx, entityUrn, []string{})
}

func (r *Resolver) setDomains(ctx context.Context, urn string, domains []string) (*bool, error) {
	var p proposals
	p.add(urn, "domains", models.Domains{Domains: domains})
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return yes, nil
}

// --- owners ---

// AddOwner adds one owner to an entity.
func (r *mutationResolver) AddOwner(ctx context.Context, in model.AddOwnerInput) (*bool, error) {
	return r.addOwners(ctx, in.ResourceUrn, []*model.OwnerInput{{OwnerUrn: in.OwnerUrn, OwnerEntityType: in.OwnerEntityType, Type: in.Type, OwnershipTypeUrn: in.OwnershipTypeUrn}})
}

// AddOwners adds owners to an entity.
func (r *mutationResolver) AddOwners(ctx context.Context, in model.AddOwnersInput) (*bool, error) {
	return r.addOwners(ctx, in.ResourceUrn, in.Owners)
}

func (r *Resolver) addOwners(ctx context.Context, resource string, owners []*model.OwnerInput) (*bool, error) {
	if err := r.mustExist(ctx, resource); err != nil {
		return nil, err
	}
	p, err := ownersAdded(ctx, resource, owners, "")
	if err != nil {
		return nil, err
	}
	if err := r.write(ctx, p); err != nil {
		return nil, err
	}
	return yes, nil
}

// ownersAdded is the edit of resource's ownership that adds owners, each
// of its own ownership type, else of defaultType, else of its legacy type
// (technical owner when none).
func ownersAdded(ctx context.Context, resource string, owners []*model.OwnerInput, defaultType string) (catalog.Proposal, error) {
	add := make([]models.Owner, 0, len(owners))
	for _, in := range owners {
		want := "corpuser"
		if in.OwnerEntityType == model.OwnerEntityTypeCorpGroup {
			want = "corpGroup"
		}
		if urnType(in.OwnerUrn) != want {
			return catalog.Proposal{}, invalidf("owner %s is not a %s URN", in.OwnerUrn, want)
		}
		typ := model.OwnershipTypeTechnicalOwner
		if in.Type != nil {
			typ = *in.Type
		}
		typeURN := deref(in.OwnershipTypeUrn)
		if typeURN == "" {
			typeURN = defaultType
		}
		if typeURN == "" {
			typeURN = "urn:li:ownershipType:__system__" + lower(string(typ))
		}
		add = append(add, models.Owner{Owner: in.OwnerUrn, Type: models.OwnershipType(typ), TypeUrn: ptr(typeURN)})
	}
	st := stamp(ctx)
	return edited(resource, "ownership", func(o *models.Ownership, _ bool) bool {
		if o.Owners == nil {
			o.Owners = []models.Owner{}
		}
		for _, a := range add {
			dup := slices.ContainsFunc(o.Owners, func(ow models.Owner) bool {
				return ow.Owner == a.Owner && (deref(ow.TypeUrn) == *a.TypeUrn || (ow.TypeUrn == nil && ow.Type == a.Type))
			})
			if !dup {
				o.Owners = append(o.Owners, a)
			}
		}
		o.LastModified = &st
		return true
	}), nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// RemoveOwner removes an owner (of one ownership type, when given).
func (r *mutationResolver) RemoveOwner(ctx context.Context, in model.RemoveOwnerInput) (*bool, error) {
	if err := r.mustExist(ctx, in.ResourceUrn); err != nil {
		return nil, err
	}
	if err := r.write(ctx, ownersRemoved(ctx, in.ResourceUrn, []string{in.OwnerUrn}, deref(in.OwnershipTypeUrn))); err != nil {
		return nil, err
	}
	return yes, nil
}

// ownersRemoved is the edit of resource's ownership that removes owners (of
// one ownership type, when typeURN is not empty).
func ownersRemoved(ctx context.Context, resource string, owners []string, typeURN string) catalog.Proposal {
	st := stamp(ctx)
	return edited(resource, "ownership", func(o *models.Ownership, found bool) bool {
		if !found {
			return false
		}
		o.Owners = slices.DeleteFunc(o.Owners, func(ow models.Owner) bool {
			return slices.Contains(owners, ow.Owner) && (typeURN == "" || deref(ow.TypeUrn) == typeURN)
		})
		if o.Owners == nil {
			o.Owners = []models.Owner{}
		}
		o.LastModified = &st
		return true
	})
}

// BatchAddOwners adds owners to every resource, in one write: all or none.
func (r *mutationResolver) BatchAddOwners(ctx context.Context, in model.BatchAddOwnersInput) (*bool, error) {
	var props []catalog.Proposal
	for _, res := range in.Resources {
		if res == nil {
			continue
		}
		if err := r.mustExist(ctx, res.ResourceUrn); err != nil {
			return nil, err
		}
		p, err := ownersAdded(ctx, res.ResourceUrn, in.Owners, deref(in.OwnershipTypeUrn))
		if err != nil {
			return nil, err
		}
		props = append(props, p)
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// BatchRemoveOwners removes owners (of one ownership type, when given) from
// every resource, in one write.
func (r *mutationResolver) BatchRemoveOwners(ctx context.Context, in model.BatchRemoveOwnersInput) (*bool, error) {
	var props []catalog.Proposal
	for _, res := range in.Resources {
		if res == nil {
			continue
		}
		if err := r.mustExist(ctx, res.ResourceUrn); err != nil {
			return nil, err
		}
		props = append(props, ownersRemoved(ctx, res.ResourceUrn, in.OwnerUrns, deref(in.OwnershipTypeUrn)))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// --- groups ---

// AddGroupMembers adds users to a group through their nativeGroupMembership,
// the membership DataHub's app and terraform provider read. As in DataHub,
// a group ingested from an external provider (origin EXTERNAL) is refused,
// and a group of no recorded origin becomes native first: its members by
// groupMembership move to nativeGroupMembership.
func (r *mutationResolver) AddGroupMembers(ctx context.Context, in model.AddGroupMembersInput) (*bool, error) {
	group := in.GroupUrn
	if _, err := catalog.ParseURN(group); err != nil {
		return nil, err
	}
	ok := urnType(group) == "corpGroup"
	if ok {
		var err error
		if ok, err = r.loaderOf(ctx).exists(ctx, group); err != nil {
			return nil, err
		}
	}
	if !ok {
		return nil, catalog.Errorf(catalog.NotFound, "Failed to add members to group %s. Group does not exist.", group)
	}
	for _, u := range in.UserUrns {
		if urnType(u) != "corpuser" {
			return nil, invalidf("%s is not a corpuser URN", u)
		}
		if err := r.mustExist(ctx, u, "corpuser"); err != nil {
			return nil, invalidf("Failed to add member to group. User %s does not exist.", u)
		}
	}
	origin, err := r.loaderOf(ctx).stored(ctx, group, "origin")
	if err != nil {
		return nil, err
	}
	var props []catalog.Proposal
	users := in.UserUrns
	if origin == nil {
		migrated, err := r.referencing(ctx, group, "IsMemberOfGroup", "groupMembership")
		if err != nil {
			return nil, err
		}
		for _, u := range migrated {
			props = append(props, edited(u, "groupMembership", func(m *models.GroupMembership, _ bool) bool {
				if !slices.Contains(m.Groups, group) {
					return false
				}
				m.Groups = without(m.Groups, group)
				return true
			}))
			if !slices.Contains(users, u) {
				users = append(users, u)
			}
		}
		var p proposals
		p.add(group, "origin", map[string]any{"type": "NATIVE"})
		if p.err != nil {
			return nil, p.err
		}
		props = append(props, p.list...)
	} else {
		var o struct {
			Type string `json:"type"`
		}
		if err := jsonUnmarshal(origin.Value, &o); err != nil {
			return nil, err
		}
		if o.Type == "EXTERNAL" {
			return nil, invalidf("Group %s was ingested from an external provider and cannot have members manually added to it", group)
		}
	}
	for _, u := range users {
		props = append(props, edited(u, "nativeGroupMembership", func(n *models.NativeGroupMembership, _ bool) bool {
			if slices.Contains(n.NativeGroups, group) {
				return false
			}
			n.NativeGroups = append(n.NativeGroups, group)
			return true
		}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// RemoveGroupMembers removes users from a group, whichever way they joined
// it.
func (r *mutationResolver) RemoveGroupMembers(ctx context.Context, in model.RemoveGroupMembersInput) (*bool, error) {
	group := in.GroupUrn
	if err := r.mustExist(ctx, group, "corpGroup"); err != nil {
		return nil, err
	}
	var props []catalog.Proposal
	for _, u := range in.UserUrns {
		if urnType(u) != "corpuser" {
			return nil, invalidf("%s is not a corpuser URN", u)
		}
		props = append(props,
			edited(u, "groupMembership", func(m *models.GroupMembership, _ bool) bool {
				if !slices.Contains(m.Groups, group) {
					return false
				}
				m.Groups = without(m.Groups, group)
				return true
			}),
			edited(u, "nativeGroupMembership", func(n *models.NativeGroupMembership, _ bool) bool {
				if !slices.Contains(n.NativeGroups, group) {
					return false
				}
				n.NativeGroups = without(n.NativeGroups, group)
				return true
			}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// UpdateCorpGroupProperties sets the editable properties of a group; fields
// left out keep their value.
func (r *mutationResolver) UpdateCorpGroupProperties(ctx context.Context, urn string, in model.CorpGroupUpdateInput) (*model.CorpGroup, error) {
	if err := r.mustExist(ctx, urn, "corpGroup"); err != nil {
		return nil, err
	}
	err := r.editAspect(ctx, urn, "corpGroupEditableInfo", nil, func(m map[string]any) {
		for k, v := range map[string]*string{"description": in.Description, "slack": in.Slack, "email": in.Email} {
			if v != nil {
				m[k] = *v
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return &model.CorpGroup{Urn: urn}, nil
}

// without returns s without v, never nil.
func without(s []string, v string) []string {
	out := make([]string, 0, len(s))
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
