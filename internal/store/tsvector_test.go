package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// TestTSVectorMatchesPostgreSQL checks that the tsvectors the store builds
// from the analyzer's words, sent in binary, are the ones PostgreSQL reads
// from their text form, lexemes in its order: each word once, at position
// b+1 for each bucket b holding it (weight D for bucket 4, else A to C),
// and the words of buckets 0 to 3 also tagged with "!", "#", "$" or "%".
func TestTSVectorMatchesPostgreSQL(t *testing.T) {
	db := openPostgres(t)
	words := func(values ...string) string {
		var b strings.Builder
		for _, v := range values {
			for _, tok := range search.IndexTokens(v) {
				b.WriteString(tok)
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	tests := map[string][5]string{
		"empty": {},
		"names and descriptions": {
			words("SampleHiveDataset", "fct_users_created"),
			words("Daily snapshot of business entity 10282 for analytics", "urn:li:dataset:(urn:li:dataPlatform:hive,db.fct_users,PROD)"),
			"", words("Column 3 of table 10282, holding NumberType values", "Column 4 of table 10282"),
			words("owner_team=team_12", "retention_days=90"),
		},
		"one word in several buckets": {words("orders"), words("orders"), words("customer orders"), "", words("orders")},
		"letters and digits":          {words("1e5 v2 3.14 x-ray kalomi3 2024-01-31T10:00:00Z 0x1F")},
		"non-ASCII":                   {"", "", words("Ünïcödé naïve Straße ÉCOLE δοκιμή 東京 データ")},
		"prefixes of each other":      {"ab a abc b ", "a ab ", "", "", "abc b "},
		"digits and tags":             {"0 9 a 00 zz ", "1 10 ", "", "", "0 9 "},
	}
	for name, texts := range tests {
		for _, samples := range []int{0, 12} {
			t.Run(fmt.Sprintf("%s/%d samples", name, samples), func(t *testing.T) {
				testTSWords(t, db, texts, samples)
			})
		}
	}
	var same bool
	if err := db.Bun().DB.QueryRowContext(context.Background(), `SELECT $1::tsvector = array_to_tsvector('{b,a,c}'::text[])`, store.TSVector("c a b a ")).Scan(&same); err != nil || !same {
		t.Errorf("autocomplete tsvector differs from array_to_tsvector's: %v", err)
	}
}

// testTSWords checks the tsvector of texts (one per bucket) and samples
// sample words against the one PostgreSQL reads from its text form,
// written independently.
func testTSWords(t *testing.T, db *store.DB, texts [5]string, samples int) {
	t.Helper()
	weight := []string{"A", "A", "B", "C", "D"}
	got := store.TSWords(texts[:], samples)
	buckets := map[string][]int{}
	var tagged []string
	for b, text := range texts {
		for _, w := range strings.Fields(text) {
			buckets[w] = append(buckets[w], b)
			if b < 4 {
				tagged = append(tagged, "'"+string("!#$%"[b])+w+"'")
			}
		}
	}
	for l := 1; l <= samples; l++ {
		tagged = append(tagged, fmt.Sprintf("'~%d'", l))
	}
	var lexemes []string
	for w, bs := range buckets {
		var pos []string
		for _, b := range bs {
			pos = append(pos, fmt.Sprint(b+1, weight[b]))
		}
		lexemes = append(lexemes, "'"+w+"':"+strings.Join(pos, ","))
	}
	var same bool
	var ours, theirs string
	err := db.Bun().DB.QueryRowContext(context.Background(), `SELECT $1::tsvector = $2::tsvector, $1::tsvector::text, $2::tsvector::text`,
		got, strings.Join(append(tagged, lexemes...), " ")).Scan(&same, &ours, &theirs)
	if err != nil {
		t.Fatal(err)
	}
	if !same || ours != theirs {
		t.Errorf("tsvector differs from the one PostgreSQL reads:\nours:   %s\ntheirs: %s", ours, theirs)
	}
	// PostgreSQL sorts lexemes it receives out of order; ours must come
	// in its order, which spares it the sort.
	var order string
	if err := db.Bun().DB.QueryRowContext(context.Background(), `SELECT array_to_string(tsvector_to_array($1::tsvector), ' ')`, theirs).Scan(&order); err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, l := range got.Lexemes {
		words = append(words, l.Word)
	}
	if strings.Join(words, " ") != order {
		t.Errorf("lexemes out of PostgreSQL's order:\nours:   %s\ntheirs: %s", strings.Join(words, " "), order)
	}
}
