package graphql

import (
	"context"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// This file holds how searches answer facets, as DataHub's search service
// does: the default facets are the filter fields of the entity types
// searched plus the entity type (_entityType) and the entity type with its
// sub types (_entityType␞typeNames), each with DataHub's display name, the
// values a filter asks for kept even when nothing holds them, and at most
// maxAggValues values per facet.

// facetSeparator joins the fields of a nested facet and the values of its
// buckets, as DataHub does.
const facetSeparator = "␞"

// entitySubTypeFacet is the nested facet of entity types and their sub types.
const entitySubTypeFacet = entityTypeField + facetSeparator + "typeNames"

// defaultMaxAggValues is DataHub's default of searchFlags.maxAggValues.
const defaultMaxAggValues = 20

// facetOrder is the order in which the web app lists the facets it knows;
// the others follow by field name, structured properties last.
var facetOrder = []string{
	entityTypeField, entitySubTypeFacet, "platform", "owners", "tags", "glossaryTerms", "domains", "fieldTags",
	"fieldGlossaryTerms", "fieldPaths", "fieldDescriptions", "description", "container", "removed", "typeNames",
	"origin", "degree",
}

// facetDisplayNames are the display names DataHub gives the facets no
// annotation names.
var facetDisplayNames = map[string]string{entityTypeField: "Type", "typeNames": "Sub Type"}

// facetRank orders facet fields: the known ones first, structured
// properties last.
func facetRank(f string) int {
	if i := slices.Index(facetOrder, f); i >= 0 {
		return i
	}
	if strings.HasPrefix(f, "structuredProperties.") {
		return len(facetOrder) + 1
	}
	return len(facetOrder)
}

// searchFlags are the searchFlags of a GraphQL search input with DataHub's
// defaults.
type searchFlags struct {
	maxAggValues       int
	skipAggregates     bool
	skipHighlighting   bool
	includeSoftDeleted bool
	getSuggestions     bool
	// filterNonLatestVersions leaves out the versions of versioned
	// entities that are not the latest.
	filterNonLatestVersions bool
}

func flagsOf(in *model.SearchFlags) (searchFlags, error) {
	out := searchFlags{maxAggValues: defaultMaxAggValues, filterNonLatestVersions: true}
	if in == nil {
		return out, nil
	}
	if in.FilterNonLatestVersions != nil {
		out.filterNonLatestVersions = *in.FilterNonLatestVersions
	}
	if in.MaxAggValues != nil {
		if *in.MaxAggValues < 0 {
			return out, invalidf("searchFlags.maxAggValues %d must not be negative", *in.MaxAggValues)
		}
		out.maxAggValues = *in.MaxAggValues
	}
	out.skipAggregates = deref(in.SkipAggregates)
	out.skipHighlighting = deref(in.SkipHighlighting)
	out.includeSoftDeleted = deref(in.IncludeSoftDeleted)
	out.getSuggestions = deref(in.GetSuggestions)
	return out, nil
}

// withSoftDeleted widens a filter to soft-deleted entities too: naming the
// removed field in every conjunction lets the engines return them.
func withSoftDeleted(f *search.FilterInput) *search.FilterInput {
	both := search.CriterionInput{Field: search.FieldRemoved, Values: []string{"true", "false"}, Condition: "EQUAL"}
	if f == nil || len(f.Or) == 0 {
		return &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{both}}}}
	}
	out := &search.FilterInput{}
	for _, g := range f.Or {
		out.Or = append(out.Or, search.ConjunctionInput{And: append(append([]search.CriterionInput(nil), g.And...), both)})
	}
	return out
}

// isLatestField is the search field of versionProperties.isLatest.
const isLatestField = "isLatest"

// withLatestVersions keeps, in every conjunction, the entities that are not
// versioned or are their latest version.
func withLatestVersions(f *search.FilterInput) *search.FilterInput {
	notOld := search.CriterionInput{Field: isLatestField, Values: []string{"false"}, Condition: "EQUAL", Negated: true}
	if f == nil || len(f.Or) == 0 {
		return &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{notOld}}}}
	}
	out := &search.FilterInput{}
	for _, g := range f.Or {
		out.Or = append(out.Or, search.ConjunctionInput{And: append(slices.Clone(g.And), notOld)})
	}
	return out
}

// facetRequest is what facets a search answers with.
type facetRequest struct {
	ents   []string
	query  string
	filter *search.FilterInput // after entity type narrowing
	asked  *search.FilterInput // as the client sent it, for the values it names
	want   []string            // nil: the default facets
	flags  searchFlags
}

func (fr facetRequest) wants(f string) bool {
	return fr.want == nil || slices.Contains(fr.want, f)
}

// buildFacets answers the facets of a search from the service's counts of
// the filter fields, adding the entity type facets.
func (r *Resolver) buildFacets(ctx context.Context, fr facetRequest, res search.SearchResponse) ([]*model.FacetMetadata, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	out := []*model.FacetMetadata{}
	for _, f := range res.Facets {
		if !fr.wants(f) {
			continue
		}
		vals := res.SearchResult.Facets[f]
		if len(vals) == 0 {
			continue // DataHub leaves out a facet no hit holds
		}
		m := &model.FacetMetadata{Field: f, DisplayName: ptr(svc.FacetDisplayName(fr.ents, f)), Aggregations: aggregations(vals)}
		if f == "typeNames" {
			m.DisplayName = ptr(facetDisplayNames[f])
		}
		out = append(out, m)
	}
	if fr.wants(entityTypeField) || fr.wants(entitySubTypeFacet) {
		types, nested, err := r.entityTypeCounts(ctx, fr, res)
		if err != nil {
			return nil, err
		}
		if fr.wants(entityTypeField) {
			out = append(out, &model.FacetMetadata{Field: entityTypeField, DisplayName: ptr("Type"), Aggregations: aggregations(types)})
		}
		if fr.wants(entitySubTypeFacet) && len(nested) > 0 {
			out = append(out, &model.FacetMetadata{Field: entitySubTypeFacet, DisplayName: ptr("Type" + facetSeparator + "Sub Type"), Aggregations: aggregations(nested)})
		}
	}
	addFilterValues(svc, fr, &out)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := facetRank(out[i].Field), facetRank(out[j].Field)
		if ri != rj {
			return ri < rj
		}
		return ri >= len(facetOrder) && out[i].Field < out[j].Field
	})
	for _, m := range out {
		if fr.flags.maxAggValues < len(m.Aggregations) {
			m.Aggregations = m.Aggregations[:fr.flags.maxAggValues]
		}
	}
	return out, nil
}

// aggregations lists facet values by descending count, then value.
func aggregations(vals map[string]int) []*model.AggregationMetadata {
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
	return aggs
}

// entityTypeCounts counts the hits of each entity type searched that has
// some and those of each of its sub types: "DATASET" and "DATASET␞View".
// The search's own counts serve when the engine counted each type's hits
// (res.EntityCounts); otherwise the types are searched one by one,
// concurrently, a few at a time.
func (r *Resolver) entityTypeCounts(ctx context.Context, fr facetRequest, res search.SearchResponse) (map[string]int, map[string]int, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, nil, err
	}
	type count struct {
		n    int
		subs map[string]int
	}
	counts := make([]count, len(fr.ents))
	// Which types to search one by one, when the search itself did not
	// count each type's hits (or, when one type has them all, its sub types).
	var each []int
	switch {
	case len(fr.ents) == 1 || res.EntityCounts != nil:
		var hit []int
		for i, e := range fr.ents {
			n := res.Total
			if len(fr.ents) > 1 {
				n = res.EntityCounts[e]
			}
			if n > 0 {
				counts[i].n = n
				hit = append(hit, i)
			}
		}
		if len(hit) == 1 {
			counts[hit[0]].subs = res.SearchResult.Facets["typeNames"]
		}
		if fr.wants(entitySubTypeFacet) && (len(hit) > 1 || len(hit) == 1 && counts[hit[0]].subs == nil) {
			each = hit
		}
	default:
		each = make([]int, len(fr.ents))
		for i := range each {
			each[i] = i
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(entityTypeCountWorkers)
	for _, i := range each {
		g.Go(func() error {
			f, none := filterFor(svc, fr.ents[i], fr.filter)
			if none {
				return nil
			}
			p := search.SearchParams{Entities: []string{fr.ents[i]}, Input: fr.query, Filter: f, NoFacets: true}
			if fr.wants(entitySubTypeFacet) {
				p.NoFacets, p.Facets = false, []string{"typeNames"}
			}
			one, err := svc.Search(gctx, p)
			if err != nil {
				return err
			}
			counts[i] = count{one.Total, one.SearchResult.Facets["typeNames"]}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	types, nested := map[string]int{}, map[string]int{}
	for i, e := range fr.ents {
		t, c := string(model.EntityTypes[e]), counts[i]
		if c.n > 0 {
			types[t], nested[t] = c.n, c.n
		}
		for s, n := range c.subs {
			nested[t+facetSeparator+s] = n
		}
	}
	return types, nested, nil
}

// filterFor is a filter of a search across entity types as it applies to
// one of them: a criterion on a field the type lacks holds for none of its
// entities, negated for all of them. none reports that no entity of the
// type can match.
func filterFor(svc *search.Service, entity string, f *search.FilterInput) (out *search.FilterInput, none bool) {
	if f == nil || len(f.Or) == 0 {
		return f, false
	}
	out = &search.FilterInput{}
	for _, g := range f.Or {
		and, holds := search.ConjunctionInput{}, true
		for _, c := range g.And {
			switch {
			case svc.HasField([]string{entity}, c.Field):
				and.And = append(and.And, c)
			case !c.Negated:
				holds = false
			}
		}
		if holds {
			out.Or = append(out.Or, and)
		}
	}
	return out, len(out.Or) == 0
}

// entityTypeCountWorkers bounds the entity type counts run at once.
const entityTypeCountWorkers = 4

// addFilterValues adds, as DataHub does, the values the client filters by
// that no hit holds, with count 0, so that the app can show them selected.
func addFilterValues(svc *search.Service, fr facetRequest, out *[]*model.FacetMetadata) {
	if fr.asked == nil {
		return
	}
	for _, g := range fr.asked.Or {
		for _, c := range g.And {
			field := strings.TrimSuffix(c.Field, ".keyword")
			if field == search.FieldURN || field == browsePathV2Field || !fr.wants(field) {
				continue
			}
			vals := c.Values
			if len(vals) == 0 && c.Value != nil {
				vals = []string{*c.Value}
			}
			var m *model.FacetMetadata
			for _, x := range *out {
				if x.Field == field {
					m = x
				}
			}
			if m == nil {
				name := svc.FacetDisplayName(fr.ents, field)
				if n, ok := facetDisplayNames[field]; ok {
					name = n
				}
				m = &model.FacetMetadata{Field: field, DisplayName: ptr(name), Aggregations: []*model.AggregationMetadata{}}
				*out = append(*out, m)
			}
			for _, v := range vals {
				if !slices.ContainsFunc(m.Aggregations, func(a *model.AggregationMetadata) bool { return a.Value == v }) {
					m.Aggregations = append(m.Aggregations, &model.AggregationMetadata{Value: v, Count: 0, Entity: model.EntityOf(v)})
				}
			}
		}
	}
}
