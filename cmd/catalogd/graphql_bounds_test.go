package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// postGraphQL sends a raw GraphQL request body, failing the test when the
// server does not answer within a generous bound: the point is that it
// answers at all, where a hostile query used to hang it or crash it.
func (s *testServer) postGraphQL(t *testing.T, body []byte, accept string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/graphql", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestGraphQLQueryBounds sends queries built to exhaust the parser or the
// validator: each gets DataHub's BAD_REQUEST error at once, and the server
// goes on serving.
func TestGraphQLQueryBounds(t *testing.T) {
	srv := startServer(t)
	const size = 3 << 20 // under the body limit
	deep := func(open, inner, close string) string {
		n := size / (len(open) + len(close))
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	var fragments strings.Builder
	fragments.WriteString("{ ...F0 } ")
	for i := range 60 {
		fmt.Fprintf(&fragments, "fragment F%d on Query { ...F%d ...F%d } ", i, i+1, i+1)
	}
	fragments.WriteString("fragment F60 on Query { __typename }")

	tests := []struct {
		name, query    string
		message        string
		classification string // "" when the error has none
	}{
		{name: "nested selections", query: deep("{a", "", "}"),
			message: "the query's selection sets exceed the nesting depth limit of 100", classification: "InvalidSyntax"},
		{name: "nested inline fragments", query: "{" + deep("... on Query {", "__typename", "}") + "}",
			message: "the query's selection sets exceed the nesting depth limit of 100", classification: "InvalidSyntax"},
		{name: "nested list literals", query: "{ dataset(urn: " + deep("[", `"x"`, "]") + ") { urn } }",
			message: "the query's values exceed the nesting depth limit of 50", classification: "InvalidSyntax"},
		{name: "nested object literals", query: "{ search(input: " + deep("{a:", "1", "}") + ") { total } }",
			message: "the query's values exceed the nesting depth limit of 50", classification: "InvalidSyntax"},
		{name: "many fields", query: "{" + strings.Repeat(" __typename", size/11) + "}",
			message: "exceeded token limit of 15000", classification: "InvalidSyntax"},
		{name: "exponential fragments", query: fragments.String(),
			message: "operation selects 2147483647 fields with its fragments expanded, more than the limit of 250000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := json.Marshal(map[string]any{"query": tt.query})
			if err != nil {
				t.Fatal(err)
			}
			status, b := srv.postGraphQL(t, body, "")
			var r gqlResponse
			if err := json.Unmarshal(b, &r); err != nil || status != http.StatusOK || len(r.Errors) != 1 {
				t.Fatalf("status %d: %.300s", status, b)
			}
			e := r.Errors[0]
			ext, _ := e["extensions"].(map[string]any)
			if msg, _ := e["message"].(string); !strings.Contains(msg, tt.message) ||
				ext["code"] != float64(400) || ext["type"] != "BAD_REQUEST" || tt.classification != "" && ext["classification"] != tt.classification {
				t.Errorf("error = %v, want %q, code 400 BAD_REQUEST, classification %q", e, tt.message, tt.classification)
			}
			if r.Data != nil {
				t.Errorf("data = %v, want none", r.Data)
			}
			// GraphQL-over-HTTP clients get the status for a request that
			// failed before execution.
			if status, b := srv.postGraphQL(t, body, "application/graphql-response+json"); status != http.StatusBadRequest {
				t.Errorf("graphql-response+json: status %d: %.300s", status, b)
			}
		})
	}
	t.Run("brackets in strings and comments do not count", func(t *testing.T) {
		q := "{ dataset(urn: \"" + strings.Repeat("{[(", size/3) + "\") { urn } } # " + strings.Repeat("{", size) + "\n"
		body, err := json.Marshal(map[string]any{"query": q})
		if err != nil {
			t.Fatal(err)
		}
		if status, b := srv.postGraphQL(t, body, ""); status != http.StatusOK || string(b) != `{"data":{"dataset":null},"extensions":{}}` {
			t.Errorf("status %d: %.300s", status, b)
		}
	})
	t.Run("deeply nested variables", func(t *testing.T) {
		body := `{"query": "query($x: String) { dataset(urn: $x) { urn } }", "variables": {"x": ` + deep("[", "1", "]") + `}}`
		if status, b := srv.postGraphQL(t, []byte(body), ""); status != http.StatusBadRequest || len(b) != 0 {
			t.Errorf("status %d, body %.300s; want 400 and empty", status, b)
		}
	})
	t.Run("the server still serves", func(t *testing.T) {
		d := srv.gqlData(t, `{ me { corpUser { urn } } }`, nil)
		if asJSON(d) != `{"me":{"corpUser":{"urn":"urn:li:corpuser:datahub"}}}` {
			t.Errorf("me = %s", asJSON(d))
		}
	})
}
