package main

import (
	"encoding/json"
	"testing"
)

// The governance end-to-end tests: domains, glossary, ownership types, roles
// and policies, users and groups, through GraphQL as DataHub's web app and
// terraform provider send it, and the validation errors in the words of
// DataHub's GraphQL engine that clients recognise.

func TestGraphQLValidationWording(t *testing.T) {
	srv := startServer(t)
	tests := []struct {
		name, query, want string
	}{
		{"undefined mutation", `mutation { createWidget(input: {name: "x"}) }`,
			"Validation error (FieldUndefined@[createWidget]) : Field 'createWidget' in type 'Mutation' is undefined"},
		{"undefined query field", `{ nope }`,
			"Validation error (FieldUndefined@[nope]) : Field 'nope' in type 'Query' is undefined"},
		{"undefined nested field", `query Q { me { corpUser { urn nothingHere } } }`,
			"Validation error (FieldUndefined@[me/corpUser/nothingHere]) : Field 'nothingHere' in type 'CorpUser' is undefined"},
		{"undefined field under an alias", `{ who: me { corpUser { urnn } } }`,
			"Validation error (FieldUndefined@[me/corpUser/urnn]) : Field 'urnn' in type 'CorpUser' is undefined"},
		{"undefined field in a fragment", `query Q { me { ...F } } fragment F on AuthenticatedUser { corpUser { bogus } }`,
			"Validation error (FieldUndefined@[corpUser/bogus]) : Field 'bogus' in type 'CorpUser' is undefined"},
		{"unknown variable type", `mutation M($input: CreateWidgetInput!) { createTag(input: $input) }`,
			"Validation error (UnknownType) : Unknown type 'CreateWidgetInput'"},
		{"unknown inline fragment type", `{ entity(urn: "urn:li:tag:x") { urn ... on Widget { urn } } }`,
			"Validation error (UnknownType@[entity]) : Unknown type 'Widget'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := srv.gql(t, tt.query, nil)
			found := false
			for _, e := range r.Errors {
				if e["message"] == tt.want {
					found = true
					ext, _ := e["extensions"].(map[string]any)
					if ext["classification"] != "ValidationError" || ext["code"] != json.Number("400") {
						t.Errorf("extensions = %v, want classification ValidationError and code 400", ext)
					}
				}
			}
			if !found {
				t.Errorf("errors = %v, want one reading %q", r.Errors, tt.want)
			}
			if r.Data != nil {
				t.Errorf("data = %v, want none for a query that does not validate", r.Data)
			}
		})
	}
	// Other validation errors keep their words.
	e := srv.gqlError(t, `{ dataset(urn: 5) { urn } }`, nil)
	if m, _ := e["message"].(string); m == "" || m[:16] == "Validation error" {
		t.Errorf("argument type error = %v", e)
	}
}
