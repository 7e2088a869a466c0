package store_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// TestRebuildWithWriterMeanwhile rebuilds the PostgreSQL index as a full
// restore does while a writer adds one of the rebuilt documents between
// the reset and the bulk insert: the new documents are copied in (COPY),
// which must fall back to replacing the one the writer added, without
// failing or doubling it.
func TestRebuildWithWriterMeanwhile(t *testing.T) {
	if os.Getenv(postgresEnv) == "" {
		t.Skip(postgresEnv + " is not set")
	}
	ctx := context.Background()
	fields := []catalog.SearchField{
		{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true, Autocomplete: true},
		{Name: "tags", Type: "URN", Boost: 0.5, QueryByDefault: true, Filter: true},
	}
	doc := func(i int, word string) catalog.Document {
		urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:p,t%03d,PROD)", i)
		return catalog.Document{URN: urn, EntityType: "dataset", Fields: map[string][]any{
			"urn": {urn}, "name": {fmt.Sprintf("%s_%d", word, i)}, "tags": {"urn:li:tag:t"},
		}}
	}
	db := openPostgres(t)
	s, err := db.OpenSearch(ctx, fields)
	if err != nil {
		t.Fatal(err)
	}
	var old []catalog.Document
	for i := range 20 {
		old = append(old, doc(i, "stale"))
	}
	if err := s.Upsert(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(ctx, func(tx catalog.Tx) error { return s.ResetDocuments(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
	// The writer's document, then the rebuilt ones, which hold it too.
	if err := s.Upsert(ctx, []catalog.Document{doc(7, "writer")}); err != nil {
		t.Fatal(err)
	}
	var rebuilt []catalog.Document
	for i := range 20 {
		rebuilt = append(rebuilt, doc(i, "fresh"))
	}
	if err := db.Update(ctx, func(tx catalog.Tx) error { return s.InsertPrepared(ctx, tx, s.PrepareDocuments(rebuilt)) }); err != nil {
		t.Fatalf("insert the rebuilt documents: %v", err)
	}
	if err := s.FinishReset(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want int
	}{{"fresh", 20}, {"stale", 0}, {"writer", 0}, {"*", 20}} {
		res, err := s.Search(ctx, catalog.SearchQuery{Text: c.text, EntityTypes: []string{"dataset"}, Facets: []string{"tags"}, Count: 30})
		if err != nil {
			t.Fatalf("search %q: %v", c.text, err)
		}
		if res.Total != c.want || len(res.Hits) != c.want {
			t.Errorf("search %q: total %d, %d hits, want %d", c.text, res.Total, len(res.Hits), c.want)
		}
		if c.want > 0 && res.Facets["tags"]["urn:li:tag:t"] != c.want {
			t.Errorf("search %q: tag facet %v, want %d", c.text, res.Facets["tags"], c.want)
		}
	}
}

// TestRebuiltIndexesKeepShortPendingLists checks that the full-text indexes
// a rebuild creates again keep their short GIN pending lists: with the
// default 4 MB, a search after an ingest read hundreds of pending pages.
func TestRebuiltIndexesKeepShortPendingLists(t *testing.T) {
	if os.Getenv(postgresEnv) == "" {
		t.Skip(postgresEnv + " is not set")
	}
	ctx := context.Background()
	db := openPostgres(t)
	s, err := db.OpenSearch(ctx, []catalog.SearchField{{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true, Autocomplete: true}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, index := range []string{"search_doc_tsv0", "search_doc_tsv1", "search_doc_ac"} {
			var opts string
			err := db.Bun().DB.QueryRowContext(ctx, "SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = $1::regclass", index).Scan(&opts)
			if err != nil {
				t.Fatal(err)
			}
			if opts != "gin_pending_list_limit=64" {
				t.Errorf("%s: index %s has options %q, want gin_pending_list_limit=64", when, index, opts)
			}
		}
	}
	check("opened")
	if err := db.Update(ctx, func(tx catalog.Tx) error { return s.ResetDocuments(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishReset(ctx); err != nil {
		t.Fatal(err)
	}
	check("rebuilt")
}
