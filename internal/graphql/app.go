package graphql

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// This file holds what every page of DataHub's web UI asks first: the
// application's configuration, the caller's views and settings, and the
// home page's quick filters and recommendations.

// AppVersion is the DataHub release whose interface catalogd serves, as
// appConfig reports it.
const AppVersion = "v1.1.0"

// AppConfig is the configuration the web UI reads at start: DataHub's
// defaults, with the features catalogd serves.
func (r *queryResolver) AppConfig(ctx context.Context) (*model.AppConfig, error) {
	privs := make([]*model.Privilege, len(platformPrivileges))
	for i, p := range platformPrivileges {
		privs[i] = &model.Privilege{Type: p[0], DisplayName: ptr(p[1]), Description: ptr(p[2])}
	}
	return &model.AppConfig{
		AppVersion:               ptr(AppVersion),
		AuthConfig:               &model.AuthConfig{TokenAuthEnabled: true},
		AnalyticsConfig:          &model.AnalyticsConfig{Enabled: false},
		PoliciesConfig:           &model.PoliciesConfig{Enabled: r.auth != nil, PlatformPrivileges: privs, ResourcePrivileges: []*model.ResourcePrivileges{}},
		IdentityManagementConfig: &model.IdentityManagementConfig{Enabled: true},
		ManagedIngestionConfig:   &model.ManagedIngestionConfig{Enabled: true},
		LineageConfig:            &model.LineageConfig{SupportsImpactAnalysis: true},
		VisualConfig: &model.VisualConfig{
			LogoURL: ptr("/assets/platforms/datahublogo.png"), FaviconURL: ptr("/assets/icons/favicon.ico"),
			QueriesTab: &model.QueriesTabConfig{QueriesTabResultSize: ptr(5)}, EntityProfiles: &model.EntityProfilesConfig{Domain: &model.EntityProfileConfig{}},
			SearchResult: &model.SearchResultsVisualConfig{EnableNameHighlight: ptr(true)}, ShowFullTitleInLineage: ptr(false),
			Theme: &model.ThemeConfig{}, Application: &model.ApplicationConfig{ShowSidebarSectionWhenEmpty: ptr(false)},
		},
		TelemetryConfig: &model.TelemetryConfig{EnableThirdPartyLogging: ptr(false)},
		TestsConfig:     &model.TestsConfig{Enabled: false},
		ViewsConfig:     &model.ViewsConfig{Enabled: true},
		SearchBarConfig: &model.SearchBarConfig{APIVariant: model.SearchBarAPIAutocompleteForMultiple},
		HomePageConfig:  &model.HomePageConfig{FirstInPersonalSidebar: model.PersonalSidebarSectionYourAssets},
		FeatureFlags: &model.FeatureFlagsConfig{
			ShowSearchFiltersV2: true, ShowBrowseV2: true, PlatformBrowseV2: true, LineageGraphV2: true,
			NestedDomainsEnabled: true, DataContractsEnabled: true, ThemeV2Enabled: true, ThemeV2Toggleable: true,
			SchemaFieldLineageIgnoreStatus: true, ShowManageStructuredProperties: true, ShowNavBarRedesign: true,
			ShowAutoCompleteResults: true, ShowManageTags: true, ShowIntroducePage: true, ShowLineageExpandMore: true,
		},
		ChromeExtensionConfig: &model.ChromeExtensionConfig{Enabled: true, LineageEnabled: true},
	}, nil
}

// platformPrivileges are DataHub's platform privileges: type, display name,
// description.
var platformPrivileges = [][3]string{
	{auth.PrivManagePolicies, "Manage Policies", "Create and remove access control policies."},
	{auth.PrivManageIngestion, "Manage Metadata Ingestion", "Create, remove, and update Metadata Ingestion sources."},
	{"MANAGE_SECRETS", "Manage Secrets", "Create & remove Secrets stored inside DataHub."},
	{auth.PrivManageUsers, "Manage Users & Groups", "Create, remove, and update users and groups on DataHub."},
	{"VIEW_ANALYTICS", "View Analytics", "View the DataHub analytics dashboard."},
	{auth.PrivGetAnalytics, "Get Analytics", "Get analytics data through the API."},
	{auth.PrivManageDomains, "Manage Domains", "Create and remove Asset Domains."},
	{auth.PrivManageGlossaries, "Manage Glossaries", "Create, edit, and remove Glossary Entities."},
	{auth.PrivManageTags, "Manage Tags", "Create and remove Tags."},
	{auth.PrivGeneratePersonal, "Generate Personal Access Tokens", "Generate personal access tokens for use with DataHub APIs."},
	{auth.PrivManageAccessTokens, "Manage All Access Tokens", "Create, list and revoke access tokens on behalf of users."},
	{auth.PrivManageCredentials, "Manage User Credentials", "Manage credentials for native DataHub users."},
	{"CREATE_TAGS", "Create Tags", "Create new Tags."},
	{"CREATE_DOMAINS", "Create Domains", "Create new Domains."},
	{"MANAGE_GLOBAL_VIEWS", "Manage Public Views", "Create, update, and delete any Public (shared) Views."},
	{privManageHomePageTemplates, "Manage Home Page Templates", "Create, update and delete the shared home page templates and modules."},
	{"MANAGE_GLOBAL_OWNERSHIP_TYPES", "Manage Ownership Types", "Create, update and delete Ownership Types."},
	{auth.PrivManageGlobalAnnouncements, "Manage Home Page Posts", "Create and delete home page posts."},
	{auth.PrivRestoreIndices, "Restore Indices API", "Restore indices through the API."},
}

// globalSettingsURN is the entity holding DataHub's global settings.
const globalSettingsURN = "urn:li:globalSettings:0"

// GlobalViewsSettings is the default view of the instance, from the global
// settings.
func (r *queryResolver) GlobalViewsSettings(ctx context.Context) (*model.GlobalViewsSettings, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, globalSettingsURN, "globalSettingsInfo")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return &model.GlobalViewsSettings{DefaultView: nonEmpty(jsonString(m, "views", "defaultView"))}, nil
}

// BatchGetStepStates reads the caller's onboarding step states, leaving out
// those never stored.
func (r *queryResolver) BatchGetStepStates(ctx context.Context, in model.BatchGetStepStatesInput) (*model.BatchGetStepStatesResult, error) {
	l := r.loaderOf(ctx)
	urns := make([]string, len(in.Ids))
	for i, id := range in.Ids {
		urns[i] = catalog.NewURN("dataHubStepState", id)
	}
	l.Want(urns...)
	out := &model.BatchGetStepStatesResult{Results: []*model.StepStateResult{}}
	for i, u := range urns {
		v, err := l.Aspect(ctx, u, "dataHubStepStateProperties")
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		if m == nil {
			continue
		}
		res := &model.StepStateResult{ID: in.Ids[i], Properties: []*model.StringMapEntry{}}
		props, _ := m["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s := model.NewScope(u, l, 0)
		for _, k := range keys {
			res.Properties = append(res.Properties, model.NewStringMapEntry(map[string]any{"key": k, "value": props[k]}, s))
		}
		out.Results = append(out.Results, res)
	}
	return out, nil
}

// GetGrantedPrivileges lists every privilege the policies give an actor on
// a resource (or on none in particular). As in DataHub, callers ask about
// themselves unless they manage policies.
func (r *queryResolver) GetGrantedPrivileges(ctx context.Context, in model.GetGrantedPrivilegesInput) (*model.Privileges, error) {
	if r.auth == nil {
		return &model.Privileges{Privileges: []string{}}, nil
	}
	if caller := actorOf(ctx); caller != in.ActorUrn {
		if err := r.requirePlatform(ctx, "get privileges for the given actor", auth.PrivManagePolicies); err != nil {
			return nil, err
		}
	}
	var res *auth.Resource
	if in.ResourceSpec != nil {
		res = &auth.Resource{Type: entityNames[in.ResourceSpec.ResourceType], URN: in.ResourceSpec.ResourceUrn}
	}
	privs, err := r.auth.GrantedPrivileges(ctx, in.ActorUrn, res)
	if err != nil {
		return nil, err
	}
	return &model.Privileges{Privileges: privs}, nil
}

// Quick filters are DataHub's: the five platforms with the most entities
// (by URN), then up to three source entity types and two of DataHub's own,
// in these priority orders, that have entities; all within the view named.
const (
	maxQuickPlatforms      = 5
	maxQuickSourceTypes    = 3
	maxQuickDataHubTypes   = 2
	quickFilterFieldEntity = entityTypeField
)

var (
	quickSourceTypes  = []string{"dataset", "dashboard", "dataFlow", "dataJob", "chart", "container", "mlModel", "mlModelGroup", "mlFeature", "mlFeatureTable", "mlPrimaryKey"}
	quickDataHubTypes = []string{"domain", "glossaryTerm", "corpGroup", "corpuser"}
)

// GetQuickFilters offers the search bar's quick filters.
func (r *queryResolver) GetQuickFilters(ctx context.Context, in model.GetQuickFiltersInput) (*model.GetQuickFiltersResult, error) {
	zero := 0
	res, err := r.runSearch(ctx, searchSpec{ents: searchableTypes, query: "*", viewURN: in.ViewUrn, count: &zero,
		facets: []string{"platform", entityTypeField}, flags: &model.SearchFlags{MaxAggValues: ptr(search.MaxPageSize)}})
	if err != nil {
		return nil, err
	}
	counts := map[string][]*model.AggregationMetadata{}
	for _, f := range res.Facets {
		counts[f.Field] = f.Aggregations
	}
	out := &model.GetQuickFiltersResult{QuickFilters: []*model.QuickFilter{}}
	var platforms []string
	for _, a := range counts["platform"] { // by count, most first
		if len(platforms) < maxQuickPlatforms && a.Count > 0 {
			platforms = append(platforms, a.Value)
		}
	}
	sort.Strings(platforms)
	for _, p := range platforms {
		out.QuickFilters = append(out.QuickFilters, &model.QuickFilter{Field: "platform", Value: p, Entity: model.EntityOf(p)})
	}
	r.loaderOf(ctx).Want(platforms...)
	has := map[string]bool{}
	for _, a := range counts[entityTypeField] {
		has[a.Value] = a.Count > 0
	}
	for _, list := range []struct {
		types []string
		max   int
	}{{quickSourceTypes, maxQuickSourceTypes}, {quickDataHubTypes, maxQuickDataHubTypes}} {
		n := 0
		for _, e := range list.types {
			if t := string(model.EntityTypes[e]); n < list.max && has[t] {
				out.QuickFilters = append(out.QuickFilters, &model.QuickFilter{Field: quickFilterFieldEntity, Value: t})
				n++
			}
		}
	}
	return out, nil
}

// topPlatforms returns the platforms with the most searchable entities,
// most first, at most n.
func (r *Resolver) topPlatforms(ctx context.Context, n int) ([]string, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: searchableTypes, Input: "*", Count: 0})
	if err != nil {
		return nil, err
	}
	counts := res.SearchResult.Facets["platform"]
	platforms := make([]string, 0, len(counts))
	for p := range counts {
		if strings.HasPrefix(p, "urn:li:dataPlatform:") {
			platforms = append(platforms, p)
		}
	}
	sort.Slice(platforms, func(i, j int) bool {
		if counts[platforms[i]] != counts[platforms[j]] {
			return counts[platforms[i]] > counts[platforms[j]]
		}
		return platforms[i] < platforms[j]
	})
	r.loaderOf(ctx).Want(platforms...)
	return platforms[:min(len(platforms), n)], nil
}

// storedList lists the entities whose URNs start with prefix and have
// aspect stored, kept by keep, by the aspect's name member, matching query
// (a case-insensitive substring of the name; * or empty for all), paged.
func (r *Resolver) storedList(ctx context.Context, prefix, aspect string, query *string, start, count *int, keep func(info map[string]any) bool) ([]string, int, int, error) {
	rows, err := r.store.ScanLatest(ctx, catalog.ScanQuery{URNLike: prefix + "%", Aspect: aspect, Limit: maxRelated})
	if err != nil {
		return nil, 0, 0, err
	}
	q := strings.ToLower(strings.TrimSpace(deref(query)))
	type item struct{ urn, name string }
	var kept []item
	for _, a := range rows {
		v, err := decodeJSON(a.Value)
		if err != nil {
			return nil, 0, 0, err
		}
		m, _ := v.(map[string]any)
		name := jsonString(m, "name")
		if (keep != nil && !keep(m)) || (q != "" && q != "*" && !strings.Contains(strings.ToLower(name), q)) {
			continue
		}
		kept = append(kept, item{a.URN, name})
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].name < kept[j].name })
	s, c := page(start, count, 20)
	var urns []string
	for _, it := range window(kept, s, c) {
		urns = append(urns, it.urn)
	}
	r.loaderOf(ctx).Want(urns...)
	return urns, s, len(kept), nil
}

// views lists the stored views the filter keeps, by name.
func (r *Resolver) views(ctx context.Context, start, count *int, query *string, keep func(info map[string]any) bool) (*model.ListViewsResult, error) {
	urns, s, total, err := r.storedList(ctx, "urn:li:dataHubView:", "dataHubViewInfo", query, start, count, keep)
	if err != nil {
		return nil, err
	}
	out := &model.ListViewsResult{Start: s, Count: len(urns), Total: total, Views: []*model.DataHubView{}}
	for _, u := range urns {
		out.Views = append(out.Views, &model.DataHubView{Urn: u})
	}
	return out, nil
}

// ListMyViews lists the views the caller created, of the type asked.
func (r *queryResolver) ListMyViews(ctx context.Context, in model.ListMyViewsInput) (*model.ListViewsResult, error) {
	me := actorOf(ctx)
	return r.views(ctx, in.Start, in.Count, in.Query, func(m map[string]any) bool {
		return jsonString(m, "created", "actor") == me && (in.ViewType == nil || jsonString(m, "type") == string(*in.ViewType))
	})
}

// ListGlobalViews lists the views shared with everyone.
func (r *queryResolver) ListGlobalViews(ctx context.Context, in model.ListGlobalViewsInput) (*model.ListViewsResult, error) {
	return r.views(ctx, in.Start, in.Count, in.Query, func(m map[string]any) bool {
		return jsonString(m, "type") == string(model.DataHubViewTypeGlobal)
	})
}

// countOf returns how many entities of entity type e a search for query
// within filter finds.
func (r *Resolver) countOf(ctx context.Context, e, query string, filter *search.FilterInput) (int, error) {
	svc, err := r.searchService()
	if err != nil {
		return 0, err
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: []string{e}, Input: query, Filter: filter})
	if err != nil {
		return 0, err
	}
	return res.Total, nil
}

// GetEntityCounts counts the entities of each type asked (the searchable
// types when none is).
func (r *queryResolver) GetEntityCounts(ctx context.Context, in *model.EntityCountInput) (*model.EntityCountResults, error) {
	var types []model.EntityType
	if in != nil {
		types = in.Types
	}
	ents, err := entityNamesOf(types)
	if err != nil {
		return nil, err
	}
	out := &model.EntityCountResults{Counts: []*model.EntityCountResult{}}
	for _, e := range ents {
		n, err := r.countOf(ctx, e, "*", nil)
		if err != nil {
			return nil, err
		}
		out.Counts = append(out.Counts, &model.EntityCountResult{EntityType: model.EntityTypes[e], Count: n})
	}
	return out, nil
}

// AggregateAcrossEntities counts the values of the facets asked (the
// default facets when none is) over what a search finds, as the search page
// and its browse sidebar show them.
func (r *queryResolver) AggregateAcrossEntities(ctx context.Context, in model.AggregateAcrossEntitiesInput) (*model.AggregateResults, error) {
	ents, err := entityNamesOf(in.Types)
	if err != nil {
		return nil, err
	}
	var want []string
	for _, f := range in.Facets {
		if f != nil {
			want = append(want, strings.TrimSuffix(*f, ".keyword"))
		}
	}
	zero := 0
	res, err := r.runSearch(ctx, searchSpec{ents: ents, query: in.Query, filter: filterOf(nil, in.OrFilters), viewURN: in.ViewUrn,
		flags: in.SearchFlags, count: &zero, facets: want})
	if err != nil {
		return nil, err
	}
	return &model.AggregateResults{Facets: res.Facets}, nil
}

// rootGlossary lists the glossary entities of type entity (glossaryNode or
// glossaryTerm) that are in no node, by name.
func (r *Resolver) rootGlossary(ctx context.Context, entity, info string) ([]string, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: []string{entity}, Input: "*", Count: search.MaxPageSize})
	if err != nil {
		return nil, err
	}
	l := r.loaderOf(ctx)
	urns := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		urns[i] = h.URN
	}
	l.prime(ctx, urns)
	type root struct{ urn, name string }
	var roots []root
	for _, u := range urns {
		v, err := l.Aspect(ctx, u, info)
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		if jsonString(m, "parentNode") != "" {
			continue
		}
		name := jsonString(m, "name")
		if name == "" {
			name = urnPart(u, 0)
		}
		roots = append(roots, root{u, strings.ToLower(name)})
	}
	sort.SliceStable(roots, func(i, j int) bool { return roots[i].name < roots[j].name })
	out := make([]string, len(roots))
	for i, x := range roots {
		out[i] = x.urn
	}
	return out, nil
}

// GetRootGlossaryNodes lists the glossary nodes in no other node.
func (r *queryResolver) GetRootGlossaryNodes(ctx context.Context, in model.GetRootGlossaryEntitiesInput) (*model.GetRootGlossaryNodesResult, error) {
	urns, err := r.rootGlossary(ctx, "glossaryNode", "glossaryNodeInfo")
	if err != nil {
		return nil, err
	}
	out := &model.GetRootGlossaryNodesResult{Start: in.Start, Total: len(urns), Nodes: []*model.GlossaryNode{}}
	for _, u := range window(urns, in.Start, in.Count) {
		out.Nodes = append(out.Nodes, &model.GlossaryNode{Urn: u})
	}
	out.Count = len(out.Nodes)
	return out, nil
}

// GetRootGlossaryTerms lists the glossary terms in no node.
func (r *queryResolver) GetRootGlossaryTerms(ctx context.Context, in model.GetRootGlossaryEntitiesInput) (*model.GetRootGlossaryTermsResult, error) {
	urns, err := r.rootGlossary(ctx, "glossaryTerm", "glossaryTermInfo")
	if err != nil {
		return nil, err
	}
	out := &model.GetRootGlossaryTermsResult{Start: in.Start, Total: len(urns), Terms: []*model.GlossaryTerm{}}
	for _, u := range window(urns, in.Start, in.Count) {
		out.Terms = append(out.Terms, &model.GlossaryTerm{Urn: u})
	}
	out.Count = len(out.Terms)
	return out, nil
}

// IsAnalyticsEnabled is false: catalogd has no analytics dashboards.
func (r *queryResolver) IsAnalyticsEnabled(context.Context) (bool, error) { return false, nil }

// ListRoles lists DataHub's roles, by name.
func (r *queryResolver) ListRoles(ctx context.Context, in model.ListRolesInput) (*model.ListRolesResult, error) {
	urns, s, total, err := r.storedList(ctx, "urn:li:dataHubRole:", "dataHubRoleInfo", in.Query, in.Start, in.Count, nil)
	if err != nil {
		return nil, err
	}
	out := &model.ListRolesResult{Start: s, Count: len(urns), Total: total, Roles: []*model.DataHubRole{}}
	for _, u := range urns {
		out.Roles = append(out.Roles, &model.DataHubRole{Urn: u})
	}
	return out, nil
}

// IngestionSource returns an ingestion source by URN, null when none is
// stored.
func (r *queryResolver) IngestionSource(ctx context.Context, urn string) (*model.IngestionSource, error) {
	return r.ingestionSource(ctx, urn)
}

// ScrollAcrossEntities pages a search by scroll ids (the offset of the next
// page).
func (r *queryResolver) ScrollAcrossEntities(ctx context.Context, in model.ScrollAcrossEntitiesInput) (*model.ScrollResults, error) {
	ents, err := entityNamesOf(in.Types)
	if err != nil {
		return nil, err
	}
	if err := checkSort(in.SortInput); err != nil {
		return nil, err
	}
	start := 0
	if in.ScrollID != nil {
		if start, err = strconv.Atoi(*in.ScrollID); err != nil || start < 0 {
			return nil, invalidf("scrollId %q is not one this server gave", *in.ScrollID)
		}
	}
	res, err := r.runSearch(ctx, searchSpec{ents: ents, query: in.Query, filter: filterOf(nil, in.OrFilters), viewURN: in.ViewUrn,
		flags: in.SearchFlags, start: &start, count: in.Count, sort: in.SortInput})
	if err != nil {
		return nil, err
	}
	out := &model.ScrollResults{Count: res.Count, Total: res.Total, SearchResults: res.SearchResults, Facets: res.Facets}
	if next := start + res.Count; res.Count > 0 && next < res.Total {
		out.NextScrollID = ptr(strconv.Itoa(next))
	}
	return out, nil
}

// ListDataProductAssets searches the assets of a data product.
func (r *queryResolver) ListDataProductAssets(ctx context.Context, urn string, in model.SearchAcrossEntitiesInput) (*model.SearchResults, error) {
	return (&computed{r.Resolver}).DataProductEntities(ctx, &model.DataProduct{Urn: urn}, &in)
}
