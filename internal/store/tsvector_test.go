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
// from the analyzer's words, sent in binary, are those PostgreSQL makes of
// the same lexemes (array_to_tsvector): each once, in PostgreSQL's order,
// without positions; tagged, each word under the digit of its bucket.
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
		"one word in several buckets":  {words("orders"), words("orders orders"), words("customer orders"), "", words("orders")},
		"letters and digits":           {words("1e5 v2 3.14 x-ray kalomi3 2024-01-31T10:00:00Z 0x1F")},
		"non-ASCII":                    {words("Ünïcödé naïve Straße ÉCOLE δοκιμή 東京 データ")},
		"a word repeated":              {strings.Repeat("again ", 300)},
		"more words than positions":    {strings.Repeat("alpha beta gamma ", 6000), words("tail end")},
		"prefixes of each other":       {"ab a abc b", "a ab"},
		"words sorting around the tag": {"0 9 a 00 zz", "1 10"},
	}
	for name, texts := range tests {
		for _, tagged := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/tagged=%v", name, tagged), func(t *testing.T) {
				got := store.TSVector(texts[:], tagged)
				lexemes := []string{}
				for i, text := range texts {
					for _, w := range strings.Fields(text) {
						if tagged {
							w = fmt.Sprint(i) + w
						}
						lexemes = append(lexemes, w)
					}
				}
				var same bool
				var ours, theirs string
				err := db.Bun().DB.QueryRowContext(context.Background(), `SELECT $1::tsvector = w, $1::tsvector::text, w::text FROM (SELECT array_to_tsvector($2::text[]) AS w) AS x`,
					got, lexemes).Scan(&same, &ours, &theirs)
				if err != nil {
					t.Fatal(err)
				}
				if !same || ours != theirs {
					t.Errorf("tsvector differs from array_to_tsvector's:\nours:   %.300s ... %s\ntheirs: %.300s ... %s", ours, ours[max(0, len(ours)-300):], theirs, theirs[max(0, len(theirs)-300):])
				}
			})
		}
	}
}
