package store

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5/pgtype"
)

// tsVector builds, from the analyzer's words (space-separated, one text per
// boost bucket), the tsvector PostgreSQL indexes: each distinct word once,
// without positions. With tagged set, a word is stored under the digit of
// its bucket ("2orders" for "orders" in bucket 2), once per bucket holding
// it, so that the GIN index alone tells which buckets of a document hold a
// query word: ranking reads per bucket what the SQLite text table keeps per
// column, and a tier of candidates ("a word of the query in a name") is one
// index condition. Without tagged, the words of all texts are merged (the
// autocomplete words).
//
// Positions are left out: nothing reads them (ranking counts the buckets a
// word is in, as on SQLite), and they made every tsvector larger than the
// row it belonged to. The words are the analyzer's (search.Tokenizer);
// TestTSVectorMatchesPostgreSQL checks that PostgreSQL reads the same
// lexemes from array_to_tsvector.
func tsVector(texts []string, tagged bool) pgtype.TSVector {
	// The lexemes live in one arena, which must not grow once strings
	// point into it: a restore builds a hundred thousand tsvectors, and a
	// string per lexeme was a quarter of the time it took.
	n, size := 0, 0
	for _, text := range texts {
		for i := 0; i < len(text); i++ {
			if text[i] == ' ' {
				n++
			}
		}
		size += 2*len(text) + 1 // a tag for each word of at least a byte
	}
	arena := make([]byte, 0, size)
	lex := make([]pgtype.TSVectorLexeme, 0, n)
	for i, text := range texts {
		start := len(lex)
		for len(text) > 0 {
			var word string
			word, text, _ = strings.Cut(text, " ")
			if word == "" {
				continue
			}
			from := len(arena)
			if tagged {
				arena = append(arena, byte('0'+i))
			}
			arena = append(arena, word...)
			lex = append(lex, pgtype.TSVectorLexeme{Word: unsafe.String(&arena[from], len(arena)-from)})
		}
		if tagged {
			// A text's lexemes share their first byte and sort among
			// themselves; the texts come in tag order.
			slices.SortFunc(lex[start:], compareLexemes)
		}
	}
	if !tagged {
		slices.SortFunc(lex, compareLexemes)
	}
	lex = slices.CompactFunc(lex, func(a, b pgtype.TSVectorLexeme) bool { return a.Word == b.Word })
	return pgtype.TSVector{Lexemes: lex, Valid: true}
}

// compareLexemes orders lexemes as PostgreSQL stores them: by bytes,
// shorter first on a common prefix, which is Go's string order.
func compareLexemes(a, b pgtype.TSVectorLexeme) int { return strings.Compare(a.Word, b.Word) }

// bucketTag is the prefix of the lexemes of bucket i in a tagged tsvector.
func bucketTag(i int) string { return string(rune('0' + i)) }

// tsLexeme is a token as a tsquery operand, quoted and escaped; prefix
// makes it match every lexeme starting with it.
func tsLexeme(t string, prefix bool) string {
	// A quoted lexeme is taken as it is; quotes and backslashes in it are
	// escaped (the analyzer emits neither, but the query text is the
	// user's), and a token cut to the maximum length may end in part of a
	// character.
	t = strings.ReplaceAll(strings.ReplaceAll(strings.ToValidUTF8(t, ""), `\`, `\\`), `'`, `''`)
	s := "'" + t + "'"
	if prefix {
		s += ":*"
	}
	return s
}

// tsQuery is the tsquery matching documents that hold every token, the last
// as a prefix (to_tsquery's "word:*"), without parsing the tokens again: in
// any bucket of a tagged tsvector when buckets > 0, else in an untagged
// one. tokens must not be empty.
func tsQuery(tokens []string, buckets int) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		// Whole words, but for the last, a prefix (see search.QueryTokens).
		prefix := i == len(tokens)-1
		if buckets == 0 {
			parts[i] = tsLexeme(t, prefix)
			continue
		}
		alts := make([]string, buckets)
		for b := range alts {
			alts[b] = tsLexeme(bucketTag(b)+t, prefix)
		}
		parts[i] = "(" + strings.Join(alts, " | ") + ")"
	}
	return strings.Join(parts, " & ")
}

// tsTier is the tsquery of the documents holding some token in one of the
// buckets up to and including last: the candidates of a ranking tier.
func tsTier(tokens []string, last int) string {
	var alts []string
	for i, t := range tokens {
		for b := 0; b <= last; b++ {
			alts = append(alts, tsLexeme(bucketTag(b)+t, i == len(tokens)-1))
		}
	}
	return "(" + strings.Join(alts, " | ") + ")"
}

// tsBucketTests lists, token by token and bucket by bucket, the tsquery
// testing whether a document holds the token in the bucket: what a
// document's score is summed from (see scoreOf).
func tsBucketTests(tokens []string, buckets int) []string {
	out := make([]string, 0, len(tokens)*buckets)
	for i, t := range tokens {
		for b := 0; b < buckets; b++ {
			out = append(out, tsLexeme(bucketTag(b)+t, i == len(tokens)-1))
		}
	}
	return out
}
