package search_test

import (
	"encoding/json"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
)

// TestKeyedFields checks the fields made per key (structured property
// values): one field per property named after its qualified name with dots
// as underscores, numbers kept as numbers, nothing for a property without
// values or with a malformed URN.
func TestKeyedFields(t *testing.T) {
	b := search.NewBuilder(registry.Default())
	const urn = "urn:li:dataset:(urn:li:dataPlatform:hive,keyed,PROD)"
	tests := []struct {
		name  string
		value string
		want  map[string][]any
	}{
		{"string and number", `{"properties":[
			{"propertyUrn":"urn:li:structuredProperty:io.acryl.privacy.retentionTime","values":[{"double":90},{"double":30.5}]},
			{"propertyUrn":"urn:li:structuredProperty:team","values":[{"string":"payments"}]}]}`,
			map[string][]any{"structuredProperties.io_acryl_privacy_retentionTime": {90.0, 30.5}, "structuredProperties.team": {"payments"}}},
		{"no values", `{"properties":[{"propertyUrn":"urn:li:structuredProperty:empty","values":[]}]}`, map[string][]any{}},
		{"no properties", `{"properties":[]}`, map[string][]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, ok, err := b.Build(urn, []catalog.Aspect{{URN: urn, Name: "structuredProperties", Value: json.RawMessage(tt.value)}}, nil)
			if err != nil || !ok {
				t.Fatalf("Build: ok %v, err %v", ok, err)
			}
			got := map[string][]any{}
			for k, v := range doc.Fields {
				if len(k) > len("structuredProperties") && k[:len("structuredProperties")] == "structuredProperties" {
					got[k] = v
				}
			}
			if a, b := jsonOf(t, got), jsonOf(t, tt.want); a != b {
				t.Errorf("fields = %s, want %s", a, b)
			}
		})
	}
	// Filters name a property by its qualified name; the field is resolved
	// for the entity types that have the aspect only.
	svc := search.NewService(registry.Default(), nil)
	f, err := svc.ParseFilter([]string{"dataset"}, &search.FilterInput{Criteria: []search.CriterionInput{{Field: "structuredProperties.io.acryl.privacy.retentionTime.keyword", Values: []string{"90"}}}})
	if err != nil || len(f.Or) != 1 || f.Or[0][0].Field != "structuredProperties.io_acryl_privacy_retentionTime" {
		t.Errorf("filter on a property's qualified name = %+v, %v", f, err)
	}
	if _, err := svc.ParseFilter([]string{"dataHubSecret"}, &search.FilterInput{Criteria: []search.CriterionInput{{Field: "structuredProperties.x", Values: []string{"1"}}}}); err == nil {
		t.Errorf("a structured property filter on secrets, which have no structured properties, was accepted")
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
