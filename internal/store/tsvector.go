package store

import (
	"math/bits"
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
// space-separated, one text per boost bucket, and samples sample words.
func tsWords(texts []string, samples int) pgtype.TSVector {
	buckets := map[string]uint8{}
	for b, text := range texts {
		for len(text) > 0 {
			var word string
			word, text, _ = strings.Cut(text, " ")
			if word != "" {
				buckets[word] |= 1 << b
			}
		}
	}
	return tsBuckets(buckets, samples)
}

// tsBuckets builds a document's search tsvector from its words, each with
// the set of boost buckets holding it (bit b for bucket b; higher bits are
// ignored), and samples sample words (see sampleWordsOf). Documents are
// written with this set at hand (see wordsOnce):
// sorting each distinct word once, rather than a (word, bucket) pair per
// bucket split again from the buckets' texts, took the tsvectors of a
// restore of 100,000 documents from 9.2 to 7.0 s of CPU.
func tsBuckets(buckets map[string]uint8, samples int) pgtype.TSVector {
	type wordSet struct {
		word string
		set  uint8
	}
	all := make([]wordSet, 0, len(buckets))
	size, nTagged := 0, 0
	for w, set := range buckets {
		set &= 1<<len(bucketMark) - 1
		if set == 0 {
			continue
		}
		all = append(all, wordSet{w, set})
		if n := bits.OnesCount8(set & (1<<len(bucketTags) - 1)); n > 0 {
			size += n * (len(w) + 1)
			nTagged += n
		}
	}
	slices.SortFunc(all, func(a, b wordSet) int { return strings.Compare(a.word, b.word) })
	// The tagged words live in one arena, which must not grow once strings
	// point into it: a restore builds a hundred thousand tsvectors, and a
	// string per lexeme was a quarter of the time it took. The positions
	// of every lexeme share one array too.
	arena := make([]byte, 0, size)
	var tagged [len(bucketTags)][]pgtype.TSVectorLexeme
	lex := make([]pgtype.TSVectorLexeme, nTagged, nTagged+len(all)+samples)
	positions := make([]pgtype.TSVectorPosition, 0, nTagged+len(all))
	for _, ws := range all {
		from := len(positions)
		for b := range bucketMark {
			if ws.set&(1<<b) == 0 {
				continue
			}
			positions = append(positions, bucketMark[b])
			if b < len(bucketTags) {
				at := len(arena)
				arena = append(append(arena, bucketTags[b]), ws.word...)
				tagged[b] = append(tagged[b], pgtype.TSVectorLexeme{Word: unsafe.String(&arena[at], len(arena)-at)})
			}
		}
		lex = append(lex, pgtype.TSVectorLexeme{Word: ws.word, Positions: positions[from:len(positions):len(positions)]})
	}
	// PostgreSQL stores lexemes in byte order, shorter first on a common
	// prefix (Go's string order): the tags sort in bucket order, before
	// any word.
	at := 0
	for _, t := range tagged {
		at += copy(lex[at:], t)
	}
	return pgtype.TSVector{Lexemes: withSampleWords(lex, samples), Valid: true}
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

// tsQuery is the tsquery matching documents that hold every token, the
// last as a prefix (to_tsquery's "word:*") when prefix is set, without
// parsing the tokens again. tokens must not be empty.
func tsQuery(tokens []string, prefix bool) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		// Whole words, but for the last, a prefix (see search.QueryTokens
		// and lastWordWhole).
		parts[i] = tsLexeme(t, prefix && i == len(tokens)-1, "")
	}
	return strings.Join(parts, " & ")
}

// tsTier is the tsquery of the documents holding some token in one of the
// buckets up to and including last (at most 3), which the index answers
// through the tagged words: the candidates of a ranking tier.
func tsTier(tokens []string, last int, prefix bool) string {
	var alts []string
	for i, t := range tokens {
		for b := 0; b <= last; b++ {
			alts = append(alts, tsLexeme(string(bucketTags[b])+t, prefix && i == len(tokens)-1, ""))
		}
	}
	return "(" + strings.Join(alts, " | ") + ")"
}

// tsBucketTests lists, token by token and bucket by bucket, the tsquery
// testing whether a document's tsvector holds the token in the bucket:
// what a document's score is summed from (see scoreOf).
func tsBucketTests(tokens []string, prefix bool) []string {
	out := make([]string, 0, len(tokens)*len(bucketMark))
	for i, t := range tokens {
		prefix := prefix && i == len(tokens)-1
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
