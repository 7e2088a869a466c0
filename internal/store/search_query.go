package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
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
// delete and the filter, on the document alias d.
func (s *Search) docConds(w *where, types []string, f catalog.Filter, alwaysHideRemoved bool) error {
	q := s.db.q
	if len(types) > 0 {
		w.add(q.inList("d.entity"), q.listArg(types))
	}
	if alwaysHideRemoved || !search.RemovedFilter(f) {
		w.add("d.removed = 0")
	}
	if len(f.Or) == 0 {
		return nil
	}
	var ors []string
	var args []any
	for _, g := range f.Or {
		var ands []string
		for _, c := range g {
			cond, a, err := s.criterion(c)
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

// criterion returns the SQL of one filter criterion over d.urn.
func (s *Search) criterion(c catalog.Criterion) (string, []any, error) {
	cond := strings.ToUpper(c.Condition)
	if cond == "" {
		cond = "EQUAL"
	}
	sub := "d.urn IN (SELECT k.urn FROM search_kw k WHERE k.field = ? AND "
	args := []any{c.Field}
	var expr string
	lower := func() []any {
		out := make([]any, len(c.Values))
		for i, v := range c.Values {
			out[i] = strings.ToLower(v)
		}
		return out
	}
	anyOf := func(col, tmpl string, vals []any) {
		var parts []string
		for _, v := range vals {
			parts = append(parts, strings.ReplaceAll(tmpl, "$", col))
			args = append(args, v)
		}
		expr = "(" + strings.Join(parts, " OR ") + ")"
	}
	switch cond {
	case "EQUAL", "IN":
		vals := make([]any, len(c.Values))
		for i, v := range c.Values {
			vals[i] = v
			if f := s.fields[c.Field]; f.Type == "BOOLEAN" || c.Field == search.FieldRemoved {
				vals[i] = strings.ToLower(v)
			}
		}
		anyOf("k.value", "$ = ?", vals)
	case "IEQUAL":
		anyOf("k.lvalue", "$ = ?", lower())
	case "CONTAIN":
		anyOf("k.lvalue", `$ LIKE '%' || ? || '%' ESCAPE '\'`, escapeAll(lower()))
	case "START_WITH":
		anyOf("k.lvalue", `$ LIKE ? || '%' ESCAPE '\'`, escapeAll(lower()))
	case "END_WITH":
		anyOf("k.lvalue", `$ LIKE '%' || ? ESCAPE '\'`, escapeAll(lower()))
	case "GREATER_THAN", "GREATER_THAN_OR_EQUAL_TO", "LESS_THAN", "LESS_THAN_OR_EQUAL_TO":
		if len(c.Values) == 0 {
			return "", nil, catalog.Errorf(catalog.Invalid, "condition %s on field %s needs a value", cond, c.Field)
		}
		n, err := strconv.ParseFloat(c.Values[0], 64)
		if err != nil {
			return "", nil, catalog.Errorf(catalog.Invalid, "condition %s on field %s needs a numeric value, got %q", cond, c.Field, c.Values[0])
		}
		op := map[string]string{"GREATER_THAN": ">", "GREATER_THAN_OR_EQUAL_TO": ">=", "LESS_THAN": "<", "LESS_THAN_OR_EQUAL_TO": "<="}[cond]
		expr = "k.num " + op + " ?"
		args = append(args, n)
	case "EXISTS", "IS_NULL":
		expr = "1=1"
	default:
		return "", nil, catalog.Errorf(catalog.Invalid, "unknown condition %q on field %s", c.Condition, c.Field)
	}
	if len(c.Values) == 0 && expr == "" {
		return "", nil, catalog.Errorf(catalog.Invalid, "condition %s on field %s needs a value", cond, c.Field)
	}
	if expr == "()" {
		expr = "1=0"
	}
	sqlc := sub + expr + ")"
	neg := c.Negated
	if cond == "IS_NULL" {
		neg = !neg
	}
	if neg {
		sqlc = "NOT (" + sqlc + ")"
	}
	return sqlc, args, nil
}

func escapeAll(vals []any) []any {
	for i, v := range vals {
		vals[i] = likeEscape(v.(string))
	}
	return vals
}

// textMatch returns the engine's full-text condition for query words (each
// a prefix), the join making it usable, and its rank expression.
func (s *Search) textMatch(tokens []string, column string) (from, cond, rank string, arg any) {
	if s.db.q.pg {
		parts := make([]string, len(tokens))
		for i, t := range tokens {
			parts[i] = t + ":*"
		}
		col := "d.tsv"
		if column == "ac" {
			col = "d.ac"
		}
		return "search_doc d", col + " @@ to_tsquery('simple', ?)",
			"ts_rank('{0.1, 0.3, 0.6, 1.0}', " + col + ", to_tsquery('simple', ?)) DESC", strings.Join(parts, " & ")
	}
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = `"` + t + `"*`
	}
	cols := "{b0 b1 b2 b3 b4}"
	if column == "ac" {
		cols = "{ac}"
	}
	// CROSS JOIN keeps the full-text match as the outer loop: left to
	// itself the planner may drive from the entity index and run the match
	// once per document.
	return "search_fts f CROSS JOIN search_doc d ON d.id = f.rowid", "search_fts MATCH ?",
		"bm25(search_fts, " + strings.Join(bucketWeight, ", ") + ", 0)", cols + " : (" + strings.Join(parts, " AND ") + ")"
}

// crossJoin is a join that SQLite's planner may not reorder (CROSS JOIN);
// PostgreSQL orders joins well and has no CROSS JOIN ... ON.
func crossJoin(pg bool) string {
	if pg {
		return "JOIN"
	}
	return "CROSS JOIN"
}

// facetByHitsMax is the hit count up to which facets are counted from the
// hits' keyword rows rather than from the facet fields' rows.
const facetByHitsMax = 20000

// Search runs a search: free text ranked by field boosts (plus a bonus for
// an exact match of a name-like field), the filter, facets and a page.
func (s *Search) Search(ctx context.Context, q catalog.SearchQuery) (catalog.SearchResult, error) {
	res := catalog.SearchResult{Facets: map[string]map[string]int{}}
	if q.Start < 0 || q.Count < 0 {
		return res, catalog.Errorf(catalog.Invalid, "start and count must not be negative")
	}
	tokens := search.QueryTokens(strings.TrimSpace(q.Text))
	var w where
	from := "search_doc d"
	order := "d.urn"
	var rankArgs []any
	if len(tokens) > 0 {
		var cond, rank string
		var arg any
		from, cond, rank, arg = s.textMatch(tokens, "")
		w.add(cond, arg)
		order = rank + ", d.urn"
		if s.db.q.pg {
			rankArgs = append(rankArgs, arg)
		}
		if len(s.exact) > 0 {
			// The keyword table's key (field, value) finds exact values; the
			// query as typed and lower-cased covers the usual spellings.
			order = "CASE WHEN d.urn IN (SELECT x.urn FROM search_kw x WHERE " + s.db.q.inList("x.field") + " AND x.value IN (?, ?)) THEN 0 ELSE 1 END, " + order
			text := strings.TrimSpace(q.Text)
			rankArgs = append([]any{s.db.q.listArg(s.exact), text, strings.ToLower(text)}, rankArgs...)
		}
	}
	if err := s.docConds(&w, q.EntityTypes, q.Filter, false); err != nil {
		return res, err
	}
	err := s.db.snapshot(ctx, func(x querier) error {
		qs := s.db.q
		if err := x.QueryRowContext(ctx, qs.rebind("SELECT COUNT(*) FROM "+from+" WHERE "+w.sql()), w.args...).Scan(&res.Total); err != nil {
			return err
		}
		if q.Count > 0 && q.Start < res.Total {
			args := append(append(append([]any{}, w.args...), rankArgs...), int64(q.Count), int64(q.Start))
			rows, err := x.QueryContext(ctx, qs.rebind("SELECT d.urn, d.entity, d.fields FROM "+from+" WHERE "+w.sql()+" ORDER BY "+order+" LIMIT ? OFFSET ?"), args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var h catalog.SearchHit
				var fields string
				if err := rows.Scan(&h.URN, &h.EntityType, &fields); err != nil {
					return err
				}
				h.Score = float64(len(res.Hits))
				h.MatchedFields = s.matched(tokens, fields)
				res.Hits = append(res.Hits, h)
			}
			if err := rows.Err(); err != nil {
				return err
			}
			rows.Close()
		}
		if len(q.Facets) > 0 && res.Total > 0 {
			args := append([]any{qs.listArg(q.Facets)}, w.args...)
			// Few hits: walk their keyword rows by URN. Many: walk the facet
			// fields' rows and keep those of hits.
			stmt := "SELECT k.field, k.value, COUNT(*) FROM search_kw k WHERE " + qs.inList("k.field") +
				" AND k.urn IN (SELECT d.urn FROM " + from + " WHERE " + w.sql() + ") GROUP BY k.field, k.value"
			if res.Total <= facetByHitsMax {
				stmt = "SELECT k.field, k.value, COUNT(*) FROM (SELECT d.urn FROM " + from + " WHERE " + w.sql() +
					") h " + crossJoin(qs.pg) + " search_kw k ON k.urn = h.urn WHERE " + qs.inList("k.field") + " GROUP BY k.field, k.value"
				args = append(append([]any{}, w.args...), qs.listArg(q.Facets))
			}
			rows, err := x.QueryContext(ctx, qs.rebind(stmt), args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var f, v string
				var n int
				if err := rows.Scan(&f, &v, &n); err != nil {
					return err
				}
				if res.Facets[f] == nil {
					res.Facets[f] = map[string]int{}
				}
				res.Facets[f][v] = n
			}
			return rows.Err()
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

// matched lists the query-by-default fields of a stored document whose
// words match the query, highest boost first.
func (s *Search) matched(tokens []string, fieldsJSON string) []catalog.MatchedField {
	out := []catalog.MatchedField{}
	if len(tokens) == 0 {
		return out
	}
	var fields map[string][]string
	if err := json.Unmarshal([]byte(fieldsJSON), &fields); err != nil {
		return out
	}
	names := make([]string, 0, len(fields))
	for n := range fields {
		if f, ok := s.fields[n]; !ok || f.QueryByDefault {
			names = append(names, n)
		}
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

// Autocomplete suggests values of autocomplete fields whose words start
// with the query's words, values starting with the whole query first.
func (s *Search) Autocomplete(ctx context.Context, q catalog.AutocompleteQuery) ([]catalog.Suggestion, error) {
	out := []catalog.Suggestion{}
	tokens := search.QueryTokens(q.Query)
	if len(tokens) == 0 || q.Limit <= 0 {
		return out, nil
	}
	var w where
	from, cond, rank, arg := s.textMatch(tokens, "ac")
	w.add(cond, arg)
	if err := s.docConds(&w, q.EntityTypes, q.Filter, false); err != nil {
		return nil, err
	}
	var rankArgs []any
	if s.db.q.pg {
		rankArgs = []any{arg}
	}
	type cand struct {
		urn, fields string
	}
	var cands []cand
	err := s.db.snapshot(ctx, func(x querier) error {
		args := append(append(append([]any{}, w.args...), rankArgs...), int64(q.Limit*4+20))
		rows, err := x.QueryContext(ctx, s.db.q.rebind("SELECT d.urn, d.fields FROM "+from+" WHERE "+w.sql()+" ORDER BY "+rank+", d.urn LIMIT ?"), args...)
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
	if err := s.docConds(&w, nil, q.Filter, true); err != nil {
		return res, err
	}
	from := "search_browse b JOIN search_doc d ON d.urn = b.urn"
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
	err := s.db.snapshot(ctx, func(x querier) error {
		// Groups.
		args := append(append(append([]any{}, segArgs...), w.args...), underArg)
		rows, err := x.QueryContext(ctx, qs.rebind("SELECT "+segment+" AS seg, COUNT(DISTINCT b.urn) FROM "+from+" WHERE "+w.sql()+" AND "+under+" GROUP BY seg ORDER BY seg"), args...)
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
		if err := x.QueryRowContext(ctx, qs.rebind("SELECT COUNT(DISTINCT b.urn) FROM "+from+" WHERE "+w.sql()+" AND "+under), args...).Scan(&res.Total); err != nil {
			return err
		}
		args = append(append([]any{}, w.args...), path)
		if err := x.QueryRowContext(ctx, qs.rebind("SELECT COUNT(DISTINCT b.urn) FROM "+from+" WHERE "+w.sql()+" AND b.path = ?"), args...).Scan(&res.NumEntities); err != nil {
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
			rows, err := x.QueryContext(ctx, qs.rebind("SELECT DISTINCT b.urn FROM "+from+" WHERE "+w.sql()+" AND b.path = ? ORDER BY b.urn LIMIT ? OFFSET ?"), args...)
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

var _ = sql.ErrNoRows
