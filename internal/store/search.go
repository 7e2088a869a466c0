package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"
)

// Search is the in-store search engine: SQLite FTS5 in the embedded mode,
// PostgreSQL full-text search (weighted tsvector, GIN) in the scale-out mode,
// plus a keyword table (field, value, urn, lower-cased value, number) that
// serves filters and facet counts, and a browse-path table. Documents are
// written with WriteDocuments inside the store transaction that wrote their
// aspects, so the index cannot drift from the store. It implements
// catalog.SearchIndex and is safe for concurrent use.
type Search struct {
	db     *DB
	fields map[string]catalog.SearchField
	// exact lists the high-boost fields (names, ids, titles) whose exact
	// match with the whole query ranks a document first.
	exact []string
}

var _ catalog.SearchIndex = (*Search)(nil)

// Free-text columns by boost: a field's words go into the column of its
// boost bucket, which bm25 (SQLite) or setweight (PostgreSQL) weighs.
var (
	boostFloors  = []float64{8, 3, 1, 0.4, 0} // bucket i holds boosts >= boostFloors[i]
	bucketWeight = []string{"10", "4", "1", "0.5", "0.15"}
	pgWeight     = []string{"A", "B", "C", "D", "D"}
)

// maxKeywordLen bounds the values kept in the keyword table (Elasticsearch's
// ignore_above): longer texts are found by their words, not whole.
const maxKeywordLen = 512

// OpenSearch brings the search tables up to date and returns the engine for
// documents with the given fields.
func (db *DB) OpenSearch(ctx context.Context, fields []catalog.SearchField) (*Search, error) {
	if err := db.Migrate(ctx, "search", searchMigrations); err != nil {
		return nil, err
	}
	s := &Search{db: db, fields: map[string]catalog.SearchField{}}
	for _, f := range fields {
		s.fields[f.Name] = f
		if f.QueryByDefault && f.Boost >= boostFloors[0] {
			s.exact = append(s.exact, f.Name)
		}
	}
	sort.Strings(s.exact)
	return s, nil
}

var searchMigrations = []Migration{{
	Version: 1,
	Name:    "search documents, keywords, browse paths",
	Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
		common := []string{
			`CREATE TABLE IF NOT EXISTS search_kw (
	field TEXT NOT NULL,
	value TEXT NOT NULL,
	urn TEXT NOT NULL,
	lvalue TEXT NOT NULL,
	num DOUBLE PRECISION,
	PRIMARY KEY (field, value, urn)
)` + withoutRowID(dialect),
			`CREATE INDEX IF NOT EXISTS search_kw_urn ON search_kw (urn)`,
			`CREATE TABLE IF NOT EXISTS search_browse (
	entity TEXT NOT NULL,
	path TEXT NOT NULL,
	urn TEXT NOT NULL,
	PRIMARY KEY (entity, path, urn)
)` + withoutRowID(dialect),
			`CREATE INDEX IF NOT EXISTS search_browse_urn ON search_browse (urn)`,
		}
		var own []string
		if dialect == Postgres {
			own = []string{
				`CREATE TABLE IF NOT EXISTS search_doc (
	urn TEXT PRIMARY KEY,
	entity TEXT NOT NULL,
	removed BIGINT NOT NULL,
	fields TEXT NOT NULL,
	tsv TSVECTOR NOT NULL,
	ac TSVECTOR NOT NULL
)`,
				`CREATE INDEX IF NOT EXISTS search_doc_entity ON search_doc (entity, removed, urn)`,
				`CREATE INDEX IF NOT EXISTS search_doc_tsv ON search_doc USING gin (tsv)`,
				`CREATE INDEX IF NOT EXISTS search_doc_ac ON search_doc USING gin (ac)`,
				// LIKE 'prefix%' on browse paths whatever the collation.
				`CREATE INDEX IF NOT EXISTS search_browse_prefix ON search_browse (entity, path text_pattern_ops)`,
			}
		} else {
			own = []string{
				// id is the rowid the FTS table shares, so a document's
				// words are found and deleted by key.
				`CREATE TABLE IF NOT EXISTS search_doc (
	id INTEGER PRIMARY KEY,
	urn TEXT NOT NULL UNIQUE,
	entity TEXT NOT NULL,
	removed BIGINT NOT NULL,
	fields TEXT NOT NULL
)`,
				`CREATE INDEX IF NOT EXISTS search_doc_entity ON search_doc (entity, removed, urn)`,
				`CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(b0, b1, b2, b3, b4, ac, tokenize = 'unicode61 remove_diacritics 2')`,
			}
		}
		return execAll(append(common, own...)...)(ctx, tx, dialect)
	},
}}

func withoutRowID(dialect string) string {
	if dialect == SQLite {
		return " WITHOUT ROWID"
	}
	return ""
}

// Upsert writes documents in a transaction of their own.
func (s *Search) Upsert(ctx context.Context, docs []catalog.Document) error {
	return s.db.Update(ctx, func(tx catalog.Tx) error { return s.WriteDocuments(ctx, tx, docs, nil) })
}

// Delete removes documents in a transaction of their own.
func (s *Search) Delete(ctx context.Context, urns []string) error {
	return s.db.Update(ctx, func(tx catalog.Tx) error { return s.WriteDocuments(ctx, tx, nil, urns) })
}

// docRow is a document as the tables hold it.
type docRow struct {
	urn, entity string
	removed     int64
	fields      string   // JSON of the text fields, for matched fields and suggestions
	text        []string // words per boost bucket
	ac          string   // words of the autocomplete fields
	kw          []any    // flat (field, value, urn, lvalue, num) rows
	browse      []any    // flat (entity, path, urn) rows
}

func (s *Search) row(d catalog.Document) docRow {
	r := docRow{urn: d.URN, entity: d.EntityType, text: make([]string, len(boostFloors))}
	if d.Removed {
		r.removed = 1
	}
	var buckets [5]strings.Builder
	var ac strings.Builder
	stored := map[string][]string{}
	seen := map[[2]string]bool{}
	addKW := func(field, value string, num any) {
		if len(value) > maxKeywordLen {
			return
		}
		k := [2]string{field, value}
		if seen[k] {
			return
		}
		seen[k] = true
		r.kw = append(r.kw, field, value, d.URN, strings.ToLower(value), num)
	}
	addKW(search.FieldURN, d.URN, nil)
	addKW(search.FieldRemoved, fmt.Sprint(d.Removed), nil)
	names := make([]string, 0, len(d.Fields))
	for n := range d.Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == search.FieldRemoved {
			continue
		}
		f, ok := s.fields[name]
		if !ok {
			f = catalog.SearchField{Name: name, Type: "KEYWORD", Boost: 1}
		}
		for _, v := range d.Fields[name] {
			var num any
			switch x := v.(type) {
			case float64:
				num = x
			case int:
				num = float64(x)
			case int64:
				num = float64(x)
			}
			str := search.ValueString(v)
			if name != search.FieldURN {
				addKW(name, str, num)
			}
			if _, isStr := v.(string); !isStr {
				continue
			}
			if f.QueryByDefault || f.Autocomplete {
				stored[name] = append(stored[name], str)
			}
			if f.QueryByDefault {
				b := &buckets[bucketOf(f.Boost)]
				for _, t := range search.IndexTokens(str) {
					b.WriteString(t)
					b.WriteByte(' ')
				}
			}
			if f.Autocomplete {
				for _, t := range search.IndexTokens(str) {
					ac.WriteString(t)
					ac.WriteByte(' ')
				}
			}
		}
	}
	for i := range buckets {
		r.text[i] = buckets[i].String()
	}
	r.ac = ac.String()
	b, _ := json.Marshal(stored) // map of string slices: cannot fail
	r.fields = string(b)
	seenPath := map[string]bool{}
	for _, p := range d.BrowsePaths {
		p = search.NormalizePath(p)
		if !seenPath[p] {
			seenPath[p] = true
			r.browse = append(r.browse, d.EntityType, p, d.URN)
		}
	}
	return r
}

func bucketOf(boost float64) int {
	for i, f := range boostFloors {
		if boost >= f {
			return i
		}
	}
	return len(boostFloors) - 1
}

// WriteDocuments replaces the documents of upserts and removes those of
// deletes inside tx, which must be a transaction of the same store.
func (s *Search) WriteDocuments(ctx context.Context, ctx2 catalog.Tx, upserts []catalog.Document, deletes []string) error {
	tx, ok := ctx2.(*Tx)
	if !ok || tx.db != s.db {
		return fmt.Errorf("search: transaction %T is not one of this store", ctx2)
	}
	if len(upserts) == 0 && len(deletes) == 0 {
		return nil
	}
	// The last document of a URN wins.
	byURN := map[string]int{}
	for i, d := range upserts {
		byURN[d.URN] = i
	}
	urns := make([]string, 0, len(upserts)+len(deletes))
	rows := make([]docRow, 0, len(byURN))
	for i, d := range upserts {
		if byURN[d.URN] != i {
			continue
		}
		if d.URN == "" || d.EntityType == "" {
			return catalog.Errorf(catalog.Invalid, "search document %d has no URN or entity type", i)
		}
		urns = append(urns, d.URN)
		rows = append(rows, s.row(d))
	}
	for _, u := range deletes {
		if _, ok := byURN[u]; !ok {
			urns = append(urns, u)
		}
	}
	if err := s.clear(ctx, tx, urns); err != nil {
		return tx.db.fail(ctx, err, "clear search documents of %s", describeURNs(urns))
	}
	if len(rows) == 0 {
		return nil
	}
	if err := s.insert(ctx, tx, rows); err != nil {
		return tx.db.fail(ctx, err, "write search documents of %s", describeURNs(urns))
	}
	return nil
}

// ResetDocuments removes every document, inside tx.
func (s *Search) ResetDocuments(ctx context.Context, ctx2 catalog.Tx) error {
	tx, ok := ctx2.(*Tx)
	if !ok || tx.db != s.db {
		return fmt.Errorf("search: transaction %T is not one of this store", ctx2)
	}
	tables := []string{"search_kw", "search_browse", "search_doc"}
	if !tx.db.q.pg {
		tables = append(tables, "search_fts")
	}
	for _, t := range tables {
		if _, err := tx.q.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			return tx.db.fail(ctx, err, "empty %s", t)
		}
	}
	return nil
}

// InsertDocuments adds documents that are not in the index (after
// ResetDocuments), inside tx, skipping the removal of old rows.
func (s *Search) InsertDocuments(ctx context.Context, ctx2 catalog.Tx, docs []catalog.Document) error {
	tx, ok := ctx2.(*Tx)
	if !ok || tx.db != s.db {
		return fmt.Errorf("search: transaction %T is not one of this store", ctx2)
	}
	rows := make([]docRow, 0, len(docs))
	for _, d := range docs {
		rows = append(rows, s.row(d))
	}
	if err := s.insert(ctx, tx, rows); err != nil {
		return tx.db.fail(ctx, err, "write %d search documents", len(rows))
	}
	return nil
}

func (s *Search) clear(ctx context.Context, tx *Tx, urns []string) error {
	q := tx.db.q
	arg := q.listArg(urns)
	stmts := []string{
		"DELETE FROM search_kw WHERE " + q.inList("urn"),
		"DELETE FROM search_browse WHERE " + q.inList("urn"),
	}
	if !q.pg {
		stmts = append(stmts,
			"DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_doc WHERE "+q.inList("urn")+")",
			"DELETE FROM search_doc WHERE "+q.inList("urn"))
	} else {
		stmts = append(stmts, "DELETE FROM search_doc WHERE "+q.inList("urn"))
	}
	for _, st := range stmts {
		if _, err := tx.q.ExecContext(ctx, q.rebind(st), arg); err != nil {
			return err
		}
	}
	return nil
}

func (s *Search) insert(ctx context.Context, tx *Tx, rows []docRow) error {
	q := tx.db.q
	var kw, browse []any
	for _, r := range rows {
		kw = append(kw, r.kw...)
		browse = append(browse, r.browse...)
	}
	if q.pg {
		n := len(rows)
		urn, ent, fields, ac := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		removed := make([]int64, n)
		text := make([][]string, len(boostFloors))
		for i := range text {
			text[i] = make([]string, n)
		}
		for i, r := range rows {
			urn[i], ent[i], removed[i], fields[i], ac[i] = r.urn, r.entity, r.removed, r.fields, r.ac
			for b := range text {
				text[b][i] = r.text[b]
			}
		}
		var tsv []string
		for b := range text {
			tsv = append(tsv, fmt.Sprintf("setweight(to_tsvector('simple', t%d), '%s')", b, pgWeight[b]))
		}
		stmt := `INSERT INTO search_doc (urn, entity, removed, fields, tsv, ac)
SELECT u, e, r, f, ` + strings.Join(tsv, " || ") + `, to_tsvector('simple', a)
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
AS t(u, e, r, f, t0, t1, t2, t3, t4, a)
ON CONFLICT (urn) DO UPDATE SET entity = EXCLUDED.entity, removed = EXCLUDED.removed, fields = EXCLUDED.fields, tsv = EXCLUDED.tsv, ac = EXCLUDED.ac`
		if _, err := tx.q.ExecContext(ctx, stmt, urn, ent, removed, fields, text[0], text[1], text[2], text[3], text[4], ac); err != nil {
			return err
		}
	} else {
		flat := make([]any, 0, 4*len(rows))
		for _, r := range rows {
			flat = append(flat, r.urn, r.entity, r.removed, r.fields)
		}
		ids := make(map[string]int64, len(rows))
		per := q.rowsPerStatement(4)
		for i := 0; i < len(rows); i += per {
			m := min(per, len(rows)-i)
			res, err := tx.q.QueryContext(ctx, q.insert("INSERT INTO search_doc (urn, entity, removed, fields) VALUES ", "(?,?,?,?)", " RETURNING id, urn", m), flat[i*4:(i+m)*4]...)
			if err != nil {
				return err
			}
			for res.Next() {
				var id int64
				var u string
				if err := res.Scan(&id, &u); err != nil {
					res.Close()
					return err
				}
				ids[u] = id
			}
			if err := res.Close(); err != nil {
				return err
			}
		}
		fts := make([]any, 0, 7*len(rows))
		for _, r := range rows {
			fts = append(fts, ids[r.urn], r.text[0], r.text[1], r.text[2], r.text[3], r.text[4], r.ac)
		}
		if err := bulk(ctx, tx.q, q, "search_fts", []string{"rowid", "b0", "b1", "b2", "b3", "b4", "ac"}, nil, "", fts); err != nil {
			return err
		}
	}
	if err := bulk(ctx, tx.q, q, "search_kw", []string{"field", "value", "urn", "lvalue", "num"},
		[]string{"text", "text", "text", "text", "float8"}, " ON CONFLICT DO NOTHING", kw); err != nil {
		return err
	}
	return bulk(ctx, tx.q, q, "search_browse", []string{"entity", "path", "urn"},
		[]string{"text", "text", "text"}, " ON CONFLICT DO NOTHING", browse)
}

// bulk inserts flat rows: multi-row VALUES on SQLite, one unnest statement
// per call on PostgreSQL (types gives each column's array type there).
func bulk(ctx context.Context, x querier, q queries, table string, cols, types []string, suffix string, flat []any) error {
	n := len(cols)
	rows := len(flat) / n
	if rows == 0 {
		return nil
	}
	if q.pg {
		arrays := make([]any, n)
		var sel []string
		for c := 0; c < n; c++ {
			switch types[c] {
			case "float8":
				col := make([]pgtype.Float8, rows)
				for r := range col {
					if f, ok := flat[r*n+c].(float64); ok {
						col[r] = pgtype.Float8{Float64: f, Valid: true}
					}
				}
				arrays[c] = col
			case "bigint":
				col := make([]int64, rows)
				for r := range col {
					col[r] = flat[r*n+c].(int64)
				}
				arrays[c] = col
			default:
				col := make([]string, rows)
				for r := range col {
					col[r], _ = flat[r*n+c].(string)
				}
				arrays[c] = col
			}
			sel = append(sel, fmt.Sprintf("$%d::%s[]", c+1, types[c]))
		}
		stmt := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") SELECT * FROM unnest(" + strings.Join(sel, ", ") + ")" + suffix
		_, err := x.ExecContext(ctx, stmt, arrays...)
		return err
	}
	tuple := "(" + strings.Repeat("?,", n-1) + "?)"
	prefix := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES "
	per := q.rowsPerStatement(n)
	for i := 0; i < rows; i += per {
		m := min(per, rows-i)
		if _, err := x.ExecContext(ctx, q.insert(prefix, tuple, suffix, m), flat[i*n:(i+m)*n]...); err != nil {
			return err
		}
	}
	return nil
}
