package graphql

import (
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
	"golang.org/x/sync/errgroup"
)

// searchableTypes are the entity types searchAcrossEntities covers when the
// client names none, DataHub's.
var searchableTypes = []string{
	"dataset", "dashboard", "chart", "mlModel", "mlModelGroup", "mlFeatureTable", "mlFeature", "mlPrimaryKey",
	"dataFlow", "dataJob", "glossaryTerm", "glossaryNode", "tag", "role", "corpuser", "corpGroup", "container",
	"domain", "dataProduct", "notebook", "businessAttribute", "schemaField", "application",
}

// entityTypeField is the pseudo search field DataHub filters entity types
// by, with EntityType symbols as values.
const entityTypeField = "_entityType"

// narrowByEntityType takes the entity type criteria out of filter
// (_entityType, and _entityType␞typeNames whose values are a type or a type
// and one of its sub types) and narrows ents by them: a conjunction keeps
// the types its criteria allow, and the search covers the types some
// conjunction keeps. When conjunctions keep different types, each is held
// to its own by a URN prefix criterion.
func narrowByEntityType(ents []string, filter *search.FilterInput) ([]string, *search.FilterInput) {
	if filter == nil {
		return ents, nil
	}
	type conj struct {
		allowed map[string]bool
		rest    []search.CriterionInput
	}
	all := func() map[string]bool {
		m := map[string]bool{}
		for _, e := range ents {
			m[e] = true
		}
		return m
	}
	narrowed := false
	var conjs []conj
	for _, and := range filter.Or {
		alts := []conj{{allowed: all()}}
		for _, c := range and.And {
			field := strings.TrimSuffix(c.Field, ".keyword")
			values := c.Values
			if len(values) == 0 && c.Value != nil {
				values = []string{*c.Value}
			}
			switch {
			case field == entityTypeField || field == entitySubTypeFacet && c.Negated:
				narrowed = true
				named := map[string]bool{}
				for _, v := range values {
					t, sub, _ := strings.Cut(v, facetSeparator)
					if sub == "" {
						named[entityNameOf(t)] = true
					}
				}
				for _, a := range alts {
					for e := range a.allowed {
						if named[e] == c.Negated {
							delete(a.allowed, e)
						}
					}
				}
			case field == entitySubTypeFacet:
				narrowed = true
				var next []conj
				for _, a := range alts {
					for _, v := range values {
						t, sub, _ := strings.Cut(v, facetSeparator)
						e := entityNameOf(t)
						if !a.allowed[e] {
							continue
						}
						n := conj{allowed: map[string]bool{e: true}, rest: slices.Clone(a.rest)}
						if sub != "" {
							n.rest = append(n.rest, search.CriterionInput{Field: "typeNames", Values: []string{sub}, Condition: "EQUAL"})
						}
						next = append(next, n)
					}
				}
				alts = next
			default:
				for i := range alts {
					alts[i].rest = append(alts[i].rest, c)
				}
			}
		}
		conjs = append(conjs, alts...)
	}
	if !narrowed {
		return ents, filter
	}
	keep := map[string]bool{}
	for _, c := range conjs {
		for e := range c.allowed {
			keep[e] = true
		}
	}
	kept := make([]string, 0, len(keep))
	for _, e := range ents {
		if keep[e] {
			kept = append(kept, e)
		}
	}
	// Conjunctions that keep different types and ask different things of
	// them are each held to their types.
	own := false
	var ref *conj
	for i, c := range conjs {
		switch {
		case len(c.allowed) == 0:
		case ref == nil:
			ref = &conjs[i]
		case !reflect.DeepEqual(c.rest, ref.rest):
			own = true
		}
	}
	out := &search.FilterInput{Or: []search.ConjunctionInput{}}
	for _, c := range conjs {
		if len(c.allowed) == 0 && len(kept) > 0 {
			continue
		}
		and := search.ConjunctionInput{And: c.rest}
		if own && len(c.allowed) < len(keep) {
			var prefixes []string
			for _, e := range kept {
				if c.allowed[e] {
					prefixes = append(prefixes, "urn:li:"+e+":")
				}
			}
			and.And = append(slices.Clone(and.And), search.CriterionInput{Field: search.FieldURN, Values: prefixes, Condition: "START_WITH"})
		}
		out.Or = append(out.Or, and)
	}
	return kept, out
}

// entityNameOf is the registry name of an EntityType symbol, or the value
// as it is (a registry name already).
func entityNameOf(v string) string {
	if n, ok := entityNames[model.EntityType(strings.ToUpper(v))]; ok {
		return n
	}
	return v
}

func (r *Resolver) searchService() (*search.Service, error) {
	if r.search == nil {
		return nil, catalog.Errorf(catalog.Unavailable, "search is not available")
	}
	return r.search, nil
}

// entityNamesOf maps GraphQL entity types to registry names; none means the
// searchable types.
func entityNamesOf(types []model.EntityType) ([]string, error) {
	if len(types) == 0 {
		return searchableTypes, nil
	}
	out := make([]string, 0, len(types))
	for _, t := range types {
		n, ok := entityNames[t]
		if !ok {
			return nil, invalidf("entity type %s cannot be searched", t)
		}
		out = append(out, n)
	}
	return out, nil
}

// filterOf turns GraphQL facet filters into the search service's filter:
// orFilters as they are, the older flat filters as one conjunction.
func filterOf(flat []*model.FacetFilterInput, or []*model.AndFilterInput) *search.FilterInput {
	criterion := func(f *model.FacetFilterInput) search.CriterionInput {
		c := search.CriterionInput{Field: f.Field, Value: f.Value, Values: f.Values, Negated: deref(f.Negated)}
		if f.Condition != nil {
			c.Condition = string(*f.Condition)
		}
		return c
	}
	var out search.FilterInput
	for _, g := range or {
		if g == nil {
			continue
		}
		var and search.ConjunctionInput
		for _, f := range g.And {
			and.And = append(and.And, criterion(f))
		}
		out.Or = append(out.Or, and)
	}
	if len(out.Or) == 0 && len(flat) > 0 {
		var and search.ConjunctionInput
		for _, f := range flat {
			and.And = append(and.And, criterion(f))
		}
		out.Or = []search.ConjunctionInput{and}
	}
	if len(out.Or) == 0 {
		return nil
	}
	return &out
}

// Search searches one entity type.
func (r *queryResolver) Search(ctx context.Context, in model.SearchInput) (*model.SearchResults, error) {
	ents, err := entityNamesOf([]model.EntityType{in.Type})
	if err != nil {
		return nil, err
	}
	return r.runSearch(ctx, searchSpec{ents: ents, query: in.Query, filter: filterOf(in.Filters, in.OrFilters), flags: in.SearchFlags, start: in.Start, count: in.Count})
}

// SearchAcrossEntities searches several entity types at once.
func (r *queryResolver) SearchAcrossEntities(ctx context.Context, in model.SearchAcrossEntitiesInput) (*model.SearchResults, error) {
	ents, err := entityNamesOf(in.Types)
	if err != nil {
		return nil, err
	}
	if err := checkSort(in.SortInput); err != nil {
		return nil, err
	}
	return r.runSearch(ctx, searchSpec{ents: ents, query: in.Query, filter: filterOf(in.Filters, in.OrFilters), viewURN: in.ViewUrn,
		flags: in.SearchFlags, start: in.Start, count: in.Count, sort: in.SortInput})
}

// searchSpec is a GraphQL search as its input asks it.
type searchSpec struct {
	ents         []string
	query        string
	filter       *search.FilterInput
	viewURN      *string
	flags        *model.SearchFlags
	start, count *int
	facets       []string // nil: the default facets
	sort         *model.SearchSortInput
}

// preparedSearch is a search with its view applied and its entity type
// criteria turned into entity types.
type preparedSearch struct {
	ents   []string
	query  string
	filter *search.FilterInput // for the engine
	asked  *search.FilterInput // the client's and the view's, as sent
	flags  searchFlags
}

// prepare applies the view, the flags and the entity type criteria of a
// search; no entity types left means nothing can match.
func (r *Resolver) prepare(ctx context.Context, sp searchSpec) (preparedSearch, error) {
	flags, err := flagsOf(sp.flags)
	if err != nil {
		return preparedSearch{}, err
	}
	ents, filter, err := r.applyView(ctx, sp.viewURN, sp.ents, sp.filter)
	if err != nil {
		return preparedSearch{}, err
	}
	out := preparedSearch{query: sp.query, asked: filter, flags: flags}
	if filter, err = r.resolveBrowsePaths(ctx, ents, filter); err != nil {
		return preparedSearch{}, err
	}
	if flags.includeSoftDeleted {
		filter = withSoftDeleted(filter)
	}
	out.ents, out.filter = narrowByEntityType(ents, filter)
	if svc, err := r.searchService(); err == nil && len(out.ents) > 0 && flags.filterNonLatestVersions && svc.HasField(out.ents, isLatestField) {
		out.filter = withLatestVersions(out.filter)
	}
	return out, nil
}

func (r *Resolver) runSearch(ctx context.Context, sp searchSpec) (*model.SearchResults, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	s, c := page(sp.start, sp.count, 10)
	ps, err := r.prepare(ctx, sp)
	if err != nil {
		return nil, err
	}
	empty := &model.SearchResults{Start: s, SearchResults: []*model.SearchResult{}, Facets: []*model.FacetMetadata{}, Suggestions: []*model.SearchSuggestion{}}
	if len(ps.ents) == 0 {
		return empty, nil
	}
	want := facetRequest{want: sp.facets}
	params := search.SearchParams{Entities: ps.ents, Input: ps.query, Filter: ps.filter, Start: s, Count: c,
		NoFacets: ps.flags.skipAggregates, Facets: sp.facets,
		EntityCounts: !ps.flags.skipAggregates && len(ps.ents) > 1 && (want.wants(entityTypeField) || want.wants(entitySubTypeFacet))}
	crits := sortCriteria(sp.sort)
	sorting := len(crits) > 0 && c > 0
	if sorting {
		params.Start, params.Count = 0, search.MaxPageSize
	}
	res, err := svc.Search(ctx, params)
	if err != nil {
		return nil, err
	}
	if sorting {
		sorted, err := r.sortHits(ctx, res.Hits, crits)
		if err != nil {
			return nil, err
		}
		res.Hits = window(sorted, s, c)
	}
	out := &model.SearchResults{Start: s, Count: len(res.Hits), Total: res.Total, SearchResults: make([]*model.SearchResult, 0, len(res.Hits))}
	urns := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		e := model.EntityOf(h.URN)
		if e == nil {
			continue
		}
		urns = append(urns, h.URN)
		mf := matchedFields(h.MatchedFields)
		if ps.flags.skipHighlighting {
			mf = []*model.MatchedField{}
		}
		out.SearchResults = append(out.SearchResults, &model.SearchResult{Entity: e, MatchedFields: mf})
	}
	out.Count = len(out.SearchResults)
	out.Facets, out.Suggestions = []*model.FacetMetadata{}, []*model.SearchSuggestion{}
	if !ps.flags.skipAggregates {
		fr := facetRequest{ents: ps.ents, query: ps.query, filter: ps.filter, asked: ps.asked, want: sp.facets, flags: ps.flags}
		if out.Facets, err = r.buildFacets(ctx, fr, res); err != nil {
			return nil, err
		}
	}
	if ps.flags.getSuggestions && res.Total == 0 {
		if out.Suggestions, err = r.suggestions(ctx, ps.ents, ps.query); err != nil {
			return nil, err
		}
	}
	r.loaderOf(ctx).prime(ctx, urns)
	return out, nil
}

func matchedFields(in []catalog.MatchedField) []*model.MatchedField {
	out := make([]*model.MatchedField, len(in))
	for i, m := range in {
		out[i] = &model.MatchedField{Name: m.Name, Value: m.Value}
	}
	return out
}

// facets lists facet counts in the given field order, values by
// descending count then value, each facet named as DataHub shows it for
// the entity types ents.
func facets(svc *search.Service, ents, fields []string, counts map[string]map[string]int) []*model.FacetMetadata {
	out := make([]*model.FacetMetadata, 0, len(fields))
	for _, f := range fields {
		name, ok := facetDisplayNames[f]
		if !ok {
			name = svc.FacetDisplayName(ents, f)
		}
		out = append(out, &model.FacetMetadata{Field: f, DisplayName: ptr(name), Aggregations: aggregations(counts[f])})
	}
	return out
}

// AutoComplete suggests completions of a prefix for one entity type.
func (r *queryResolver) AutoComplete(ctx context.Context, in model.AutoCompleteInput) (*model.AutoCompleteResults, error) {
	var types []model.EntityType
	if in.Type != nil {
		types = []model.EntityType{*in.Type}
	}
	ents, err := entityNamesOf(types)
	if err != nil {
		return nil, err
	}
	sugg, ents2, err := r.autocomplete(ctx, ents, in.Query, in.Field, filterOf(in.Filters, in.OrFilters), in.Limit)
	if err != nil {
		return nil, err
	}
	return &model.AutoCompleteResults{Query: in.Query, Suggestions: sugg, Entities: ents2}, nil
}

// autoCompleteTypes are the entity types autocompleted when none is named,
// DataHub's.
var autoCompleteTypes = []string{"dataset", "dashboard", "chart", "container", "mlModel", "mlModelGroup", "mlFeatureTable",
	"dataFlow", "dataJob", "glossaryTerm", "tag", "corpuser", "corpGroup", "notebook", "dataProduct", "domain",
	"businessAttribute", "application"}

// AutoCompleteForMultiple suggests completions per entity type, within the
// view named if any.
func (r *queryResolver) AutoCompleteForMultiple(ctx context.Context, in model.AutoCompleteMultipleInput) (*model.AutoCompleteMultipleResults, error) {
	ents := autoCompleteTypes
	if len(in.Types) > 0 {
		var err error
		if ents, err = entityNamesOf(in.Types); err != nil {
			return nil, err
		}
	}
	ents, filter, err := r.applyView(ctx, in.ViewUrn, ents, filterOf(in.Filters, in.OrFilters))
	if err != nil {
		return nil, err
	}
	out := &model.AutoCompleteMultipleResults{Query: in.Query, Suggestions: []*model.AutoCompleteResultForEntity{}}
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	// One autocomplete per type, as DataHub answers each type's own
	// suggestions; they run a few at a time, each a query of its own.
	results := make([]*model.AutoCompleteResultForEntity, len(ents))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(entityTypeCountWorkers)
	for i, e := range ents {
		one, f := narrowByEntityType([]string{e}, filter)
		if len(one) == 0 {
			continue
		}
		f, none := filterFor(svc, e, f)
		if none {
			continue
		}
		g.Go(func() error {
			sugg, es, err := r.autocomplete(gctx, one, in.Query, in.Field, f, in.Limit)
			if err == nil && len(sugg) > 0 {
				results[i] = &model.AutoCompleteResultForEntity{Type: model.EntityTypes[e], Suggestions: sugg, Entities: es}
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, res := range results {
		if res != nil {
			out.Suggestions = append(out.Suggestions, res)
		}
	}
	return out, nil
}

func (r *Resolver) autocomplete(ctx context.Context, ents []string, query string, field *string, f *search.FilterInput, limit *int) ([]string, []model.Entity, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, nil, err
	}
	_, n := page(nil, limit, 10)
	res, err := svc.Autocomplete(ctx, search.AutocompleteParams{Entities: ents, Query: query, Field: deref(field), Filter: f, Limit: n})
	if err != nil {
		return nil, nil, err
	}
	sugg := make([]string, 0, len(res))
	urns := make([]string, 0, len(res))
	seen := map[string]bool{}
	for _, s := range res {
		if !seen[s.Text] {
			seen[s.Text] = true
			sugg = append(sugg, s.Text)
		}
		urns = append(urns, s.URN)
	}
	r.loaderOf(ctx).prime(ctx, urns)
	return sugg, entitiesOf(urns), nil
}

// Browse lists the groups and entities at a browse path.
func (r *queryResolver) Browse(ctx context.Context, in model.BrowseInput) (*model.BrowseResults, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	name, ok := entityNames[in.Type]
	if !ok {
		return nil, invalidf("entity type %s cannot be browsed", in.Type)
	}
	s, c := page(in.Start, in.Count, 10)
	path := "/" + strings.Join(in.Path, "/")
	res, err := svc.Browse(ctx, search.BrowseParams{Entity: name, Path: path, Filter: filterOf(in.Filters, in.OrFilters), Start: s, Limit: c})
	if err != nil {
		return nil, err
	}
	out := &model.BrowseResults{
		Entities: entitiesOf(res.URNs), Groups: make([]*model.BrowseResultGroup, len(res.Groups)),
		Start: s, Count: c, Total: res.NumEntities,
		Metadata: &model.BrowseResultMetadata{Path: in.Path, TotalNumEntities: int64(res.Total)},
	}
	if out.Metadata.Path == nil {
		out.Metadata.Path = []string{}
	}
	for i, g := range res.Groups {
		out.Groups[i] = &model.BrowseResultGroup{Name: g.Name, Count: int64(g.Count)}
	}
	r.loaderOf(ctx).prime(ctx, res.URNs)
	return out, nil
}

// BrowsePaths returns the browse paths of an entity.
func (r *queryResolver) BrowsePaths(ctx context.Context, in model.BrowsePathsInput) ([]*model.BrowsePath, error) {
	b, err := aspectOf[models.BrowsePaths](ctx, r.loaderOf(ctx), in.Urn, "browsePaths")
	if err != nil || b == nil {
		return []*model.BrowsePath{}, err
	}
	out := make([]*model.BrowsePath, len(b.Paths))
	for i, p := range b.Paths {
		out[i] = &model.BrowsePath{Path: splitPath(p)}
	}
	return out, nil
}

// list searches one entity type for the list queries.
func (r *Resolver) list(ctx context.Context, entity string, query *string, start, count *int) ([]string, int, int, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, 0, 0, err
	}
	s, c := page(start, count, 20)
	q := deref(query)
	if q == "" {
		q = "*"
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: []string{entity}, Input: q, Start: s, Count: c})
	if err != nil {
		return nil, 0, 0, err
	}
	urns := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		urns[i] = h.URN
	}
	r.loaderOf(ctx).prime(ctx, urns)
	return urns, s, res.Total, nil
}

// ListUsers lists users, optionally matching a query.
func (r *queryResolver) ListUsers(ctx context.Context, in model.ListUsersInput) (*model.ListUsersResult, error) {
	urns, s, total, err := r.list(ctx, "corpuser", in.Query, in.Start, in.Count)
	if err != nil {
		return nil, err
	}
	out := &model.ListUsersResult{Start: s, Count: len(urns), Total: total, Users: make([]*model.CorpUser, len(urns))}
	for i, u := range urns {
		out.Users[i] = &model.CorpUser{Urn: u}
	}
	return out, nil
}

// ListGroups lists groups, optionally matching a query.
func (r *queryResolver) ListGroups(ctx context.Context, in model.ListGroupsInput) (*model.ListGroupsResult, error) {
	urns, s, total, err := r.list(ctx, "corpGroup", in.Query, in.Start, in.Count)
	if err != nil {
		return nil, err
	}
	out := &model.ListGroupsResult{Start: s, Count: len(urns), Total: total, Groups: make([]*model.CorpGroup, len(urns))}
	for i, u := range urns {
		out.Groups[i] = &model.CorpGroup{Urn: u}
	}
	return out, nil
}

// ListDomains lists domains, optionally matching a query.
func (r *queryResolver) ListDomains(ctx context.Context, in model.ListDomainsInput) (*model.ListDomainsResult, error) {
	urns, s, total, err := r.list(ctx, "domain", in.Query, in.Start, in.Count)
	if err != nil {
		return nil, err
	}
	out := &model.ListDomainsResult{Start: s, Count: len(urns), Total: total, Domains: make([]*model.Domain, len(urns))}
	for i, u := range urns {
		out.Domains[i] = &model.Domain{Urn: u}
	}
	return out, nil
}
