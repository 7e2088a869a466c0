package restli

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/search"
)

// RegisterSearch serves search, searchAcrossEntities, browse and
// autocomplete on /entities, and restoreIndices on /operations (and its
// /gms and /api/gms aliases) and /aspects. restorer may be nil, in which
// case restoreIndices is not offered.
func (h *Handler) RegisterSearch(svc *search.Service, restorer *search.Restorer) {
	s := &searchActions{svc: svc, restorer: restorer}
	h.HandleAction("entities", "search", s.search)
	h.HandleAction("entities", "searchAcrossEntities", s.searchAcross)
	h.HandleAction("entities", "browse", s.browse)
	h.HandleAction("entities", "autocomplete", s.autocomplete)
	if restorer != nil {
		h.HandleAction("operations", "restoreIndices", s.restoreIndices)
		h.HandleAction("aspects", "restoreIndices", s.restoreIndices)
	}
}

type searchActions struct {
	svc      *search.Service
	restorer *search.Restorer
}

// searchResult is DataHub's (older-generation) SearchResult, the shape the
// specification names: entities as URN strings, matches parallel to them.
type searchResult struct {
	NumEntities int            `json:"numEntities"`
	PageSize    int            `json:"pageSize"`
	From        int            `json:"from"`
	Metadata    searchMetadata `json:"metadata"`
	Entities    []string       `json:"entities"`
}

type searchMetadata struct {
	URNs                  []string          `json:"urns"`
	Matches               []matchMetadata   `json:"matches"`
	SearchResultMetadatas []aggregationMeta `json:"searchResultMetadatas"`
}

type matchMetadata struct {
	MatchedFields []matchedField `json:"matchedFields"`
}

type matchedField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type browseGroup struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

type aggregationMeta struct {
	Name         string         `json:"name"`
	Aggregations map[string]int `json:"aggregations"`
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

func (s *searchActions) search(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		Input        *string             `json:"input"`
		Entity       string              `json:"entity"`
		Start        *int                `json:"start"`
		Count        *int                `json:"count"`
		Filter       *search.FilterInput `json:"filter"`
		Sort         json.RawMessage     `json:"sort"`
		SortCriteria json.RawMessage     `json:"sortCriteria"`
		Fulltext     *bool               `json:"fulltext"`
		SearchFlags  json.RawMessage     `json:"searchFlags"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	if p.Entity == "" {
		return nil, catalog.Errorf(catalog.Invalid, "parameter entity is required")
	}
	if p.Input == nil {
		return nil, catalog.Errorf(catalog.Invalid, "parameter input is required")
	}
	return s.run(ctx, search.SearchParams{Entities: []string{p.Entity}, Input: *p.Input, Filter: p.Filter, Start: intOr(p.Start, 0), Count: intOr(p.Count, 10)})
}

func (s *searchActions) searchAcross(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		Entities      []string            `json:"entities"`
		Input         *string             `json:"input"`
		Start         *int                `json:"start"`
		Count         *int                `json:"count"`
		Filter        *search.FilterInput `json:"filter"`
		SortCriterion json.RawMessage     `json:"sortCriterion"`
		SortCriteria  json.RawMessage     `json:"sortCriteria"`
		SearchFlags   json.RawMessage     `json:"searchFlags"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	if p.Input == nil {
		return nil, catalog.Errorf(catalog.Invalid, "parameter input is required")
	}
	return s.run(ctx, search.SearchParams{Entities: p.Entities, Input: *p.Input, Filter: p.Filter, Start: intOr(p.Start, 0), Count: intOr(p.Count, 10)})
}

func (s *searchActions) run(ctx context.Context, p search.SearchParams) (any, error) {
	res, err := s.svc.Search(ctx, p)
	if err != nil {
		return nil, err
	}
	out := searchResult{
		NumEntities: res.Total, PageSize: p.Count, From: p.Start,
		Metadata: searchMetadata{URNs: []string{}, Matches: []matchMetadata{}, SearchResultMetadatas: []aggregationMeta{}},
		Entities: []string{},
	}
	for _, h := range res.Hits {
		out.Entities = append(out.Entities, h.URN)
		out.Metadata.URNs = append(out.Metadata.URNs, h.URN)
		mf := make([]matchedField, 0, len(h.MatchedFields))
		for _, m := range h.MatchedFields {
			mf = append(mf, matchedField{Name: m.Name, Value: m.Value})
		}
		out.Metadata.Matches = append(out.Metadata.Matches, matchMetadata{MatchedFields: mf})
	}
	for _, f := range res.Facets {
		agg := res.SearchResult.Facets[f]
		if agg == nil {
			agg = map[string]int{}
		}
		out.Metadata.SearchResultMetadatas = append(out.Metadata.SearchResultMetadatas, aggregationMeta{Name: f, Aggregations: agg})
	}
	return out, nil
}

// browseResult is DataHub's BrowseResult, with the groups both at the top
// level (newer servers) and in metadata (older ones).
type browseResult struct {
	NumEntities int            `json:"numEntities"`
	PageSize    int            `json:"pageSize"`
	From        int            `json:"from"`
	NumGroups   int            `json:"numGroups"`
	NumElements int            `json:"numElements"`
	Metadata    browseMetadata `json:"metadata"`
	Groups      []browseGroup  `json:"groups"`
	Entities    []browseEntity `json:"entities"`
}

type browseMetadata struct {
	Path             string        `json:"path"`
	TotalNumEntities int           `json:"totalNumEntities"`
	Groups           []browseGroup `json:"groups"`
}

type browseEntity struct {
	Name string `json:"name"`
	URN  string `json:"urn"`
}

func (s *searchActions) browse(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		Path        *string             `json:"path"`
		Entity      string              `json:"entity"`
		Start       *int                `json:"start"`
		Limit       *int                `json:"limit"`
		Filter      *search.FilterInput `json:"filter"`
		SearchFlags json.RawMessage     `json:"searchFlags"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	if p.Entity == "" {
		return nil, catalog.Errorf(catalog.Invalid, "parameter entity is required")
	}
	path := ""
	if p.Path != nil {
		path = *p.Path
	}
	bp := search.BrowseParams{Entity: p.Entity, Path: path, Filter: p.Filter, Start: intOr(p.Start, 0), Limit: intOr(p.Limit, 10)}
	res, err := s.svc.Browse(ctx, bp)
	if err != nil {
		return nil, err
	}
	groups := make([]browseGroup, 0, len(res.Groups))
	for _, g := range res.Groups {
		groups = append(groups, browseGroup{Name: g.Name, Count: g.Count})
	}
	out := browseResult{
		NumEntities: res.NumEntities, PageSize: bp.Limit, From: bp.Start,
		NumGroups: res.NumGroups, NumElements: res.NumGroups + res.NumEntities,
		Metadata: browseMetadata{Path: path, TotalNumEntities: res.Total, Groups: groups},
		Groups:   groups,
		Entities: []browseEntity{},
	}
	for _, u := range res.URNs {
		out.Entities = append(out.Entities, browseEntity{Name: u, URN: u})
	}
	return out, nil
}

type autocompleteResult struct {
	Query       string               `json:"query"`
	Suggestions []string             `json:"suggestions"`
	Entities    []autocompleteEntity `json:"entities"`
}

type autocompleteEntity struct {
	URN string `json:"urn"`
}

func (s *searchActions) autocomplete(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		Query       *string             `json:"query"`
		Entity      string              `json:"entity"`
		Limit       *int                `json:"limit"`
		Start       *int                `json:"start"` // sent by DataHub's docs examples; ignored
		Field       string              `json:"field"`
		Filter      *search.FilterInput `json:"filter"`
		SearchFlags json.RawMessage     `json:"searchFlags"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	if p.Entity == "" {
		return nil, catalog.Errorf(catalog.Invalid, "parameter entity is required")
	}
	if p.Query == nil {
		return nil, catalog.Errorf(catalog.Invalid, "parameter query is required")
	}
	sugg, err := s.svc.Autocomplete(ctx, search.AutocompleteParams{Entities: []string{p.Entity}, Query: *p.Query, Field: p.Field, Filter: p.Filter, Limit: intOr(p.Limit, 10)})
	if err != nil {
		return nil, err
	}
	out := autocompleteResult{Query: *p.Query, Suggestions: []string{}, Entities: []autocompleteEntity{}}
	for _, sg := range sugg {
		out.Suggestions = append(out.Suggestions, sg.Text)
		out.Entities = append(out.Entities, autocompleteEntity{URN: sg.URN})
	}
	return out, nil
}

func (s *searchActions) restoreIndices(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		URN          string `json:"urn"`
		Aspect       string `json:"aspect"`
		URNLike      string `json:"urnLike"`
		Start        *int   `json:"start"`
		BatchSize    *int   `json:"batchSize"`
		Limit        *int   `json:"limit"`
		GePitEpochMs *int64 `json:"gePitEpochMs"`
		LePitEpochMs *int64 `json:"lePitEpochMs"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	args := search.RestoreArgs{URN: p.URN, URNLike: p.URNLike, Aspect: p.Aspect, Start: intOr(p.Start, 0), BatchSize: intOr(p.BatchSize, 10)}
	if args.Start < 0 || args.BatchSize < 0 {
		return nil, catalog.Errorf(catalog.Invalid, "start (%d) and batchSize (%d) must not be negative", args.Start, args.BatchSize)
	}
	res, err := s.restorer.Restore(ctx, args)
	if err != nil {
		return nil, err
	}
	return res.String(), nil
}
