package graphql

import (
	"context"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
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

// narrowByEntityType takes the _entityType criteria out of filter and
// narrows ents by them: a conjunction keeps the types its criteria allow,
// and the search covers the types some conjunction keeps.
func narrowByEntityType(ents []string, filter *search.FilterInput) ([]string, *search.FilterInput) {
	if filter == nil {
		return ents, nil
	}
	keep := map[string]bool{}
	narrowed := false
	out := &search.FilterInput{Or: make([]search.ConjunctionInput, 0, len(filter.Or))}
	for _, and := range filter.Or {
		allowed := map[string]bool{}
		for _, e := range ents {
			allowed[e] = true
		}
		var rest search.ConjunctionInput
		for _, c := range and.And {
			if strings.TrimSuffix(c.Field, ".keyword") != entityTypeField {
				rest.And = append(rest.And, c)
				continue
			}
			narrowed = true
			named := map[string]bool{}
			values := c.Values
			if c.Value != nil {
				values = append(values, *c.Value)
			}
			for _, v := range values {
				if n, ok := entityNames[model.EntityType(strings.ToUpper(v))]; ok {
					named[n] = true
				} else {
					named[v] = true
				}
			}
			for e := range allowed {
				if named[e] == c.Negated {
					delete(allowed, e)
				}
			}
		}
		for e := range allowed {
			keep[e] = true
		}
		out.Or = append(out.Or, rest)
	}
	if !narrowed {
		return ents, filter
	}
	kept := make([]string, 0, len(keep))
	for _, e := range ents {
		if keep[e] {
			kept = append(kept, e)
		}
	}
	return kept, out
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
	return r.runSearch(ctx, ents, in.Query, filterOf(in.Filters, in.OrFilters), in.Start, in.Count)
}

// SearchAcrossEntities searches several entity types at once.
func (r *queryResolver) SearchAcrossEntities(ctx context.Context, in model.SearchAcrossEntitiesInput) (*model.SearchResults, error) {
	ents, err := entityNamesOf(in.Types)
	if err != nil {
		return nil, err
	}
	return r.runSearch(ctx, ents, in.Query, filterOf(in.Filters, in.OrFilters), in.Start, in.Count)
}

func (r *Resolver) runSearch(ctx context.Context, ents []string, query string, filter *search.FilterInput, start, count *int) (*model.SearchResults, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	s, c := page(start, count, 10)
	if ents, filter = narrowByEntityType(ents, filter); len(ents) == 0 {
		return &model.SearchResults{Start: s, SearchResults: []*model.SearchResult{}}, nil
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: ents, Input: query, Filter: filter, Start: s, Count: c})
	if err != nil {
		return nil, err
	}
	out := &model.SearchResults{Start: s, Count: len(res.Hits), Total: res.Total, SearchResults: make([]*model.SearchResult, 0, len(res.Hits))}
	urns := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		e := model.EntityOf(h.URN)
		if e == nil {
			continue
		}
		urns = append(urns, h.URN)
		out.SearchResults = append(out.SearchResults, &model.SearchResult{Entity: e, MatchedFields: matchedFields(h.MatchedFields)})
	}
	out.Count = len(out.SearchResults)
	out.Facets = facets(res.Facets, res.SearchResult.Facets)
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

// facets lists the facet counts in the service's field order, values by
// descending count then value.
func facets(fields []string, counts map[string]map[string]int) []*model.FacetMetadata {
	out := make([]*model.FacetMetadata, 0, len(fields))
	for _, f := range fields {
		vals := counts[f]
		aggs := make([]*model.AggregationMetadata, 0, len(vals))
		for v, n := range vals {
			aggs = append(aggs, &model.AggregationMetadata{Value: v, Count: int64(n), Entity: model.EntityOf(v)})
		}
		sort.Slice(aggs, func(i, j int) bool {
			if aggs[i].Count != aggs[j].Count {
				return aggs[i].Count > aggs[j].Count
			}
			return aggs[i].Value < aggs[j].Value
		})
		out = append(out, &model.FacetMetadata{Field: f, DisplayName: ptr(f), Aggregations: aggs})
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

// AutoCompleteForMultiple suggests completions per entity type.
func (r *queryResolver) AutoCompleteForMultiple(ctx context.Context, in model.AutoCompleteMultipleInput) (*model.AutoCompleteMultipleResults, error) {
	types := in.Types
	if len(types) == 0 {
		for _, n := range searchableTypes {
			types = append(types, model.EntityTypes[n])
		}
	}
	out := &model.AutoCompleteMultipleResults{Query: in.Query, Suggestions: []*model.AutoCompleteResultForEntity{}}
	for _, t := range types {
		ents, err := entityNamesOf([]model.EntityType{t})
		if err != nil {
			return nil, err
		}
		sugg, es, err := r.autocomplete(ctx, ents, in.Query, in.Field, filterOf(in.Filters, in.OrFilters), in.Limit)
		if err != nil {
			return nil, err
		}
		if len(sugg) > 0 {
			out.Suggestions = append(out.Suggestions, &model.AutoCompleteResultForEntity{Type: t, Suggestions: sugg, Entities: es})
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
