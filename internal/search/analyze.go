package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
	t := tokenSet{out: make([]string, 0, 16)}
	var buf []string
	eachWord(s, func(w string) {
		t.add(strings.ToLower(w))
		if !mayHaveParts(w) {
			return
		}
		parts := splitPartsInto(buf[:0], w)
		buf = parts
		if len(parts) < 2 {
			return
		}
		for i, p := range parts {
			t.add(strings.ToLower(p))
			if i > 0 && i < len(parts)-1 {
				t.add(strings.ToLower(strings.Join(parts[i:], "")))
			}
		}
	})
	return t.out
}

// tokenSet collects distinct tokens in order. Values have few words, so it
// compares against the list and only builds a map for long texts: this
// runs for every value of every document written.
type tokenSet struct {
	out  []string
	seen map[string]struct{}
}

func (t *tokenSet) add(w string) {
	if w == "" || len(w) > maxTokenLen {
		return
	}
	if t.seen != nil {
		if _, ok := t.seen[w]; ok {
			return
		}
		t.seen[w] = struct{}{}
	} else {
		for _, o := range t.out {
			if o == w {
				return
			}
		}
		if len(t.out) == 32 {
			t.seen = make(map[string]struct{}, 128)
			for _, o := range t.out {
				t.seen[o] = struct{}{}
			}
			t.seen[w] = struct{}{}
		}
	}
	t.out = append(t.out, w)
}

// mayHaveParts reports whether splitParts could split w: false for the
// common all-lower-case ASCII words and plain numbers.
func mayHaveParts(w string) bool {
	digits, letters := false, false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= utf8.RuneSelf, 'A' <= c && c <= 'Z':
			return true
		case '0' <= c && c <= '9':
			digits = true
		default:
			letters = true
		}
	}
	return digits && letters
}

// QueryTokens returns the words of a query, lower case, without duplicates.
// Query words are not split into parts: each must be a prefix of an indexed
// word, and IndexTokens indexes the parts and their runs.
func QueryTokens(s string) []string {
	var out []string
	seen := map[string]struct{}{}
	eachWord(s, func(w string) {
		t := strings.ToLower(w)
		if len(t) > maxTokenLen {
			t = t[:maxTokenLen]
		}
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	})
	return out
}

// Matches reports whether every query token is a prefix of some token of
// text: the test engines apply, used to report matched fields.
func Matches(query []string, text string) bool {
	if len(query) == 0 {
		return false
	}
	// A token is a prefix of a word only if it occurs in the lower-cased
	// text: most values of a hit's fields fail this cheap test.
	lower := strings.ToLower(text)
	for _, q := range query {
		if !strings.Contains(lower, q) {
			return false
		}
	}
	toks := IndexTokens(text)
	for _, q := range query {
		found := false
		for _, t := range toks {
			if strings.HasPrefix(t, q) {
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
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			eachWordUnicode(s, start, i, fn)
			return
		}
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// eachWordUnicode continues eachWord from byte from, with a word begun at
// start (or -1), for text that is not all ASCII.
func eachWordUnicode(s string, start, from int, fn func(string)) {
	for j, r := range s[from:] {
		i := from + j
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// splitParts splits a word at case and letter/digit boundaries:
// "SampleHiveDataset" → Sample Hive Dataset, "HTTPServer2" → HTTP Server 2.
func splitParts(w string) []string { return splitPartsInto(nil, w) }

// splitPartsInto is splitParts appending to parts.
func splitPartsInto(parts []string, w string) []string {
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
