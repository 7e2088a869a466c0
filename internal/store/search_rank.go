package store

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/jackc/pgx/v5"
)

// rankCandidates is how many hits of one ranking tier PostgreSQL scores
// (more when the page ends deeper). Scoring a hit reads its tsvector, some
// kilobytes stored outside its row.
const rankCandidates = 128

// rankTiers counts the hits of a text search on PostgreSQL (window; a
// query of common words over a sample first, see sampledWindow) and ranks
// its page. The index tells whether a document matches but not how
// well: a hit's score (the weights of the buckets holding each query word,
// as catalogd_rank sums them on SQLite) needs its tsvector. Instead of
// scoring every hit it scores the hits that can make the page, tier by
// tier: tier j holds the hits with a query word in one of the buckets 0 to
// j, which the index finds through the bucket-tagged words, and a hit
// outside it scores at most the words' count times the weights of the
// buckets after j. Once the page's last hit in the tiers so far scores
// more than that, no other hit can take its place. Exact name matches are
// scored apart and rank first.
//
// A typical query finds its page in tier 1 (a word in a name), a few
// hundred documents at most, scored in one statement. A tier of more than
// rankCandidates hits (a word in every name) is cut to the hits with the
// smallest URNs, the order ties take: the page is then exact when those
// hits tie, as such broad words make them, and approximate otherwise.
func (s *Search) rankTiers(ctx context.Context, x querier, q catalog.SearchQuery, tokens []string, prefix bool, conds where, facets bool, counts map[uint32]int, res *catalog.SearchResult) ([]int64, error) {
	k := min(q.Start+q.Count, maxTotal)
	limit := max(s.candidates, k)
	buckets := len(bucketWeight)
	first := 1 // tier 0 alone rarely settles a page: a hit outside it can score 4 a word from bucket 1
	ask := windowAsk{facets: facets, entities: q.EntityCounts}
	if q.Count > 0 {
		// The hits' ids, when few enough to score them all; with the last
		// word a prefix, when the window holds them all (see inTier).
		ask.all = limit
		if prefix {
			ask.all = maxTotal - 1
		}
	}
	match := tsQuery(tokens, prefix)
	// The documents whose name is the query come first (exactDocs), looked
	// up while a window's second half runs (textWindow): once, though a
	// sample that falls short is followed by the whole window.
	var exact map[int64]bool
	findExact := func() (err error) {
		if exact == nil {
			exact, err = s.exactDocs(ctx, x, q.Text)
		}
		return err
	}
	got, sampled, err := s.sampledWindow(ctx, x, tokens, conds, ask, counts, findExact)
	if err == nil && !sampled {
		var st *wordStats
		if st, err = s.wordStats(ctx, x); err == nil {
			got, err = s.textWindow(ctx, x, st.hits(tokens), match, conds, ask, counts, findExact)
		}
	}
	if err != nil {
		return nil, err
	}
	res.Total = got.total
	if got.complete() {
		res.EntityCounts = got.entities
	}
	if q.Count == 0 || q.Start >= got.total {
		return nil, nil
	}
	// inTier is the condition of the hits of tier j: a tsquery and a
	// condition on the document. A token tagged with a bucket is in the
	// document, so the tier of a one-word query needs no other condition.
	// A multi-word query's tier also holds its other words: the index reads
	// the tier's few entries and skips through the words' many. But GIN
	// gathers a prefix's entries whole first (85,000 for a word in 8% of
	// 1M datasets): when the last word is a prefix and the window listed
	// every hit, their ids stand for the query's words instead. The id is
	// tested as an expression, which its index cannot serve: the tier's
	// index entries are the few to read.
	inTier := func(j int) (string, string, []any) {
		switch {
		case len(tokens) == 1:
			return tsTier(tokens, j, prefix), "TRUE", nil
		case got.all != nil:
			return tsTier(tokens, j, prefix), "(d.id + 0) = ANY(?::bigint[])", []any{got.all}
		}
		return match + " & " + tsTier(tokens, j, prefix), "TRUE", nil
	}
	tests := append([]string{match}, tsBucketTests(tokens, prefix)...)
	cands := map[int64]ranked{}
	// score scores the hits that meet cond (scoreHits).
	score := func(n int, text string, cond string, condArgs ...any) (int, error) {
		return s.scoreHits(ctx, x, tests, exact, cands, "search_doc", n, text, cond, conds, condArgs...)
	}
	// walk scores the first n hits of a tier of a broad query (the window
	// met walkFrom hits, maxTotal but in tests) found by walking the
	// documents in URN order and testing each, as long as the first
	// walkPerHit*n documents hold them: they are then the tier's first n
	// hits. Through the index, every hit of a tier holding most documents
	// (a word in every name) was read and sorted for the first n. The
	// walk's first walkProbe-th goes first: a tier far too small for the
	// whole walk to find n hits (a common word's in some names only) is
	// then read through the index after a few hundred documents rather
	// than after the walk, which tests each document's tsvector: 22-29 ms
	// of a 1M-dataset search, then the index's 6-8 ms.
	walk := func(n int, text, cond string, condArgs ...any) (int, error) {
		if got.total < s.walkFrom {
			return score(n, text, cond, condArgs...)
		}
		for _, docs := range []int{walkPerHit * n / walkProbe, walkPerHit * n} {
			from := "(SELECT * FROM search_doc ORDER BY urn LIMIT " + strconv.Itoa(docs) + ")"
			read, err := s.scoreHits(ctx, x, tests, exact, cands, from, n, text, cond, conds, condArgs...)
			if err != nil || read == n {
				return read, err
			}
			if docs < walkPerHit*n && read*walkProbe*2 < n {
				// The whole walk would find less than half of n.
				if s.traceWalk != nil {
					s.traceWalk()
				}
				break
			}
		}
		return score(n, text, cond, condArgs...)
	}
	byID := func(ids []int64) error {
		if len(ids) == 0 {
			return nil
		}
		_, err := score(len(ids), "", "d.id = ANY(?::bigint[])", ids)
		return err
	}
	ids := make([]int64, 0, len(exact))
	for id := range exact {
		ids = append(ids, id)
	}
	if got.all != nil && len(got.all) <= limit {
		// Few hits: score them all.
		if err := byID(append(ids, got.all...)); err != nil {
			return nil, err
		}
		s.trace(-1, false)
		return s.pageOf(cands, q.Start, k), nil
	}
	if err := byID(ids); err != nil {
		return nil, err
	}
	if got.complete() {
		// A typical query's first tier is a few hundred documents at
		// most, scored in one statement (the first limit+1 in URN order:
		// a broad one's is cut, as below). Listing it first and scoring
		// the listed ids took one more pass through the index when it held
		// more than limit: 1.5 ms of a search of 1M datasets.
		text, cond, condArgs := inTier(first)
		read, err := score(limit+1, text, cond, condArgs...)
		if err != nil {
			return nil, err
		}
		if read > limit || s.pageFound(cands, k, float64(len(tokens))*s.weightAfter(first)) {
			s.trace(first, read > limit)
			return s.pageOf(cands, q.Start, k), nil
		}
		first++
	}
	for j := first; j < buckets; j++ {
		if !s.bucketUsed[j] && j < buckets-1 {
			continue // the same hits as the tier before
		}
		text, cond, condArgs := match, "TRUE", []any(nil) // the last tier: every hit
		if j < len(bucketTags) {
			text, cond, condArgs = inTier(j)
		}
		var hits []int64
		if j < len(bucketTags) && s.fewInTier(tokens, j) {
			if hits, err = s.fewHits(ctx, x, text, cond, condArgs, conds, limit); err != nil {
				return nil, err
			}
		}
		read := len(hits)
		if hits != nil {
			if s.traceFew != nil {
				s.traceFew(j)
			}
			err = byID(hits)
		} else {
			read, err = walk(limit+1, text, cond, condArgs...)
		}
		if err != nil {
			return nil, err
		}
		if read > limit || j == buckets-1 || s.pageFound(cands, k, float64(len(tokens))*s.weightAfter(j)) {
			s.trace(j, read > limit)
			break
		}
	}
	return s.pageOf(cands, q.Start, k), nil
}

// fewHits returns the ids of the documents matching the tsquery text, cond
// and conds when there are at most limit of them, and nil otherwise. The
// window does not test its hits for the tier instead: a document's tsvector
// is often stored outside its row, and reading it for each of thousands of
// hits cost more than this statement, which reads limit+1 rows at most.
func (s *Search) fewHits(ctx context.Context, x querier, text, cond string, condArgs []any, conds where, limit int) ([]int64, error) {
	m := tsMatch(text)
	args := append(append(append(m.args, condArgs...), conds.args...), int64(limit+1))
	ids, err := queryIDs(ctx, x, s.db.q.rebind("SELECT d.id FROM search_doc d WHERE "+m.sql()+" AND "+cond+" AND "+conds.sql()+" LIMIT ?"), args...)
	if err != nil || len(ids) > limit {
		return nil, err
	}
	return ids, nil
}

// trace reports to tests which tier settled a page (-1: every hit was
// scored) and whether it was cut.
func (s *Search) trace(tier int, cut bool) {
	if s.traceTier != nil {
		s.traceTier(tier, cut)
	}
}

// pageOf returns the ids of the candidates from start to k in rank order.
func (s *Search) pageOf(cands map[int64]ranked, start, k int) []int64 {
	hits := make([]ranked, 0, len(cands))
	for _, h := range cands {
		hits = append(hits, h)
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].before(hits[j]) })
	var page []int64
	for i := start; i < min(k, len(hits)); i++ {
		page = append(page, hits[i].id)
	}
	return page
}

// scoreOf is the score of a hit from its bucket tests (tsBucketTests), one
// digit per token and bucket: the sum, token by token, of the weights of
// the buckets holding it, added in the order catalogd_rank adds them on
// SQLite, so that both engines compute the same number.
func (s *Search) scoreOf(bits string, buckets int) float64 {
	score := 0.0
	for i := 0; i < len(bits); i++ {
		if bits[i] == '1' {
			score += s.weights[i%buckets]
		}
	}
	return score
}

// weightAfter is the sum of the weights of the buckets after j: what one
// word can add to the score of a hit outside tier j.
func (s *Search) weightAfter(j int) float64 {
	sum := 0.0
	for _, w := range s.weights[j+1:] {
		sum += w
	}
	return sum
}

// pageFound reports whether the k best candidates are the k best hits: the
// k-th is an exact match, or scores more than bound, the most a hit not
// among the candidates can score (with a margin for rounding: a hit
// scoring the bound itself could come first on its URN).
func (s *Search) pageFound(cands map[int64]ranked, k int, bound float64) bool {
	if len(cands) < k {
		return false
	}
	hits := make([]ranked, 0, len(cands))
	for _, h := range cands {
		hits = append(hits, h)
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].before(hits[j]) })
	kth := hits[k-1]
	return kth.exact || kth.score > bound+1e-9
}

// walkPerHit bounds the documents a walk in URN order reads for each hit
// it looks for, and walkProbe what part of them it reads first (see
// rankTiers).
const (
	walkPerHit = 16
	walkProbe  = 8
)

// scoreHits scores the documents of from (search_doc or a subquery of its
// rows) that meet cond and conds among those matching the tsquery text, in
// URN order, at most n of them, adds the hits among them to cands and
// reports how many it read. Its first test is the query itself, for
// documents found otherwise (exact matches).
func (s *Search) scoreHits(ctx context.Context, x querier, tests []string, exact map[int64]bool, cands map[int64]ranked, from string, n int, text, cond string, conds where, condArgs ...any) (int, error) {
	// The hits are chosen and cut to n in URN order first, and only
	// those n have their tsvector read: with the tests beside the
	// hits' selection, every hit of a broad tier (every document,
	// for a word in every name) had its tsvector read and
	// decompressed before the cut, half a second at 100,000. The
	// hits carry their tsvector's pointer through the cut, read only
	// after it: finding their rows again by id took 0.2–1.1 ms of a
	// tier's 1.3–3.5 (1M datasets).
	var b strings.Builder
	b.WriteString("SELECT h.id, h.urn, concat(")
	for i := range tests {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(s.v @@ ?::tsquery)::int")
	}
	// A copy (|| the empty tsvector) reads the tsvector once for all
	// the tests, weights kept.
	b.WriteString(") FROM (SELECT d.id, d.urn, d.tsv FROM " + from + " d WHERE ")
	args := []any{pgx.QueryExecModeSimpleProtocol}
	for _, t := range tests {
		args = append(args, t)
	}
	if text != "" {
		// One tsquery, not two conditions: the index then reads the
		// rare words' entries first and skips through the others'.
		m := tsMatch(text)
		b.WriteString(m.sql() + " AND ")
		args = append(args, m.args...)
	}
	b.WriteString(cond + " AND " + conds.sql() + " ORDER BY d.urn LIMIT ?) h CROSS JOIN LATERAL (SELECT h.tsv || ''::tsvector AS v OFFSET 0) s ORDER BY h.urn")
	args = append(append(append(args, condArgs...), conds.args...), int64(n))
	// The simple protocol: the statement's text varies with the
	// number of words, and is planned for the words at hand.
	rows, err := x.QueryContext(ctx, s.db.q.rebind(b.String()), args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	read := 0
	for rows.Next() {
		var h ranked
		var bits string
		if err := rows.Scan(&h.id, &h.urn, &bits); err != nil {
			return 0, err
		}
		read++
		if bits == "" || bits[0] != '1' {
			continue // not a hit
		}
		h.score = s.scoreOf(bits[1:], len(bucketWeight))
		h.exact = exact[h.id]
		cands[h.id] = h
	}
	return read, rows.Err()
}
