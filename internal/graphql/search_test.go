package graphql

import (
	"reflect"
	"testing"

	"github.com/catalogd/catalogd/internal/search"
)

func TestNarrowByEntityType(t *testing.T) {
	ents := []string{"dataset", "chart", "dataProduct"}
	platform := search.CriterionInput{Field: "platform", Values: []string{"urn:li:dataPlatform:hive"}}
	tests := []struct {
		name     string
		filter   *search.FilterInput
		wantEnts []string
		want     *search.FilterInput
	}{
		{name: "no filter", wantEnts: ents},
		{name: "no _entityType", filter: &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{platform}}}},
			wantEnts: ents, want: &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{platform}}}}},
		{name: "EntityType symbols, the filter's rest kept",
			filter:   &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{{Field: "_entityType", Values: []string{"DATA_PRODUCT"}}, platform}}}},
			wantEnts: []string{"dataProduct"}, want: &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{platform}}}}},
		{name: "negated", filter: &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{{Field: "_entityType", Values: []string{"DATA_PRODUCT"}, Negated: true}}}}},
			wantEnts: []string{"dataset", "chart"}, want: &search.FilterInput{Or: []search.ConjunctionInput{{}}}},
		{name: "types of every conjunction", filter: &search.FilterInput{Or: []search.ConjunctionInput{
			{And: []search.CriterionInput{{Field: "_entityType.keyword", Values: []string{"CHART"}}}},
			{And: []search.CriterionInput{{Field: "_entityType", Values: []string{"dataset"}}}},
		}}, wantEnts: []string{"dataset", "chart"}, want: &search.FilterInput{Or: []search.ConjunctionInput{{}, {}}}},
		{name: "types and sub types, each conjunction held to its types",
			filter:   &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{{Field: "_entityType␞typeNames", Values: []string{"CHART", "DATASET␞View"}}}}}},
			wantEnts: []string{"dataset", "chart"}, want: &search.FilterInput{Or: []search.ConjunctionInput{
				{And: []search.CriterionInput{{Field: "urn", Values: []string{"urn:li:chart:"}, Condition: "START_WITH"}}},
				{And: []search.CriterionInput{{Field: "typeNames", Values: []string{"View"}, Condition: "EQUAL"}, {Field: "urn", Values: []string{"urn:li:dataset:"}, Condition: "START_WITH"}}},
			}}},
		{name: "a type not searched", filter: &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{{Field: "_entityType", Values: []string{"TAG"}}}}}},
			wantEnts: []string{}, want: &search.FilterInput{Or: []search.ConjunctionInput{{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotEnts, got := narrowByEntityType(ents, tt.filter)
			if !reflect.DeepEqual(gotEnts, tt.wantEnts) || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("narrowByEntityType = %v, %+v; want %v, %+v", gotEnts, got, tt.wantEnts, tt.want)
			}
		})
	}
}
