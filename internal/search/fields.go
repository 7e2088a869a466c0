package search

import (
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

// Field names every document carries besides those of the annotations.
const (
	FieldURN     = "urn"
	FieldRemoved = "removed"
)

// Fields returns every document field of the registry, merged over the
// aspects that write it: the type of the first annotation, the highest boost,
// and a flag set when any annotation sets it. hasValuesFieldName and
// numValuesFieldName become BOOLEAN and COUNT fields, and "urn" and
// "removed" are always present. The result is sorted by name.
func Fields(reg *registry.Registry) []catalog.SearchField {
	return mergeFields(reg, reg.Aspects())
}

// EntityFields returns the fields of the documents of one entity type: those
// written by its key aspect and its aspects.
func EntityFields(reg *registry.Registry, entity string) []catalog.SearchField {
	ent := reg.Entity(entity)
	if ent == nil {
		return nil
	}
	var specs []catalog.AspectSpec
	for _, name := range append([]string{ent.KeyAspect}, ent.Aspects...) {
		if a := reg.Aspect(name); a != nil {
			specs = append(specs, *a)
		}
	}
	return mergeFields(reg, specs)
}

func mergeFields(_ *registry.Registry, aspects []catalog.AspectSpec) []catalog.SearchField {
	m := map[string]*catalog.SearchField{
		FieldURN:     {Name: FieldURN, Type: "URN", Boost: 1, QueryByDefault: true},
		FieldRemoved: {Name: FieldRemoved, Type: "BOOLEAN", Boost: 1},
	}
	merge := func(f catalog.SearchField) {
		cur := m[f.Name]
		if cur == nil {
			c := f
			m[f.Name] = &c
			return
		}
		cur.Boost = max(cur.Boost, f.Boost)
		cur.QueryByDefault = cur.QueryByDefault || f.QueryByDefault
		cur.Autocomplete = cur.Autocomplete || f.Autocomplete
		cur.Filter = cur.Filter || f.Filter
	}
	for _, a := range aspects {
		for _, sp := range a.Searchable {
			if sp.KeyPath != "" {
				continue // a field per key, see keyedField
			}
			boost := sp.BoostScore
			if boost == 0 {
				boost = 1
			}
			merge(catalog.SearchField{
				Name: sp.FieldName, Type: sp.FieldType, Boost: boost,
				QueryByDefault: sp.QueryByDefault, Autocomplete: sp.EnableAutocomplete, Filter: sp.AddToFilters,
			})
			if sp.HasValuesFieldName != "" {
				merge(catalog.SearchField{Name: sp.HasValuesFieldName, Type: "BOOLEAN", Boost: 1, Filter: sp.AddHasValuesToFilters})
			}
			if sp.NumValuesFieldName != "" {
				merge(catalog.SearchField{Name: sp.NumValuesFieldName, Type: "COUNT", Boost: 1})
			}
		}
	}
	out := make([]catalog.SearchField, 0, len(m))
	for _, f := range m {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// IsNumeric reports whether a field type holds numbers.
func IsNumeric(fieldType string) bool {
	switch fieldType {
	case "COUNT", "DATETIME", "DOUBLE":
		return true
	}
	return false
}

// KeyedFields returns the families of keyed fields of the model's aspects
// (those of searchables with a KeyPath), sorted by name: a document holds
// name.<key> for any key of one, structured property values for example.
// Engines that declare their fields up front declare these as families.
func KeyedFields(reg *registry.Registry) []catalog.SearchField {
	m := keyedPrefixes(reg.Aspects())
	out := make([]catalog.SearchField, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// keyedPrefixes returns, by field name prefix, the fields of the keyed
// specs of aspects (those with a KeyPath): prefix.<key> for any key.
func keyedPrefixes(aspects []catalog.AspectSpec) map[string]catalog.SearchField {
	out := map[string]catalog.SearchField{}
	for _, a := range aspects {
		for _, sp := range a.Searchable {
			if sp.KeyPath != "" {
				out[sp.FieldName] = catalog.SearchField{Name: sp.FieldName, Type: sp.FieldType, Boost: 1, Filter: true}
			}
		}
	}
	return out
}

// keyedField resolves name against keyed prefixes: prefix.<key> where the
// key may be written with dots (a structured property's qualified name).
func keyedField(prefixes map[string]catalog.SearchField, name string) (catalog.SearchField, bool) {
	prefix, key, ok := strings.Cut(name, ".")
	if !ok || key == "" {
		return catalog.SearchField{}, false
	}
	f, ok := prefixes[prefix]
	if !ok {
		return catalog.SearchField{}, false
	}
	f.Name = KeyedFieldName(prefix, key)
	return f, true
}
