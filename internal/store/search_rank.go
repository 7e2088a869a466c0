package store

import (
	"context"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/jackc/pgx/v5"
)

// rankCandidates is how many hits of one ranking tier PostgreSQL scores
// (more when the page ends deeper). Scoring a hit reads its tsvector, some
// kilobytes stored outside its row.
const rankCandidates = 128

// rankTiers ranks the page of a text search on PostgreSQL, where the index
// tells whether a document matches but not how well: a hit's score (the
// weights of the buckets holding each query word, as catalogd_rank sums
// them on SQLite) needs its tsvector. Instead of scoring every hit it
// scores the hits that can make the page, tier by tier: tier j holds the
// hits with a query word in one of the buckets 0 to j, which the index
// finds through the bucket-tagged words, and a hit outside it scores at
// most the words' count times the weights of the buckets after j. Once
// the page's last hit in the tiers so far scores more than that, no other
// hit can take its place. Exact name matches are scored apart and rank
// first.
//
// A typical query finds its page in tier 0 (a word in a name), a handful
// of documents. A tier of more than rankCandidates hits (a word in every
// name) is cut to the hits with the smallest URNs, the order ties take:
// the page is then exact when those hits tie, as such broad words make
// them, and approximate otherwise.
func (s *Search) rankTiers(ctx context.Context, x querier, q catalog.SearchQuery, tokens []string, conds where, total int) ([]int64, error) {
	if q.Count == 0 || q.Start >= total {
		return nil, nil
	}
	k := min(q.Start+q.Count, maxTotal)
	limit := max(rankCandidates, k)
	buckets := len(bucketWeight)
	match := tsQuery(tokens, buckets)
	tests := tsBucketTests(tokens, buckets)
	exact, err := s.exactDocs(ctx, x, q.Text)
	if err != nil {
		return nil, err
	}
	cands := map[int64]ranked{}
	// fetch scores the documents matching the tsquery text that meet cond,
	// in URN order, at most n of them, and reports how many it read. One
	// tsquery, not two conditions: the index then reads the rare words'
	// entries first and skips through the others'.
	fetch := func(n int, text string, cond string, condArgs ...any) (int, error) {
		var b strings.Builder
		b.WriteString("SELECT d.id, d.urn, concat(")
		for i := range tests {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(s.v @@ ?::tsquery)::int")
		}
		// strip() reads the tsvector once for all the tests.
		b.WriteString(") FROM search_doc d CROSS JOIN LATERAL (SELECT strip(d.tsv) AS v OFFSET 0) s WHERE d.tsv @@ ?::tsquery AND ")
		b.WriteString(cond)
		b.WriteString(" AND ")
		b.WriteString(conds.sql())
		b.WriteString(" ORDER BY d.urn LIMIT ?")
		// The simple protocol: the statement's text varies with the
		// number of words, and is planned for the words at hand.
		args := []any{pgx.QueryExecModeSimpleProtocol}
		for _, t := range tests {
			args = append(args, t)
		}
		args = append(append(args, text), condArgs...)
		args = append(args, conds.args...)
		args = append(args, int64(n))
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
			h.score = s.scoreOf(bits, buckets)
			h.exact = exact[h.id]
			cands[h.id] = h
		}
		return read, rows.Err()
	}
	if len(exact) > 0 {
		ids := make([]int64, 0, len(exact))
		for id := range exact {
			ids = append(ids, id)
		}
		if _, err := fetch(len(ids), match, "d.id = ANY(?::bigint[])", ids); err != nil {
			return nil, err
		}
	}
	if total < maxTotal && total <= limit {
		// Few hits: score them all.
		if _, err := fetch(limit, match, "TRUE"); err != nil {
			return nil, err
		}
	} else {
		// Tier 0 alone rarely settles a page: its hits score at least 10,
		// but a hit outside could score 4 a word from bucket 1.
		for j := 1; j < buckets; j++ {
			if !s.bucketUsed[j] && j < buckets-1 {
				continue // the same hits as the tier before
			}
			read, err := fetch(limit+1, match+" & "+tsTier(tokens, j), "TRUE")
			if err != nil {
				return nil, err
			}
			if read > limit || s.pageFound(cands, k, float64(len(tokens))*s.weightAfter(j)) {
				break
			}
		}
	}
	hits := make([]ranked, 0, len(cands))
	for _, h := range cands {
		hits = append(hits, h)
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].before(hits[j]) })
	var page []int64
	for i := q.Start; i < min(k, len(hits)); i++ {
		page = append(page, hits[i].id)
	}
	return page, nil
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
