package search

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

// MaxPageSize bounds count and limit, like DataHub's 10,000-result window.
const MaxPageSize = 10000

// Conditions are the filter conditions DataHub's Criterion accepts.
var Conditions = map[string]bool{
	"EQUAL": true, "IEQUAL": true, "IN": true, "CONTAIN": true, "START_WITH": true, "END_WITH": true,
	"GREATER_THAN": true, "GREATER_THAN_OR_EQUAL_TO": true, "LESS_THAN": true, "LESS_THAN_OR_EQUAL_TO": true,
	"EXISTS": true, "IS_NULL": true,
}

// NumericConditions compare numbers; their value must parse as one.
var NumericConditions = map[string]bool{
	"GREATER_THAN": true, "GREATER_THAN_OR_EQUAL_TO": true, "LESS_THAN": true, "LESS_THAN_OR_EQUAL_TO": true,
}

// CriterionInput is a rest.li Criterion as clients send it.
type CriterionInput struct {
	Field     string   `json:"field"`
	Value     *string  `json:"value,omitempty"` // deprecated single value, used when values is empty
	Values    []string `json:"values,omitempty"`
	Condition string   `json:"condition,omitempty"`
	Negated   bool     `json:"negated,omitempty"`
}

// ConjunctionInput is a rest.li ConjunctiveCriterion.
type ConjunctionInput struct {
	And []CriterionInput `json:"and"`
}

// FilterInput is a rest.li Filter: or of ands, or the deprecated flat
// criteria list (all must hold).
type FilterInput struct {
	Or       []ConjunctionInput `json:"or,omitempty"`
	Criteria []CriterionInput   `json:"criteria,omitempty"`
}

// Service answers search, browse and autocomplete requests over an engine,
// checking them against the registry first. It is safe for concurrent use.
type Service struct {
	reg       *registry.Registry
	idx       catalog.SearchIndex
	all       map[string]catalog.SearchField
	perEntity map[string]map[string]catalog.SearchField
	// display holds, per entity type, the display names of its facets
	// (filterNameOverride, else the field name).
	display map[string]map[string]string
	// keyed and keyedPerEntity hold the prefixes of the fields made per
	// key (see catalog.SearchableSpec.KeyPath).
	keyed          map[string]catalog.SearchField
	keyedPerEntity map[string]map[string]catalog.SearchField
}

// NewService returns a Service querying idx.
func NewService(reg *registry.Registry, idx catalog.SearchIndex) *Service {
	s := &Service{reg: reg, idx: idx, all: map[string]catalog.SearchField{}, perEntity: map[string]map[string]catalog.SearchField{},
		display: map[string]map[string]string{}}
	for _, f := range Fields(reg) {
		s.all[f.Name] = f
	}
	s.keyed = keyedPrefixes(reg.Aspects())
	s.keyedPerEntity = map[string]map[string]catalog.SearchField{}
	for _, e := range reg.Entities() {
		m := map[string]catalog.SearchField{}
		for _, f := range EntityFields(reg, e.Name) {
			m[f.Name] = f
		}
		s.perEntity[e.Name] = m
		s.display[e.Name] = facetDisplayNames(reg, &e)
		var specs []catalog.AspectSpec
		for _, name := range e.Aspects {
			if a := reg.Aspect(name); a != nil {
				specs = append(specs, *a)
			}
		}
		s.keyedPerEntity[e.Name] = keyedPrefixes(specs)
	}
	return s
}

// facetDisplayNames maps the facet fields of an entity type to the names
// DataHub shows for them.
func facetDisplayNames(reg *registry.Registry, e *catalog.EntitySpec) map[string]string {
	out := map[string]string{}
	for _, name := range append([]string{e.KeyAspect}, e.Aspects...) {
		a := reg.Aspect(name)
		if a == nil {
			continue
		}
		for _, sp := range a.Searchable {
			if sp.AddToFilters {
				if _, ok := out[sp.FieldName]; !ok || sp.FilterNameOverride != "" {
					out[sp.FieldName] = cmp.Or(sp.FilterNameOverride, sp.FieldName)
				}
			}
			if sp.AddHasValuesToFilters && sp.HasValuesFieldName != "" {
				out[sp.HasValuesFieldName] = sp.HasValuesFieldName
			}
		}
	}
	return out
}

// FacetDisplayName is the name DataHub shows for a facet field over the
// entity types searched (every type when none): the filterNameOverride of
// the first of them that filters by it, else the field name.
func (s *Service) FacetDisplayName(ents []string, field string) string {
	if len(ents) == 0 {
		for _, e := range s.reg.Entities() {
			ents = append(ents, e.Name)
		}
	}
	for _, e := range ents {
		if n, ok := s.display[s.canonical(e)][field]; ok {
			return n
		}
	}
	return field
}

func (s *Service) canonical(name string) string {
	if e := s.reg.Entity(name); e != nil {
		return e.Name
	}
	return name
}

// Index returns the engine the service queries.
func (s *Service) Index() catalog.SearchIndex { return s.idx }

// SearchParams is a search request.
type SearchParams struct {
	Entities []string // empty: every entity type
	Input    string
	Filter   *FilterInput
	Start    int
	Count    int
	// Facets narrows the facets counted to these fields (nil: every facet
	// field of the entity types); NoFacets counts none.
	Facets   []string
	NoFacets bool
	// EntityCounts asks for the hits of each entity type, given in
	// SearchResult.EntityCounts when the engine could count them all.
	EntityCounts bool
}

// SearchResponse is a search result with the facets that were asked for.
type SearchResponse struct {
	catalog.SearchResult
	Facets []string // facet fields in answer order
}

// Search runs a search.
func (s *Service) Search(ctx context.Context, p SearchParams) (SearchResponse, error) {
	if p.Start < 0 || p.Count < 0 {
		return SearchResponse{}, catalog.Errorf(catalog.Invalid, "start (%d) and count (%d) must not be negative", p.Start, p.Count)
	}
	if p.Count > MaxPageSize {
		return SearchResponse{}, catalog.Errorf(catalog.Invalid, "count %d exceeds the maximum of %d", p.Count, MaxPageSize)
	}
	ents, err := s.entities(p.Entities)
	if err != nil {
		return SearchResponse{}, err
	}
	filter, err := s.ParseFilter(ents, p.Filter)
	if err != nil {
		return SearchResponse{}, err
	}
	text, alts, err := s.parseInput(ents, p.Input)
	if err != nil {
		return SearchResponse{}, err
	}
	filter = and(filter, alts)
	facets := s.facets(ents)
	switch {
	case p.NoFacets:
		facets = nil
	case p.Facets != nil:
		facets = slices.DeleteFunc(slices.Clone(p.Facets), func(f string) bool { return !slices.Contains(facets, f) })
	}
	q := catalog.SearchQuery{EntityTypes: ents, Text: text, Filter: filter, Facets: facets, Start: p.Start, Count: p.Count, EntityCounts: p.EntityCounts}
	res, err := s.idx.Search(ctx, q)
	if err != nil {
		return SearchResponse{}, err
	}
	if err := s.recountShared(ctx, q, res.Facets); err != nil {
		return SearchResponse{}, err
	}
	return SearchResponse{SearchResult: res, Facets: facets}, nil
}

// recountShared recounts the facets whose field some of the entity types
// searched hold without filtering by it (a model's free-text "type" beside
// a chart's Chart Type facet) over the types that do filter by it, so that
// a facet only counts values its filter applies to.
func (s *Service) recountShared(ctx context.Context, q catalog.SearchQuery, counts map[string]map[string]int) error {
	ents := q.EntityTypes
	if len(ents) == 0 {
		for _, e := range s.reg.Entities() {
			ents = append(ents, e.Name)
		}
	}
	groups := map[string][]string{} // entity types joined → facet fields
	var order []string
	for _, f := range q.Facets {
		var filtering []string
		shared := false
		for _, e := range ents {
			sf, ok := s.perEntity[e][f]
			switch {
			case ok && sf.Filter:
				filtering = append(filtering, e)
			case ok:
				shared = true
			}
		}
		if !shared || len(filtering) == 0 {
			continue
		}
		k := strings.Join(filtering, ",")
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], f)
	}
	for _, k := range order {
		sub := q
		sub.EntityTypes, sub.Facets, sub.Start, sub.Count = strings.Split(k, ","), groups[k], 0, 0
		res, err := s.idx.Search(ctx, sub)
		if err != nil {
			return err
		}
		for _, f := range groups[k] {
			counts[f] = res.Facets[f]
		}
	}
	return nil
}

// AutocompleteParams is an autocomplete request.
type AutocompleteParams struct {
	Entities []string
	Query    string
	Field    string
	Filter   *FilterInput
	Limit    int
}

// Autocomplete suggests completions of a prefix.
func (s *Service) Autocomplete(ctx context.Context, p AutocompleteParams) ([]catalog.Suggestion, error) {
	if p.Limit < 0 {
		return nil, catalog.Errorf(catalog.Invalid, "limit %d must not be negative", p.Limit)
	}
	if p.Limit > MaxPageSize {
		return nil, catalog.Errorf(catalog.Invalid, "limit %d exceeds the maximum of %d", p.Limit, MaxPageSize)
	}
	ents, err := s.entities(p.Entities)
	if err != nil {
		return nil, err
	}
	filter, err := s.ParseFilter(ents, p.Filter)
	if err != nil {
		return nil, err
	}
	if p.Field != "" {
		if _, err := s.field(ents, p.Field); err != nil {
			return nil, err
		}
	}
	if p.Limit == 0 {
		return []catalog.Suggestion{}, nil
	}
	return s.idx.Autocomplete(ctx, catalog.AutocompleteQuery{EntityTypes: ents, Query: p.Query, Field: p.Field, Filter: filter, Limit: p.Limit})
}

// BrowseParams is a browse request.
type BrowseParams struct {
	Entity string
	Path   string
	Filter *FilterInput
	Start  int
	Limit  int
}

// Browse lists the groups and entities at a path.
func (s *Service) Browse(ctx context.Context, p BrowseParams) (catalog.BrowseResult, error) {
	if p.Start < 0 || p.Limit < 0 {
		return catalog.BrowseResult{}, catalog.Errorf(catalog.Invalid, "start (%d) and limit (%d) must not be negative", p.Start, p.Limit)
	}
	if p.Limit > MaxPageSize {
		return catalog.BrowseResult{}, catalog.Errorf(catalog.Invalid, "limit %d exceeds the maximum of %d", p.Limit, MaxPageSize)
	}
	ents, err := s.entities([]string{p.Entity})
	if err != nil {
		return catalog.BrowseResult{}, err
	}
	filter, err := s.ParseFilter(ents, p.Filter)
	if err != nil {
		return catalog.BrowseResult{}, err
	}
	return s.idx.Browse(ctx, catalog.BrowseQuery{EntityType: ents[0], Path: NormalizePath(p.Path), Filter: filter, Start: p.Start, Limit: p.Limit})
}

// entities resolves entity names (case-insensitively, as DataHub does).
func (s *Service) entities(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		if n == "" {
			return nil, catalog.Errorf(catalog.Invalid, "parameter entity is required")
		}
		e := s.reg.Entity(n)
		if e == nil {
			return nil, catalog.Errorf(catalog.Invalid, "unknown entity type %q", n)
		}
		out = append(out, e.Name)
	}
	return out, nil
}

// field resolves a filter field name for the entity types asked (all when
// none). DataHub clients may add Elasticsearch's ".keyword" suffix.
func (s *Service) field(ents []string, name string) (catalog.SearchField, error) {
	name = strings.TrimSuffix(name, ".keyword")
	if len(ents) == 0 {
		if f, ok := s.all[name]; ok {
			return f, nil
		}
		if f, ok := keyedField(s.keyed, name); ok {
			return f, nil
		}
		return catalog.SearchField{}, catalog.Errorf(catalog.Invalid, "unknown search field %q", name)
	}
	for _, e := range ents {
		if f, ok := s.perEntity[e][name]; ok {
			return f, nil
		}
	}
	for _, e := range ents {
		if f, ok := keyedField(s.keyedPerEntity[e], name); ok {
			return f, nil
		}
	}
	return catalog.SearchField{}, catalog.Errorf(catalog.Invalid, "unknown search field %q for entity type %s", name, strings.Join(ents, ", "))
}

// HasField reports whether some of the entity types (any when none) has a
// search field of that name.
func (s *Service) HasField(ents []string, name string) bool {
	_, err := s.field(ents, name)
	return err == nil
}

// ParseFilter checks a rest.li filter and turns it into the port's form.
func (s *Service) ParseFilter(ents []string, in *FilterInput) (catalog.Filter, error) {
	var out catalog.Filter
	if in == nil {
		return out, nil
	}
	groups := in.Or
	if len(groups) == 0 && len(in.Criteria) > 0 {
		groups = []ConjunctionInput{{And: in.Criteria}}
	}
	for gi, g := range groups {
		var and []catalog.Criterion
		for ci, c := range g.And {
			cr, err := s.criterion(ents, c)
			if err != nil {
				return out, catalog.WithOp("filter or["+strconv.Itoa(gi)+"].and["+strconv.Itoa(ci)+"]", err)
			}
			and = append(and, cr)
		}
		out.Or = append(out.Or, and)
	}
	return out, nil
}

func (s *Service) criterion(ents []string, c CriterionInput) (catalog.Criterion, error) {
	if c.Field == "" {
		return catalog.Criterion{}, catalog.Errorf(catalog.Invalid, "field is required")
	}
	f, err := s.field(ents, c.Field)
	if err != nil {
		return catalog.Criterion{}, err
	}
	cond := strings.ToUpper(c.Condition)
	if cond == "" {
		cond = "EQUAL"
	}
	if !Conditions[cond] {
		return catalog.Criterion{}, catalog.Errorf(catalog.Invalid, "unknown condition %q on field %s (want one of %s)", c.Condition, f.Name, conditionList())
	}
	vals := c.Values
	if len(vals) == 0 && c.Value != nil {
		vals = []string{*c.Value}
	}
	if len(vals) == 0 && cond != "EXISTS" && cond != "IS_NULL" {
		return catalog.Criterion{}, catalog.Errorf(catalog.Invalid, "condition %s on field %s needs a value", cond, f.Name)
	}
	if NumericConditions[cond] {
		if _, err := strconv.ParseFloat(vals[0], 64); err != nil {
			return catalog.Criterion{}, catalog.Errorf(catalog.Invalid, "condition %s on field %s needs a numeric value, got %q", cond, f.Name, vals[0])
		}
	}
	return catalog.Criterion{Field: f.Name, Values: vals, Condition: cond, Negated: c.Negated}, nil
}

func conditionList() string {
	var l []string
	for c := range Conditions {
		l = append(l, c)
	}
	sort.Strings(l)
	return strings.Join(l, ", ")
}

var fieldQuery = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.]*):(.+)$`)

// parseInput splits the search input into free text and, for "<field>:<value>"
// and URN inputs, alternative exact-match criteria (any may hold).
func (s *Service) parseInput(ents []string, input string) (string, []catalog.Criterion, error) {
	in := strings.TrimSpace(input)
	if in == "" || in == "*" {
		return "", nil, nil
	}
	if strings.HasPrefix(in, "urn:li:") {
		return "", []catalog.Criterion{{Field: FieldURN, Values: []string{in}, Condition: "EQUAL"}}, nil
	}
	m := fieldQuery.FindStringSubmatch(in)
	if m == nil {
		return in, nil, nil
	}
	f, err := s.field(ents, m[1])
	if err != nil {
		return in, nil, nil // not a field name: plain text that has a colon
	}
	val := strings.Trim(strings.TrimSpace(m[2]), `"`)
	alts := []catalog.Criterion{{Field: f.Name, Values: []string{val}, Condition: "IEQUAL"}}
	if (f.Type == "URN" || f.Type == "URN_PARTIAL") && !strings.HasPrefix(val, "urn:") {
		// tags:Legacy finds urn:li:tag:Legacy.
		alts = append(alts, catalog.Criterion{Field: f.Name, Values: []string{":" + val}, Condition: "END_WITH"})
	}
	return "", alts, nil
}

// and conjoins a filter with a disjunction of criteria.
func and(f catalog.Filter, alts []catalog.Criterion) catalog.Filter {
	if len(alts) == 0 {
		return f
	}
	if len(f.Or) == 0 {
		var out catalog.Filter
		for _, a := range alts {
			out.Or = append(out.Or, []catalog.Criterion{a})
		}
		return out
	}
	var out catalog.Filter
	for _, g := range f.Or {
		for _, a := range alts {
			out.Or = append(out.Or, append(append([]catalog.Criterion(nil), g...), a))
		}
	}
	return out
}

// facets returns the addToFilters fields of the entity types (all when none).
func (s *Service) facets(ents []string) []string {
	set := map[string]bool{}
	if len(ents) == 0 {
		for n, f := range s.all {
			if f.Filter {
				set[n] = true
			}
		}
	}
	for _, e := range ents {
		for n, f := range s.perEntity[e] {
			if f.Filter {
				set[n] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// RemovedFilter reports whether a filter names the removed field, in which
// case engines return soft-deleted documents too.
func RemovedFilter(f catalog.Filter) bool {
	for _, g := range f.Or {
		for _, c := range g {
			if c.Field == FieldRemoved {
				return true
			}
		}
	}
	return false
}
