package meili

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/catalogtest"
)

var indexSeq atomic.Int64

// openTest connects to the Meilisearch named by CATALOGD_TEST_MEILISEARCH
// (key in CATALOGD_TEST_MEILISEARCH_KEY) with a fresh index that is dropped
// when the test ends, or skips the test when no server is configured.
func openTest(t *testing.T, fields []catalog.SearchField) *Engine {
	t.Helper()
	url := os.Getenv("CATALOGD_TEST_MEILISEARCH")
	if url == "" {
		t.Skip("CATALOGD_TEST_MEILISEARCH is not set (e.g. http://127.0.0.1:7700): skipping the Meilisearch engine tests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uid := fmt.Sprintf("catalogd_test_%d_%d", time.Now().UnixNano(), indexSeq.Add(1))
	e, err := New(ctx, url, os.Getenv("CATALOGD_TEST_MEILISEARCH_KEY"), fields, WithIndex(uid), WithKeyedFields(catalogtest.KeyedSearchFields))
	if err != nil {
		t.Fatalf("open meilisearch: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := e.DropIndex(ctx); err != nil {
			t.Errorf("drop index %s: %v", uid, err)
		}
		e.Close()
	})
	return e
}

// TestSearchContract runs the shared conformance suite of catalog.SearchIndex
// against a real Meilisearch.
func TestSearchContract(t *testing.T) {
	catalogtest.RunSearchTests(t, func(t *testing.T, fields []catalog.SearchField) catalog.SearchIndex {
		return openTest(t, fields)
	})
}

// TestEngineExtras covers what is particular to this engine: paging that is
// not aligned on the page size (a multi-search), long values stored as
// digests, and the bounded scan of substring conditions.
func TestEngineExtras(t *testing.T) {
	e := openTest(t, testFields)
	ctx := context.Background()
	long := strings.Repeat("Long value ", 60)
	var docs []catalog.Document
	for i := range 5 {
		docs = append(docs, catalog.Document{URN: fmt.Sprintf("urn:li:dataset:d%d", i), EntityType: "dataset",
			Fields: map[string][]any{"name": {fmt.Sprintf("table%d", i)}, "description": {long + fmt.Sprint(i)},
				"rowCount": {float64(i)}}})
	}
	if err := e.Upsert(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, catalog.SearchQuery{Start: 1, Count: 3})
	if err != nil || res.Total != 5 || len(res.Hits) != 3 {
		t.Errorf("unaligned page: total %d, %d hits, %v; want 5, 3", res.Total, len(res.Hits), err)
	}
	res, err = e.Search(ctx, catalog.SearchQuery{Count: 10,
		Filter: catalog.Filter{Or: [][]catalog.Criterion{{crit("description", "EQUAL", long+"3")}}}})
	if err != nil || res.Total != 1 || res.Hits[0].URN != "urn:li:dataset:d3" {
		t.Errorf("EQUAL on a long value: %+v, %v", res, err)
	}
	res, err = e.Search(ctx, catalog.SearchQuery{Count: 2, Start: 1,
		Filter: catalog.Filter{Or: [][]catalog.Criterion{{crit("name", "START_WITH", "TABLE"), crit("rowCount", "LESS_THAN", "4")}}}})
	if err != nil || res.Total != 4 || len(res.Hits) != 2 {
		t.Errorf("post-filtered page: total %d, %d hits, %v; want 4, 2", res.Total, len(res.Hits), err)
	}
}

// TestUnavailable checks that an unreachable server is reported as
// Unavailable; it needs no server.
func TestUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Port 1 on the loopback interface refuses connections.
	_, err := New(ctx, "http://127.0.0.1:1", "", testFields)
	if catalog.KindOf(err) != catalog.Unavailable {
		t.Errorf("New against a closed port = %v, want Unavailable", err)
	}
}
