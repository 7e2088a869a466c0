package graphql

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graph"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// degreeField is the pseudo filter and facet field of lineage searches:
// the distance of a result, as "1", "2" or "3+".
const degreeField = "degree"

// degreeValues are the degree facet's values, in DataHub's order.
var degreeValues = []string{"1", "2", "3+"}

func lineageDirection(d model.LineageDirection) graph.Direction {
	if d == model.LineageDirectionDownstream {
		return graph.Downstream
	}
	return graph.Upstream
}

func (r *Resolver) lineageService() (*graph.Service, error) {
	if r.lineage == nil {
		return nil, catalog.Errorf(catalog.Unavailable, "lineage is not available")
	}
	return r.lineage, nil
}

// timeBounds applies DataHub's rule for lineage time bounds: edges are
// bounded only when a start is given, the end then defaulting to now.
func timeBounds(q *graph.Query, start, end *int64) {
	if start == nil {
		return
	}
	q.StartTimeMillis = *start
	q.EndTimeMillis = time.Now().UnixMilli()
	if end != nil {
		q.EndTimeMillis = *end
	}
}

// Lineage resolves the direct upstreams or downstreams of the entity, as
// DataHub's lineage field does: unless separateSiblings, the lineage of the
// entity's siblings is merged in (the siblings themselves left out, and a
// result that is not the primary of its siblings left out when a sibling of
// it is in the result too); unless includeGhostEntities, entities of the
// page that do not exist or are soft-deleted are left out. total counts
// what was found and filtered what was left out, as in DataHub.
func (r *computed) Lineage(ctx context.Context, obj model.Entity, in model.LineageInput) (*model.EntityLineageResult, error) {
	svc, err := r.lineageService()
	if err != nil {
		return nil, err
	}
	urn := obj.EntityURN()
	q := graph.Query{URN: urn, Direction: lineageDirection(in.Direction), MaxHops: 1}
	timeBounds(&q, in.StartTimeMillis, in.EndTimeMillis)
	nodes, err := svc.Walk(ctx, q)
	if err != nil {
		return nil, err
	}
	l := r.loaderOf(ctx)
	filtered := 0
	if !deref(in.SeparateSiblings) {
		if nodes, filtered, err = r.mergeSiblingLineage(ctx, svc, q, nodes); err != nil {
			return nil, err
		}
	}
	kept := nodes[:0:0]
	for _, n := range nodes {
		if model.EntityOf(n.URN) != nil {
			kept = append(kept, n)
		} else {
			filtered++
		}
	}
	start, count := page(in.Start, in.Count, 100)
	total := len(kept) + filtered
	shown := window(kept, start, count)
	if !deref(in.IncludeGhostEntities) {
		// As DataHub does, only the page is checked: the lineage of a
		// dataset with 10,000 upstreams lists 1,000 of them, and looking
		// up all 10,000 cost most of its time. The pages still fit
		// together, each leaving out its own ghosts.
		live, err := r.live(ctx, nodeURNs(shown))
		if err != nil {
			return nil, err
		}
		alive := shown[:0:0]
		for _, n := range shown {
			if live[n.URN] {
				alive = append(alive, n)
			} else {
				filtered++
			}
		}
		shown = alive
	}
	out := &model.EntityLineageResult{Start: &start, Count: ptr(len(shown)), Total: &total, Filtered: &filtered,
		Relationships: make([]*model.LineageRelationship, 0, len(shown))}
	urns := make([]string, 0, len(shown))
	for _, n := range shown {
		urns = append(urns, n.URN)
		out.Relationships = append(out.Relationships, lineageRelationship(n))
	}
	l.Want(urns...)
	return out, nil
}

func lineageRelationship(n graph.LineageNode) *model.LineageRelationship {
	created, updated, manual := n.Stamps()
	rel := &model.LineageRelationship{Type: n.Relationship, Entity: model.EntityOf(n.URN), Degree: n.Hops,
		IsManual: ptr(manual), Paths: entityPaths(n.Paths)}
	if created.Time > 0 {
		rel.CreatedOn = ptr(created.Time)
	}
	if created.Actor != "" {
		rel.CreatedActor = model.EntityOf(created.Actor)
	}
	if updated.Time > 0 {
		rel.UpdatedOn = ptr(updated.Time)
	}
	if updated.Actor != "" {
		rel.UpdatedActor = model.EntityOf(updated.Actor)
	}
	return rel
}

func entityPaths(paths [][]string) []*model.EntityPath {
	out := make([]*model.EntityPath, len(paths))
	for i, p := range paths {
		out[i] = &model.EntityPath{Path: entitiesOf(p)}
	}
	return out
}

func nodeURNs(nodes []graph.LineageNode) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.URN
	}
	return out
}

// mergeSiblingLineage merges into nodes, the one-hop lineage of q.URN, the
// lineage of the entity's siblings (from its siblings aspect), with the
// number of results it left out.
func (r *Resolver) mergeSiblingLineage(ctx context.Context, svc *graph.Service, q graph.Query, nodes []graph.LineageNode) ([]graph.LineageNode, int, error) {
	l := r.loaderOf(ctx)
	sib, err := aspectOf[models.Siblings](ctx, l, q.URN, "siblings")
	if err != nil || sib == nil || len(sib.Siblings) == 0 {
		return nodes, 0, err
	}
	group := map[string]bool{q.URN: true}
	for _, s := range sib.Siblings {
		group[s] = true
	}
	filtered := 0
	seen := map[string]bool{}
	var merged []graph.LineageNode
	add := func(ns []graph.LineageNode) {
		for _, n := range ns {
			if group[n.URN] || seen[n.URN] {
				filtered++
				continue
			}
			seen[n.URN] = true
			merged = append(merged, n)
		}
	}
	add(nodes)
	for _, s := range sib.Siblings {
		if s == q.URN {
			continue
		}
		sq := q
		sq.URN = s
		more, err := svc.Walk(ctx, sq)
		if err != nil {
			return nil, 0, err
		}
		add(more)
	}
	// A result that is not the primary of its siblings gives way to a
	// sibling of it that is in the result too.
	l.prime(ctx, nodeURNs(merged))
	kept := merged[:0:0]
	for _, n := range merged {
		s, err := aspectOf[models.Siblings](ctx, l, n.URN, "siblings")
		if err != nil {
			return nil, 0, err
		}
		if s != nil && !s.Primary && slices.ContainsFunc(s.Siblings, func(u string) bool { return seen[u] }) {
			filtered++
			continue
		}
		kept = append(kept, n)
	}
	return kept, filtered, nil
}

// live reports, of urns, those that exist and are not soft-deleted. A
// field (schemaField) that has no aspect of its own lives with its parent,
// whose schema holds it. An entity exists when its key aspect is stored
// (ingest writes it with the first aspect), so only key and status aspects
// are read, not every aspect of each.
func (r *Resolver) live(ctx context.Context, urns []string) (map[string]bool, error) {
	names := []string{"status"}
	for _, u := range urns {
		if e := r.reg.Entity(urnType(u)); e != nil && !slices.Contains(names, e.KeyAspect) {
			names = append(names, e.KeyAspect)
		}
	}
	stored, err := r.store.LatestAspects(ctx, urns, names)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(urns))
	var fields []string
	for _, u := range urns {
		as := stored[u]
		if len(as) == 0 {
			if urnType(u) == "schemaField" {
				fields = append(fields, u)
			}
			continue
		}
		alive := true
		for _, a := range as {
			if a.Name != "status" {
				continue
			}
			var st models.Status
			if err := jsonUnmarshal(a.Value, &st); err != nil {
				return nil, err
			}
			alive = !deref(st.Removed)
		}
		out[u] = alive
	}
	if len(fields) > 0 {
		parents := make([]string, 0, len(fields))
		for _, f := range fields {
			if p, err := catalog.ParseURN(f); err == nil && len(p.Parts()) == 2 {
				parents = append(parents, p.Parts()[0])
			}
		}
		lp, err := r.live(ctx, parents)
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			if p, err := catalog.ParseURN(f); err == nil && len(p.Parts()) == 2 {
				out[f] = lp[p.Parts()[0]]
			}
		}
	}
	return out, nil
}

// lineageSearch is one search across lineage, as searchAcrossLineage and
// scrollAcrossLineage ask it.
type lineageSearch struct {
	urn          *string
	direction    model.LineageDirection
	types        []model.EntityType
	query        *string
	filter       *search.FilterInput
	start, end   *int64
	flags        *model.LineageFlags
	view         *string
	sort         *model.SearchSortInput
	start0, size int
}

// lineageSearchResult is the page a lineageSearch found.
type lineageSearchResult struct {
	total   int
	results []*model.SearchAcrossLineageResult
	facets  []*model.FacetMetadata
	path    model.LineageSearchPath
}

// SearchAcrossLineage searches the entities upstream or downstream of a URN,
// at any distance (or the distances a degree filter allows), as DataHub's
// lineage search does: the lineage walk (bounded by the time window and the
// lineage flags) gives the candidates, the search index the matches of the
// query and filters among them (so only entities that exist and are not
// soft-deleted), in lineage order, nearest first.
func (r *queryResolver) SearchAcrossLineage(ctx context.Context, in model.SearchAcrossLineageInput) (*model.SearchAcrossLineageResults, error) {
	s, c := page(in.Start, in.Count, 10)
	res, err := r.searchLineage(ctx, lineageSearch{urn: in.Urn, direction: in.Direction, types: in.Types, query: in.Query,
		filter: filterOf(in.Filters, in.OrFilters), start: in.StartTimeMillis, end: in.EndTimeMillis, flags: in.LineageFlags,
		view: in.ViewUrn, sort: in.SortInput, start0: s, size: c})
	if err != nil {
		return nil, err
	}
	return &model.SearchAcrossLineageResults{Start: s, Count: len(res.results), Total: res.total, SearchResults: res.results,
		Facets: res.facets, LineageSearchPath: &res.path}, nil
}

// ScrollAcrossLineage pages through a search across lineage with an opaque
// scroll id, absent on the last page.
func (r *queryResolver) ScrollAcrossLineage(ctx context.Context, in model.ScrollAcrossLineageInput) (*model.ScrollAcrossLineageResults, error) {
	offset, err := decodeLineageScroll(deref(in.ScrollID))
	if err != nil {
		return nil, err
	}
	_, c := page(nil, in.Count, 10)
	res, err := r.searchLineage(ctx, lineageSearch{urn: in.Urn, direction: in.Direction, types: in.Types, query: in.Query,
		filter: filterOf(nil, in.OrFilters), start: in.StartTimeMillis, end: in.EndTimeMillis, flags: in.LineageFlags, start0: offset, size: c})
	if err != nil {
		return nil, err
	}
	out := &model.ScrollAcrossLineageResults{Count: len(res.results), Total: res.total, SearchResults: res.results, Facets: res.facets}
	if next := offset + len(res.results); len(res.results) > 0 && next < res.total {
		out.NextScrollID = ptr(encodeLineageScroll(next))
	}
	return out, nil
}

const lineageScrollPrefix = "lineage:"

func encodeLineageScroll(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(lineageScrollPrefix + strconv.Itoa(offset)))
}

func decodeLineageScroll(id string) (int, error) {
	if id == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(id)
	if err == nil && strings.HasPrefix(string(b), lineageScrollPrefix) {
		if n, err := strconv.Atoi(strings.TrimPrefix(string(b), lineageScrollPrefix)); err == nil && n >= 0 {
			return n, nil
		}
	}
	return 0, invalidf("scrollId %q is not a scroll id of this search", id)
}

// degreeCriteria takes the degree criteria out of filter: the degree values
// asked (nil: none) and the rest of the filter.
func degreeCriteria(filter *search.FilterInput) ([]string, *search.FilterInput, error) {
	if filter == nil {
		return nil, nil, nil
	}
	var values []string
	rest := &search.FilterInput{}
	for _, and := range filter.Or {
		var keep search.ConjunctionInput
		for _, c := range and.And {
			if strings.TrimSuffix(c.Field, ".keyword") != degreeField {
				keep.And = append(keep.And, c)
				continue
			}
			vs := c.Values
			if c.Value != nil && !slices.Contains(vs, *c.Value) {
				vs = append(slices.Clone(vs), *c.Value)
			}
			for _, v := range vs {
				if !slices.Contains(degreeValues, v) {
					return nil, nil, invalidf("%s is not a valid filter value for degree filters: want 1, 2 or 3+", v)
				}
				if !slices.Contains(values, v) {
					values = append(values, v)
				}
			}
		}
		if len(keep.And) > 0 {
			rest.Or = append(rest.Or, keep)
		}
	}
	if len(rest.Or) == 0 {
		rest = nil
	}
	return values, rest, nil
}

// maxHopsOf is the walk's bound that the degree values asked allow, as
// DataHub derives it: none when 3+ (or no value) is asked.
func maxHopsOf(degrees []string) int {
	switch {
	case len(degrees) == 0 || slices.Contains(degrees, "3+"):
		return 0
	case slices.Contains(degrees, "2"):
		return 2
	}
	return 1
}

func (r *Resolver) searchLineage(ctx context.Context, ls lineageSearch) (*lineageSearchResult, error) {
	svc, err := r.lineageService()
	if err != nil {
		return nil, err
	}
	if deref(ls.urn) == "" {
		return nil, invalidf("urn is required")
	}
	degrees, filter, err := degreeCriteria(ls.filter)
	if err != nil {
		return nil, err
	}
	q := graph.Query{URN: *ls.urn, Direction: lineageDirection(ls.direction), MaxHops: maxHopsOf(degrees)}
	timeBounds(&q, ls.start, ls.end)
	if f := ls.flags; f != nil {
		// The flags' time bounds win over the input's, as in DataHub.
		if f.StartTimeMillis != nil {
			timeBounds(&q, f.StartTimeMillis, f.EndTimeMillis)
		} else if f.EndTimeMillis != nil && q.EndTimeMillis > 0 {
			q.EndTimeMillis = *f.EndTimeMillis
		}
		if n := deref(f.EntitiesExploredPerHopLimit); n > 0 {
			q.PerHopLimit = n
		}
		for _, h := range f.IgnoreAsHops {
			if h == nil {
				continue
			}
			name, ok := entityNames[h.EntityType]
			if !ok {
				return nil, invalidf("ignoreAsHops: entity type %s has no lineage", h.EntityType)
			}
			if q.IgnoreAsHops == nil {
				q.IgnoreAsHops = map[string][]string{}
			}
			q.IgnoreAsHops[strings.ToLower(name)] = append(q.IgnoreAsHops[strings.ToLower(name)], h.Platforms...)
		}
	}
	nodes, err := svc.Walk(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := checkSort(ls.sort); err != nil {
		return nil, err
	}
	ents, err := entityNamesOf(ls.types)
	if err != nil {
		return nil, err
	}
	if ents, filter, err = r.applyView(ctx, ls.view, ents, filter); err != nil {
		return nil, err
	}
	ents, filter = narrowByEntityType(ents, filter)
	wanted := map[string]bool{}
	for _, e := range ents {
		wanted[e] = true
	}
	candidates := nodes[:0:0]
	for _, n := range nodes {
		if wanted[urnType(n.URN)] && model.EntityOf(n.URN) != nil {
			candidates = append(candidates, n)
		}
	}
	text := strings.TrimSpace(deref(ls.query))
	if text == "" {
		text = "*"
	}
	matched, facetList, err := r.matchLineage(ctx, candidates, text, filter)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	var kept []graph.LineageNode
	for _, n := range matched {
		d := degreeName(n.Hops)
		counts[d]++
		if len(degrees) == 0 || slices.Contains(degrees, d) {
			kept = append(kept, n)
		}
	}
	degreeFacet := &model.FacetMetadata{Field: degreeField, DisplayName: ptr("Degree of Dependencies"), Aggregations: []*model.AggregationMetadata{}}
	for _, v := range degreeValues {
		degreeFacet.Aggregations = append(degreeFacet.Aggregations, &model.AggregationMetadata{Value: v, Count: int64(counts[v])})
	}
	out := &lineageSearchResult{total: len(kept), results: []*model.SearchAcrossLineageResult{},
		facets: append([]*model.FacetMetadata{degreeFacet}, facetList...), path: model.LineageSearchPathLightning}
	if text != "*" || filter != nil {
		out.path = model.LineageSearchPathTortoise
	}
	if crits := sortCriteria(ls.sort); len(crits) > 0 {
		if kept, err = r.sortLineage(ctx, kept, crits); err != nil {
			return nil, err
		}
	}
	shown := window(kept, ls.start0, ls.size)
	urns := nodeURNs(shown)
	for _, n := range shown {
		out.results = append(out.results, &model.SearchAcrossLineageResult{
			Entity: model.EntityOf(n.URN), MatchedFields: []*model.MatchedField{}, Degree: n.Hops, Degrees: n.Degrees,
			Paths: entityPaths(n.Paths), Explored: n.Explored, IgnoredAsHop: n.IgnoredAsHop,
		})
	}
	r.loaderOf(ctx).prime(ctx, urns)
	return out, nil
}

// sortLineage orders lineage search results by the criteria, keeping
// lineage order (nearest first) among equals.
func (r *Resolver) sortLineage(ctx context.Context, nodes []graph.LineageNode, crits []*model.SortCriterion) ([]graph.LineageNode, error) {
	hits := make([]catalog.SearchHit, len(nodes))
	at := make(map[string]int, len(nodes))
	for i, n := range nodes {
		hits[i] = catalog.SearchHit{URN: n.URN}
		at[n.URN] = i
	}
	sorted, err := r.sortHits(ctx, hits, crits)
	if err != nil {
		return nil, err
	}
	out := make([]graph.LineageNode, len(sorted))
	for i, h := range sorted {
		out[i] = nodes[at[h.URN]]
	}
	return out, nil
}

// degreeName is DataHub's degree facet value: "1", "2", "3+".
func degreeName(h int) string {
	switch h {
	case 1:
		return "1"
	case 2:
		return "2"
	}
	return "3+"
}

// matchLineage keeps the lineage nodes that match text and filter in the
// search index, in lineage order, with the facets of the matches. The index
// holds the entities that exist and are not soft-deleted, so lineage to
// entities only referenced (ghosts) is left out, as DataHub's search does.
func (r *Resolver) matchLineage(ctx context.Context, nodes []graph.LineageNode, text string, f *search.FilterInput) ([]graph.LineageNode, []*model.FacetMetadata, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, nil, err
	}
	if len(nodes) == 0 {
		return nodes, []*model.FacetMetadata{}, nil
	}
	if len(nodes) > search.MaxPageSize {
		return nil, nil, catalog.Errorf(catalog.TooLarge, "the lineage has %d entities, more than the %d a lineage search covers; narrow it with a degree filter", len(nodes), search.MaxPageSize)
	}
	urns := nodeURNs(nodes)
	var types []string
	for _, u := range urns {
		if t := urnType(u); !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	urnCrit := search.CriterionInput{Field: search.FieldURN, Values: urns, Condition: "EQUAL"}
	filter := &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{urnCrit}}}}
	if f != nil {
		filter.Or = nil
		for _, g := range f.Or {
			filter.Or = append(filter.Or, search.ConjunctionInput{And: append(append([]search.CriterionInput(nil), g.And...), urnCrit)})
		}
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: types, Input: text, Filter: filter, Count: len(urns)})
	if err != nil {
		return nil, nil, err
	}
	hit := make(map[string]bool, len(res.Hits))
	for _, h := range res.Hits {
		hit[h.URN] = true
	}
	// Fields (column-level lineage) mostly have no aspects of their own and
	// so no index entry: with nothing to match, those whose dataset lives
	// are kept.
	if text == "*" && f == nil {
		var fields []string
		for _, u := range urns {
			if !hit[u] && urnType(u) == "schemaField" {
				fields = append(fields, u)
			}
		}
		if len(fields) > 0 {
			live, err := r.live(ctx, fields)
			if err != nil {
				return nil, nil, err
			}
			for u, ok := range live {
				hit[u] = hit[u] || ok
			}
		}
	}
	out := nodes[:0:0]
	for _, n := range nodes {
		if hit[n.URN] {
			out = append(out, n)
		}
	}
	var fs []*model.FacetMetadata
	for _, fm := range facets(svc, types, res.Facets, res.SearchResult.Facets) {
		if fm.Field != search.FieldURN {
			fs = append(fs, fm)
		}
	}
	return out, nonNil(fs), nil
}
