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
	var out []string
	seen := map[string]struct{}{}
	add := func(t string) {
		if t == "" || len(t) > maxTokenLen {
			return
		}
		if _, ok := seen[t]; ok {
			return
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	eachWord(s, func(w string) {
		add(strings.ToLower(w))
		parts := splitParts(w)
		if len(parts) < 2 {
			return
		}
		for i, p := range parts {
			add(strings.ToLower(p))
			if i > 0 && i < len(parts)-1 {
				add(strings.ToLower(strings.Join(parts[i:], "")))
			}
		}
	})
	return out
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
	for i, r := range s {
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
