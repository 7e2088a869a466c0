package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/catalogtest"
	"github.com/catalogd/catalogd/internal/store"
)

func openSearch(t *testing.T, db *store.DB, fields []catalog.SearchField) catalog.SearchIndex {
	t.Helper()
	s, err := db.OpenSearch(context.Background(), fields)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSearchSQLite(t *testing.T) {
	catalogtest.RunSearchTests(t, func(t *testing.T, fields []catalog.SearchField) catalog.SearchIndex {
		return openSearch(t, openSQLite(t), fields)
	})
}

func TestSearchPostgres(t *testing.T) {
	catalogtest.RunSearchTests(t, func(t *testing.T, fields []catalog.SearchField) catalog.SearchIndex {
		return openSearch(t, openPostgres(t), fields)
	})
}

// TestSearchOffKeywordValues covers the values this engine keeps out of its
// keyword table (values longer than maxKeywordLen, free-text fields) and the
// case folding of non-ASCII values: filters must still see them.
func TestSearchOffKeywordValues(t *testing.T) {
	dbs := map[string]func(testing.TB) *store.DB{"sqlite": openSQLite, "postgres": openPostgres}
	for name, open := range dbs {
		t.Run(name, func(t *testing.T) {
			testOffKeywordValues(t, openSearch(t, open(t), catalogtest.SearchFields))
		})
	}
}

func testOffKeywordValues(t *testing.T, idx catalog.SearchIndex) {
	ctx := context.Background()
	doc := func(urn, origin string) catalog.Document {
		return catalog.Document{URN: urn, EntityType: "dataset", Fields: map[string][]any{"urn": {urn}, "name": {urn[len(urn)-9:]}, "origin": {origin}}}
	}
	long := strings.Repeat("x", 300) + "_Tail"
	a := doc("urn:li:dataset:(urn:li:dataPlatform:s3,long1,PROD)", long)
	a.Fields["description"] = []any{"Café MENU of the day"}
	b := doc("urn:li:dataset:(urn:li:dataPlatform:s3,long2,PROD)", "PROD")
	b.Fields["origin"] = []any{"PROD", "ÉTÉ"}
	if err := idx.Upsert(ctx, []catalog.Document{a, b}); err != nil {
		t.Fatal(err)
	}
	c := func(field, cond string, vals ...string) catalog.Filter {
		return catalog.Filter{Or: [][]catalog.Criterion{{{Field: field, Condition: cond, Values: vals}}}}
	}
	find := func(f catalog.Filter) []string {
		t.Helper()
		res, err := idx.Search(ctx, catalog.SearchQuery{Filter: f, Count: 10, Facets: []string{"origin", "description"}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.URN)
		}
		sort.Strings(out)
		return out
	}
	both := []string{a.URN, b.URN}
	tests := []struct {
		name string
		f    catalog.Filter
		want []string
	}{
		{"EQUAL long", c("origin", "EQUAL", long), []string{a.URN}},
		{"IEQUAL long", c("origin", "IEQUAL", strings.ToUpper(long)), []string{a.URN}},
		{"END_WITH long", c("origin", "END_WITH", "_tail"), []string{a.URN}},
		{"EXISTS long", c("origin", "EXISTS"), both},
		{"negated EQUAL long", catalog.Filter{Or: [][]catalog.Criterion{{{Field: "origin", Values: []string{long}, Negated: true}}}}, []string{b.URN}},
		{"EQUAL short beside", c("origin", "EQUAL", "PROD"), []string{b.URN}},
		{"IEQUAL non-ASCII", c("origin", "IEQUAL", "été"), []string{b.URN}},
		{"CONTAIN text field", c("description", "CONTAIN", "café menu"), []string{a.URN}},
		{"EQUAL text field", c("description", "EQUAL", "Café MENU of the day"), []string{a.URN}},
		{"IS_NULL text field", c("description", "IS_NULL"), []string{b.URN}},
		{"removed", c("removed", "EQUAL", "FALSE"), both},
		{"urn IEQUAL", c("urn", "IEQUAL", strings.ToUpper(b.URN)), []string{b.URN}},
	}
	for _, tc := range tests {
		if got := find(tc.f); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: filter %+v = %v, want %v", tc.name, tc.f, got, tc.want)
		}
	}
	res, err := idx.Search(ctx, catalog.SearchQuery{Count: 10, Facets: []string{"origin", "description"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int{"origin": {"PROD": 1, "ÉTÉ": 1}, "description": {"Café MENU of the day": 1}}
	if !reflect.DeepEqual(res.Facets, want) {
		t.Errorf("facets = %v, want %v (long values are not counted)", res.Facets, want)
	}
	// A document rewritten without its long value no longer matches it.
	a.Fields["origin"] = []any{"DEV"}
	if err := idx.Upsert(ctx, []catalog.Document{a}); err != nil {
		t.Fatal(err)
	}
	if got := find(c("origin", "EQUAL", long)); len(got) != 0 {
		t.Errorf("after rewrite, filter on the old long value = %v, want nothing", got)
	}
	if got := find(c("origin", "EQUAL", "DEV")); !reflect.DeepEqual(got, []string{a.URN}) {
		t.Errorf("after rewrite, origin=DEV = %v, want [%s]", got, a.URN)
	}
}

// TestSearchMigrations opens an index written in the first layout (before
// the facets column, the autocomplete tables, the narrow rows and the
// bucket-tagged words existed): the migrations must rebuild everything from
// what the index held, so that searches, facet counts and suggestions are
// those of the same documents written afterwards, and documents written
// after the upgrade join them.
func TestSearchMigrations(t *testing.T) {
	dbs := map[string]func(testing.TB) *store.DB{"sqlite": openSQLite, "postgres": openPostgres}
	fields := []catalog.SearchField{
		{Name: "name", Type: "TEXT", QueryByDefault: true, Boost: 10, Autocomplete: true},
		{Name: "description", Type: "TEXT", QueryByDefault: true, Boost: 1},
		{Name: "tags", Type: "URN", Filter: true},
		{Name: "platform", Type: "URN", Filter: true},
	}
	type old struct {
		urn, name, description, platform string
		tags                             []string
	}
	docs := []old{
		{"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", "alpha orders", "", "urn:li:dataPlatform:hive", []string{"urn:li:tag:x", "urn:li:tag:y"}},
		{"urn:li:dataset:(urn:li:dataPlatform:kafka,b,PROD)", "beta orders", "", "urn:li:dataPlatform:kafka", []string{"urn:li:tag:x"}},
		{"urn:li:dataset:(urn:li:dataPlatform:kafka,c,PROD)", "gamma", "orders of the week", "urn:li:dataPlatform:kafka", nil},
	}
	later := catalog.Document{URN: "urn:li:dataset:(urn:li:dataPlatform:hive,d,PROD)", EntityType: "dataset", Fields: map[string][]any{
		"name": {"delta orders"}, "platform": {"urn:li:dataPlatform:hive"}, "tags": {"urn:li:tag:z"}}}
	queries := []catalog.SearchQuery{
		{Text: "*", EntityTypes: []string{"dataset"}, Facets: []string{"platform", "tags"}, Count: 10},
		{Text: "orders", Facets: []string{"platform", "tags"}, Count: 10},
		{Text: "week", Count: 10},
		{Text: "alpha ord", Count: 10},
		{Filter: catalog.Filter{Or: [][]catalog.Criterion{{{Field: "tags", Values: []string{"urn:li:tag:x"}}}}}, Facets: []string{"platform"}, Count: 10},
	}
	run := func(t *testing.T, s catalog.SearchIndex) (out []any) {
		t.Helper()
		ctx := context.Background()
		for _, q := range queries {
			res, err := s.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		sugg, err := s.Autocomplete(ctx, catalog.AutocompleteQuery{Query: "ord", EntityTypes: []string{"dataset"}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return append(out, sugg)
	}
	for name, open := range dbs {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := open(t)
			if err := store.MigrateSearchTo(ctx, db, fields, 1); err != nil {
				t.Fatal(err)
			}
			// The documents as the first layout held them.
			exec := func(stmt string, args ...any) {
				t.Helper()
				if _, err := db.Bun().DB.ExecContext(ctx, stmt, args...); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			pg := name == "postgres"
			// ph writes the placeholders of stmt for the dialect.
			ph := func(stmt string) string {
				if !pg {
					return stmt
				}
				parts := strings.Split(stmt, "?")
				var b strings.Builder
				for i, p := range parts {
					b.WriteString(p)
					if i < len(parts)-1 {
						fmt.Fprintf(&b, "$%d", i+1)
					}
				}
				return b.String()
			}
			for i, d := range docs {
				id := int64(i + 1)
				stored := map[string][]string{"name": {d.name}}
				if d.description != "" {
					stored["description"] = []string{d.description}
				}
				js, _ := json.Marshal(stored)
				if pg {
					exec(`INSERT INTO search_doc (id, urn, entity, removed, long, fields, tsv, ac) OVERRIDING SYSTEM VALUE
VALUES ($1, $2, 'dataset', 0, 0, $3, setweight(to_tsvector('simple', $4), 'A') || setweight(to_tsvector('simple', $5), 'C'), setweight(to_tsvector('simple', $4), 'D'))`,
						id, d.urn, string(js), strings.ReplaceAll(d.name, "_", " "), d.description)
				} else {
					exec(`INSERT INTO search_doc (id, urn, entity, removed, long, fields) VALUES (?, ?, 'dataset', 0, 0, ?)`, id, d.urn, string(js))
					words := func(s string) string {
						if s == "" {
							return ""
						}
						return s + " "
					}
					exec(`INSERT INTO search_fts (rowid, b0, b2, ac) VALUES (?, ?, ?, ?)`, id, words(d.name), words(d.description), words(d.name))
				}
				kw := [][2]string{{"name", d.name}, {"platform", d.platform}}
				for _, tag := range d.tags {
					kw = append(kw, [2]string{"tags", tag})
				}
				for _, k := range kw {
					exec(ph(`INSERT INTO search_kw (field, value, doc) VALUES (?, ?, ?)`), k[0], k[1], id)
				}
			}
			if pg {
				exec(`SELECT setval(pg_get_serial_sequence('search_doc', 'id'), 3)`)
			}
			s := openSearch(t, db, fields)
			if err := s.Upsert(ctx, []catalog.Document{later}); err != nil {
				t.Fatal(err)
			}
			got := run(t, s)

			fresh := openSearch(t, open(t), fields)
			var all []catalog.Document
			for _, d := range docs {
				doc := catalog.Document{URN: d.urn, EntityType: "dataset", Fields: map[string][]any{"name": {d.name}, "platform": {d.platform}}}
				if d.description != "" {
					doc.Fields["description"] = []any{d.description}
				}
				for _, tag := range d.tags {
					doc.Fields["tags"] = append(doc.Fields["tags"], tag)
				}
				all = append(all, doc)
			}
			if err := fresh.Upsert(ctx, append(all, later)); err != nil {
				t.Fatal(err)
			}
			want := run(t, fresh)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after the migrations:\n%+v\nwant, as written by this version:\n%+v", got, want)
			}
			// And what that is: names before descriptions, facets of
			// every document.
			orders := want[1].(catalog.SearchResult)
			if len(orders.Hits) != 4 || orders.Hits[3].URN != docs[2].urn || orders.Facets["tags"]["urn:li:tag:x"] != 2 {
				t.Errorf("search orders = %+v; want the three names, then the description", orders)
			}
		})
	}
}

// TestTextTableWithoutAutocompleteWords opens an SQLite index written before
// migration 5, whose text table also held the autocomplete words in its
// last column. Text searches match every column of that table, so the
// migration must take those words out: a word only an autocomplete field
// holds must not find the document, and the other words still must.
func TestTextTableWithoutAutocompleteWords(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	fields := []catalog.SearchField{
		{Name: "name", Type: "TEXT", QueryByDefault: true, Boost: 10, Autocomplete: true},
		{Name: "alias", Type: "TEXT", Autocomplete: true},
		{Name: "description", Type: "TEXT", QueryByDefault: true, Boost: 1},
	}
	if err := store.MigrateSearchTo(ctx, db, fields, 4); err != nil {
		t.Fatal(err)
	}
	urn := "urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)"
	// The document as written before migration 5: the name's words in the
	// highest bucket, the description's in the third, and the autocomplete
	// fields' words both in column ac and in the autocomplete table.
	for _, stmt := range []string{
		`INSERT INTO search_doc (id, urn, entity, removed, long, fields, facets, acvals) VALUES (1, '` + urn + `', 'dataset', 0, 0,
	'{"alias":["zanzibar"],"description":["daily totals"],"name":["alpha orders"]}', '', '{"alias":["zanzibar"],"name":["alpha orders"]}')`,
		`INSERT INTO search_kw (field, value, doc) VALUES ('name', 'alpha orders', 1)`,
		`INSERT INTO search_fts (rowid, b0, b2, ac) VALUES (1, 'alpha orders ', 'daily totals ', 'alpha orders zanzibar ')`,
		`INSERT INTO search_ac (rowid, ac) VALUES (1, 'alpha orders zanzibar ')`,
	} {
		if _, err := db.Bun().DB.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	s := openSearch(t, db, fields)
	search := func(text string) []string {
		t.Helper()
		res, err := s.Search(ctx, catalog.SearchQuery{Text: text, Count: 10})
		if err != nil {
			t.Fatalf("search %q: %v", text, err)
		}
		var urns []string
		for _, h := range res.Hits {
			urns = append(urns, h.URN)
		}
		return urns
	}
	if got := search("zanzibar"); len(got) != 0 {
		t.Errorf("search for a word only the autocomplete field holds = %v, want nothing", got)
	}
	for _, text := range []string{"alpha", "totals", "orders daily"} {
		if got := search(text); !reflect.DeepEqual(got, []string{urn}) {
			t.Errorf("search %q after migration = %v, want [%s]", text, got, urn)
		}
	}
	if got, err := s.Autocomplete(ctx, catalog.AutocompleteQuery{Query: "zanz", Limit: 10}); err != nil || len(got) != 1 {
		t.Errorf("autocomplete zanz after migration = %v, %v; want the alias", got, err)
	}
}

// TestSearchEntityCounts checks that this engine counts the hits of each
// entity type when asked, with the text and without, so that the type
// facet of a search over several types costs no search per type; the
// contract suite checks the counts themselves.
func TestSearchEntityCounts(t *testing.T) {
	dbs := map[string]func(testing.TB) *store.DB{"sqlite": openSQLite, "postgres": openPostgres}
	for name, open := range dbs {
		t.Run(name, func(t *testing.T) {
			idx := openSearch(t, open(t), catalogtest.SearchFields)
			docs := []catalog.Document{
				{URN: "urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)", EntityType: "dataset", Fields: map[string][]any{"name": {"orders"}}},
				{URN: "urn:li:dataset:(urn:li:dataPlatform:hive,order_lines,PROD)", EntityType: "dataset", Fields: map[string][]any{"name": {"order lines"}}},
				{URN: "urn:li:chart:(looker,orders)", EntityType: "chart", Fields: map[string][]any{"name": {"orders"}}},
			}
			if err := idx.Upsert(context.Background(), docs); err != nil {
				t.Fatal(err)
			}
			for _, text := range []string{"*", "orders"} {
				res, err := idx.Search(context.Background(), catalog.SearchQuery{Text: text, EntityTypes: []string{"dataset", "chart", "tag"}, Count: 1, EntityCounts: true})
				if err != nil {
					t.Fatal(err)
				}
				want := map[string]int{"dataset": 2, "chart": 1}
				if text == "orders" {
					want["dataset"] = 1
				}
				if !reflect.DeepEqual(res.EntityCounts, want) {
					t.Errorf("search %q: entity counts %v, want %v", text, res.EntityCounts, want)
				}
			}
		})
	}
}

// TestSearchLastWordPrefix checks that the last word of a text search
// matches every word it begins on both stores, matched as a whole word
// when no other word begins with it: a search must find the same
// documents either way, after a write, a deletion and (PostgreSQL, whose
// list of words a rebuild empties and fills again) a rebuild too.
func TestSearchLastWordPrefix(t *testing.T) {
	ctx := context.Background()
	urn := func(name string) string { return "urn:li:dataset:(urn:li:dataPlatform:hive," + name + ",PROD)" }
	names := map[string]string{
		"a": "order book", "b": "orders daily", "c": "ordering rules", "d": "zebra crossing",
	}
	doc := func(k, name string) catalog.Document {
		return catalog.Document{URN: urn(k), EntityType: "dataset", Fields: map[string][]any{"name": {name}}}
	}
	type check struct {
		text string
		want []string // keys of names
	}
	before := []check{
		{"order", []string{"a", "b", "c"}},
		{"orders", []string{"b"}},
		{"ordering", []string{"c"}},
		{"book", []string{"a"}},
		{"zebra cross", []string{"d"}},
		{"zebra crossing", []string{"d"}},
		{"orderings", nil},
	}
	written := []check{ // once "bookings ledger" is written
		{"book", []string{"a", "e"}},
		{"bookings", []string{"e"}},
	}
	after := []check{ // once "ordering rules" is deleted
		{"order", []string{"a", "b"}},
		{"ordering", nil},
		{"orders", []string{"b"}},
		{"book", []string{"a", "e"}},
	}
	type whole struct {
		word  string
		whole bool
	}
	dbs := map[string]func(testing.TB) *store.DB{"sqlite": openSQLite, "postgres": openPostgres}
	for name, open := range dbs {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			idx, err := db.OpenSearch(ctx, catalogtest.SearchFields)
			if err != nil {
				t.Fatal(err)
			}
			var docs []catalog.Document
			for k, n := range names {
				docs = append(docs, doc(k, n))
			}
			if err := idx.Upsert(ctx, docs); err != nil {
				t.Fatal(err)
			}
			run := func(checks []check) {
				t.Helper()
				for _, c := range checks {
					res, err := idx.Search(ctx, catalog.SearchQuery{Text: c.text, Count: 10})
					if err != nil {
						t.Fatalf("search %q: %v", c.text, err)
					}
					var got, want []string
					for _, h := range res.Hits {
						got = append(got, h.URN)
					}
					for _, k := range c.want {
						want = append(want, urn(k))
					}
					sort.Strings(got)
					if !reflect.DeepEqual(got, want) || res.Total != len(want) {
						t.Errorf("search %q = %v (total %d), want %v", c.text, got, res.Total, want)
					}
				}
			}
			// wholes checks whether searches ending in each word go
			// through the whole word.
			wholes := func(ws ...whole) {
				t.Helper()
				for _, c := range ws {
					got, err := store.LastWordWhole(ctx, idx, "zebra", c.word)
					if err != nil || got != c.whole {
						t.Errorf("last word %q whole = %v, %v; want %v", c.word, got, err, c.whole)
					}
				}
			}
			run(before)
			wholes(whole{"orders", true}, whole{"book", true}, whole{"nowhere", true}, whole{"order", false}, whole{"cross", false})
			if name == "sqlite" {
				// Never for other than lower-case ASCII letters and
				// digits, which FTS5 folds.
				wholes(whole{"ördér", false}, whole{"Orders", false})
			} else {
				// PostgreSQL's lexemes are the analyzer's words as they are.
				wholes(whole{"ördér", true}, whole{"Orders", true})
			}
			if err := idx.Upsert(ctx, []catalog.Document{doc("e", "bookings ledger")}); err != nil {
				t.Fatal(err)
			}
			run(written)
			wholes(whole{"book", false}, whole{"bookings", true})
			if err := idx.Delete(ctx, []string{urn("c")}); err != nil {
				t.Fatal(err)
			}
			run(after)
			if name == "sqlite" {
				return
			}
			// A deleted document's words stay listed until a rebuild.
			wholes(whole{"order", false})
			if err := db.Update(ctx, func(tx catalog.Tx) error { return idx.ResetDocuments(ctx, tx) }); err != nil {
				t.Fatal(err)
			}
			docs = []catalog.Document{doc("a", names["a"]), doc("b", names["b"]), doc("e", "bookings ledger")}
			if err := db.Update(ctx, func(tx catalog.Tx) error { return idx.InsertPrepared(ctx, tx, idx.PrepareDocuments(docs)) }); err != nil {
				t.Fatal(err)
			}
			// Until the rebuild ends its list is incomplete: prefixes.
			wholes(whole{"orders", false}, whole{"nowhere", false})
			run(after)
			if err := idx.FinishReset(ctx); err != nil {
				t.Fatal(err)
			}
			wholes(whole{"order", false}, whole{"orders", true}, whole{"book", false}, whole{"bookings", true}, whole{"nowhere", true})
			run(after)
		})
	}
}

// TestSearchFilterPagesInURNOrder checks the pages of a filter whose window
// is full (10,000 hits counted, more or as many to page through): near the
// top they are found by walking the documents in URN order, deeper ones by
// sorting the hits, and either way they are the hits in URN order, those
// whose value is too long for the keyword rows included.
func TestSearchFilterPagesInURNOrder(t *testing.T) {
	ctx := context.Background()
	fields := []catalog.SearchField{
		{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true},
		{Name: "platform", Type: "URN", Filter: true},
		{Name: "tags", Type: "URN", Filter: true},
	}
	const n = 15000
	urn := func(i int) string {
		return fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:p%d,t%05d,PROD)", i%3, i)
	}
	long := "urn:li:tag:" + strings.Repeat("x", 300)
	var docs []catalog.Document
	for i := range n {
		tag := fmt.Sprintf("urn:li:tag:t%d", i%3)
		if i == 3 {
			tag = long
		}
		docs = append(docs, catalog.Document{URN: urn(i), EntityType: "dataset", Fields: map[string][]any{
			"urn": {urn(i)}, "name": {fmt.Sprintf("t%05d", i)}, "platform": {fmt.Sprintf("urn:li:dataPlatform:p%d", i%3)}, "tags": {tag},
		}})
	}
	// The hits: documents of platforms p0 (tag t0, or the long one) and p1,
	// 10,000 of them, p0's first in URN order.
	var hits []string
	for _, p := range []int{0, 1} {
		for i := p; i < n; i += 3 {
			hits = append(hits, urn(i))
		}
	}
	filter := catalog.Filter{Or: [][]catalog.Criterion{{{Field: "tags", Values: []string{"urn:li:tag:t0", "urn:li:tag:t1", long}, Condition: "EQUAL"}}}}
	dbs := map[string]func(testing.TB) *store.DB{"sqlite": openSQLite, "postgres": openPostgres}
	for name, open := range dbs {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			idx := openSearch(t, db, fields)
			for from := 0; from < n; from += 5000 {
				if err := idx.Upsert(ctx, docs[from:from+5000]); err != nil {
					t.Fatal(err)
				}
			}
			// As autovacuum would have by now (see the README): without
			// statistics the planner took each search to seconds here.
			if name == "postgres" {
				if _, err := db.Bun().ExecContext(ctx, "ANALYZE search_doc, search_kw"); err != nil {
					t.Fatal(err)
				}
			}
			for _, start := range []int{0, 990, 4995} {
				res, err := idx.Search(ctx, catalog.SearchQuery{Text: "*", EntityTypes: []string{"dataset"}, Filter: filter, Start: start, Count: 10})
				if err != nil {
					t.Fatal(err)
				}
				if res.Total != len(hits) {
					t.Errorf("from %d: total %d, want %d", start, res.Total, len(hits))
				}
				var got []string
				for _, h := range res.Hits {
					got = append(got, h.URN)
				}
				if want := hits[start : start+10]; !reflect.DeepEqual(got, want) {
					t.Errorf("from %d: page\n%v\nwant\n%v", start, got, want)
				}
			}
		})
	}
}
