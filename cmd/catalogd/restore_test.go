package main

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// TestRestoreIndicesCommand loads DataHub's sample data into each store,
// then rebuilds the whole index with catalogd restore-indices: searches,
// facets and suggestions must be those the load's own indexing gave, and
// on PostgreSQL the full-text indexes the rebuild dropped must be back,
// with statistics for the planner.
func TestRestoreIndicesCommand(t *testing.T) {
	dir := samplesDir(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			data := t.TempDir()
			storeArgs := append([]string{"--data-dir", data}, st.args...)
			if stdout, stderr, err := runCLI(t, append(append([]string{"ingest"}, storeArgs...), filepath.Join(dir, "bootstrap_mce.json"), filepath.Join(dir, "demo_data.json"))...); err != nil {
				t.Fatalf("ingest: %v\n%s\n%s", err, stdout, stderr)
			}
			dsn := "sqlite:" + filepath.Join(data, "catalogd.db")
			if len(st.args) > 0 {
				dsn = st.args[1]
			}
			snapshot := func() []any {
				t.Helper()
				ctx := context.Background()
				db, err := store.Open(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				eng, err := db.OpenSearch(ctx, search.Fields(registry.Default()))
				if err != nil {
					t.Fatal(err)
				}
				svc := search.NewService(registry.Default(), eng)
				var out []any
				for _, p := range []search.SearchParams{
					{Entities: []string{"dataset"}, Input: "*", Count: 20},
					{Entities: []string{"dataset"}, Input: "sample", Count: 20},
					{Entities: []string{"dataset"}, Input: "hive dataset", Count: 5},
					{Entities: []string{"chart"}, Input: "", Count: 20},
				} {
					res, err := svc.Search(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, res)
				}
				sugg, err := svc.Autocomplete(ctx, search.AutocompleteParams{Entities: []string{"dataset"}, Query: "samp", Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				return append(out, sugg)
			}
			before := snapshot()
			if first := before[0].(search.SearchResponse); first.Total == 0 {
				t.Fatalf("nothing indexed by the load: %+v", first)
			}
			start := time.Now()
			stdout, stderr, err := runCLI(t, append([]string{"restore-indices", "--quiet"}, storeArgs...)...)
			if err != nil || !strings.Contains(stdout, "restored ") {
				t.Fatalf("restore-indices: %v\n%s\n%s", err, stdout, stderr)
			}
			if after := snapshot(); !reflect.DeepEqual(after, before) {
				t.Errorf("after restore-indices:\n%+v\nbefore:\n%+v", after, before)
			}
			if len(st.args) == 0 {
				return
			}
			db, err := store.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var indexes int
			var analyzed time.Time
			if err := db.Bun().QueryRowContext(context.Background(), `SELECT
	(SELECT count(*) FROM pg_indexes WHERE tablename = 'search_doc' AND indexname IN ('search_doc_tsv0', 'search_doc_tsv1', 'search_doc_ac')),
	(SELECT coalesce(last_analyze, 'epoch') FROM pg_stat_user_tables WHERE relname = 'search_doc')`).Scan(&indexes, &analyzed); err != nil {
				t.Fatal(err)
			}
			if indexes != 3 || analyzed.Before(start) {
				t.Errorf("after restore-indices: %d full-text indexes, search_doc analyzed at %v (restore began %v); want 3, after", indexes, analyzed, start)
			}
		})
	}
}
