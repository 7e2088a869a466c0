package graphql

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// recommendationSource is one of DataHub's recommendation modules: its
// identity, the scenarios it serves and how it finds its content.
type recommendationSource struct {
	title, id  string
	renderType model.RecommendationRenderType
	scenarios  []model.ScenarioType
	usage      bool // built from usage events: only with a usage log
	// content lists the module's content for the caller actor, within the
	// view named by view (nil: none) where the module counts entities.
	content func(r *Resolver, ctx context.Context, actor string, view *string) ([]*model.RecommendationContent, error)
}

// recommendationSources are DataHub's modules, in its order.
var recommendationSources = []recommendationSource{
	{"Platforms", "Platforms", model.RecommendationRenderTypePlatformSearchList, []model.ScenarioType{model.ScenarioTypeHome}, false,
		aggregationContent("platform", 40, true)},
	{"Domains", "Domains", model.RecommendationRenderTypeDomainSearchList, []model.ScenarioType{model.ScenarioTypeHome}, false,
		aggregationContent("domains", 10, false)},
	{"Recently Viewed", "RecentlyViewedEntities", model.RecommendationRenderTypeEntityNameList, []model.ScenarioType{model.ScenarioTypeHome}, true,
		usageContent(func(u UsageReader, ctx context.Context, actor string) ([]audit.UsageEntry, error) {
			return u.RecentEntities(ctx, audit.UsageQuery{Actor: actor, Types: []string{audit.EntityViewEventType}, Limit: 2 * maxUsageContent})
		})},
	// Edits: what the web app reports (EntityActionEvent) and what the
	// user changed through GraphQL, which is how the app edits.
	{"Recently Edited", "RecentlyEditedEntities", model.RecommendationRenderTypeEntityNameList, []model.ScenarioType{model.ScenarioTypeHome}, true,
		usageContent(func(u UsageReader, ctx context.Context, actor string) ([]audit.UsageEntry, error) {
			return u.RecentEntities(ctx, audit.UsageQuery{Actor: actor, Types: []string{audit.EntityActionEventType, audit.UpdateAspectEvent},
				Sources: map[string]string{audit.UpdateAspectEvent: audit.SourceGraphQL}, Limit: 2 * maxUsageContent})
		})},
	{"Most Popular", "HighUsageEntities", model.RecommendationRenderTypeEntityNameList, []model.ScenarioType{model.ScenarioTypeHome}, true,
		usageContent(func(u UsageReader, ctx context.Context, _ string) ([]audit.UsageEntry, error) {
			return u.PopularEntities(ctx, audit.UsageQuery{Types: []string{audit.EntityViewEventType}, Limit: 2 * maxUsageContent})
		})},
	{"Top Tags", "TopTags", model.RecommendationRenderTypeTagSearchList, []model.ScenarioType{model.ScenarioTypeHome, model.ScenarioTypeSearchResults}, false,
		aggregationContent("tags", 10, false)},
	{"Top Glossary Terms", "TopTerms", model.RecommendationRenderTypeGlossaryTermSearchList, []model.ScenarioType{model.ScenarioTypeHome, model.ScenarioTypeSearchResults}, false,
		aggregationContent("glossaryTerms", 10, false)},
	{"Recent searches", "RecentSearches", model.RecommendationRenderTypeSearchQueryList, []model.ScenarioType{model.ScenarioTypeSearchBar}, true,
		recentSearchContent},
}

// maxUsageContent is how many entities or queries a usage module lists.
const maxUsageContent = 5

// ListRecommendations answers the recommendation modules of a scenario
// (the home page when none is given), as DataHub's recommendation service
// does: each eligible module in DataHub's order, those without content left
// out, at most limit modules.
func (r *queryResolver) ListRecommendations(ctx context.Context, in model.ListRecommendationsInput) (*model.ListRecommendationsResult, error) {
	scenario := model.ScenarioTypeHome
	if in.RequestContext != nil {
		scenario = in.RequestContext.Scenario
	}
	out := &model.ListRecommendationsResult{Modules: []*model.RecommendationModule{}}
	limit := len(recommendationSources)
	if in.Limit != nil {
		if *in.Limit < 0 {
			return nil, invalidf("limit must not be negative")
		}
		limit = min(limit, *in.Limit)
	}
	// The caller's own history, whatever userUrn says: one user does not
	// read another's views and searches.
	actor := actorOf(ctx)
	for _, src := range recommendationSources {
		if len(out.Modules) >= limit {
			break
		}
		if !slices.Contains(src.scenarios, scenario) || (src.usage && r.usageLog == nil) {
			continue
		}
		content, err := src.content(r.Resolver, ctx, actor, in.ViewUrn)
		if err != nil {
			return nil, err
		}
		if len(content) == 0 {
			continue
		}
		out.Modules = append(out.Modules, &model.RecommendationModule{Title: src.title, ModuleID: src.id, RenderType: src.renderType, Content: content})
	}
	return out, nil
}

// aggregationContent lists the values of a search field held by the most
// entities (at most max), each with its count and the search that finds
// them, leaving out values whose entity does not exist; with needsLogo, as
// for platforms, only those whose dataPlatformInfo has a logo.
func aggregationContent(field string, max int, needsLogo bool) func(r *Resolver, ctx context.Context, actor string, view *string) ([]*model.RecommendationContent, error) {
	return func(r *Resolver, ctx context.Context, _ string, view *string) ([]*model.RecommendationContent, error) {
		svc, err := r.searchService()
		if err != nil {
			return nil, err
		}
		ps, err := r.prepare(ctx, searchSpec{ents: searchableTypes, query: "*", viewURN: view})
		if err != nil || len(ps.ents) == 0 {
			return nil, err
		}
		res, err := svc.Search(ctx, search.SearchParams{Entities: ps.ents, Input: "*", Filter: ps.filter, Count: 0})
		if err != nil {
			return nil, err
		}
		counts := res.SearchResult.Facets[field]
		values := make([]string, 0, len(counts))
		for v := range counts {
			if model.EntityOf(v) != nil {
				values = append(values, v)
			}
		}
		sort.Slice(values, func(i, j int) bool {
			if counts[values[i]] != counts[values[j]] {
				return counts[values[i]] > counts[values[j]]
			}
			return values[i] < values[j]
		})
		live, err := r.live(ctx, values)
		if err != nil {
			return nil, err
		}
		l := r.loaderOf(ctx)
		var out []*model.RecommendationContent
		for _, v := range values {
			if len(out) >= max {
				break
			}
			if !live[v] {
				continue
			}
			if needsLogo {
				info, err := l.Aspect(ctx, v, "dataPlatformInfo")
				if err != nil {
					return nil, err
				}
				if m, _ := info.(map[string]any); jsonString(m, "logoUrl") == "" {
					continue
				}
			}
			out = append(out, &model.RecommendationContent{Value: v, Entity: model.EntityOf(v), Params: &model.RecommendationParams{
				SearchParams:  &model.SearchParams{Query: "", Filters: []*model.FacetFilter{{Field: field, Condition: ptr(model.FilterOperatorEqual), Values: []string{v}}}},
				ContentParams: &model.ContentParams{Count: ptr(int64(counts[v]))},
			}})
		}
		return out, nil
	}
}

// usageContent lists the entities read from the usage log that exist and
// are not soft-deleted, at most maxUsageContent, each linking to its page.
func usageContent(read func(u UsageReader, ctx context.Context, actor string) ([]audit.UsageEntry, error)) func(r *Resolver, ctx context.Context, actor string, view *string) ([]*model.RecommendationContent, error) {
	return func(r *Resolver, ctx context.Context, actor string, _ *string) ([]*model.RecommendationContent, error) {
		entries, err := read(r.usageLog, ctx, actor)
		if err != nil {
			return nil, err
		}
		urns := make([]string, 0, len(entries))
		for _, e := range entries {
			if model.EntityOf(e.Key) != nil && slices.Contains(searchableTypes, urnType(e.Key)) {
				urns = append(urns, e.Key)
			}
		}
		live, err := r.live(ctx, urns)
		if err != nil {
			return nil, err
		}
		var out []*model.RecommendationContent
		for _, u := range urns {
			if len(out) >= maxUsageContent {
				break
			}
			if live[u] {
				ent := model.EntityOf(u)
				out = append(out, &model.RecommendationContent{Value: u, Entity: ent, Params: &model.RecommendationParams{
					EntityProfileParams: &model.EntityProfileParams{Urn: u, Type: model.EntityTypes[urnType(u)]},
				}})
			}
		}
		return out, nil
	}
}

// recentSearchContent lists the user's latest searches that found
// something.
func recentSearchContent(r *Resolver, ctx context.Context, actor string, _ *string) ([]*model.RecommendationContent, error) {
	entries, err := r.usageLog.RecentSearches(ctx, audit.UsageQuery{Actor: actor, Types: []string{audit.SearchResultsViewEventType}, Limit: 2 * maxUsageContent})
	if err != nil {
		return nil, err
	}
	var out []*model.RecommendationContent
	for _, e := range entries {
		q := strings.TrimSpace(e.Key)
		if q == "" || q == "*" || len(out) >= maxUsageContent {
			continue
		}
		out = append(out, &model.RecommendationContent{Value: q, Params: &model.RecommendationParams{SearchParams: &model.SearchParams{Query: q}}})
	}
	return out, nil
}
