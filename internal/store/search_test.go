package store_test

import (
	"context"
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

// TestSearchMigrations opens an index written before the facets column and
// the autocomplete tables existed: the migrations must fill them from what
// the index held, so facet counts and suggestions are the same as for
// documents written afterwards.
func TestSearchMigrations(t *testing.T) {
	dbs := map[string]func(testing.TB) *store.DB{"sqlite": openSQLite, "postgres": openPostgres}
	for name, open := range dbs {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := open(t)
			fields := []catalog.SearchField{
				{Name: "name", Type: "TEXT", QueryByDefault: true, Boost: 10, Autocomplete: true},
				{Name: "tags", Type: "URN", Filter: true},
				{Name: "platform", Type: "URN", Filter: true},
			}
			s := openSearch(t, db, fields)
			if name == "sqlite" {
				for _, table := range []string{"search_fts", "search_ac"} {
					var v int
					if err := db.Bun().QueryRowContext(ctx, "SELECT v FROM "+table+"_config WHERE k = 'automerge'").Scan(&v); err != nil || v != 16 {
						t.Errorf("%s automerge = %d, %v; want 16", table, v, err)
					}
				}
			}
			docs := []catalog.Document{
				{URN: "urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", EntityType: "dataset", Fields: map[string][]any{"name": {"alpha orders"}, "platform": {"urn:li:dataPlatform:hive"}, "tags": {"urn:li:tag:x", "urn:li:tag:y"}}},
				{URN: "urn:li:dataset:(urn:li:dataPlatform:kafka,b,PROD)", EntityType: "dataset", Fields: map[string][]any{"name": {"beta orders"}, "platform": {"urn:li:dataPlatform:kafka"}, "tags": {"urn:li:tag:x"}}},
			}
			if err := s.Upsert(ctx, docs); err != nil {
				t.Fatal(err)
			}
			query := catalog.SearchQuery{Text: "*", EntityTypes: []string{"dataset"}, Facets: []string{"platform", "tags"}, Count: 10}
			before, err := s.Search(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]map[string]int{
				"platform": {"urn:li:dataPlatform:hive": 1, "urn:li:dataPlatform:kafka": 1},
				"tags":     {"urn:li:tag:x": 2, "urn:li:tag:y": 1},
			}
			if !reflect.DeepEqual(before.Facets, want) {
				t.Fatalf("facets = %v, want %v", before.Facets, want)
			}
			acQuery := catalog.AutocompleteQuery{Query: "ord", EntityTypes: []string{"dataset"}, Limit: 10}
			acBefore, err := s.Autocomplete(ctx, acQuery)
			if err != nil {
				t.Fatal(err)
			}
			if len(acBefore) != 2 {
				t.Fatalf("suggestions for %q = %v, want both names", acQuery.Query, acBefore)
			}
			// Back to the layout before migration 2.
			stmts := []string{
				"ALTER TABLE search_doc DROP COLUMN facets",
				"ALTER TABLE search_doc DROP COLUMN acvals",
				"DELETE FROM catalogd_migration WHERE component = 'search' AND version IN (2, 3)",
			}
			if name == "sqlite" {
				stmts = append(stmts, "DROP TABLE search_ac")
			}
			for _, stmt := range stmts {
				if _, err := db.Bun().ExecContext(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			s = openSearch(t, db, fields)
			after, err := s.Search(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(after.Facets, want) {
				t.Errorf("facets after migration = %v, want %v", after.Facets, want)
			}
			acAfter, err := s.Autocomplete(ctx, acQuery)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(acAfter, acBefore) {
				t.Errorf("suggestions after migration = %v, want %v", acAfter, acBefore)
			}
		})
	}
}

// TestTextTableWithoutAutocompleteWords opens an SQLite index written before
// migration 3, whose text table also held the autocomplete words in its
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
	s := openSearch(t, db, fields)
	doc := catalog.Document{URN: "urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", EntityType: "dataset",
		Fields: map[string][]any{"name": {"alpha orders"}, "alias": {"zanzibar"}, "description": {"daily totals"}}}
	if err := s.Upsert(ctx, []catalog.Document{doc}); err != nil {
		t.Fatal(err)
	}
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
	// The document's words as written before migration 3: the name's
	// words in the highest bucket, the description's in the third, and
	// the autocomplete fields' words in column ac.
	var id int64
	if err := db.Bun().QueryRowContext(ctx, "SELECT id FROM search_doc WHERE urn = ?", doc.URN).Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"DELETE FROM search_fts WHERE rowid = ?",
		"INSERT INTO search_fts (rowid, b0, b2, ac) VALUES (?, 'alpha orders ', 'daily totals ', 'alpha orders zanzibar ')",
	} {
		if _, err := db.Bun().ExecContext(ctx, stmt, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Bun().ExecContext(ctx, "DELETE FROM catalogd_migration WHERE component = 'search' AND version = 5"); err != nil {
		t.Fatal(err)
	}
	s = openSearch(t, db, fields)
	if got := search("zanzibar"); len(got) != 0 {
		t.Errorf("search for a word only the autocomplete field holds = %v, want nothing", got)
	}
	for _, text := range []string{"alpha", "totals", "orders daily"} {
		if got := search(text); !reflect.DeepEqual(got, []string{doc.URN}) {
			t.Errorf("search %q after migration = %v, want [%s]", text, got, doc.URN)
		}
	}
	if got, err := s.Autocomplete(ctx, catalog.AutocompleteQuery{Query: "zanz", Limit: 10}); err != nil || len(got) != 1 {
		t.Errorf("autocomplete zanz after migration = %v, %v; want the alias", got, err)
	}
}
