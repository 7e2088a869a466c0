package store_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
)

// TestSearchSameOnBothStores runs the same searches against SQLite and
// PostgreSQL holding the same documents, whose words are spread over
// fields of every boost: totals, pages (their order included), matched
// fields and facet counts must be identical. PostgreSQL scores only the
// hits that can make a page, a few at a time here, so its pages come from
// every ranking tier and must still be the ones SQLite ranks over every
// hit.
func TestSearchSameOnBothStores(t *testing.T) {
	ctx := context.Background()
	fields := []catalog.SearchField{
		{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true, Autocomplete: true},
		{Name: "title", Type: "TEXT", Boost: 4, QueryByDefault: true},
		{Name: "description", Type: "TEXT", Boost: 1, QueryByDefault: true},
		{Name: "glossary", Type: "TEXT", Boost: 0.5, QueryByDefault: true},
		{Name: "fieldDescriptions", Type: "TEXT", Boost: 0.1, QueryByDefault: true},
		{Name: "tags", Type: "URN", Boost: 0.5, QueryByDefault: true, Filter: true},
		{Name: "platform", Type: "URN", Boost: 1, Filter: true},
	}
	// Words of decreasing frequency, so that queries find from a handful
	// of documents to all of them; "every" is in every name.
	vocab := []string{"orders", "customer", "daily", "revenue", "stock", "ledger", "refund", "zephyr", "quasar", "nimbus"}
	r := rand.New(rand.NewPCG(7, 9))
	pick := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[min(len(vocab)-1, int(r.ExpFloat64()*2.5))]
		}
		return strings.Join(w, " ")
	}
	var docs []catalog.Document
	for i := range 400 {
		urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:p%d,t%03d,PROD)", i%3, (i*37)%400)
		d := catalog.Document{URN: urn, EntityType: "dataset", Fields: map[string][]any{
			"urn":      {urn},
			"name":     {"every_" + strings.ReplaceAll(pick(2), " ", "_") + fmt.Sprint("_", i)},
			"platform": {fmt.Sprintf("urn:li:dataPlatform:p%d", i%3)},
			"tags":     {fmt.Sprintf("urn:li:tag:t%d", r.IntN(4))},
		}}
		if r.IntN(4) == 0 {
			d.Fields["title"] = []any{pick(2)}
		}
		if r.IntN(2) == 0 {
			d.Fields["description"] = []any{pick(4)}
		}
		if r.IntN(3) == 0 {
			d.Fields["glossary"] = []any{pick(1)}
		}
		// "snapshot" is in every document and no name: a broad query
		// whose name tier is empty.
		d.Fields["fieldDescriptions"] = []any{pick(3), pick(3) + " snapshot"}
		docs = append(docs, d)
	}
	open := func(db *store.DB) *store.Search {
		s, err := db.OpenSearch(ctx, fields)
		if err != nil {
			t.Fatal(err)
		}
		store.SetRankCandidates(s, 40)
		if err := s.Upsert(ctx, docs); err != nil {
			t.Fatal(err)
		}
		return s
	}
	pgDB := openPostgres(t)
	sqlite, pg := open(openSQLite(t)), open(pgDB)
	var queries []catalog.SearchQuery
	for _, text := range append(vocab, "every", "orders customer", "daily rev", "zephyr orders", "ord", "revenue stock ledger", "every orders", "t007", "nothing", "123", "orders 12", "snapshot", "every snapshot") {
		for _, page := range [][2]int{{0, 10}, {10, 10}, {0, 3}, {5, 40}} {
			queries = append(queries, catalog.SearchQuery{Text: text, EntityTypes: []string{"dataset"}, Facets: []string{"platform", "tags"}, Start: page[0], Count: page[1]})
		}
		queries = append(queries, catalog.SearchQuery{Text: text, Count: 10,
			Filter: catalog.Filter{Or: [][]catalog.Criterion{{{Field: "tags", Values: []string{"urn:li:tag:t1", "urn:li:tag:t2"}}}}}})
	}
	// Which tier settled each page, and whether it was cut: a tier of
	// more hits than PostgreSQL scores is ranked from those with the
	// smallest URNs, which only ties make exact.
	var tier int
	var cut bool
	store.TraceTiers(pg, func(t int, c bool) { tier, cut = t, c })
	// SQLite sorts the hits scoring more than any hit without a word in a
	// name when there are enough of them: its pages are checked against
	// PostgreSQL's, which come from its tiers, or from every hit scored.
	sqliteTier := -2
	store.TraceTiers(sqlite, func(t int, _ bool) { sqliteTier = t })
	seen := map[string]bool{}
	store.TraceWalks(pg, func() { seen["a walk stopped after its probe"] = true })
	for _, q := range queries {
		sqliteTier = -2
		want, err := sqlite.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		switch sqliteTier {
		case -1:
			seen["SQLite: every hit scored"] = true
		case 1:
			seen["SQLite: the hits with a word in a name"] = true
		}
		tier, cut = -2, false
		got, err := pg.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		// A page cut from a broad tier is approximate (see rankTiers):
		// searched, not compared.
		approx := false
		switch {
		case tier == -2:
		case cut && q.Text == "every":
			// In every name and nowhere else: all hits tie, and the
			// smallest URNs are the page.
			seen["cut"] = true
		case cut:
			approx = true
		case tier == -1:
			seen["every hit scored"] = true
		case tier == 1:
			seen["tier 1"] = true
		default:
			seen["tier 2 or later"] = true
		}
		if !approx && !reflect.DeepEqual(got, want) {
			t.Errorf("search %q [%d, +%d) (tier %d): PostgreSQL\n%s\nSQLite\n%s", q.Text, q.Start, q.Count, tier, describe(got), describe(want))
		}
		// The same with the tiers of broad queries walked in URN order
		// (from 100 hits here instead of maxTotal).
		store.SetWalkFrom(pg, 100)
		walked, err := pg.Search(ctx, q)
		store.SetWalkFrom(pg, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if !approx && !reflect.DeepEqual(walked, want) {
			t.Errorf("search %q [%d, +%d), walked (tier %d): PostgreSQL\n%s\nSQLite\n%s", q.Text, q.Start, q.Count, tier, describe(walked), describe(want))
		}
		// The same with every window counted in halves (see
		// textWindow), whatever its hits.
		store.SetSplitHits(pg, 0)
		halves, err := pg.Search(ctx, q)
		store.SetSplitHits(pg, math.Inf(1))
		if err != nil {
			t.Fatal(err)
		}
		if !approx && !reflect.DeepEqual(halves, want) {
			t.Errorf("search %q [%d, +%d), in halves (tier %d): PostgreSQL\n%s\nSQLite\n%s", q.Text, q.Start, q.Count, tier, describe(halves), describe(want))
		}
	}
	// Once PostgreSQL has statistics of the words, the tiers they bound
	// to a few hits are listed through the index instead.
	if _, err := pgDB.Bun().DB.ExecContext(ctx, "ANALYZE search_doc"); err != nil {
		t.Fatal(err)
	}
	store.ForgetWordStats(pg)
	store.TraceFewTiers(pg, func(int) { seen["a tier listed for its few hits"] = true })
	store.SetWalkFrom(pg, 100)
	// Windows in halves, at once and, as when other searches hold the
	// connections beside, one after the other.
	store.SetSplitHits(pg, 0)
	store.TraceSplits(pg, func(beside bool) { seen[fmt.Sprintf("halves at once: %v", beside)] = true })
	for i, q := range queries {
		want, err := sqlite.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		tier, cut = -2, false
		release := func() {}
		if i%2 == 1 {
			release = store.HoldBesides(pgDB)
		}
		got, err := pg.Search(ctx, q)
		release()
		if err != nil {
			t.Fatal(err)
		}
		if cut && q.Text != "every" {
			continue // approximate, as above
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("search %q [%d, +%d), with statistics: PostgreSQL\n%s\nSQLite\n%s", q.Text, q.Start, q.Count, describe(got), describe(want))
		}
	}
	for _, path := range []string{"every hit scored", "tier 1", "tier 2 or later", "cut", "SQLite: every hit scored", "SQLite: the hits with a word in a name", "a tier listed for its few hits", "a walk stopped after its probe", "halves at once: true", "halves at once: false"} {
		if !seen[path] {
			t.Errorf("no query was ranked by %s", path)
		}
	}
	for _, prefix := range []string{"ev", "every_o", "every orders", "zeph", "every_daily_c"} {
		q := catalog.AutocompleteQuery{Query: prefix, EntityTypes: []string{"dataset"}, Limit: 10}
		want, err := sqlite.Autocomplete(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pg.Autocomplete(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("autocomplete %q: PostgreSQL %v, SQLite %v", prefix, got, want)
		}
	}
}

// describe prints a result's total, hits and facets, a line each.
func describe(res catalog.SearchResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  total %d, facets %v\n", res.Total, res.Facets)
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "  %s %v\n", h.URN, h.MatchedFields)
	}
	return b.String()
}
