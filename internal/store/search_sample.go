package store

import (
	"context"
	"fmt"
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
// words: the n-th document a process prepares for writing holds "~1" to
// "~L", where L is the number of trailing zero bits of n/sampleBlock, so
// that "~L" is in one document of 2^L, in runs of sampleBlock documents
// written one after the other (which lie on neighbouring pages of the
// table). A
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
// document a process prepares holds.
func sampleWordsOf(n uint64) int {
	return min(bits.TrailingZeros64(n/sampleBlock), maxSampleLevel)
}

// sampleWord is the word of sample level l.
func sampleWord(l int) string { return sampleTag + strconv.Itoa(l) }

// sampleCounter numbers the documents a process prepares. It starts from a
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
	at := sort.Search(len(lex), func(i int) bool { return lex[i].Word >= sampleTag })
	return slices.Insert(lex, at, sampleLexemes[l]...)
}

// sampleLexemes[l] are the sample words "~1" to "~l", sorted.
var sampleLexemes = func() [][]pgtype.TSVectorLexeme {
	out := make([][]pgtype.TSVectorLexeme, maxSampleLevel+1)
	for l := range out {
		for i := 1; i <= l; i++ {
			out[l] = append(out[l], pgtype.TSVectorLexeme{Word: sampleWord(i)})
		}
		slices.SortFunc(out[l], compareLexemes)
	}
	return out
}()

// wordStats is what PostgreSQL's statistics say of the documents: their
// number and the share of them holding each of the most common words (and
// at most rest for any other word).
type wordStats struct {
	docs   float64
	share  map[string]float64
	rest   float64
	loaded time.Time
}

// of returns the share of documents holding word, at most.
func (st *wordStats) of(word string) float64 {
	if f, ok := st.share[word]; ok {
		return f
	}
	return st.rest
}

// hits returns how many documents hold every one of words, as the
// statistics estimate it: the words taken as independent, a word not
// listed as common at most the share of the least common listed.
func (st *wordStats) hits(words []string) float64 {
	n := st.docs
	for _, w := range words {
		n *= st.of(w)
	}
	return n
}

// statsAge is how long word statistics are used before being read again;
// autovacuum refreshes PostgreSQL's own far less often.
const statsAge = time.Minute

// loadWordStats reads the statistics ANALYZE keeps of the tsvector
// column: its most common lexemes (about a thousand) and their shares, in
// one row (unnested in SQL, the arrays took 10.7 ms to read, 0.7 ms so).
// The analyzer's words hold no control character.
func loadWordStats(ctx context.Context, x querier) (*wordStats, error) {
	var elems, freqs string
	// Without statistics, every word may be in every document.
	st := &wordStats{share: map[string]float64{}, rest: 1, loaded: time.Now()}
	err := x.QueryRowContext(ctx, `SELECT greatest(c.reltuples, 0)::float8,
  coalesce(array_to_string(s.most_common_elems::text::text[], chr(31)), ''),
  coalesce(array_to_string(s.most_common_elem_freqs, ' '), '')
FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'search_doc' AND s.attname = 'tsv'
WHERE c.oid = 'search_doc'::regclass`).Scan(&st.docs, &elems, &freqs)
	if err != nil || elems == "" {
		return st, err
	}
	words, shares := strings.Split(elems, "\x1f"), strings.Fields(freqs)
	// The frequencies follow the lexemes' with the smallest of them, which
	// bounds the share of the words not listed, the largest and the share
	// of null values.
	if len(shares) < len(words)+1 {
		return nil, fmt.Errorf("word statistics: %d frequencies for %d words", len(shares), len(words))
	}
	for i, f := range shares[:len(words)+1] {
		share, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("word statistics: frequency %q: %w", f, err)
		}
		if i == len(words) {
			st.rest = share
		} else {
			st.share[words[i]] = share
		}
	}
	return st, nil
}

// sampleLevel returns the sample level to count a query of tokens over
// first, or 0 for none: the smallest sample expected to hold sampleHits
// hits, by the shares of its words (taken as independent), when one of
// half the documents or less does; a word PostgreSQL does not list as
// common rules the query out. The last token is taken as a whole word: its
// exact hits are among the prefix's. The expected hits are a little above
// maxTotal: the sample's index entries cost less the smaller it is, and
// one that falls short costs its reading on top of the whole query's.
func (s *Search) sampleLevel(ctx context.Context, x querier, tokens []string) (int, error) {
	st, err := s.wordStats(ctx, x)
	if err != nil {
		return 0, err
	}
	hits := st.docs
	for _, t := range tokens {
		if _, ok := st.share[t]; !ok {
			return 0, nil
		}
		hits *= st.share[t]
	}
	if hits < 2*s.sampleHits {
		return 0, nil
	}
	return min(int(math.Log2(hits/s.sampleHits)), maxSampleLevel), nil
}

// wordStats returns PostgreSQL's statistics of the documents' words, read
// again once they are statsAge old.
func (s *Search) wordStats(ctx context.Context, x querier) (*wordStats, error) {
	st := s.stats.Load()
	if st != nil && time.Since(st.loaded) <= statsAge {
		return st, nil
	}
	st, err := loadWordStats(ctx, x)
	if err != nil {
		return nil, err
	}
	s.stats.Store(st)
	return st, nil
}

// fewInTier reports whether PostgreSQL's statistics bound the hits of
// ranking tier j (see tsTier) of a query of tokens to a few thousand, whose
// entries in the full-text index are then cheap to read: such a tier is
// listed through the index (fewHits) rather than looked for by walking the
// documents in URN order, which a broad query's tiers need but which, for
// a word in no name, read thousands of documents to find none. The last
// token is a prefix, estimated as the whole word.
func (s *Search) fewInTier(tokens []string, j int) bool {
	st := s.stats.Load()
	if st == nil || st.docs == 0 {
		return false // never analyzed: nothing is known
	}
	hits := 0.0
	for _, t := range tokens {
		for b := 0; b <= j; b++ {
			hits += st.docs * st.of(string(bucketTags[b])+t)
		}
	}
	return hits <= fewTierHits
}

// fewTierHits bounds the estimated hits of a tier fewInTier lists through
// the index. The index reads 3,000 entries in about 0.3 ms, and a walk
// took 1–2 ms (100,000 datasets); with PostgreSQL's default statistics
// target, a word it does not list is estimated in 0.9% of the documents.
const fewTierHits = 3000

// sampledWindow counts a query of tokens over a sample (see sampleLevel)
// and reports whether the sample held maxTotal hits; only then are its
// counts added to counts and its window returned. meanwhile is textWindow's.
func (s *Search) sampledWindow(ctx context.Context, x querier, tokens []string, conds where, ask windowAsk, counts map[uint32]int, meanwhile func() error) (windowGot, bool, error) {
	level, err := s.sampleLevel(ctx, x, tokens)
	if err != nil || level == 0 {
		return windowGot{}, false, err
	}
	exact := make([]string, len(tokens))
	for i, t := range tokens {
		exact[i] = tsLexeme(t, false, "")
	}
	sample := strings.Join(append(exact, tsLexeme(sampleWord(level), false, "")), " & ")
	own := map[uint32]int{}
	// The sample was chosen to hold about sampleHits.
	got, err := s.textWindow(ctx, x, s.sampleHits, sample, conds, ask, own, meanwhile)
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
