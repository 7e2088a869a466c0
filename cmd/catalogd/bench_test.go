package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// BenchmarkIngestPipeline measures the write path without HTTP: validation,
// versioning, defaults, edges and the in-store search index (unless
// CATALOGD_BENCH_NOSEARCH is set), in batches of 200 aspects of datasets
// not seen before, on SQLite and, when CATALOGD_TEST_POSTGRES names a
// server, on a fresh PostgreSQL database.
func BenchmarkIngestPipeline(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchIngestPipeline(b, "sqlite:"+filepath.Join(b.TempDir(), "bench.db")) })
	if dsn := os.Getenv("CATALOGD_TEST_POSTGRES"); dsn != "" {
		b.Run("postgres", func(b *testing.B) { benchIngestPipeline(b, freshPostgres(b, dsn)) })
	}
}

func benchIngestPipeline(b *testing.B, dsn string) {
	ctx := context.Background()
	db, err := store.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	reg := registry.Default()
	opts := []ingest.Option{}
	if os.Getenv("CATALOGD_BENCH_NOSEARCH") == "" {
		eng, err := db.OpenSearch(ctx, search.Fields(reg))
		if err != nil {
			b.Fatal(err)
		}
		opts = append(opts, ingest.WithIndexer(search.NewStoreIndexer(search.NewBuilder(reg), eng)))
	}
	svc := ingest.New(reg, db, opts...)
	// Every batch holds new datasets: repeating batches would measure
	// unchanged rewrites instead.
	gen := catalogGenerator{n: 1 << 30, interleaved: true}
	batches := make([][]catalog.Proposal, 0, b.N)
	var cur []catalog.Proposal
	for i := 0; len(batches) < b.N; i++ {
		for _, p := range gen.proposals(i) {
			raw, _ := json.Marshal(p)
			prop, err := ingest.DecodeProposal(raw)
			if err != nil {
				b.Fatal(err)
			}
			cur = append(cur, prop)
		}
		if len(cur) >= 200 {
			batches = append(batches, cur)
			cur = nil
		}
	}
	b.ResetTimer()
	cpu0 := processCPU()
	n := 0
	for _, batch := range batches {
		if _, err := svc.Ingest(ctx, catalog.SystemActor, batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "aspects/s")
	// CPU time (all goroutines, the checkpointer included) is steadier than
	// wall time on a shared machine.
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(n), "cpu-µs/aspect")
}

// processCPU returns the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestProposalsJSON checks that the bench client sends what json.Marshal
// makes of the generated proposals.
func TestProposalsJSON(t *testing.T) {
	gen := catalogGenerator{n: 1000}
	for _, i := range []int{0, 1, 2, 7, 12, 13, 96, 97, 499, 500, 999, 123456} {
		props := gen.proposals(i)
		raws := gen.proposalsJSON(i)
		if len(raws) != len(props) {
			t.Fatalf("dataset %d: %d proposals, want %d", i, len(raws), len(props))
		}
		for k, p := range props {
			want, _ := json.Marshal(p)
			if string(raws[k]) != string(want) {
				t.Fatalf("dataset %d proposal %d:\n got %s\nwant %s", i, k, raws[k], want)
			}
		}
		want, _ := json.Marshal(map[string]any{"proposals": props, "async": "false"})
		if got := batchBody(raws); string(got) != string(want) {
			t.Fatalf("dataset %d: batch body differs:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestGeneratorOrder checks both orders of the generated catalog: each uses
// every platform and schema, a connector's datasets come schema by schema,
// and interleaved ones rotate.
func TestGeneratorOrder(t *testing.T) {
	for _, n := range []int{1000, 100000, 12345} {
		for _, interleaved := range []bool{false, true} {
			g := catalogGenerator{n: n, interleaved: interleaved}
			type place struct {
				p string
				s int
			}
			seen := map[place]int{}
			changes := 0
			var prev place
			for i := 0; i < n; i++ {
				p, s := g.place(i)
				cur := place{p, s}
				if s < 0 || s >= benchSchemas {
					t.Fatalf("n=%d interleaved=%v: dataset %d in schema %d", n, interleaved, i, s)
				}
				if i > 0 && cur != prev {
					changes++
				}
				if _, ok := seen[cur]; ok && cur != prev && !interleaved {
					t.Fatalf("n=%d: dataset %d returns to %v after leaving it", n, i, cur)
				}
				seen[cur]++
				prev = cur
			}
			platforms := map[string]bool{}
			for pl := range seen {
				platforms[pl.p] = true
			}
			if len(platforms) != len(benchPlatforms) {
				t.Errorf("n=%d interleaved=%v: %d platforms used, want %d", n, interleaved, len(platforms), len(benchPlatforms))
			}
			if interleaved && changes != n-1 {
				t.Errorf("n=%d interleaved: %d changes of place between consecutive datasets, want %d", n, changes, n-1)
			}
			if !interleaved && (len(seen) != len(benchPlatforms)*benchSchemas || changes != len(seen)-1) {
				t.Errorf("n=%d connector: %d places and %d changes, want %d places, each entered once", n, len(seen), changes, len(benchPlatforms)*benchSchemas)
			}
		}
	}
}

// TestCutBatches checks both ways of cutting the generated proposals into
// batches: every proposal is sent once, in order; cut by entity, a batch
// ends with a dataset's last proposal; cut by count, every batch but the
// last holds exactly ingestBatch.
func TestCutBatches(t *testing.T) {
	gen := catalogGenerator{n: 500}
	var all [][]byte
	var ends []int // index in all after each dataset's last proposal
	for i := range gen.n {
		all = append(all, gen.proposalsJSON(i)...)
		ends = append(ends, len(all))
	}
	for _, byCount := range []bool{false, true} {
		out := make(chan [][]byte)
		go func() {
			cutBatches(gen, gen.n, byCount, out)
			close(out)
		}()
		var got [][]byte
		var batches [][][]byte
		for b := range out {
			batches = append(batches, b)
			got = append(got, b...)
		}
		if len(got) != len(all) {
			t.Fatalf("byCount=%v: %d proposals sent, want %d", byCount, len(got), len(all))
		}
		for i := range all {
			if string(got[i]) != string(all[i]) {
				t.Fatalf("byCount=%v: proposal %d out of order", byCount, i)
			}
		}
		sent, splits := 0, 0
		for k, b := range batches {
			sent += len(b)
			last := k == len(batches)-1
			switch {
			case byCount && !last && len(b) != ingestBatch:
				t.Errorf("cut by count: batch %d holds %d proposals", k, len(b))
			case !byCount && (len(b) < ingestBatch && !last || !slices.Contains(ends, sent)):
				t.Errorf("cut by entity: batch %d of %d proposals ends at %d, not after a dataset", k, len(b), sent)
			}
			if !slices.Contains(ends, sent) {
				splits++
			}
		}
		if byCount && splits == 0 {
			t.Errorf("cut by count: no batch ends inside a dataset")
		}
	}
}

// TestBenchSearches runs catalogd bench on a small catalog with --searches:
// it must time every kind of search on each store, and report what each
// found.
func TestBenchSearches(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			args := append([]string{"bench", "--datasets", "400", "--reads", "50ms", "--searches", "2"}, st.args...)
			out, err := exec.Command(bin, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("catalogd bench: %v\n%s", err, out)
			}
			for _, want := range []string{
				`search, one word \(1 hits\), .*: p50 \S+ p99 \S+`,
				`search, no hits \(0 hits\)`,
				`search, broad: every name \(400 hits\)`,
				`search, broad: every description \(400 hits\)`,
				`search, broad: every name and column \(400 hits\)`,
				`search, two words \([1-9][0-9]* hits\)`,
				`autocomplete \(10 suggestions\)`,
			} {
				if !regexp.MustCompile(want).Match(out) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
