package search

import (
	"slices"
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
