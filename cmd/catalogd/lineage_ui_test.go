package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/contract"
)

// uiDocs are the web app's GraphQL operations by name.
type uiDocs map[string]contract.UIOperation

func loadUIDocs(t *testing.T) uiDocs {
	t.Helper()
	ops, err := contract.UIOperations(filepath.Join(samplesDir(t), "..", "datahub-ui"))
	if err != nil {
		t.Fatalf("DataHub's web UI documents: %v", err)
	}
	out := uiDocs{}
	for _, op := range ops {
		out[op.Name] = op
	}
	return out
}

// text is the document of the operation name with the fragments it uses.
func (o uiDocs) text(t testing.TB, name string) string {
	t.Helper()
	op, ok := o[name]
	if !ok {
		t.Fatalf("the web app has no operation %s", name)
	}
	return op.Text()
}

// uiOps runs the operations of DataHub's web UI by name, exactly as the UI
// sends them.
type uiOps struct {
	srv  *testServer
	docs uiDocs
}

func loadUIOps(t *testing.T, srv *testServer) *uiOps {
	t.Helper()
	return &uiOps{srv: srv, docs: loadUIDocs(t)}
}

// run sends the UI's operation name with vars and returns its data; any
// error fails the test.
func (u *uiOps) run(t *testing.T, name string, vars map[string]any) map[string]any {
	t.Helper()
	r := u.srv.gql(t, u.docs.text(t, name), vars)
	if len(r.Errors) > 0 {
		t.Fatalf("%s %v: %d errors, first: %v", name, vars, len(r.Errors), r.Errors[0])
	}
	return r.Data
}

// get reads a path of member names and list indexes in v.
func get(t *testing.T, v any, path string) any {
	t.Helper()
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i >= len(x) {
				t.Fatalf("%s: no element %s in %v", path, p, x)
			}
			v = x[i]
		default:
			t.Fatalf("%s: cannot read %s of %v", path, p, v)
		}
	}
	return v
}

func num(t *testing.T, v any) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(fmt.Sprint(v), &n); err != nil {
		t.Fatalf("%v is not a number", v)
	}
	return n
}

// urnsAt lists the urn of each element of the list at path, each read at
// the path rel in it.
func urnsAt(t *testing.T, v any, path, rel string) []string {
	t.Helper()
	l, _ := get(t, v, path).([]any)
	out := []string{}
	for _, x := range l {
		out = append(out, fmt.Sprint(get(t, x, rel)))
	}
	return out
}

func hive(name string) string { return "urn:li:dataset:(urn:li:dataPlatform:hive," + name + ",PROD)" }

// upstreamsOf is an upstreamLineage proposal making urn downstream of each
// upstream, with the created time given (0: none).
func upstreamsOf(urn string, ups map[string]int64) map[string]any {
	var list []any
	keys := make([]string, 0, len(ups))
	for k := range ups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, u := range keys {
		up := map[string]any{"dataset": u, "type": "TRANSFORMED", "auditStamp": map[string]any{"time": 0, "actor": "urn:li:corpuser:unknown"}}
		if ups[u] > 0 {
			up["created"] = map[string]any{"time": ups[u], "actor": "urn:li:corpuser:etl"}
		}
		list = append(list, up)
	}
	return seed(urn, "dataset", "upstreamLineage", map[string]any{"upstreams": list})
}

func named(urn string) map[string]any {
	name := strings.TrimSuffix(strings.SplitN(urn, ",", 3)[1], ",PROD)")
	return seed(urn, "dataset", "datasetProperties", map[string]any{"name": name, "customProperties": map[string]any{}})
}

// The lineage the tests walk, besides the samples': a chain src → mid →
// dst → end (edges created at 1000, 5000 and without time), dst also
// reading a dataset nobody ingested (a ghost), and two siblings dbt
// (primary) and pg with their own upstreams src and raw. Within a hop,
// entities come by URN.
var (
	linSrc, linMid, linDst, linEnd = hive("lin_src"), hive("lin_mid"), hive("lin_dst"), hive("lin_end")
	linGhost, linRaw               = hive("lin_ghost"), hive("lin_raw")
	linDbt                         = "urn:li:dataset:(urn:li:dataPlatform:dbt,lin_model,PROD)"
	linPg                          = "urn:li:dataset:(urn:li:dataPlatform:postgres,lin_model,PROD)"
)

func lineageSeeds() []map[string]any {
	return []map[string]any{
		named(linSrc), named(linMid), named(linDst), named(linEnd), named(linRaw), named(linDbt), named(linPg),
		upstreamsOf(linMid, map[string]int64{linSrc: 1000}),
		upstreamsOf(linDst, map[string]int64{linMid: 5000, linGhost: 0}),
		upstreamsOf(linEnd, map[string]int64{linDst: 0}),
		upstreamsOf(linDbt, map[string]int64{linSrc: 0}),
		upstreamsOf(linPg, map[string]int64{linRaw: 0}),
		seed(linDbt, "dataset", "siblings", map[string]any{"siblings": []any{linPg}, "primary": true}),
		seed(linPg, "dataset", "siblings", map[string]any{"siblings": []any{linDbt}, "primary": false}),
	}
}

// TestGraphQLUILineageAndHome runs the lineage and home page operations of
// DataHub's web UI, exactly as it sends them, against a server loaded with
// the samples and a small lineage graph, on each store (one server for
// both: loading the samples is the costly part). Lineage: the lineage graph
// (getEntityLineage, V2, bulk, counts), the lineage tab
// (searchAcrossLineage with degree filters, time bounds, text), its
// download (scrollAcrossLineage), and column-level lineage. The home page:
// see testHomeRecommendations and testHomePosts.
func TestGraphQLUILineageAndHome(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			replaySamples(t, srv)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": lineageSeeds(), "async": "false"})
			ui := loadUIOps(t, srv)
			testLineageGraph(t, ui)
			testLineageSearch(t, ui)
			testHomeRecommendations(t, srv, ui)
			testHomePosts(t, ui)
		})
	}
}

func testLineageGraph(t *testing.T, ui *uiOps) {
	t.Run("getEntityLineage", func(t *testing.T) {
		d := ui.run(t, "getEntityLineage", map[string]any{"urn": linDst, "showColumns": true})
		up := get(t, d, "entity.upstream")
		if got := urnsAt(t, up, "relationships", "entity.urn"); !slices.Equal(got, []string{linMid}) {
			t.Errorf("upstreams of dst = %v, want [mid] (the ghost left out)", got)
		}
		if total, filtered := num(t, get(t, up, "total")), num(t, get(t, up, "filtered")); total != 2 || filtered != 1 {
			t.Errorf("upstream total %d filtered %d, want 2 and 1 (the ghost)", total, filtered)
		}
		down := get(t, d, "entity.downstream")
		if got := urnsAt(t, down, "relationships", "entity.urn"); !slices.Equal(got, []string{linEnd}) {
			t.Errorf("downstreams of dst = %v, want [end]", got)
		}
		if on := get(t, up, "relationships.0.createdOn"); num(t, on) != 5000 {
			t.Errorf("createdOn of dst → mid = %v, want 5000", on)
		}
	})
	t.Run("getEntityLineageV2 with ghosts", func(t *testing.T) {
		d := ui.run(t, "getEntityLineageV2", map[string]any{"urn": linDst, "showColumns": false, "includeGhostEntities": true})
		got := urnsAt(t, d, "entity.upstream.relationships", "entity.urn")
		if !slices.Equal(got, []string{linGhost, linMid}) {
			t.Errorf("upstreams of dst with ghosts = %v, want [ghost mid]", got)
		}
		if f := num(t, get(t, d, "entity.upstream.filtered")); f != 0 {
			t.Errorf("filtered = %d, want 0", f)
		}
	})
	t.Run("soft-deleted upstream", func(t *testing.T) {
		upstreams := func() ([]string, int, int) {
			d := ui.run(t, "getEntityLineageV2", map[string]any{"urn": linDst, "showColumns": false})
			up := get(t, d, "entity.upstream")
			return urnsAt(t, up, "relationships", "entity.urn"), num(t, get(t, up, "total")), num(t, get(t, up, "filtered"))
		}
		ui.srv.setRemoved(t, linMid, true)
		if got, total, filtered := upstreams(); len(got) != 0 || total != 2 || filtered != 2 {
			t.Errorf("upstreams of dst with mid removed = %v (total %d, filtered %d), want none (2, 2)", got, total, filtered)
		}
		ui.srv.setRemoved(t, linMid, false)
		if got, total, filtered := upstreams(); !slices.Equal(got, []string{linMid}) || total != 2 || filtered != 1 {
			t.Errorf("upstreams of dst with mid restored = %v (total %d, filtered %d), want [mid] (2, 1)", got, total, filtered)
		}
	})
	t.Run("paged", func(t *testing.T) {
		// As in DataHub, each page leaves out its own ghosts: dst's
		// upstreams are the ghost and mid, one a page.
		q := `query l($urn: String!, $start: Int) { entity(urn: $urn) { ... on Dataset { lineage(input: {direction: UPSTREAM, start: $start, count: 1}) {
			start count total filtered relationships { entity { urn } } } } } }`
		for _, tt := range []struct {
			start, count, filtered int
			want                   []string
		}{{0, 0, 1, nil}, {1, 1, 0, []string{linMid}}} {
			l := get(t, ui.srv.gqlData(t, q, map[string]any{"urn": linDst, "start": tt.start}), "entity.lineage")
			got := urnsAt(t, l, "relationships", "entity.urn")
			if !slices.Equal(got, tt.want) || num(t, get(t, l, "count")) != tt.count || num(t, get(t, l, "total")) != 2 || num(t, get(t, l, "filtered")) != tt.filtered {
				t.Errorf("upstreams of dst from %d: %v, want %v with count %d, total 2, filtered %d", tt.start, l, tt.want, tt.count, tt.filtered)
			}
		}
	})
	t.Run("siblings", func(t *testing.T) {
		for _, tt := range []struct {
			separate bool
			want     []string
		}{{false, []string{linSrc, linRaw}}, {true, []string{linSrc}}} {
			d := ui.run(t, "getBulkEntityLineageV2", map[string]any{"urns": []string{linDbt}, "showColumns": false, "separateSiblings": tt.separate})
			got := urnsAt(t, d, "entities.0.upstream.relationships", "entity.urn")
			if !slices.Equal(got, tt.want) {
				t.Errorf("separateSiblings %v: upstreams of the dbt model = %v, want %v", tt.separate, got, tt.want)
			}
			up := get(t, d, "entities.0.upstream")
			if n := num(t, get(t, up, "total")) - num(t, get(t, up, "filtered")); n != len(got) {
				t.Errorf("separateSiblings %v: total - filtered = %d, %d listed", tt.separate, n, len(got))
			}
		}
	})
	t.Run("getLineageCounts", func(t *testing.T) {
		d := ui.run(t, "getLineageCounts", map[string]any{"urn": linSrc})
		down := get(t, d, "entity.downstream")
		if n := num(t, get(t, down, "total")) - num(t, get(t, down, "filtered")); n != 2 {
			t.Errorf("downstream count of src = %d, want 2 (mid, dbt model)", n)
		}
	})
	t.Run("column-level", func(t *testing.T) {
		field := "urn:li:schemaField:(" + hive("fct_users_created") + ",user_name)"
		// Fields have no aspects of their own in the samples: the UI reads
		// them in bulk, without an existence check.
		d := ui.run(t, "getBulkEntityLineageV2", map[string]any{"urns": []string{field}, "showColumns": true})
		want := "urn:li:schemaField:(" + hive("logging_events") + ",event_data)"
		if got := urnsAt(t, d, "entities.0.upstream.relationships", "entity.urn"); !slices.Equal(got, []string{want}) {
			t.Errorf("upstream fields of fct_users_created.user_name = %v, want [%s]", got, want)
		}
		d = ui.run(t, "getBulkEntityLineageV2", map[string]any{"urns": []string{want}, "showColumns": true})
		if got := urnsAt(t, d, "entities.0.downstream.relationships", "entity.urn"); !slices.Contains(got, field) {
			t.Errorf("downstream fields of logging_events.event_data = %v, want %s among them", got, field)
		}
		// The lineage tab's column lineage: a search across the lineage of
		// the field.
		res := ui.run(t, "searchAcrossLineage", map[string]any{"input": map[string]any{"urn": field, "direction": "UPSTREAM", "query": "*",
			"start": 0, "count": 10, "orFilters": degreeFilter("1", "2", "3+")}})
		if got := urnsAt(t, res, "searchAcrossLineage.searchResults", "entity.urn"); !slices.Equal(got, []string{want}) {
			t.Errorf("searchAcrossLineage upstream of fct_users_created.user_name = %v, want [%s]", got, want)
		}
	})
}

func degreeFilter(values ...string) []any {
	return []any{map[string]any{"and": []any{map[string]any{"field": "degree", "values": values}}}}
}

func testLineageSearch(t *testing.T, ui *uiOps) {
	search := func(t *testing.T, input map[string]any) map[string]any {
		t.Helper()
		input["query"] = "*"
		if _, ok := input["start"]; !ok {
			input["start"], input["count"] = 0, 10
		}
		d := ui.run(t, "searchAcrossLineage", map[string]any{"input": input})
		res := get(t, d, "searchAcrossLineage").(map[string]any)
		if got, total := len(res["searchResults"].([]any)), num(t, res["total"]); got != total && total <= 10 {
			t.Errorf("%v: total %d, %d results", input, total, got)
		}
		return res
	}
	t.Run("sorted and in a view", func(t *testing.T) {
		byName := func(order string) map[string]any {
			return map[string]any{"sortCriterion": map[string]any{"field": "_entityName", "sortOrder": order}}
		}
		for _, tt := range []struct {
			order string
			want  []string
		}{
			{"ASCENDING", []string{linDst, linEnd, linMid, linDbt}},
			{"DESCENDING", []string{linDbt, linMid, linEnd, linDst}},
		} {
			res := search(t, map[string]any{"urn": linSrc, "direction": "DOWNSTREAM", "sortInput": byName(tt.order)})
			if got := urnsAt(t, res, "searchResults", "entity.urn"); !slices.Equal(got, tt.want) {
				t.Errorf("downstreams of src by name %s: %v, want %v", tt.order, got, tt.want)
			}
		}
		dbt := map[string]any{"viewType": "PERSONAL", "name": "dbt models", "definition": map[string]any{"entityTypes": []any{}, "filter": map[string]any{
			"operator": "AND", "filters": []any{map[string]any{"field": "platform", "values": []any{"urn:li:dataPlatform:dbt"}, "condition": "EQUAL", "negated": false}}}}}
		view := get(t, ui.run(t, "createView", map[string]any{"input": dbt}), "createView.urn")
		res := search(t, map[string]any{"urn": linSrc, "direction": "DOWNSTREAM", "viewUrn": view})
		if got := urnsAt(t, res, "searchResults", "entity.urn"); !slices.Equal(got, []string{linDbt}) || num(t, res["total"]) != 1 {
			t.Errorf("downstreams of src in the dbt view: %v (total %v), want [dbt]", got, res["total"])
		}
		r := ui.srv.gql(t, ui.docs.text(t, "searchAcrossLineage"), map[string]any{"input": map[string]any{"urn": linSrc, "direction": "DOWNSTREAM",
			"query": "*", "sortInput": map[string]any{"sortCriterion": map[string]any{"field": " ", "sortOrder": "ASCENDING"}}}})
		if len(r.Errors) == 0 || !strings.Contains(fmt.Sprint(r.Errors[0]), "sort criterion needs a field") {
			t.Errorf("a sort criterion without a field: errors %v, want one saying it needs a field", r.Errors)
		}
	})
	t.Run("degrees", func(t *testing.T) {
		for _, tt := range []struct {
			degrees []string
			want    []string
			hops    []int
		}{
			{[]string{"1", "2", "3+"}, []string{linDbt, linMid, linDst, linEnd}, []int{1, 1, 2, 3}},
			{[]string{"1"}, []string{linDbt, linMid}, []int{1, 1}},
			{[]string{"2"}, []string{linDst}, []int{2}},
			{[]string{"3+"}, []string{linEnd}, []int{3}},
		} {
			res := search(t, map[string]any{"urn": linSrc, "direction": "DOWNSTREAM", "orFilters": degreeFilter(tt.degrees...)})
			got := urnsAt(t, res, "searchResults", "entity.urn")
			var hops []int
			for _, r := range res["searchResults"].([]any) {
				hops = append(hops, num(t, get(t, r, "degree")))
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(hops, tt.hops) {
				t.Errorf("degree %v: %v at %v, want %v at %v", tt.degrees, got, hops, tt.want, tt.hops)
			}
			if total := num(t, res["total"]); total != len(tt.want) {
				t.Errorf("degree %v: total %d, want %d", tt.degrees, total, len(tt.want))
			}
			f := get(t, res, "facets.0")
			if get(t, f, "field") != "degree" {
				t.Errorf("first facet %v, want degree", get(t, f, "field"))
			}
			// The other facets carry DataHub's names, as in every search.
			names := map[string]any{}
			for _, fm := range res["facets"].([]any) {
				names[fmt.Sprint(get(t, fm, "field"))] = get(t, fm, "displayName")
			}
			if names["platform"] != "Platform" || names["tags"] != "Tag" || names["degree"] != "Degree of Dependencies" {
				t.Errorf("lineage facet names %v, want Platform, Tag and Degree of Dependencies", names)
			}
			counts := map[string]int{}
			for _, a := range get(t, f, "aggregations").([]any) {
				counts[fmt.Sprint(get(t, a, "value"))] = num(t, get(t, a, "count"))
			}
			// The degree filter bounds the walk, so the facet counts what
			// the walk found.
			wantCounts := map[string]int{"1": 2, "2": 1, "3+": 1}
			if !slices.Contains(tt.degrees, "3+") {
				wantCounts["3+"] = 0
				if !slices.Contains(tt.degrees, "2") {
					wantCounts["2"] = 0
				}
			}
			if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
				t.Errorf("degree %v: degree facet %v, want %v", tt.degrees, counts, wantCounts)
			}
		}
		res := search(t, map[string]any{"urn": linSrc, "direction": "DOWNSTREAM", "orFilters": degreeFilter("3+")})
		paths := get(t, res, "searchResults.0.paths.0.path")
		var path []string
		for _, p := range paths.([]any) {
			path = append(path, fmt.Sprint(get(t, p, "urn")))
		}
		if want := []string{linSrc, linMid, linDst, linEnd}; !slices.Equal(path, want) {
			t.Errorf("path to end = %v, want %v", path, want)
		}
	})
	t.Run("time bounds", func(t *testing.T) {
		for _, tt := range []struct {
			flags map[string]any
			want  []string
		}{
			{nil, []string{linMid, linSrc}},
			{map[string]any{"startTimeMillis": 4000, "endTimeMillis": 6000}, []string{linMid}},
			{map[string]any{"startTimeMillis": 500, "endTimeMillis": 1500}, []string{}},
		} {
			in := map[string]any{"urn": linDst, "direction": "UPSTREAM", "orFilters": degreeFilter("1", "2", "3+")}
			if tt.flags != nil {
				in["lineageFlags"] = tt.flags
			}
			got := urnsAt(t, search(t, in), "searchResults", "entity.urn")
			if !slices.Equal(got, tt.want) {
				t.Errorf("lineage flags %v: upstreams of dst = %v, want %v (the ghost never)", tt.flags, got, tt.want)
			}
		}
	})
	t.Run("counts", func(t *testing.T) {
		d := ui.run(t, "getSearchAcrossLineageCounts", map[string]any{"urn": linSrc})
		if n := num(t, get(t, d, "downstreams.total")); n != 2 {
			t.Errorf("downstreams of src at degree 1 = %d, want 2", n)
		}
		if n := num(t, get(t, d, "upstreams.total")); n != 0 {
			t.Errorf("upstreams of src = %d, want 0", n)
		}
		d = ui.run(t, "searchAcrossLineageNames", map[string]any{"input": map[string]any{"urn": linEnd, "direction": "UPSTREAM", "query": "lin_mid", "start": 0, "count": 10}})
		if got := urnsAt(t, d, "searchAcrossLineage.searchResults", "entity.urn"); !slices.Equal(got, []string{linMid}) {
			t.Errorf("upstreams of end matching lin_mid = %v", got)
		}
		for _, op := range []string{"searchAcrossLineageCount", "searchAcrossLineageStructure", "aggregateAcrossLineage"} {
			d := ui.run(t, op, map[string]any{"input": map[string]any{"urn": linEnd, "direction": "UPSTREAM", "query": "*", "orFilters": degreeFilter("1", "2", "3+")}})
			if op == "searchAcrossLineageCount" {
				if n := num(t, get(t, d, "searchAcrossLineage.total")); n != 3 {
					t.Errorf("%s: %d upstreams of end, want 3", op, n)
				}
			}
		}
	})
	t.Run("scroll", func(t *testing.T) {
		var got []string
		var scrollID any
		for page := 0; page < 5; page++ {
			in := map[string]any{"urn": linSrc, "direction": "DOWNSTREAM", "query": "*", "count": 3, "orFilters": degreeFilter("1", "2", "3+")}
			if scrollID != nil {
				in["scrollId"] = scrollID
			}
			d := ui.run(t, "getDownloadScrollAcrossLineageResults", map[string]any{"input": in})
			res := get(t, d, "scrollAcrossLineage")
			if n := num(t, get(t, res, "total")); n != 4 {
				t.Errorf("page %d: total %d, want 4", page, n)
			}
			got = append(got, urnsAt(t, res, "searchResults", "entity.urn")...)
			if scrollID = get(t, res, "nextScrollId"); scrollID == nil {
				break
			}
		}
		if want := []string{linDbt, linMid, linDst, linEnd}; !slices.Equal(got, want) {
			t.Errorf("scrolled %v, want %v", got, want)
		}
	})
}
