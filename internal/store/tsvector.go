package store

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5/pgtype"
)

// The tsvector of a document's words on PostgreSQL holds each distinct
// word once, so that a query word is one index entry to read (a query
// written as one alternative per bucket read five entries and ran the
// index's match logic on each, three to five times slower at a million
// documents). Its positions say which boost buckets hold it, one per
// bucket: position b+1, weighted D for bucket 4 and A to C for the others. The words of buckets 0 to 3 are also stored tagged ("!orders"
// in bucket 0, "#orders" in bucket 1, "$" and "%" for 2 and 3), which lets
// the index alone find the hits with a query word in a bucket up to j (a
// ranking tier); no tag can start one of the analyzer's words. Ranking
// scores a hit from its tsvector, as SQLite reads its text table's
// columns: the tagged words for buckets 0 to 3, weight D for bucket 4
// (where the bulk of the words, column descriptions, goes untagged).
//
// The words are the analyzer's (search.Tokenizer); positions within a
// value are not kept (nothing reads them), and they made every tsvector
// larger than the row it belonged to. TestTSVectorMatchesPostgreSQL checks
// the encoding against PostgreSQL's own.
var (
	bucketTags = [4]byte{'!', '#', '$', '%'} // buckets 0 to 3
	bucketMark = []pgtype.TSVectorPosition{
		{Position: 1, Weight: pgtype.TSVectorWeightA},
		{Position: 2, Weight: pgtype.TSVectorWeightA},
		{Position: 3, Weight: pgtype.TSVectorWeightB},
		{Position: 4, Weight: pgtype.TSVectorWeightC},
		{Position: 5, Weight: pgtype.TSVectorWeightD},
	}
)

// tsWords builds a document's search tsvector from the analyzer's words,
// space-separated, one text per boost bucket.
func tsWords(texts []string) pgtype.TSVector {
	type wordBucket struct {
		word   string
		bucket int
	}
	var all []wordBucket
	size := 0
	for b, text := range texts {
		for len(text) > 0 {
			var word string
			word, text, _ = strings.Cut(text, " ")
			if word == "" {
				continue
			}
			all = append(all, wordBucket{word, b})
			if b < len(bucketTags) {
				size += len(word) + 1
			}
		}
	}
	slices.SortFunc(all, func(a, b wordBucket) int {
		if c := strings.Compare(a.word, b.word); c != 0 {
			return c
		}
		return a.bucket - b.bucket
	})
	// The tagged words live in one arena, which must not grow once strings
	// point into it: a restore builds a hundred thousand tsvectors, and a
	// string per lexeme was a quarter of the time it took.
	arena := make([]byte, 0, size)
	var tagged [len(bucketTags)][]pgtype.TSVectorLexeme
	words := make([]pgtype.TSVectorLexeme, 0, len(all))
	for i := 0; i < len(all); {
		w := all[i].word
		l := pgtype.TSVectorLexeme{Word: w}
		for ; i < len(all) && all[i].word == w; i++ {
			b := all[i].bucket
			if n := len(l.Positions); n > 0 && int(l.Positions[n-1].Position) == b+1 {
				continue // the word twice in a bucket's text
			}
			l.Positions = append(l.Positions, bucketMark[b])
			if b < len(bucketTags) {
				from := len(arena)
				arena = append(append(arena, bucketTags[b]), w...)
				tagged[b] = append(tagged[b], pgtype.TSVectorLexeme{Word: unsafe.String(&arena[from], len(arena)-from)})
			}
		}
		words = append(words, l)
	}
	// PostgreSQL stores lexemes in byte order, shorter first on a common
	// prefix (Go's string order): the tags sort in bucket order, before
	// any word.
	var lex []pgtype.TSVectorLexeme
	for _, t := range tagged {
		lex = append(lex, t...)
	}
	return pgtype.TSVector{Lexemes: append(lex, words...), Valid: true}
}

// tsVector builds a tsvector of distinct words without positions from the
// analyzer's words, space-separated (the autocomplete words).
func tsVector(text string) pgtype.TSVector {
	var lex []pgtype.TSVectorLexeme
	for len(text) > 0 {
		var word string
		word, text, _ = strings.Cut(text, " ")
		if word != "" {
			lex = append(lex, pgtype.TSVectorLexeme{Word: word})
		}
	}
	slices.SortFunc(lex, compareLexemes)
	lex = slices.CompactFunc(lex, func(a, b pgtype.TSVectorLexeme) bool { return a.Word == b.Word })
	return pgtype.TSVector{Lexemes: lex, Valid: true}
}

// compareLexemes orders lexemes as PostgreSQL stores them: by bytes,
// shorter first on a common prefix, which is Go's string order.
func compareLexemes(a, b pgtype.TSVectorLexeme) int { return strings.Compare(a.Word, b.Word) }

// tsLexeme is a token as a tsquery operand, quoted and escaped; prefix
// makes it match every lexeme starting with it, and weights restricts it
// to positions of those weights.
func tsLexeme(t string, prefix bool, weights string) string {
	// A quoted lexeme is taken as it is; quotes and backslashes in it are
	// escaped (the analyzer emits neither, but the query text is the
	// user's), and a token cut to the maximum length may end in part of a
	// character.
	t = strings.ReplaceAll(strings.ReplaceAll(strings.ToValidUTF8(t, ""), `\`, `\\`), `'`, `''`)
	s := "'" + t + "'"
	if prefix || weights != "" {
		s += ":"
	}
	if prefix {
		s += "*"
	}
	return s + weights
}

// tsQuery is the tsquery matching documents that hold every token, the last
// as a prefix (to_tsquery's "word:*"), without parsing the tokens again.
// tokens must not be empty.
func tsQuery(tokens []string) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		// Whole words, but for the last, a prefix (see search.QueryTokens).
		parts[i] = tsLexeme(t, i == len(tokens)-1, "")
	}
	return strings.Join(parts, " & ")
}

// tsTier is the tsquery of the documents holding some token in one of the
// buckets up to and including last (at most 3), which the index answers
// through the tagged words: the candidates of a ranking tier.
func tsTier(tokens []string, last int) string {
	var alts []string
	for i, t := range tokens {
		for b := 0; b <= last; b++ {
			alts = append(alts, tsLexeme(string(bucketTags[b])+t, i == len(tokens)-1, ""))
		}
	}
	return "(" + strings.Join(alts, " | ") + ")"
}

// tsBucketTests lists, token by token and bucket by bucket, the tsquery
// testing whether a document's tsvector holds the token in the bucket:
// what a document's score is summed from (see scoreOf).
func tsBucketTests(tokens []string) []string {
	out := make([]string, 0, len(tokens)*len(bucketMark))
	for i, t := range tokens {
		prefix := i == len(tokens)-1
		for b := range bucketMark {
			if b < len(bucketTags) {
				out = append(out, tsLexeme(string(bucketTags[b])+t, prefix, ""))
			} else {
				out = append(out, tsLexeme(t, prefix, "D"))
			}
		}
	}
	return out
}
