package store

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// A search counts at most maxTotal hits, and on PostgreSQL the full-text
// index hands over every hit of a word before the first row is read: for a
// word in each of 100,000 documents that list alone took 9–15 ms, most of
// a search's time, to count 10,000 of them. So documents also carry sample
// words: a document written as the n-th by a process holds "~1" to "~L",
// where L is the number of trailing zero bits of n/sampleBlock, so that
// "~L" is in one document of 2^L, in runs of sampleBlock documents written
// one after the other (which lie on neighbouring pages of the table). A
// query whose words are common enough is first counted over one sample
// (its words and "~L"): the index then walks the sample's list and skips
// through the words', a few times shorter, and the reading of the hits'
// rows stays as local as the sample's runs. When the sample holds
// maxTotal hits, they are the ones counted (a search reports no more);
// when it holds fewer, the query is counted whole, as it was.
//
// A sample word is a guess about where hits lie, never about which
// documents match: matching, ranking and the count of a query with fewer
// than maxTotal hits are the same with and without samples. Documents
// written before samples existed hold none, and a sample then simply falls
// short until a rebuild (restore-indices) writes them again.
const (
	sampleTag      = "~" // no analyzer word starts with it (see bucketTags)
	sampleBlock    = 1024
	maxSampleLevel = 20
)

// sampleWordsOf returns how many sample words ("~1" to "~L") the n-th
// document a process writes holds.
func sampleWordsOf(n uint64) int {
	return min(bits.TrailingZeros64(n/sampleBlock), maxSampleLevel)
}

// sampleWord is the word of sample level l.
func sampleWord(l int) string { return sampleTag + strconv.Itoa(l) }

// sampleCounter numbers the documents a process writes. It starts from a
// random number (see start), so that restarted or concurrent processes do
// not all put their first documents in every sample.
type sampleCounter struct{ n atomic.Uint64 }

// start sets the counter to a random number.
func (c *sampleCounter) start() { c.n.Store(rand.Uint64()) }

// next returns how many sample words the next document holds.
func (c *sampleCounter) next() int { return sampleWordsOf(c.n.Add(1)) }

// withSampleWords adds the first l sample words to sorted lexemes, in
// PostgreSQL's order: they all start with sampleTag, which sorts after
// every ASCII word and before the others. It reuses lex's capacity.
func withSampleWords(lex []pgtype.TSVectorLexeme, l int) []pgtype.TSVectorLexeme {
	if l == 0 {
		return lex
	}
	words := make([]pgtype.TSVectorLexeme, l)
	for i := range words {
		words[i].Word = sampleWord(i + 1)
	}
	sort.Slice(words, func(i, j int) bool { return words[i].Word < words[j].Word })
	at := sort.Search(len(lex), func(i int) bool { return lex[i].Word >= sampleTag })
	return slices.Insert(lex, at, words...)
}

// wordStats is what PostgreSQL's statistics say of the documents: their
// number and the share of them holding each of the most common words.
type wordStats struct {
	docs   float64
	share  map[string]float64
	loaded time.Time
}

// statsAge is how long word statistics are used before being read again;
// autovacuum refreshes PostgreSQL's own far less often.
const statsAge = time.Minute

// loadWordStats reads the statistics ANALYZE keeps of the tsvector
// column: its most common lexemes (about a thousand) and their shares.
func loadWordStats(ctx context.Context, x querier) (*wordStats, error) {
	rows, err := x.QueryContext(ctx, `SELECT greatest(c.reltuples, 0)::float8, u.e, u.f::float8
FROM pg_class c LEFT JOIN LATERAL (
  SELECT u.e, u.f FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(e, f)
  WHERE s.schemaname = current_schema() AND s.tablename = 'search_doc' AND s.attname = 'tsv' AND u.e IS NOT NULL
) u ON true
WHERE c.oid = 'search_doc'::regclass`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	st := &wordStats{share: map[string]float64{}, loaded: time.Now()}
	for rows.Next() {
		var e *string
		var f *float64
		if err := rows.Scan(&st.docs, &e, &f); err != nil {
			return nil, err
		}
		if e != nil && f != nil {
			st.share[*e] = *f
		}
	}
	return st, rows.Err()
}

// sampleLevel returns the sample level to count a query of tokens over
// first, or 0 for none: the smallest sample expected to hold sampleMargin
// times maxTotal hits, by the shares of its words (taken as independent),
// when there is one; a word PostgreSQL does not list as common rules the
// query out. The last token is taken as a whole word: its exact hits are
// among the prefix's.
func (s *Search) sampleLevel(ctx context.Context, x querier, tokens []string) (int, error) {
	st := s.stats.Load()
	if st == nil || time.Since(st.loaded) > statsAge {
		var err error
		if st, err = loadWordStats(ctx, x); err != nil {
			return 0, err
		}
		s.stats.Store(st)
	}
	hits := st.docs
	for _, t := range tokens {
		hits *= st.share[t]
	}
	if hits < 2*s.sampleHits {
		return 0, nil
	}
	return min(int(math.Log2(hits/s.sampleHits)), maxSampleLevel), nil
}

// sampledWindow counts a query of tokens over a sample (see sampleLevel)
// and reports whether the sample held maxTotal hits; only then are its
// counts added to counts and its window returned.
func (s *Search) sampledWindow(ctx context.Context, x querier, from string, tokens []string, conds where, ask windowAsk, counts map[uint32]int) (windowGot, bool, error) {
	level, err := s.sampleLevel(ctx, x, tokens)
	if err != nil || level == 0 {
		return windowGot{}, false, err
	}
	exact := make([]string, len(tokens))
	for i, t := range tokens {
		exact[i] = tsLexeme(t, false, "")
	}
	w := where{
		conds: append([]string{"d.tsv @@ ?::tsquery"}, conds.conds...),
		args:  append([]any{strings.Join(append(exact, tsLexeme(sampleWord(level), false, "")), " & ")}, conds.args...),
	}
	own := map[uint32]int{}
	got, err := s.window(ctx, x, from, w, ask, own)
	if err != nil {
		return windowGot{}, false, err
	}
	if s.traceSample != nil {
		s.traceSample(level, !got.complete())
	}
	if got.complete() {
		return windowGot{}, false, nil
	}
	for k, n := range own {
		counts[k] += n
	}
	return got, true, nil
}
