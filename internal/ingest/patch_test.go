package ingest

import (
	"encoding/json"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

// patchValue runs the PATCH steps of the applier on one value: parse, apply,
// normalise and validate, canonical JSON.
func patchValue(t *testing.T, aspect, cur, patch string) (string, error) {
	t.Helper()
	reg := registry.Default()
	spec := reg.Aspect(aspect)
	if spec == nil {
		t.Fatalf("no aspect %s", aspect)
	}
	ops, err := parsePatch([]byte(patch))
	if err != nil {
		return "", err
	}
	sd, err := parseSchema(spec.Schema)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if cur != "" {
		if v, err = decodeJSON([]byte(cur)); err != nil {
			t.Fatal(err)
		}
	}
	pt := &patcher{schema: sd, stamp: map[string]any{"time": json.Number("7"), "actor": "urn:li:corpuser:me"}}
	if v, err = pt.applyPatch(v, ops); err != nil {
		return "", err
	}
	if v, err = reg.Normalize(aspect, v); err != nil {
		return "", err
	}
	b, err := canonicalJSON(v)
	return string(b), err
}

func TestPatch(t *testing.T) {
	const (
		o1 = "urn:li:corpuser:alice"
		t1 = "urn:li:tag:a"
	)
	tests := []struct {
		name, aspect, cur, patch string
		want                     string
		kind                     catalog.Kind // error kind when want is ""
	}{
		{
			name: "first tag creates globalTags", aspect: "globalTags",
			patch: `[{"op":"add","path":"/tags/urn:li:tag:a","value":{"tag":"urn:li:tag:a"}}]`,
			want:  `{"tags":[{"tag":"urn:li:tag:a"}]}`,
		},
		{
			name: "key injected from the path", aspect: "globalTags",
			patch: `[{"op":"add","path":"/tags/urn:li:tag:a","value":{"context":"c"}}]`,
			want:  `{"tags":[{"context":"c","tag":"urn:li:tag:a"}]}`,
		},
		{
			name: "adding an existing tag replaces it in place", aspect: "globalTags",
			cur:   `{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`,
			patch: `[{"op":"add","path":"/tags/urn:li:tag:a","value":{"tag":"urn:li:tag:a","context":"x"}}]`,
			want:  `{"tags":[{"context":"x","tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`,
		},
		{
			name: "remove tag", aspect: "globalTags",
			cur:   `{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`,
			patch: `[{"op":"remove","path":"/tags/urn:li:tag:a"}]`,
			want:  `{"tags":[{"tag":"urn:li:tag:b"}]}`,
		},
		{
			name: "remove absent tag fails", aspect: "globalTags",
			cur:   `{"tags":[{"tag":"urn:li:tag:b"}]}`,
			patch: `[{"op":"remove","path":"/tags/urn:li:tag:a"}]`,
			kind:  catalog.Conflict,
		},
		{
			name: "first term fills the required audit stamp", aspect: "glossaryTerms",
			patch: `[{"op":"add","path":"/terms/urn:li:glossaryTerm:t","value":{"urn":"urn:li:glossaryTerm:t"}}]`,
			want:  `{"auditStamp":{"actor":"urn:li:corpuser:me","time":7},"terms":[{"urn":"urn:li:glossaryTerm:t"}]}`,
		},
		{
			name: "owners keyed by owner and type", aspect: "ownership",
			cur:   `{"owners":[{"owner":"` + o1 + `","type":"DATAOWNER"}]}`,
			patch: `[{"op":"add","path":"/owners/` + o1 + `/TECHNICAL_OWNER","value":{"owner":"` + o1 + `","type":"TECHNICAL_OWNER"}}]`,
			want:  `{"owners":[{"owner":"` + o1 + `","type":"DATAOWNER"},{"owner":"` + o1 + `","type":"TECHNICAL_OWNER"}]}`,
		},
		{
			name: "remove one ownership type", aspect: "ownership",
			cur:   `{"owners":[{"owner":"` + o1 + `","type":"DATAOWNER"},{"owner":"` + o1 + `","type":"TECHNICAL_OWNER"}]}`,
			patch: `[{"op":"remove","path":"/owners/` + o1 + `/DATAOWNER"}]`,
			want:  `{"owners":[{"owner":"` + o1 + `","type":"TECHNICAL_OWNER"}]}`,
		},
		{
			name: "remove every entry of an owner", aspect: "ownership",
			cur:   `{"owners":[{"owner":"` + o1 + `","type":"DATAOWNER"},{"owner":"` + o1 + `","type":"TECHNICAL_OWNER"}]}`,
			patch: `[{"op":"remove","path":"/owners/` + o1 + `"}]`,
			want:  `{"owners":[]}`,
		},
		{
			name: "column tag on a missing editableSchemaMetadata", aspect: "editableSchemaMetadata",
			patch: `[{"op":"add","path":"/editableSchemaFieldInfo/a~1b/globalTags/tags/` + t1 + `","value":{"tag":"` + t1 + `"}}]`,
			want:  `{"editableSchemaFieldInfo":[{"fieldPath":"a/b","globalTags":{"tags":[{"tag":"` + t1 + `"}]}}]}`,
		},
		{
			name: "column description next to an existing one", aspect: "editableSchemaMetadata",
			cur:   `{"editableSchemaFieldInfo":[{"fieldPath":"x","description":"old"}]}`,
			patch: `[{"op":"add","path":"/editableSchemaFieldInfo/y/description","value":"new"},{"op":"replace","path":"/editableSchemaFieldInfo/x/description","value":"newer"}]`,
			want:  `{"editableSchemaFieldInfo":[{"description":"newer","fieldPath":"x"},{"description":"new","fieldPath":"y"}]}`,
		},
		{
			name: "custom property map key", aspect: "datasetProperties",
			cur:   `{"name":"n","customProperties":{"a":"1"}}`,
			patch: `[{"op":"add","path":"/customProperties/b","value":"2"},{"op":"remove","path":"/customProperties/a"}]`,
			want:  `{"customProperties":{"b":"2"},"name":"n"}`,
		},
		{
			name: "test passes then replace", aspect: "datasetProperties",
			cur:   `{"description":"d"}`,
			patch: `[{"op":"test","path":"/description","value":"d"},{"op":"replace","path":"/description","value":"e"}]`,
			want:  `{"description":"e"}`,
		},
		{
			name: "failed test", aspect: "datasetProperties",
			cur:   `{"description":"d"}`,
			patch: `[{"op":"test","path":"/description","value":"other"},{"op":"replace","path":"/description","value":"e"}]`,
			kind:  catalog.Conflict,
		},
		{
			name: "replace of a missing path", aspect: "datasetProperties",
			cur:   `{"name":"n"}`,
			patch: `[{"op":"replace","path":"/description","value":"e"}]`,
			kind:  catalog.Conflict,
		},
		{
			name: "result must validate", aspect: "globalTags",
			patch: `[{"op":"add","path":"/tags/urn:li:tag:a","value":{"bogus":1}}]`,
			kind:  catalog.Invalid,
		},
		{
			name: "unknown op", aspect: "globalTags",
			patch: `[{"op":"merge","path":"/tags"}]`,
			kind:  catalog.Invalid,
		},
		{
			name: "string array keyed by value", aspect: "browsePaths",
			cur:   `{"paths":["/a"]}`,
			patch: `[{"op":"add","path":"/paths/~1b","value":"/b"},{"op":"remove","path":"/paths/~1a"}]`,
			want:  `{"paths":["/b"]}`,
		},
		{
			name: "upstream with DataHub's fine-grained lineage view", aspect: "upstreamLineage",
			patch: `[{"op":"add","path":"/upstreams/urn:li:dataset:(urn:li:dataPlatform:dbt,x,PROD)","value":{"dataset":"urn:li:dataset:(urn:li:dataPlatform:dbt,x,PROD)","type":"COPY","auditStamp":{"time":1,"actor":"urn:li:corpuser:unknown"}}},
				{"op":"add","path":"/fineGrainedLineages/NONE/urn:li:schemaField:(d,a)/NONE/urn:li:schemaField:(u,a)","value":{"confidenceScore":1.0}},
				{"op":"add","path":"/fineGrainedLineages/NONE/urn:li:schemaField:(d,a)/NONE/urn:li:schemaField:(u,b)","value":{"confidenceScore":0.5}}]`,
			want: `{"fineGrainedLineages":[{"confidenceScore":0.5,"downstreamType":"FIELD","downstreams":["urn:li:schemaField:(d,a)"],"transformOperation":"NONE","upstreamType":"FIELD_SET","upstreams":["urn:li:schemaField:(u,a)","urn:li:schemaField:(u,b)"]}],"upstreams":[{"auditStamp":{"actor":"urn:li:corpuser:unknown","time":1},"dataset":"urn:li:dataset:(urn:li:dataPlatform:dbt,x,PROD)","type":"COPY"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := patchValue(t, tt.aspect, tt.cur, tt.patch)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("want a %v error, got %s", tt.kind, got)
				}
				if k := catalog.KindOf(err); k != tt.kind {
					t.Fatalf("error kind %v, want %v: %v", k, tt.kind, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
