package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

// TestSearchCountsCommonWordsOverASample writes enough documents on
// PostgreSQL for a word in all of them to be counted over a sample, and
// checks what samples may change (which 10,000 hits are counted) and what
// they may not: totals, pages, and the exact counts of a query with fewer
// hits, which falls back to counting every hit when its sample falls short.
// The same holds of windows counted in halves (see textWindow), at once on
// two connections or one after the other on one, which then count their
// 10,000 hits as the first 5,000 of each half's index, or more of one
// half's when the other holds fewer.
func TestSearchCountsCommonWordsOverASample(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresDSN(t)
	db := storetest.Open(t, dsn)
	fields := []catalog.SearchField{
		{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true},
		{Name: "description", Type: "TEXT", Boost: 1, QueryByDefault: true},
		{Name: "platform", Type: "URN", Boost: 1, Filter: true},
	}
	s, err := db.OpenSearch(ctx, fields)
	if err != nil {
		t.Fatal(err)
	}
	const n = 24 * 1024
	platform := func(i int) string { return fmt.Sprintf("urn:li:dataPlatform:p%d", i%4) }
	for from := 0; from < n; from += 4096 {
		var docs []catalog.Document
		for i := from; i < from+4096; i++ {
			urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:p%d,t%05d,PROD)", i%4, i)
			desc := "common"
			if i%2 == 0 {
				desc += " half"
			}
			if i%1000 == 0 {
				desc += " rare"
			}
			docs = append(docs, catalog.Document{URN: urn, EntityType: "dataset", Fields: map[string][]any{
				"urn": {urn}, "name": {fmt.Sprintf("t%05d", i)}, "description": {desc}, "platform": {platform(i)},
			}})
		}
		if err := s.Upsert(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, "ANALYZE search_doc"); err != nil {
		t.Fatal(err)
	}
	type trace struct {
		level int
		full  bool
	}
	var traced []trace
	store.TraceSamples(s, func(level int, full bool) { traced = append(traced, trace{level, full}) })
	search := func(text string, filter catalog.Filter, sampleHits float64) catalog.SearchResult {
		t.Helper()
		store.SetSampleHits(s, sampleHits)
		res, err := s.Search(ctx, catalog.SearchQuery{Text: text, EntityTypes: []string{"dataset"}, Filter: filter, Facets: []string{"platform"}, Count: 10})
		if err != nil {
			t.Fatalf("search %q: %v", text, err)
		}
		return res
	}
	p1 := catalog.Filter{Or: [][]catalog.Criterion{{{Field: "platform", Values: []string{platform(1)}, Condition: "EQUAL"}}}}
	tests := []struct {
		name   string
		text   string
		filter catalog.Filter
		want   []trace // the samples tried
		total  int
		counts map[string]int // exact facet counts, when the query has fewer than 10,000 hits
	}{
		// 24,576 hits, half of them in sample 1.
		{name: "a word in every document", text: "common", want: []trace{{1, true}}, total: 10000},
		// 12,288 hits: too few for a sample to hold 10,000.
		{name: "a word in half of them", text: "half", total: 10000},
		{name: "both", text: "common half", total: 10000},
		// Not a word PostgreSQL lists as common: counted whole.
		{name: "a prefix of the common word", text: "comm", total: 10000},
		{name: "a rare word", text: "rare", total: 25, counts: map[string]int{platform(0): 25}},
		// Filters do not enter the estimate: the sample falls short and
		// every hit is counted.
		{name: "a common word on one platform", text: "common", filter: p1, want: []trace{{1, false}}, total: n / 4, counts: map[string]int{platform(1): n / 4}},
	}
	var splits []bool
	store.TraceSplits(s, func(beside bool) { splits = append(splits, beside) })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store.SetSplitHits(s, math.Inf(1))
			traced, splits = nil, nil
			got := search(tt.text, tt.filter, 10000)
			if !reflect.DeepEqual(traced, tt.want) {
				t.Errorf("samples tried: got %v, want %v", traced, tt.want)
			}
			whole := search(tt.text, tt.filter, math.Inf(1))
			if len(splits) != 0 {
				t.Errorf("%d windows counted in halves, want none", len(splits))
			}
			store.SetSplitHits(s, 0)
			halves := search(tt.text, tt.filter, 10000)
			release := store.HoldBesides(db)
			oneConn := search(tt.text, tt.filter, 10000)
			release()
			// Each sample tried is counted in halves, and then, unless
			// the last held 10,000 hits, the whole query.
			want := len(tt.want)
			if want == 0 || !tt.want[want-1].full {
				want++
			}
			if !reflect.DeepEqual(splits, append(slices.Repeat([]bool{true}, want), slices.Repeat([]bool{false}, want)...)) {
				t.Errorf("windows in halves, at once or not: %v, want %d at once then %[2]d not", splits, want)
			}
			results := []struct {
				name string
				res  catalog.SearchResult
			}{{"with samples", got}, {"without", whole}, {"in halves", halves}, {"in halves on one connection", oneConn}}
			for _, r := range results {
				if r.res.Total != tt.total {
					t.Errorf("total %s: %d, want %d", r.name, r.res.Total, tt.total)
				}
				if !reflect.DeepEqual(r.res.Hits, whole.Hits) {
					t.Errorf("page %s differs from the one without samples:\n%v\n%v", r.name, r.res.Hits, whole.Hits)
				}
				counted := 0
				for _, c := range r.res.Facets["platform"] {
					counted += c
				}
				if counted != min(tt.total, 10000) {
					t.Errorf("platform counts %s %v add up to %d, want %d", r.name, r.res.Facets["platform"], counted, min(tt.total, 10000))
				}
				if tt.counts != nil && !reflect.DeepEqual(r.res.Facets["platform"], tt.counts) {
					t.Errorf("platform counts %s: %v, want %v", r.name, r.res.Facets["platform"], tt.counts)
				}
			}
			if !reflect.DeepEqual(halves.Facets, oneConn.Facets) {
				t.Errorf("facets of the halves at once %v, one after the other %v", halves.Facets, oneConn.Facets)
			}
		})
	}
}
