package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// rankFTS counts the hits of a text search on SQLite and ranks its page,
// reading each hit once and handing Go a few rows rather than one per hit.
//
// One statement reads the first maxTotal hits in the index's order: their
// count, their facet values, the last one's id, and the hits scoring more
// than a bound, the most a hit with no query word in the buckets 0 and 1
// (names) can score; a second reads the hits after the last one for those
// alone, scoring them without reading the others' rows. Every other hit
// scores at most the bound, so when k hits score more, the k best of those
// are the page: Go sorts them when they are few, SQLite otherwise. With
// fewer than k, SQLite scores and sorts every hit for the page. Exact name
// matches are scored apart and rank first. The pages, totals and facets
// are those that handing every hit to Go and ranking them there gives.
//
// A two-word search of 1M datasets matches 7,000-20,000 of them, of which a
// few hundred have a word in a name. Handing each hit to Go cost several
// calls through cgo; this took the benchmark's search p50 from 32 to 18 ms
// (with the whole file mapped, see wcFetch; 77 to 42 ms p99).
func (s *Search) rankFTS(ctx context.Context, x querier, q catalog.SearchQuery, tokens []string, conds where, facets bool, counts map[uint32]int, res *catalog.SearchResult) ([]int64, error) {
	whole, err := s.lastWordWhole(ctx, x, tokens)
	if err != nil {
		return nil, err
	}
	cond, match := ftsMatch, ftsWords(tokens, !whole)
	from := hitsJoin(conds)
	w := where{conds: []string{cond}, args: []any{match}}.and(conds)
	rank := textRank(bucketWeight)
	k := 0
	if q.Count > 0 {
		k = min(q.Start+q.Count, maxTotal)
	}
	bound := float64(len(tokens)) * s.weightAfter(1)

	cols, sel := "d.id", []string{"count(*)", "max(h.id)"}
	var args []any
	if k > 0 {
		cols += ", " + rank + " AS score"
		sel = append(sel, "group_concat(CASE WHEN h.score > ? THEN h.id END, ',')", "group_concat(CASE WHEN h.score > ? THEN h.score END, ',')")
		args = append(args, bound, bound)
	}
	if facets {
		cols += ", d.fids"
		// The runs of uvarints are self-delimiting: joined as they are,
		// each byte kept (group_concat reads a blob's length, not up to a
		// zero byte).
		sel = append(sel, "coalesce(group_concat(h.fids, ''), '')")
	}
	if q.EntityCounts {
		cols += ", d.entity"
		sel = append(sel, "group_concat(h.entity, ',')")
	}
	stmt := "SELECT " + strings.Join(sel, ", ") + " FROM (SELECT " + cols + " FROM " + from + " WHERE " + w.sql() + " LIMIT " + strconv.Itoa(maxTotal) + ") h"
	var last sql.NullInt64
	var ids, scores, ents sql.NullString
	var run []byte
	dest := []any{&res.Total, &last}
	if k > 0 {
		dest = append(dest, &ids, &scores)
	}
	if facets {
		dest = append(dest, &run)
	}
	if q.EntityCounts {
		dest = append(dest, &ents)
	}
	if err := x.QueryRowContext(ctx, stmt, append(args, w.args...)...).Scan(dest...); err != nil {
		return nil, err
	}
	countFIDs(run, counts)
	complete := res.Total < maxTotal
	if complete && q.EntityCounts {
		res.EntityCounts = map[string]int{}
		for _, e := range strings.Split(ents.String, ",") {
			if e != "" {
				res.EntityCounts[e]++
			}
		}
	}
	if k == 0 || q.Start >= res.Total {
		return nil, nil
	}
	cands := map[int64]ranked{}
	if err := addScored(cands, ids.String, scores.String); err != nil {
		return nil, err
	}
	if !complete && len(cands) <= k+maxAbove {
		// The hits after the window: the documents of those above the
		// bound alone are read. (A subquery with a LIMIT is not merged
		// into a join: the rank function cannot run in its WHERE.)
		err := x.QueryRowContext(ctx, "SELECT group_concat(d.id, ','), group_concat(h.score, ',') FROM (SELECT f.rowid AS id, "+rank+" AS score FROM search_fts f WHERE "+cond+" AND f.rowid > ? LIMIT -1) h CROSS JOIN search_doc d ON d.id = h.id WHERE h.score > ? AND "+conds.sql(),
			append([]any{match, last.Int64, bound}, conds.args...)...).Scan(&ids, &scores)
		if err != nil {
			return nil, err
		}
		if err := addScored(cands, ids.String, scores.String); err != nil {
			return nil, err
		}
	}
	exact, err := s.exactDocs(ctx, x, q.Text)
	if err != nil {
		return nil, err
	}
	above := cands
	cands = map[int64]ranked{}
	switch {
	case len(above) >= k && len(above) <= k+maxAbove:
		if err := s.candidateURNs(ctx, x, above); err != nil {
			return nil, err
		}
		cands = above
		s.trace(1, false)
	case len(above) >= k:
		// Too many to sort here: SQLite sorts them.
		if err := s.bestHits(ctx, x, tokens, match, conds, cands, k, bestAbove(bound)); err != nil {
			return nil, err
		}
		s.trace(2, false)
	default:
		// Fewer than k: SQLite sorts every hit.
		if err := s.bestHits(ctx, x, tokens, match, conds, cands, k, bestAll()); err != nil {
			return nil, err
		}
		s.trace(-1, false)
	}
	for id := range exact {
		if err := s.bestHits(ctx, x, tokens, match, conds, cands, 1, bestDoc(id)); err != nil {
			return nil, err
		}
	}
	for id, h := range cands {
		h.exact = exact[id]
		cands[id] = h
	}
	return s.pageOf(cands, q.Start, k), nil
}

// hitsJoin is the join of the text table with the documents that rankFTS
// counts its window through. Unless conds read the URN, the documents are
// read through search_doc_hit, an index of the columns a window reads (id,
// entity, removed, long, fids): 28% of the pages of search_doc, whose URNs
// take most of its rows. Each hit is a B-tree lookup, whose cost is in the
// pages it touches: a two-word search of 1M datasets counted its window
// through the index in 8.7-9.0 ms against 10.2-11.3 through the rows. The
// planner takes the rowid look-up for the cheaper, hence INDEXED BY.
func hitsJoin(conds where) string {
	if strings.Contains(conds.sql(), "d.urn") {
		return "search_fts f CROSS JOIN search_doc d ON d.id = f.rowid"
	}
	return "search_fts f CROSS JOIN search_doc d INDEXED BY search_doc_hit ON d.id = f.rowid"
}

// maxAbove bounds the hits above the bound rankFTS sorts in Go (looking up
// their URNs) beyond the page's: past it, SQLite sorts every hit.
const maxAbove = 1000

// addScored adds to cands the hits of two parallel comma-separated lists
// of ids and scores, their URNs to be read. SQLite writes a REAL as the
// shortest text that reads back as the same number, so the scores are
// those catalogd_rank computed.
func addScored(cands map[int64]ranked, ids, scores string) error {
	if ids == "" {
		return nil
	}
	is, ss := strings.Split(ids, ","), strings.Split(scores, ",")
	if len(is) != len(ss) {
		return fmt.Errorf("%d ids and %d scores", len(is), len(ss))
	}
	for i := range is {
		id, err := strconv.ParseInt(is[i], 10, 64)
		if err != nil {
			return fmt.Errorf("hit id %q: %w", is[i], err)
		}
		score, err := strconv.ParseFloat(ss[i], 64)
		if err != nil {
			return fmt.Errorf("hit score %q: %w", ss[i], err)
		}
		if _, ok := cands[id]; !ok {
			cands[id] = ranked{id: id, score: score}
		}
	}
	return nil
}

// candidateURNs reads the URNs of the candidates that lack one.
func (s *Search) candidateURNs(ctx context.Context, x querier, cands map[int64]ranked) error {
	var ids []int64
	for id, h := range cands {
		if h.urn == "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	arg, cond := idList(s.db.q, ids, "d.id")
	rows, err := x.QueryContext(ctx, "SELECT d.id, d.urn FROM search_doc d WHERE "+cond, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var urn string
		if err := rows.Scan(&id, &urn); err != nil {
			return err
		}
		h := cands[id]
		h.urn = urn
		cands[id] = h
	}
	return rows.Err()
}

// bestOf says which hits bestHits reads: those scoring above min, or
// document id alone when id is not 0.
type bestOf struct {
	min *float64
	id  int64
}

func bestAll() bestOf              { return bestOf{} }
func bestAbove(min float64) bestOf { return bestOf{min: &min} }
func bestDoc(id int64) bestOf      { return bestOf{id: id} }

// bestHits adds to cands the k best hits (by score, then URN) of the FTS5
// query text among the documents meeting conds and which.
func (s *Search) bestHits(ctx context.Context, x querier, tokens []string, text string, conds where, cands map[int64]ranked, k int, which bestOf) error {
	rank := textRank(bucketWeight)
	stmt := "SELECT d.id, d.urn, " + rank + " AS score FROM search_fts f CROSS JOIN search_doc d ON d.id = f.rowid WHERE search_fts MATCH ?"
	args := []any{text}
	switch {
	case which.id != 0:
		stmt += " AND f.rowid = ?"
		args = append(args, which.id)
	case which.min != nil:
		// Only the documents of the hits above min are read. (A subquery
		// with a LIMIT is not merged into a join: the rank function
		// cannot run in its WHERE.)
		stmt = "SELECT d.id, d.urn, h.score FROM (SELECT f.rowid AS id, " + rank + " AS score FROM search_fts f WHERE search_fts MATCH ? LIMIT -1) h CROSS JOIN search_doc d ON d.id = h.id WHERE h.score > ?"
		args = append(args, *which.min)
	}
	stmt += " AND " + conds.sql() + " ORDER BY score DESC, d.urn LIMIT ?"
	args = append(append(args, conds.args...), int64(k))
	rows, err := x.QueryContext(ctx, stmt, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h ranked
		if err := rows.Scan(&h.id, &h.urn, &h.score); err != nil {
			return err
		}
		cands[h.id] = h
	}
	return rows.Err()
}
