package store

import (
	"context"
	"errors"
	"strconv"
)

// On PostgreSQL the documents' words are indexed in two halves: one GIN
// index holds the documents of even ids, the other those of odd ids. A
// search with many hits counts its window half by half, at once, on two
// connections in one snapshot (textWindow). A window reads its hits' index
// entries and then their rows, all on one core: about 15 ms for the 7,000
// hits of a two-word query of 1M datasets, and 8.5 ms for each half at
// once. PostgreSQL's own parallel workers over such halves took longer to
// start than the halves took to run. A rebuild builds the halves at once
// too: 12.1 and 12.6 s for 100,000 datasets, where the whole index took
// 17.9 s.
//
// Every other full-text condition names both halves (tsMatch), which the
// planner reads as the union of the two indexes' hits.

// tsHalf is the condition that a document of half k (0 or 1) matches the
// tsquery of its one argument; its half's index serves it.
func tsHalf(k int) string {
	return "(d.id & 1) = " + strconv.Itoa(k) + " AND d.tsv @@ ?::tsquery"
}

// tsMatch is the condition that a document matches the tsquery query,
// through both halves of the index.
func tsMatch(query string) where {
	return where{conds: []string{"(" + tsHalf(0) + " OR " + tsHalf(1) + ")"}, args: []any{query, query}}
}

// splitHits is the estimated hits from which textWindow counts a window in
// halves. Below it the halves save less than the snapshot and the second
// connection's round trips cost: the two-word queries of 100,000 datasets
// (about 700 hits each) measured no faster in halves.
const splitHits = 1000

// textWindow is window for the hits of a text search on PostgreSQL: the
// documents matching the tsquery query that meet conds, of which there are
// about est (see wordStats.hits). A query expected to have fewer than
// splitHits hits is counted in one statement. Any other is counted half by
// half, up to maxTotal/2 hits each, the halves at once when a connection
// beside is free (DB.beside). When one half is full and the other is not,
// the full one is read on, after its first maxTotal/2, up to maxTotal hits
// in all: the hits counted are then the first the halves' indexes yield,
// as many as one index yields. It does not list hits by URN (ask.byURN),
// which no text search asks.
//
// meanwhile is a statement of the caller's to run on x, which textWindow
// runs whenever it returns no error: after its own half, while the second
// half may still be running beside, which starts a few round trips later
// and so ends later (the exact matches' look-up took 0.2 ms of that wait
// at 1M).
func (s *Search) textWindow(ctx context.Context, x querier, est float64, query string, conds where, ask windowAsk, counts map[uint32]int, meanwhile func() error) (windowGot, error) {
	const from = "search_doc d"
	if est < s.splitHits {
		got, err := s.window(ctx, x, from, tsMatch(query).and(conds), ask, counts)
		if err == nil {
			err = meanwhile()
		}
		return got, err
	}
	half := func(k int) where {
		return where{conds: []string{tsHalf(k)}, args: []any{query}}.and(conds)
	}
	const first = maxTotal / 2
	var got [2]windowGot
	var runs [2][]byte
	var errs [2]error
	wait := s.db.beside(ctx, x, pgSearchSettings, func(y querier) error {
		var err error
		got[1], runs[1], err = s.windowPart(ctx, y, from, half(1), ask, first, 0)
		return err
	})
	if s.traceSplit != nil {
		s.traceSplit(wait != nil)
	}
	got[0], runs[0], errs[0] = s.windowPart(ctx, x, from, half(0), ask, first, 0)
	if errs[0] == nil {
		errs[0] = meanwhile()
	}
	if wait != nil {
		errs[1] = wait()
	} else if errs[0] == nil {
		got[1], runs[1], errs[1] = s.windowPart(ctx, x, from, half(1), ask, first, 0)
	}
	if err := errors.Join(errs[:]...); err != nil {
		return windowGot{}, err
	}
	parts := got[:]
	for k := range got {
		countFIDs(runs[k], counts)
		if other := got[1-k].total; got[k].total == first && other < first {
			more, run, err := s.windowPart(ctx, x, from, half(k), ask, maxTotal-first-other, first)
			if err != nil {
				return windowGot{}, err
			}
			countFIDs(run, counts)
			parts = append(parts, more)
		}
	}
	return joinWindows(parts, ask), nil
}

// joinWindows is the window of the hits of parts.
func joinWindows(parts []windowGot, ask windowAsk) windowGot {
	var out windowGot
	for _, p := range parts {
		out.total += p.total
	}
	if ask.all > 0 && out.total <= ask.all {
		// Every part then holds at most ask.all hits, and listed them.
		out.all = []int64{}
		for _, p := range parts {
			out.all = append(out.all, p.all...)
		}
	}
	if ask.entities {
		out.entities = map[string]int{}
		for _, p := range parts {
			for e, n := range p.entities {
				out.entities[e] += n
			}
		}
	}
	return out
}
