package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/contract"
)

// uiPages are the operations DataHub's web UI sends first on each entity
// page, with the entity type of the URN they take.
var uiPages = map[string]string{
	"getDataset": "dataset", "getChart": "chart", "getDashboard": "dashboard", "getDataFlow": "dataFlow",
	"getDataJob": "dataJob", "getContainer": "container", "getDomain": "domain", "getGlossaryTerm": "glossaryTerm",
	"getGlossaryNode": "glossaryNode", "getTag": "tag", "getUser": "corpuser", "getGroup": "corpGroup",
	"getMLModel": "mlModel", "getMLModelGroup": "mlModelGroup", "getMLFeature": "mlFeature",
	"getMLFeatureTable": "mlFeatureTable", "getMLPrimaryKey": "mlPrimaryKey", "getDataProduct": "dataProduct",
	"getBusinessAttribute": "businessAttribute", "getDataPlatform": "dataPlatform", "getSchemaField": "schemaField",
	"getDataProcessInstance": "dataProcessInstance", "getApplication": "application",
	"getERModelRelationship": "erModelRelationship", "getStructuredProperty": "structuredProperty",
	"getView": "dataHubView", "getQuery": "query", "getTest": "test",
}

// pageSeeds are proposals for entity types the samples have none of, so
// that every entity page has an entity to show: each with the aspects its
// page shows first.
var pageSeeds = []map[string]any{
	seed("urn:li:mlFeature:(fraud,amount)", "mlFeature", "mlFeatureProperties", map[string]any{"description": "amount of the payment", "dataType": "CONTINUOUS"}),
	seed("urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,payments)", "mlFeatureTable", "mlFeatureTableProperties",
		map[string]any{"description": "payment features", "mlFeatures": []any{"urn:li:mlFeature:(fraud,amount)"}, "mlPrimaryKeys": []any{"urn:li:mlPrimaryKey:(fraud,payment_id)"}}),
	seed("urn:li:mlPrimaryKey:(fraud,payment_id)", "mlPrimaryKey", "mlPrimaryKeyProperties", map[string]any{"description": "payment id", "dataType": "ORDINAL", "sources": []any{}}),
	seed("urn:li:mlModelGroup:(urn:li:dataPlatform:sagemaker,fraud,PROD)", "mlModelGroup", "mlModelGroupProperties", map[string]any{"description": "fraud models"}),
	seed("urn:li:mlModel:(urn:li:dataPlatform:sagemaker,fraud-v1,PROD)", "mlModel", "mlModelProperties",
		map[string]any{"description": "fraud model", "groups": []any{"urn:li:mlModelGroup:(urn:li:dataPlatform:sagemaker,fraud,PROD)"}}),
	seed("urn:li:dataProduct:payments", "dataProduct", "dataProductProperties", map[string]any{"name": "Payments", "description": "payment data",
		"assets": []any{map[string]any{"destinationUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"}}}),
	seed("urn:li:businessAttribute:amount", "businessAttribute", "businessAttributeInfo", map[string]any{"name": "amount", "fieldPath": "amount", "description": "an amount of money"}),
	seed("urn:li:application:billing", "application", "applicationProperties", map[string]any{"name": "Billing", "description": "the billing application"}),
	seed("urn:li:dataProcessInstance:run-1", "dataProcessInstance", "dataProcessInstanceProperties",
		map[string]any{"name": "run 1", "created": map[string]any{"time": 1700000000000, "actor": "urn:li:corpuser:datahub"}}),
	seed("urn:li:erModelRelationship:orders-customers", "erModelRelationship", "erModelRelationshipProperties", map[string]any{"name": "orders to customers",
		"source": "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)", "destination": "urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)",
		"relationshipFieldMappings": []any{map[string]any{"sourceField": "field_foo", "destinationField": "user_id"}}}),
	seed("urn:li:structuredProperty:io.acryl.retention", "structuredProperty", "propertyDefinition", map[string]any{"qualifiedName": "io.acryl.retention",
		"valueType": "urn:li:dataType:datahub.number", "entityTypes": []any{"urn:li:entityType:datahub.dataset"}, "displayName": "Retention"}),
	seed("urn:li:dataHubView:all-hive", "dataHubView", "dataHubViewInfo", map[string]any{"name": "Hive", "type": "GLOBAL",
		"definition": map[string]any{"entityTypes": []any{"DATASET"}, "filter": map[string]any{"or": []any{map[string]any{"and": []any{map[string]any{"field": "platform", "value": "urn:li:dataPlatform:hive", "values": []any{"urn:li:dataPlatform:hive"}, "condition": "EQUAL"}}}}}},
		"created":    map[string]any{"time": 1700000000000, "actor": "urn:li:corpuser:datahub"}, "lastModified": map[string]any{"time": 1700000000000, "actor": "urn:li:corpuser:datahub"}}),
	seed("urn:li:query:top-users", "query", "queryProperties", map[string]any{"name": "top users", "statement": map[string]any{"value": "select * from users", "language": "SQL"},
		"source": "MANUAL", "created": map[string]any{"time": 1700000000000, "actor": "urn:li:corpuser:datahub"}, "lastModified": map[string]any{"time": 1700000000000, "actor": "urn:li:corpuser:datahub"}}),
	seed("urn:li:test:freshness", "test", "testInfo", map[string]any{"name": "freshness", "category": "quality", "definition": map[string]any{"type": "JSON", "json": "{}"}}),
	seed("urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD),field_foo)", "schemaField", "status", map[string]any{"removed": false}),
}

func seed(urn, entity, aspect string, value any) map[string]any {
	b, _ := json.Marshal(value)
	return map[string]any{"entityType": entity, "entityUrn": urn, "changeType": "UPSERT", "aspectName": aspect,
		"aspect": map[string]any{"value": string(b), "contentType": "application/json"}}
}

// TestGraphQLEntityPages runs the first query of every entity page of
// DataHub's web UI, exactly as the UI sends it, against a server loaded
// with DataHub's samples: each must answer the entity with no error, and
// what it shows of the entity's aspects must be what is stored.
func TestGraphQLEntityPages(t *testing.T) {
	dir := filepath.Join(samplesDir(t), "..", "datahub-ui")
	ops, err := contract.UIOperations(dir)
	if err != nil {
		t.Skipf("DataHub's web UI documents: %v", err)
	}
	srv := startServer(t)
	replay := replaySamples(t, srv)
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": pageSeeds, "async": "false"})
	byType := map[string][]string{}
	for urn, typ := range replay.entity {
		byType[typ] = append(byType[typ], urn)
	}
	for _, p := range pageSeeds {
		byType[p["entityType"].(string)] = append(byType[p["entityType"].(string)], p["entityUrn"].(string))
	}
	for _, urns := range byType {
		sort.Strings(urns)
	}
	seen := map[string]bool{}
	compared := 0
	for _, op := range ops {
		typ, ok := uiPages[op.Name]
		if !ok || seen[op.Name] {
			continue
		}
		seen[op.Name] = true
		urns := byType[typ]
		if len(urns) == 0 {
			t.Errorf("%s: no %s to show", op.Name, typ)
			continue
		}
		t.Run(op.Name, func(t *testing.T) {
			for _, urn := range urns {
				r := srv.gql(t, op.Text(), pageVariables(op, urn))
				if len(r.Errors) > 0 {
					t.Errorf("%s: %d errors, first: %v", urn, len(r.Errors), r.Errors[0])
					continue
				}
				var root map[string]any
				for _, v := range r.Data {
					root, _ = v.(map[string]any)
				}
				if root == nil || root["urn"] != urn {
					t.Errorf("%s: answered %v", urn, r.Data)
					continue
				}
				v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(urn), nil))
				stored, _ := v2["aspects"].(map[string]any)
				compared += compareStored(t, urn, root, stored)
			}
		})
	}
	for op := range uiPages {
		if !seen[op] {
			t.Errorf("%s: not an operation of the UI", op)
		}
	}
	// The samples hold hundreds of owners, tags, terms, fields and links.
	t.Logf("compared %d values with the stored aspects", compared)
	if compared < 500 {
		t.Errorf("compared %d values with the stored aspects, want hundreds", compared)
	}
}

// pageChecks are what entity pages show of stored aspects: a path in the
// page's answer (a list at "*"), the aspect and the path in it that must
// hold the same values. {} in an aspect name is the entity's properties
// aspect (propertiesAspects).
var pageChecks = []struct {
	shown, aspect, stored string
}{
	{"ownership/owners/*/owner/urn", "ownership", "owners/*/owner"},
	{"globalTags/tags/*/tag/urn", "globalTags", "tags/*/tag"},
	{"glossaryTerms/terms/*/term/urn", "glossaryTerms", "terms/*/urn"},
	{"institutionalMemory/elements/*/url", "institutionalMemory", "elements/*/url"},
	{"institutionalMemory/elements/*/description", "institutionalMemory", "elements/*/description"},
	{"schemaMetadata/fields/*/fieldPath", "schemaMetadata", "fields/*/fieldPath"},
	{"schemaMetadata/fields/*/nativeDataType", "schemaMetadata", "fields/*/nativeDataType"},
	{"editableSchemaMetadata/editableSchemaFieldInfo/*/fieldPath", "editableSchemaMetadata", "editableSchemaFieldInfo/*/fieldPath"},
	{"subTypes/typeNames/*", "subTypes", "typeNames/*"},
	{"container/urn", "container", "container"},
	{"domain/domain/urn", "domains", "domains/0"},
	{"deprecation/deprecated", "deprecation", "deprecated"},
	{"deprecation/note", "deprecation", "note"},
	{"status/removed", "status", "removed"},
	{"properties/description", "{}", "description|definition"},
	{"properties/customProperties/*/key", "{}", "customProperties/*key"},
	{"properties/externalUrl", "{}", "externalUrl"},
	{"properties/qualifiedName", "{}", "qualifiedName"},
	{"properties/colorHex", "{}", "colorHex"},
	{"properties/email", "{}", "email"},
	{"properties/displayName", "{}", "displayName"},
	{"editableProperties/description", "{editable}", "description"},
	{"info/displayName", "{}", "displayName"},
	{"dataPlatformInstance/urn", "dataPlatformInstance", "instance"},
}

// propertiesAspects name the properties aspect and the editable one of the
// entity types whose pages show them.
var propertiesAspects = map[string][2]string{
	"dataset": {"datasetProperties", "editableDatasetProperties"}, "chart": {"chartInfo", "editableChartProperties"},
	"dashboard": {"dashboardInfo", "editableDashboardProperties"}, "dataFlow": {"dataFlowInfo", "editableDataFlowProperties"},
	"dataJob": {"dataJobInfo", "editableDataJobProperties"}, "container": {"containerProperties", "editableContainerProperties"},
	"domain": {"domainProperties", ""}, "glossaryTerm": {"glossaryTermInfo", ""}, "glossaryNode": {"glossaryNodeInfo", ""},
	"tag": {"tagProperties", ""}, "corpuser": {"corpUserInfo", "corpUserEditableInfo"}, "corpGroup": {"corpGroupInfo", "corpGroupEditableInfo"},
	"mlModel": {"mlModelProperties", "editableMlModelProperties"}, "mlModelGroup": {"mlModelGroupProperties", "editableMlModelGroupProperties"},
	"mlFeature": {"mlFeatureProperties", "editableMlFeatureProperties"}, "mlFeatureTable": {"mlFeatureTableProperties", "editableMlFeatureTableProperties"},
	"mlPrimaryKey": {"mlPrimaryKeyProperties", "editableMlPrimaryKeyProperties"}, "dataProduct": {"dataProductProperties", ""},
	"businessAttribute": {"businessAttributeInfo", ""}, "dataPlatform": {"dataPlatformInfo", ""}, "application": {"applicationProperties", ""},
	"dataProcessInstance": {"dataProcessInstanceProperties", ""}, "erModelRelationship": {"erModelRelationshipProperties", ""},
	"query": {"queryProperties", ""}, "structuredProperty": {"propertyDefinition", ""}, "test": {"testInfo", ""}, "dataHubView": {"dataHubViewInfo", ""},
}

// compareStored checks that what page shows of the stored aspects of urn
// (as entitiesV2 returns them) is what is stored, and returns how many
// values it compared.
func compareStored(t *testing.T, urn string, page, stored map[string]any) int {
	t.Helper()
	typ := strings.SplitN(strings.TrimPrefix(urn, "urn:li:"), ":", 2)[0]
	n := 0
	for _, c := range pageChecks {
		aspect := c.aspect
		switch aspect {
		case "{}":
			aspect = propertiesAspects[typ][0]
		case "{editable}":
			aspect = propertiesAspects[typ][1]
		}
		shown, ok := pick(page, strings.Split(c.shown, "/"))
		if !ok {
			continue // the page does not show it
		}
		env, _ := stored[aspect].(map[string]any)
		var want any
		for _, alt := range strings.Split(c.stored, "|") {
			if want, ok = pick(env["value"], strings.Split(alt, "/")); ok {
				break
			}
		}
		if !ok {
			if shown != nil && fmt.Sprint(shown) != "[]" && fmt.Sprint(shown) != "false" {
				t.Errorf("%s: page shows %s = %v, stored %s has none", urn, c.shown, shown, aspect)
			}
			continue
		}
		if asJSON(shown) != asJSON(want) {
			t.Errorf("%s: page shows %s = %s, stored %s/%s = %s", urn, c.shown, asJSON(shown), aspect, c.stored, asJSON(want))
			continue
		}
		if l, ok := want.([]any); ok {
			n += len(l)
		} else {
			n++
		}
	}
	return n
}

// pick reads path in v: member names, "*" every element of a list (a list
// of what the rest reads), "N" an element; "*key" the sorted keys of a map.
func pick(v any, path []string) (any, bool) {
	for i, p := range path {
		switch {
		case p == "*":
			l, ok := v.([]any)
			if !ok {
				return nil, false
			}
			out := []any{}
			for _, x := range l {
				if y, ok := pick(x, path[i+1:]); ok {
					out = append(out, y)
				}
			}
			return out, true
		case p == "*key":
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			keys := []any{}
			for k := range m {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return keys[i].(string) < keys[j].(string) })
			return keys, true
		default:
			if l, ok := v.([]any); ok {
				var idx int
				if _, err := fmt.Sscan(p, &idx); err != nil || idx >= len(l) {
					return nil, false
				}
				v = l[idx]
				continue
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[p]; !ok || v == nil {
				return nil, false
			}
		}
	}
	return v, true
}

// pageVariables are the variables the UI sends with a page's query: the
// URN, and the page sizes it asks for.
func pageVariables(op contract.UIOperation, urn string) map[string]any {
	vars := map[string]any{"urn": urn}
	for _, v := range op.Doc.Operations[0].VariableDefinitions {
		if v.Variable == "urn" || !v.Type.NonNull {
			continue
		}
		switch v.Type.Name() {
		case "Int":
			vars[v.Variable] = 20
		default:
			panic(fmt.Sprintf("%s: variable %s of type %s", op.Name, v.Variable, v.Type))
		}
	}
	return vars
}

// TestGraphQLFirstLoad runs what every page of DataHub's web UI sends first,
// exactly as the UI sends it, against a server loaded with the samples, and
// checks what they answer.
func TestGraphQLFirstLoad(t *testing.T) {
	ops, err := contract.UIOperations(filepath.Join(samplesDir(t), "..", "datahub-ui"))
	if err != nil {
		t.Skipf("DataHub's web UI documents: %v", err)
	}
	byName := map[string]contract.UIOperation{}
	for _, op := range ops {
		byName[op.Name] = op
	}
	srv := startServer(t)
	replay := replaySamples(t, srv)
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
		seed("urn:li:post:welcome", "post", "postInfo", map[string]any{"type": "HOME_PAGE_ANNOUNCEMENT", "lastModified": 1700000000000, "created": 1700000000000,
			"content": map[string]any{"type": "TEXT", "title": "Welcome", "description": "to the catalog"}}),
		pageSeeds[11], // the global view
		seed("urn:li:dataHubStepState:urn:li:corpuser:datahub-search", "dataHubStepState", "dataHubStepStateProperties",
			map[string]any{"properties": map[string]any{"completed": "true"}, "lastModified": map[string]any{"time": 1, "actor": "urn:li:corpuser:datahub"}}),
	}, "async": "false"})
	run := func(name string, vars map[string]any) map[string]any {
		t.Helper()
		op, ok := byName[name]
		if !ok {
			t.Fatalf("%s: not an operation of the UI", name)
		}
		r := srv.gql(t, op.Text(), vars)
		if len(r.Errors) > 0 {
			t.Fatalf("%s: %v", name, r.Errors)
		}
		return r.Data
	}
	cfg := run("appConfig", nil)
	if got, _ := pick(cfg, []string{"appConfig", "featureFlags", "showBrowseV2"}); got != true {
		t.Errorf("appConfig featureFlags.showBrowseV2 = %v, want DataHub's default true", got)
	}
	if got, _ := pick(cfg, []string{"appConfig", "policiesConfig", "platformPrivileges", "*", "type"}); !strings.Contains(asJSON(got), "MANAGE_POLICIES") {
		t.Errorf("appConfig platform privileges = %s", asJSON(got))
	}
	me, _ := pick(run("getMe", nil), []string{"me", "corpUser", "urn"})
	if me != "urn:li:corpuser:datahub" {
		t.Errorf("getMe = %v, want the test server's caller, datahub", me)
	}
	// The five platforms with the most entities, by URN: bigquery first.
	qf := run("getQuickFilters", map[string]any{"input": map[string]any{}})
	if got, _ := pick(qf, []string{"getQuickFilters", "quickFilters", "0", "value"}); got != "urn:li:dataPlatform:bigquery" {
		t.Errorf("first quick filter = %v, want the platform of the most entities (bigquery)", got)
	}
	if got, _ := pick(run("listGlobalViews", map[string]any{"start": 0, "count": 10}), []string{"listGlobalViews", "views", "*", "urn"}); asJSON(got) != `["urn:li:dataHubView:all-hive"]` {
		t.Errorf("global views = %s", asJSON(got))
	}
	// The caller made the view; it has no personal one.
	if got, _ := pick(run("listMyViews", map[string]any{"start": 0, "count": 10}), []string{"listMyViews", "views", "*", "urn"}); asJSON(got) != `["urn:li:dataHubView:all-hive"]` {
		t.Errorf("my views = %s", asJSON(got))
	}
	if got, _ := pick(run("listMyViews", map[string]any{"start": 0, "count": 10, "viewType": "PERSONAL"}), []string{"listMyViews", "total"}); fmt.Sprint(got) != "0" {
		t.Errorf("my personal views = %v, want none", got)
	}
	if got := asJSON(run("getGlobalViewsSettings", nil)); got != `{"globalViewsSettings":{"defaultView":null}}` {
		t.Errorf("global views settings = %s", got)
	}
	steps := run("batchGetStepStates", map[string]any{"input": map[string]any{"ids": []string{"urn:li:corpuser:datahub-search", "urn:li:corpuser:datahub-home"}}})
	if got := asJSON(steps); got != `{"batchGetStepStates":{"results":[{"id":"urn:li:corpuser:datahub-search","properties":[{"key":"completed","value":"true"}]}]}}` {
		t.Errorf("step states = %s", got)
	}
	rec := run("listRecommendations", map[string]any{"input": map[string]any{"userUrn": "urn:li:corpuser:datahub", "requestContext": map[string]any{"scenario": "HOME"}, "limit": 10}})
	if got, _ := pick(rec, []string{"listRecommendations", "modules", "0", "content", "0", "value"}); got != "urn:li:dataPlatform:bigquery" {
		t.Errorf("recommendations = %.300s", asJSON(rec))
	}
	datasets := 0
	for _, typ := range replay.entity {
		if typ == "dataset" {
			datasets++
		}
	}
	counts := run("getEntityCounts", map[string]any{"input": map[string]any{"types": []string{"DATASET", "CHART"}}})
	if got, _ := pick(counts, []string{"getEntityCounts", "counts", "0"}); asJSON(got) != fmt.Sprintf(`{"count":%d,"entityType":"DATASET"}`, datasets) {
		t.Errorf("entity counts = %s, want %d datasets", asJSON(counts), datasets)
	}
	agg := run("aggregateAcrossEntities", map[string]any{"input": map[string]any{"query": "*", "facets": []string{"_entityType", "platform"}}})
	facets, _ := pick(agg, []string{"aggregateAcrossEntities", "facets", "*", "field"})
	// In DataHub's order: the entity type first.
	if asJSON(facets) != `["_entityType","platform"]` {
		t.Errorf("aggregate facets = %s", asJSON(facets))
	}
	if got, _ := pick(agg, []string{"aggregateAcrossEntities", "facets", "0", "aggregations", "0"}); !strings.Contains(asJSON(got), fmt.Sprintf(`"count":%d`, datasets)) {
		t.Errorf("entity type facet = %s, want %d datasets first", asJSON(got), datasets)
	}
	// The samples' three posts, then the seeded one: last modified first.
	posts := run("listPosts", map[string]any{"input": map[string]any{"start": 0, "count": 10}})
	times, _ := pick(posts, []string{"listPosts", "posts", "*", "lastModified", "time"})
	if urns, _ := pick(posts, []string{"listPosts", "posts", "*", "urn"}); !strings.HasSuffix(asJSON(urns), `"urn:li:post:welcome"]`) ||
		asJSON(times) != `[1712547268882,1712547164761,1712547125049,1700000000000]` {
		t.Errorf("posts = %s", asJSON(posts))
	}
	for _, root := range []struct{ op, field, list, info string }{
		{"getRootGlossaryNodes", "getRootGlossaryNodes", "nodes", "glossaryNodeInfo"},
		{"getRootGlossaryTerms", "getRootGlossaryTerms", "terms", "glossaryTermInfo"},
	} {
		urns, _ := pick(run(root.op, nil), []string{root.field, root.list, "*", "urn"})
		list, _ := urns.([]any)
		if len(list) == 0 {
			t.Errorf("%s: none", root.op)
		}
		for _, u := range list {
			v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(u.(string)), nil))
			if parent, _ := pick(v2, []string{"aspects", root.info, "value", "parentNode"}); parent != nil {
				t.Errorf("%s: %s is in node %v", root.op, u, parent)
			}
		}
	}
	priv := run("getGrantedPrivileges", map[string]any{"input": map[string]any{"actorUrn": "urn:li:corpuser:datahub"}})
	if got := asJSON(priv); !strings.Contains(got, "MANAGE_POLICIES") {
		t.Errorf("granted privileges = %s", got)
	}
}

// TestGraphQLSettingsLists runs the UI's lists of ownership types, roles and
// ingestion sources, its scrolled search and a data product's assets, as the
// UI sends them, against a server loaded with the samples.
func TestGraphQLSettingsLists(t *testing.T) {
	ops, err := contract.UIOperations(filepath.Join(samplesDir(t), "..", "datahub-ui"))
	if err != nil {
		t.Skipf("DataHub's web UI documents: %v", err)
	}
	byName := map[string]contract.UIOperation{}
	for _, op := range ops {
		byName[op.Name] = op
	}
	srv := startServer(t)
	replay := replaySamples(t, srv)
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
		pageSeeds[5], // the data product
		seed("urn:li:dataHubRole:Reader", "dataHubRole", "dataHubRoleInfo", map[string]any{"name": "Reader", "description": "reads", "editable": false}),
		seed("urn:li:dataHubRole:Admin", "dataHubRole", "dataHubRoleInfo", map[string]any{"name": "Admin", "description": "administers", "editable": false}),
	}, "async": "false"})
	run := func(name string, vars map[string]any) map[string]any {
		t.Helper()
		r := srv.gql(t, byName[name].Text(), vars)
		if len(r.Errors) > 0 {
			t.Fatalf("%s: %v", name, r.Errors)
		}
		return r.Data
	}
	if got := asJSON(run("isAnalyticsEnabled", nil)); got != `{"isAnalyticsEnabled":false}` {
		t.Errorf("isAnalyticsEnabled = %s", got)
	}
	types, _ := pick(run("listOwnershipTypes", map[string]any{"input": map[string]any{"start": 0, "count": 20}}), []string{"listOwnershipTypes", "ownershipTypes", "*", "info", "name"})
	if got := asJSON(types); got != `["Business Owner","Data Steward","None","Technical Owner"]` {
		t.Errorf("ownership types = %s, want the bootstrap's four by name", got)
	}
	roles, _ := pick(run("listRoles", map[string]any{"input": map[string]any{"start": 0, "count": 10, "query": "rea"}}), []string{"listRoles", "roles", "*", "urn"})
	if got := asJSON(roles); got != `["urn:li:dataHubRole:Reader"]` {
		t.Errorf("roles matching rea = %s", got)
	}
	src := srv.gqlData(t, `mutation { createIngestionSource(input: {name: "nightly", type: "mysql", config: {recipe: "{}", executorId: "default"}}) }`, nil)
	if got, _ := pick(run("getIngestionSource", map[string]any{"urn": src["createIngestionSource"]}), []string{"ingestionSource", "name"}); got != "nightly" {
		t.Errorf("ingestion source name = %v", got)
	}
	// Scrolling through the datasets finds each once.
	datasets := map[string]bool{}
	for urn, typ := range replay.entity {
		if typ == "dataset" {
			datasets[urn] = true
		}
	}
	seen := map[string]bool{}
	var scrollID any
	for pages := 0; ; pages++ {
		d := run("scrollAcrossEntities", map[string]any{"input": map[string]any{"types": []string{"DATASET"}, "query": "*", "count": 20, "scrollId": scrollID}})
		urns, _ := pick(d, []string{"scrollAcrossEntities", "searchResults", "*", "entity", "urn"})
		for _, u := range urns.([]any) {
			if seen[u.(string)] {
				t.Errorf("scroll page %d repeats %s", pages, u)
			}
			seen[u.(string)] = true
		}
		if scrollID, _ = pick(d, []string{"scrollAcrossEntities", "nextScrollId"}); scrollID == nil || pages > 100 {
			break
		}
	}
	if len(seen) != len(datasets) {
		t.Errorf("scrolling found %d datasets, %d are stored", len(seen), len(datasets))
	}
	assets, _ := pick(run("listDataProductAssets", map[string]any{"urn": "urn:li:dataProduct:payments", "input": map[string]any{"query": "*", "start": 0, "count": 10}}),
		[]string{"listDataProductAssets", "searchResults", "*", "entity", "urn"})
	if got := asJSON(assets); got != `["urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"]` {
		t.Errorf("data product assets = %s", got)
	}
}
