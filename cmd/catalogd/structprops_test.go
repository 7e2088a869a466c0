package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestStructuredPropertyValuesChecked writes the same bad structured
// property values through rest.li, OpenAPI v2 and v3 and GraphQL: each
// protocol refuses them with a client error naming the property and the
// reason, and the asset's values stay as they were.
func TestStructuredPropertyValuesChecked(t *testing.T) {
	const (
		asset = "urn:li:dataset:(urn:li:dataPlatform:hive,checked.orders,PROD)"
		num   = "urn:li:structuredProperty:checked.retention"
		date  = "urn:li:structuredProperty:checked.reviewed"
		ref   = "urn:li:structuredProperty:checked.steward"
		multi = "urn:li:structuredProperty:checked.labels"
		gone  = "urn:li:structuredProperty:checked.gone"
		users = "urn:li:structuredProperty:checked.badge"
		fixed = "urn:li:structuredProperty:checked.fixed"
	)
	def := func(urn, valueType string, extra map[string]any, entityTypes ...string) map[string]any {
		v := map[string]any{"qualifiedName": strings.TrimPrefix(urn, "urn:li:structuredProperty:"), "valueType": "urn:li:dataType:datahub." + valueType, "entityTypes": entityTypes}
		for k, x := range extra {
			v[k] = x
		}
		return seed(urn, "structuredProperty", "propertyDefinition", v)
	}
	const onDatasets = "urn:li:entityType:datahub.dataset"
	str := func(s string) map[string]any { return map[string]any{"string": s} }
	dbl := func(f float64) map[string]any { return map[string]any{"double": f} }
	assign := func(prop string, values ...map[string]any) map[string]any {
		return map[string]any{"propertyUrn": prop, "values": values}
	}
	good := map[string]any{"properties": []any{assign(num, dbl(30)), assign(multi, str("a"), str("b")), assign(fixed, str("set once"))}}

	tests := []struct {
		name       string
		properties []any
		want       string // what the error says besides the property
		prop       string // the property the error names
		noGraphQL  bool   // GraphQL's input cannot say it
	}{
		{name: "value not allowed", properties: []any{assign(num, dbl(45))}, prop: num, want: "not one of the allowed values"},
		{name: "string for a number", properties: []any{assign(num, str("ninety"))}, prop: num, want: "takes number values"},
		{name: "two values for a single value", properties: []any{assign(num, dbl(30), dbl(90))}, prop: num, want: "takes a single value"},
		{name: "number for a date", properties: []any{assign(date, dbl(5))}, prop: date, want: "takes date values"},
		{name: "not a date", properties: []any{assign(date, str("2024-13"))}, prop: date, want: "is not a date"},
		{name: "no such day", properties: []any{assign(date, str("2023-02-29"))}, prop: date, want: "is not a date"},
		{name: "not a URN", properties: []any{assign(ref, str("nope"))}, prop: ref, want: "is not a URN"},
		{name: "URN of a type not allowed", properties: []any{assign(ref, str(asset))}, prop: ref, want: "is not of an allowed entity type"},
		{name: "no such property", properties: []any{assign("urn:li:structuredProperty:checked.none", str("x"))}, prop: "urn:li:structuredProperty:checked.none", want: "does not exist"},
		{name: "soft-deleted property", properties: []any{assign(gone, str("x"))}, prop: gone, want: "soft-deleted"},
		{name: "property of another entity type", properties: []any{assign(users, str("x"))}, prop: users, want: "does not apply to entity type dataset"},
		{name: "property assigned twice", properties: []any{assign(multi, str("a")), assign(multi, str("b"))}, prop: multi, want: "more than once", noGraphQL: true},
		{name: "immutable value changed", properties: []any{assign(num, dbl(30)), assign(multi, str("a"), str("b")), assign(fixed, str("again"))}, prop: fixed, want: "immutable: its values cannot change"},
		{name: "immutable value removed", properties: []any{assign(num, dbl(30)), assign(multi, str("a"), str("b"))}, prop: fixed, want: "immutable: its values cannot be removed", noGraphQL: true},
	}

	type protocol struct {
		name string
		// write sends properties and returns the status and error message.
		write func(t *testing.T, srv *testServer, ui *uiOps, properties []any) (int, string)
	}
	httpWrite := func(method, path string, body func(v map[string]any) any) func(t *testing.T, srv *testServer, _ *uiOps, properties []any) (int, string) {
		return func(t *testing.T, srv *testServer, _ *uiOps, properties []any) (int, string) {
			t.Helper()
			status, b := srv.do(t, method, path, body(map[string]any{"properties": properties}))
			return status, string(b)
		}
	}
	protocols := []protocol{
		{"rest.li ingestProposal", httpWrite("POST", "/aspects?action=ingestProposal", func(v map[string]any) any {
			return map[string]any{"proposal": mcp("dataset", asset, "structuredProperties", v)}
		})},
		{"OpenAPI v2", httpWrite("POST", "/openapi/v2/entity/dataset", func(v map[string]any) any {
			return []any{map[string]any{"urn": asset, "aspects": map[string]any{"structuredProperties": map[string]any{"value": v}}}}
		})},
		{"OpenAPI v3", httpWrite("POST", "/openapi/v3/entity/dataset?async=false", func(v map[string]any) any {
			return []any{map[string]any{"urn": asset, "structuredProperties": map[string]any{"value": v}}}
		})},
		{"GraphQL upsertStructuredProperties", func(t *testing.T, srv *testServer, ui *uiOps, properties []any) (int, string) {
			t.Helper()
			var params []any
			for _, p := range properties {
				a := p.(map[string]any)
				var vals []any
				for _, v := range a["values"].([]map[string]any) {
					if s, ok := v["string"]; ok {
						vals = append(vals, map[string]any{"stringValue": s})
					} else {
						vals = append(vals, map[string]any{"numberValue": v["double"]})
					}
				}
				params = append(params, map[string]any{"structuredPropertyUrn": a["propertyUrn"], "values": vals})
			}
			r := srv.gql(t, ui.docs.text(t, "upsertStructuredProperties"), map[string]any{"input": map[string]any{"assetUrn": asset, "structuredPropertyInputParams": params}})
			if len(r.Errors) == 0 {
				return 200, ""
			}
			return 400, fmt.Sprint(r.Errors[0]["message"])
		}},
	}

	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := loadUIOps(t, srv)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				def(num, "number", map[string]any{"allowedValues": []any{map[string]any{"value": dbl(30)}, map[string]any{"value": dbl(90)}}}, onDatasets),
				def(date, "date", nil, onDatasets),
				def(ref, "urn", map[string]any{"typeQualifier": map[string]any{"allowedTypes": []string{"urn:li:entityType:datahub.corpuser"}}}, onDatasets),
				def(multi, "string", map[string]any{"cardinality": "MULTIPLE"}, onDatasets),
				def(gone, "string", nil, onDatasets),
				seed(gone, "structuredProperty", "status", map[string]any{"removed": true}),
				def(users, "string", nil, "urn:li:entityType:datahub.corpuser"),
				def(fixed, "string", map[string]any{"immutable": true}, onDatasets),
				seed(asset, "dataset", "datasetProperties", map[string]any{"name": "orders"}),
			}})
			// Values that fit their properties pass, in the same request
			// as a property they use.
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				def("urn:li:structuredProperty:checked.new", "rich_text", nil, onDatasets),
				seed(asset, "dataset", "structuredProperties", map[string]any{"properties": []any{
					assign(num, dbl(30)), assign(multi, str("a"), str("b")), assign(date, str("2024-02-29")),
					assign(ref, str("urn:li:corpuser:jane")), assign("urn:li:structuredProperty:checked.new", str("**bold**"))}}),
			}})
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("dataset", asset, "structuredProperties", good)})
			stored := func() string {
				t.Helper()
				return asJSON(aspectsOf(t, srv, asset)["structuredProperties"])
			}
			before := stored()
			if want, _ := json.Marshal(good); before != string(want) {
				t.Fatalf("stored values = %s, want %s", before, want)
			}
			for _, p := range protocols {
				for _, tc := range tests {
					if tc.noGraphQL && strings.HasPrefix(p.name, "GraphQL") {
						continue
					}
					t.Run(p.name+"/"+tc.name, func(t *testing.T) {
						status, msg := p.write(t, srv, ui, tc.properties)
						if status < 400 || status >= 500 {
							t.Errorf("status %d (%s), want a client error", status, msg)
						}
						if !strings.Contains(msg, tc.prop) || !strings.Contains(msg, tc.want) {
							t.Errorf("error %q, want it to name %s and say %q", msg, tc.prop, tc.want)
						}
						if got := stored(); got != before {
							t.Errorf("values after a refused write = %s, want %s", got, before)
						}
					})
				}
			}
		})
	}
}
