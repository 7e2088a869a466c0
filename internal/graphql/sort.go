package graphql

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
)

// Sorted searches (sortInput) order what a search finds by search fields,
// as DataHub's do: each criterion by the first value of the field in the
// entity's search document, entities without one last, then by relevance.
// A field may be an alias such as _entityName (the name, title or display
// name of the entity, whichever its type has). The documents are rebuilt
// from the entities' latest aspects, so at most search.MaxPageSize hits are
// ordered.

// scoreField and relevanceField are the pseudo fields of relevance, the
// engine's own order.
const (
	scoreField     = "_score"
	relevanceField = "relevance"
)

// sortCriteria are the criteria of a sort input (sortCriteria, else
// sortCriterion), without those by relevance alone.
func sortCriteria(in *model.SearchSortInput) []*model.SortCriterion {
	if in == nil {
		return nil
	}
	crits := in.SortCriteria
	if len(crits) == 0 && in.SortCriterion != nil {
		crits = []*model.SortCriterion{in.SortCriterion}
	}
	var out []*model.SortCriterion
	for _, c := range crits {
		if c.Field == scoreField || c.Field == relevanceField {
			break // relevance orders the rest
		}
		out = append(out, c)
	}
	return out
}

// checkSort checks that the criteria of a sort input name fields.
func checkSort(in *model.SearchSortInput) error {
	for _, c := range sortCriteria(in) {
		if strings.TrimSpace(c.Field) == "" {
			return invalidf("sortInput: a sort criterion needs a field")
		}
	}
	return nil
}

// docBuilder builds search documents of a registry, with the fields each
// alias stands for.
type docBuilder struct {
	b       *search.Builder
	aliases map[string][]string
}

var docBuilders sync.Map // *registry.Registry → *docBuilder

func docBuilderOf(reg *registry.Registry) *docBuilder {
	if v, ok := docBuilders.Load(reg); ok {
		return v.(*docBuilder)
	}
	d := &docBuilder{b: search.NewBuilder(reg), aliases: map[string][]string{}}
	for _, a := range reg.Aspects() {
		for _, sp := range a.Searchable {
			for _, al := range sp.FieldNameAliases {
				if !slices.Contains(d.aliases[al], sp.FieldName) {
					d.aliases[al] = append(d.aliases[al], sp.FieldName)
				}
			}
		}
	}
	v, _ := docBuilders.LoadOrStore(reg, d)
	return v.(*docBuilder)
}

// sortHits orders hits by the criteria, keeping the relevance order among
// equals.
func (r *Resolver) sortHits(ctx context.Context, hits []catalog.SearchHit, crits []*model.SortCriterion) ([]catalog.SearchHit, error) {
	db := docBuilderOf(r.reg)
	urns := make([]string, len(hits))
	for i, h := range hits {
		urns[i] = h.URN
	}
	keys := make(map[string][]any, len(urns))
	const chunk = 1000
	for start := 0; start < len(urns); start += chunk {
		part := urns[start:min(start+chunk, len(urns))]
		rows, err := r.store.LatestAspects(ctx, part, nil)
		if err != nil {
			return nil, err
		}
		var tsAspects []string
		for _, u := range part {
			for _, a := range db.b.TimeseriesAspects(db.b.EntityOf(u)) {
				if !slices.Contains(tsAspects, a) {
					tsAspects = append(tsAspects, a)
				}
			}
		}
		series := map[string][]catalog.TimeseriesValue{}
		if len(tsAspects) > 0 {
			ts, err := r.store.LatestTimeseries(ctx, part, tsAspects)
			if err != nil {
				return nil, err
			}
			for _, v := range ts {
				series[v.URN] = append(series[v.URN], v)
			}
		}
		for _, u := range part {
			doc, ok, err := db.b.Build(u, rows[u], series[u])
			if err != nil {
				return nil, err
			}
			k := make([]any, len(crits))
			if ok {
				for i, c := range crits {
					k[i] = firstValue(doc, c.Field, db.aliases)
				}
			}
			keys[u] = k
		}
	}
	out := slices.Clone(hits)
	slices.SortStableFunc(out, func(a, b catalog.SearchHit) int {
		ka, kb := keys[a.URN], keys[b.URN]
		for i, c := range crits {
			if n := compareSortValues(ka[i], kb[i], c.SortOrder == model.SortOrderDescending); n != 0 {
				return n
			}
		}
		return 0
	})
	return out, nil
}

// firstValue is the first value of a field (or of the first field an alias
// stands for that the document has), nil when none.
func firstValue(doc catalog.Document, field string, aliases map[string][]string) any {
	field = strings.TrimSuffix(field, ".keyword")
	for _, f := range append([]string{field}, aliases[field]...) {
		if vs := doc.Fields[f]; len(vs) > 0 {
			return vs[0]
		}
	}
	return nil
}

// compareSortValues orders two sort values, missing ones last in either
// order; numbers by value, anything else as text ignoring case.
func compareSortValues(a, b any, desc bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	var n int
	fa, aNum := a.(float64)
	fb, bNum := b.(float64)
	if aNum && bNum {
		switch {
		case fa < fb:
			n = -1
		case fa > fb:
			n = 1
		}
	} else {
		sa, sb := search.ValueString(a), search.ValueString(b)
		if n = strings.Compare(strings.ToLower(sa), strings.ToLower(sb)); n == 0 {
			n = strings.Compare(sa, sb)
		}
	}
	if desc {
		n = -n
	}
	return n
}
