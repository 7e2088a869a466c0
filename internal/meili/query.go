package meili

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/meilisearch/meilisearch-go"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/search"
)

// baseFilter is what a query adds to the caller's filter: the entity types,
// and the hiding of soft-deleted entities when hide is set.
func (e *Engine) baseFilter(types []string, hide bool) expr {
	var parts []expr
	var vals []string
	for _, t := range types {
		if t != "" {
			vals = append(vals, quote(encodeExact(t)))
		}
	}
	if len(vals) > 0 {
		parts = append(parts, eqIn(attrTypeX, vals))
	}
	if hide {
		parts = append(parts, expr{s: attrRemoved + " = false"})
	}
	return and(parts...)
}

func filterParam(x expr) any {
	if s := x.String(); s != "" {
		return s
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// queryWords splits free text with the shared analyzer. Meilisearch then
// sees the same lower-case words the documents were indexed under (see
// document); "" and "*", and text without any word, match every document.
func queryWords(text string) []string {
	t := strings.TrimSpace(text)
	if t == "" || t == "*" {
		return nil
	}
	return search.QueryTokens(t)
}

func pagingError(start, count int) error {
	if start < 0 || count < 0 {
		return catalog.Errorf(catalog.Invalid, "paging: start %d and count %d must not be negative", start, count)
	}
	return nil
}

// Search answers q. Without substring conditions it is one Meilisearch query
// (two in one multi-search when Start is not a multiple of Count, because
// exact totals need page mode); with them it scans the candidates, see scan.
func (e *Engine) Search(ctx context.Context, q catalog.SearchQuery) (catalog.SearchResult, error) {
	if err := pagingError(q.Start, q.Count); err != nil {
		return catalog.SearchResult{}, err
	}
	if err := validate(q.Filter); err != nil {
		return catalog.SearchResult{}, err
	}
	start, count := q.Start, q.Count
	words := queryWords(q.Text)
	hide := !namesField(q.Filter, "removed")
	req := meilisearch.SearchRequest{
		Query:                strings.Join(words, " "),
		Filter:               filterParam(and(e.baseFilter(q.EntityTypes, hide), e.schema.translate(q.Filter))),
		MatchingStrategy:     meilisearch.All,
		ShowRankingScore:     true,
		AttributesToRetrieve: []string{attrURN, attrType},
	}
	if len(words) > 0 && len(e.searchFields) == 0 {
		// No field is searched by free text; an empty attributesToSearchOn
		// would mean every searchable attribute.
		req.Filter = falseFilter
	}
	if len(words) > 0 {
		req.AttributesToSearchOn = wordAttrs(e.searchFields)
		// The original values, to report the matched fields.
		req.AttributesToRetrieve = append(req.AttributesToRetrieve, textAttrs(e.searchFields)...)
	}
	if needsPostFilter(q.Filter) {
		return e.searchScan(ctx, q, req, words)
	}
	facetAttrs := e.facetAttrs(q.Facets)
	var page, counted *meilisearch.SearchResponse
	switch {
	case count > 0 && start%count == 0:
		r := req
		r.Page, r.HitsPerPage = int64(start/count+1), ptr(int64(count))
		r.Facets = facetAttrs
		resp, err := e.index().SearchWithContext(ctx, "", &r)
		if err != nil {
			return catalog.SearchResult{}, e.fail(ctx, "meilisearch: search", err)
		}
		page, counted = resp, resp
	case count == 0:
		r := req
		r.Page, r.HitsPerPage = 1, ptr(int64(0))
		r.Facets = facetAttrs
		resp, err := e.index().SearchWithContext(ctx, "", &r)
		if err != nil {
			return catalog.SearchResult{}, e.fail(ctx, "meilisearch: search", err)
		}
		page, counted = resp, resp
	default:
		hits := req
		hits.Offset, hits.Limit = int64(start), int64(count)
		hits.IndexUID = e.uid
		total := req
		total.Page, total.HitsPerPage = 1, ptr(int64(0))
		total.Facets = facetAttrs
		total.IndexUID = e.uid
		resp, err := e.client.MultiSearchWithContext(ctx, &meilisearch.MultiSearchRequest{
			Queries: []*meilisearch.SearchRequest{&hits, &total}})
		if err != nil {
			return catalog.SearchResult{}, e.fail(ctx, "meilisearch: search", err)
		}
		if len(resp.Results) != 2 {
			return catalog.SearchResult{}, catalog.Errorf(catalog.Internal, "meilisearch: multi-search returned %d results, want 2", len(resp.Results))
		}
		page, counted = &resp.Results[0], &resp.Results[1]
	}
	res := catalog.SearchResult{Total: int(counted.TotalHits)}
	for _, h := range page.Hits {
		hit, err := e.hit(h, words)
		if err != nil {
			return catalog.SearchResult{}, err
		}
		res.Hits = append(res.Hits, hit)
	}
	facets, err := e.facets(q.Facets, counted.FacetDistribution)
	if err != nil {
		return catalog.SearchResult{}, err
	}
	res.Facets = facets
	return res, nil
}

// facetAttrs maps facet field names to the attributes whose distribution
// answers them: the exact-encoded one for strings (exact, case-preserving
// values), the raw one for numbers and booleans.
func (e *Engine) facetAttrs(names []string) []string {
	var out []string
	for _, n := range names {
		if a, ok := e.facetAttr(n); ok {
			out = append(out, a)
		}
	}
	return out
}

func (e *Engine) facetAttr(name string) (string, bool) {
	f, ok := e.schema.fields[name]
	if !ok {
		return "", false
	}
	if f.kind == kindString {
		return exactAttr(name), true
	}
	return textAttr(name), true
}

func (e *Engine) facets(names []string, raw json.RawMessage) (map[string]map[string]int, error) {
	if len(names) == 0 {
		return nil, nil
	}
	dist := map[string]map[string]int{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &dist); err != nil {
			return nil, catalog.WithOp("meilisearch: facet distribution", err)
		}
	}
	out := make(map[string]map[string]int, len(names))
	for _, n := range names {
		counts := map[string]int{}
		if attr, ok := e.facetAttr(n); ok {
			for v, c := range dist[attr] {
				if strings.HasPrefix(attr, "x_") {
					dv, ok := decodeExact(v)
					if !ok {
						continue // the digest of an over-long value
					}
					v = dv
				}
				counts[v] += c
			}
		}
		out[n] = counts
	}
	return out, nil
}

// hit converts a Meilisearch hit; words are the query's words.
func (e *Engine) hit(h meilisearch.Hit, words []string) (catalog.SearchHit, error) {
	var out catalog.SearchHit
	if err := decodeAttr(h, attrURN, &out.URN); err != nil {
		return out, err
	}
	if err := decodeAttr(h, attrType, &out.EntityType); err != nil {
		return out, err
	}
	if err := decodeAttr(h, "_rankingScore", &out.Score); err != nil {
		return out, err
	}
	if len(words) > 0 {
		// The analyzer's own test, as the in-store engines report matches:
		// a value matches when every query word is a prefix of its words.
		for _, name := range e.searchFields {
			for _, v := range e.schema.hitValues(h, name) {
				if s, ok := v.(string); ok && search.Matches(words, s) {
					out.MatchedFields = append(out.MatchedFields, catalog.MatchedField{Name: name, Value: s})
				}
			}
		}
	}
	return out, nil
}

func decodeAttr(h meilisearch.Hit, attr string, dst any) error {
	raw, ok := h[attr]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return catalog.WithOp("meilisearch: decode hit attribute "+attr, err)
	}
	return nil
}

// hitValues returns a field's values from a hit's t_ attribute, or for a
// keyed field from its member of the family's attribute.
func (s *schema) hitValues(h meilisearch.Hit, field string) []any {
	f := s.lookup(field)
	if f == nil {
		return nil
	}
	raw, ok := h[f.retrieved()]
	if !ok {
		return nil
	}
	if f.prefix != "" {
		var fam map[string]json.RawMessage
		if json.Unmarshal(raw, &fam) != nil {
			return nil
		}
		if raw, ok = fam["t_"+encodeName(f.key)]; !ok {
			return nil
		}
	}
	var vals []any
	if json.Unmarshal(raw, &vals) != nil {
		var one any
		if json.Unmarshal(raw, &one) != nil || one == nil {
			return nil
		}
		vals = []any{one}
	}
	return vals
}

// scan fetches every document matching req (whose filter is a relaxation of
// the caller's), in req's order, with the given attributes retrieved too, and
// keeps those the caller's filter accepts. Meilisearch has no substring
// filter in its stable syntax, so CONTAIN, START_WITH and END_WITH are
// decided here, in Go. The scan is bounded: when more than scanLimit
// documents pass the relaxed filter the query is rejected as too broad
// rather than answered wrongly.
func (e *Engine) scan(ctx context.Context, req meilisearch.SearchRequest, retrieve []string, f catalog.Filter) ([]meilisearch.Hit, error) {
	req.AttributesToRetrieve = append(append([]string{}, req.AttributesToRetrieve...), retrieve...)
	req.Facets = nil
	req.Offset, req.Limit = 0, 0
	var out []meilisearch.Hit
	for page := int64(1); ; page++ {
		r := req
		r.Page, r.HitsPerPage = page, ptr(int64(e.opts.batch))
		resp, err := e.index().SearchWithContext(ctx, "", &r)
		if err != nil {
			return nil, e.fail(ctx, "meilisearch: scan", err)
		}
		if resp.TotalHits > int64(e.opts.scanLimit) {
			return nil, catalog.Errorf(catalog.Invalid,
				"search filter too broad: CONTAIN, START_WITH and END_WITH are checked on at most %d candidate entities, and %d match the rest of the query; narrow it",
				e.opts.scanLimit, resp.TotalHits)
		}
		for _, h := range resp.Hits {
			if e.schema.eval(f, func(field string) []any { return e.schema.hitValues(h, field) }) {
				out = append(out, h)
			}
		}
		if len(resp.Hits) < e.opts.batch || page*int64(e.opts.batch) >= resp.TotalHits {
			return out, nil
		}
	}
}

func (e *Engine) searchScan(ctx context.Context, q catalog.SearchQuery, req meilisearch.SearchRequest, words []string) (catalog.SearchResult, error) {
	retrieve := e.schema.filterAttrs(q.Filter)
	for _, n := range q.Facets {
		if _, ok := e.schema.fields[n]; ok {
			retrieve = append(retrieve, textAttr(n))
		}
	}
	hits, err := e.scan(ctx, req, retrieve, q.Filter)
	if err != nil {
		return catalog.SearchResult{}, err
	}
	res := catalog.SearchResult{Total: len(hits)}
	for _, h := range hits[min(q.Start, len(hits)):min(q.Start+q.Count, len(hits))] {
		hit, err := e.hit(h, words)
		if err != nil {
			return catalog.SearchResult{}, err
		}
		res.Hits = append(res.Hits, hit)
	}
	if len(q.Facets) > 0 {
		res.Facets = map[string]map[string]int{}
		for _, n := range q.Facets {
			counts := map[string]int{}
			if _, ok := e.schema.fields[n]; ok {
				for _, h := range hits {
					seen := map[string]bool{}
					for _, v := range e.schema.hitValues(h, n) {
						if s := valueString(v); !seen[s] {
							seen[s] = true
							counts[s]++
						}
					}
				}
			}
			res.Facets[n] = counts
		}
	}
	return res, nil
}

// Autocomplete suggests, for each entity whose autocomplete fields (or
// q.Field) match the query — every word, the last one as a prefix — the
// first value that matches it.
func (e *Engine) Autocomplete(ctx context.Context, q catalog.AutocompleteQuery) ([]catalog.Suggestion, error) {
	if q.Limit < 0 {
		return nil, catalog.Errorf(catalog.Invalid, "autocomplete: limit %d must not be negative", q.Limit)
	}
	if err := validate(q.Filter); err != nil {
		return nil, err
	}
	fields := e.autoFields
	if q.Field != "" {
		f, ok := e.schema.fields[q.Field]
		if !ok || !f.searched() {
			return nil, nil // no words are indexed for that field
		}
		fields = []string{q.Field}
	}
	words := queryWords(q.Query)
	if len(fields) == 0 || len(words) == 0 {
		return nil, nil
	}
	limit := q.Limit
	if limit == 0 {
		limit = 10
	}
	hide := !namesField(q.Filter, "removed")
	req := meilisearch.SearchRequest{
		Query:                strings.Join(words, " "),
		Filter:               filterParam(and(e.baseFilter(q.EntityTypes, hide), e.schema.translate(q.Filter))),
		MatchingStrategy:     meilisearch.All,
		AttributesToSearchOn: wordAttrs(fields),
		AttributesToRetrieve: append([]string{attrURN}, textAttrs(fields)...),
	}
	var hits []meilisearch.Hit
	if needsPostFilter(q.Filter) {
		all, err := e.scan(ctx, req, e.schema.filterAttrs(q.Filter), q.Filter)
		if err != nil {
			return nil, err
		}
		hits = all[:min(limit, len(all))]
	} else {
		req.Limit = int64(limit)
		resp, err := e.index().SearchWithContext(ctx, "", &req)
		if err != nil {
			return nil, e.fail(ctx, "meilisearch: autocomplete", err)
		}
		hits = resp.Hits
	}
	out := make([]catalog.Suggestion, 0, len(hits))
	for _, h := range hits {
		var urn string
		if err := decodeAttr(h, attrURN, &urn); err != nil {
			return nil, err
		}
		if text := e.schema.suggestion(h, fields, words); text != "" {
			out = append(out, catalog.Suggestion{Text: text, URN: urn})
		}
	}
	return out, nil
}

// suggestion picks the first value of fields, in their order, that matches
// the words, or the first value at all when the words matched across values.
func (sc *schema) suggestion(h meilisearch.Hit, fields, words []string) string {
	first := ""
	for _, name := range fields {
		for _, v := range sc.hitValues(h, name) {
			s, ok := v.(string)
			if !ok {
				continue
			}
			if search.Matches(words, s) {
				return s
			}
			if first == "" {
				first = s
			}
		}
	}
	return first
}

// Browse lists the groups and entities at a browse path, see browseFields
// for the attributes it relies on. Soft-deleted entities are always left out.
func (e *Engine) Browse(ctx context.Context, q catalog.BrowseQuery) (catalog.BrowseResult, error) {
	if err := pagingError(q.Start, q.Limit); err != nil {
		return catalog.BrowseResult{}, err
	}
	if err := validate(q.Filter); err != nil {
		return catalog.BrowseResult{}, err
	}
	path := segments(q.Path)
	depth := len(path)
	if depth >= e.opts.maxDepth {
		return catalog.BrowseResult{}, catalog.Errorf(catalog.Invalid,
			"browse path %q: this search engine indexes browse paths to %d levels", q.Path, e.opts.maxDepth)
	}
	var types []string
	if q.EntityType != "" {
		types = []string{q.EntityType}
	}
	here := quote(encodeExact(joinPath(path)))
	base := and(e.baseFilter(types, true), e.schema.translate(q.Filter))
	below := expr{s: attrAnc + " = " + here}
	at := expr{s: attrLoc + " = " + here}
	childAttr := bpAttr(depth + 1)
	if needsPostFilter(q.Filter) {
		return e.browseScan(ctx, q, and(base, or(below, at)), path, childAttr)
	}

	var res catalog.BrowseResult
	belowReq := meilisearch.SearchRequest{IndexUID: e.uid, Filter: filterParam(and(base, below)),
		Page: 1, HitsPerPage: ptr(int64(0)), Facets: []string{childAttr}}
	atReq := meilisearch.SearchRequest{IndexUID: e.uid, Filter: filterParam(and(base, at)),
		Page: 1, HitsPerPage: ptr(int64(0))}
	resp, err := e.client.MultiSearchWithContext(ctx, &meilisearch.MultiSearchRequest{
		Queries: []*meilisearch.SearchRequest{&belowReq, &atReq}})
	if err != nil {
		return res, e.fail(ctx, "meilisearch: browse", err)
	}
	if len(resp.Results) != 2 {
		return res, catalog.Errorf(catalog.Internal, "meilisearch: multi-search returned %d results, want 2", len(resp.Results))
	}
	res.Total, res.NumEntities = int(resp.Results[0].TotalHits), int(resp.Results[1].TotalHits)
	var groups []catalog.BrowseGroup
	if raw := resp.Results[0].FacetDistribution; len(raw) > 0 && string(raw) != "null" {
		var dist map[string]map[string]int
		if err := json.Unmarshal(raw, &dist); err != nil {
			return res, catalog.WithOp("meilisearch: browse facets", err)
		}
		for v, c := range dist[childAttr] {
			prefix, ok := decodeExact(v)
			if !ok {
				continue
			}
			if name, ok := childGroup(path, prefix); ok {
				groups = append(groups, catalog.BrowseGroup{Name: name, Count: c})
			}
		}
	}
	sortGroups(groups)
	res.NumGroups = len(groups)
	res.Groups = groups[min(q.Start, len(groups)):min(q.Start+q.Limit, len(groups))]
	offset := max(q.Start-len(groups), 0)
	want := q.Limit - len(res.Groups)
	if want > 0 && offset < res.NumEntities {
		r := meilisearch.SearchRequest{Filter: filterParam(and(base, at)), Offset: int64(offset), Limit: int64(want),
			Sort: []string{attrURN + ":asc"}, AttributesToRetrieve: []string{attrURN}}
		page, err := e.index().SearchWithContext(ctx, "", &r)
		if err != nil {
			return res, e.fail(ctx, "meilisearch: browse", err)
		}
		for _, h := range page.Hits {
			var urn string
			if err := decodeAttr(h, attrURN, &urn); err != nil {
				return res, err
			}
			res.URNs = append(res.URNs, urn)
		}
	}
	return res, nil
}

func sortGroups(groups []catalog.BrowseGroup) {
	sort.Slice(groups, func(i, j int) bool { return groups[i].Name < groups[j].Name })
}

// browseScan answers Browse when the filter has substring conditions: it
// scans every candidate at or below the path and groups them in Go. An
// entity is below the path when one of its depth+1 prefixes is a child of
// it.
func (e *Engine) browseScan(ctx context.Context, q catalog.BrowseQuery, filter expr, path []string, childAttr string) (catalog.BrowseResult, error) {
	retrieve := append(e.schema.filterAttrs(q.Filter), attrLoc, childAttr)
	req := meilisearch.SearchRequest{Filter: filterParam(filter), Sort: []string{attrURN + ":asc"},
		AttributesToRetrieve: []string{attrURN}}
	hits, err := e.scan(ctx, req, retrieve, q.Filter)
	if err != nil {
		return catalog.BrowseResult{}, err
	}
	here := encodeExact(joinPath(path))
	counts := map[string]int{}
	var urns []string
	total := 0
	for _, h := range hits {
		var locs, children []string
		if err := decodeAttr(h, attrLoc, &locs); err != nil {
			return catalog.BrowseResult{}, err
		}
		if err := decodeAttr(h, childAttr, &children); err != nil {
			return catalog.BrowseResult{}, err
		}
		seen := map[string]bool{}
		for _, c := range children {
			prefix, ok := decodeExact(c)
			if !ok {
				continue
			}
			if name, ok := childGroup(path, prefix); ok && !seen[name] {
				seen[name] = true
				counts[name]++
			}
		}
		if len(seen) > 0 {
			total++
		}
		for _, l := range locs {
			if l == here {
				var urn string
				if err := decodeAttr(h, attrURN, &urn); err != nil {
					return catalog.BrowseResult{}, err
				}
				urns = append(urns, urn)
				break
			}
		}
	}
	groups := make([]catalog.BrowseGroup, 0, len(counts))
	for name, c := range counts {
		groups = append(groups, catalog.BrowseGroup{Name: name, Count: c})
	}
	sortGroups(groups)
	res := catalog.BrowseResult{Total: total, NumGroups: len(groups), NumEntities: len(urns)}
	res.Groups = groups[min(q.Start, len(groups)):min(q.Start+q.Limit, len(groups))]
	offset := max(q.Start-len(groups), 0)
	if want := q.Limit - len(res.Groups); want > 0 {
		res.URNs = urns[min(offset, len(urns)):min(offset+want, len(urns))]
	}
	return res, nil
}
