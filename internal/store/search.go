package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"
	"golang.org/x/sync/errgroup"
)

// Search is the in-store search engine: SQLite FTS5 in the embedded mode,
// PostgreSQL full-text search (weighted tsvector, GIN) in the scale-out mode,
// plus a keyword table that serves filters, facet counts and the exact-name
// bonus, and a browse-path table. Documents are written with WriteDocuments
// inside the store transaction that wrote their aspects, so the index cannot
// drift from the store. It implements catalog.SearchIndex and is safe for
// concurrent use.
//
// The layout keeps the bytes written per document low, since indexing runs in
// every ingest transaction:
//
//   - search_doc has one narrow row per document, with an integer id that
//     the other tables use instead of the URN, and what a search reads of
//     every hit: entity type, soft deletion and the numbers of its facet
//     values (fids, see search_facets.go); on PostgreSQL also the words, in
//     tsvectors kept out of the row. search_body holds "fields", a JSON map
//     of the string values queries read back for the page (query-by-default
//     and autocomplete values for matched fields and suggestions, plus the
//     values that have no keyword row, see below), and "acvals", those of
//     the autocomplete fields.
//   - search_kw has (field, value, doc) rows for keyword-like fields only:
//     URN, KEYWORD, BOOLEAN, numeric and browse fields, every addToFilters
//     field and the high-boost name fields. Free-text fields (TEXT,
//     TEXT_PARTIAL, WORD_GRAM: descriptions, field paths) get none, nor do
//     values longer than maxKeywordLen: they are found by their words, and a
//     filter on them is evaluated against "fields" (a scan, but such filters
//     are rare). "urn" and "removed" are columns of search_doc.
//   - The SQLite FTS5 table is contentless: the text is not stored twice.
//   - On PostgreSQL, search_word lists the documents' words, so that a
//     query's last word is matched whole when no other word begins with
//     it (see search_wordlist.go).
//   - Rewriting a document (the common case: one aspect of an entity
//     changed) only touches the rows that differ.
type Search struct {
	db     *DB
	fields map[string]catalog.SearchField
	// exact lists the high-boost fields (names, ids, titles) whose exact
	// match with the whole query ranks a document first.
	exact []string
	dict  *facetDict
	// weights are bucketWeight as numbers, for ranking in Go.
	weights []float64
	// bucketUsed tells the buckets some query-by-default field writes to.
	bucketUsed []bool
	// candidates is rankCandidates, lowered by tests.
	candidates int
	// walkFrom is the count of hits from which a tier's first hits are
	// looked for in URN order (see rankTiers).
	walkFrom int
	// traceTier, set by tests, learns how rankTiers ranked a page.
	traceTier func(tier int, cut bool)
	// samples numbers the documents prepared, for their sample words;
	// stats are PostgreSQL's statistics of their words, and sampleHits
	// the hits a sample is chosen to hold (see sampleLevel): 1.25 times
	// maxTotal, set otherwise by tests.
	samples    sampleCounter
	stats      atomic.Pointer[wordStats]
	sampleHits float64
	// traceSample, set by tests, learns which sample a search counted
	// over and whether it held maxTotal hits; traceFew which tiers were
	// listed through the index for the few hits estimated (fewInTier).
	traceSample func(level int, full bool)
	traceFew    func(tier int)
	// traceWalk learns that a walk's probe found its tier too small.
	traceWalk func()
	// splitHits is the estimated hits from which a window is counted in
	// halves (see textWindow), lowered by tests; traceSplit learns that a
	// window was, and whether its halves ran at once.
	splitHits  float64
	traceSplit func(beside bool)
	// rebuild collects the words of a rebuild's documents (PostgreSQL).
	rebuild rebuildWords
	// stored holds the entity types anyStored found documents of.
	stored sync.Map // string -> struct{}
}

var _ catalog.SearchIndex = (*Search)(nil)

// Free-text columns by boost: a field's words go into the column of its
// boost bucket (SQLite) or are tagged with it (PostgreSQL, see tsVector).
// A hit scores, for each query word, the weights of the buckets holding it:
// catalogd_rank on SQLite, scoreOf on PostgreSQL.
var (
	boostFloors  = []float64{8, 3, 1, 0.4, 0} // bucket i holds boosts >= boostFloors[i]
	bucketWeight = []string{"10", "4", "1", "0.5", "0.15"}
)

// maxKeywordLen bounds the values kept in the keyword table (Elasticsearch's
// ignore_above): longer values go to the document's "fields" JSON, where
// filters still find them, and are left out of facet counts.
const maxKeywordLen = 256

// OpenSearch brings the search tables up to date and returns the engine for
// documents with the given fields.
func (db *DB) OpenSearch(ctx context.Context, fields []catalog.SearchField) (*Search, error) {
	s := db.newSearch(fields)
	if err := db.Migrate(ctx, "search", s.migrations()); err != nil {
		return nil, err
	}
	if db.dialect == Postgres {
		// A rebuild that stopped before its end left them out (see
		// ResetDocuments).
		for _, st := range pgTextIndexes {
			if _, err := db.sql.ExecContext(ctx, st); err != nil {
				return nil, db.fail(ctx, err, "create the full-text indexes")
			}
		}
	}
	return s, nil
}

// pgTextIndexes are the full-text indexes of PostgreSQL, which a full
// rebuild drops and creates again once the documents are in, with the
// short pending lists of migration 7: the words' in two halves (see
// search_halves.go), and the autocomplete words'.
var pgTextIndexes = []string{
	`CREATE INDEX IF NOT EXISTS search_doc_tsv0 ON search_doc USING gin (tsv) WITH (gin_pending_list_limit = 64) WHERE (id & 1) = 0`,
	`CREATE INDEX IF NOT EXISTS search_doc_tsv1 ON search_doc USING gin (tsv) WITH (gin_pending_list_limit = 64) WHERE (id & 1) = 1`,
	`CREATE INDEX IF NOT EXISTS search_doc_ac ON search_doc USING gin (ac) WITH (gin_pending_list_limit = 64)`,
}

func (db *DB) newSearch(fields []catalog.SearchField) *Search {
	s := &Search{db: db, fields: map[string]catalog.SearchField{}, dict: newFacetDict(), candidates: rankCandidates, walkFrom: maxTotal,
		sampleHits: 1.25 * maxTotal, splitHits: splitHits}
	s.samples.start()
	for _, w := range bucketWeight {
		x, _ := strconv.ParseFloat(w, 64) // constants that parse
		s.weights = append(s.weights, x)
	}
	s.bucketUsed = make([]bool, len(bucketWeight))
	for _, f := range fields {
		s.fields[f.Name] = f
		if f.QueryByDefault {
			s.bucketUsed[bucketOf(f.Boost)] = true
		}
		if f.QueryByDefault && f.Boost >= boostFloors[0] {
			s.exact = append(s.exact, f.Name)
		}
	}
	sort.Strings(s.exact)
	return s
}

// migrations are the steps of the search tables' schema. The later ones
// derive new columns of existing documents from what the index holds, as
// this engine's fields define them.
func (s *Search) migrations() []Migration {
	return []Migration{searchLayout, {
		Version: 2,
		Name:    "facet values in the document row",
		Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
			if _, err := tx.ExecContext(ctx, "ALTER TABLE search_doc ADD COLUMN facets TEXT NOT NULL DEFAULT ''"); err != nil {
				return err
			}
			var filters []string
			for n, f := range s.fields {
				if f.Filter {
					filters = append(filters, n)
				}
			}
			if len(filters) == 0 {
				return nil
			}
			// Existing documents get theirs from their keyword rows, in
			// the encoding of docRow.facets (see facetsOf), in one
			// statement rather than a pass through Go.
			in := "'" + strings.Join(filters, "', '") + "'"
			agg := "group_concat(k.field || char(31) || k.value, char(30))"
			clean := "instr(k.value, char(31)) = 0 AND instr(k.value, char(30)) = 0"
			if dialect == Postgres {
				agg = "string_agg(k.field || chr(31) || k.value, chr(30) ORDER BY k.field, k.value)"
				clean = "strpos(k.value, chr(31)) = 0 AND strpos(k.value, chr(30)) = 0"
			}
			_, err := tx.ExecContext(ctx, "UPDATE search_doc SET facets = coalesce((SELECT "+agg+" FROM search_kw k WHERE k.doc = search_doc.id AND k.field IN ("+in+") AND "+clean+"), '')")
			return err
		},
	}, {
		Version: 3,
		Name:    "autocomplete values and words of their own",
		Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
			if _, err := tx.ExecContext(ctx, "ALTER TABLE search_doc ADD COLUMN acvals TEXT NOT NULL DEFAULT '{}'"); err != nil {
				return err
			}
			if dialect == SQLite {
				if _, err := tx.ExecContext(ctx, "CREATE VIRTUAL TABLE IF NOT EXISTS search_ac USING fts5(ac, content = '', contentless_delete = 1, detail = column, tokenize = 'unicode61 remove_diacritics 2')"); err != nil {
					return err
				}
			}
			return s.fillAutocomplete(ctx, tx, dialect)
		},
	}, {
		Version: 4,
		Name:    "fewer full-text segment merges",
		// Every write transaction adds a segment to each FTS5 table; FTS5
		// merges a level's segments once it holds "automerge" of them
		// (default 4). At 16 each word is merged about half as often: a
		// full restore of 100k datasets ran 8-10% faster (its commits
		// spent 14 of 49 s merging), and queries over the extra segments
		// measured no slower.
		Up: only(SQLite, execAll(
			"INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 16)",
			"INSERT INTO search_ac (search_ac, rank) VALUES ('automerge', 16)",
		)),
	}, {
		Version: 5,
		Name:    "no autocomplete words in the text table",
		Up:      s.dropTextTableAC,
	}, {
		Version: 6,
		Name:    "narrow document rows, numbered facet values, bucket-tagged words",
		Up:      s.narrowRows,
	}, {
		Version: 7,
		Name:    "short GIN pending lists",
		// GIN indexes queue new entries in a pending list that every
		// search scans whole, until a vacuum or a full list (4 MB by
		// default) merges it into the index. After an ingest that list
		// was full: an autocomplete of one hit read 504 index pages for
		// it, 19 ms, and 0.06 ms once merged; a two-word search read 227
		// index pages instead of 49. A short list keeps that scan to a few
		// pages; the merges it makes more frequent cost about what they
		// did in total.
		Up: only(Postgres, execAll(
			"ALTER INDEX search_doc_tsv SET (gin_pending_list_limit = 64)",
			"ALTER INDEX search_doc_ac SET (gin_pending_list_limit = 64)",
		)),
	}, {
		Version: 8,
		Name:    "short GIN pending lists after a rebuild",
		// A rebuild created the indexes again without the setting of
		// migration 7 (see pgTextIndexes). An index a rebuild left out is
		// created with it at start.
		Up: only(Postgres, execAll(
			"ALTER INDEX IF EXISTS search_doc_tsv SET (gin_pending_list_limit = 64)",
			"ALTER INDEX IF EXISTS search_doc_ac SET (gin_pending_list_limit = 64)",
		)),
	}, {
		Version: 9,
		Name:    "what a text search reads of each hit, apart; the text table's words",
		// search_doc_hit holds what rankFTS reads of each of up to
		// maxTotal hits, in 28% of the pages of the rows, whose URNs take
		// most of their bytes (see hitsJoin). search_fts_words lists the
		// words of search_fts, so that a query's last word is matched as a
		// prefix only when another word extends it (see lastWordWhole).
		Up: only(SQLite, execAll(
			"CREATE INDEX IF NOT EXISTS search_doc_hit ON search_doc (id, entity, removed, long, fids)",
			"CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_words USING fts5vocab(search_fts, instance)",
		)),
	}, {
		Version: 10,
		Name:    "the documents' words (PostgreSQL)",
		// See wordsComplete. Listing the words of existing documents
		// (ts_stat) took 10 s per 100,000 datasets: until a rebuild lists
		// them, their searches match prefixes as before.
		Up: only(Postgres, execAll(
			`CREATE TABLE IF NOT EXISTS search_word (word TEXT COLLATE "C" PRIMARY KEY)`,
			"INSERT INTO search_word (word) SELECT '"+wordsComplete+"' WHERE NOT EXISTS (SELECT 1 FROM search_doc)",
		)),
	}, {
		Version: 11,
		Name:    "the words' index in halves (PostgreSQL)",
		// See search_halves.go. The halves are built here from every
		// document, one after the other: on a large catalog the first
		// start after the upgrade takes minutes (README).
		Up: only(Postgres, execAll(
			"SET LOCAL maintenance_work_mem = '256MB'",
			"DROP INDEX IF EXISTS search_doc_tsv",
			pgTextIndexes[0],
			pgTextIndexes[1],
		)),
	}}
}

// fillAutocomplete derives the autocomplete values (and, on SQLite, words)
// of existing documents from the stored values of their "fields" JSON,
// which holds every autocomplete field's strings: row turns those into
// what it writes for a new document.
func (s *Search) fillAutocomplete(ctx context.Context, tx bun.Tx, dialect string) error {
	return s.eachStoredDoc(ctx, tx, func(n string) bool { return s.fields[n].Autocomplete }, func(d docRow) error {
		if _, err := tx.ExecContext(ctx, "UPDATE search_doc SET acvals = ? WHERE id = ?", d.acvals, d.id); err != nil {
			return err
		}
		if dialect == SQLite && d.ac != "" {
			if _, err := tx.ExecContext(ctx, "INSERT INTO search_ac (rowid, ac) VALUES (?, ?)", d.id, d.ac); err != nil {
				return err
			}
		}
		return nil
	})
}

// dropTextTableAC empties column ac of search_fts, which held autocomplete
// words until migration 3 gave them a table of their own. Text searches
// match every column of search_fts (a column filter cost 7% of the
// statement's instructions), so words left there would match text
// queries. The table's words are rewritten from the stored values of the
// documents, as row derives them for a new document, when any word is in
// that column.
func (s *Search) dropTextTableAC(ctx context.Context, tx bun.Tx, dialect string) error {
	if dialect != SQLite {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "CREATE VIRTUAL TABLE temp.catalogd_fts_cols USING fts5vocab(main, 'search_fts', 'col')"); err != nil {
		return err
	}
	var stale bool
	err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM temp.catalogd_fts_cols WHERE col = 'ac')").Scan(&stale)
	if _, derr := tx.ExecContext(ctx, "DROP TABLE temp.catalogd_fts_cols"); err == nil {
		err = derr
	}
	if err != nil || !stale {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO search_fts (search_fts) VALUES ('delete-all')"); err != nil {
		return err
	}
	return s.eachStoredDoc(ctx, tx, func(n string) bool { return s.fields[n].QueryByDefault }, func(d docRow) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO search_fts (rowid, b0, b1, b2, b3, b4) VALUES (?, ?, ?, ?, ?, ?)", d.id, d.text[0], d.text[1], d.text[2], d.text[3], d.text[4])
		return err
	})
}

// eachStoredDoc calls fn, in id order, with the row that row derives for
// each document from the stored string values of its fields that keep
// says to keep. It reads search_doc.fields, which migration 6 moved.
func (s *Search) eachStoredDoc(ctx context.Context, tx bun.Tx, keep func(field string) bool, fn func(docRow) error) error {
	// bun.Tx binds the '?' arguments itself, for either dialect.
	for after := int64(-1); ; {
		rows, err := tx.QueryContext(ctx, "SELECT id, fields FROM search_doc WHERE id > ? ORDER BY id LIMIT 1000", after)
		if err != nil {
			return err
		}
		var docs []docRow
		for rows.Next() {
			var id int64
			var fields string
			if err := rows.Scan(&id, &fields); err != nil {
				rows.Close()
				return err
			}
			r, err := s.storedRow(id, fields, keep)
			if err != nil {
				rows.Close()
				return err
			}
			docs = append(docs, r)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if len(docs) == 0 {
			return nil
		}
		for _, d := range docs {
			if err := fn(d); err != nil {
				return err
			}
		}
		after = docs[len(docs)-1].id
	}
}

// storedRow is the row that row derives for document id from the stored
// string values (a "fields" JSON) of its fields that keep says to keep.
func (s *Search) storedRow(id int64, fields string, keep func(field string) bool) (docRow, error) {
	var stored map[string][]string
	if err := json.Unmarshal([]byte(fields), &stored); err != nil {
		return docRow{}, fmt.Errorf("search document %d: %w", id, err)
	}
	d := catalog.Document{Fields: map[string][]any{}}
	for n, vals := range stored {
		if keep(n) {
			for _, v := range vals {
				d.Fields[n] = append(d.Fields[n], v)
			}
		}
	}
	r := s.row(d)
	r.id = id
	return r, nil
}

// narrowRows (migration 6) moves what only a page reads (fields, acvals)
// out of search_doc into search_body, replaces the facets text by numbered
// values (fids, see search_facets.go) and, on PostgreSQL, rewrites the
// tsvectors bucket-tagged and without positions, stored out of the row.
// A search visits the search_doc row of every hit, and these rows are now a
// few dozen bytes: a million of them fit in memory where the wide ones
// (2 KB each, most of it the fields JSON) were read from disk.
func (s *Search) narrowRows(ctx context.Context, tx bun.Tx, dialect string) error {
	pg := dialect == Postgres
	x := tx.Tx
	var stmts []string
	if pg {
		stmts = []string{
			"SET LOCAL maintenance_work_mem = '256MB'",
			`CREATE TABLE IF NOT EXISTS search_value (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, field TEXT NOT NULL, value TEXT NOT NULL, UNIQUE (field, value))`,
			`CREATE TABLE IF NOT EXISTS search_body (id BIGINT PRIMARY KEY, fields TEXT NOT NULL, acvals TEXT NOT NULL)`,
			`CREATE TEMP TABLE catalogd_facets ON COMMIT DROP AS SELECT id, facets FROM search_doc`,
		}
	} else {
		stmts = []string{
			`CREATE TABLE IF NOT EXISTS search_value (id INTEGER PRIMARY KEY, field TEXT NOT NULL, value TEXT NOT NULL, UNIQUE (field, value))`,
			`CREATE TABLE IF NOT EXISTS search_body (id INTEGER PRIMARY KEY, fields TEXT NOT NULL, acvals TEXT NOT NULL)`,
			`CREATE TEMP TABLE catalogd_facets AS SELECT id, facets FROM search_doc`,
		}
	}
	stmts = append(stmts,
		`INSERT INTO search_body (id, fields, acvals) SELECT id, fields, acvals FROM search_doc`,
		"ALTER TABLE search_doc DROP COLUMN fields",
		"ALTER TABLE search_doc DROP COLUMN facets",
		"ALTER TABLE search_doc DROP COLUMN acvals",
	)
	if pg {
		stmts = append(stmts,
			"ALTER TABLE search_doc ADD COLUMN fids BYTEA NOT NULL DEFAULT ''::bytea",
			// Rows of fewer than 128 bytes: the tsvectors (kilobytes) go to
			// the TOAST table, the columns every hit is read for stay.
			"ALTER TABLE search_doc SET (toast_tuple_target = 128)",
			"ALTER TABLE search_doc ALTER COLUMN ac SET STORAGE EXTERNAL",
			"ALTER TABLE search_doc ALTER COLUMN urn SET STORAGE PLAIN",
			"ALTER TABLE search_doc ALTER COLUMN fids SET STORAGE PLAIN",
			// Rebuilt after the rewrite: faster than updating them.
			"DROP INDEX IF EXISTS search_doc_tsv",
			"DROP INDEX IF EXISTS search_doc_ac",
		)
	} else {
		stmts = append(stmts, "ALTER TABLE search_doc ADD COLUMN fids BLOB NOT NULL DEFAULT x''")
	}
	if pg {
		// The tsvectors compress (their words share prefixes): lz4 where
		// the server has it (see schemaMigrations), for fewer TOAST rows
		// to write and read.
		var lz4 bool
		if err := x.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_settings
WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))`).Scan(&lz4); err != nil {
			return err
		}
		if lz4 {
			stmts = append(stmts, "ALTER TABLE search_doc ALTER COLUMN tsv SET COMPRESSION lz4")
		}
	}
	for _, st := range stmts {
		if _, err := x.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
	}
	keep := func(n string) bool { return true }
	for after := int64(-1); ; {
		rows, err := x.QueryContext(ctx, s.db.q.rebind("SELECT f.id, f.facets, b.fields FROM catalogd_facets f JOIN search_body b ON b.id = f.id WHERE f.id > ? ORDER BY f.id LIMIT 1000"), after)
		if err != nil {
			return err
		}
		var docs []docRow
		var keys []string
		for rows.Next() {
			var id int64
			var facets, fields string
			if err := rows.Scan(&id, &facets, &fields); err != nil {
				rows.Close()
				return err
			}
			r := docRow{id: id}
			if pg {
				if r, err = s.storedRow(id, fields, keep); err != nil {
					rows.Close()
					return err
				}
				r.facets = nil // from the column below
			}
			// The facets column held "field\x1fvalue" pairs joined by
			// "\x1e": a pair is a dictionary key.
			for _, k := range strings.Split(facets, "\x1e") {
				if k != "" {
					r.facets = append(r.facets, k)
				}
			}
			keys = append(keys, r.facets...)
			docs = append(docs, r)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if len(docs) == 0 {
			break
		}
		after = docs[len(docs)-1].id
		ids, err := s.facetIDs(ctx, x, keys, nil, nil)
		if err != nil {
			return err
		}
		if pg {
			n := len(docs)
			id, fids, tsv, ac := make([]int64, n), make([][]byte, n), make([]pgtype.TSVector, n), make([]pgtype.TSVector, n)
			for i, d := range docs {
				id[i], fids[i], tsv[i], ac[i] = d.id, encodeFIDs(d.facets, ids), d.tsv, d.acv
			}
			if _, err := x.ExecContext(ctx, `UPDATE search_doc AS d SET fids = u.fids, tsv = u.tsv, ac = u.ac
FROM unnest($1::bigint[], $2::bytea[], $3::tsvector[], $4::tsvector[]) AS u(id, fids, tsv, ac) WHERE d.id = u.id`, id, fids, tsv, ac); err != nil {
				return err
			}
			continue
		}
		for _, d := range docs {
			if _, err := x.ExecContext(ctx, "UPDATE search_doc SET fids = ? WHERE id = ?", encodeFIDs(d.facets, ids), d.id); err != nil {
				return err
			}
		}
	}
	if pg {
		return execAll(
			`CREATE INDEX IF NOT EXISTS search_doc_tsv ON search_doc USING gin (tsv)`,
			`CREATE INDEX IF NOT EXISTS search_doc_ac ON search_doc USING gin (ac)`,
			"ANALYZE search_doc",
		)(ctx, tx, dialect)
	}
	_, err := x.ExecContext(ctx, "DROP TABLE temp.catalogd_facets")
	return err
}

var searchLayout = Migration{
	Version: 1,
	Name:    "search documents, keywords, browse paths",
	Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
		// search_kw.lvalue is the lower-cased value only when SQL's lower()
		// would fold it differently (non-ASCII letters); case-insensitive
		// conditions read coalesce(lvalue, lower(value)).
		common := []string{
			`CREATE TABLE IF NOT EXISTS search_kw (
	field TEXT NOT NULL,
	value TEXT NOT NULL,
	doc BIGINT NOT NULL,
	lvalue TEXT,
	num DOUBLE PRECISION,
	PRIMARY KEY (field, value, doc)
)` + withoutRowID(dialect),
			`CREATE INDEX IF NOT EXISTS search_kw_doc ON search_kw (doc)`,
			`CREATE TABLE IF NOT EXISTS search_browse (
	entity TEXT NOT NULL,
	path TEXT NOT NULL,
	doc BIGINT NOT NULL,
	PRIMARY KEY (entity, path, doc)
)` + withoutRowID(dialect),
			`CREATE INDEX IF NOT EXISTS search_browse_doc ON search_browse (doc)`,
		}
		var own []string
		if dialect == Postgres {
			own = []string{
				`CREATE TABLE IF NOT EXISTS search_doc (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	urn TEXT NOT NULL UNIQUE,
	entity TEXT NOT NULL,
	removed BIGINT NOT NULL,
	long BIGINT NOT NULL,
	fields TEXT NOT NULL,
	tsv TSVECTOR NOT NULL,
	ac TSVECTOR NOT NULL
)`,
				`CREATE INDEX IF NOT EXISTS search_doc_entity ON search_doc (entity, removed, urn)`,
				`CREATE INDEX IF NOT EXISTS search_doc_long ON search_doc (id) WHERE long = 1`,
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
	removed INTEGER NOT NULL,
	long INTEGER NOT NULL,
	fields TEXT NOT NULL
)`,
				`CREATE INDEX IF NOT EXISTS search_doc_entity ON search_doc (entity, removed, urn)`,
				// The few documents with values too long for the keyword
				// table, which filters also check.
				`CREATE INDEX IF NOT EXISTS search_doc_long ON search_doc (id) WHERE long = 1`,
				// Contentless: the words are indexed, not stored (matched
				// fields come from search_doc.fields); contentless_delete
				// lets a document's words be deleted by rowid. Column ac
				// is no longer written (see dropTextTableAC).
				`CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(b0, b1, b2, b3, b4, ac, content = '', contentless_delete = 1, detail = column, tokenize = 'unicode61 remove_diacritics 2')`,
			}
		}
		return execAll(append(common, own...)...)(ctx, tx, dialect)
	},
}

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

// kwRow is one keyword row of a document.
type kwRow struct {
	field, value string
	lvalue       any // string, or nil when lower(value) folds it right
	num          any // float64 for numbers, else nil
}

func (k kwRow) key() string { return k.field + "\x00" + k.value }

// docRow is a document as the tables hold it.
type docRow struct {
	id            int64
	urn, entity   string
	removed, long int64
	fields        string          // JSON of the stored string values
	facets        []string        // filter fields' keyword values, see facetsOf
	fids          []byte          // their numbers (resolveFacets)
	text          [5]string       // words per boost bucket
	ac            string          // words of the autocomplete fields
	tsv, acv      pgtype.TSVector // text and ac as PostgreSQL indexes them
	acvals        string          // JSON of the autocomplete fields' values
	kw            []kwRow
	browse        []string // normalized paths
}

// keyed reports whether the string values of a field get keyword rows; the
// others are filtered through the "fields" JSON.
func (s *Search) keyed(name string) bool {
	f, ok := s.fields[name]
	if !ok || f.Filter {
		return true
	}
	switch f.Type {
	case "TEXT", "TEXT_PARTIAL", "WORD_GRAM":
		return f.QueryByDefault && f.Boost >= boostFloors[0] // the exact-name bonus reads them
	}
	return true
}

// columnField reports whether a field is a column of search_doc rather
// than keyword rows.
func columnField(name string) bool { return name == search.FieldURN || name == search.FieldRemoved }

// foldExtra returns the lower-cased value when SQL's lower(), which may
// fold ASCII letters only, would not give strings.ToLower's result.
func foldExtra(v string) any {
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf {
			l := strings.ToLower(v)
			if l != asciiLower(v) {
				return l
			}
			return nil
		}
	}
	return nil
}

func asciiLower(v string) string {
	b := []byte(v)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func (s *Search) row(d catalog.Document) docRow {
	r := docRow{urn: d.URN, entity: d.EntityType}
	if d.Removed {
		r.removed = 1
	}
	var buckets [5]strings.Builder
	var ac strings.Builder
	// The fields' values by name, in name order: the loop below visits
	// the names sorted.
	var stored, acvals fieldLists
	seen := map[string]bool{}
	var tz search.Tokenizer
	// Each column's words are written once: the text tables keep which
	// columns hold a word (detail=column, or a tagged lexeme), not how
	// often, and FTS5 tokenizing and hashing the repeats (the same words in
	// twenty column descriptions) was 7% of the library's instructions in
	// an ingest.
	var once wordsOnce
	defer once.release()
	names := make([]string, 0, len(d.Fields))
	for n := range d.Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == search.FieldRemoved {
			continue // Document.Removed carries it
		}
		f, ok := s.fields[name]
		if !ok {
			f = catalog.SearchField{Name: name, Type: "KEYWORD", Boost: 1}
		}
		keyed := s.keyed(name)
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
			_, isStr := v.(string)
			store := isStr && (f.QueryByDefault || f.Autocomplete)
			switch {
			case columnField(name):
			case isStr && !keyed:
				store = true
			case len(str) > maxKeywordLen:
				store, r.long = true, 1
			default:
				k := kwRow{field: name, value: str, lvalue: foldExtra(str), num: num}
				if !seen[k.key()] {
					seen[k.key()] = true
					r.kw = append(r.kw, k)
				}
			}
			if store {
				stored.add(name, str)
			}
			if !isStr {
				continue
			}
			if !f.QueryByDefault && !f.Autocomplete {
				continue
			}
			toks := tz.Tokens(str)
			if f.QueryByDefault {
				bucket := bucketOf(f.Boost)
				b := &buckets[bucket]
				for _, t := range toks {
					if once.first(t, bucket) {
						b.WriteString(t)
						b.WriteByte(' ')
					}
				}
			}
			if f.Autocomplete {
				for _, t := range toks {
					if once.first(t, len(buckets)) {
						ac.WriteString(t)
						ac.WriteByte(' ')
					}
				}
				acvals.add(name, str)
			}
		}
	}
	for i := range buckets {
		r.text[i] = buckets[i].String()
	}
	r.facets = s.facetsOf(r.kw)
	r.ac = ac.String()
	if s.db.q.pg {
		r.tsv = tsBuckets(once.seen, s.samples.next())
		r.acv = tsVector(r.ac)
	}
	r.fields = stored.encode()
	r.acvals = acvals.encode()
	seenPath := map[string]bool{}
	for _, p := range d.BrowsePaths {
		p = search.NormalizePath(p)
		if !seenPath[p] {
			seenPath[p] = true
			r.browse = append(r.browse, p)
		}
	}
	return r
}

// fieldLists collects string values by field name, names added in
// ascending order, and encodes them as the JSON object of string arrays that
// search_doc's fields and acvals columns hold. encoding/json sorting a map
// for each document cost as much as tokenizing a third of its words.
type fieldLists struct {
	names []string
	vals  [][]string
}

func (l *fieldLists) add(name, v string) {
	if n := len(l.names); n > 0 && l.names[n-1] == name {
		l.vals[n-1] = append(l.vals[n-1], v)
		return
	}
	l.names = append(l.names, name)
	l.vals = append(l.vals, []string{v})
}

func (l *fieldLists) encode() string {
	size := 2
	for i, name := range l.names {
		size += len(name) + 6
		for _, v := range l.vals[i] {
			size += len(v) + 3
		}
	}
	b := make([]byte, 0, size)
	b = append(b, '{')
	for i, name := range l.names {
		if i > 0 {
			b = append(b, ',')
		}
		b = fastjson.AppendString(b, name)
		b = append(b, ':', '[')
		for j, v := range l.vals[i] {
			if j > 0 {
				b = append(b, ',')
			}
			b = fastjson.AppendString(b, v)
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// wordsOnce tells whether a word is the first of its kind in a column of
// a document's text (columns 0-4 the boost buckets, 5 the autocomplete
// words). Its map comes from a pool: a full restore builds its documents
// on one goroutine while the previous batch is written, and a new map per
// document made that goroutine the slower one.
type wordsOnce struct {
	seen map[string]uint8 // word → bit per column it is in
}

var wordsOncePool = sync.Pool{New: func() any { return make(map[string]uint8, 256) }}

func (o *wordsOnce) first(word string, column int) bool {
	if o.seen == nil {
		o.seen = wordsOncePool.Get().(map[string]uint8)
	}
	bit := uint8(1) << column
	if o.seen[word]&bit != 0 {
		return false
	}
	o.seen[word] |= bit
	return true
}

func (o *wordsOnce) release() {
	if o.seen != nil {
		clear(o.seen)
		wordsOncePool.Put(o.seen)
		o.seen = nil
	}
}

// facetsOf lists the keyword values of filter fields as dictionary keys
// (facetKey), sorted: the values a search counts facets of.
func (s *Search) facetsOf(kw []kwRow) []string {
	var keys []string
	for _, k := range kw {
		if s.fields[k.field].Filter {
			keys = append(keys, facetKey(k.field, k.value))
		}
	}
	sort.Strings(keys)
	return keys
}

func bucketOf(boost float64) int {
	for i, f := range boostFloors {
		if boost >= f {
			return i
		}
	}
	return len(boostFloors) - 1
}

// searchTx checks that ctx2 is a transaction of this store.
func (s *Search) searchTx(ctx2 catalog.Tx) (*Tx, error) {
	tx, ok := ctx2.(*Tx)
	if !ok || tx.db != s.db {
		return nil, fmt.Errorf("search: transaction %T is not one of this store", ctx2)
	}
	return tx, nil
}

// WriteDocuments replaces the documents of upserts and removes those of
// deletes inside tx, which must be a transaction of the same store.
func (s *Search) WriteDocuments(ctx context.Context, ctx2 catalog.Tx, upserts []catalog.Document, deletes []string) error {
	return s.WritePrepared(ctx, ctx2, s.PrepareDocuments(upserts), deletes)
}

// WritePrepared is WriteDocuments for documents converted by
// PrepareDocuments (search.DocPreparer).
func (s *Search) WritePrepared(ctx context.Context, ctx2 catalog.Tx, docs search.PreparedDocuments, deletes []string) error {
	tx, err := s.searchTx(ctx2)
	if err != nil {
		return err
	}
	rows, ok := docs.(docRows)
	if !ok {
		return fmt.Errorf("search: documents %T were not prepared by this engine", docs)
	}
	if len(rows) == 0 && len(deletes) == 0 {
		return nil
	}
	urns := make([]string, 0, len(rows)+len(deletes))
	written := make(map[string]bool, len(rows))
	for i, r := range rows {
		if r.urn == "" || r.entity == "" {
			return catalog.Errorf(catalog.Invalid, "search document %d has no URN or entity type", i)
		}
		urns = append(urns, r.urn)
		written[r.urn] = true
	}
	var gone []string
	for _, u := range deletes {
		if !written[u] {
			urns = append(urns, u)
			gone = append(gone, u)
		}
	}
	if err := s.write(ctx, tx, rows, gone); err != nil {
		return tx.db.fail(ctx, err, "write search documents of %s", describeURNs(urns))
	}
	return nil
}

// ResetDocuments removes every document, inside tx.
func (s *Search) ResetDocuments(ctx context.Context, ctx2 catalog.Tx) error {
	tx, err := s.searchTx(ctx2)
	if err != nil {
		return err
	}
	// search_value stays: its numbers are cached and never change.
	stmts := []string{"DELETE FROM search_kw", "DELETE FROM search_browse", "DELETE FROM search_doc", "DELETE FROM search_body"}
	if tx.db.q.pg {
		// At once, and without leaving every row of the old index dead
		// behind the new one. The full-text indexes are built again by
		// FinishReset: in one pass over the documents that cost a third of
		// adding each document's words as it came (which was two thirds of
		// a rebuild's database time). Searches meanwhile read every
		// document.
		stmts = []string{
			"TRUNCATE search_kw, search_browse, search_doc, search_body, search_word",
			"DROP INDEX IF EXISTS search_doc_tsv0, search_doc_tsv1, search_doc_ac",
		}
	} else {
		// A contentless table is emptied at once, not row by row.
		stmts = append(stmts, "INSERT INTO search_fts (search_fts) VALUES ('delete-all')", "INSERT INTO search_ac (search_ac) VALUES ('delete-all')")
	}
	for _, st := range stmts {
		if _, err := tx.q.ExecContext(ctx, st); err != nil {
			return tx.db.fail(ctx, err, "empty the search index: %s", st)
		}
	}
	if tx.db.q.pg {
		s.rebuild.begin()
	}
	return nil
}

// FinishReset creates the full-text indexes ResetDocuments dropped and
// gives PostgreSQL's planner the statistics of the new rows: without them
// it took the full-text condition for an unselective one and read every
// document.
//
// The indexes are built at once, each on a connection of its own (CREATE
// INDEX takes a lock that lets another one run beside it), with the other
// tables analyzed beside the longer builds: PostgreSQL 15 builds a GIN
// index on one core, and the words' index (27 s of a restore of 100,000
// documents in one piece, the autocomplete words' index 1.5 s and ANALYZE
// 1.7 s) left the other cores idle. search_doc is analyzed last: ANALYZE
// waits for the builds' locks. The documents' words are listed beside the
// builds too (see rebuildWords).
func (s *Search) FinishReset(ctx context.Context) error {
	if !s.db.q.pg {
		return nil
	}
	run := func(ctx context.Context, stmts ...string) error {
		tx, err := s.db.sql.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		for _, st := range append([]string{"SET LOCAL maintenance_work_mem = '256MB'"}, stmts...) {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("%s: %w", st, err)
			}
		}
		return tx.Commit()
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return run(gctx, pgTextIndexes[0]) })
	g.Go(func() error { return run(gctx, pgTextIndexes[1]) })
	g.Go(func() error {
		if err := run(gctx, pgTextIndexes[2], "ANALYZE search_body, search_kw, search_browse"); err != nil {
			return err
		}
		if err := s.finishWords(gctx); err != nil {
			return fmt.Errorf("list the documents' words: %w", err)
		}
		return nil
	})
	err := g.Wait()
	if err == nil {
		err = run(ctx, "ANALYZE search_doc")
	}
	if err != nil {
		return s.db.fail(ctx, err, "create the full-text indexes")
	}
	return nil
}

// docRows are documents converted to rows (search.PreparedDocuments).
type docRows []docRow

// PrepareDocuments converts documents to rows for WritePrepared and
// InsertPrepared; it touches no table. Of several documents of one URN the
// last counts.
func (s *Search) PrepareDocuments(docs []catalog.Document) search.PreparedDocuments {
	last := make(map[string]int, len(docs))
	for i, d := range docs {
		last[d.URN] = i
	}
	rows := make(docRows, 0, len(last))
	for i, d := range docs {
		if last[d.URN] == i {
			rows = append(rows, s.row(d))
		}
	}
	return rows
}

// JoinPrepared concatenates documents prepared apart; of several documents
// of one URN the last counts, as in PrepareDocuments.
func (s *Search) JoinPrepared(parts []search.PreparedDocuments) search.PreparedDocuments {
	n := 0
	for _, p := range parts {
		n += len(p.(docRows))
	}
	rows := make(docRows, 0, n)
	for _, p := range parts {
		rows = append(rows, p.(docRows)...)
	}
	last := make(map[string]int, len(rows))
	for i, r := range rows {
		last[r.urn] = i
	}
	if len(last) == len(rows) {
		return rows
	}
	out := make(docRows, 0, len(last))
	for i, r := range rows {
		if last[r.urn] == i {
			out = append(out, r)
		}
	}
	return out
}

// InsertPrepared adds documents that are not in the index (after
// ResetDocuments), inside tx, skipping the reading of old rows.
func (s *Search) InsertPrepared(ctx context.Context, ctx2 catalog.Tx, docs search.PreparedDocuments) error {
	tx, err := s.searchTx(ctx2)
	if err != nil {
		return err
	}
	rows, ok := docs.(docRows)
	if !ok {
		return fmt.Errorf("search: documents %T were not prepared by this engine", docs)
	}
	if tx.db.q.pg {
		// A rebuild's commits need not wait for the WAL to reach the
		// disk: FinishReset's commit, which waits, makes them durable,
		// and a crash before it loses at most the last batches, which
		// the rerun a crashed rebuild needs anyway writes again.
		if _, err := tx.q.ExecContext(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return tx.db.fail(ctx, err, "write %d search documents", len(rows))
		}
	}
	if err := s.insertNew(ctx, tx, rows, false, true); err != nil {
		return tx.db.fail(ctx, err, "write %d search documents", len(rows))
	}
	if tx.db.q.pg {
		s.rebuild.add(rows)
	}
	return nil
}

// oldDoc is what the index holds of a document about to be rewritten.
type oldDoc struct {
	id            int64
	entity        string
	removed, long int64
	fields        string
	fids          []byte
	kw            map[string]kwRow
	browse        map[string]bool
}

// write replaces the documents of rows and deletes those of gone, writing
// only the rows that change.
func (s *Search) write(ctx context.Context, tx *Tx, rows []docRow, gone []string) error {
	q := tx.db.q
	urns := make([]string, 0, len(rows)+len(gone))
	for _, r := range rows {
		urns = append(urns, r.urn)
	}
	urns = append(urns, gone...)
	old, err := s.loadOld(ctx, tx, urns)
	if err != nil {
		return err
	}
	var goneIDs []int64
	for _, u := range gone {
		if o := old[u]; o != nil {
			goneIDs = append(goneIDs, o.id)
		}
	}
	if err := s.deleteDocs(ctx, tx, goneIDs); err != nil {
		return err
	}
	if err := s.resolveFacets(ctx, tx, rows); err != nil {
		return err
	}
	var (
		fresh, changed []docRow // documents to insert, existing ones to update
		textIDs        []int64  // existing documents whose words change
		kwIns          []kwRow
		kwInsDoc       []int64
		kwDel          []any // flat (field, value, doc)
		brIns, brDel   []any // flat (entity, path, doc)
	)
	text := map[int64]bool{}
	for _, r := range rows {
		o := old[r.urn]
		if o == nil {
			fresh = append(fresh, r)
			continue
		}
		r.id = o.id
		if r.entity != o.entity || r.removed != o.removed || r.long != o.long || r.fields != o.fields || !bytes.Equal(r.fids, o.fids) {
			changed = append(changed, r)
			if r.fields != o.fields {
				// The words and the body derive from the stored values.
				textIDs = append(textIDs, o.id)
				text[o.id] = true
			}
		}
		for _, k := range r.kw {
			if ok, found := o.kw[k.key()]; found && ok.num == k.num && ok.lvalue == k.lvalue {
				delete(o.kw, k.key())
				continue
			} else if found {
				kwDel = append(kwDel, k.field, k.value, o.id)
				delete(o.kw, k.key())
			}
			kwIns, kwInsDoc = append(kwIns, k), append(kwInsDoc, o.id)
		}
		for _, k := range o.kw {
			kwDel = append(kwDel, k.field, k.value, o.id)
		}
		for _, p := range r.browse {
			if o.browse[p] && r.entity == o.entity {
				delete(o.browse, p)
				continue
			}
			brIns = append(brIns, r.entity, p, o.id)
		}
		for p := range o.browse {
			brDel = append(brDel, o.entity, p, o.id)
		}
	}
	if err := deleteKeys(ctx, tx, "search_kw", []string{"field", "value", "doc"}, kwDel); err != nil {
		return err
	}
	if err := deleteKeys(ctx, tx, "search_browse", []string{"entity", "path", "doc"}, brDel); err != nil {
		return err
	}
	if len(changed) > 0 {
		if !q.pg && len(textIDs) > 0 {
			for _, t := range []string{"search_fts", "search_ac"} {
				if _, err := tx.q.ExecContext(ctx, "DELETE FROM "+t+" WHERE rowid IN (SELECT value FROM json_each(?))", int64List(textIDs)); err != nil {
					return err
				}
			}
		}
		if err := s.updateDocs(ctx, tx, changed, text); err != nil {
			return err
		}
		if !q.pg && len(textIDs) > 0 {
			var rewrite []docRow
			for _, r := range changed {
				if text[r.id] {
					rewrite = append(rewrite, r)
				}
			}
			if err := insertFTS(ctx, tx, rewrite); err != nil {
				return err
			}
		}
	}
	flat := make([]any, 0, 5*len(kwIns))
	for i, k := range kwIns {
		flat = append(flat, k.field, k.value, kwInsDoc[i], k.lvalue, k.num)
	}
	if err := insertKW(ctx, tx, flat); err != nil {
		return err
	}
	if err := insertBrowse(ctx, tx, brIns); err != nil {
		return err
	}
	if err := s.insertNew(ctx, tx, fresh, true, false); err != nil {
		return err
	}
	if !q.pg {
		return nil
	}
	worded := fresh
	for _, r := range changed {
		if text[r.id] {
			worded = append(worded, r)
		}
	}
	// Last, so that the words' locks are held the least.
	return addWords(ctx, tx, worded)
}

// int64List encodes ids for json_each.
func int64List(ids []int64) string {
	b, _ := json.Marshal(ids) // cannot fail on []int64
	return string(b)
}

// loadOld reads the indexed state of the documents of urns that exist.
func (s *Search) loadOld(ctx context.Context, tx *Tx, urns []string) (map[string]*oldDoc, error) {
	q := tx.db.q
	out := map[string]*oldDoc{}
	if len(urns) == 0 {
		return out, nil
	}
	rows, err := tx.q.QueryContext(ctx, q.rebind("SELECT d.id, d.urn, d.entity, d.removed, d.long, b.fields, d.fids FROM search_doc d JOIN search_body b ON b.id = d.id WHERE "+q.inList("d.urn")), q.listArg(urns))
	if err != nil {
		return nil, err
	}
	byID := map[int64]*oldDoc{}
	var ids []int64
	for rows.Next() {
		o := &oldDoc{kw: map[string]kwRow{}, browse: map[string]bool{}}
		var u string
		if err := rows.Scan(&o.id, &u, &o.entity, &o.removed, &o.long, &o.fields, &o.fids); err != nil {
			rows.Close()
			return nil, err
		}
		out[u], byID[o.id] = o, o
		ids = append(ids, o.id)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return out, nil
	}
	idArg, idCond := idList(q, ids, "doc")
	rows, err = tx.q.QueryContext(ctx, q.rebind("SELECT doc, field, value, lvalue, num FROM search_kw WHERE "+idCond), idArg)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var k kwRow
		var lv sql.NullString
		var num sql.NullFloat64
		if err := rows.Scan(&id, &k.field, &k.value, &lv, &num); err != nil {
			rows.Close()
			return nil, err
		}
		if lv.Valid {
			k.lvalue = lv.String
		}
		if num.Valid {
			k.num = num.Float64
		}
		byID[id].kw[k.key()] = k
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	rows, err = tx.q.QueryContext(ctx, q.rebind("SELECT doc, path FROM search_browse WHERE "+idCond), idArg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, err
		}
		byID[id].browse[p] = true
	}
	return out, rows.Err()
}

// idList returns the argument and condition "col IN ids".
func idList(q queries, ids []int64, col string) (any, string) {
	if q.pg {
		return ids, col + " = ANY(?::bigint[])"
	}
	return int64List(ids), col + " IN (SELECT value FROM json_each(?))"
}

// deleteDocs removes documents by id.
func (s *Search) deleteDocs(ctx context.Context, tx *Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	q := tx.db.q
	arg, _ := idList(q, ids, "")
	tables := []struct{ table, col string }{{"search_kw", "doc"}, {"search_browse", "doc"}, {"search_doc", "id"}, {"search_body", "id"}}
	if !q.pg {
		tables = append(tables, struct{ table, col string }{"search_fts", "rowid"}, struct{ table, col string }{"search_ac", "rowid"})
	}
	for _, t := range tables {
		_, cond := idList(q, ids, t.col)
		if _, err := tx.q.ExecContext(ctx, q.rebind("DELETE FROM "+t.table+" WHERE "+cond), arg); err != nil {
			return err
		}
	}
	return nil
}

func insertKW(ctx context.Context, tx *Tx, flat []any) error {
	return tx.db.q.insertRows(ctx, tx.q, bulkInsert{table: "search_kw", cols: []string{"field", "value", "doc", "lvalue", "num"}, types: []string{"text", "text", "bigint", "text", "float8"}, skipConflicts: true}, flat)
}

func insertBrowse(ctx context.Context, tx *Tx, flat []any) error {
	return tx.db.q.insertRows(ctx, tx.q, bulkInsert{table: "search_browse", cols: []string{"entity", "path", "doc"}, types: []string{"text", "text", "bigint"}, skipConflicts: true}, flat)
}

// insertFTS adds the words of documents whose ids are known (SQLite): the
// search words, and the autocomplete words in a table of their own, so that
// a prefix typed into a search box reads the postings of names only.
func insertFTS(ctx context.Context, tx *Tx, rows []docRow) error {
	// One row per statement: a multi-row INSERT may need rolling back on
	// its own, so it opens a savepoint, at which FTS5 writes the words it
	// holds in memory out as a new segment. Row by row, the words of the
	// whole transaction are written once, at commit, in one segment per
	// table, and fewer segments are merged later.
	for _, r := range rows {
		if _, err := tx.q.ExecContext(ctx, "INSERT INTO search_fts (rowid, b0, b1, b2, b3, b4) VALUES (?, ?, ?, ?, ?, ?)", r.id, r.text[0], r.text[1], r.text[2], r.text[3], r.text[4]); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if r.ac == "" {
			continue
		}
		if _, err := tx.q.ExecContext(ctx, "INSERT INTO search_ac (rowid, ac) VALUES (?, ?)", r.id, r.ac); err != nil {
			return err
		}
	}
	return nil
}

// insertNew writes documents the index does not hold; resolved says their
// facet values are numbered already, bulk that they fill an emptied index
// (InsertPrepared): on PostgreSQL their rows then go in through COPY, once
// no other transaction turns out to have added one of them meanwhile.
func (s *Search) insertNew(ctx context.Context, tx *Tx, rows []docRow, resolved, bulk bool) error {
	if len(rows) == 0 {
		return nil
	}
	if !resolved {
		if err := s.resolveFacets(ctx, tx, rows); err != nil {
			return err
		}
	}
	allNew, err := s.insertDocs(ctx, tx, rows, bulk)
	if err != nil {
		return err
	}
	copyRows := bulk && allNew && tx.db.q.pg
	type docKW struct {
		id int64
		k  *kwRow
	}
	var all []docKW
	var browse []any
	for i := range rows {
		r := &rows[i]
		for j := range r.kw {
			all = append(all, docKW{r.id, &r.kw[j]})
		}
		for _, p := range r.browse {
			browse = append(browse, r.entity, p, r.id)
		}
	}
	// In key order, consecutive rows land on the same B-tree pages: many
	// documents share a platform, a tag or an owner.
	slices.SortFunc(all, func(a, b docKW) int {
		if c := strings.Compare(a.k.field, b.k.field); c != 0 {
			return c
		}
		if c := strings.Compare(a.k.value, b.k.value); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	if copyRows {
		// COPY took about half the time of INSERT ... SELECT FROM
		// unnest(...) for the keyword rows of a full rebuild.
		kw := make([][]any, len(all))
		for i, x := range all {
			kw[i] = []any{x.k.field, x.k.value, x.id, x.k.lvalue, x.k.num}
		}
		if err := tx.copyRows(ctx, "search_kw", []string{"field", "value", "doc", "lvalue", "num"}, kw); err != nil {
			return err
		}
		br := make([][]any, 0, len(browse)/3)
		for i := 0; i < len(browse); i += 3 {
			br = append(br, browse[i:i+3])
		}
		return tx.copyRows(ctx, "search_browse", []string{"entity", "path", "doc"}, br)
	}
	kw := make([]any, 0, 5*len(all))
	for _, x := range all {
		kw = append(kw, x.k.field, x.k.value, x.id, x.k.lvalue, x.k.num)
	}
	if err := insertKW(ctx, tx, kw); err != nil {
		return err
	}
	if err := insertBrowse(ctx, tx, browse); err != nil {
		return err
	}
	if tx.db.q.pg {
		return nil
	}
	// The words go last: any later multi-row INSERT would make FTS5 write
	// them out early (see insertFTS).
	return insertFTS(ctx, tx, rows)
}

// insertDocs writes the search_doc and search_body rows of new documents
// (and, on PostgreSQL, their tsvectors) and sets the ids of rows. It
// reports whether every document was new, which bulk needs of its rows to
// write the bodies through COPY (PostgreSQL).
func (s *Search) insertDocs(ctx context.Context, tx *Tx, rows []docRow, bulk bool) (bool, error) {
	q := tx.db.q
	ids := make(map[string]int64, len(rows))
	allNew := true
	copied := false
	if q.pg && bulk {
		var err error
		if copied, err = s.copyDocs(ctx, tx, rows, ids); err != nil {
			return false, err
		}
	}
	if q.pg && !copied {
		n := len(rows)
		urn, ent := make([]string, n), make([]string, n)
		removed, long := make([]int64, n), make([]int64, n)
		fids := make([][]byte, n)
		tsv, ac := make([]pgtype.TSVector, n), make([]pgtype.TSVector, n)
		for i, r := range rows {
			urn[i], ent[i], removed[i], long[i], fids[i], tsv[i], ac[i] = r.urn, r.entity, r.removed, r.long, r.fids, r.tsv, r.acv
		}
		// A document another transaction added meanwhile is replaced
		// (xmax is then not 0).
		stmt := `INSERT INTO search_doc (urn, entity, removed, long, fids, tsv, ac)
SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bytea[], $6::tsvector[], $7::tsvector[])
ON CONFLICT (urn) DO UPDATE SET entity = EXCLUDED.entity, removed = EXCLUDED.removed, long = EXCLUDED.long, fids = EXCLUDED.fids, tsv = EXCLUDED.tsv, ac = EXCLUDED.ac
RETURNING id, urn, xmax = 0`
		res, err := tx.q.QueryContext(ctx, stmt, urn, ent, removed, long, fids, tsv, ac)
		if err != nil {
			return false, err
		}
		defer res.Close()
		for res.Next() {
			var id int64
			var u string
			var inserted bool
			if err := res.Scan(&id, &u, &inserted); err != nil {
				return false, err
			}
			ids[u] = id
			allNew = allNew && inserted
		}
		if err := res.Close(); err != nil {
			return false, err
		}
	} else if !q.pg {
		flat := make([]any, 0, 5*len(rows))
		for _, r := range rows {
			flat = append(flat, r.urn, r.entity, r.removed, r.long, r.fids)
		}
		per := q.rowsPerStatement(5)
		for i, m := 0, 0; i < len(rows); i += m {
			m = chunkRows(len(rows)-i, per)
			res, err := tx.q.QueryContext(ctx, q.insert("INSERT INTO search_doc (urn, entity, removed, long, fids) VALUES ", "(?,?,?,?,?)", " RETURNING id, urn", m), flat[i*5:(i+m)*5]...)
			if err != nil {
				return false, err
			}
			if err := scanIDs(res, ids); err != nil {
				return false, err
			}
		}
	}
	for i := range rows {
		rows[i].id = ids[rows[i].urn]
	}
	if bulk && allNew && q.pg {
		body := make([][]any, len(rows))
		for i, r := range rows {
			body[i] = []any{r.id, r.fields, r.acvals}
		}
		return true, tx.copyRows(ctx, "search_body", []string{"id", "fields", "acvals"}, body)
	}
	body := make([]any, 0, 3*len(rows))
	for _, r := range rows {
		body = append(body, r.id, r.fields, r.acvals)
	}
	return allNew, writeBody(ctx, tx, body)
}

// copyDocs writes the search_doc rows of new documents through COPY, with
// ids drawn from the table's identity sequence, and records the ids. It
// reports false, having written nothing, when another transaction added
// one of the documents meanwhile: the caller then upserts them. A full
// rebuild on PostgreSQL spent most of its database time in the INSERT
// ... SELECT FROM unnest(...) of these rows, whose tsvector arrays cost
// five times what COPY costs to take in.
func (s *Search) copyDocs(ctx context.Context, tx *Tx, rows []docRow, ids map[string]int64) (bool, error) {
	res, err := tx.q.QueryContext(ctx, "SELECT nextval(pg_get_serial_sequence('search_doc', 'id')) FROM generate_series(1, $1)", int64(len(rows)))
	if err != nil {
		return false, err
	}
	defer res.Close()
	fresh := make([]int64, 0, len(rows))
	for res.Next() {
		var id int64
		if err := res.Scan(&id); err != nil {
			return false, err
		}
		fresh = append(fresh, id)
	}
	if err := res.Close(); err != nil {
		return false, err
	}
	if len(fresh) != len(rows) {
		return false, fmt.Errorf("search_doc ids: %d for %d documents", len(fresh), len(rows))
	}
	data := make([][]any, len(rows))
	for i, r := range rows {
		data[i] = []any{fresh[i], r.urn, r.entity, r.removed, r.long, r.fids, r.tsv, r.acv}
	}
	// A savepoint, so that a document added meanwhile (a unique
	// violation on its URN) leaves the transaction usable.
	if _, err := tx.q.ExecContext(ctx, "SAVEPOINT search_copy"); err != nil {
		return false, err
	}
	err = tx.copyRows(ctx, "search_doc", []string{"id", "urn", "entity", "removed", "long", "fids", "tsv", "ac"}, data)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "23505":
		_, err = tx.q.ExecContext(ctx, "ROLLBACK TO SAVEPOINT search_copy")
		return false, err
	case err != nil:
		return false, err
	}
	if _, err := tx.q.ExecContext(ctx, "RELEASE SAVEPOINT search_copy"); err != nil {
		return false, err
	}
	for i, r := range rows {
		ids[r.urn] = fresh[i]
	}
	return true, nil
}

// updateDocs rewrites the search_doc rows of existing documents, and the
// body and words of those in text.
func (s *Search) updateDocs(ctx context.Context, tx *Tx, rows []docRow, text map[int64]bool) error {
	q := tx.db.q
	if q.pg {
		// The tsvectors only where the words changed: setting one to the
		// same value still rewrites it and each of its index entries.
		var plain, words []docRow
		for _, r := range rows {
			if text[r.id] {
				words = append(words, r)
			} else {
				plain = append(plain, r)
			}
		}
		for _, part := range [][]docRow{plain, words} {
			if len(part) == 0 {
				continue
			}
			n := len(part)
			id, removed, long := make([]int64, n), make([]int64, n), make([]int64, n)
			ent := make([]string, n)
			fids := make([][]byte, n)
			tsv, ac := make([]pgtype.TSVector, n), make([]pgtype.TSVector, n)
			for i, r := range part {
				id[i], ent[i], removed[i], long[i], fids[i], tsv[i], ac[i] = r.id, r.entity, r.removed, r.long, r.fids, r.tsv, r.acv
			}
			if text[part[0].id] {
				if _, err := tx.q.ExecContext(ctx, `UPDATE search_doc AS d SET entity = u.entity, removed = u.removed, long = u.long, fids = u.fids, tsv = u.tsv, ac = u.ac
FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bytea[], $6::tsvector[], $7::tsvector[]) AS u(id, entity, removed, long, fids, tsv, ac) WHERE d.id = u.id`,
					id, ent, removed, long, fids, tsv, ac); err != nil {
					return err
				}
				continue
			}
			if _, err := tx.q.ExecContext(ctx, `UPDATE search_doc AS d SET entity = u.entity, removed = u.removed, long = u.long, fids = u.fids
FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bytea[]) AS u(id, entity, removed, long, fids) WHERE d.id = u.id`,
				id, ent, removed, long, fids); err != nil {
				return err
			}
		}
	} else {
		for _, r := range rows {
			if _, err := tx.q.ExecContext(ctx, "UPDATE search_doc SET entity = ?, removed = ?, long = ?, fids = ? WHERE id = ?", r.entity, r.removed, r.long, r.fids, r.id); err != nil {
				return err
			}
		}
	}
	var body []any
	for _, r := range rows {
		if text[r.id] {
			body = append(body, r.id, r.fields, r.acvals)
		}
	}
	if len(body) == 0 {
		return nil
	}
	if q.pg {
		return writeBody(ctx, tx, body)
	}
	for i := 0; i < len(body); i += 3 {
		if _, err := tx.q.ExecContext(ctx, "UPDATE search_body SET fields = ?, acvals = ? WHERE id = ?", body[i+1], body[i+2], body[i]); err != nil {
			return err
		}
	}
	return nil
}

// writeBody writes search_body rows given flat (id, fields, acvals): new
// ones, or on PostgreSQL any.
func writeBody(ctx context.Context, tx *Tx, flat []any) error {
	b := bulkInsert{table: "search_body", cols: []string{"id", "fields", "acvals"}, types: []string{"bigint", "text", "text"}}
	if tx.db.q.pg {
		b.suffix = " ON CONFLICT (id) DO UPDATE SET fields = EXCLUDED.fields, acvals = EXCLUDED.acvals"
	}
	return tx.db.q.insertRows(ctx, tx.q, b, flat)
}

func scanIDs(res *sql.Rows, ids map[string]int64) error {
	defer res.Close()
	for res.Next() {
		var id int64
		var u string
		if err := res.Scan(&id, &u); err != nil {
			return err
		}
		ids[u] = id
	}
	return res.Err()
}
