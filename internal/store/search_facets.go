package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Facet values are counted by number: search_value numbers every (field,
// value) pair of a filter field ever indexed, and search_doc.fids holds a
// document's numbers as a run of unsigned varints. A search reads these few
// bytes per hit (on PostgreSQL the hits' runs arrive concatenated in one
// value) instead of each hit's keyword rows or a text of pairs, which kept
// the rows a search visits narrow and made counting a table increment.
//
// A number never changes or goes away once committed, so the engine keeps
// those it has seen; numbers resolved inside a write transaction are shared
// only after it committed (a rolled-back number may be reused on SQLite).

// facetKey is the key of a pair in the dictionary: field names hold no
// facetSep, so the first one splits it.
func facetKey(field, value string) string { return field + facetSep + value }

const facetSep = "\x1f"

// facetDict caches the dictionary both ways.
type facetDict struct {
	mu    sync.RWMutex
	ids   map[string]uint32
	pairs map[uint32]string // facetKey
}

func newFacetDict() *facetDict {
	return &facetDict{ids: map[string]uint32{}, pairs: map[uint32]string{}}
}

func (d *facetDict) add(key string, id uint32) {
	d.mu.Lock()
	d.ids[key] = id
	d.pairs[id] = key
	d.mu.Unlock()
}

// facetIDs returns the numbers of keys, adding those the dictionary lacks,
// inside the write transaction x. Numbers are cached per transaction in
// local (nil: none, as in a migration) and shared after commit through
// onCommit (nil: never).
func (s *Search) facetIDs(ctx context.Context, x querier, keys []string, local map[string]uint32, onCommit func(func())) (map[string]uint32, error) {
	out := make(map[string]uint32, len(keys))
	var miss []string
	s.dict.mu.RLock()
	for _, k := range keys {
		if id, ok := s.dict.ids[k]; ok {
			out[k] = id
		} else if id, ok := local[k]; ok {
			out[k] = id
		} else if _, dup := out[k]; !dup {
			out[k] = 0
			miss = append(miss, k)
		}
	}
	s.dict.mu.RUnlock()
	if len(miss) == 0 {
		return out, nil
	}
	// In key order, so that two transactions adding the same new values
	// wait for each other instead of deadlocking (PostgreSQL).
	slices.Sort(miss)
	fields, values := make([]string, len(miss)), make([]string, len(miss))
	for i, k := range miss {
		fields[i], values[i], _ = strings.Cut(k, facetSep)
	}
	q := s.db.q
	var ins, sel string
	var args []any
	if q.pg {
		args = []any{fields, values}
		ins = `INSERT INTO search_value (field, value) SELECT f, v FROM unnest($1::text[], $2::text[]) AS u(f, v) ORDER BY f, v ON CONFLICT DO NOTHING`
		sel = `SELECT x.id, x.field, x.value FROM unnest($1::text[], $2::text[]) AS u(f, v) JOIN search_value x ON x.field = u.f AND x.value = u.v`
	} else {
		pairs := make([][2]string, len(miss))
		for i := range miss {
			pairs[i] = [2]string{fields[i], values[i]}
		}
		b, err := json.Marshal(pairs)
		if err != nil {
			return nil, err
		}
		args = []any{string(b)}
		ins = `INSERT INTO search_value (field, value) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`
		sel = `SELECT x.id, x.field, x.value FROM json_each(?) AS u JOIN search_value x ON x.field = json_extract(u.value, '$[0]') AND x.value = json_extract(u.value, '$[1]')`
	}
	if _, err := x.ExecContext(ctx, ins, args...); err != nil {
		return nil, fmt.Errorf("add search facet values: %w", err)
	}
	rows, err := x.QueryContext(ctx, sel, args...)
	if err != nil {
		return nil, fmt.Errorf("read search facet values: %w", err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var id int64
		var f, v string
		if err := rows.Scan(&id, &f, &v); err != nil {
			return nil, err
		}
		k := facetKey(f, v)
		out[k] = uint32(id)
		found = append(found, k)
		if local != nil {
			local[k] = uint32(id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(found) != len(miss) {
		return nil, fmt.Errorf("search facet values: %d of %d numbered", len(found), len(miss))
	}
	if onCommit != nil {
		onCommit(func() {
			for _, k := range found {
				s.dict.add(k, out[k])
			}
		})
	}
	return out, nil
}

// resolveFacets sets the fids of rows, numbering new values inside tx.
func (s *Search) resolveFacets(ctx context.Context, tx *Tx, rows []docRow) error {
	var keys []string
	for i := range rows {
		keys = append(keys, rows[i].facets...)
	}
	if len(keys) == 0 {
		for i := range rows {
			rows[i].fids = []byte{}
		}
		return nil
	}
	if tx.facetIDs == nil {
		tx.facetIDs = map[string]uint32{}
	}
	ids, err := s.facetIDs(ctx, tx.q, keys, tx.facetIDs, func(f func()) { tx.onCommit = append(tx.onCommit, f) })
	if err != nil {
		return err
	}
	for i := range rows {
		rows[i].fids = encodeFIDs(rows[i].facets, ids)
	}
	return nil
}

// encodeFIDs is the fids column of a document's facet keys.
func encodeFIDs(keys []string, ids map[string]uint32) []byte {
	nums := make([]uint32, len(keys))
	for i, k := range keys {
		nums[i] = ids[k]
	}
	slices.Sort(nums)
	b := make([]byte, 0, 3*len(nums))
	for _, n := range nums {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}

// countFIDs adds the numbers of a run of fids columns to counts. The
// numbers are small (one per filter value ever indexed) and a run repeats
// few of them many times: they are counted in a slice, and the map updated
// once per number. A map update per value was a millisecond of a search
// counting the facets of 10,000 hits.
func countFIDs(run []byte, counts map[uint32]int) {
	var dense []int32
	for len(run) > 0 {
		n, w := binary.Uvarint(run)
		if w <= 0 {
			break
		}
		run = run[w:]
		if n >= maxDenseFID {
			counts[uint32(n)]++
			continue
		}
		if int(n) >= len(dense) {
			dense = append(dense, make([]int32, max(int(n)+1, 2*len(dense), 256)-len(dense))...)
		}
		dense[n]++
	}
	for n, c := range dense {
		if c > 0 {
			counts[uint32(n)] += int(c)
		}
	}
}

// maxDenseFID bounds the numbers countFIDs counts in a slice.
const maxDenseFID = 1 << 16

// facetCounts turns counts by number into counts by field and value, for
// the fields asked; numbers not cached yet are read in x.
func (s *Search) facetCounts(ctx context.Context, x querier, counts map[uint32]int, fields []string, out map[string]map[string]int) error {
	want := map[string]bool{}
	for _, f := range fields {
		want[f] = true
		out[f] = map[string]int{}
	}
	var miss []int64
	s.dict.mu.RLock()
	for id := range counts {
		if _, ok := s.dict.pairs[id]; !ok {
			miss = append(miss, int64(id))
		}
	}
	s.dict.mu.RUnlock()
	if len(miss) > 0 {
		// A snapshot holds committed values only: they can be cached.
		arg, cond := idList(s.db.q, miss, "id")
		rows, err := x.QueryContext(ctx, s.db.q.rebind("SELECT id, field, value FROM search_value WHERE "+cond), arg)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var f, v string
			if err := rows.Scan(&id, &f, &v); err != nil {
				rows.Close()
				return err
			}
			s.dict.add(facetKey(f, v), uint32(id))
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	s.dict.mu.RLock()
	defer s.dict.mu.RUnlock()
	for id, n := range counts {
		key, ok := s.dict.pairs[id]
		if !ok {
			continue
		}
		f, v, _ := strings.Cut(key, facetSep)
		if want[f] {
			out[f][v] = n
		}
	}
	return nil
}
