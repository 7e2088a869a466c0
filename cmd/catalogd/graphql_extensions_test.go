package main

import (
	"fmt"
	"strings"
	"testing"
)

// uiRunner runs the UI's operations by name against srv.
type uiRunner struct {
	t    *testing.T
	srv  *testServer
	docs uiDocs
}

func newUIRunner(t *testing.T, srv *testServer) *uiRunner {
	t.Helper()
	return &uiRunner{t: t, srv: srv, docs: loadUIDocs(t)}
}

// run runs the UI operation name, which must succeed, and returns its data.
func (u *uiRunner) run(name string, vars map[string]any) map[string]any {
	u.t.Helper()
	r := u.srv.gql(u.t, u.docs.text(u.t, name), vars)
	if len(r.Errors) > 0 {
		u.t.Fatalf("%s %s: %v", name, asJSON(vars), r.Errors)
	}
	return r.Data
}

// fail runs the UI operation name, which must fail with a message holding
// want, and returns the message.
func (u *uiRunner) fail(name string, vars map[string]any, want string) string {
	u.t.Helper()
	r := u.srv.gql(u.t, u.docs.text(u.t, name), vars)
	if len(r.Errors) == 0 {
		u.t.Fatalf("%s %s: no error, data %s", name, asJSON(vars), asJSON(r.Data))
	}
	msg := fmt.Sprint(r.Errors[0]["message"])
	if !strings.Contains(msg, want) {
		u.t.Errorf("%s %s: error %q, want it to say %q", name, asJSON(vars), msg, want)
	}
	return msg
}

// searchURNs runs searchAcrossEntities with one filter and returns the URNs
// found.
func searchURNs(t *testing.T, srv *testServer, types []string, field string, values []string, condition string) string {
	t.Helper()
	d := srv.gqlData(t, `query s($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total searchResults { entity { urn } } } }`,
		map[string]any{"input": map[string]any{"types": types, "query": "*", "start": 0, "count": 50,
			"orFilters": []any{map[string]any{"and": []any{map[string]any{"field": field, "values": values, "condition": condition}}}}}})
	urns, _ := pick(d, []string{"searchAcrossEntities", "searchResults", "*", "entity", "urn"})
	return asJSON(urns)
}

// TestGraphQLStructuredProperties creates, updates and deletes a structured
// property and sets, searches and removes its values on a dataset, with the
// operations DataHub's UI sends.
func TestGraphQLStructuredProperties(t *testing.T) {
	const dataset = "urn:li:dataset:(urn:li:dataPlatform:hive,governed.orders,PROD)"
	const other = "urn:li:dataset:(urn:li:dataPlatform:hive,governed.users,PROD)"
	const prop = "urn:li:structuredProperty:io.acryl.privacy.retentionTime"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				mcp("dataset", dataset, "datasetProperties", map[string]any{"name": "orders"}),
				mcp("dataset", other, "datasetProperties", map[string]any{"name": "users"}),
				mcp("corpuser", "urn:li:corpuser:jdoe", "corpUserInfo", map[string]any{"active": true}),
			}})
			create := map[string]any{"input": map[string]any{
				"qualifiedName": "io.acryl.privacy.retentionTime", "displayName": "Retention Time", "description": "days kept",
				"valueType": "urn:li:dataType:datahub.number", "cardinality": "SINGLE",
				"entityTypes":   []string{"urn:li:entityType:datahub.dataset"},
				"allowedValues": []any{map[string]any{"numberValue": 30, "description": "a month"}, map[string]any{"numberValue": 90}},
				"settings":      map[string]any{"showInSearchFilters": true},
			}}
			got := ui.run("createStructuredProperty", create)
			if u, _ := pick(got, []string{"createStructuredProperty", "urn"}); u != prop {
				t.Fatalf("created %v, want %s", u, prop)
			}
			ui.fail("createStructuredProperty", create, "A structured property already exists with this urn")
			ui.fail("createStructuredProperty", map[string]any{"input": map[string]any{"id": "a", "qualifiedName": "b",
				"valueType": "urn:li:dataType:datahub.string", "entityTypes": []string{"urn:li:entityType:datahub.dataset"}}},
				"Qualified name and the ID of a structured property must match")
			ui.fail("createStructuredProperty", map[string]any{"input": map[string]any{"qualifiedName": "hidden.shown",
				"valueType": "urn:li:dataType:datahub.string", "entityTypes": []string{"urn:li:entityType:datahub.dataset"},
				"settings": map[string]any{"isHidden": true, "showInAssetSummary": true}}}, "Cannot have property isHidden = true")

			found := ui.run("searchStructuredProperties", map[string]any{"query": "retention", "start": 0, "count": 10})
			if v, _ := pick(found, []string{"searchAcrossEntities", "searchResults", "*", "entity", "urn"}); asJSON(v) != `["`+prop+`"]` {
				t.Errorf("searchStructuredProperties retention = %s", asJSON(found))
			}
			def := ui.run("getStructuredProperty", map[string]any{"urn": prop})
			for path, want := range map[string]string{
				"entity.definition.qualifiedName":           `"io.acryl.privacy.retentionTime"`,
				"entity.definition.displayName":             `"Retention Time"`,
				"entity.definition.cardinality":             `"SINGLE"`,
				"entity.definition.valueType.info.type":     `"NUMBER"`,
				"entity.definition.entityTypes.*.info.type": `["DATASET"]`,
				"entity.definition.allowedValues.*.value":   `[{"numberValue":30},{"numberValue":90}]`,
			} {
				if v, _ := pick(def, strings.Split(path, ".")); asJSON(v) != want {
					t.Errorf("getStructuredProperty %s = %s, want %s", path, asJSON(v), want)
				}
			}

			upsert := func(values ...any) map[string]any {
				var vals []any
				for _, v := range values {
					if s, ok := v.(string); ok {
						vals = append(vals, map[string]any{"stringValue": s})
					} else {
						vals = append(vals, map[string]any{"numberValue": v})
					}
				}
				return map[string]any{"input": map[string]any{"assetUrn": dataset,
					"structuredPropertyInputParams": []any{map[string]any{"structuredPropertyUrn": prop, "values": vals}}}}
			}
			got = ui.run("upsertStructuredProperties", upsert(90))
			if v, _ := pick(got, []string{"upsertStructuredProperties", "properties", "*", "values"}); asJSON(v) != `[[{"numberValue":90}]]` {
				t.Errorf("upserted values = %s", asJSON(v))
			}
			if v, _ := pick(got, []string{"upsertStructuredProperties", "properties", "0", "structuredProperty", "definition", "displayName"}); v != "Retention Time" {
				t.Errorf("upserted property's display name = %v", v)
			}
			for _, c := range []struct {
				vars map[string]any
				want string
			}{
				{upsert(45), "not one of the allowed values"},
				{upsert("ninety"), "takes number values"},
				{upsert(30, 90), "takes a single value"},
				{map[string]any{"input": map[string]any{"assetUrn": "urn:li:corpuser:jdoe",
					"structuredPropertyInputParams": []any{map[string]any{"structuredPropertyUrn": prop, "values": []any{map[string]any{"numberValue": 30}}}}}},
					"does not apply to entity type corpuser"},
				{map[string]any{"input": map[string]any{"assetUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,missing,PROD)",
					"structuredPropertyInputParams": []any{map[string]any{"structuredPropertyUrn": prop, "values": []any{map[string]any{"numberValue": 30}}}}}},
					"does not exist"},
			} {
				ui.fail("upsertStructuredProperties", c.vars, c.want)
			}

			// The UI filters by the property's qualified name.
			field := "structuredProperties.io.acryl.privacy.retentionTime"
			if got := searchURNs(t, srv, []string{"DATASET"}, field, []string{"90"}, "EQUAL"); got != `["`+dataset+`"]` {
				t.Errorf("datasets retained 90 days = %s", got)
			}
			if got := searchURNs(t, srv, []string{"DATASET"}, field, []string{"30"}, "EQUAL"); got != `[]` {
				t.Errorf("datasets retained 30 days = %s, want none", got)
			}
			if got := searchURNs(t, srv, nil, field, []string{"60"}, "GREATER_THAN"); got != `["`+dataset+`"]` {
				t.Errorf("retained over 60 days = %s", got)
			}

			ui.run("updateStructuredProperty", map[string]any{"input": map[string]any{"urn": prop, "displayName": "Retention",
				"newAllowedValues": []any{map[string]any{"numberValue": 45}}, "setCardinalityAsMultiple": true,
				"settings": map[string]any{"showAsAssetBadge": true}}})
			def = ui.run("getStructuredProperty", map[string]any{"urn": prop})
			if v, _ := pick(def, []string{"entity", "definition"}); !strings.Contains(asJSON(v), `"cardinality":"MULTIPLE"`) || !strings.Contains(asJSON(v), `"displayName":"Retention"`) ||
				!strings.Contains(asJSON(v), `{"numberValue":45}`) {
				t.Errorf("updated definition = %s", asJSON(v))
			}
			ui.fail("updateStructuredProperty", map[string]any{"input": map[string]any{"urn": prop, "displayName": "Hidden", "settings": map[string]any{"isHidden": true}}},
				"Cannot have property isHidden = true")
			// Nothing of a refused update is written.
			def = ui.run("getStructuredProperty", map[string]any{"urn": prop})
			if v, _ := pick(def, []string{"entity", "definition", "displayName"}); v != "Retention" {
				t.Errorf("display name after a refused update = %v, want Retention", v)
			}
			got = ui.run("upsertStructuredProperties", upsert(45, 90))
			if v, _ := pick(got, []string{"upsertStructuredProperties", "properties", "*", "values"}); asJSON(v) != `[[{"numberValue":45},{"numberValue":90}]]` {
				t.Errorf("values after the update = %s", asJSON(v))
			}
			if got := searchURNs(t, srv, []string{"DATASET"}, field, []string{"45"}, "EQUAL"); got != `["`+dataset+`"]` {
				t.Errorf("datasets retained 45 days = %s", got)
			}

			got = ui.run("removeStructuredProperties", map[string]any{"input": map[string]any{"assetUrn": dataset, "structuredPropertyUrns": []string{prop}}})
			if v, _ := pick(got, []string{"removeStructuredProperties", "properties"}); asJSON(v) != `[]` {
				t.Errorf("properties after removal = %s", asJSON(v))
			}
			if got := searchURNs(t, srv, []string{"DATASET"}, field, nil, "EXISTS"); got != `[]` {
				t.Errorf("datasets with a retention after removal = %s", got)
			}

			// Deleting the property deletes its values.
			ui.run("upsertStructuredProperties", upsert(30))
			if got := asJSON(ui.run("deleteStructuredProperty", map[string]any{"input": map[string]any{"urn": prop}})); got != `{"deleteStructuredProperty":true}` {
				t.Errorf("deleteStructuredProperty = %s", got)
			}
			if got := searchURNs(t, srv, []string{"DATASET"}, field, nil, "EXISTS"); got != `[]` {
				t.Errorf("datasets with a retention after the property's deletion = %s", got)
			}
			v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(dataset)+"?aspects=List(structuredProperties)", nil))
			if v, _ := pick(v2, []string{"aspects", "structuredProperties", "value", "properties"}); asJSON(v) != `[]` {
				t.Errorf("stored values after the property's deletion = %s", asJSON(v))
			}
			if status, b := srv.do(t, "GET", "/entitiesV2/"+pathEscape(prop), nil); status != 200 || strings.Contains(string(b), "propertyDefinition") {
				t.Errorf("property after deletion: %d %s", status, b)
			}
		})
	}
}

// TestGraphQLDataProducts creates a data product in a domain, moves assets
// into and between data products, lists them, updates and deletes it, and
// does the same with applications, with the operations DataHub's UI sends.
func TestGraphQLDataProducts(t *testing.T) {
	const orders = "urn:li:dataset:(urn:li:dataPlatform:hive,dp.orders,PROD)"
	const users = "urn:li:dataset:(urn:li:dataPlatform:hive,dp.users,PROD)"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				mcp("dataset", orders, "datasetProperties", map[string]any{"name": "orders"}),
				mcp("dataset", users, "datasetProperties", map[string]any{"name": "users"}),
				mcp("domain", "urn:li:domain:sales", "domainProperties", map[string]any{"name": "Sales"}),
			}})
			create := func(id, name string) map[string]any {
				return map[string]any{"input": map[string]any{"id": id, "domainUrn": "urn:li:domain:sales",
					"properties": map[string]any{"name": name, "description": "all about " + name}}}
			}
			got := ui.run("createDataProduct", create("revenue", "Revenue"))
			if v, _ := pick(got, []string{"createDataProduct"}); !strings.Contains(asJSON(v), `"urn":"urn:li:dataProduct:revenue"`) ||
				!strings.Contains(asJSON(v), `"name":"Revenue"`) || !strings.Contains(asJSON(v), `"urn":"urn:li:domain:sales"`) ||
				!strings.Contains(asJSON(v), `"urn":"urn:li:corpuser:datahub"`) {
				t.Errorf("created data product = %s, want its name, domain and its creator as owner", asJSON(v))
			}
			ui.fail("createDataProduct", create("revenue", "Again"), "This Data product already exists!")
			ui.fail("createDataProduct", map[string]any{"input": map[string]any{"domainUrn": "urn:li:domain:none",
				"properties": map[string]any{"name": "x"}}}, "The Domain provided dos not exist")
			ui.run("createDataProduct", create("churn", "Churn"))
			// The domain's data products tab.
			dps := ui.run("getDataProductsList", map[string]any{"input": map[string]any{"types": []string{"DATA_PRODUCT"}, "query": "*", "start": 0, "count": 10,
				"orFilters": []any{map[string]any{"and": []any{map[string]any{"field": "domains", "values": []string{"urn:li:domain:sales"}}}}}}})
			if v, _ := pick(dps, []string{"searchAcrossEntities", "searchResults", "*", "entity", "properties", "name"}); asJSON(v) != `["Churn","Revenue"]` && asJSON(v) != `["Revenue","Churn"]` {
				t.Errorf("the domain's data products = %s", asJSON(v))
			}

			ui.run("batchSetDataProduct", map[string]any{"input": map[string]any{"dataProductUrn": "urn:li:dataProduct:revenue", "resourceUrns": []string{orders, users}}})
			assets := func(dp string) string {
				t.Helper()
				d := ui.run("listDataProductAssets", map[string]any{"urn": dp, "input": map[string]any{"query": "*", "start": 0, "count": 10}})
				urns, _ := pick(d, []string{"listDataProductAssets", "searchResults", "*", "entity", "urn"})
				return asJSON(urns)
			}
			if got := assets("urn:li:dataProduct:revenue"); got != asJSON([]string{orders, users}) && got != asJSON([]string{users, orders}) {
				t.Errorf("revenue's assets = %s", got)
			}
			// An asset belongs to one data product: moving it takes it out of the other.
			ui.run("batchSetDataProduct", map[string]any{"input": map[string]any{"dataProductUrn": "urn:li:dataProduct:churn", "resourceUrns": []string{users}}})
			if got := assets("urn:li:dataProduct:revenue"); got != asJSON([]string{orders}) {
				t.Errorf("revenue's assets after moving users = %s", got)
			}
			if got := assets("urn:li:dataProduct:churn"); got != asJSON([]string{users}) {
				t.Errorf("churn's assets = %s", got)
			}
			dp := ui.run("getDataProduct", map[string]any{"urn": "urn:li:dataProduct:churn"})
			if v, _ := pick(dp, []string{"dataProduct", "entities", "total"}); fmt.Sprint(v) != "1" {
				t.Errorf("churn's entities total = %v", v)
			}
			ui.run("batchSetDataProduct", map[string]any{"input": map[string]any{"resourceUrns": []string{users}}})
			if got := assets("urn:li:dataProduct:churn"); got != `[]` {
				t.Errorf("churn's assets after unsetting = %s", got)
			}
			ui.fail("batchSetDataProduct", map[string]any{"input": map[string]any{"dataProductUrn": "urn:li:dataProduct:none", "resourceUrns": []string{users}}},
				"Data Product urn urn:li:dataProduct:none does not exist")
			ui.fail("batchSetDataProduct", map[string]any{"input": map[string]any{"dataProductUrn": "urn:li:dataProduct:churn",
				"resourceUrns": []string{"urn:li:dataset:(urn:li:dataPlatform:hive,none,PROD)"}}}, "in resources does not exist")

			got = ui.run("updateDataProduct", map[string]any{"urn": "urn:li:dataProduct:revenue", "input": map[string]any{"name": "Revenue v2"}})
			if v, _ := pick(got, []string{"updateDataProduct", "properties"}); asJSON(v) != `{"description":"all about Revenue","externalUrl":null,"name":"Revenue v2"}` {
				t.Errorf("updated properties = %s", asJSON(v))
			}
			if got := asJSON(ui.run("deleteDataProduct", map[string]any{"urn": "urn:li:dataProduct:revenue"})); got != `{"deleteDataProduct":true}` {
				t.Errorf("deleteDataProduct = %s", got)
			}
			if got := asJSON(srv.gqlData(t, `query { dataProduct(urn: "urn:li:dataProduct:revenue") { urn } }`, nil)); got != `{"dataProduct":null}` {
				t.Errorf("deleted data product = %s", got)
			}
			ui.fail("deleteDataProduct", map[string]any{"urn": "urn:li:dataProduct:revenue"}, "does not exist")

			// Applications.
			got = ui.run("createApplication", map[string]any{"input": map[string]any{"id": "billing", "properties": map[string]any{"name": "Billing"}}})
			if v, _ := pick(got, []string{"createApplication", "urn"}); v != "urn:li:application:billing" {
				t.Fatalf("created application %s", asJSON(got))
			}
			ui.run("batchSetApplication", map[string]any{"input": map[string]any{"applicationUrn": "urn:li:application:billing", "resourceUrns": []string{orders}}})
			apps := ui.run("getApplicationsList", map[string]any{"input": map[string]any{"types": []string{"APPLICATION"}, "query": "*", "start": 0, "count": 10}})
			if v, _ := pick(apps, []string{"searchAcrossEntities", "searchResults", "*", "entity", "urn"}); asJSON(v) != `["urn:li:application:billing"]` {
				t.Errorf("applications = %s", asJSON(v))
			}
			if v, _ := pick(ui.run("getApplication", map[string]any{"urn": "urn:li:application:billing"}), []string{"application", "properties", "name"}); v != "Billing" {
				t.Errorf("getApplication name = %v", v)
			}
			app := srv.gqlData(t, `query { dataset(urn: "`+orders+`") { application { application { urn properties { name } } } } }`, nil)
			if got := asJSON(app); got != `{"dataset":{"application":{"application":{"properties":{"name":"Billing"},"urn":"urn:li:application:billing"}}}}` {
				t.Errorf("orders' application = %s", got)
			}
			if got := asJSON(ui.run("deleteApplication", map[string]any{"urn": "urn:li:application:billing"})); got != `{"deleteApplication":true}` {
				t.Errorf("deleteApplication = %s", got)
			}
			app = srv.gqlData(t, `query { dataset(urn: "`+orders+`") { application { application { urn } } } }`, nil)
			if got := asJSON(app); got != `{"dataset":{"application":null}}` {
				t.Errorf("orders' application after its deletion = %s", got)
			}
		})
	}
}

// TestGraphQLIncidents raises incidents on a dataset, changes their status
// and details, and reads them back on the dataset's incidents tab, with
// the operations DataHub's UI sends.
func TestGraphQLIncidents(t *testing.T) {
	const orders = "urn:li:dataset:(urn:li:dataPlatform:hive,inc.orders,PROD)"
	const users = "urn:li:dataset:(urn:li:dataPlatform:hive,inc.users,PROD)"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				mcp("dataset", orders, "datasetProperties", map[string]any{"name": "orders"}),
				mcp("dataset", users, "datasetProperties", map[string]any{"name": "users"}),
				mcp("corpuser", "urn:li:corpuser:jdoe", "corpUserInfo", map[string]any{"active": true, "displayName": "J Doe"}),
			}})
			raised := ui.run("raiseIncident", map[string]any{"input": map[string]any{
				"type": "FRESHNESS", "title": "Late data", "description": "orders are a day late", "resourceUrn": orders,
				"priority": "HIGH", "assigneeUrns": []string{"urn:li:corpuser:jdoe"}, "startedAt": 1700000000000,
				"status": map[string]any{"state": "ACTIVE", "stage": "TRIAGE"},
			}})
			first, _ := raised["raiseIncident"].(string)
			if !strings.HasPrefix(first, "urn:li:incident:") {
				t.Fatalf("raiseIncident = %s", asJSON(raised))
			}
			ui.run("raiseIncident", map[string]any{"input": map[string]any{"type": "CUSTOM", "customType": "Ownership", "title": "No owner", "resourceUrns": []string{orders, users}}})
			ui.fail("raiseIncident", map[string]any{"input": map[string]any{"type": "VOLUME"}}, "At least 1 resource urn must be defined")
			ui.fail("raiseIncident", map[string]any{"input": map[string]any{"type": "CUSTOM", "resourceUrn": orders}}, "customType is required")
			ui.fail("raiseIncident", map[string]any{"input": map[string]any{"type": "VOLUME", "resourceUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,none,PROD)"}}, "does not exist")

			incidents := func(urn string, state any) []any {
				t.Helper()
				d := ui.run("getEntityIncidents", map[string]any{"urn": urn, "start": 0, "count": 10, "state": state})
				list, _ := pick(d, []string{"entity", "incidents", "incidents"})
				l, _ := list.([]any)
				return l
			}
			list := incidents(orders, "ACTIVE")
			if len(list) != 2 {
				t.Fatalf("orders' active incidents = %s", asJSON(list))
			}
			var late map[string]any
			for _, i := range list {
				if m := i.(map[string]any); m["urn"] == first {
					late = m
				}
			}
			for path, want := range map[string]string{
				"incidentType": `"FRESHNESS"`, "title": `"Late data"`, "priority": `"HIGH"`, "startedAt": `1700000000000`,
				"status.state": `"ACTIVE"`, "status.stage": `"TRIAGE"`, "status.lastUpdated.actor": `"urn:li:corpuser:datahub"`,
				"source.type": `"MANUAL"`, "created.actor": `"urn:li:corpuser:datahub"`,
				"assignees.*.properties.displayName":      `["J Doe"]`,
				"linkedAssets.relationships.*.entity.urn": asJSON([]string{orders}),
			} {
				if v, _ := pick(late, strings.Split(path, ".")); asJSON(v) != want {
					t.Errorf("incident %s = %s, want %s", path, asJSON(v), want)
				}
			}
			if got := len(incidents(users, nil)); got != 1 {
				t.Errorf("users has %d incidents, want the custom one", got)
			}
			// The assets' incidentsSummary makes them searchable by their incidents.
			summary := func(urn string) map[string]any {
				t.Helper()
				v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(urn)+"?aspects=List(incidentsSummary)", nil))
				v, _ := pick(v2, []string{"aspects", "incidentsSummary", "value"})
				m, _ := v.(map[string]any)
				return m
			}
			if got := searchURNs(t, srv, []string{"DATASET"}, "hasActiveIncidents", []string{"true"}, "EQUAL"); got != asJSON([]string{orders, users}) && got != asJSON([]string{users, orders}) {
				t.Errorf("datasets with active incidents = %s", got)
			}
			if v, _ := pick(summary(orders), []string{"activeIncidentDetails", "*", "type"}); asJSON(v) != `["FRESHNESS","Ownership"]` {
				t.Errorf("orders' active incident types = %s", asJSON(v))
			}

			ui.run("updateIncidentStatus", map[string]any{"urn": first, "input": map[string]any{"state": "RESOLVED", "stage": "FIXED", "message": "backfilled"}})
			if got := len(incidents(orders, "ACTIVE")); got != 1 {
				t.Errorf("orders has %d active incidents after resolving one, want 1", got)
			}
			resolved := incidents(orders, "RESOLVED")
			if v, _ := pick(resolved, []string{"0", "status"}); !strings.Contains(asJSON(v), `"message":"backfilled"`) || !strings.Contains(asJSON(v), `"stage":"FIXED"`) {
				t.Errorf("resolved incident's status = %s", asJSON(v))
			}
			if v, _ := pick(summary(orders), []string{"resolvedIncidentDetails", "*", "urn"}); asJSON(v) != `["`+first+`"]` {
				t.Errorf("orders' resolved incidents = %s", asJSON(v))
			}
			ui.fail("updateIncidentStatus", map[string]any{"urn": "urn:li:incident:none", "input": map[string]any{"state": "RESOLVED"}}, "Incident does not exist")

			// Moving the incident to users, dropping its priority and assignees.
			ui.run("updateIncident", map[string]any{"urn": first, "input": map[string]any{"title": "Late users", "resourceUrns": []string{users}}})
			if got := len(incidents(orders, "RESOLVED")); got != 0 {
				t.Errorf("orders still has %d resolved incidents after the incident moved", got)
			}
			moved := incidents(users, "RESOLVED")
			if len(moved) != 1 {
				t.Fatalf("users' resolved incidents = %s", asJSON(moved))
			}
			if v, _ := pick(summary(orders), []string{"resolvedIncidentDetails"}); v != nil && asJSON(v) != `[]` {
				t.Errorf("orders' resolved incidents after the incident moved = %s", asJSON(v))
			}
			if v, _ := pick(summary(users), []string{"resolvedIncidentDetails", "*", "urn"}); asJSON(v) != `["`+first+`"]` {
				t.Errorf("users' resolved incidents = %s", asJSON(v))
			}
			if v, _ := pick(moved, []string{"0", "title"}); v != "Late users" {
				t.Errorf("updated title = %v", v)
			}
			if v, _ := pick(moved, []string{"0", "priority"}); v != nil {
				t.Errorf("priority after an update without one = %v, want none", v)
			}
			ui.fail("updateIncident", map[string]any{"urn": first, "input": map[string]any{"resourceUrns": []string{}}}, "resourceUrns cannot be empty")
		})
	}
}

// TestAuthGovernance checks the privileges of the governance mutations: a
// reader may not raise incidents or manage structured properties until a
// policy grants EDIT_ENTITY_INCIDENTS on the dataset (not the incident)
// and MANAGE_STRUCTURED_PROPERTIES.
func TestAuthGovernance(t *testing.T) {
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,auth.governed,PROD)"
	s := startAuthServer(t)
	reader, _ := s.cliToken(t, "reader")
	s.ingestAsAdmin(t, mcp("dataset", ds, "datasetProperties", map[string]any{"name": "governed"}))
	const raise = `mutation($in: RaiseIncidentInput!) { raiseIncident(input: $in) }`
	raiseVars := map[string]any{"in": map[string]any{"type": "OPERATIONAL", "title": "broken", "resourceUrn": ds}}
	const createProp = `mutation($in: CreateStructuredPropertyInput!) { createStructuredProperty(input: $in) { urn } }`
	propVars := map[string]any{"in": map[string]any{"qualifiedName": "team", "valueType": "urn:li:dataType:datahub.string",
		"entityTypes": []string{"urn:li:entityType:datahub.dataset"}}}
	s.denied(t, reader, raise, raiseVars, "raiseIncident")
	s.denied(t, reader, createProp, propVars, "createStructuredProperty")

	for _, p := range []map[string]any{
		{"type": "METADATA", "name": "Readers raise incidents", "state": "ACTIVE", "description": "test",
			"privileges": []string{"EDIT_ENTITY_INCIDENTS"}, "resources": map[string]any{"filter": map[string]any{"criteria": []any{
				map[string]any{"field": "TYPE", "values": []string{"dataset"}, "condition": "EQUALS"}}}},
			"actors": map[string]any{"users": []string{"urn:li:corpuser:reader"}, "resourceOwners": false, "allUsers": false, "allGroups": false}},
		{"type": "PLATFORM", "name": "Readers manage properties", "state": "ACTIVE", "description": "test",
			"privileges": []string{"MANAGE_STRUCTURED_PROPERTIES"},
			"actors":     map[string]any{"users": []string{"urn:li:corpuser:reader"}, "resourceOwners": false, "allUsers": false, "allGroups": false}},
	} {
		s.mustGQL(t, s.admin, `mutation($in: PolicyUpdateInput!) { createPolicy(input: $in) }`, map[string]any{"in": p}, "createPolicy", nil)
	}
	var urn string
	s.mustGQL(t, reader, raise, raiseVars, "raiseIncident", &urn)
	s.mustGQL(t, reader, `mutation($u: String!) { updateIncidentStatus(urn: $u, input: {state: RESOLVED}) }`, map[string]any{"u": urn}, "updateIncidentStatus", nil)
	s.mustGQL(t, reader, createProp, propVars, "createStructuredProperty", nil)
	// Connections: only those who manage them see their secrets.
	const upsert = `mutation($in: UpsertDataHubConnectionInput!) { upsertConnection(input: $in) { urn } }`
	conn := map[string]any{"in": map[string]any{"id": "db", "type": "JSON", "platformUrn": "urn:li:dataPlatform:mysql", "json": map[string]any{"blob": "{}"}}}
	s.denied(t, reader, upsert, conn, "upsertConnection")
	// As in DataHub, not even the root user manages connections without a policy saying so.
	s.denied(t, s.admin, upsert, conn, "upsertConnection")
	s.mustGQL(t, s.admin, `mutation($in: PolicyUpdateInput!) { createPolicy(input: $in) }`, map[string]any{"in": map[string]any{
		"type": "PLATFORM", "name": "Admins manage connections", "state": "ACTIVE", "description": "test", "privileges": []string{"MANAGE_CONNECTIONS"},
		"actors": map[string]any{"users": []string{"urn:li:corpuser:datahub"}, "resourceOwners": false, "allUsers": false, "allGroups": false}}}, "createPolicy", nil)
	s.mustGQL(t, s.admin, upsert, conn, "upsertConnection", nil)
	if r := s.gql(t, reader, `{ connection(urn: "urn:li:dataHubConnection:db") { details { json { blob } } } }`, nil); len(r.Errors) == 0 || r.Errors[0].Extensions["type"] != "UNAUTHORIZED" {
		t.Errorf("reader reading a connection's blob: %+v", r.Errors)
	}
	// Feature settings take MANAGE_FEATURES, which the root user has.
	const docProp = `mutation { updateDocPropagationSettings(input: {docColumnPropagation: true}) }`
	s.denied(t, reader, docProp, nil, "updateDocPropagationSettings")
	s.mustGQL(t, s.admin, docProp, nil, "updateDocPropagationSettings", nil)
	// The incident right is not a right to edit the dataset itself.
	s.denied(t, reader, `mutation { updateDescription(input: {description: "x", resourceUrn: "`+ds+`"}) }`, nil, "updateDescription")
}

// TestGraphQLAssertions reads an assertion and its run events as DataHub's
// UI does, and deletes it with them.
func TestGraphQLAssertions(t *testing.T) {
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,assert.orders,PROD)"
	const assertion = "urn:li:assertion:rows-positive"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			props := []any{
				mcp("dataset", ds, "datasetProperties", map[string]any{"name": "orders"}),
				mcp("assertion", assertion, "assertionInfo", map[string]any{"type": "DATASET", "description": "rows > 0",
					"datasetAssertion": map[string]any{"dataset": ds, "scope": "DATASET_ROWS", "operator": "GREATER_THAN", "aggregation": "ROW_COUNT",
						"parameters": map[string]any{"value": map[string]any{"value": "0", "type": "NUMBER"}}}}),
			}
			for i, result := range []string{"SUCCESS", "FAILURE", "SUCCESS"} {
				props = append(props, mcp("assertion", assertion, "assertionRunEvent", map[string]any{
					"timestampMillis": 1700000000000 + int64(i)*3600000, "runId": fmt.Sprintf("run-%d", i), "asserteeUrn": ds,
					"assertionUrn": assertion, "status": "COMPLETE", "result": map[string]any{"type": result, "rowCount": 10 * i}}))
			}
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": props})

			runs := ui.run("getAssertionRuns", map[string]any{"assertionUrn": assertion, "limit": 10})
			for path, want := range map[string]string{
				"assertion.runEvents.total":                   `3`,
				"assertion.runEvents.failed":                  `1`,
				"assertion.runEvents.succeeded":               `2`,
				"assertion.runEvents.runEvents.*.result.type": `["SUCCESS","FAILURE","SUCCESS"]`,
				"assertion.info.datasetAssertion.operator":    `"GREATER_THAN"`,
			} {
				if v, _ := pick(runs, strings.Split(path, ".")); asJSON(v) != want {
					t.Errorf("getAssertionRuns %s = %s, want %s", path, asJSON(v), want)
				}
			}
			latest := ui.run("getAssertionWithRunEvents", map[string]any{"assertionUrn": assertion})
			if v, _ := pick(latest, []string{"assertion", "runEvents", "runEvents", "*", "runId"}); asJSON(v) != `["run-2"]` {
				t.Errorf("latest run = %s", asJSON(v))
			}
			on := ui.run("getDatasetAssertions", map[string]any{"urn": ds})
			if v, _ := pick(on, []string{"dataset", "assertions", "assertions", "*", "urn"}); asJSON(v) != `["`+assertion+`"]` {
				t.Errorf("dataset's assertions = %s", asJSON(v))
			}

			if got := asJSON(ui.run("deleteAssertion", map[string]any{"urn": assertion})); got != `{"deleteAssertion":true}` {
				t.Errorf("deleteAssertion = %s", got)
			}
			if got := asJSON(srv.gqlData(t, `query { assertion(urn: "`+assertion+`") { urn } }`, nil)); got != `{"assertion":null}` {
				t.Errorf("deleted assertion = %s", got)
			}
			on = ui.run("getDatasetAssertions", map[string]any{"urn": ds})
			if v, _ := pick(on, []string{"dataset", "assertions", "total"}); fmt.Sprint(v) != "0" {
				t.Errorf("dataset's assertions after deletion = %s", asJSON(on))
			}
			if status, b := srv.do(t, "POST", "/aspects?action=getTimeseriesAspectValues", map[string]any{"urn": assertion, "entity": "assertion", "aspect": "assertionRunEvent"}); status != 200 ||
				strings.Contains(string(b), "run-0") {
				t.Errorf("run events after deletion: %d %s", status, b)
			}
			// Deleting what does not exist succeeds, as in DataHub.
			if got := asJSON(ui.run("deleteAssertion", map[string]any{"urn": assertion})); got != `{"deleteAssertion":true}` {
				t.Errorf("deleteAssertion again = %s", got)
			}
		})
	}
}

// TestGraphQLDataContracts writes a dataset's data contract twice (the
// second write updates the same contract) and reads it as the UI does.
func TestGraphQLDataContracts(t *testing.T) {
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,contract.orders,PROD)"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			props := []any{mcp("dataset", ds, "datasetProperties", map[string]any{"name": "orders"})}
			for _, a := range []string{"fresh", "schema", "rows"} {
				props = append(props, mcp("assertion", "urn:li:assertion:"+a, "assertionInfo", map[string]any{"type": "DATASET",
					"datasetAssertion": map[string]any{"dataset": ds, "scope": "DATASET_ROWS", "operator": "GREATER_THAN"}}))
			}
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": props})

			got := ui.run("upsertDataContract", map[string]any{"input": map[string]any{"entityUrn": ds, "id": "orders-contract", "state": "PENDING",
				"freshness": []any{map[string]any{"assertionUrn": "urn:li:assertion:fresh"}},
				"schema":    []any{map[string]any{"assertionUrn": "urn:li:assertion:schema"}}}})
			if v, _ := pick(got, []string{"upsertDataContract", "urn"}); v != "urn:li:dataContract:orders-contract" {
				t.Errorf("contract urn = %v", v)
			}
			if v, _ := pick(got, []string{"upsertDataContract", "status", "state"}); v != "PENDING" {
				t.Errorf("contract state = %v", v)
			}
			// A second write, without an id, updates the dataset's contract.
			got = ui.run("upsertDataContract", map[string]any{"input": map[string]any{"entityUrn": ds,
				"dataQuality": []any{map[string]any{"assertionUrn": "urn:li:assertion:rows"}}}})
			if v, _ := pick(got, []string{"upsertDataContract", "urn"}); v != "urn:li:dataContract:orders-contract" {
				t.Errorf("second write made contract %v, want the dataset's", v)
			}
			read := ui.run("getDatasetContract", map[string]any{"urn": ds})
			for path, want := range map[string]string{
				"dataset.contract.urn":                                    `"urn:li:dataContract:orders-contract"`,
				"dataset.contract.status.state":                           `"ACTIVE"`,
				"dataset.contract.properties.dataQuality.*.assertion.urn": `["urn:li:assertion:rows"]`,
				"dataset.contract.properties.freshness":                   `null`,
			} {
				if v, _ := pick(read, strings.Split(path, ".")); asJSON(v) != want {
					t.Errorf("getDatasetContract %s = %s, want %s", path, asJSON(v), want)
				}
			}
			ui.fail("upsertDataContract", map[string]any{"input": map[string]any{"entityUrn": ds,
				"freshness": []any{map[string]any{"assertionUrn": "urn:li:assertion:none"}}}}, "Provided assertion with urn urn:li:assertion:none does not exist!")
			ui.fail("upsertDataContract", map[string]any{"input": map[string]any{"entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,none,PROD)"}}, "does not exist!")
		})
	}
}

// TestGraphQLSavedQueries saves, lists, updates and deletes queries about
// datasets with the operations DataHub's UI sends.
func TestGraphQLSavedQueries(t *testing.T) {
	const orders = "urn:li:dataset:(urn:li:dataPlatform:hive,q.orders,PROD)"
	const users = "urn:li:dataset:(urn:li:dataPlatform:hive,q.users,PROD)"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				mcp("dataset", orders, "datasetProperties", map[string]any{"name": "orders"}),
				mcp("dataset", users, "datasetProperties", map[string]any{"name": "users"}),
			}})
			create := func(name, sql string, subjects ...string) string {
				t.Helper()
				var subs []any
				for _, s := range subjects {
					subs = append(subs, map[string]any{"datasetUrn": s})
				}
				d := ui.run("createQuery", map[string]any{"input": map[string]any{"subjects": subs,
					"properties": map[string]any{"name": name, "description": "about " + name, "statement": map[string]any{"value": sql, "language": "SQL"}}}})
				u, _ := pick(d, []string{"createQuery", "urn"})
				if s, _ := pick(d, []string{"createQuery", "properties", "source"}); s != "MANUAL" {
					t.Errorf("created query's source = %v", s)
				}
				return fmt.Sprint(u)
			}
			first := create("Daily orders", "select count(*) from orders", orders)
			second := create("Orders by user", "select * from orders join users", orders, users)
			ui.fail("createQuery", map[string]any{"input": map[string]any{"subjects": []any{map[string]any{"datasetUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,none,PROD)"}},
				"properties": map[string]any{"statement": map[string]any{"value": "select 1", "language": "SQL"}}}}, "does not exist")

			list := func(vars map[string]any) string {
				t.Helper()
				d := ui.run("listQueries", map[string]any{"input": vars})
				urns, _ := pick(d, []string{"listQueries", "queries", "*", "urn"})
				return asJSON(urns)
			}
			if got := list(map[string]any{"start": 0, "count": 10, "datasetUrn": orders}); got != asJSON([]string{second, first}) {
				t.Errorf("orders' queries = %s, want the latest first", got)
			}
			if got := list(map[string]any{"start": 0, "count": 10, "datasetUrn": users, "source": "MANUAL"}); got != asJSON([]string{second}) {
				t.Errorf("users' queries = %s", got)
			}
			if got := list(map[string]any{"start": 0, "count": 10, "datasetUrn": orders, "source": "SYSTEM"}); got != `[]` {
				t.Errorf("orders' system queries = %s", got)
			}

			d := ui.run("updateQuery", map[string]any{"urn": first, "input": map[string]any{"properties": map[string]any{"name": "Orders per day",
				"statement": map[string]any{"value": "select day, count(*) from orders group by day", "language": "SQL"}}, "subjects": []any{map[string]any{"datasetUrn": users}}}})
			if v, _ := pick(d, []string{"updateQuery", "properties", "statement", "value"}); v != "select day, count(*) from orders group by day" {
				t.Errorf("updated statement = %v", v)
			}
			if got := list(map[string]any{"start": 0, "count": 10, "datasetUrn": orders}); got != asJSON([]string{second}) {
				t.Errorf("orders' queries after moving one = %s", got)
			}
			got := ui.run("getQuery", map[string]any{"urn": first})
			if v, _ := pick(got, []string{"entity", "properties", "name"}); v != "Orders per day" {
				t.Errorf("getQuery name = %v (%s)", v, asJSON(got))
			}
			if got := asJSON(ui.run("deleteQuery", map[string]any{"urn": first})); got != `{"deleteQuery":true}` {
				t.Errorf("deleteQuery = %s", got)
			}
			if got := list(map[string]any{"start": 0, "count": 10, "datasetUrn": users}); got != asJSON([]string{second}) {
				t.Errorf("users' queries after deleting one = %s", got)
			}
			ui.fail("updateQuery", map[string]any{"urn": first, "input": map[string]any{"properties": map[string]any{"name": "x"}}}, "Failed to find query with urn")
		})
	}
}

// TestGraphQLBusinessAttributes creates, lists, updates, applies and
// deletes business attributes with the operations DataHub's UI sends.
func TestGraphQLBusinessAttributes(t *testing.T) {
	const field = "urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,ba.orders,PROD),amount)"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			got := ui.run("createBusinessAttribute", map[string]any{"input": map[string]any{"id": "money", "name": "Money", "description": "an amount", "type": "NUMBER"}})
			for path, want := range map[string]string{
				"createBusinessAttribute.urn":                                  `"urn:li:businessAttribute:money"`,
				"createBusinessAttribute.properties.name":                      `"Money"`,
				"createBusinessAttribute.properties.businessAttributeDataType": `"NUMBER"`,
				"createBusinessAttribute.ownership.owners.*.owner.urn":         `["urn:li:corpuser:datahub"]`,
			} {
				if v, _ := pick(got, strings.Split(path, ".")); asJSON(v) != want {
					t.Errorf("%s = %s, want %s", path, asJSON(v), want)
				}
			}
			ui.fail("createBusinessAttribute", map[string]any{"input": map[string]any{"name": "money"}}, `"money" already exists as Business Attribute`)
			ui.fail("createBusinessAttribute", map[string]any{"input": map[string]any{"id": "money", "name": "Cash"}}, "This Business Attribute already exists!")
			ui.run("createBusinessAttribute", map[string]any{"input": map[string]any{"id": "email", "name": "Email", "type": "STRING"}})

			list := ui.run("listBusinessAttributes", map[string]any{"start": 0, "count": 10, "query": "*"})
			if v, _ := pick(list, []string{"listBusinessAttributes", "total"}); fmt.Sprint(v) != "2" {
				t.Errorf("listBusinessAttributes = %s", asJSON(list))
			}
			got = ui.run("updateBusinessAttribute", map[string]any{"urn": "urn:li:businessAttribute:money", "input": map[string]any{"description": "an amount of money", "type": "STRING"}})
			if v, _ := pick(got, []string{"updateBusinessAttribute", "properties"}); !strings.Contains(asJSON(v), `"description":"an amount of money"`) || !strings.Contains(asJSON(v), `"businessAttributeDataType":"STRING"`) {
				t.Errorf("updated = %s", asJSON(v))
			}
			ui.fail("updateBusinessAttribute", map[string]any{"urn": "urn:li:businessAttribute:money", "input": map[string]any{"name": "Email"}}, "already exists as Business Attribute")

			in := map[string]any{"input": map[string]any{"businessAttributeUrn": "urn:li:businessAttribute:money", "resourceUrn": []any{map[string]any{"resourceUrn": field}}}}
			ui.run("addBusinessAttribute", in)
			stored := func() string {
				v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(field)+"?aspects=List(businessAttributes)", nil))
				v, _ := pick(v2, []string{"aspects", "businessAttributes", "value"})
				return asJSON(v)
			}
			if got := stored(); got != `{"businessAttribute":{"businessAttributeUrn":"urn:li:businessAttribute:money"}}` {
				t.Errorf("field's business attribute = %s", got)
			}
			ui.run("removeBusinessAttribute", in)
			if got := stored(); got != `{}` {
				t.Errorf("field's business attribute after removal = %s", got)
			}
			if got := asJSON(ui.run("deleteBusinessAttribute", map[string]any{"urn": "urn:li:businessAttribute:money"})); got != `{"deleteBusinessAttribute":true}` {
				t.Errorf("deleteBusinessAttribute = %s", got)
			}
			if got := asJSON(ui.run("getBusinessAttribute", map[string]any{"urn": "urn:li:businessAttribute:money"})); got != `{"businessAttribute":null}` {
				t.Errorf("deleted business attribute = %s", got)
			}
		})
	}
}

// TestGraphQLMetadataTests creates, lists, updates and deletes metadata
// tests and shows their results on a dataset.
func TestGraphQLMetadataTests(t *testing.T) {
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,tests.orders,PROD)"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			def := `{"on":{"types":["dataset"]},"rules":{"and":[{"property":"description","operator":"exists"}]}}`
			got := ui.run("createTest", map[string]any{"input": map[string]any{"id": "has-description", "name": "Has description", "category": "Docs",
				"definition": map[string]any{"json": def}}})
			if got["createTest"] != "urn:li:test:has-description" {
				t.Fatalf("createTest = %s", asJSON(got))
			}
			ui.fail("createTest", map[string]any{"input": map[string]any{"id": "has-description", "name": "x", "category": "y", "definition": map[string]any{"json": "{}"}}}, "This Test already exists!")
			ui.fail("createTest", map[string]any{"input": map[string]any{"name": "x", "category": "y", "definition": map[string]any{"json": "{not json"}}}, "not JSON")
			ui.run("createTest", map[string]any{"input": map[string]any{"id": "has-owner", "name": "Has owner", "category": "Ownership", "definition": map[string]any{"json": "{}"}}})

			list := ui.run("listTests", map[string]any{"input": map[string]any{"start": 0, "count": 10, "query": "owner"}})
			if v, _ := pick(list, []string{"listTests", "tests", "*", "urn"}); asJSON(v) != `["urn:li:test:has-owner"]` {
				t.Errorf("tests matching owner = %s", asJSON(list))
			}
			srv.gqlData(t, `mutation { updateTest(urn: "urn:li:test:has-owner", input: {name: "Has an owner", category: "Ownership", description: "someone answers", definition: {json: "{}"}}) }`, nil)
			one := ui.run("getTest", map[string]any{"urn": "urn:li:test:has-owner"})
			if got := asJSON(one["test"]); got != `{"category":"Ownership","definition":{"json":"{}"},"description":"someone answers","name":"Has an owner","urn":"urn:li:test:has-owner"}` {
				t.Errorf("updated test = %s", got)
			}

			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("dataset", ds, "testResults", map[string]any{
				"passing": []any{map[string]any{"test": "urn:li:test:has-description", "type": "SUCCESS"}},
				"failing": []any{map[string]any{"test": "urn:li:test:has-owner", "type": "FAILURE"}}})})
			res := srv.gqlData(t, `query { dataset(urn: "`+ds+`") { testResults { passing { type test { name } } failing { type test { name } } } } }`, nil)
			if got := asJSON(res); got != `{"dataset":{"testResults":{"failing":[{"test":{"name":"Has an owner"},"type":"FAILURE"}],"passing":[{"test":{"name":"Has description"},"type":"SUCCESS"}]}}}` {
				t.Errorf("test results = %s", got)
			}
			if got := asJSON(ui.run("deleteTest", map[string]any{"urn": "urn:li:test:has-owner"})); got != `{"deleteTest":true}` {
				t.Errorf("deleteTest = %s", got)
			}
			if got := asJSON(ui.run("getTest", map[string]any{"urn": "urn:li:test:has-owner"})); got != `{"test":null}` {
				t.Errorf("deleted test = %s", got)
			}
		})
	}
}

// TestGraphQLConnections creates and replaces a connection with the UI's
// operations; its blob is stored encrypted and shown decrypted.
func TestGraphQLConnections(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			const blob = `{"account":"acme","password":"hunter2"}`
			got := ui.run("upsertConnection", map[string]any{"input": map[string]any{"id": "snowflake-prod", "type": "JSON", "name": "Snowflake",
				"platformUrn": "urn:li:dataPlatform:snowflake", "json": map[string]any{"blob": blob}}})
			if v, _ := pick(got, []string{"upsertConnection", "details"}); asJSON(v) != `{"json":{"blob":"{\"account\":\"acme\",\"password\":\"hunter2\"}"},"type":"JSON"}` {
				t.Errorf("upsertConnection details = %s", asJSON(v))
			}
			if v, _ := pick(got, []string{"upsertConnection", "urn"}); v != "urn:li:dataHubConnection:snowflake-prod" {
				t.Errorf("upsertConnection urn = %v", v)
			}
			if v, _ := pick(got, []string{"upsertConnection", "platform", "urn"}); v != "urn:li:dataPlatform:snowflake" {
				t.Errorf("connection platform = %v", v)
			}
			stored := string(srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape("urn:li:dataHubConnection:snowflake-prod"), nil))
			if strings.Contains(stored, "hunter2") || !strings.Contains(stored, "encryptedBlob") {
				t.Errorf("stored connection is not encrypted: %s", stored)
			}
			ui.run("upsertConnection", map[string]any{"input": map[string]any{"id": "snowflake-prod", "type": "JSON",
				"platformUrn": "urn:li:dataPlatform:snowflake", "json": map[string]any{"blob": `{"account":"acme2"}`}}})
			read := ui.run("connection", map[string]any{"urn": "urn:li:dataHubConnection:snowflake-prod"})
			if v, _ := pick(read, []string{"connection", "details", "json", "blob"}); v != `{"account":"acme2"}` {
				t.Errorf("connection blob after replacing = %v", v)
			}
			ui.fail("upsertConnection", map[string]any{"input": map[string]any{"type": "JSON", "platformUrn": "urn:li:corpuser:x", "json": map[string]any{"blob": "{}"}}}, "not a data platform URN")
		})
	}
}

// TestGraphQLDocPropagationSettings reads and changes the documentation
// propagation settings as the UI's settings page does.
func TestGraphQLDocPropagationSettings(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			read := func() string {
				t.Helper()
				return asJSON(ui.run("getDocPropagationSettings", nil))
			}
			if got := read(); got != `{"docPropagationSettings":{"docColumnPropagation":false}}` {
				t.Errorf("initial settings = %s, want DataHub's default off", got)
			}
			for _, on := range []bool{true, false} {
				if got := asJSON(ui.run("updateDocPropagationSettings", map[string]any{"input": map[string]any{"docColumnPropagation": on}})); got != `{"updateDocPropagationSettings":true}` {
					t.Errorf("update = %s", got)
				}
				if got := read(); got != fmt.Sprintf(`{"docPropagationSettings":{"docColumnPropagation":%v}}`, on) {
					t.Errorf("settings after setting %v = %s", on, got)
				}
			}
			v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape("urn:li:globalSettings:0")+"?aspects=List(globalSettingsInfo)", nil))
			if v, _ := pick(v2, []string{"aspects", "globalSettingsInfo", "value", "docPropagation"}); asJSON(v) != `{"columnPropagationEnabled":false,"enabled":true}` {
				t.Errorf("stored settings = %s", asJSON(v))
			}
		})
	}
}

// TestGraphQLForms creates a verification form asking for a structured
// property, assigns it to a dataset, answers and verifies it, and deletes
// it.
func TestGraphQLForms(t *testing.T) {
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,forms.orders,PROD)"
	const prop = "urn:li:structuredProperty:steward"
	const form = "urn:li:form:stewardship"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := newUIRunner(t, srv)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("dataset", ds, "datasetProperties", map[string]any{"name": "orders"})})
			ui.run("createStructuredProperty", map[string]any{"input": map[string]any{"qualifiedName": "steward", "valueType": "urn:li:dataType:datahub.string",
				"entityTypes": []string{"urn:li:entityType:datahub.dataset"}}})
			created := srv.gqlData(t, `mutation($in: CreateFormInput!) { createForm(input: $in) { urn info { name type prompts { id type required structuredPropertyParams { structuredProperty { urn } } } } } }`,
				map[string]any{"in": map[string]any{"id": "stewardship", "name": "Stewardship", "type": "VERIFICATION",
					"prompts": []any{map[string]any{"id": "who", "title": "Who stewards it?", "type": "STRUCTURED_PROPERTY", "required": true, "structuredPropertyParams": map[string]any{"urn": prop}}}}})
			if got := asJSON(created); got != `{"createForm":{"info":{"name":"Stewardship","prompts":[{"id":"who","required":true,"structuredPropertyParams":{"structuredProperty":{"urn":"`+prop+`"}},"type":"STRUCTURED_PROPERTY"}],"type":"VERIFICATION"},"urn":"`+form+`"}}` {
				t.Errorf("createForm = %s", got)
			}
			srv.gqlData(t, `mutation { batchAssignForm(input: {formUrn: "`+form+`", entityUrns: ["`+ds+`"]}) }`, nil)
			forms := func() string {
				t.Helper()
				d := srv.gqlData(t, `query { dataset(urn: "`+ds+`") { forms { incompleteForms { form { urn } } completedForms { form { urn } completedPrompts { id } } verifications { form { urn } } } } }`, nil)
				v, _ := pick(d, []string{"dataset", "forms"})
				return asJSON(v)
			}
			if got := forms(); got != `{"completedForms":[],"incompleteForms":[{"form":{"urn":"`+form+`"}}],"verifications":[]}` {
				t.Errorf("forms after assignment = %s", got)
			}
			if got := searchURNs(t, srv, []string{"DATASET"}, "incompleteForms", []string{form}, "EQUAL"); got != `["`+ds+`"]` {
				t.Errorf("datasets with the form incomplete = %s", got)
			}
			ui.fail("verifyForm", map[string]any{"input": map[string]any{"formUrn": form, "entityUrn": ds}}, "has not been completed")
			ui.run("submitFormPrompt", map[string]any{"urn": ds, "input": map[string]any{"promptId": "who", "formUrn": form, "type": "STRUCTURED_PROPERTY",
				"structuredPropertyParams": map[string]any{"structuredPropertyUrn": prop, "values": []any{map[string]any{"stringValue": "jdoe"}}}}})
			if got := forms(); got != `{"completedForms":[{"completedPrompts":[{"id":"who"}],"form":{"urn":"`+form+`"}}],"incompleteForms":[],"verifications":[]}` {
				t.Errorf("forms after answering = %s", got)
			}
			if got := searchURNs(t, srv, []string{"DATASET"}, "structuredProperties.steward", []string{"jdoe"}, "EQUAL"); got != `["`+ds+`"]` {
				t.Errorf("datasets stewarded by jdoe = %s", got)
			}
			ui.run("verifyForm", map[string]any{"input": map[string]any{"formUrn": form, "entityUrn": ds}})
			if got := forms(); !strings.Contains(got, `"verifications":[{"form":{"urn":"`+form+`"}}]`) {
				t.Errorf("forms after verifying = %s", got)
			}
			ui.fail("submitFormPrompt", map[string]any{"urn": ds, "input": map[string]any{"promptId": "nope", "formUrn": form, "type": "STRUCTURED_PROPERTY"}}, "has no prompt nope")

			srv.gqlData(t, `mutation { updateForm(input: {urn: "`+form+`", name: "Data stewardship", actors: {usersToAdd: ["urn:li:corpuser:jdoe"]}}) { urn } }`, nil)
			if got := asJSON(srv.gqlData(t, `query { entity(urn: "`+form+`") { ... on Form { info { name } } } }`, nil)); got != `{"entity":{"info":{"name":"Data stewardship"}}}` {
				t.Errorf("updated form = %s", got)
			}
			srv.gqlData(t, `mutation { deleteForm(input: {urn: "`+form+`"}) }`, nil)
			if got := forms(); got != `{"completedForms":[],"incompleteForms":[],"verifications":[]}` {
				t.Errorf("forms after the form's deletion = %s", got)
			}
		})
	}
}

// TestOpenAPIV3Governance writes the governance entities through OpenAPI
// v3 as terraform-provider-datahub does, and finds them through GraphQL:
// a structured property and its value on a dataset (filterable in
// search), a data product holding the dataset, an incident on it.
func TestOpenAPIV3Governance(t *testing.T) {
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,v3.orders,PROD)"
	const prop = "urn:li:structuredProperty:io.acryl.tier"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			post := func(entity string, body map[string]any) {
				t.Helper()
				srv.mustDo(t, 200, "POST", "/openapi/v3/entity/"+entity+"?async=false", []any{body})
			}
			post("structuredproperty", map[string]any{"urn": prop, "propertyDefinition": map[string]any{"value": map[string]any{
				"qualifiedName": "io.acryl.tier", "valueType": "urn:li:dataType:datahub.string", "entityTypes": []string{"urn:li:entityType:datahub.dataset"},
				"allowedValues": []any{map[string]any{"value": map[string]any{"string": "gold"}}, map[string]any{"value": map[string]any{"string": "bronze"}}}}}})
			post("dataset", map[string]any{"urn": ds, "datasetProperties": map[string]any{"value": map[string]any{"name": "orders"}},
				"structuredProperties": map[string]any{"value": map[string]any{"properties": []any{map[string]any{"propertyUrn": prop, "values": []any{map[string]any{"string": "gold"}}}}}}})
			post("dataproduct", map[string]any{"urn": "urn:li:dataProduct:sales", "dataProductProperties": map[string]any{"value": map[string]any{
				"name": "Sales", "assets": []any{map[string]any{"destinationUrn": ds}}}}})
			post("incident", map[string]any{"urn": "urn:li:incident:late", "incidentInfo": map[string]any{"value": map[string]any{
				"type": "FRESHNESS", "title": "late", "entities": []string{ds}, "status": map[string]any{"state": "ACTIVE", "lastUpdated": map[string]any{"time": 1, "actor": "urn:li:corpuser:datahub"}},
				"created": map[string]any{"time": 1, "actor": "urn:li:corpuser:datahub"}}}})

			if got := searchURNs(t, srv, []string{"DATASET"}, "structuredProperties.io.acryl.tier", []string{"gold"}, "EQUAL"); got != `["`+ds+`"]` {
				t.Errorf("gold datasets = %s", got)
			}
			d := srv.gqlData(t, `query { dataset(urn: "`+ds+`") {
				structuredProperties { properties { structuredProperty { urn definition { qualifiedName } } values { ... on StringValue { stringValue } } } }
				incidents(start: 0, count: 10) { total incidents { title } } } }`, nil)
			if got := asJSON(d); got != `{"dataset":{"incidents":{"incidents":[{"title":"late"}],"total":1},"structuredProperties":{"properties":[{"structuredProperty":{"definition":{"qualifiedName":"io.acryl.tier"},"urn":"`+prop+`"},"values":[{"stringValue":"gold"}]}]}}}` {
				t.Errorf("dataset = %s", got)
			}
			assets := srv.gqlData(t, `query { listDataProductAssets(urn: "urn:li:dataProduct:sales", input: {query: "*", start: 0, count: 10}) { searchResults { entity { urn } } } }`, nil)
			if v, _ := pick(assets, []string{"listDataProductAssets", "searchResults", "*", "entity", "urn"}); asJSON(v) != `["`+ds+`"]` {
				t.Errorf("data product assets = %s", asJSON(assets))
			}
			got := decode(t, srv.mustDo(t, 200, "GET", "/openapi/v3/entity/structuredproperty/"+pathEscape(prop), nil))
			if v, _ := pick(got, []string{"propertyDefinition", "value", "qualifiedName"}); v != "io.acryl.tier" {
				t.Errorf("v3 read of the property = %s", asJSON(got))
			}
		})
	}
}
