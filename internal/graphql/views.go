package graphql

import (
	"context"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// Views are saved searches (dataHubView entities, aspect dataHubViewInfo):
// entity types and a filter that every search, aggregation, browse and
// autocomplete naming the view by viewUrn is narrowed to. A personal view
// belongs to the user who made it; a global one is shared and is managed
// with the Manage Public Views privilege. The instance's default view is in
// the global settings, a user's own default in their corpUserSettings.

const privManageGlobalViews = "MANAGE_GLOBAL_VIEWS"

// viewOf reads a view's info; nil when none is stored.
func (r *Resolver) viewOf(ctx context.Context, urn string) (*models.DataHubViewInfo, error) {
	return aspectOf[models.DataHubViewInfo](ctx, r.loaderOf(ctx), urn, "dataHubViewInfo")
}

// applyView narrows a search to a view: the entity types both ask for
// (either's when the other names none) and the filter in conjunction with
// the view's. A view that does not exist is ignored, as DataHub does.
func (r *Resolver) applyView(ctx context.Context, viewURN *string, ents []string, filter *search.FilterInput) ([]string, *search.FilterInput, error) {
	if deref(viewURN) == "" {
		return ents, filter, nil
	}
	if _, err := catalog.ParseURN(*viewURN); err != nil {
		return nil, nil, invalidf("viewUrn: %v", err)
	}
	v, err := r.viewOf(ctx, *viewURN)
	if err != nil || v == nil {
		return ents, filter, err
	}
	var viewEnts []string
	for _, t := range v.Definition.EntityTypes {
		viewEnts = append(viewEnts, entityNameOf(t))
	}
	if len(viewEnts) > 0 {
		ents = slices.DeleteFunc(slices.Clone(ents), func(e string) bool { return !slices.Contains(viewEnts, e) })
	}
	return ents, conjoin(filter, viewFilter(v.Definition.Filter)), nil
}

// viewFilter is a stored filter in the search service's form.
func viewFilter(f models.Filter) *search.FilterInput {
	crit := func(c models.Criterion) search.CriterionInput {
		out := search.CriterionInput{Field: c.Field, Values: c.Values, Negated: deref(c.Negated)}
		if len(out.Values) == 0 && c.Value != "" {
			out.Values = []string{c.Value}
		}
		if c.Condition != nil {
			out.Condition = string(*c.Condition)
		}
		return out
	}
	var out search.FilterInput
	for _, g := range f.Or {
		var and search.ConjunctionInput
		for _, c := range g.And {
			and.And = append(and.And, crit(c))
		}
		out.Or = append(out.Or, and)
	}
	if len(out.Or) == 0 && len(f.Criteria) > 0 {
		var and search.ConjunctionInput
		for _, c := range f.Criteria {
			and.And = append(and.And, crit(c))
		}
		out.Or = []search.ConjunctionInput{and}
	}
	if len(out.Or) == 0 {
		return nil
	}
	return &out
}

// conjoin is the conjunction of two filters in disjunctive normal form:
// every conjunction of one with every conjunction of the other.
func conjoin(a, b *search.FilterInput) *search.FilterInput {
	if a == nil || len(a.Or) == 0 {
		return b
	}
	if b == nil || len(b.Or) == 0 {
		return a
	}
	out := &search.FilterInput{}
	for _, x := range a.Or {
		for _, y := range b.Or {
			out.Or = append(out.Or, search.ConjunctionInput{And: append(slices.Clone(x.And), y.And...)})
		}
	}
	return out
}

// storedDefinition is a view definition as DataHub stores it: entity type
// names, and the filter as one conjunction (AND) or one conjunction per
// criterion (OR).
func (r *Resolver) storedDefinition(in *model.DataHubViewDefinitionInput) (models.DataHubViewDefinition, error) {
	out := models.DataHubViewDefinition{EntityTypes: []string{}}
	for _, t := range in.EntityTypes {
		n, ok := entityNames[t]
		if !ok {
			return out, invalidf("entity type %s cannot be in a view", t)
		}
		out.EntityTypes = append(out.EntityTypes, n)
	}
	svc, err := r.searchService()
	if err != nil {
		return out, err
	}
	var crits []models.Criterion
	for i, f := range in.Filter.Filters {
		field := strings.TrimSuffix(f.Field, ".keyword")
		if field != entityTypeField && field != entitySubTypeFacet && field != browsePathV2Field {
			check := &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{{Field: f.Field, Value: f.Value, Values: f.Values,
				Condition: conditionOf(f.Condition), Negated: deref(f.Negated)}}}}}
			if _, err := svc.ParseFilter(nil, check); err != nil {
				return out, invalidf("definition.filter.filters[%d]: %v", i, err)
			}
		}
		c := models.Criterion{Field: f.Field, Values: f.Values, Negated: f.Negated}
		if len(c.Values) == 0 && f.Value != nil {
			c.Values = []string{*f.Value}
		}
		if len(c.Values) > 0 {
			c.Value = c.Values[0]
		}
		cond := models.Condition(cmpOr(conditionOf(f.Condition), "EQUAL"))
		c.Condition = &cond
		crits = append(crits, c)
	}
	if in.Filter.Operator == model.LogicalOperatorAnd {
		out.Filter.Or = []models.ConjunctiveCriterion{{And: crits}}
		if crits == nil {
			out.Filter.Or[0].And = []models.Criterion{}
		}
	} else {
		out.Filter.Or = []models.ConjunctiveCriterion{}
		for _, c := range crits {
			out.Filter.Or = append(out.Filter.Or, models.ConjunctiveCriterion{And: []models.Criterion{c}})
		}
	}
	return out, nil
}

func conditionOf(c *model.FilterOperator) string {
	if c == nil {
		return ""
	}
	return string(*c)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// canManageGlobalViews reports whether the caller holds Manage Public Views.
func (r *Resolver) canManageGlobalViews(ctx context.Context) (bool, error) {
	if r.auth == nil {
		return true, nil
	}
	has, err := r.auth.PlatformPrivileges(ctx, actorOf(ctx), []string{privManageGlobalViews})
	if err != nil {
		return false, err
	}
	return has[privManageGlobalViews], nil
}

// mayChangeView checks that the caller may change a view: its creator, or
// for a global view one who manages global views.
func (r *Resolver) mayChangeView(ctx context.Context, urn string) (*models.DataHubViewInfo, error) {
	if err := r.mustExist(ctx, urn, "dataHubView"); err != nil {
		return nil, err
	}
	v, err := r.viewOf(ctx, urn)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, invalidf("Failed to modify View. View with urn %s does not exist.", urn)
	}
	if v.Created.Actor == actorOf(ctx) {
		return v, nil
	}
	if v.Type == models.DataHubViewType(model.DataHubViewTypeGlobal) {
		ok, err := r.canManageGlobalViews(ctx)
		if err != nil || ok {
			return v, err
		}
	}
	return nil, catalog.Errorf(catalog.Forbidden, "Unauthorized to perform this action. Please contact your DataHub administrator.")
}

// CreateView saves a new view, personal to the caller or global.
func (r *mutationResolver) CreateView(ctx context.Context, in model.CreateViewInput) (*model.DataHubView, error) {
	if in.ViewType == model.DataHubViewTypeGlobal {
		ok, err := r.canManageGlobalViews(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, catalog.Errorf(catalog.Forbidden, "Unauthorized to perform this action. Please contact your DataHub administrator.")
		}
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, invalidf("name is required")
	}
	def, err := r.storedDefinition(in.Definition)
	if err != nil {
		return nil, err
	}
	urn := catalog.NewURN("dataHubView", uuid.NewString())
	st := stamp(ctx)
	info := models.DataHubViewInfo{Name: in.Name, Description: in.Description, Type: models.DataHubViewType(in.ViewType), Definition: def, Created: st, LastModified: st}
	p, err := proposal(urn, "dataHubViewInfo", info)
	if err != nil {
		return nil, err
	}
	p.ChangeType = catalog.CreateEntity
	if err := r.write(auth.Preauthorized(ctx), p); err != nil {
		return nil, err
	}
	return &model.DataHubView{Urn: urn}, nil
}

// UpdateView changes a view's name, description or definition.
func (r *mutationResolver) UpdateView(ctx context.Context, urn string, in model.UpdateViewInput) (*model.DataHubView, error) {
	if _, err := r.mayChangeView(ctx, urn); err != nil {
		return nil, err
	}
	var def *models.DataHubViewDefinition
	if in.Definition != nil {
		d, err := r.storedDefinition(in.Definition)
		if err != nil {
			return nil, err
		}
		def = &d
	}
	if in.Name != nil && strings.TrimSpace(*in.Name) == "" {
		return nil, invalidf("name must not be empty")
	}
	st := stamp(ctx)
	err := r.write(auth.Preauthorized(ctx), edited(urn, "dataHubViewInfo", func(v *models.DataHubViewInfo, found bool) bool {
		if in.Name != nil {
			v.Name = *in.Name
		}
		if in.Description != nil {
			v.Description = in.Description
		}
		if def != nil {
			v.Definition = *def
		}
		v.LastModified = st
		return found
	}))
	if err != nil {
		return nil, err
	}
	return &model.DataHubView{Urn: urn}, nil
}

// DeleteView deletes a view.
func (r *mutationResolver) DeleteView(ctx context.Context, urn string) (*bool, error) {
	if _, err := r.mayChangeView(ctx, urn); err != nil {
		return nil, err
	}
	return r.remove(auth.Preauthorized(ctx), urn, "dataHubView")
}

// checkDefaultView fails unless urn names a stored view of the given type
// (any when empty).
func (r *Resolver) checkDefaultView(ctx context.Context, urn string, typ model.DataHubViewType) error {
	v, err := r.viewOf(ctx, urn)
	if err != nil {
		return err
	}
	if v == nil {
		return invalidf("View %s does not exist", urn)
	}
	if typ != "" && string(v.Type) != string(typ) {
		return invalidf("View %s is not a %s view", urn, strings.ToLower(string(typ)))
	}
	return nil
}

// UpdateGlobalViewsSettings sets (or with none, clears) the instance's
// default view, a global one.
func (r *mutationResolver) UpdateGlobalViewsSettings(ctx context.Context, in model.UpdateGlobalViewsSettingsInput) (bool, error) {
	ok, err := r.canManageGlobalViews(ctx)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, catalog.Errorf(catalog.Forbidden, "Unauthorized to update global views settings. Please contact your DataHub administrator.")
	}
	if deref(in.DefaultView) != "" {
		if err := r.checkDefaultView(ctx, *in.DefaultView, model.DataHubViewTypeGlobal); err != nil {
			return false, err
		}
	}
	err = r.write(auth.Preauthorized(ctx), edited(globalSettingsURN, "globalSettingsInfo", func(v *models.GlobalSettingsInfo, _ bool) bool {
		if v.Views == nil {
			v.Views = &models.GlobalViewsSettings{}
		}
		v.Views.DefaultView = nilIfEmpty(in.DefaultView)
		return true
	}))
	return err == nil, err
}

// UpdateCorpUserViewsSettings sets (or with none, clears) the caller's own
// default view.
func (r *mutationResolver) UpdateCorpUserViewsSettings(ctx context.Context, in model.UpdateCorpUserViewsSettingsInput) (*bool, error) {
	if deref(in.DefaultView) != "" {
		if err := r.checkDefaultView(ctx, *in.DefaultView, ""); err != nil {
			return nil, err
		}
	}
	err := r.write(auth.Preauthorized(ctx), edited(actorOf(ctx), "corpUserSettings", func(v *models.CorpUserSettings, _ bool) bool {
		if v.Views == nil {
			v.Views = &models.CorpUserViewsSettings{}
		}
		v.Views.DefaultView = nilIfEmpty(in.DefaultView)
		return true
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// BatchUpdateStepStates records the caller's onboarding steps (the web
// app's tours and tutorials): each state replaces the properties stored for
// its id.
func (r *mutationResolver) BatchUpdateStepStates(ctx context.Context, in model.BatchUpdateStepStatesInput) (*model.BatchUpdateStepStatesResult, error) {
	out := &model.BatchUpdateStepStatesResult{Results: []*model.UpdateStepStateResult{}}
	var p proposals
	for i, s := range in.States {
		if strings.TrimSpace(s.ID) == "" {
			return nil, invalidf("states[%d].id is required", i)
		}
		props := map[string]string{}
		for _, e := range s.Properties {
			if e != nil {
				props[e.Key] = deref(e.Value)
			}
		}
		p.add(catalog.NewURN("dataHubStepState", s.ID), "dataHubStepStateProperties", models.DataHubStepStateProperties{Properties: props, LastModified: stamp(ctx)})
		out.Results = append(out.Results, &model.UpdateStepStateResult{ID: s.ID, Succeeded: true})
	}
	if p.err != nil {
		return nil, p.err
	}
	// Anyone records their own progress through the app's tours.
	if err := r.write(auth.Preauthorized(ctx), p.list...); err != nil {
		return nil, err
	}
	return out, nil
}
