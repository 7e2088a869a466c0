package search

import (
	"fmt"
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
		{"sample hiv", "SampleHiveDataset", true},
		{"samp hive", "SampleHiveDataset", false}, // only the last word is a prefix
		{"hive samp", "SampleHiveDataset", true},
		{"hive samp hive", "SampleHiveDataset", false}, // a repeated word counts where it comes last
		{"", "anything", false},
	}
	for _, tc := range tests {
		if got := Matches(QueryTokens(tc.query), tc.text); got != tc.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tc.query, tc.text, got, tc.want)
		}
	}
}

// indexTokensRef is IndexTokens as first written, the reference the faster
// tokenizer must agree with.
func indexTokensRef(s string) []string {
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
	start := -1
	word := func(w string) {
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
	}
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			word(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		word(s[start:])
	}
	return out
}

func FuzzIndexTokens(f *testing.F) {
	for _, s := range []string{"SampleHiveDataset", "fct_users_created", "HTTPServer2", "[version=2.0].[type=boolean].field_foo_2",
		"ÉcoleNormale Straße ΣΑΣ İstanbul", "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZaBcDeFgHiJ", "aaaa bbbb aaaa cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq aaaa",
		"\xff\xfeabc\xe2\x82", strings.Repeat("x", 70) + " yY", "Column 3 of table 12, holding StringType values"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := IndexTokens(s), indexTokensRef(s)
		if !slices.Equal(got, want) {
			t.Fatalf("IndexTokens(%q) = %q, want %q", s, got, want)
		}
		// A reused Tokenizer gives the same, whatever it analysed before:
		// a value of many tokens (which switches to a map), and one of few.
		var tz Tokenizer
		many := "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq " + s
		for _, v := range []string{many, s, "SampleHiveDataset", s, many} {
			if got, want := tz.Tokens(v), indexTokensRef(v); !slices.Equal(got, want) {
				t.Fatalf("Tokenizer.Tokens(%q) after other values = %q, want %q", v, got, want)
			}
		}
	})
}

// BenchmarkTokens analyses the text values of a dataset's search document:
// a description, column names and their descriptions, and URNs.
func BenchmarkTokens(b *testing.B) {
	values := []string{
		"All product events, one row per event, partitioned by day. Used by the growth and product analytics teams for funnels and retention.",
		"urn:li:dataset:(urn:li:dataPlatform:bigquery,analytics.schema_16.table_1300,PROD)",
		"analytics.schema_16.table_1300",
		"table_1300",
	}
	for i := range 20 {
		values = append(values, fmt.Sprintf("column_%d", i), fmt.Sprintf("userSessionId%d", i),
			fmt.Sprintf("Column %d of table 1300, holding StringType values", i))
	}
	var tz Tokenizer
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range values {
			tz.Tokens(v)
		}
	}
}
