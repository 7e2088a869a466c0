package graph_test

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graph"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

// loadLayeredLineage writes a lineage graph of layers x width datasets, each
// dataset below the first layer DownstreamOf fanIn random datasets of the
// layer above, straight through the store (the edges ingest would derive
// from upstreamLineage aspects).
func loadLayeredLineage(b *testing.B, db *store.DB, layers, width, fanIn int) {
	ctx := context.Background()
	rng := mrand.New(mrand.NewPCG(1, 2))
	name := func(layer, i int) string { return ds(fmt.Sprintf("l%d_n%d", layer, i)) }
	var sets []catalog.EdgeSet
	flush := func() {
		if err := db.Update(ctx, func(tx catalog.Tx) error { return tx.ReplaceEdges(ctx, sets) }); err != nil {
			b.Fatalf("load edges: %v", err)
		}
		sets = sets[:0]
	}
	for l := 1; l < layers; l++ {
		for i := range width {
			set := catalog.EdgeSet{URN: name(l, i), Aspect: "upstreamLineage"}
			for range fanIn {
				set.Edges = append(set.Edges, catalog.Edge{Relationship: "DownstreamOf", Destination: name(l-1, rng.IntN(width)),
					Created: catalog.AuditStamp{Time: 1700000000000, Actor: "urn:li:corpuser:etl"}})
			}
			sets = append(sets, set)
			if len(sets) == 500 {
				flush()
			}
		}
	}
	flush()
}

// BenchmarkLineage5Hops walks 5 hops of lineage over a 10,000-dataset graph
// (10 layers of 1,000, three upstreams each), upstream from the last layer
// and downstream from the first.
func BenchmarkLineage5Hops(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, db *store.DB) {
		const layers, width, fanIn = 10, 1000, 3
		start := time.Now()
		loadLayeredLineage(b, db, layers, width, fanIn)
		b.Logf("loaded %d nodes, %d edges in %v", layers*width, (layers-1)*width*fanIn, time.Since(start).Round(time.Millisecond))
		svc := graph.New(db, registry.Default())
		for _, tc := range []struct {
			name  string
			layer int
			dir   graph.Direction
		}{{"upstream", layers - 1, graph.Upstream}, {"downstream", 0, graph.Downstream}} {
			b.Run(tc.name, func(b *testing.B) {
				ctx := context.Background()
				rng := mrand.New(mrand.NewPCG(3, 4))
				var durations []time.Duration
				nodes, deepest := 0, 0
				for b.Loop() {
					urn := ds(fmt.Sprintf("l%d_n%d", tc.layer, rng.IntN(width)))
					t0 := time.Now()
					got, err := svc.Lineage(ctx, urn, tc.dir, 5)
					durations = append(durations, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
					if len(got) > 0 {
						deepest = max(deepest, got[len(got)-1].Hops)
					}
					nodes += len(got)
				}
				if deepest != 5 {
					b.Fatalf("no walk went 5 hops deep (deepest %d)", deepest)
				}
				b.ReportMetric(float64(nodes)/float64(len(durations)), "nodes/walk")
				storetest.ReportPercentiles(b, durations)
			})
		}
	})
}
