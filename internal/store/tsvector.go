package store

import (
	"sort"
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
	local := map[string][]uint16{}
	var order []string
	for i, text := range texts {
		// to_tsvector of this text: positions from 1, the last one shared
		// by every later word, equal ones once, at most maxTSPositions.
		clear(local)
		order = order[:0]
		pos := 0
		for len(text) > 0 {
			var word string
			word, text, _ = strings.Cut(text, " ")
			if word == "" {
				continue
			}
			pos = min(pos+1, maxTSPos)
			ps, seen := local[word]
			if !seen {
				order = append(order, word)
			}
			if len(ps) < maxTSPositions && (len(ps) == 0 || int(ps[len(ps)-1]) != maxTSPos && int(ps[len(ps)-1]) != pos) {
				local[word] = append(ps, uint16(pos))
			}
		}
		// || shifts them by the highest position of the left operand and
		// appends them to a lexeme's positions, up to one more than
		// to_tsvector keeps and until one is the last position.
		high := offset
		for _, word := range order {
			j, ok := at[word]
			if !ok {
				j = len(lex)
				at[word] = j
				lex = append(lex, pgtype.TSVectorLexeme{Word: word})
			}
			l := &lex[j]
			for _, p := range local[word] {
				n := len(l.Positions)
				if n > maxTSPositions || n > 0 && l.Positions[n-1].Position == maxTSPos {
					break
				}
				q := uint16(min(int(p)+offset, maxTSPos))
				l.Positions = append(l.Positions, pgtype.TSVectorPosition{Position: q, Weight: weights[i]})
				high = max(high, int(q))
			}
		}
		offset = high
	}
	// PostgreSQL stores lexemes in byte order, shorter first on a common
	// prefix, which is Go's string order.
	sort.Slice(lex, func(a, b int) bool { return lex[a].Word < lex[b].Word })
	return pgtype.TSVector{Lexemes: lex, Valid: true}
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
