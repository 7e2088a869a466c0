package main

import (
	"testing"
)

// TestAuthOpenAPIReads checks the privileges of the OpenAPI reads: with
// the policy that lets every user view every entity made inactive, a user
// allowed to view one dataset reads it through every OpenAPI read, and is
// refused (403) the reads of another dataset, batches naming one, and
// scrolls and relationships that list one.
func TestAuthOpenAPIReads(t *testing.T) {
	s := startAuthServer(t)
	admin := bearer(s.admin)
	allowed, other := datasetURN("auth.allowed"), datasetURN("auth.other")
	owners := map[string]any{"value": map[string]any{"owners": []any{map[string]any{"owner": "urn:li:corpuser:jdoe", "type": "DATAOWNER"}}}}
	for _, u := range []string{allowed, other} {
		if st, b := s.call(t, admin, "POST", "/openapi/v3/entity/dataset?async=false", []any{map[string]any{"urn": u, "status": map[string]any{"value": map[string]any{"removed": false}}, "ownership": owners}}); st != 200 {
			t.Fatalf("seed %s: %d %s", u, st, b)
		}
	}
	policy := func(urn string, info map[string]any) {
		t.Helper()
		if st, b := s.call(t, admin, "POST", "/openapi/v3/entity/datahubpolicy/"+pathEscape(urn)+"/datahubpolicyinfo?createIfNotExists=false", map[string]any{"value": info}); st != 200 {
			t.Fatalf("policy %s: %d %s", urn, st, b)
		}
	}
	policy("urn:li:dataHubPolicy:view-entity-page-all", map[string]any{
		"displayName": "All Users - View Entity Page", "description": "off for the test", "type": "METADATA", "state": "INACTIVE",
		"privileges": []string{"VIEW_ENTITY_PAGE", "GET_ENTITY_PRIVILEGE"}, "actors": map[string]any{"allUsers": true}, "editable": true,
	})
	policy("urn:li:dataHubPolicy:view-one", map[string]any{
		"displayName": "view one", "description": "d", "type": "METADATA", "state": "ACTIVE", "editable": true,
		"privileges": []string{"VIEW_ENTITY_PAGE"}, "actors": map[string]any{"users": []string{"urn:li:corpuser:viewer"}},
		"resources": map[string]any{"type": "dataset", "resources": []string{allowed}, "allResources": false},
	})
	viewer, _ := s.cliToken(t, "viewer")
	for _, tt := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"GET", "/openapi/v3/entity/dataset/" + pathEscape(allowed), nil, 200},
		{"GET", "/openapi/v3/entity/dataset/" + pathEscape(other), nil, 403},
		{"GET", "/openapi/v3/entity/dataset/" + pathEscape(allowed) + "/status", nil, 200},
		{"GET", "/openapi/v3/entity/dataset/" + pathEscape(other) + "/status", nil, 403},
		{"HEAD", "/openapi/v3/entity/dataset/" + pathEscape(allowed), nil, 204},
		{"HEAD", "/openapi/v3/entity/dataset/" + pathEscape(other) + "/status", nil, 403},
		{"GET", "/openapi/v2/entity/dataset/" + pathEscape(allowed), nil, 200},
		{"GET", "/openapi/v2/entity/dataset/" + pathEscape(other), nil, 403},
		{"POST", "/openapi/v3/entity/dataset/batchGet", []any{map[string]any{"urn": allowed}}, 200},
		{"POST", "/openapi/v3/entity/dataset/batchGet", []any{map[string]any{"urn": allowed}, map[string]any{"urn": other}}, 403},
		{"POST", "/openapi/v2/entity/batch/dataset", map[string]any{"urns": []string{allowed}}, 200},
		{"POST", "/openapi/v2/entity/batch/dataset", map[string]any{"urns": []string{allowed, other}}, 403},
		{"GET", "/openapi/v3/entity/dataset", nil, 403},
		{"GET", "/openapi/v2/entity/dataset", nil, 403},
		{"POST", "/openapi/v3/entity/scroll", map[string]any{"entities": []string{"dataset"}}, 403},
		{"GET", "/openapi/v3/relationship/dataset/" + pathEscape(allowed) + "?relationshipType[]=DownstreamOf", nil, 200},
		{"GET", "/openapi/v3/relationship/dataset/" + pathEscape(allowed), nil, 403}, // its owner is not viewable
		{"GET", "/openapi/v3/relationship/dataset/" + pathEscape(other), nil, 403},
		{"GET", "/openapi/v2/relationship/OwnedBy", nil, 403},
		{"POST", "/entities?action=exists", map[string]any{"urn": allowed}, 200},
		{"POST", "/entities?action=exists", map[string]any{"urn": other}, 403},
	} {
		if st, b := s.call(t, bearer(viewer), tt.method, tt.path, tt.body); st != tt.want {
			t.Errorf("%s %s: %d %s, want %d", tt.method, tt.path, st, b, tt.want)
		}
	}
}
