package graphql

import (
	"context"
	"slices"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// labelKind is what a label mutation attaches: tags or glossary terms.
type labelKind int

const (
	tags labelKind = iota
	terms
)

func (k labelKind) entityType() string {
	if k == tags {
		return "tag"
	}
	return "glossaryTerm"
}

// subResourceField returns the column a label or description mutation
// targets, ok false when it targets the entity itself.
func subResourceField(resource string, typ *model.SubResourceType, sub *string) (string, bool, error) {
	if typ == nil && deref(sub) == "" {
		return "", false, nil
	}
	if typ == nil || *typ != model.SubResourceTypeDatasetField || deref(sub) == "" {
		return "", false, invalidf("subResource and subResourceType DATASET_FIELD must be given together")
	}
	if urnType(resource) != "dataset" {
		return "", false, invalidf("subResourceType DATASET_FIELD needs a dataset, got %s", resource)
	}
	return *sub, true, nil
}

// labelState collects the edits one mutation makes to the label aspects of
// its resources. They run in the write transaction, on the values current
// there (see edited), so that two mutations of one resource at once both
// take effect; a batch touching one aspect twice writes it once.
type labelState struct {
	ctx   context.Context
	order []labelTarget
	edits map[labelTarget][]func(v any)
}

type labelTarget struct{ urn, aspect string }

func newLabelState(ctx context.Context) *labelState {
	return &labelState{ctx: ctx, edits: map[labelTarget][]func(any){}}
}

func (s *labelState) add(urn, aspect string, fn func(v any)) {
	t := labelTarget{urn, aspect}
	if _, ok := s.edits[t]; !ok {
		s.order = append(s.order, t)
	}
	s.edits[t] = append(s.edits[t], fn)
}

func (s *labelState) globalTags(urn string, fn func(*models.GlobalTags)) {
	s.add(urn, "globalTags", func(v any) { fn(v.(*models.GlobalTags)) })
}

func (s *labelState) glossaryTerms(urn string, fn func(*models.GlossaryTerms)) {
	s.add(urn, "glossaryTerms", func(v any) { fn(v.(*models.GlossaryTerms)) })
}

// editField applies fn to the editable schema info of one column, creating
// it when create is set; a column missing and not created is left alone.
func (s *labelState) editField(urn, fieldPath string, create bool, fn func(*models.EditableSchemaFieldInfo)) {
	s.add(urn, "editableSchemaMetadata", func(v any) {
		e := v.(*models.EditableSchemaMetadata)
		i := slices.IndexFunc(e.EditableSchemaFieldInfo, func(f models.EditableSchemaFieldInfo) bool { return f.FieldPath == fieldPath })
		if i < 0 {
			if !create {
				return
			}
			e.EditableSchemaFieldInfo = append(e.EditableSchemaFieldInfo, models.EditableSchemaFieldInfo{FieldPath: fieldPath})
			i = len(e.EditableSchemaFieldInfo) - 1
		}
		fn(&e.EditableSchemaFieldInfo[i])
	})
}

// proposals returns an edit per touched aspect, in first-touch order.
func (s *labelState) proposals() []catalog.Proposal {
	st := stamp(s.ctx)
	out := make([]catalog.Proposal, 0, len(s.order))
	for _, t := range s.order {
		fns := s.edits[t]
		apply := func(v any) bool {
			for _, fn := range fns {
				fn(v)
			}
			return true
		}
		switch t.aspect {
		case "globalTags":
			out = append(out, edited(t.urn, t.aspect, func(g *models.GlobalTags, _ bool) bool {
				if g.Tags == nil {
					g.Tags = []models.TagAssociation{}
				}
				return apply(g)
			}))
		case "glossaryTerms":
			out = append(out, edited(t.urn, t.aspect, func(g *models.GlossaryTerms, _ bool) bool {
				if g.Terms == nil {
					g.Terms = []models.GlossaryTermAssociation{}
				}
				g.AuditStamp = st
				return apply(g)
			}))
		case "editableSchemaMetadata":
			out = append(out, edited(t.urn, t.aspect, func(e *models.EditableSchemaMetadata, found bool) bool {
				if !found {
					e.Created = &st
				}
				if e.EditableSchemaFieldInfo == nil {
					e.EditableSchemaFieldInfo = []models.EditableSchemaFieldInfo{}
				}
				e.LastModified = &st
				return apply(e)
			}))
		}
	}
	return out
}

// changeLabels adds or removes tags or terms on resources: on the entity's
// globalTags / glossaryTerms, or for a DATASET_FIELD sub-resource on that
// column in editableSchemaMetadata. Every label and resource must exist;
// all changes are written in one ingest call.
func (r *Resolver) changeLabels(ctx context.Context, kind labelKind, add bool, labels []string, resources []*model.ResourceRefInput) (*bool, error) {
	if len(labels) == 0 {
		return nil, invalidf("no %s given", kind.entityType())
	}
	l := r.loaderOf(ctx)
	urns := append([]string(nil), labels...)
	for _, res := range resources {
		if res != nil {
			urns = append(urns, res.ResourceUrn)
		}
	}
	l.prime(ctx, urns)
	for _, lab := range labels {
		if err := r.mustExist(ctx, lab, kind.entityType()); err != nil {
			return nil, err
		}
	}
	st := newLabelState(ctx)
	for _, res := range resources {
		if res == nil {
			continue
		}
		if err := r.mustExist(ctx, res.ResourceUrn); err != nil {
			return nil, err
		}
		field, onField, err := subResourceField(res.ResourceUrn, res.SubResourceType, res.SubResource)
		if err != nil {
			return nil, err
		}
		switch {
		case onField:
			st.editField(res.ResourceUrn, field, add, func(f *models.EditableSchemaFieldInfo) {
				if kind == tags {
					if f.GlobalTags == nil {
						f.GlobalTags = &models.GlobalTags{Tags: []models.TagAssociation{}}
					}
					f.GlobalTags.Tags = editTags(f.GlobalTags.Tags, labels, add)
				} else {
					if f.GlossaryTerms == nil {
						f.GlossaryTerms = &models.GlossaryTerms{Terms: []models.GlossaryTermAssociation{}}
					}
					f.GlossaryTerms.AuditStamp = stamp(ctx)
					f.GlossaryTerms.Terms = editTerms(f.GlossaryTerms.Terms, labels, add)
				}
			})
		case kind == tags:
			st.globalTags(res.ResourceUrn, func(g *models.GlobalTags) { g.Tags = editTags(g.Tags, labels, add) })
		default:
			st.glossaryTerms(res.ResourceUrn, func(g *models.GlossaryTerms) { g.Terms = editTerms(g.Terms, labels, add) })
		}
	}
	if err := r.write(ctx, st.proposals()...); err != nil {
		return nil, err
	}
	return yes, nil
}

// editTags adds (keeping order, no duplicates) or removes tag URNs.
func editTags(list []models.TagAssociation, urns []string, add bool) []models.TagAssociation {
	for _, u := range urns {
		i := slices.IndexFunc(list, func(t models.TagAssociation) bool { return t.Tag == u })
		switch {
		case add && i < 0:
			list = append(list, models.TagAssociation{Tag: u})
		case !add && i >= 0:
			list = slices.Delete(list, i, i+1)
		}
	}
	if list == nil {
		list = []models.TagAssociation{}
	}
	return list
}

// editTerms adds or removes term URNs.
func editTerms(list []models.GlossaryTermAssociation, urns []string, add bool) []models.GlossaryTermAssociation {
	for _, u := range urns {
		i := slices.IndexFunc(list, func(t models.GlossaryTermAssociation) bool { return t.Urn == u })
		switch {
		case add && i < 0:
			list = append(list, models.GlossaryTermAssociation{Urn: u})
		case !add && i >= 0:
			list = slices.Delete(list, i, i+1)
		}
	}
	if list == nil {
		list = []models.GlossaryTermAssociation{}
	}
	return list
}

func oneResource(urn string, typ *model.SubResourceType, sub *string) []*model.ResourceRefInput {
	return []*model.ResourceRefInput{{ResourceUrn: urn, SubResourceType: typ, SubResource: sub}}
}

// AddTag attaches a tag.
func (r *mutationResolver) AddTag(ctx context.Context, in model.TagAssociationInput) (*bool, error) {
	return r.changeLabels(ctx, tags, true, []string{in.TagUrn}, oneResource(in.ResourceUrn, in.SubResourceType, in.SubResource))
}

// AddTags attaches tags.
func (r *mutationResolver) AddTags(ctx context.Context, in model.AddTagsInput) (*bool, error) {
	return r.changeLabels(ctx, tags, true, in.TagUrns, oneResource(in.ResourceUrn, in.SubResourceType, in.SubResource))
}

// RemoveTag detaches a tag.
func (r *mutationResolver) RemoveTag(ctx context.Context, in model.TagAssociationInput) (*bool, error) {
	return r.changeLabels(ctx, tags, false, []string{in.TagUrn}, oneResource(in.ResourceUrn, in.SubResourceType, in.SubResource))
}

// BatchAddTags attaches tags to many resources.
func (r *mutationResolver) BatchAddTags(ctx context.Context, in model.BatchAddTagsInput) (*bool, error) {
	return r.changeLabels(ctx, tags, true, in.TagUrns, in.Resources)
}

// BatchRemoveTags detaches tags from many resources.
func (r *mutationResolver) BatchRemoveTags(ctx context.Context, in model.BatchRemoveTagsInput) (*bool, error) {
	return r.changeLabels(ctx, tags, false, in.TagUrns, in.Resources)
}

// AddTerm attaches a glossary term.
func (r *mutationResolver) AddTerm(ctx context.Context, in model.TermAssociationInput) (*bool, error) {
	return r.changeLabels(ctx, terms, true, []string{in.TermUrn}, oneResource(in.ResourceUrn, in.SubResourceType, in.SubResource))
}

// AddTerms attaches glossary terms.
func (r *mutationResolver) AddTerms(ctx context.Context, in model.AddTermsInput) (*bool, error) {
	return r.changeLabels(ctx, terms, true, in.TermUrns, oneResource(in.ResourceUrn, in.SubResourceType, in.SubResource))
}

// RemoveTerm detaches a glossary term.
func (r *mutationResolver) RemoveTerm(ctx context.Context, in model.TermAssociationInput) (*bool, error) {
	return r.changeLabels(ctx, terms, false, []string{in.TermUrn}, oneResource(in.ResourceUrn, in.SubResourceType, in.SubResource))
}

// BatchAddTerms attaches glossary terms to many resources.
func (r *mutationResolver) BatchAddTerms(ctx context.Context, in model.BatchAddTermsInput) (*bool, error) {
	return r.changeLabels(ctx, terms, true, in.TermUrns, in.Resources)
}

// BatchRemoveTerms detaches glossary terms from many resources.
func (r *mutationResolver) BatchRemoveTerms(ctx context.Context, in model.BatchRemoveTermsInput) (*bool, error) {
	return r.changeLabels(ctx, terms, false, in.TermUrns, in.Resources)
}
