package graphql

import (
	"context"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// Browsing by folders (browseV2) walks the entities' browsePathsV2: the path
// stored, else the one DataHub derives (containers, then the parts of a
// dataset's name, else Default; see BrowsePathV2). Paths are the entries'
// ids joined by browsePathV2Delimiter, each entry a folder; a filter on
// browsePathV2 keeps the entities at a folder or below it.

// browsePathV2Field is the filter field of browse paths.
const browsePathV2Field = "browsePathV2"

// browsePathV2Delimiter separates the entries of a browse path.
const browsePathV2Delimiter = "␟"

// browseEntityTypes are the entity types browsed when none is named,
// DataHub's.
var browseEntityTypes = []string{"dataset", "dashboard", "chart", "container", "mlModel", "mlModelGroup", "mlFeatureTable", "dataFlow", "dataJob", "notebook"}

// browsePaths returns the browse path, as entry ids, of each urn.
func (r *Resolver) browsePaths(ctx context.Context, urns []string) (map[string][]string, error) {
	r.loaderOf(ctx).prime(ctx, urns)
	c := &computed{r}
	out := make(map[string][]string, len(urns))
	for _, u := range urns {
		e := model.EntityOf(u)
		if e == nil {
			continue
		}
		p, err := c.BrowsePathV2(ctx, e)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(p.Path))
		for _, x := range p.Path {
			ids = append(ids, x.Name)
		}
		out[u] = ids
	}
	return out, nil
}

// splitBrowsePath turns "␟a␟b" into its entries.
func splitBrowsePath(p string) []string {
	var out []string
	for _, x := range strings.Split(p, browsePathV2Delimiter) {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// under reports whether path lies at folder or below it.
func under(path, folder []string) bool {
	if len(path) < len(folder) {
		return false
	}
	for i, f := range folder {
		if path[i] != f {
			return false
		}
	}
	return true
}

// matchAll searches every entity a search of ents for query within filter
// finds, up to the service's page bound.
func (r *Resolver) matchAll(ctx context.Context, ents []string, query string, filter *search.FilterInput) ([]string, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: ents, Input: query, Filter: filter, Count: search.MaxPageSize, NoFacets: true})
	if err != nil {
		return nil, err
	}
	urns := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		urns[i] = h.URN
	}
	return urns, nil
}

// resolveBrowsePaths replaces the browsePathV2 criteria of a filter, which
// the stored paths alone cannot answer, by the URNs of the entities whose
// path (stored or derived) lies at the folder named or below it.
func (r *Resolver) resolveBrowsePaths(ctx context.Context, ents []string, f *search.FilterInput) (*search.FilterInput, error) {
	if f == nil {
		return nil, nil
	}
	var paths map[string][]string
	out := &search.FilterInput{}
	for _, g := range f.Or {
		and := search.ConjunctionInput{}
		for _, c := range g.And {
			if strings.TrimSuffix(c.Field, ".keyword") != browsePathV2Field {
				and.And = append(and.And, c)
				continue
			}
			if paths == nil {
				urns, err := r.matchAll(ctx, ents, "*", nil)
				if err != nil {
					return nil, err
				}
				if paths, err = r.browsePaths(ctx, urns); err != nil {
					return nil, err
				}
			}
			values := c.Values
			if len(values) == 0 && c.Value != nil {
				values = []string{*c.Value}
			}
			matched := []string{}
			for u, p := range paths {
				for _, v := range values {
					if under(p, splitBrowsePath(v)) {
						matched = append(matched, u)
						break
					}
				}
			}
			sort.Strings(matched)
			if len(matched) == 0 {
				matched = []string{"urn:li:none:none"} // no entity has this URN: nothing matches
			}
			and.And = append(and.And, search.CriterionInput{Field: search.FieldURN, Values: matched, Condition: "EQUAL", Negated: c.Negated})
		}
		out.Or = append(out.Or, and)
	}
	return out, nil
}

// BrowseV2 lists the folders one level below a browse path, with how many
// of the entities searched lie in each, as the search page's sidebar shows
// them.
func (r *queryResolver) BrowseV2(ctx context.Context, in model.BrowseV2Input) (*model.BrowseResultsV2, error) {
	var types []model.EntityType
	switch {
	case len(in.Types) > 0:
		types = in.Types
	case in.Type != nil:
		types = []model.EntityType{*in.Type}
	}
	ents := browseEntityTypes
	if len(types) > 0 {
		var err error
		if ents, err = entityNamesOf(types); err != nil {
			return nil, err
		}
	}
	s, c := page(in.Start, in.Count, 10)
	query := deref(in.Query)
	if query == "" {
		query = "*"
	}
	ps, err := r.prepare(ctx, searchSpec{ents: ents, query: query, filter: filterOf(nil, in.OrFilters), viewURN: in.ViewUrn, flags: in.SearchFlags})
	if err != nil {
		return nil, err
	}
	folder := []string{}
	for _, p := range in.Path {
		folder = append(folder, splitBrowsePath(p)...)
	}
	out := &model.BrowseResultsV2{Start: s, Count: c, Groups: []*model.BrowseResultGroupV2{},
		Metadata: &model.BrowseResultMetadata{Path: folder}}
	if len(ps.ents) == 0 {
		return out, nil
	}
	urns, err := r.matchAll(ctx, ps.ents, ps.query, ps.filter)
	if err != nil {
		return nil, err
	}
	paths, err := r.browsePaths(ctx, urns)
	if err != nil {
		return nil, err
	}
	type group struct {
		name  string
		count int
		sub   bool
	}
	byName := map[string]*group{}
	var groups []*group
	total := 0
	for _, u := range urns {
		p := paths[u]
		if len(p) <= len(folder) || !under(p, folder) {
			continue
		}
		total++
		name := p[len(folder)]
		g := byName[name]
		if g == nil {
			g = &group{name: name}
			byName[name] = g
			groups = append(groups, g)
		}
		g.count++
		g.sub = g.sub || len(p) > len(folder)+1
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].count != groups[j].count {
			return groups[i].count > groups[j].count
		}
		return groups[i].name < groups[j].name
	})
	out.Total = len(groups)
	out.Metadata.TotalNumEntities = int64(total)
	var refs []string
	for _, g := range window(groups, s, c) {
		bg := &model.BrowseResultGroupV2{Name: g.name, Count: int64(g.count), HasSubGroups: g.sub}
		if strings.HasPrefix(g.name, "urn:li:") {
			bg.Entity = model.EntityOf(g.name)
			refs = append(refs, g.name)
		}
		out.Groups = append(out.Groups, bg)
	}
	r.loaderOf(ctx).Want(refs...)
	return out, nil
}
