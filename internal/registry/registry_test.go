package registry_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/schemagen"
)

var (
	testOnce sync.Once
	testReg  *registry.Registry
	testErr  error
)

// testRegistry builds a registry from the small schemas in testdata/schemas.
func testRegistry(tb testing.TB) *registry.Registry {
	tb.Helper()
	testOnce.Do(func() {
		m, err := schemagen.Load("testdata/schemas", schemagen.Options{Strict: true})
		if err != nil {
			testErr = err
			return
		}
		if len(m.Errors)+len(m.Warnings) > 0 {
			testErr = &catalog.Error{Msg: strings.Join(append(m.Errors, m.Warnings...), "\n")}
			return
		}
		ents, asps, err := m.Specs()
		if err != nil {
			testErr = err
			return
		}
		testReg, testErr = registry.New(ents, asps)
		if testErr == nil {
			testErr = testReg.CompileAll()
		}
	})
	if testErr != nil {
		tb.Fatalf("test registry: %v", testErr)
	}
	return testReg
}

func decode(tb testing.TB, s string) any {
	tb.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func canon(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("marshal: %v", err)
	}
	return string(b)
}

func TestLookups(t *testing.T) {
	r := testRegistry(t)
	if e := r.Entity("DataSet"); e == nil || e.Name != "dataset" {
		t.Errorf("Entity(DataSet) = %v", e)
	}
	if e := r.Entity("dataJob"); e == nil || e.KeyAspect != "dataJobKey" {
		t.Errorf("Entity(dataJob) = %v", e)
	}
	if r.Entity("nope") != nil {
		t.Error("Entity(nope) != nil")
	}
	if a := r.Aspect("ownership"); a == nil || a.WireName != "com.linkedin.common.Ownership" {
		t.Errorf("Aspect(ownership) = %v", a)
	}
	if r.Aspect("Ownership") != nil {
		t.Error("Aspect is case-sensitive")
	}
	for _, w := range []string{"com.linkedin.common.Status", "com.linkedin.pegasus2avro.common.Status"} {
		if a := r.AspectByWireName(w); a == nil || a.Name != "status" {
			t.Errorf("AspectByWireName(%s) = %v", w, a)
		}
	}
	if r.AspectByWireName("com.linkedin.common.Nope") != nil {
		t.Error("AspectByWireName(unknown) != nil")
	}
	for _, s := range []string{"com.linkedin.metadata.snapshot.ChartSnapshot", "com.linkedin.pegasus2avro.metadata.snapshot.ChartSnapshot"} {
		if e := r.EntityBySnapshot(s); e == nil || e.Name != "chart" {
			t.Errorf("EntityBySnapshot(%s) = %v", s, e)
		}
	}
	if a := r.Aspect("datasetProfile"); a == nil || !a.Timeseries {
		t.Errorf("datasetProfile not timeseries: %v", a)
	}
	for _, c := range []struct {
		entity, aspect string
		want           bool
	}{
		{"dataset", "datasetKey", true},
		{"dataset", "ownership", true},
		{"Dataset", "status", true},
		{"dataset", "chartInfo", false},
		{"chart", "chartInfo", true},
		{"nope", "status", false},
	} {
		if got := r.EntityHasAspect(c.entity, c.aspect); got != c.want {
			t.Errorf("EntityHasAspect(%s, %s) = %v", c.entity, c.aspect, got)
		}
	}
	if n := len(r.Entities()); n != 5 {
		t.Errorf("%d entities", n)
	}
	as := r.Aspects()
	for i := 1; i < len(as); i++ {
		if as[i-1].Name >= as[i].Name {
			t.Errorf("aspects not sorted: %s, %s", as[i-1].Name, as[i].Name)
		}
	}
	// defaults from the README
	own := r.Aspect("ownership")
	if !own.Relationships[0].IsUpstream || own.Searchable[0].BoostScore != 0.5 {
		t.Errorf("ownership specs: %+v %+v", own.Relationships, own.Searchable)
	}
	if st := r.Aspect("status"); st.Searchable[0].BoostScore != 1.0 || st.Searchable[0].QueryByDefault {
		t.Errorf("status searchable: %+v", st.Searchable)
	}
}

func TestNewErrors(t *testing.T) {
	a := []catalog.AspectSpec{{Name: "k", WireName: "x.K"}, {Name: "s", WireName: "x.S"}}
	cases := []struct {
		name string
		ents []catalog.EntitySpec
		asps []catalog.AspectSpec
		want string
	}{
		{"dup aspect", nil, append(a, catalog.AspectSpec{Name: "k"}), `duplicate aspect "k"`},
		{"dup wire", nil, append(a, catalog.AspectSpec{Name: "z", WireName: "x.K"}), `share the wire name`},
		{"unknown aspect", []catalog.EntitySpec{{Name: "e", KeyAspect: "k", KeyFields: []string{"id"}, Aspects: []string{"nope"}}}, a, `unknown aspect "nope"`},
		{"dup entity", []catalog.EntitySpec{{Name: "e", KeyAspect: "k", KeyFields: []string{"id"}}, {Name: "E", KeyAspect: "k", KeyFields: []string{"id"}}}, a, `duplicate entity`},
		{"no key fields", []catalog.EntitySpec{{Name: "e", KeyAspect: "k"}}, a, `no key fields`},
	}
	for _, c := range cases {
		_, err := registry.New(c.ents, c.asps)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := registry.New([]catalog.EntitySpec{{Name: "e", KeyAspect: "k", KeyFields: []string{"id"}, Aspects: []string{"s"}}}, a); err != nil {
		t.Errorf("valid: %v", err)
	}
}

func TestURNKeys(t *testing.T) {
	r := testRegistry(t)
	cases := []struct {
		entity, urn string
		key         string // canonical JSON
	}{
		{"dataset", "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)", `{"name":"SampleHiveDataset","origin":"PROD","platform":"urn:li:dataPlatform:hive"}`},
		{"dataset", "urn:li:dataset:(urn:li:dataPlatform:bigquery,proj.ds.t(1),PROD)", `{"name":"proj.ds.t(1)","origin":"PROD","platform":"urn:li:dataPlatform:bigquery"}`},
		{"dataJob", "urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123)", `{"flow":"urn:li:dataFlow:(airflow,dag_abc,PROD)","jobId":"task_123"}`},
		{"dataFlow", "urn:li:dataFlow:(airflow,dag_abc,PROD)", `{"cluster":"PROD","flowId":"dag_abc","orchestrator":"airflow"}`},
		{"chart", "urn:li:chart:(looker,baz1)", `{"chartId":"baz1","dashboardTool":"looker"}`},
		{"corpuser", "urn:li:corpuser:jdoe", `{"username":"jdoe"}`},
		{"corpuser", "urn:li:corpuser:(weird,name)", `{"username":"(weird,name)"}`},
	}
	for _, c := range cases {
		e := r.Entity(c.entity)
		u, err := catalog.ParseURN(c.urn)
		if err != nil {
			t.Fatalf("ParseURN(%s): %v", c.urn, err)
		}
		if err := registry.CheckURN(e, u); err != nil {
			t.Errorf("CheckURN(%s): %v", c.urn, err)
		}
		key, err := registry.KeyFromURN(e, u)
		if err != nil {
			t.Errorf("KeyFromURN(%s): %v", c.urn, err)
			continue
		}
		if got := canon(t, key); got != c.key {
			t.Errorf("KeyFromURN(%s) = %s, want %s", c.urn, got, c.key)
		}
		// the key must be a valid key aspect value
		if _, err := r.Normalize(e.KeyAspect, key); err != nil {
			t.Errorf("key of %s does not validate: %v", c.urn, err)
		}
		back, err := registry.URNFromKey(e, decode(t, c.key).(map[string]any))
		if err != nil || back != c.urn {
			t.Errorf("URNFromKey(%s) = %q, %v; want %s", c.key, back, err, c.urn)
		}
	}
	bad := []struct{ entity, urn, want string }{
		{"dataset", "urn:li:dataset:(urn:li:dataPlatform:hive,x)", "needs 3 key parts"},
		{"dataset", "urn:li:dataset:(a,b,c,d)", "got 4"},
		{"dataset", "urn:li:dataset:plain", "needs a tuple"},
		{"chart", "urn:li:dataset:(a,b)", "is not a chart URN"},
	}
	for _, c := range bad {
		u, err := catalog.ParseURN(c.urn)
		if err != nil {
			t.Fatalf("ParseURN(%s): %v", c.urn, err)
		}
		_, err = registry.KeyFromURN(r.Entity(c.entity), u)
		if err == nil || !strings.Contains(err.Error(), c.want) || catalog.KindOf(err) != catalog.Invalid {
			t.Errorf("KeyFromURN(%s) err = %v, want %q", c.urn, err, c.want)
		}
		if err2 := registry.CheckURN(r.Entity(c.entity), u); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("CheckURN(%s) = %v, want KeyFromURN's %v", c.urn, err2, err)
		}
	}
	if _, err := registry.URNFromKey(r.Entity("chart"), map[string]any{"dashboardTool": "looker"}); err == nil || !strings.Contains(err.Error(), `missing field "chartId"`) {
		t.Errorf("URNFromKey missing field: %v", err)
	}
	if u, err := registry.URNFromKey(r.Entity("chart"), map[string]any{"dashboardTool": "looker", "chartId": json.Number("12")}); err != nil || u != "urn:li:chart:(looker,12)" {
		t.Errorf("URNFromKey number: %q %v", u, err)
	}
}

func TestNormalize(t *testing.T) {
	r := testRegistry(t)
	const sm = `"schemaName":"s","platform":"urn:li:dataPlatform:hive","version":0,"hash":"","platformSchema":{"com.linkedin.schema.MySqlDDL":{"tableSchema":""}}`
	field := func(name string) string {
		return `{"fieldPath":"` + name + `","type":{"type":{"com.linkedin.schema.StringType":{}}},"nativeDataType":"string"}`
	}
	cases := []struct {
		name, aspect, in string
		want             string // canonical JSON of the result; "" when an error is expected
		err              string // the exact error text
	}{
		// valid values pass unchanged
		{"status", "status", `{"removed":false}`, `{"removed":false}`, ""},
		{"empty status", "status", `{}`, `{}`, ""},
		// nulls are dropped
		{"null member", "datasetProperties", `{"customProperties":{},"description":null,"created":null}`, `{"customProperties":{}}`, ""},
		{"null array item", "ownership", `{"owners":[null,{"owner":"urn:li:corpuser:a"},null]}`, `{"owners":[{"owner":"urn:li:corpuser:a"}]}`, ""},
		{"null map value", "datasetProperties", `{"customProperties":{"a":"b","c":null}}`, `{"customProperties":{"a":"b"}}`, ""},
		{"null union member", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"value":{"string":null,"long":5}}`,
			`{"description":"d","lastModified":{"actor":"urn:li:corpuser:a","time":1},"title":"t","value":{"long":5}}`, ""},
		// pegasus2avro is stripped from union keys
		{"pegasus2avro union keys", "schemaMetadata",
			`{"schemaName":"s","platform":"urn:li:dataPlatform:hive","version":0,"hash":"","platformSchema":{"com.linkedin.pegasus2avro.schema.MySqlDDL":{"tableSchema":""}},"fields":[{"fieldPath":"a","type":{"type":{"com.linkedin.pegasus2avro.schema.NumberType":{}}},"nativeDataType":"int","recursive":false}]}`,
			`{"fields":[{"fieldPath":"a","nativeDataType":"int","recursive":false,"type":{"type":{"com.linkedin.schema.NumberType":{}}}}],"hash":"","platform":"urn:li:dataPlatform:hive","platformSchema":{"com.linkedin.schema.MySqlDDL":{"tableSchema":""}},"schemaName":"s","version":0}`, ""},
		// Avro wrappers are unwrapped
		{"string wrapper", "datasetProperties", `{"customProperties":{},"description":{"string":"hello"}}`, `{"customProperties":{},"description":"hello"}`, ""},
		{"array wrapper", "datasetProperties", `{"customProperties":{},"tags":{"array":["a","b"]}}`, `{"customProperties":{},"tags":["a","b"]}`, ""},
		{"map wrapper", "datasetProperties", `{"customProperties":{"map":{"a":"b"}}}`, `{"customProperties":{"a":"b"}}`, ""},
		{"long wrapper", "datasetProfile", `{"timestampMillis":{"long":5},"rowCount":{"long":7},"sizeInBytes":{"double":1.5},"columnCount":{"int":3}}`, `{"columnCount":3,"rowCount":7,"sizeInBytes":1.5,"timestampMillis":5}`, ""},
		{"boolean wrapper", "status", `{"removed":{"boolean":true}}`, `{"removed":true}`, ""},
		{"record wrapper", "datasetProperties", `{"customProperties":{},"created":{"com.linkedin.pegasus2avro.common.TimeStamp":{"time":5}}}`, `{"created":{"time":5},"customProperties":{}}`, ""},
		{"record wrapper plain fqn", "datasetProperties", `{"customProperties":{},"created":{"com.linkedin.common.TimeStamp":{"time":5}}}`, `{"created":{"time":5},"customProperties":{}}`, ""},
		{"enum wrapper", "datasetProperties", `{"customProperties":{},"origin":{"com.linkedin.pegasus2avro.common.FabricType":"PROD"}}`, `{"customProperties":{},"origin":"PROD"}`, ""},
		{"root wrapper", "status", `{"com.linkedin.pegasus2avro.common.Status":{"removed":true}}`, `{"removed":true}`, ""},
		{"map of arrays wrapper", "ownership", `{"owners":[],"ownerTypes":{"map":{"t":{"array":["urn:li:corpuser:a"]}}}}`, `{"ownerTypes":{"t":["urn:li:corpuser:a"]},"owners":[]}`, ""},
		// bare primitives are wrapped into unions
		{"bare string into union", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"inputs":["urn:li:dataset:x",{"string":"urn:li:dataset:y"}]}`,
			`{"description":"d","inputs":[{"string":"urn:li:dataset:x"},{"string":"urn:li:dataset:y"}],"lastModified":{"actor":"urn:li:corpuser:a","time":1},"title":"t"}`, ""},
		{"bare long into union", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"value":42}`,
			`{"description":"d","lastModified":{"actor":"urn:li:corpuser:a","time":1},"title":"t","value":{"long":42}}`, ""},
		{"bare double into union", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"value":4.5}`,
			`{"description":"d","lastModified":{"actor":"urn:li:corpuser:a","time":1},"title":"t","value":{"double":4.5}}`, ""},
		{"bare bool into union", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"value":true}`,
			`{"description":"d","lastModified":{"actor":"urn:li:corpuser:a","time":1},"title":"t","value":{"boolean":true}}`, ""},
		{"union fieldDiscriminator", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"value":{"fieldDiscriminator":"long","long":{"long":3},"string":null}}`,
			`{"description":"d","lastModified":{"actor":"urn:li:corpuser:a","time":1},"title":"t","value":{"long":3}}`, ""},
		// integers
		{"integral float accepted", "datasetProfile", `{"timestampMillis":1.0e3}`, `{"timestampMillis":1000}`, ""},
		{"int64 max", "datasetProfile", `{"timestampMillis":9223372036854775807}`, `{"timestampMillis":9223372036854775807}`, ""},
		// recursive types
		{"recursive", "treeInfo", `{"root":{"name":"a","children":[{"name":"b","children":[{"name":"c","parent":{"name":"x"}}]}]}}`,
			`{"root":{"children":[{"children":[{"name":"c","parent":{"name":"x"}}],"name":"b"}],"name":"a"}}`, ""},
		{"recursive error", "treeInfo", `{"root":{"name":"a","children":[{"name":"b","children":[{"nam":"c"}]}]}}`, "", `treeInfo: /root/children/0/children/0: unknown field "nam"`},

		// errors
		{"unknown field", "status", `{"removd":true}`, "", `status: unknown field "removd"`},
		{"type at path", "schemaMetadata", `{` + sm + `,"fields":[` + field("a") + `,` + field("b") + `,` + field("c") + `,{"fieldPath":"d","type":{"type":{"com.linkedin.schema.StringType":{}}},"nativeDataType":5}]}`, "",
			`schemaMetadata: /fields/3/nativeDataType: expected string, got number`},
		{"missing required nested", "ownership", `{"owners":[{"type":"DATAOWNER"}]}`, "", `ownership: /owners/0: missing required field "owner"`},
		{"missing required root", "ownership", `{}`, "", `ownership: missing required field "owners"`},
		{"enum", "ownership", `{"owners":[{"owner":"urn:li:corpuser:a","type":"CHIEF"}]}`, "", `ownership: /owners/0/type: "CHIEF" is not one of the allowed values`},
		{"urn format", "ownership", `{"owners":[{"owner":"jdoe"}]}`, "", `ownership: /owners/0/owner: "jdoe" is not a URN`},
		{"not an object", "status", `[1]`, "", `status: expected object, got array`},
		{"null root", "status", `null`, "", `status: expected object, got null`},
		{"bool type", "status", `{"removed":"yes"}`, "", `status: /removed: expected boolean, got string`},
		{"array type", "ownership", `{"owners":{"owner":"urn:li:corpuser:a"}}`, "", `ownership: /owners: expected array, got object`},
		{"map value type", "datasetProperties", `{"customProperties":{"a":1}}`, "", `datasetProperties: /customProperties/a: expected string, got number`},
		{"non-integral", "datasetProfile", `{"timestampMillis":1.5}`, "", `datasetProfile: /timestampMillis: expected integer, got 1.5`},
		{"int32 overflow", "datasetProfile", `{"timestampMillis":1,"columnCount":2147483648}`, "", `datasetProfile: /columnCount: 2147483648 does not fit in a 32-bit integer`},
		{"int64 overflow", "datasetProfile", `{"timestampMillis":9223372036854775808}`, "", `datasetProfile: /timestampMillis: 9223372036854775808 does not fit in a 64-bit integer`},
		{"integer as string", "datasetProfile", `{"timestampMillis":"5"}`, "", `datasetProfile: /timestampMillis: expected integer, got string`},
		{"number as string", "datasetProfile", `{"timestampMillis":5,"sizeInBytes":"5"}`, "", `datasetProfile: /sizeInBytes: expected number, got string`},
		{"union two members", "schemaMetadata", `{` + sm[:strings.Index(sm, `,"platformSchema"`)] + `,"platformSchema":{"com.linkedin.schema.MySqlDDL":{"tableSchema":""},"com.linkedin.schema.OtherSchema":{"rawSchema":""}},"fields":[]}`, "",
			`schemaMetadata: /platformSchema: a union needs exactly one member (one of com.linkedin.schema.MySqlDDL, com.linkedin.schema.OtherSchema), got 2`},
		{"union no member", "schemaMetadata", `{` + sm[:strings.Index(sm, `,"platformSchema"`)] + `,"platformSchema":{},"fields":[]}`, "",
			`schemaMetadata: /platformSchema: a union needs exactly one member (one of com.linkedin.schema.MySqlDDL, com.linkedin.schema.OtherSchema), got 0`},
		{"union unknown member", "schemaMetadata", `{` + sm + `,"fields":[{"fieldPath":"a","type":{"type":{"com.linkedin.schema.BlobType":{}}},"nativeDataType":"x"}]}`, "",
			`schemaMetadata: /fields/0/type/type: unknown union member "com.linkedin.schema.BlobType" (expected one of com.linkedin.schema.NumberType, com.linkedin.schema.StringType)`},
		{"union member error", "schemaMetadata", `{` + sm[:strings.Index(sm, `,"platformSchema"`)] + `,"platformSchema":{"com.linkedin.pegasus2avro.schema.MySqlDDL":{}},"fields":[]}`, "",
			`schemaMetadata: /platformSchema/com.linkedin.schema.MySqlDDL: missing required field "tableSchema"`},
		{"bare value, no member", "schemaMetadata", `{` + sm[:strings.Index(sm, `,"platformSchema"`)] + `,"platformSchema":"x","fields":[]}`, "",
			`schemaMetadata: /platformSchema: expected union (one of com.linkedin.schema.MySqlDDL, com.linkedin.schema.OtherSchema), got string`},
		{"bare value into union member checked", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"inputs":["nope"]}`, "",
			`chartInfo: /inputs/0/string: "nope" is not a URN`},
		{"fieldDiscriminator unknown", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"value":{"fieldDiscriminator":"int","int":3}}`, "",
			`chartInfo: /value: unknown union member "int" (expected one of boolean, double, long, string)`},
		{"fieldDiscriminator missing value", "chartInfo", `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"value":{"fieldDiscriminator":"long","string":"x"}}`, "",
			`chartInfo: /value: fieldDiscriminator names "long" but its value is missing`},
		{"wrapper of wrong type", "status", `{"removed":{"string":"x"}}`, "", `status: /removed: expected boolean, got string`},
		{"record not a wrapper", "datasetProperties", `{"customProperties":{},"created":{"com.linkedin.common.AuditStamp":{"time":5}}}`, "",
			`datasetProperties: /created: unknown field "com.linkedin.common.AuditStamp"`},
		{"slash in key escaped", "datasetProperties", `{"customProperties":{"a/b~c":true}}`, "", `datasetProperties: /customProperties/a~1b~0c: expected string, got boolean`},
		{"deterministic first error", "status", `{"zzz":1,"aaa":2,"removed":true}`, "", `status: unknown field "aaa"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := r.Normalize(c.aspect, decode(t, c.in))
			if c.err != "" {
				if err == nil {
					t.Fatalf("no error; got %s", canon(t, got))
				}
				if err.Error() != c.err {
					t.Fatalf("error\n got: %s\nwant: %s", err, c.err)
				}
				if catalog.KindOf(err) != catalog.Invalid {
					t.Fatalf("kind %v", catalog.KindOf(err))
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if s := canon(t, got); s != c.want {
				t.Fatalf("result\n got: %s\nwant: %s", s, c.want)
			}
			// normalising is idempotent
			again, err := r.Normalize(c.aspect, decode(t, canon(t, got)))
			if err != nil || canon(t, again) != c.want {
				t.Fatalf("second pass: %v %s", err, canon(t, again))
			}
		})
	}
	if _, err := r.Normalize("nope", map[string]any{}); err == nil || catalog.KindOf(err) != catalog.Invalid {
		t.Errorf("unknown aspect: %v", err)
	}
}

// TestTypedURNFields checks the URN-typed fields of the real schemas: where
// DataHub types a field with an entity's URN (TagUrn, GlossaryTermUrn,
// DatasetUrn, ...) the schema says so (x-urn-entity) and a URN of another
// entity is refused; where DataHub has a plain Urn (Owner.owner, Domains)
// any entity is accepted. Every URN gets the checks of catalog.ParseURN.
func TestTypedURNFields(t *testing.T) {
	r := registry.Default()
	const (
		ds    = "urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)"
		stamp = `{"time":0,"actor":"urn:li:corpuser:x"}`
	)
	cases := []struct {
		name, aspect, in string
		err              string // "" when accepted
	}{
		{"tag", "globalTags", `{"tags":[{"tag":"urn:li:tag:pii"}]}`, ""},
		{"user as a tag", "globalTags", `{"tags":[{"tag":"urn:li:corpuser:datahub"}]}`,
			`globalTags: /tags/0/tag: "urn:li:corpuser:datahub" is not a tag URN`},
		{"term as a tag", "globalTags", `{"tags":[{"tag":"urn:li:glossaryTerm:t"}]}`, "is not a tag URN"},
		{"tag as a term", "glossaryTerms", `{"terms":[{"urn":"urn:li:tag:t"}],"auditStamp":` + stamp + `}`,
			`glossaryTerms: /terms/0/urn: "urn:li:tag:t" is not a glossaryTerm URN`},
		{"column tag in a schema", "editableSchemaMetadata", `{"editableSchemaFieldInfo":[{"fieldPath":"a","globalTags":{"tags":[{"tag":"urn:li:corpGroup:g"}]}}]}`,
			"/editableSchemaFieldInfo/0/globalTags/tags/0/tag: \"urn:li:corpGroup:g\" is not a tag URN"},
		{"chart as an upstream", "upstreamLineage", `{"upstreams":[{"dataset":"urn:li:chart:(looker,c)","type":"COPY","auditStamp":` + stamp + `}]}`,
			"is not a dataset URN"},
		{"job's input datasets", "dataJobInputOutput", `{"inputDatasets":["urn:li:dataJob:(urn:li:dataFlow:(a,b,PROD),j)"],"outputDatasets":[]}`,
			"/inputDatasets/0: \"urn:li:dataJob:(urn:li:dataFlow:(a,b,PROD),j)\" is not a dataset URN"},
		{"chart input union member", "chartInfo", `{"title":"t","description":"d","lastModified":{"created":` + stamp + `,"lastModified":` + stamp + `},"inputs":[{"string":"urn:li:tag:t"}]}`,
			"/inputs/0/string: \"urn:li:tag:t\" is not a dataset URN"},
		{"process inputs", "dataProcessInfo", `{"inputs":["urn:li:dataJob:(urn:li:dataFlow:(a,b,PROD),j)"],"outputs":["` + ds + `"]}`,
			"/inputs/0: \"urn:li:dataJob:(urn:li:dataFlow:(a,b,PROD),j)\" is not a dataset URN"},
		{"group members", "corpGroupInfo", `{"admins":[],"members":["urn:li:corpGroup:g"],"groups":[]}`, "/members/0: \"urn:li:corpGroup:g\" is not a corpuser URN"},
		{"typed URN of another namespace", "globalTags", `{"tags":[{"tag":"urn:other:tag:t"}]}`, `must start with "urn:li:"`},
		{"tag with a NUL", "globalTags", `{"tags":[{"tag":"urn:li:tag:pii\u0000"}]}`, "control character U+0000"},
		{"owner is any entity, as in DataHub", "ownership", `{"owners":[{"owner":"urn:li:corpGroup:g","type":"DATAOWNER"},{"owner":"` + ds + `","type":"DATAOWNER"}]}`, ""},
		{"owner with bidirectional override", "ownership", `{"owners":[{"owner":"urn:li:corpuser:\u202ex","type":"DATAOWNER"}]}`, "bidirectional formatting character U+202E"},
		{"plain URN field of another namespace", "ownership", `{"owners":[{"owner":"urn:other:user:x","type":"DATAOWNER"}]}`, ""},
		{"domains are plain URNs", "domains", `{"domains":["urn:li:domain:d"]}`, ""},
		{"too long a URN", "domains", `{"domains":["urn:li:domain:` + strings.Repeat("d", 600) + `"]}`, "longer than 512 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.Normalize(c.aspect, decode(t, c.in))
			if c.err == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || catalog.KindOf(err) != catalog.Invalid || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v, want Invalid containing %q", err, c.err)
			}
		})
	}
}

func TestExtract(t *testing.T) {
	v := decode(t, `{"owners":[{"owner":"urn:li:corpuser:a","source":"x"},{"owner":"urn:li:corpuser:b"},{"type":"NONE"}],
		"removed":false,"inputs":[{"string":"urn:li:dataset:x"}],"customProperties":{"b":"2","a":"1"},"tags":["t1","t2"],
		"nested":{"list":[{"deep":[1,2]},{"deep":[3]}]}}`)
	cases := []struct {
		path, want string
	}{
		{"/owners/*/owner", `["urn:li:corpuser:a","urn:li:corpuser:b"]`},
		{"/owners/*/source", `["x"]`},
		{"/removed", `[false]`},
		{"/inputs/*/string", `["urn:li:dataset:x"]`},
		{"/customProperties", `[{"a":"1","b":"2"}]`},
		{"/customProperties/*", `["1","2"]`},
		{"/tags", `[["t1","t2"]]`},
		{"/tags/*", `["t1","t2"]`},
		{"/nested/list/*/deep/*", `[1,2,3]`},
		{"/missing/x", `null`},
		{"/owners/0", `null`},
		{"/removed/x", `null`},
	}
	for _, c := range cases {
		if got := canon(t, registry.Extract(v, c.path)); got != c.want {
			t.Errorf("Extract(%s) = %s, want %s", c.path, got, c.want)
		}
	}
}

// schemaMetadataValue returns a 20-field schemaMetadata in the legacy MCE form.
func schemaMetadataValue(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"schemaName":"bigquery-public-data.covid19_aha.hospital_beds","platform":"urn:li:dataPlatform:bigquery","version":0,` +
		`"created":{"time":1621882982738,"actor":"urn:li:corpuser:etl"},"lastModified":{"time":1621882982738,"actor":"urn:li:corpuser:etl"},` +
		`"hash":"","platformSchema":{"com.linkedin.pegasus2avro.schema.MySqlDDL":{"tableSchema":""}},"fields":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"fieldPath":"county_fips_code_` + string(rune('a'+i%26)) + `","nullable":true,"description":{"string":"The county"},` +
			`"type":{"type":{"com.linkedin.pegasus2avro.schema.StringType":{}}},"nativeDataType":"String()","recursive":false,"isPartOfKey":false,"jsonPath":null}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func BenchmarkNormalizeSchemaMetadata20(b *testing.B) {
	r := testRegistry(b)
	src := schemaMetadataValue(20)
	// Normalize works in place, so each iteration needs a fresh value: decode
	// batches outside the timer.
	const batch = 256
	vals := make([]any, batch)
	refill := func() {
		for i := range vals {
			dec := json.NewDecoder(bytes.NewReader(src))
			dec.UseNumber()
			vals[i] = nil
			if err := dec.Decode(&vals[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%batch == 0 {
			b.StopTimer()
			refill()
			b.StartTimer()
		}
		if _, err := r.Normalize("schemaMetadata", vals[i%batch]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNormalizeSchemaMetadata20Valid measures the common case of an
// already-normal value (no wrappers, no nulls): the value is reused.
func BenchmarkNormalizeSchemaMetadata20Valid(b *testing.B) {
	r := testRegistry(b)
	dec := json.NewDecoder(bytes.NewReader(schemaMetadataValue(20)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b.Fatal(err)
	}
	v, err := r.Normalize("schemaMetadata", v)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Normalize("schemaMetadata", v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtract(b *testing.B) {
	r := testRegistry(b)
	dec := json.NewDecoder(bytes.NewReader(schemaMetadataValue(20)))
	dec.UseNumber()
	var v any
	_ = dec.Decode(&v)
	v, _ = r.Normalize("schemaMetadata", v)
	p := registry.CompilePath("/fields/*/fieldPath")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(p.Extract(v)) != 20 {
			b.Fatal("wrong count")
		}
	}
}

func FuzzNormalize(f *testing.F) {
	r := testRegistry(f)
	aspects := []string{"schemaMetadata", "chartInfo", "ownership", "datasetProperties", "datasetProfile", "treeInfo", "status"}
	f.Add(uint8(0), string(schemaMetadataValue(2)))
	f.Add(uint8(1), `{"title":"t","description":"d","lastModified":{"time":1,"actor":"urn:li:corpuser:a"},"inputs":["urn:li:dataset:x",null],"value":1.5}`)
	f.Add(uint8(2), `{"owners":[{"owner":"urn:li:corpuser:a","type":"DATAOWNER"}],"ownerTypes":{"map":{"a":{"array":["urn:li:x"]}}}}`)
	f.Add(uint8(3), `{"customProperties":{"map":{"a":"b"}},"created":{"com.linkedin.pegasus2avro.common.TimeStamp":{"time":5}}}`)
	f.Add(uint8(4), `{"timestampMillis":{"long":1e3},"columnCount":-2147483648}`)
	f.Add(uint8(5), `{"root":{"name":"a","children":[{"name":"b"}]}}`)
	f.Add(uint8(6), `{"com.linkedin.pegasus2avro.common.Status":{"removed":null}}`)
	f.Fuzz(func(t *testing.T, which uint8, in string) {
		aspect := aspects[int(which)%len(aspects)]
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return
		}
		out, err := r.Normalize(aspect, v)
		if err != nil {
			if catalog.KindOf(err) != catalog.Invalid || !strings.HasPrefix(err.Error(), aspect+": ") {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		first, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		dec = json.NewDecoder(bytes.NewReader(first))
		dec.UseNumber()
		var v2 any
		if err := dec.Decode(&v2); err != nil {
			t.Fatal(err)
		}
		out2, err := r.Normalize(aspect, v2)
		if err != nil {
			t.Fatalf("normalised value %s does not validate: %v", first, err)
		}
		if second, _ := json.Marshal(out2); !bytes.Equal(first, second) {
			t.Fatalf("not idempotent:\n%s\n%s", first, second)
		}
	})
}
