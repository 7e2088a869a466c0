package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// maxTokenLen bounds the words the analyzer emits: longer runs (hashes,
// base64) are never searched for by their whole and only bloat the index.
const maxTokenLen = 64

// maxTextLen bounds how much of one value is analysed.
const maxTextLen = 16 << 10

// IndexTokens returns the words under which a text value is indexed, lower
// case, without duplicates. Every run of letters and digits is a word; a word
// made of several parts (camelCase, letters then digits) also yields each
// part and every run of parts up to its end, so that "SampleHiveDataset" is
// found by "sample", "hive", "dataset", "hivedataset" and, by prefix,
// "samplehive". Separators (dots, underscores, brackets, colons of URNs)
// split words, so "fct_users_created" yields "fct", "users", "created".
func IndexTokens(s string) []string {
	if len(s) > maxTextLen {
		s = s[:maxTextLen]
	}
	var t tokenizer
	t.scan(s)
	return t.out
}

// Tokenizer is IndexTokens for callers that analyse many values in a row,
// such as the values of a document: it keeps its memory from one value to
// the next instead of allocating it for each. The zero value is ready; it is
// not safe for concurrent use.
type Tokenizer struct{ t tokenizer }

// Tokens returns what IndexTokens returns for s, in a slice that is valid
// until the next call.
func (z *Tokenizer) Tokens(s string) []string {
	if len(s) > maxTextLen {
		s = s[:maxTextLen]
	}
	z.t.out, z.t.mapped = z.t.out[:0], false
	z.t.scan(s)
	return z.t.out
}

// tokenizer collects the tokens of IndexTokens. It runs on every text value
// of every document an ingest writes, so the common case (ASCII words) is
// lower-cased once per word, with parts sliced from it, and duplicates are
// found by a scan until there are enough tokens for a map to pay.
type tokenizer struct {
	out    []string
	seen   map[string]struct{}
	mapped bool    // seen holds out (otherwise it is unused, possibly stale)
	parts  [16]int // part start offsets of the current word (ASCII)
	arena  []byte  // lowerASCII's memory
}

func (t *tokenizer) add(tok string) {
	if tok == "" || len(tok) > maxTokenLen {
		return
	}
	if t.mapped {
		if _, ok := t.seen[tok]; ok {
			return
		}
		t.seen[tok] = struct{}{}
	} else {
		for _, o := range t.out {
			if o == tok {
				return
			}
		}
		if len(t.out) >= 16 {
			if t.seen == nil {
				t.seen = make(map[string]struct{}, 64)
			} else {
				clear(t.seen)
			}
			t.mapped = true
			for _, o := range t.out {
				t.seen[o] = struct{}{}
			}
			t.seen[tok] = struct{}{}
		}
	}
	t.out = append(t.out, tok)
}

// Classes of the bytes of words, as scan records them for each word.
const (
	classLower    = 1 << iota // a-z
	classUpper                // A-Z
	classDigit                // 0-9
	classNonASCII             // a letter or digit beyond ASCII
)

// asciiClass is the class of each ASCII byte, 0 for separators.
var asciiClass = func() (c [utf8.RuneSelf]uint8) {
	for b := range c {
		switch {
		case isLowerByte(byte(b)):
			c[b] = classLower
		case isUpperByte(byte(b)):
			c[b] = classUpper
		case isDigitByte(byte(b)):
			c[b] = classDigit
		}
	}
	return c
}()

// scan is eachWord(s, t.word), noting which classes of bytes each word
// holds, so that the common words (ASCII, no capitals, or of one part) skip
// the work that cannot change them.
func (t *tokenizer) scan(s string) {
	start := -1
	var classes uint8
	for i := 0; i < len(s); {
		k, size := uint8(0), 1
		if c := s[i]; c < utf8.RuneSelf {
			k = asciiClass[c]
		} else {
			var r rune
			if r, size = utf8.DecodeRuneInString(s[i:]); isWordRune(r) {
				k = classNonASCII
			}
		}
		if k != 0 {
			if start < 0 {
				start, classes = i, 0
			}
			classes |= k
		} else if start >= 0 {
			t.classed(s[start:i], classes)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		t.classed(s[start:], classes)
	}
}

// classed is word for a word of the given classes.
func (t *tokenizer) classed(w string, classes uint8) {
	if classes&classNonASCII != 0 {
		t.word(w)
		return
	}
	lw := w
	if classes&classUpper != 0 {
		lw = t.lowerASCII(w)
	}
	t.add(lw)
	if classes&classUpper == 0 && classes != classDigit|classLower {
		return // lower-case letters only, or digits only: one part
	}
	starts, ok := t.asciiParts(w)
	if !ok {
		t.addSplit(w) // more parts than asciiParts holds
		return
	}
	t.addStarts(lw, starts)
}

// word adds the tokens of a word of any letters and digits.
func (t *tokenizer) word(w string) {
	t.add(strings.ToLower(w))
	t.addSplit(w)
}

// addSplit adds the parts of w and the runs of parts to its end, each
// lowered on its own: beyond ASCII, case folding may change lengths.
func (t *tokenizer) addSplit(w string) {
	parts := splitParts(w)
	if len(parts) < 2 {
		return
	}
	for i, p := range parts {
		t.add(strings.ToLower(p))
		if i > 0 && i < len(parts)-1 {
			t.add(strings.ToLower(strings.Join(parts[i:], "")))
		}
	}
}

// lowerASCII returns the ASCII word w lower-cased, in t's arena: the
// arena's bytes are never written again once a token holds them (a full
// arena is replaced, not reused), so tokens stay valid for as long as
// anything holds them, and a document's capitalised words cost one
// allocation per few kilobytes instead of one each.
func (t *tokenizer) lowerASCII(w string) string {
	if cap(t.arena)-len(t.arena) < len(w) {
		t.arena = make([]byte, 0, max(arenaSize, len(w)))
	}
	start := len(t.arena)
	for i := 0; i < len(w); i++ {
		c := w[i]
		if isUpperByte(c) {
			c += 'a' - 'A'
		}
		t.arena = append(t.arena, c)
	}
	return unsafe.String(&t.arena[start], len(w))
}

// arenaSize is the size of a tokenizer's arena.
const arenaSize = 4 << 10

// addStarts adds the parts of lw that start at starts, and each run of
// parts to the end of lw.
func (t *tokenizer) addStarts(lw string, starts []int) {
	if len(starts) < 2 {
		return
	}
	// ASCII lower-casing keeps offsets, so each part and each run of parts
	// to the end of the word is a slice of lw.
	for i, st := range starts {
		end := len(lw)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		t.add(lw[st:end])
		if i > 0 && i < len(starts)-1 {
			t.add(lw[st:])
		}
	}
}

// asciiParts returns the start offsets of the parts splitParts gives for a
// word of ASCII letters and digits (which scan has established); ok is
// false for words of more parts than t.parts holds.
func (t *tokenizer) asciiParts(w string) (starts []int, ok bool) {
	starts = t.parts[:0]
	starts = append(starts, 0)
	start := 0
	prev := w[0]
	for i := 1; i < len(w); i++ {
		r := w[i]
		split := false
		switch {
		case isDigitByte(r) != isDigitByte(prev):
			split = true
		case isUpperByte(r) && isLowerByte(prev):
			split = true
		case isLowerByte(r) && isUpperByte(prev) && i-1 > start:
			// "HTTPServer": the S starts a new part, so split before it.
			start = i - 1
			starts = append(starts, start)
		}
		if split {
			start = i
			starts = append(starts, start)
		}
		if len(starts) == cap(t.parts) {
			return nil, false
		}
		prev = r
	}
	return starts, true
}

func isDigitByte(b byte) bool { return '0' <= b && b <= '9' }
func isUpperByte(b byte) bool { return 'A' <= b && b <= 'Z' }
func isLowerByte(b byte) bool { return 'a' <= b && b <= 'z' }

// QueryTokens returns the words of a query, lower case, without duplicates.
// Query words are not split into parts: IndexTokens indexes the parts and
// their runs. Every word but the last must be an indexed word; the last may
// be the prefix of one, as a user types it (Meilisearch's and Algolia's
// "prefix last"). Removing duplicates keeps the last word last.
func QueryTokens(s string) []string {
	var out []string
	eachWord(s, func(w string) {
		t := strings.ToLower(w)
		if len(t) > maxTokenLen {
			t = t[:maxTokenLen]
		}
		if i := slices.Index(out, t); i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
		out = append(out, t)
	})
	return out
}

// Matches reports whether text matches the query tokens as the engines
// match them (see QueryTokens): every token but the last is a token of
// text, and the last a prefix of one. It reports matched fields.
func Matches(query []string, text string) bool {
	if len(query) == 0 {
		return false
	}
	// A token is part of a word only if it occurs in the lower-cased
	// text: most values of a hit's fields fail this cheap test.
	lower := strings.ToLower(text)
	for _, q := range query {
		if !strings.Contains(lower, q) {
			return false
		}
	}
	toks := IndexTokens(text)
	last := len(query) - 1
	for i, q := range query {
		found := false
		for _, t := range toks {
			if t == q || i == last && strings.HasPrefix(t, q) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// eachWord calls fn with every maximal run of letters and digits of s.
func eachWord(s string, fn func(string)) {
	start := -1
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			fn(s[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// splitParts splits a word at case and letter/digit boundaries:
// "SampleHiveDataset" → Sample Hive Dataset, "HTTPServer2" → HTTP Server 2.
func splitParts(w string) []string {
	var parts []string
	start := 0
	prev, _ := utf8.DecodeRuneInString(w)
	i := utf8.RuneLen(prev)
	for i < len(w) {
		r, n := utf8.DecodeRuneInString(w[i:])
		split := false
		switch {
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			split = true
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			split = true
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-utf8.RuneLen(prev) > start:
			// "HTTPServer": the S starts a new part, so split before it.
			j := i - utf8.RuneLen(prev)
			parts = append(parts, w[start:j])
			start = j
		}
		if split {
			parts = append(parts, w[start:i])
			start = i
		}
		prev = r
		i += n
	}
	return append(parts, w[start:])
}
