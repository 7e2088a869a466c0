package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestTSVectorMatchesPostgreSQL checks that the tsvectors the store builds
// from the analyzer's words are those PostgreSQL's to_tsvector('simple')
// made of the same words, weighted by bucket, which earlier versions wrote
// and which queries of either kind must keep matching.
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
	weights := []pgtype.TSVectorWeight{pgtype.TSVectorWeightA, pgtype.TSVectorWeightB, pgtype.TSVectorWeightC, pgtype.TSVectorWeightD, pgtype.TSVectorWeightD}
	tests := map[string][5]string{
		"empty": {},
		"names and descriptions": {
			words("SampleHiveDataset", "fct_users_created"),
			words("Daily snapshot of business entity 10282 for analytics", "urn:li:dataset:(urn:li:dataPlatform:hive,db.fct_users,PROD)"),
			"", words("Column 3 of table 10282, holding NumberType values", "Column 4 of table 10282"),
			words("owner_team=team_12", "retention_days=90"),
		},
		"one word in several buckets":      {words("orders"), words("orders orders"), words("customer orders"), "", words("orders")},
		"letters and digits":               {words("1e5 v2 3.14 x-ray kalomi3 2024-01-31T10:00:00Z 0x1F")},
		"non-ASCII":                        {words("Ünïcödé naïve Straße ÉCOLE δοκιμή 東京 データ")},
		"more positions than a word keeps": {strings.Repeat("again ", 300)},
		"more words than positions":        {strings.Repeat("alpha beta gamma ", 6000), words("tail end")},
	}
	for name, texts := range tests {
		t.Run(name, func(t *testing.T) {
			got := store.TSVector(texts[:], weights)
			var same bool
			var ours, theirs string
			err := db.Bun().DB.QueryRowContext(context.Background(), `SELECT $1::tsvector = w, $1::tsvector::text, w::text FROM (SELECT
	setweight(to_tsvector('simple', $2), 'A') || setweight(to_tsvector('simple', $3), 'B') || setweight(to_tsvector('simple', $4), 'C') ||
	setweight(to_tsvector('simple', $5), 'D') || setweight(to_tsvector('simple', $6), 'D') AS w) AS x`,
				got, texts[0], texts[1], texts[2], texts[3], texts[4]).Scan(&same, &ours, &theirs)
			if err != nil {
				t.Fatal(err)
			}
			if !same {
				t.Errorf("tsvector differs from to_tsvector's:\nours:   %.300s ... %s\ntheirs: %.300s ... %s", ours, ours[max(0, len(ours)-300):], theirs, theirs[max(0, len(theirs)-300):])
			}
		})
	}
}
