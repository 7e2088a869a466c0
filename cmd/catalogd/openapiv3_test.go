package main

import (
	"encoding/json"
	"testing"
)

// TestOpenAPIV3Entities writes, reads and deletes tags and glossary terms the
// way terraform-provider-datahub does: lower-cased entity type in the path,
// the URN raw or percent-encoded, aspects as {"<aspect>": {"value": {...}}}.
func TestOpenAPIV3Entities(t *testing.T) {
	srv := startServer(t)
	tests := []struct {
		entity, urn, aspect string
		value               map[string]any
	}{
		{"tag", "urn:li:tag:pii", "tagProperties", map[string]any{"name": "PII", "description": "Personal data", "colorHex": "#ff0000"}},
		{"glossaryterm", "urn:li:glossaryTerm:revenue", "glossaryTermInfo", map[string]any{"name": "Revenue", "definition": "Money in", "termSource": "INTERNAL"}},
		{"glossarynode", "urn:li:glossaryNode:finance", "glossaryNodeInfo", map[string]any{"name": "Finance", "definition": "Money"}},
	}
	for _, tt := range tests {
		t.Run(tt.entity, func(t *testing.T) {
			path := "/openapi/v3/entity/" + tt.entity + "/" + pathEscape(tt.urn)
			srv.mustDo(t, 404, "GET", path, nil)
			body := []any{map[string]any{"urn": tt.urn, tt.aspect: map[string]any{"value": tt.value}}}
			var written []map[string]any
			decodeInto(t, srv.mustDo(t, 200, "POST", "/openapi/v3/entity/"+tt.entity+"?async=false", body), &written)
			if len(written) != 1 || written[0]["urn"] != tt.urn {
				t.Fatalf("POST answered %v", written)
			}
			got := decode(t, srv.mustDo(t, 200, "GET", path, nil))
			if got["urn"] != tt.urn {
				t.Errorf("urn = %v", got["urn"])
			}
			env, _ := got[tt.aspect].(map[string]any)
			if env == nil || !equivalent(tt.value, env["value"]) {
				t.Errorf("%s = %v, want value %v", tt.aspect, got[tt.aspect], tt.value)
			}
			// The raw URN in the path reads the same entity.
			raw := decode(t, srv.mustDo(t, 200, "GET", "/openapi/v3/entity/"+tt.entity+"/"+tt.urn, nil))
			if raw["urn"] != tt.urn {
				t.Errorf("raw URN path: urn = %v", raw["urn"])
			}
			srv.mustDo(t, 200, "DELETE", path, nil)
			srv.mustDo(t, 404, "GET", path, nil)
		})
	}

	t.Run("errors", func(t *testing.T) {
		srv.mustDo(t, 404, "GET", "/openapi/v3/entity/nosuchtype/urn%3Ali%3Atag%3Ax", nil)
		srv.mustDo(t, 400, "GET", "/openapi/v3/entity/dataset/urn%3Ali%3Atag%3Ax", nil)
		bad := []any{map[string]any{"urn": "urn:li:tag:bad", "tagProperties": map[string]any{"value": map[string]any{"colour": 1}}}}
		status, _ := srv.do(t, "POST", "/openapi/v3/entity/tag?async=false", bad)
		if status < 400 || status >= 500 {
			t.Errorf("invalid aspect: status %d, want 4xx", status)
		}
		srv.mustDo(t, 404, "GET", "/openapi/v3/entity/tag/urn%3Ali%3Atag%3Abad", nil)
	})
}

func decodeInto(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}
