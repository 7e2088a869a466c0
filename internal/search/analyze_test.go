package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestIndexTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string // must all be present
	}{
		{"SampleHiveDataset", []string{"samplehivedataset", "sample", "hive", "dataset", "hivedataset"}},
		{"fct_users_created", []string{"fct", "users", "created"}},
		{"[version=2.0].[type=boolean].field_foo_2", []string{"version", "2", "0", "type", "boolean", "field", "foo"}},
		{"urn:li:dataPlatform:hive", []string{"urn", "li", "dataplatform", "data", "platform", "hive"}},
		{"HTTPServer2", []string{"httpserver2", "http", "server", "2"}},
	}
	for _, tc := range tests {
		got := IndexTokens(tc.in)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("IndexTokens(%q) = %q, missing %q", tc.in, got, w)
			}
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		query, text string
		want        bool
	}{
		{"SampleHive", "SampleHiveDataset", true},
		{"hive dataset", "SampleHiveDataset", true},
		{"field_foo_2", "[version=2.0].[type=boolean].field_foo_2", true},
		{"users created", "fct_users_created", true},
		{"kafka", "SampleHiveDataset", false},
		{"", "anything", false},
	}
	for _, tc := range tests {
		if got := Matches(QueryTokens(tc.query), tc.text); got != tc.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tc.query, tc.text, got, tc.want)
		}
	}
}

// referenceIndexTokens is the plain statement of IndexTokens that the fast
// one must agree with: every word, its parts and the runs of parts to its
// end, lower case, first occurrence kept.
func referenceIndexTokens(s string) []string {
	if len(s) > maxTextLen {
		s = s[:maxTextLen]
	}
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && len(t) <= maxTokenLen && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	start := -1
	words := []string{}
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	for _, w := range words {
		add(strings.ToLower(w))
		parts := splitParts(w)
		if len(parts) < 2 {
			continue
		}
		for i, p := range parts {
			add(strings.ToLower(p))
			if i > 0 && i < len(parts)-1 {
				add(strings.ToLower(strings.Join(parts[i:], "")))
			}
		}
	}
	return out
}

func TestIndexTokensAgreesWithReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "Z", "Q", "1", "9", "_", ".", " ", ":", "é", "É", "ß", "ǅ", "٣", "\xff", "-", "x", "HTTP"}
	inputs := []string{"", "SampleHiveDataset", "HTTPServer2", "fct_users_created", "urn:li:dataPlatform:hive", "ÉcoleNormale", "a\xffb"}
	// Long texts pass the point where the token set switches to a map.
	inputs = append(inputs, strings.Repeat("alpha Beta gamma2 ", 40))
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for j := r.IntN(60); j > 0; j-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	for _, in := range inputs {
		if got, want := IndexTokens(in), referenceIndexTokens(in); !slices.Equal(got, want) {
			t.Fatalf("IndexTokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkIndexTokens(b *testing.B) {
	text := "orvilora7 bogi2 orde7 bomi9 lote5 enkabo2 arenmi4 envilo0 ulmiar3 sude7 fasu3 podeno5 demi4 SampleHiveDataset"
	for i := 0; i < b.N; i++ {
		IndexTokens(text)
	}
}
