package store

import (
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
)

// PostgreSQL's limits on a tsvector: positions count up to maxTSPos (later
// words share it), and a lexeme keeps at most maxTSPositions of them (one
// more after a concatenation).
const (
	maxTSPos       = 1<<14 - 1
	maxTSPositions = 255
)

// tsVector builds, from the words of the analyzer, the tsvector that
// setweight(to_tsvector('simple', text), weight) of each of texts (words
// joined by spaces) concatenated with || made: positions run on from the
// highest one of the texts before, within PostgreSQL's limits.
//
// The documents' words are the analyzer's (search.Tokenizer), as on SQLite;
// parsing them again in PostgreSQL only split them where they were already
// split, and cost a third of the server's time in an ingest.
// TestTSVectorMatchesPostgreSQL checks that both give the same value.
func tsVector(texts []string, weights []pgtype.TSVectorWeight) pgtype.TSVector {
	at := map[string]int{}
	var lex []pgtype.TSVectorLexeme
	offset := 0 // the highest position so far
	// The positions of one text's words, without a slice per word: each
	// word's are a list threaded through one arena. Ingest builds a
	// tsvector per document on a machine PostgreSQL shares, and a slice
	// per word was a quarter of its cost.
	local := map[string]int{} // word → index in words
	var words []tsWord
	var arena []tsPos
	for i, text := range texts {
		// to_tsvector of this text: positions from 1, the last one shared
		// by every later word, equal ones once, at most maxTSPositions.
		clear(local)
		words, arena = words[:0], arena[:0]
		pos := 0
		for len(text) > 0 {
			var word string
			word, text, _ = strings.Cut(text, " ")
			if word == "" {
				continue
			}
			pos = min(pos+1, maxTSPos)
			k, seen := local[word]
			if !seen {
				k = len(words)
				local[word] = k
				words = append(words, tsWord{word: word, first: -1, last: -1})
			}
			w := &words[k]
			if w.n < maxTSPositions && (w.n == 0 || int(arena[w.last].pos) != maxTSPos && int(arena[w.last].pos) != pos) {
				arena = append(arena, tsPos{pos: uint16(pos), next: -1})
				if w.last >= 0 {
					arena[w.last].next = int32(len(arena) - 1)
				} else {
					w.first = int32(len(arena) - 1)
				}
				w.last = int32(len(arena) - 1)
				w.n++
			}
		}
		// || shifts them by the highest position of the left operand and
		// appends them to a lexeme's positions, up to one more than
		// to_tsvector keeps and until one is the last position.
		high := offset
		for _, w := range words {
			j, ok := at[w.word]
			if !ok {
				j = len(lex)
				at[w.word] = j
				lex = append(lex, pgtype.TSVectorLexeme{Word: w.word, Positions: make([]pgtype.TSVectorPosition, 0, w.n)})
			}
			l := &lex[j]
			for e := w.first; e >= 0; e = arena[e].next {
				n := len(l.Positions)
				if n > maxTSPositions || n > 0 && l.Positions[n-1].Position == maxTSPos {
					break
				}
				q := uint16(min(int(arena[e].pos)+offset, maxTSPos))
				l.Positions = append(l.Positions, pgtype.TSVectorPosition{Position: q, Weight: weights[i]})
				high = max(high, int(q))
			}
		}
		offset = high
	}
	// PostgreSQL stores lexemes in byte order, shorter first on a common
	// prefix, which is Go's string order.
	slices.SortFunc(lex, func(a, b pgtype.TSVectorLexeme) int { return strings.Compare(a.Word, b.Word) })
	return pgtype.TSVector{Lexemes: lex, Valid: true}
}

// tsWord is a word of one text in tsVector: the number of its positions
// and the first and last of their entries in the arena.
type tsWord struct {
	word        string
	n           int
	first, last int32
}

// tsPos is one position of a word, and the arena index of its next one.
type tsPos struct {
	pos  uint16
	next int32
}

// tsQuery is the tsquery matching documents that hold every token, the last
// as a prefix (to_tsquery's "word:*"), without parsing the tokens again.
// tokens must not be empty.
func tsQuery(tokens []string) string {
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		// A quoted lexeme is taken as it is; quotes and backslashes in it
		// are escaped (the analyzer emits neither, but the query text is
		// the user's), and a token cut to the maximum length may end in
		// part of a character.
		t = strings.ReplaceAll(strings.ReplaceAll(strings.ToValidUTF8(t, ""), `\`, `\\`), `'`, `''`)
		parts[i] = "'" + t + "'"
	}
	// Whole words, but for the last, a prefix (see search.QueryTokens).
	parts[len(parts)-1] += ":*"
	return strings.Join(parts, " & ")
}
