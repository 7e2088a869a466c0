package search

import (
	"context"
	"slices"

	"github.com/catalogd/catalogd/internal/catalog"
)

// FindKeyedReferences returns up to count URNs of entities, soft-deleted
// ones included, whose documents hold a keyed field (see
// catalog.SearchableSpec.KeyPath) for the entity urn: the assets with a
// value of a structured property, for the property.
func (s *Service) FindKeyedReferences(ctx context.Context, urn string, count int) ([]string, error) {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return nil, err
	}
	var fields []string
	for _, a := range s.reg.Aspects() {
		for _, sp := range a.Searchable {
			if f := KeyedFieldName(sp.FieldName, u.ID()); sp.KeyPath != "" && !slices.Contains(fields, f) {
				fields = append(fields, f)
			}
		}
	}
	if len(fields) == 0 {
		return nil, nil
	}
	filter := &FilterInput{}
	for _, f := range fields {
		filter.Or = append(filter.Or, ConjunctionInput{And: []CriterionInput{
			{Field: f, Condition: "EXISTS"}, {Field: FieldRemoved, Values: []string{"true", "false"}}}})
	}
	res, err := s.Search(ctx, SearchParams{Filter: filter, Count: count, NoFacets: true})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.URN
	}
	return out, nil
}
