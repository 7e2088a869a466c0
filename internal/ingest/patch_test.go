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
			// As DataHub's template, the new aspect's created and
			// lastModified are stamped with the write.
			name: "column tag on a missing editableSchemaMetadata", aspect: "editableSchemaMetadata",
			patch: `[{"op":"add","path":"/editableSchemaFieldInfo/a~1b/globalTags/tags/` + t1 + `","value":{"tag":"` + t1 + `"}}]`,
			want: `{"created":{"actor":"urn:li:corpuser:me","time":7},"editableSchemaFieldInfo":[{"fieldPath":"a/b","globalTags":{"tags":[{"tag":"` + t1 + `"}]}}],` +
				`"lastModified":{"actor":"urn:li:corpuser:me","time":7}}`,
		},
		{
			// DataHub's DashboardInfoTemplate: title and description empty,
			// lastModified stamped, the arrays and maps empty.
			name: "a missing dashboardInfo starts from its default", aspect: "dashboardInfo",
			patch: `[{"op":"add","path":"/customProperties/chartCount","value":"2"},{"op":"add","path":"/charts/urn:li:chart:(powerbi,c1)","value":"urn:li:chart:(powerbi,c1)"}]`,
			want: `{"charts":["urn:li:chart:(powerbi,c1)"],"customProperties":{"chartCount":"2"},"dashboards":[],"datasets":[],"description":"",` +
				`"lastModified":{"created":{"actor":"urn:li:corpuser:me","time":7},"lastModified":{"actor":"urn:li:corpuser:me","time":7}},"title":""}`,
		},
		{
			name: "a missing chartInfo starts from its default", aspect: "chartInfo",
			patch: `[{"op":"add","path":"/customProperties/workspaceName","value":"demo"}]`,
			want: `{"customProperties":{"workspaceName":"demo"},"description":"",` +
				`"lastModified":{"created":{"actor":"urn:li:corpuser:me","time":7},"lastModified":{"actor":"urn:li:corpuser:me","time":7}},"title":""}`,
		},
		{
			name: "a missing datasetProperties starts from its default", aspect: "datasetProperties",
			patch: `[{"op":"add","path":"/description","value":"Test description"}]`,
			want:  `{"customProperties":{},"description":"Test description","tags":[]}`,
		},
		{
			name: "a default is only where the aspect is missing", aspect: "datasetProperties", cur: `{"name":"n"}`,
			patch: `[{"op":"add","path":"/description","value":"d"}]`,
			want:  `{"description":"d","name":"n"}`,
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

// TestPatchPointers holds JSON Patch paths to RFC 6901 and RFC 6902 where
// DataHub's addressing by key leaves them room: escapes, array indexes and
// arrays that do not exist.
func TestPatchPointers(t *testing.T) {
	const ab = `{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`
	tests := []struct {
		name, aspect, cur, patch string
		want                     string
		kind                     catalog.Kind // error kind when want is ""
	}{
		{name: "index past the end of a missing aspect's tags", aspect: "globalTags",
			patch: `[{"op":"add","path":"/tags/999","value":{"tag":"urn:li:tag:x"}}]`, kind: catalog.Invalid},
		{name: "index past the end", aspect: "globalTags", cur: ab,
			patch: `[{"op":"add","path":"/tags/3","value":{"tag":"urn:li:tag:x"}}]`, kind: catalog.Invalid},
		{name: "negative index", aspect: "globalTags", cur: ab,
			patch: `[{"op":"add","path":"/tags/-5","value":{"tag":"urn:li:tag:x"}}]`, kind: catalog.Invalid},
		{name: "index with a leading zero", aspect: "globalTags", cur: ab,
			patch: `[{"op":"add","path":"/tags/01","value":{"tag":"urn:li:tag:x"}}]`, kind: catalog.Invalid},
		{name: "index with a sign", aspect: "globalTags", cur: ab,
			patch: `[{"op":"remove","path":"/tags/+1"}]`, kind: catalog.Invalid},
		{name: "escape ~2", aspect: "globalTags", cur: ab,
			patch: `[{"op":"add","path":"/tags/urn:li:tag:a~2b","value":{"tag":"urn:li:tag:a~2b"}}]`, kind: catalog.Invalid},
		{name: "lone ~", aspect: "datasetProperties", cur: `{"customProperties":{}}`,
			patch: `[{"op":"add","path":"/customProperties/a~","value":"1"}]`, kind: catalog.Invalid},
		{name: "escapes ~0 and ~1", aspect: "datasetProperties", cur: `{"customProperties":{}}`,
			patch: `[{"op":"add","path":"/customProperties/a~1b~0c~01","value":"1"}]`, want: `{"customProperties":{"a/b~c~1":"1"}}`},
		{name: "index insert into a URN-keyed array", aspect: "globalTags", cur: ab,
			patch: `[{"op":"add","path":"/tags/0","value":{"tag":"urn:li:tag:z"}}]`,
			want:  `{"tags":[{"tag":"urn:li:tag:z"},{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`},
		{name: "index equal to the length appends", aspect: "globalTags", cur: ab,
			patch: `[{"op":"add","path":"/tags/2","value":{"tag":"urn:li:tag:z"}}]`,
			want:  `{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"},{"tag":"urn:li:tag:z"}]}`},
		{name: "index equal to the length is not an element", aspect: "globalTags", cur: ab,
			patch: `[{"op":"replace","path":"/tags/2","value":{"tag":"urn:li:tag:z"}}]`, kind: catalog.Invalid},
		{name: "index into a tag", aspect: "globalTags", cur: ab,
			patch: `[{"op":"replace","path":"/tags/1/context","value":"c"}]`, kind: catalog.Conflict},
		{name: "remove by index", aspect: "globalTags", cur: ab,
			patch: `[{"op":"remove","path":"/tags/0"}]`, want: `{"tags":[{"tag":"urn:li:tag:b"}]}`},
		{name: "a set of URNs by index", aspect: "dataJobInputOutput",
			cur:   `{"inputDatasets":["urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)","urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)"],"outputDatasets":[]}`,
			patch: `[{"op":"remove","path":"/inputDatasets/0"}]`,
			want:  `{"inputDatasets":["urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)"],"outputDatasets":[]}`},
		{name: "index into an array that does not exist", aspect: "mlModelFactorPrompts", cur: `{}`,
			patch: `[{"op":"add","path":"/relevantFactors/0","value":{"groups":["g"]}}]`, kind: catalog.Invalid},
		{name: "appending creates a missing array", aspect: "mlModelFactorPrompts", cur: `{}`,
			patch: `[{"op":"add","path":"/relevantFactors/-","value":{"groups":["g"]}}]`, want: `{"relevantFactors":[{"groups":["g"]}]}`},
		{name: "keys that are not URNs stay keys", aspect: "editableSchemaMetadata", cur: `{"editableSchemaFieldInfo":[]}`,
			patch: `[{"op":"add","path":"/editableSchemaFieldInfo/-5/description","value":"d"}]`,
			want:  `{"editableSchemaFieldInfo":[{"description":"d","fieldPath":"-5"}]}`},
		{name: "move without from", aspect: "datasetProperties", cur: `{"description":"d"}`,
			patch: `[{"op":"move","path":"/name"}]`, kind: catalog.Invalid},
		{name: "move into itself", aspect: "datasetProperties", cur: `{"customProperties":{"a":"1"}}`,
			patch: `[{"op":"move","from":"/customProperties","path":"/customProperties/b"}]`, kind: catalog.Invalid},
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

// TestPatchRFC6902 runs the examples of RFC 6902's appendix that apply to
// catalogd (A.12 does not: "add" creates missing parents, as DataHub's
// templates do) on a schema that allows any document, so that arrays are
// addressed by index only.
func TestPatchRFC6902(t *testing.T) {
	sd, err := parseSchema(`{"type":"object","additionalProperties":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc, patch string
		want             string // "" when the patch must fail
	}{
		{"A.1 adding an object member", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux"}]`, `{"baz":"qux","foo":"bar"}`},
		{"A.2 adding an array element", `{"foo":["bar","baz"]}`, `[{"op":"add","path":"/foo/1","value":"qux"}]`, `{"foo":["bar","qux","baz"]}`},
		{"A.3 removing an object member", `{"baz":"qux","foo":"bar"}`, `[{"op":"remove","path":"/baz"}]`, `{"foo":"bar"}`},
		{"A.4 removing an array element", `{"foo":["bar","qux","baz"]}`, `[{"op":"remove","path":"/foo/1"}]`, `{"foo":["bar","baz"]}`},
		{"A.5 replacing a value", `{"baz":"qux","foo":"bar"}`, `[{"op":"replace","path":"/baz","value":"boo"}]`, `{"baz":"boo","foo":"bar"}`},
		{"A.6 moving a value", `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`, `[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`,
			`{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`},
		{"A.7 moving an array element", `{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`, `{"foo":["all","cows","eat","grass"]}`},
		{"A.8 testing a value: success", `{"baz":"qux","foo":["a",2,"c"]}`, `[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`,
			`{"baz":"qux","foo":["a",2,"c"]}`},
		{"A.9 testing a value: error", `{"baz":"qux"}`, `[{"op":"test","path":"/baz","value":"bar"}]`, ""},
		{"A.10 adding a nested member object", `{"foo":"bar"}`, `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, `{"child":{"grandchild":{}},"foo":"bar"}`},
		{"A.11 ignoring unrecognized elements", `{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`, `{"baz":"qux","foo":"bar"}`},
		{"A.14 ~ escape ordering", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":10}]`, `{"/":9,"~1":10}`},
		{"A.15 comparing strings and numbers", `{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":"10"}]`, ""},
		{"A.16 adding an array value", `{"foo":["bar"]}`, `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, `{"foo":["bar",["abc","def"]]}`},
		// RFC 6901 section 4 and RFC 6902 section 4.1: what an index may be.
		{"index past the end", `{"foo":["bar"]}`, `[{"op":"add","path":"/foo/2","value":"x"}]`, ""},
		{"leading zero", `{"foo":["bar","baz"]}`, `[{"op":"remove","path":"/foo/01"}]`, ""},
		{"negative index", `{"foo":["bar","baz"]}`, `[{"op":"remove","path":"/foo/-1"}]`, ""},
		{"- outside add", `{"foo":["bar"]}`, `[{"op":"replace","path":"/foo/-","value":"x"}]`, ""},
		{"~ not followed by 0 or 1", `{"a~2":1}`, `[{"op":"remove","path":"/a~2"}]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := decodeJSON([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			var got any
			ops, err := parsePatch([]byte(tt.patch))
			if err == nil {
				pt := &patcher{schema: sd}
				got, err = pt.applyPatch(doc, ops)
			}
			if tt.want == "" {
				if err == nil {
					t.Fatalf("want an error, got %s", asJSONText(t, got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := asJSONText(t, got); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
		})
	}
}

func asJSONText(t *testing.T, v any) string {
	t.Helper()
	b, err := canonicalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
