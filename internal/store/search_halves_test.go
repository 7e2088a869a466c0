package store_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
	"github.com/catalogd/catalogd/internal/testproc"
)

// TestSearchHalvesUnderLoad runs PostgreSQL searches whose windows are
// counted in halves many at a time, so that some find a connection beside
// free and the others count both halves themselves, and cancels others at
// random points: every search that completes must give the result it gives
// alone, the store must go on answering, and once closed it must leave no
// goroutine behind.
func TestSearchHalvesUnderLoad(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, storetest.PostgresDSN(t), store.WithMaxConns(8))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()
	fields := []catalog.SearchField{
		{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true},
		{Name: "description", Type: "TEXT", Boost: 1, QueryByDefault: true},
		{Name: "platform", Type: "URN", Boost: 1, Filter: true},
	}
	s, err := db.OpenSearch(ctx, fields)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"alpha", "beta", "gamma", "delta"}
	var docs []catalog.Document
	for i := range 3000 {
		urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:p%d,t%04d,PROD)", i%5, i)
		docs = append(docs, catalog.Document{URN: urn, EntityType: "dataset", Fields: map[string][]any{
			"urn":         {urn},
			"name":        {fmt.Sprintf("%s_t%04d", words[i%4], i)},
			"description": {words[(i/4)%4] + " " + words[(i/16)%4] + " shared"},
			"platform":    {fmt.Sprintf("urn:li:dataPlatform:p%d", i%5)},
		}})
	}
	if err := s.Upsert(ctx, docs); err != nil {
		t.Fatal(err)
	}
	store.SetSplitHits(s, 0)
	var queries []catalog.SearchQuery
	for _, text := range []string{"alpha", "beta gamma", "shared", "delta shared", "gam", "nothing"} {
		queries = append(queries, catalog.SearchQuery{Text: text, EntityTypes: []string{"dataset"}, Facets: []string{"platform"}, Count: 10},
			catalog.SearchQuery{Text: text, Facets: []string{"platform"}, Start: 20, Count: 5})
	}
	want := make([]catalog.SearchResult, len(queries))
	for i, q := range queries {
		if want[i], err = s.Search(ctx, q); err != nil {
			t.Fatalf("search %q: %v", q.Text, err)
		}
	}
	var beside, alone int
	var mu sync.Mutex
	store.TraceSplits(s, func(b bool) {
		mu.Lock()
		defer mu.Unlock()
		if b {
			beside++
		} else {
			alone++
		}
	})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 6 {
				i := (g + r) % len(queries)
				if (g+r)%3 == 0 {
					// Cancelled somewhere in the search, or not at all.
					cctx, cancel := context.WithTimeout(ctx, time.Duration(r*300)*time.Microsecond)
					_, _ = s.Search(cctx, queries[i])
					cancel()
					continue
				}
				got, err := s.Search(ctx, queries[i])
				if err != nil {
					errs <- fmt.Errorf("search %q: %w", queries[i].Text, err)
					return
				}
				if !reflect.DeepEqual(got, want[i]) {
					errs <- fmt.Errorf("search %q [%d, +%d] at once with others: %v, alone: %v", queries[i].Text, queries[i].Start, queries[i].Count, got, want[i])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if beside == 0 || alone == 0 {
		t.Errorf("windows in halves at once with a connection beside: %d, on one connection: %d; want both", beside, alone)
	}
	for i, q := range queries {
		got, err := s.Search(ctx, q)
		if err != nil {
			t.Fatalf("search %q after the cancellations: %v", q.Text, err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("search %q after the cancellations: %v, want %v", q.Text, got, want[i])
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	closed = true
	var stacks string
	for range 50 {
		if stacks = testproc.GoroutineStacks(); !strings.Contains(stacks, "store.(*DB).beside") && !strings.Contains(stacks, "store.(*besides)") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("a search's second half outlived Close:\n%s", stacks)
}
