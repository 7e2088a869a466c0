package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/search"
)

// where accumulates SQL conditions and their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// and returns w's conditions followed by o's.
func (w where) and(o where) where {
	return where{conds: append(append([]string{}, w.conds...), o.conds...), args: append(append([]any{}, w.args...), o.args...)}
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return "1=1"
	}
	return strings.Join(w.conds, " AND ")
}

// likeEscape escapes LIKE wildcards; patterns use '\' as escape character.
func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// docConds adds the conditions every query shares: entity types, soft
// delete and the filter, on the document alias d. driven says that another
// index (full text, browse paths) finds the documents, which the filter
// then tests one by one.
func (s *Search) docConds(w *where, types []string, f catalog.Filter, alwaysHideRemoved, driven bool) error {
	return s.docCondsFor(w, types, f, alwaysHideRemoved, driven, false)
}

// docCondsFor is docConds; walk says that the query walks the documents in
// URN order and stops at its page (pageByURN), which SQLite's planner does
// through the entity index only for an equality: the IN of a list hides
// that it holds one type. Elsewhere the IN stays, for a planner that would
// take the same walk for a window of 10,000 hits of a filter on 2% of the
// documents, through half of them. PostgreSQL's planner takes the walk when
// the filter is tested on each document it meets, as where another index
// drives the query; given the keyword rows to join instead, it read every
// document with a tag on 2% of 1M datasets (20,000) and sorted them for a
// page of 10: 62–70 ms, and 6 ms for the walk.
func (s *Search) docCondsFor(w *where, types []string, f catalog.Filter, alwaysHideRemoved, driven, walk bool) error {
	q := s.db.q
	perDoc := driven || (walk && q.pg)
	entity, removed := "d.entity", "d.removed"
	if driven && q.pg {
		// Not indexable: without statistics (a table just loaded) the
		// planner took the entity index for the more selective one and
		// tested the full-text condition on every document it listed,
		// reading each one's tsvector.
		entity, removed = "(d.entity || '')", "(d.removed + 0)"
	}
	switch {
	case walk && len(types) == 1 && !q.pg:
		w.add(entity+" = ?", types[0])
	case len(types) > 0:
		w.add(q.inList(entity), q.listArg(types))
	}
	if alwaysHideRemoved || !search.RemovedFilter(f) {
		w.add(removed + " = 0")
	}
	if len(f.Or) == 0 {
		return nil
	}
	var ors []string
	var args []any
	for _, g := range f.Or {
		var ands []string
		for _, c := range g {
			cond, a, err := s.criterion(c, perDoc)
			if err != nil {
				return err
			}
			ands = append(ands, cond)
			args = append(args, a...)
		}
		if len(ands) == 0 {
			ands = []string{"1=1"}
		}
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	w.add("("+strings.Join(ors, " OR ")+")", args...)
	return nil
}

// criterion returns the SQL of one filter criterion over the document
// alias d. Keyword rows answer it for keyword-like fields; the "fields" JSON
// for free-text fields and for the values too long for keyword rows (the
// documents flagged long); search_doc's columns for "urn" and "removed".
func (s *Search) criterion(c catalog.Criterion, perDoc bool) (string, []any, error) {
	q := s.db.q
	cond := strings.ToUpper(c.Condition)
	if cond == "" {
		cond = "EQUAL"
	}
	var rangeArg any
	switch cond {
	case "EQUAL", "IN", "IEQUAL", "CONTAIN", "START_WITH", "END_WITH", "EXISTS", "IS_NULL":
	case "GREATER_THAN", "GREATER_THAN_OR_EQUAL_TO", "LESS_THAN", "LESS_THAN_OR_EQUAL_TO":
		if len(c.Values) == 0 {
			return "", nil, catalog.Errorf(catalog.Invalid, "condition %s on field %s needs a value", cond, c.Field)
		}
		n, err := strconv.ParseFloat(c.Values[0], 64)
		if err != nil {
			return "", nil, catalog.Errorf(catalog.Invalid, "condition %s on field %s needs a numeric value, got %q", cond, c.Field, c.Values[0])
		}
		rangeArg = n
	default:
		return "", nil, catalog.Errorf(catalog.Invalid, "unknown condition %q on field %s", c.Condition, c.Field)
	}
	boolish := s.fields[c.Field].Type == "BOOLEAN" || c.Field == search.FieldRemoved
	// test is the condition over one value: v as stored, lv lower-cased,
	// num its number ("" when the source has no numbers); ok is false when
	// no value of the source can hold it.
	test := func(v, lv, num string) (expr string, args []any, ok bool) {
		anyOf := func(col, tmpl string, vals []string, fold bool) {
			var parts []string
			for _, x := range vals {
				if fold {
					x = strings.ToLower(x)
				}
				if strings.Contains(tmpl, "LIKE") {
					x = likeEscape(x)
				}
				parts = append(parts, strings.ReplaceAll(tmpl, "$", col))
				args = append(args, x)
			}
			expr = "(" + strings.Join(parts, " OR ") + ")"
		}
		switch cond {
		case "EQUAL", "IN":
			anyOf(v, "$ = ?", c.Values, boolish)
		case "IEQUAL":
			anyOf(lv, "$ = ?", c.Values, true)
		case "CONTAIN":
			anyOf(lv, `$ LIKE '%' || ? || '%' ESCAPE '\'`, c.Values, true)
		case "START_WITH":
			anyOf(lv, `$ LIKE ? || '%' ESCAPE '\'`, c.Values, true)
		case "END_WITH":
			anyOf(lv, `$ LIKE '%' || ? ESCAPE '\'`, c.Values, true)
		case "EXISTS", "IS_NULL":
			return "1=1", nil, true
		default: // the range conditions
			if num == "" {
				return "", nil, false
			}
			op := map[string]string{"GREATER_THAN": ">", "GREATER_THAN_OR_EQUAL_TO": ">=", "LESS_THAN": "<", "LESS_THAN_OR_EQUAL_TO": "<="}[cond]
			return num + " " + op + " ?", []any{rangeArg}, true
		}
		if expr == "()" {
			return "", nil, false
		}
		return expr, args, true
	}
	if len(c.Values) == 0 && cond != "EXISTS" && cond != "IS_NULL" {
		return "", nil, catalog.Errorf(catalog.Invalid, "condition %s on field %s needs a value", cond, c.Field)
	}
	lowerFn := lowerFunc
	if q.pg {
		lowerFn = "lower"
	}
	// jsonValues is the FROM clause listing the stored string values of the
	// field in the "fields" JSON of document alias x.
	jsonValues := func(x string) (string, any) {
		body := "(SELECT b.fields FROM search_body b WHERE b.id = " + x + ".id)"
		if q.pg {
			return "jsonb_array_elements_text(" + body + "::jsonb -> ?::text) AS j(value)", c.Field
		}
		return "json_each(" + body + ", ?) j", `$."` + strings.ReplaceAll(c.Field, `"`, `\"`) + `"`
	}
	var sqlc string
	var args []any
	switch {
	case columnField(c.Field):
		v := "d.urn"
		if c.Field == search.FieldRemoved {
			v = "(CASE WHEN d.removed = 1 THEN 'true' ELSE 'false' END)"
		}
		expr, a, ok := test(v, lowerFn+"("+v+")", "")
		if !ok {
			expr, a = "1=0", nil
		}
		sqlc, args = "("+expr+")", a
	default:
		kexpr, kargs, kok := test("k.value", "coalesce(k.lvalue, lower(k.value))", "k.num")
		jexpr, jargs, jok := test("j.value", lowerFn+"(j.value)", "")
		kw := "SELECT k.doc FROM search_kw k WHERE k.field = ? AND " + kexpr
		if !kok {
			kw = "SELECT k.doc FROM search_kw k WHERE 1=0"
		}
		if s.keyed(c.Field) {
			if kok {
				args = append([]any{c.Field}, kargs...)
			}
			// The rare documents with values too long for keyword rows are
			// tested through their JSON. Where the filter drives the query
			// (SQLite always does, from the IN list), they join the keyword
			// rows' documents as a UNION. Where PostgreSQL tests the filter
			// on each document another index found, it re-evaluated such a
			// UNION for each, so there they are tested on the outer row; but
			// that OR keeps the planner from driving the query from the
			// keyword rows, and a filter alone then read every document.
			switch {
			case !jok:
				sqlc = "d.id IN (" + kw + ")"
			case q.pg && perDoc:
				from, path := jsonValues("d")
				sqlc = "(d.id IN (" + kw + ") OR (d.long = 1 AND EXISTS (SELECT 1 FROM " + from + " WHERE " + jexpr + ")))"
				args = append(append(args, path), jargs...)
			default:
				from, path := jsonValues("x")
				sqlc = "d.id IN (" + kw + " UNION ALL SELECT x.id FROM search_doc x WHERE x.long = 1 AND EXISTS (SELECT 1 FROM " + from + " WHERE " + jexpr + "))"
				args = append(append(args, path), jargs...)
			}
		} else {
			// A free-text field: its strings are in the JSON, any other
			// value in keyword rows.
			var parts []string
			if jok {
				from, path := jsonValues("d")
				parts = append(parts, "EXISTS (SELECT 1 FROM "+from+" WHERE "+jexpr+")")
				args = append(append(args, path), jargs...)
			}
			if kok {
				parts = append(parts, "d.id IN ("+kw+")")
				args = append(append(args, c.Field), kargs...)
			}
			if len(parts) == 0 {
				parts = []string{"1=0"}
			}
			sqlc = "(" + strings.Join(parts, " OR ") + ")"
		}
	}
	neg := c.Negated
	if cond == "IS_NULL" {
		neg = !neg
	}
	if neg {
		sqlc = "NOT (" + sqlc + ")"
	}
	return sqlc, args, nil
}

// textMatch returns the engine's full-text condition for query words (the
// last a prefix when prefix is set) with its arguments, and the join making
// it usable. The pages are ranked apart: rankFTS, rankTiers.
func (s *Search) textMatch(tokens []string, column string, prefix bool) (from string, text where) {
	if s.db.q.pg {
		if column == "ac" {
			return "search_doc d", where{conds: []string{"d.ac @@ ?::tsquery"}, args: []any{tsQuery(tokens, prefix)}}
		}
		return "search_doc d", tsMatch(tsQuery(tokens, prefix))
	}
	match := where{conds: []string{ftsMatch}, args: []any{ftsWords(tokens, prefix)}}
	// CROSS JOIN keeps the full-text match as the outer loop: left to
	// itself the planner may drive from the entity index and run the match
	// once per document.
	if column == "ac" {
		// One column, so every hit scores the same.
		match.conds[0] = "search_ac MATCH ?"
		return "search_ac f CROSS JOIN search_doc d ON d.id = f.rowid", match
	}
	// Every column: the last, ac, is empty (see dropTextTableAC).
	return "search_fts f CROSS JOIN search_doc d ON d.id = f.rowid", match
}

// ftsMatch is SQLite's full-text condition, on the text table's alias.
const ftsMatch = "search_fts MATCH ?"

// ftsWords is an FTS5 query of all the words: whole words, but for the
// last, a prefix when prefix is set (see search.QueryTokens).
func ftsWords(tokens []string, prefix bool) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = `"` + t + `"`
	}
	if prefix {
		parts[len(parts)-1] += "*"
	}
	return strings.Join(parts, " AND ")
}

// crossJoin is a join that SQLite's planner may not reorder (CROSS JOIN);
// PostgreSQL orders joins well and has no CROSS JOIN ... ON.
func crossJoin(pg bool) string {
	if pg {
		return "JOIN"
	}
	return "CROSS JOIN"
}

// maxTotal caps the hit count a search reports, as DataHub does (its
// Elasticsearch counts exactly up to 10,000): counting further would visit
// every hit of a broad query. The facet counts are those of the hits
// counted, so that a search reads at most this many hits' facet values.
const maxTotal = 10000

// Search runs a search: free text ranked by field boosts (plus a bonus for
// an exact match of a name-like field), the filter, facets and a page.
//
// The total and the counts of the facets that fids holds come from the
// first maxTotal hits the index yields; the page is ranked over every hit.
// SQLite reads every hit once, inside the library, and sorts in Go only
// the hits that can make the page (rankFTS); PostgreSQL, whose index
// cannot score, counts in one statement and scores only the hits that can
// make the page (rankTiers). A query without text
// pages by URN through the database's indexes. Only the page's documents
// are read in full.
func (s *Search) Search(ctx context.Context, q catalog.SearchQuery) (catalog.SearchResult, error) {
	res := catalog.SearchResult{Facets: map[string]map[string]int{}}
	if q.Start < 0 || q.Count < 0 {
		return res, catalog.Errorf(catalog.Invalid, "start and count must not be negative")
	}
	tokens := search.QueryTokens(strings.TrimSpace(q.Text))
	var conds where
	if err := s.docConds(&conds, q.EntityTypes, q.Filter, false, len(tokens) > 0); err != nil {
		return res, err
	}
	w := conds
	from := "search_doc d"
	if len(tokens) > 0 {
		var text where
		from, text = s.textMatch(tokens, "", true)
		w = text.and(conds)
	}
	// Facets of filter fields come from the fids column; any other field
	// asked for is counted in SQL.
	var inColumn, inSQL []string
	for _, f := range q.Facets {
		if s.fields[f].Filter && !columnField(f) {
			inColumn = append(inColumn, f)
		} else {
			inSQL = append(inSQL, f)
		}
	}
	err := s.read(ctx, func(x querier) error {
		if stored, err := s.anyStored(ctx, x, q.EntityTypes); err != nil || !stored {
			if q.EntityCounts {
				res.EntityCounts = map[string]int{}
			}
			return err
		}
		counts := map[uint32]int{}
		var page []int64
		var err error
		switch {
		case len(tokens) > 0 && !s.db.q.pg:
			page, err = s.rankFTS(ctx, x, q, tokens, conds, len(inColumn) > 0, counts, &res)
		case len(tokens) > 0:
			var whole bool
			if whole, err = s.lastWordWhole(ctx, x, tokens); err != nil {
				return err
			}
			if whole {
				_, text := s.textMatch(tokens, "", false)
				w = text.and(conds)
			}
			page, err = s.rankTiers(ctx, x, q, tokens, !whole, conds, len(inColumn) > 0, counts, &res)
		default:
			// In URN order: from the window when it held every hit.
			var got windowGot
			k := 0
			if q.Count > 0 {
				k = min(q.Start+q.Count, maxTotal)
			}
			got, err = s.window(ctx, x, from, w, windowAsk{facets: len(inColumn) > 0, byURN: k, entities: q.EntityCounts}, counts)
			res.Total = got.total
			if got.complete() {
				res.EntityCounts = got.entities
			}
			switch {
			case err != nil:
			case got.byURN != nil:
				if q.Start < len(got.byURN) {
					page = got.byURN[q.Start:]
				}
			default:
				page, err = s.pageByURN(ctx, x, q, from, w, res.Total)
			}
		}
		if err != nil {
			return err
		}
		if len(inColumn) > 0 {
			if err := s.facetCounts(ctx, x, counts, inColumn, res.Facets); err != nil {
				return err
			}
		}
		if err := s.readHits(ctx, x, page, tokens, &res); err != nil {
			return err
		}
		if len(inSQL) > 0 && res.Total > 0 {
			return s.facets(ctx, x, inSQL, from, w, res.Total < maxTotal, res.Facets)
		}
		return nil
	})
	if err != nil {
		return catalog.SearchResult{}, s.db.fail(ctx, err, "search")
	}
	for _, f := range q.Facets {
		if res.Facets[f] == nil {
			res.Facets[f] = map[string]int{}
		}
	}
	return res, nil
}

// anyStored reports whether the index holds a document of any of types
// (true when types is empty: every type). A text condition does not use the
// entity index (see docConds), so a query for a type with no documents read
// every document matching its words before finding none of the type; and
// DataHub's UI asks the types one by one (18 autocompletes, 23 counts for
// the type facet, per request), most of them types nothing is stored of.
// The probe is one lookup in the entity index per type.
//
// A type found once is not probed again, which spares every search of a
// stored type a round trip (0.15 ms on PostgreSQL). The probe only spares
// the search itself, so that answer never goes stale in what a search
// returns: a type whose documents were all removed since is searched in
// full, and finds none.
func (s *Search) anyStored(ctx context.Context, x querier, types []string) (bool, error) {
	if len(types) == 0 {
		return true, nil
	}
	for _, t := range types {
		if _, ok := s.stored.Load(t); ok {
			return true, nil
		}
	}
	probe := "SELECT t.value FROM json_each(?) t WHERE EXISTS (SELECT 1 FROM search_doc d WHERE d.entity = t.value) LIMIT 1"
	if s.db.q.pg {
		probe = "SELECT t.e FROM unnest(?::text[]) t(e) WHERE EXISTS (SELECT 1 FROM search_doc d WHERE d.entity = t.e) LIMIT 1"
	}
	var found string
	err := x.QueryRowContext(ctx, s.db.q.rebind(probe), s.db.q.listArg(types)).Scan(&found)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.stored.Store(found, struct{}{})
	return true, nil
}

// read runs f in a read-only snapshot of the search tables. On PostgreSQL
// it first sets what searches need of the planner: an index for every text
// condition (the tsvectors live outside the rows, so a scan filtering on
// them reads each one, which the planner does not count), a plan for the
// values at hand (the selectivity of a word varies by orders of magnitude),
// no JIT compilation, which costs more than these statements run, and no
// parallel workers: a broad query's counted hits are the first maxTotal its
// plan yields, and workers racing to yield them made its facet counts
// differ from one request to the next.
func (s *Search) read(ctx context.Context, f func(querier) error) error {
	return s.db.searchSnapshot(ctx, func(x querier) error {
		if s.db.q.pg {
			if _, err := x.ExecContext(ctx, pgSearchSettings); err != nil {
				return err
			}
		}
		return f(x)
	})
}

// pgSearchSettings are the planner settings of a search's transaction on
// PostgreSQL (see read).
const pgSearchSettings = "SET LOCAL enable_seqscan = off; SET LOCAL jit = off; SET LOCAL plan_cache_mode = force_custom_plan; SET LOCAL max_parallel_workers_per_gather = 0"

// windowAsk is what a window pass returns besides the count of hits.
type windowAsk struct {
	facets bool // the numbers of the facet values, added to counts
	// byURN asks for the ids of the first byURN hits in URN order, given
	// when the window holds every hit.
	byURN int
	// all asks for every hit's id when there are at most that many.
	all int
	// entities asks for the number of hits of each entity type.
	entities bool
}

// windowGot is what a window pass found.
type windowGot struct {
	total      int
	byURN, all []int64        // nil unless asked and known
	entities   map[string]int // nil unless asked
}

// complete reports whether the window held every hit.
func (g windowGot) complete() bool { return g.total < maxTotal }

// window reads the first maxTotal hits of from/w, in the index's order,
// for their count and what ask asks of them.
//
// One statement, one row: the hits are read once, into memory, and what
// is asked of them computed there. Their facet values arrive concatenated
// in one value: on PostgreSQL a row per hit cost more to send and decode
// than to count; on SQLite each row handed to Go cost several calls
// through cgo, and 10,000 of them (a two-word search of 1M datasets) were
// most of a search's time.
func (s *Search) window(ctx context.Context, x querier, from string, w where, ask windowAsk, counts map[uint32]int) (windowGot, error) {
	got, run, err := s.windowPart(ctx, x, from, w, ask, maxTotal, 0)
	countFIDs(run, counts)
	return got, err
}

// windowPart is window for the hits after the first offset the index
// yields, at most limit of them, returning their facet values as the
// concatenation of their fids. It lists the hits by URN when it holds fewer
// than limit, and all of them when it holds at most ask.all.
func (s *Search) windowPart(ctx context.Context, x querier, from string, w where, ask windowAsk, limit, offset int) (windowGot, []byte, error) {
	var got windowGot
	pg := s.db.q.pg
	hits := " FROM " + from + " WHERE " + w.sql() + " LIMIT " + strconv.Itoa(limit)
	if offset > 0 {
		hits += " OFFSET " + strconv.Itoa(offset)
	}
	// agg is the aggregate joining values with a separator, ordered by
	// order when given.
	agg := func(value, sep, order string) string {
		if order != "" {
			sep += " ORDER BY " + order
		}
		if pg {
			return "string_agg(" + value + "::text, " + sep + ")"
		}
		return "group_concat(" + value + ", " + sep + ")"
	}
	cols := "d.id"
	sel := []string{"count(*)"}
	var selArgs []any // the arguments of sel, in order
	if ask.facets {
		cols += ", d.fids"
		if pg {
			sel = append(sel, "coalesce(string_agg(h.fids, ''::bytea), ''::bytea)")
		} else {
			// The runs of uvarints are self-delimiting: joined as they
			// are, each byte kept (group_concat reads a blob's length,
			// not up to a zero byte).
			sel = append(sel, "coalesce(group_concat(h.fids, ''), '')")
		}
	}
	if ask.byURN > 0 {
		cols += ", d.urn"
		sel = append(sel, "(SELECT coalesce("+agg("p.id", "','", "p.urn")+", '') FROM (SELECT h2.id, h2.urn FROM h h2 ORDER BY h2.urn LIMIT ?) p)")
		selArgs = append(selArgs, int64(ask.byURN))
	}
	if ask.all > 0 {
		// The list is built for every hit and sent only when they are
		// at most ask.all: array_agg costs less than string_agg over
		// 10,000 of them.
		list := agg("h.id", "','", "")
		if pg {
			list = "array_to_string(array_agg(h.id), ',')"
		}
		sel = append(sel, "CASE WHEN count(*) <= ? THEN coalesce("+list+", '') END")
		selArgs = append(selArgs, int64(ask.all))
	}
	if ask.entities {
		cols += ", d.entity"
		sel = append(sel, "(SELECT coalesce("+agg("g.e || '=' || g.n", "','", "")+", '') FROM (SELECT h4.entity e, count(*) n FROM h h4 GROUP BY h4.entity) g)")
	}
	var run []byte
	var byURN, all, ents sql.NullString
	dest := []any{&got.total}
	if ask.facets {
		dest = append(dest, &run)
	}
	if ask.byURN > 0 {
		dest = append(dest, &byURN)
	}
	if ask.all > 0 {
		dest = append(dest, &all)
	}
	if ask.entities {
		dest = append(dest, &ents)
	}
	stmt := "WITH h AS MATERIALIZED (SELECT " + cols + hits + ") SELECT " + strings.Join(sel, ", ") + " FROM h"
	args := append(append([]any{}, w.args...), selArgs...)
	switch {
	case len(sel) == 1 && !pg:
		stmt = "SELECT count(*) FROM (SELECT 1" + hits + ") h"
	case pg && ask.byURN == 0 && !ask.entities:
		// The hits are read once: materializing them first cost a
		// fifth of the statement for 10,000 hits on PostgreSQL.
		stmt = "SELECT " + strings.Join(sel, ", ") + " FROM (SELECT " + cols + hits + ") h"
		args = append(append([]any{}, selArgs...), w.args...)
	}
	if err := x.QueryRowContext(ctx, s.db.q.rebind(stmt), args...).Scan(dest...); err != nil {
		return got, nil, err
	}
	var err error
	if byURN.Valid && got.total < limit {
		if got.byURN, err = parseIDs(byURN.String); err != nil {
			return got, nil, err
		}
	}
	if all.Valid {
		if got.all, err = parseIDs(all.String); err != nil {
			return got, nil, err
		}
	}
	if ents.Valid {
		if got.entities, err = parseCounts(ents.String); err != nil {
			return got, nil, err
		}
	}
	return got, run, err
}

// parseCounts reads a comma-separated list of name=count.
func parseCounts(list string) (map[string]int, error) {
	out := map[string]int{}
	for _, f := range strings.Split(list, ",") {
		if f == "" {
			continue
		}
		i := strings.LastIndexByte(f, '=')
		n, err := strconv.Atoi(f[i+1:])
		if i < 0 || err != nil {
			return nil, fmt.Errorf("entity count %q", f)
		}
		out[f[:i]] = n
	}
	return out, nil
}

// parseIDs reads a comma-separated list of ids.
func parseIDs(list string) ([]int64, error) {
	ids := []int64{}
	for _, f := range strings.Split(list, ",") {
		if f == "" {
			continue
		}
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("id list %q: %w", list, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// pageByURN returns the ids of the page of hits of from/w in URN order,
// through the database's indexes.
func (s *Search) pageByURN(ctx context.Context, x querier, q catalog.SearchQuery, from string, w where, total int) ([]int64, error) {
	if q.Count == 0 || q.Start >= total {
		return nil, nil
	}
	if from == "search_doc d" && len(q.EntityTypes) == 1 && q.Start+q.Count <= maxWalk {
		// Called for a window of maxTotal hits or more: the walk through
		// the entity index in URN order meets the page's hits after
		// about (start+count)/total of the documents. Reading every hit
		// and sorting them took 21 ms for a tag on 2% of 1M datasets on
		// SQLite (PostgreSQL: see docCondsFor), the walk 0.1 ms; deep
		// pages are still sorted.
		w = where{}
		if err := s.docCondsFor(&w, q.EntityTypes, q.Filter, false, false, true); err != nil {
			return nil, err
		}
	}
	args := append(append([]any{}, w.args...), int64(q.Count), int64(q.Start))
	return queryIDs(ctx, x, s.db.q.rebind("SELECT d.id FROM "+from+" WHERE "+w.sql()+" ORDER BY d.urn LIMIT ? OFFSET ?"), args...)
}

// queryIDs runs a statement of one id column and returns the ids, never nil.
func queryIDs(ctx context.Context, x querier, stmt string, args ...any) ([]int64, error) {
	rows, err := x.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// maxWalk bounds the pages pageByURN finds by walking the documents in URN
// order.
const maxWalk = 1000

// ranked is a hit as the page ranking sees it.
type ranked struct {
	id    int64
	urn   string
	exact bool
	score float64
}

// rankCompare orders hits by all but their URN: exact name matches, then
// score. It is -1 when a comes first, 1 when b does, 0 when the URNs decide.
func rankCompare(aExact bool, aScore float64, bExact bool, bScore float64) int {
	switch {
	case aExact != bExact:
		if aExact {
			return -1
		}
		return 1
	case aScore > bScore:
		return -1
	case aScore < bScore:
		return 1
	}
	return 0
}

// before orders hits: exact name matches, then score, then URN.
func (a ranked) before(b ranked) bool {
	if c := rankCompare(a.exact, a.score, b.exact, b.score); c != 0 {
		return c < 0
	}
	return a.urn < b.urn
}

// exactDocs returns the documents whose name-like field equals the whole
// query, which rank first; the keyword table's key (field, value) finds
// them, for the query as typed and lower-cased.
func (s *Search) exactDocs(ctx context.Context, x querier, text string) (map[int64]bool, error) {
	exact := map[int64]bool{}
	if len(s.exact) == 0 {
		return exact, nil
	}
	qs := s.db.q
	text = strings.TrimSpace(text)
	rows, err := x.QueryContext(ctx, qs.rebind("SELECT x.doc FROM search_kw x WHERE "+qs.inList("x.field")+" AND x.value IN (?, ?)"), qs.listArg(s.exact), text, strings.ToLower(text))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		exact[id] = true
	}
	return exact, rows.Err()
}

// readHits reads the page's documents, in order, with their matched fields.
func (s *Search) readHits(ctx context.Context, x querier, ids []int64, tokens []string, res *catalog.SearchResult) error {
	if len(ids) == 0 {
		return nil
	}
	qs := s.db.q
	arg, cond := idList(qs, ids, "d.id")
	rows, err := x.QueryContext(ctx, qs.rebind("SELECT d.id, d.urn, d.entity, b.fields FROM search_doc d JOIN search_body b ON b.id = d.id WHERE "+cond), arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	byID := make(map[int64]catalog.SearchHit, len(ids))
	for rows.Next() {
		var id int64
		var h catalog.SearchHit
		var fields string
		if err := rows.Scan(&id, &h.URN, &h.EntityType, &fields); err != nil {
			return err
		}
		h.MatchedFields = s.matched(tokens, fields)
		byID[id] = h
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		if h, ok := byID[id]; ok {
			h.Score = float64(len(res.Hits))
			res.Hits = append(res.Hits, h)
		}
	}
	return nil
}

// facets counts the values of fields over the hits of from/w: from keyword
// rows, plus the "fields" JSON for free-text fields and search_doc's
// columns for "urn" and "removed". few says the hits are few enough to walk
// their keyword rows; otherwise the facet fields' rows are walked.
func (s *Search) facets(ctx context.Context, x querier, fields []string, from string, w where, few bool, out map[string]map[string]int) error {
	qs := s.db.q
	hits := "SELECT d.id FROM " + from + " WHERE " + w.sql()
	add := func(stmt string, args []any, field string) error {
		rows, err := x.QueryContext(ctx, qs.rebind(stmt), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var f, v string
			var n int
			if field != "" {
				if err := rows.Scan(&v, &n); err != nil {
					return err
				}
				f = field
			} else if err := rows.Scan(&f, &v, &n); err != nil {
				return err
			}
			if out[f] == nil {
				out[f] = map[string]int{}
			}
			out[f][v] += n
		}
		return rows.Err()
	}
	var kwFields []string
	for _, f := range fields {
		switch {
		case columnField(f):
			v := "d.urn"
			if f == search.FieldRemoved {
				v = "(CASE WHEN d.removed = 1 THEN 'true' ELSE 'false' END)"
			}
			stmt := "SELECT " + v + ", COUNT(*) FROM " + from + " WHERE " + w.sql() + " GROUP BY 1"
			if err := add(stmt, w.args, f); err != nil {
				return err
			}
		case !s.keyed(f):
			var stmt string
			var path any
			if qs.pg {
				stmt = "SELECT j.value, COUNT(DISTINCT h.id) FROM (" + hits + ") h JOIN search_body x ON x.id = h.id CROSS JOIN LATERAL jsonb_array_elements_text(x.fields::jsonb -> ?::text) AS j(value) WHERE length(j.value) <= " + strconv.Itoa(maxKeywordLen) + " GROUP BY j.value"
				path = f
			} else {
				stmt = "SELECT j.value, COUNT(DISTINCT h.id) FROM (" + hits + ") h CROSS JOIN search_body x ON x.id = h.id CROSS JOIN json_each(x.fields, ?) j WHERE length(CAST(j.value AS BLOB)) <= " + strconv.Itoa(maxKeywordLen) + " GROUP BY j.value"
				path = `$."` + strings.ReplaceAll(f, `"`, `\"`) + `"`
			}
			if err := add(stmt, append(append([]any{}, w.args...), path), f); err != nil {
				return err
			}
			kwFields = append(kwFields, f) // its non-string values
		default:
			kwFields = append(kwFields, f)
		}
	}
	if len(kwFields) == 0 {
		return nil
	}
	// Few hits: walk their keyword rows by document. Many: walk the facet
	// fields' rows and keep those of hits.
	stmt := "SELECT k.field, k.value, COUNT(*) FROM search_kw k WHERE " + qs.inList("k.field") +
		" AND k.doc IN (" + hits + ") GROUP BY k.field, k.value"
	args := append([]any{qs.listArg(kwFields)}, w.args...)
	if few {
		stmt = "SELECT k.field, k.value, COUNT(*) FROM (" + hits + ") h " + crossJoin(qs.pg) +
			" search_kw k ON k.doc = h.id WHERE " + qs.inList("k.field") + " GROUP BY k.field, k.value"
		args = append(append([]any{}, w.args...), qs.listArg(kwFields))
	}
	return add(stmt, args, "")
}

// matched lists the query-by-default fields of a stored document whose
// words match the query, highest boost first.
func (s *Search) matched(tokens []string, fieldsJSON string) []catalog.MatchedField {
	out := []catalog.MatchedField{}
	if len(tokens) == 0 {
		return out
	}
	fields, ok := s.queriedValues(fieldsJSON)
	if !ok {
		return out
	}
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		bi, bj := s.fields[names[i]].Boost, s.fields[names[j]].Boost
		if bi != bj {
			return bi > bj
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		for _, v := range fields[n] {
			if search.Matches(tokens, v) {
				out = append(out, catalog.MatchedField{Name: n, Value: v})
			}
		}
	}
	return out
}

// queriedValues decodes the values of the query-by-default fields from a
// document's "fields" JSON. It skips the other fields' values undecoded:
// this runs for every hit of a page.
func (s *Search) queriedValues(fieldsJSON string) (map[string][]string, bool) {
	fields := map[string][]string{}
	ok := fastjson.Object([]byte(fieldsJSON), func(name string, raw []byte) bool {
		if !s.fields[name].QueryByDefault {
			return true
		}
		return fastjson.Array(raw, func(v []byte) bool {
			str, ok := fastjson.String(v)
			fields[name] = append(fields[name], str)
			return ok
		})
	})
	if ok {
		return fields, true
	}
	// Input fastjson leaves to encoding/json (unusual escapes, say).
	var all map[string][]string
	if err := json.Unmarshal([]byte(fieldsJSON), &all); err != nil {
		return nil, false
	}
	for n := range all {
		if !s.fields[n].QueryByDefault {
			delete(all, n)
		}
	}
	return all, true
}

// Autocomplete suggests values of autocomplete fields whose words match the
// query's (the last as a prefix), values starting with the whole query
// first.
func (s *Search) Autocomplete(ctx context.Context, q catalog.AutocompleteQuery) ([]catalog.Suggestion, error) {
	out := []catalog.Suggestion{}
	tokens := search.QueryTokens(q.Query)
	if len(tokens) == 0 || q.Limit <= 0 {
		return out, nil
	}
	from, w := s.textMatch(tokens, "ac", true)
	if err := s.docConds(&w, q.EntityTypes, q.Filter, false, true); err != nil {
		return nil, err
	}
	type cand struct {
		urn, fields string
	}
	var cands []cand
	err := s.read(ctx, func(x querier) error {
		if stored, err := s.anyStored(ctx, x, q.EntityTypes); err != nil || !stored {
			return err
		}
		args := append(append([]any{}, w.args...), int64(q.Limit*4+20))
		// Suggestions in URN order, on both engines (every hit of the one
		// column scores the same); only those read their values.
		rows, err := x.QueryContext(ctx, s.db.q.rebind("SELECT h.urn, b.acvals FROM (SELECT d.id, d.urn FROM "+from+" WHERE "+w.sql()+" ORDER BY d.urn LIMIT ?) h JOIN search_body b ON b.id = h.id ORDER BY h.urn"), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c cand
			if err := rows.Scan(&c.urn, &c.fields); err != nil {
				return err
			}
			cands = append(cands, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.db.fail(ctx, err, "autocomplete")
	}
	lq := strings.ToLower(strings.TrimSpace(q.Query))
	type sugg struct {
		catalog.Suggestion
		prefix bool
		rank   int
	}
	var all []sugg
	seen := map[string]bool{}
	for i, c := range cands {
		var fields map[string][]string
		if err := json.Unmarshal([]byte(c.fields), &fields); err != nil {
			continue
		}
		names := make([]string, 0, len(fields))
		for n := range fields {
			if f := s.fields[n]; f.Autocomplete && (q.Field == "" || q.Field == n) {
				names = append(names, n)
			}
		}
		sort.Slice(names, func(a, b int) bool {
			if s.fields[names[a]].Boost != s.fields[names[b]].Boost {
				return s.fields[names[a]].Boost > s.fields[names[b]].Boost
			}
			return names[a] < names[b]
		})
	values:
		for _, n := range names {
			for _, v := range fields[n] {
				if search.Matches(tokens, v) {
					if !seen[v] {
						seen[v] = true
						all = append(all, sugg{catalog.Suggestion{Text: v, URN: c.urn}, strings.HasPrefix(strings.ToLower(v), lq), i})
					}
					break values
				}
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].prefix && !all[j].prefix })
	for _, sg := range all {
		if len(out) == q.Limit {
			break
		}
		out = append(out, sg.Suggestion)
	}
	return out, nil
}

// Browse lists the child groups of a path with the number of entities below
// each, then the entities exactly at the path; soft-deleted entities never
// show.
func (s *Search) Browse(ctx context.Context, q catalog.BrowseQuery) (catalog.BrowseResult, error) {
	res := catalog.BrowseResult{Groups: []catalog.BrowseGroup{}, URNs: []string{}}
	if q.Start < 0 || q.Limit < 0 {
		return res, catalog.Errorf(catalog.Invalid, "start and limit must not be negative")
	}
	path := search.NormalizePath(q.Path)
	prefix := path + "/"
	var w where
	w.add("b.entity = ?", q.EntityType)
	if err := s.docConds(&w, nil, q.Filter, true, true); err != nil {
		return res, err
	}
	from := "search_browse b JOIN search_doc d ON d.id = b.doc"
	qs := s.db.q
	var segment string
	if qs.pg {
		segment = "split_part(substr(b.path, ?), '/', 1)"
	} else {
		segment = "substr(substr(b.path, ?), 1, CASE WHEN instr(substr(b.path, ?), '/') > 0 THEN instr(substr(b.path, ?), '/') - 1 ELSE length(b.path) END)"
	}
	start := int64(len(prefix) + 1)
	segArgs := []any{start}
	if !qs.pg {
		segArgs = []any{start, start, start}
	}
	under := `b.path LIKE ? ESCAPE '\'`
	underArg := likeEscape(prefix) + "%"
	err := s.read(ctx, func(x querier) error {
		// Groups.
		args := append(append(append([]any{}, segArgs...), w.args...), underArg)
		rows, err := x.QueryContext(ctx, qs.rebind("SELECT "+segment+" AS seg, COUNT(DISTINCT b.doc) FROM "+from+" WHERE "+w.sql()+" AND "+under+" GROUP BY seg ORDER BY seg"), args...)
		if err != nil {
			return err
		}
		var groups []catalog.BrowseGroup
		for rows.Next() {
			var g catalog.BrowseGroup
			if err := rows.Scan(&g.Name, &g.Count); err != nil {
				rows.Close()
				return err
			}
			if g.Name != "" {
				groups = append(groups, g)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		res.NumGroups = len(groups)
		// Entities below the path (any depth) and exactly at it.
		args = append(append([]any{}, w.args...), underArg)
		if err := x.QueryRowContext(ctx, qs.rebind("SELECT COUNT(DISTINCT b.doc) FROM "+from+" WHERE "+w.sql()+" AND "+under), args...).Scan(&res.Total); err != nil {
			return err
		}
		args = append(append([]any{}, w.args...), path)
		if err := x.QueryRowContext(ctx, qs.rebind("SELECT COUNT(DISTINCT b.doc) FROM "+from+" WHERE "+w.sql()+" AND b.path = ?"), args...).Scan(&res.NumEntities); err != nil {
			return err
		}
		// The page spans groups, then entities.
		if q.Start < len(groups) {
			end := min(len(groups), q.Start+q.Limit)
			res.Groups = groups[q.Start:end]
		}
		left := q.Limit - len(res.Groups)
		off := max(0, q.Start-len(groups))
		if left > 0 && off < res.NumEntities {
			args = append(append([]any{}, w.args...), path, int64(left), int64(off))
			rows, err := x.QueryContext(ctx, qs.rebind("SELECT d.urn FROM "+from+" WHERE "+w.sql()+" AND b.path = ? ORDER BY d.urn LIMIT ? OFFSET ?"), args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var u string
				if err := rows.Scan(&u); err != nil {
					return err
				}
				res.URNs = append(res.URNs, u)
			}
			return rows.Err()
		}
		return nil
	})
	if err != nil {
		return catalog.BrowseResult{}, s.db.fail(ctx, err, "browse %s", path)
	}
	return res, nil
}
