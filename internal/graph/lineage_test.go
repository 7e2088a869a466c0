package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graph"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/store"
)

func openStore(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "catalog.db"))
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func ds(name string) string {
	return "urn:li:dataset:(urn:li:dataPlatform:hive," + name + ",PROD)"
}

func job(name string) string {
	return "urn:li:dataJob:(urn:li:dataFlow:(airflow,dag,PROD)," + name + ")"
}

// upstreams is an upstreamLineage proposal making urn downstream of ups.
func upstreams(urn string, ups ...string) catalog.Proposal {
	list := make([]map[string]any, len(ups))
	for i, u := range ups {
		list[i] = map[string]any{"dataset": u, "type": "TRANSFORMED",
			"auditStamp": map[string]any{"time": 1, "actor": "urn:li:corpuser:etl"}}
	}
	return proposal("dataset", urn, "upstreamLineage", map[string]any{"upstreams": list})
}

func proposal(entity, urn, aspect string, v any) catalog.Proposal {
	b, _ := json.Marshal(v)
	return catalog.Proposal{EntityType: entity, EntityURN: urn, ChangeType: catalog.Upsert,
		AspectName: aspect, Value: b, ContentType: "application/json"}
}

// ingestAll writes the proposals through the real ingest pipeline, which
// derives the edges the lineage service walks.
func ingestAll(t *testing.T, db *store.DB, props ...catalog.Proposal) {
	t.Helper()
	svc := ingest.New(registry.Default(), db)
	if _, err := svc.Ingest(context.Background(), catalog.SystemActor, props); err != nil {
		t.Fatalf("ingest: %v", err)
	}
}

// describe renders nodes as "urn@hops" with short names, for messages.
func describe(nodes []graph.LineageNode) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = fmt.Sprintf("%s@%d", short(n.URN), n.Hops)
	}
	return out
}

func short(urn string) string {
	u, _ := catalog.ParseURN(urn)
	parts := u.Parts()
	if len(parts) == 3 {
		return parts[1]
	}
	return parts[len(parts)-1]
}

func TestLineage(t *testing.T) {
	db := openStore(t)
	// a → b → c → d → e (b is downstream of a, and so on), a cycle e → c,
	// a side branch a → x, and a job reading c and writing y.
	ingestAll(t, db,
		upstreams(ds("b"), ds("a")),
		upstreams(ds("c"), ds("b"), ds("e")),
		upstreams(ds("d"), ds("c")),
		upstreams(ds("e"), ds("d")),
		upstreams(ds("x"), ds("a")),
		proposal("dataJob", job("j"), "dataJobInputOutput", map[string]any{
			"inputDatasets": []string{ds("c")}, "outputDatasets": []string{ds("y")},
			// Field-level inputs are Consumes edges too, but not lineage.
			"inputDatasetFields": []string{"urn:li:schemaField:(" + ds("c") + ",id)"},
		}),
		// Ownership edges must never be followed.
		proposal("dataset", ds("c"), "ownership", map[string]any{"owners": []map[string]any{{"owner": "urn:li:corpuser:jdoe", "type": "DATAOWNER"}}}),
	)
	svc := graph.New(db, registry.Default())
	ctx := context.Background()

	tests := []struct {
		name    string
		start   string
		dir     graph.Direction
		maxHops int
		want    []string
	}{
		{"upstream one hop", ds("d"), graph.Upstream, 1, []string{"c@1"}},
		{"upstream through the cycle", ds("d"), graph.Upstream, 0, []string{"c@1", "b@2", "e@2", "a@3"}},
		{"upstream hop limit", ds("d"), graph.Upstream, 2, []string{"c@1", "b@2", "e@2"}},
		{"downstream from the root", ds("a"), graph.Downstream, 0, []string{"b@1", "x@1", "c@2", "d@3", "j@3", "e@4", "y@4"}},
		{"downstream hop limit", ds("a"), graph.Downstream, 3, []string{"b@1", "x@1", "c@2", "d@3", "j@3"}},
		{"job output is downstream of the job", job("j"), graph.Downstream, 1, []string{"y@1"}},
		{"job input is upstream of the job", job("j"), graph.Upstream, 1, []string{"c@1"}},
		{"a produced dataset has its job upstream", ds("y"), graph.Upstream, 2, []string{"j@1", "c@2"}},
		{"cycle never returns the start", ds("c"), graph.Downstream, 0, []string{"d@1", "j@1", "e@2", "y@2"}},
		{"no lineage", ds("nothing"), graph.Upstream, 5, nil},
		{"no upstream of a root", ds("a"), graph.Upstream, 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := svc.Lineage(ctx, tt.start, tt.dir, tt.maxHops)
			if err != nil {
				t.Fatalf("Lineage(%s, %v, %d): %v", short(tt.start), tt.dir, tt.maxHops, err)
			}
			// Order within a hop level depends on parent order; compare per level.
			gotS, wantS := describe(got), slices.Clone(tt.want)
			slices.Sort(gotS)
			slices.Sort(wantS)
			if !slices.Equal(gotS, wantS) {
				t.Fatalf("Lineage(%s, %v, %d) = %v, want %v", short(tt.start), tt.dir, tt.maxHops, describe(got), tt.want)
			}
			for i, n := range got {
				if i > 0 && got[i-1].Hops > n.Hops {
					t.Errorf("node %s (hop %d) after a node of hop %d: not nearest first", short(n.URN), n.Hops, got[i-1].Hops)
				}
				if len(n.Path) != n.Hops+1 || n.Path[0] != tt.start || n.Path[len(n.Path)-1] != n.URN {
					t.Errorf("node %s: path %v does not lead from the start to it in %d hops", short(n.URN), n.Path, n.Hops)
				}
				if n.Relationship == "" {
					t.Errorf("node %s: no relationship", short(n.URN))
				}
			}
		})
	}
}

// etlStamp is the auditStamp upstreams gives each upstream: the edge's
// updatedOn and updatedActor.
var etlStamp = catalog.AuditStamp{Time: 1, Actor: "urn:li:corpuser:etl"}

func TestLineagePaths(t *testing.T) {
	db := openStore(t)
	ingestAll(t, db, upstreams(ds("b"), ds("a")), upstreams(ds("c"), ds("b")))
	got, err := graph.New(db, registry.Default()).Lineage(context.Background(), ds("c"), graph.Upstream, 0)
	if err != nil {
		t.Fatal(err)
	}
	// node is what a LineageNode says, its edge's stamps decoded.
	type node struct {
		URN              string
		Hops             int
		Paths            [][]string
		Degrees          []int
		Relationship     string
		Created, Updated catalog.AuditStamp
		Manual, Explored bool
	}
	var nodes []node
	for _, n := range got {
		if fmt.Sprint(n.Path) != fmt.Sprint(n.Paths[0]) {
			t.Errorf("node %s: Path %v is not Paths[0] %v", n.URN, n.Path, n.Paths[0])
		}
		created, updated, manual := n.Stamps()
		nodes = append(nodes, node{n.URN, n.Hops, n.Paths, n.Degrees, n.Relationship, created, updated, manual, n.Explored})
	}
	want := []node{
		{URN: ds("b"), Hops: 1, Paths: [][]string{{ds("c"), ds("b")}}, Degrees: []int{1}, Relationship: "DownstreamOf", Updated: etlStamp, Explored: true},
		{URN: ds("a"), Hops: 2, Paths: [][]string{{ds("c"), ds("b"), ds("a")}}, Degrees: []int{2}, Relationship: "DownstreamOf", Updated: etlStamp, Explored: true},
	}
	if fmt.Sprint(nodes) != fmt.Sprint(want) {
		t.Fatalf("Lineage = %+v\nwant %+v", nodes, want)
	}
}

func TestLineageErrors(t *testing.T) {
	db := openStore(t)
	// A long chain to trip the node limit.
	var props []catalog.Proposal
	for i := 1; i <= 20; i++ {
		props = append(props, upstreams(ds(fmt.Sprint("n", i)), ds(fmt.Sprint("n", i-1))))
	}
	ingestAll(t, db, props...)
	tests := []struct {
		name string
		svc  *graph.Service
		urn  string
		dir  graph.Direction
		kind catalog.Kind
		msg  string
	}{
		{"bad direction", graph.New(db, registry.Default()), ds("n0"), graph.Direction(9), catalog.Invalid, "direction"},
		{"bad URN", graph.New(db, registry.Default()), "dataset:x", graph.Upstream, catalog.Invalid, "malformed URN"},
		{"node limit", graph.New(db, registry.Default(), graph.WithMaxNodes(10)), ds("n0"), graph.Downstream, catalog.TooLarge, "exceeds 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.svc.Lineage(context.Background(), tt.urn, tt.dir, 0)
			if err == nil || catalog.KindOf(err) != tt.kind || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Lineage: error %v (kind %v), want kind %v mentioning %q", err, catalog.KindOf(err), tt.kind, tt.msg)
			}
		})
	}
	// The limit is on collected nodes: exactly at it is fine.
	got, err := graph.New(db, registry.Default(), graph.WithMaxNodes(20)).Lineage(context.Background(), ds("n0"), graph.Downstream, 0)
	if err != nil || len(got) != 20 {
		t.Fatalf("Lineage with a limit of 20 over 20 nodes: %d nodes, %v", len(got), err)
	}
}

func TestLineageRelationships(t *testing.T) {
	got := graph.New(nil, registry.Default()).LineageRelationships()
	for _, want := range []string{"Consumes", "Contains", "DownstreamOf", "Produces"} {
		if !slices.Contains(got, want) {
			t.Errorf("LineageRelationships() = %v, missing %s", got, want)
		}
	}
	for _, not := range []string{"OwnedBy", "TaggedWith", "IsMemberOfGroup"} {
		if slices.Contains(got, not) {
			t.Errorf("LineageRelationships() = %v, must not include %s", got, not)
		}
	}
}

// TestWalkOptions covers what a Query adds to a plain walk: pass-through
// entity types, the per-entity exploration limit, time bounds, every
// shortest path and every distance met.
func TestWalkOptions(t *testing.T) {
	db := openStore(t)
	// a → j (a job) → b → c, a → c directly too (edges without time); a → m
	// and a → n; d reads e, e reads f, through edges created at 1000 and
	// 5000. A job comes first in its hop: its edges are looked up first.
	timed := func(urn string, ups map[string]int64) catalog.Proposal {
		var list []map[string]any
		for _, u := range slices.Sorted(maps.Keys(ups)) {
			list = append(list, map[string]any{"dataset": u, "type": "TRANSFORMED", "created": map[string]any{"time": ups[u], "actor": "urn:li:corpuser:etl"},
				"auditStamp": map[string]any{"time": 0, "actor": "urn:li:corpuser:unknown"}})
		}
		return proposal("dataset", urn, "upstreamLineage", map[string]any{"upstreams": list})
	}
	ingestAll(t, db,
		proposal("dataJob", job("j"), "dataJobInputOutput", map[string]any{"inputDatasets": []string{ds("a")}, "outputDatasets": []string{ds("b")}}),
		timed(ds("c"), map[string]int64{ds("b"): 0, ds("a"): 0}),
		upstreams(ds("m"), ds("a")),
		upstreams(ds("n"), ds("a")),
		timed(ds("d"), map[string]int64{ds("e"): 1000}),
		timed(ds("e"), map[string]int64{ds("f"): 5000}),
	)
	svc := graph.New(db, registry.Default())
	ctx := context.Background()
	tests := []struct {
		name string
		q    graph.Query
		want []string
	}{
		{"plain", graph.Query{URN: ds("a"), Direction: graph.Downstream}, []string{"j@1", "c@1", "m@1", "n@1", "b@2"}},
		{"jobs pass through", graph.Query{URN: ds("a"), Direction: graph.Downstream, IgnoreAsHops: map[string][]string{"datajob": nil}},
			[]string{"j@1", "c@1", "m@1", "n@1", "b@1"}},
		{"jobs of another platform count", graph.Query{URN: ds("a"), Direction: graph.Downstream, IgnoreAsHops: map[string][]string{"datajob": {"urn:li:dataPlatform:spark"}}},
			[]string{"j@1", "c@1", "m@1", "n@1", "b@2"}},
		{"jobs of their platform pass through", graph.Query{URN: ds("a"), Direction: graph.Downstream, IgnoreAsHops: map[string][]string{"datajob": {"urn:li:dataPlatform:airflow"}}},
			[]string{"j@1", "c@1", "m@1", "n@1", "b@1"}},
		{"two per entity", graph.Query{URN: ds("a"), Direction: graph.Downstream, PerHopLimit: 2}, []string{"j@1", "c@1", "b@2"}},
		{"no time bounds", graph.Query{URN: ds("d"), Direction: graph.Upstream}, []string{"e@1", "f@2"}},
		{"edges in the window", graph.Query{URN: ds("d"), Direction: graph.Upstream, StartTimeMillis: 500, EndTimeMillis: 1500}, []string{"e@1"}},
		{"edges out of the window", graph.Query{URN: ds("d"), Direction: graph.Upstream, StartTimeMillis: 2000, EndTimeMillis: 3000}, nil},
		{"edges with no time always", graph.Query{URN: ds("c"), Direction: graph.Upstream, StartTimeMillis: 2000, EndTimeMillis: 3000}, []string{"a@1", "b@1", "j@2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := svc.Walk(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if d := describe(got); fmt.Sprint(d) != fmt.Sprint(tt.want) && !(len(d) == 0 && len(tt.want) == 0) {
				t.Errorf("Walk = %v, want %v", d, tt.want)
			}
		})
	}

	t.Run("paths and degrees", func(t *testing.T) {
		got, err := svc.Walk(ctx, graph.Query{URN: ds("c"), Direction: graph.Upstream})
		if err != nil {
			t.Fatal(err)
		}
		// c reads a directly and through b ← j ← a: a is at distance 1 and 3.
		byURN := map[string]graph.LineageNode{}
		for _, n := range got {
			byURN[n.URN] = n
		}
		a := byURN[ds("a")]
		if a.Hops != 1 || !slices.Equal(a.Degrees, []int{1, 3}) || len(a.Paths) != 1 {
			t.Errorf("a: hops %d degrees %v paths %v, want 1, [1 3], one path", a.Hops, a.Degrees, a.Paths)
		}
		if j := byURN[job("j")]; !j.Explored || j.IgnoredAsHop {
			t.Errorf("j: explored %v ignoredAsHop %v, want explored", j.Explored, j.IgnoredAsHop)
		}
		// Two shortest paths reach x from y: through p and through q.
		ingestAll(t, db, upstreams(ds("p"), ds("x")), upstreams(ds("q"), ds("x")), upstreams(ds("y"), ds("p"), ds("q")))
		got, err = svc.Walk(ctx, graph.Query{URN: ds("y"), Direction: graph.Upstream})
		if err != nil {
			t.Fatal(err)
		}
		last := got[len(got)-1]
		want := [][]string{{ds("y"), ds("p"), ds("x")}, {ds("y"), ds("q"), ds("x")}}
		if last.URN != ds("x") || fmt.Sprint(last.Paths) != fmt.Sprint(want) {
			t.Errorf("x: paths %v, want %v", last.Paths, want)
		}
	})
}
