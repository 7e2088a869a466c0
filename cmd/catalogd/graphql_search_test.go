package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// searchInput is the input the search page sends.
func searchInput(query string, orFilters []any, extra map[string]any) map[string]any {
	in := map[string]any{"types": []any{}, "query": query, "start": 0, "count": 10, "filters": []any{}, "orFilters": orFilters,
		"searchFlags": map[string]any{"getSuggestions": true, "includeStructuredPropertyFacets": true}}
	for k, v := range extra {
		in[k] = v
	}
	return map[string]any{"input": in}
}

func and(criteria ...map[string]any) map[string]any {
	list := make([]any, len(criteria))
	for i, c := range criteria {
		list[i] = c
	}
	return map[string]any{"and": list}
}

func crit(field string, values ...string) map[string]any {
	return map[string]any{"field": field, "values": values}
}

// facetsOf maps a result's facets by field to value → count, and lists
// the fields in answer order.
func facetsOf(t *testing.T, res any) (map[string]map[string]float64, []string, map[string]string) {
	t.Helper()
	list, _ := pick(res, []string{"facets"})
	out := map[string]map[string]float64{}
	names := map[string]string{}
	var order []string
	for _, f := range list.([]any) {
		fm := f.(map[string]any)
		field := fm["field"].(string)
		order = append(order, field)
		names[field], _ = fm["displayName"].(string)
		out[field] = map[string]float64{}
		for _, a := range fm["aggregations"].([]any) {
			am := a.(map[string]any)
			out[field][am["value"].(string)] = jsonNum(am["count"])
		}
	}
	return out, order, names
}

// num is a JSON number of an answer.
func jsonNum(v any) float64 {
	var f float64
	if _, err := fmt.Sscan(fmt.Sprint(v), &f); err != nil {
		return -1
	}
	return f
}

func resultURNs(res any) []string {
	got, _ := pick(res, []string{"searchResults", "*", "entity", "urn"})
	var out []string
	for _, u := range got.([]any) {
		out = append(out, u.(string))
	}
	return out
}

// TestGraphQLSearchPage runs what the search page sends, as the UI sends
// it, against the samples on each store: the search with DataHub's facets,
// entity type and sub type filters, suggestions for a misspelt word, the
// aggregations and autocomplete of the search bar and sidebar, and the
// searches of the entity types that once reported totals with no results.
func TestGraphQLSearchPage(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			replay := replaySamples(t, srv)
			ui := loadUIOps(t, srv)
			stamp := map[string]any{"time": 1700000000000, "actor": "urn:li:corpuser:datahub"}
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				seed("urn:li:chart:(looker,bars)", "chart", "chartInfo", map[string]any{"title": "Bars", "description": "a bar chart", "type": "BAR",
					"lastModified": map[string]any{"created": stamp, "lastModified": stamp}}),
			}, "async": "false"})
			byType := map[string]int{"chart": 1}
			for _, typ := range replay.entity {
				byType[typ]++
			}

			all := ui.run(t, "getSearchResultsForMultiple", searchInput("*", []any{}, nil))["searchAcrossEntities"]
			facets, order, names := facetsOf(t, all)
			if len(order) < 5 || order[0] != "_entityType" || order[1] != "_entityType␞typeNames" || order[2] != "platform" {
				t.Errorf("facet order = %v, want _entityType, its sub types, platform first", order)
			}
			for field, want := range map[string]string{"_entityType": "Type", "platform": "Platform", "owners": "Owned By", "tags": "Tag",
				"glossaryTerms": "Glossary Term", "container": "Container", "typeNames": "Sub Type", "origin": "Environment", "domains": "Domain",
				"_entityType␞typeNames": "Type␞Sub Type"} {
				if names[field] != want {
					t.Errorf("facet %s display name = %q, want %q", field, names[field], want)
				}
			}
			if got := facets["_entityType"]["DATASET"]; int(got) != byType["dataset"] {
				t.Errorf("_entityType DATASET = %v, want the %d datasets", got, byType["dataset"])
			}
			total, _ := pick(all, []string{"total"})
			sum := 0.0
			for _, n := range facets["_entityType"] {
				sum += n
			}
			if sum != jsonNum(total) {
				t.Errorf("entity type counts add up to %v, the search found %v", sum, total)
			}
			// A model's free-text type ("Naive Bayes classifier") is no value
			// of the Chart Type facet.
			if asJSON(facets["type"]) != `{"BAR":1}` || names["type"] != "Chart Type" {
				t.Errorf("facet type (%q) = %s, want the chart's type only", names["type"], asJSON(facets["type"]))
			}
			for field, vals := range facets {
				if len(vals) > 20 {
					t.Errorf("facet %s has %d values, more than DataHub's default maxAggValues 20", field, len(vals))
				}
			}

			// Entity type and sub type filters, as the filter panel sends them.
			sub := ui.run(t, "getSearchResultsForMultiple", searchInput("*", []any{and(crit("_entityType␞typeNames", "CONTAINER␞Database", "DATASET␞Source"))},
				map[string]any{"count": 100}))["searchAcrossEntities"]
			subFacets, _, _ := facetsOf(t, sub)
			for _, u := range resultURNs(sub) {
				if !strings.HasPrefix(u, "urn:li:container:") && !strings.HasPrefix(u, "urn:li:dataset:") {
					t.Errorf("sub type filter found %s", u)
				}
			}
			if subFacets["_entityType␞typeNames"]["CONTAINER␞Schema"] != 0 || subFacets["_entityType␞typeNames"]["CONTAINER␞Database"] == 0 ||
				subFacets["_entityType␞typeNames"]["DATASET␞Source"] == 0 {
				t.Errorf("sub type facet under the filter = %v", subFacets["_entityType␞typeNames"])
			}
			if n, _ := pick(sub, []string{"total"}); jsonNum(n) != subFacets["_entityType␞typeNames"]["CONTAINER␞Database"]+subFacets["_entityType␞typeNames"]["DATASET␞Source"] {
				t.Errorf("sub type filter found %v, its facet says %v", n, subFacets["_entityType␞typeNames"])
			}
			// A value filtered by that nothing holds stays in its facet, with 0.
			none := ui.run(t, "getSearchResultsForMultiple", searchInput("*", []any{and(crit("tags", "urn:li:tag:nowhere"))}, nil))["searchAcrossEntities"]
			if f, _, _ := facetsOf(t, none); len(f["tags"]) != 1 || f["tags"]["urn:li:tag:nowhere"] != 0 {
				t.Errorf("facets of a filter matching nothing = %v", f)
			}

			// A misspelt word: nothing found, the name word suggested.
			typo := ui.run(t, "getSearchResultsForMultiple", searchInput("custmer", []any{}, nil))["searchAcrossEntities"]
			if got, _ := pick(typo, []string{"suggestions", "0", "text"}); got != "customer" {
				t.Errorf("suggestions for custmer = %s", asJSON(typo.(map[string]any)["suggestions"]))
			}
			skip := ui.run(t, "getSearchResultsForMultiple", searchInput("customer", []any{}, map[string]any{"searchFlags": map[string]any{"skipAggregates": true, "skipHighlighting": true, "getSuggestions": true}}))["searchAcrossEntities"]
			if f, _ := pick(skip, []string{"facets"}); asJSON(f) != "[]" {
				t.Errorf("skipAggregates: facets %s", asJSON(f))
			}
			if s, _ := pick(skip, []string{"suggestions"}); asJSON(s) != "[]" {
				t.Errorf("suggestions for a word that is there: %s", asJSON(s))
			}

			// Sorted by name both ways: the samples' datasets with a name (more
			// than 20) in order, those without one after them.
			for _, order := range []string{"ASCENDING", "DESCENDING"} {
				res := ui.run(t, "getSearchResultsForMultiple", searchInput("*", []any{}, map[string]any{"types": []any{"DATASET"}, "count": 20,
					"sortInput": map[string]any{"sortCriteria": []any{map[string]any{"field": "_entityName", "sortOrder": order}}}}))["searchAcrossEntities"]
				names, _ := pick(res, []string{"searchResults", "*", "entity", "properties", "name"})
				var got []string
				for _, n := range names.([]any) {
					got = append(got, strings.ToLower(fmt.Sprint(n)))
				}
				want := slices.Clone(got)
				slices.Sort(want)
				if order == "DESCENDING" {
					slices.Reverse(want)
				}
				if len(got) != 20 || !slices.Equal(got, want) {
					t.Errorf("sorted %s by name: %v", order, got)
				}
				if n, _ := pick(res, []string{"total"}); int(jsonNum(n)) != byType["dataset"] {
					t.Errorf("sorted search found %v of %d datasets", n, byType["dataset"])
				}
			}

			// Every ML entity type searched alone answers its entities.
			for typ, name := range map[string]string{"MLFEATURE": "mlFeature", "MLPRIMARY_KEY": "mlPrimaryKey", "MLFEATURE_TABLE": "mlFeatureTable", "MLMODEL": "mlModel"} {
				res := ui.run(t, "getSearchResults", map[string]any{"input": map[string]any{"type": typ, "query": "*", "start": 0, "count": 100, "filters": []any{}}})["search"]
				urns := resultURNs(res)
				if n, _ := pick(res, []string{"total"}); len(urns) == 0 || int(jsonNum(n)) != len(urns) || len(urns) != byType[name] {
					t.Errorf("search %s: total %v, %d results, %d stored", typ, n, len(urns), byType[name])
				}
			}

			// The sidebar's aggregations: platforms of the datasets.
			agg := ui.run(t, "aggregateAcrossEntities", map[string]any{"input": map[string]any{"types": []any{"DATASET"}, "query": "*", "facets": []any{"platform"},
				"orFilters": []any{}, "searchFlags": map[string]any{"maxAggValues": 5}}})["aggregateAcrossEntities"]
			aggFacets, aggOrder, _ := facetsOf(t, agg)
			if asJSON(aggOrder) != `["platform"]` || len(aggFacets["platform"]) == 0 || len(aggFacets["platform"]) > 5 {
				t.Errorf("aggregate platform = %s", asJSON(agg))
			}
			if aggFacets["platform"]["urn:li:dataPlatform:bigquery"] != facets["platform"]["urn:li:dataPlatform:bigquery"] {
				t.Errorf("bigquery datasets: aggregate %v, search %v", aggFacets["platform"], facets["platform"])
			}

			// Quick filters: the five platforms with the most entities by URN,
			// then entity types in DataHub's priority order.
			qf := ui.run(t, "getQuickFilters", map[string]any{"input": map[string]any{}})
			var platforms []string
			for p, n := range facets["platform"] {
				platforms = append(platforms, fmt.Sprintf("%06.0f %s", 1e5-n, p))
			}
			slices.Sort(platforms)
			var want []string
			for _, p := range platforms[:5] {
				want = append(want, strings.Fields(p)[1])
			}
			slices.Sort(want)
			want = append(want, "DATASET", "DASHBOARD", "DATA_FLOW", "DOMAIN", "GLOSSARY_TERM")
			if got, _ := pick(qf, []string{"getQuickFilters", "quickFilters", "*", "value"}); asJSON(got) != asJSON(want) {
				t.Errorf("quick filters = %s, want %v", asJSON(got), want)
			}

			ac := ui.run(t, "getAutoCompleteMultipleResults", map[string]any{"input": map[string]any{"query": "cust", "limit": 10}})
			types, _ := pick(ac, []string{"autoCompleteForMultiple", "suggestions", "*", "type"})
			if !strings.Contains(asJSON(types), `"DATASET"`) {
				t.Errorf("autocomplete cust = %s", asJSON(ac))
			}
		})
	}
}

// TestGraphQLBrowseV2 walks the browse sidebar as the UI does: the folders
// of an entity type and platform, then one folder down, and searches a
// folder's entities with the browsePathV2 filter the UI adds; paths are
// the stored ones or those DataHub derives.
func TestGraphQLBrowseV2(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			replaySamples(t, srv)
			ui := loadUIOps(t, srv)
			browse := func(path []string, filters []any) map[string]any {
				t.Helper()
				d := ui.run(t, "getBrowseResultsV2", map[string]any{"input": map[string]any{"type": "DATASET", "path": path, "start": 0, "count": 20,
					"orFilters": filters, "query": "*"}})
				return d["browseV2"].(map[string]any)
			}
			bq := []any{and(crit("_entityType", "DATASET"), crit("platform", "urn:li:dataPlatform:bigquery"))}
			root := browse([]string{}, bq)
			groups, _ := pick(root, []string{"groups"})
			if got := asJSON(groups); !strings.HasPrefix(got, `[{"count":46,"entity":null,"hasSubGroups":true,"name":"bigquery-public-data"}`) {
				t.Errorf("bigquery root folders = %s", got)
			}
			rootSum := 0.0
			for _, g := range root["groups"].([]any) {
				rootSum += jsonNum(g.(map[string]any)["count"])
			}
			if n, _ := pick(root, []string{"metadata", "totalNumEntities"}); jsonNum(n) != rootSum {
				t.Errorf("bigquery root: %v entities, its folders hold %v", n, rootSum)
			}
			down := browse([]string{"bigquery-public-data"}, bq)
			sum := 0.0
			for _, g := range down["groups"].([]any) {
				sum += jsonNum(g.(map[string]any)["count"])
			}
			if n, _ := pick(down, []string{"metadata", "totalNumEntities"}); sum == 0 || jsonNum(n) != sum {
				t.Errorf("bigquery-public-data: folders hold %v, metadata says %v: %s", sum, n, asJSON(down))
			}
			if p, _ := pick(down, []string{"metadata", "path"}); asJSON(p) != `["bigquery-public-data"]` {
				t.Errorf("path = %s", asJSON(p))
			}
			// A container is a folder with the container as its entity.
			mysql := browse([]string{}, []any{and(crit("platform", "urn:li:dataPlatform:mysql"))})
			var db map[string]any
			for _, g := range mysql["groups"].([]any) {
				if g.(map[string]any)["name"] == "urn:li:container:DATABASE" {
					db = g.(map[string]any)
				}
			}
			if db == nil || db["hasSubGroups"] != true {
				t.Fatalf("mysql folders = %s", asJSON(mysql))
			}
			if u, _ := pick(db, []string{"entity", "urn"}); u != "urn:li:container:DATABASE" {
				t.Errorf("container folder entity = %v", u)
			}
			inner := browse([]string{"urn:li:container:DATABASE"}, []any{and(crit("platform", "urn:li:dataPlatform:mysql"))})
			if names, _ := pick(inner, []string{"groups", "*", "name"}); asJSON(names) != `["urn:li:container:SCHEMA"]` {
				t.Errorf("folders in the database = %s", asJSON(inner))
			}
			// The search page's results of a folder: the entities at it or below.
			res := ui.run(t, "getSearchResultsForMultiple", searchInput("*", []any{and(crit("browsePathV2", "␟bigquery-public-data"), crit("platform", "urn:li:dataPlatform:bigquery"))},
				map[string]any{"types": []any{"DATASET"}}))["searchAcrossEntities"]
			if n, _ := pick(res, []string{"total"}); jsonNum(n) != 46 {
				t.Errorf("datasets in bigquery-public-data = %v, want 46", n)
			}
		})
	}
}

// TestGraphQLViews saves views as the UI does and checks that searches,
// aggregations, scrolls, browsing, autocomplete and quick filters naming
// one keep to it, that the default view settings hold, and that the
// onboarding steps the app dismisses are recorded.
func TestGraphQLViews(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			replaySamples(t, srv)
			ui := loadUIOps(t, srv)
			hive := map[string]any{"viewType": "PERSONAL", "name": "Hive datasets", "description": "only hive",
				"definition": map[string]any{"entityTypes": []any{"DATASET"}, "filter": map[string]any{"operator": "AND",
					"filters": []any{map[string]any{"field": "platform", "values": []any{"urn:li:dataPlatform:hive"}, "condition": "EQUAL", "negated": false}}}}}
			created := ui.run(t, "createView", map[string]any{"input": hive})["createView"].(map[string]any)
			view := created["urn"].(string)
			if created["name"] != "Hive datasets" || created["viewType"] != "PERSONAL" {
				t.Errorf("created view = %s", asJSON(created))
			}
			if f, _ := pick(created, []string{"definition", "filter", "filters", "0", "values"}); asJSON(f) != `["urn:li:dataPlatform:hive"]` {
				t.Errorf("created view definition = %s", asJSON(created["definition"]))
			}
			mine, _ := pick(ui.run(t, "listMyViews", map[string]any{"start": 0, "count": 10, "viewType": "PERSONAL"}), []string{"listMyViews", "views", "*", "urn"})
			if asJSON(mine) != asJSON([]string{view}) {
				t.Errorf("my personal views = %s", asJSON(mine))
			}

			all := ui.run(t, "getSearchResultsForMultiple", searchInput("*", []any{}, nil))["searchAcrossEntities"]
			allFacets, _, _ := facetsOf(t, all)
			wantHive := allFacets["platform"]["urn:li:dataPlatform:hive"]
			inView := ui.run(t, "getSearchResultsForMultiple", searchInput("*", []any{}, map[string]any{"viewUrn": view, "count": 50}))["searchAcrossEntities"]
			urns := resultURNs(inView)
			if len(urns) == 0 || float64(len(urns)) != wantHive {
				t.Errorf("search in the view found %v, %v hive entities are stored", urns, wantHive)
			}
			for _, u := range urns {
				if !strings.HasPrefix(u, "urn:li:dataset:(urn:li:dataPlatform:hive,") {
					t.Errorf("search in the view found %s", u)
				}
			}
			agg := ui.run(t, "aggregateAcrossEntities", map[string]any{"input": map[string]any{"query": "*", "facets": []any{"_entityType", "platform"}, "viewUrn": view}})["aggregateAcrossEntities"]
			if f, _, _ := facetsOf(t, agg); asJSON(f["platform"]) != fmt.Sprintf(`{"urn:li:dataPlatform:hive":%v}`, wantHive) || asJSON(f["_entityType"]) != fmt.Sprintf(`{"DATASET":%v}`, wantHive) {
				t.Errorf("aggregations in the view = %s", asJSON(f))
			}
			b := ui.run(t, "getBrowseResultsV2", map[string]any{"input": map[string]any{"type": "DATASET", "path": []any{}, "start": 0, "count": 20, "orFilters": []any{}, "viewUrn": view, "query": "*"}})
			if n, _ := pick(b, []string{"browseV2", "metadata", "totalNumEntities"}); jsonNum(n) != wantHive {
				t.Errorf("browse in the view: %v entities, want %v", n, wantHive)
			}
			ac := ui.run(t, "getAutoCompleteMultipleResults", map[string]any{"input": map[string]any{"query": "s", "limit": 10, "viewUrn": view}})
			if types, _ := pick(ac, []string{"autoCompleteForMultiple", "suggestions", "*", "type"}); asJSON(types) != `["DATASET"]` {
				t.Errorf("autocomplete in the view = %s", asJSON(ac))
			}
			qf := ui.run(t, "getQuickFilters", map[string]any{"input": map[string]any{"viewUrn": view}})
			if got, _ := pick(qf, []string{"getQuickFilters", "quickFilters", "*", "value"}); asJSON(got) != `["urn:li:dataPlatform:hive","DATASET"]` {
				t.Errorf("quick filters in the view = %s", asJSON(qf))
			}
			scroll := ui.run(t, "scrollAcrossEntities", map[string]any{"input": map[string]any{"query": "*", "count": 50, "viewUrn": view}})
			if n, _ := pick(scroll, []string{"scrollAcrossEntities", "total"}); jsonNum(n) != wantHive {
				t.Errorf("scroll in the view: %v, want %v", n, wantHive)
			}

			// The home page's modules that count entities count those in
			// the view.
			platforms := func(view any) []any {
				t.Helper()
				rec := ui.run(t, "listRecommendations", map[string]any{"input": map[string]any{"userUrn": "urn:li:corpuser:datahub",
					"requestContext": map[string]any{"scenario": "HOME"}, "limit": 10, "viewUrn": view}})
				mods, _ := pick(rec, []string{"listRecommendations", "modules"})
				for _, m := range mods.([]any) {
					if m.(map[string]any)["moduleId"] == "Platforms" {
						got, _ := pick(m, []string{"content", "*", "value"})
						return got.([]any)
					}
				}
				return nil
			}
			if all, inView := platforms(nil), platforms(view); len(all) < 2 || asJSON(inView) != `["urn:li:dataPlatform:hive"]` {
				t.Errorf("home page platforms: %s everywhere, %s in the view, want hive alone in it", asJSON(all), asJSON(inView))
			}

			renamed := ui.run(t, "updateView", map[string]any{"urn": view, "input": map[string]any{"name": "Hive"}})["updateView"].(map[string]any)
			if renamed["name"] != "Hive" || renamed["description"] != "only hive" {
				t.Errorf("updated view = %s", asJSON(renamed))
			}
			ui.run(t, "updateCorpUserViewsSettings", map[string]any{"input": map[string]any{"defaultView": view}})
			if got, _ := pick(ui.run(t, "getMe", nil), []string{"me", "corpUser", "settings", "views", "defaultView", "urn"}); got != view {
				t.Errorf("my default view = %v, want %s", got, view)
			}
			if r := srv.gql(t, ui.docs.text(t, "updateGlobalViewsSettings"), map[string]any{"input": map[string]any{"defaultView": view}}); len(r.Errors) == 0 {
				t.Errorf("a personal view became the global default")
			}
			global := hive
			global["viewType"], global["name"] = "GLOBAL", "Everyone's hive"
			gv := ui.run(t, "createView", map[string]any{"input": global})["createView"].(map[string]any)["urn"].(string)
			ui.run(t, "updateGlobalViewsSettings", map[string]any{"input": map[string]any{"defaultView": gv}})
			if got := asJSON(ui.run(t, "getGlobalViewsSettings", nil)); got != fmt.Sprintf(`{"globalViewsSettings":{"defaultView":%q}}`, gv) {
				t.Errorf("global views settings = %s", got)
			}
			globals, _ := pick(ui.run(t, "listGlobalViews", map[string]any{"start": 0, "count": 10}), []string{"listGlobalViews", "views", "*", "urn"})
			if asJSON(globals) != asJSON([]string{gv}) {
				t.Errorf("global views = %s", asJSON(globals))
			}

			ui.run(t, "deleteView", map[string]any{"urn": view})
			if n, _ := pick(ui.run(t, "listMyViews", map[string]any{"start": 0, "count": 10, "viewType": "PERSONAL"}), []string{"listMyViews", "total"}); jsonNum(n) != 0 {
				t.Errorf("personal views after deleting = %v", n)
			}
			if r := srv.gql(t, ui.docs.text(t, "updateView"), map[string]any{"urn": view, "input": map[string]any{"name": "x"}}); len(r.Errors) == 0 {
				t.Errorf("a deleted view was updated")
			}

			steps := []any{map[string]any{"id": "urn:li:corpuser:datahub-search-onboarding", "properties": []any{map[string]any{"key": "completed", "value": "true"}}}}
			upd := ui.run(t, "batchUpdateStepStates", map[string]any{"input": map[string]any{"states": steps}})
			if got := asJSON(upd); got != `{"batchUpdateStepStates":{"results":[{"id":"urn:li:corpuser:datahub-search-onboarding","succeeded":true}]}}` {
				t.Errorf("batchUpdateStepStates = %s", got)
			}
			got := ui.run(t, "batchGetStepStates", map[string]any{"input": map[string]any{"ids": []any{"urn:li:corpuser:datahub-search-onboarding", "urn:li:corpuser:datahub-home"}}})
			if asJSON(got) != `{"batchGetStepStates":{"results":[{"id":"urn:li:corpuser:datahub-search-onboarding","properties":[{"key":"completed","value":"true"}]}]}}` {
				t.Errorf("batchGetStepStates = %s", asJSON(got))
			}
		})
	}
}

// TestGraphQLSearchFlags checks the search flags DataHub's clients send that
// change what a search finds: by default a versioned entity shows only in
// its latest version, and soft-deleted entities only when asked for.
func TestGraphQLSearchFlags(t *testing.T) {
	srv := startServer(t)
	replaySamples(t, srv)
	ui := loadUIOps(t, srv)
	const old, gone = "urn:li:dataset:(urn:li:dataPlatform:hive,zzold_orders,PROD)", "urn:li:dataset:(urn:li:dataPlatform:hive,zzgone_orders,PROD)"
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
		seed(old, "dataset", "datasetProperties", map[string]any{"name": "zzold_orders"}),
		seed(old, "dataset", "versionProperties", map[string]any{"versionSet": "urn:li:versionSet:(orders,dataset)", "version": map[string]any{"versionTag": "1"},
			"sortId": "AAAAAAAA", "isLatest": false}),
		seed(gone, "dataset", "datasetProperties", map[string]any{"name": "zzgone_orders"}),
		seed(gone, "dataset", "status", map[string]any{"removed": true}),
	}, "async": "false"})
	for _, c := range []struct {
		name  string
		flags map[string]any
		want  []string
	}{
		{"defaults", map[string]any{}, nil},
		{"every version", map[string]any{"filterNonLatestVersions": false}, []string{old}},
		{"soft-deleted too", map[string]any{"includeSoftDeleted": true}, []string{gone}},
		{"both", map[string]any{"includeSoftDeleted": true, "filterNonLatestVersions": false}, []string{gone, old}},
	} {
		res := ui.run(t, "getSearchResultsForMultiple", searchInput("zz*", []any{}, map[string]any{"searchFlags": c.flags}))["searchAcrossEntities"]
		got := resultURNs(res)
		slices.Sort(got)
		if asJSON(got) != asJSON(c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%s: found %v, want %v", c.name, got, c.want)
		}
	}
}

// TestGraphQLViewsPrivileges checks who may change views: anyone their own
// personal views, only holders of Manage Public Views the global ones and
// the global default, and nobody else's personal view.
func TestGraphQLViewsPrivileges(t *testing.T) {
	s := startAuthServer(t)
	reader, _ := s.cliToken(t, "reader")
	const create = `mutation($in: CreateViewInput!) { createView(input: $in) { urn viewType } }`
	view := func(typ string) map[string]any {
		return map[string]any{"in": map[string]any{"viewType": typ, "name": "mine", "definition": map[string]any{"entityTypes": []any{"DATASET"},
			"filter": map[string]any{"operator": "AND", "filters": []any{}}}}}
	}
	var mine struct{ Urn string }
	s.mustGQL(t, reader, create, view("PERSONAL"), "createView", &mine)
	var admins struct{ Urn string }
	s.mustGQL(t, s.admin, create, view("PERSONAL"), "createView", &admins)
	var global struct{ Urn string }
	s.mustGQL(t, s.admin, create, view("GLOBAL"), "createView", &global)
	refused := func(what string, r gqlResult) {
		t.Helper()
		if len(r.Errors) != 1 || r.Errors[0].Extensions["type"] != "UNAUTHORIZED" {
			t.Errorf("%s: errors %+v, want UNAUTHORIZED", what, r.Errors)
		}
	}
	refused("a reader creating a global view", s.gql(t, reader, create, view("GLOBAL")))
	const update = `mutation($urn: String!) { updateView(urn: $urn, input: {name: "renamed"}) { name } }`
	refused("a reader renaming another's personal view", s.gql(t, reader, update, map[string]any{"urn": admins.Urn}))
	refused("a reader renaming a global view", s.gql(t, reader, update, map[string]any{"urn": global.Urn}))
	refused("a reader deleting a global view", s.gql(t, reader, `mutation($urn: String!) { deleteView(urn: $urn) }`, map[string]any{"urn": global.Urn}))
	refused("a reader setting the global default", s.gql(t, reader, `mutation($v: String) { updateGlobalViewsSettings(input: {defaultView: $v}) }`, map[string]any{"v": global.Urn}))
	s.mustGQL(t, reader, update, map[string]any{"urn": mine.Urn}, "updateView", nil)
	s.mustGQL(t, s.admin, update, map[string]any{"urn": global.Urn}, "updateView", nil)
	s.mustGQL(t, reader, `mutation($v: String) { updateCorpUserViewsSettings(input: {defaultView: $v}) }`, map[string]any{"v": mine.Urn}, "updateCorpUserViewsSettings", nil)
	s.mustGQL(t, s.admin, `mutation($v: String) { updateGlobalViewsSettings(input: {defaultView: $v}) }`, map[string]any{"v": global.Urn}, "updateGlobalViewsSettings", nil)
	s.mustGQL(t, reader, `mutation($urn: String!) { deleteView(urn: $urn) }`, map[string]any{"urn": mine.Urn}, "deleteView", nil)
}
