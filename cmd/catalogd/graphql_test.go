package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The GraphQL end-to-end tests: DataHub's smoke tests reproduced over their
// own fixtures, the SPEC's glossary flow, mutation validation and the
// transport rules, all against the real program.

const (
	gqlActor       = "urn:li:corpuser:datahub"
	smokeDataset   = "urn:li:dataset:(urn:li:dataPlatform:kafka,test-tags-terms-sample-kafka,PROD)"
	smokeChart     = "urn:li:chart:(looker,test-tags-terms-sample-chart)"
	smokeField     = "[version=2.0].[type=boolean].field_bar"
	legacyTag      = "urn:li:tag:Legacy"
	savingsAccount = "urn:li:glossaryTerm:SavingAccount"
)

// gqlResponse is a GraphQL response body.
type gqlResponse struct {
	Data       map[string]any   `json:"data"`
	Errors     []map[string]any `json:"errors"`
	Extensions map[string]any   `json:"extensions"`
}

// graphql posts a GraphQL request to path as the smoke tests' user and
// returns the status and the raw body.
func (s *testServer) graphqlRaw(t testing.TB, path string, body any, header map[string]string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if b, ok := body.([]byte); ok {
		rd = bytes.NewReader(b)
	} else {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-DataHub-Actor", gqlActor)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// gql runs one operation on /api/graphql and decodes the response, which
// must be HTTP 200 with extensions {}.
func (s *testServer) gql(t testing.TB, query string, vars map[string]any) gqlResponse {
	t.Helper()
	return s.gqlAt(t, "/api/graphql", query, vars)
}

func (s *testServer) gqlAt(t testing.TB, path, query string, vars map[string]any) gqlResponse {
	t.Helper()
	status, _, b := s.graphqlRaw(t, path, map[string]any{"query": query, "variables": vars}, nil)
	if status != http.StatusOK {
		t.Fatalf("graphql: status %d: %s", status, b)
	}
	var r gqlResponse
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&r); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if r.Extensions == nil {
		t.Errorf("graphql response has no extensions: %s", b)
	}
	return r
}

// gqlData runs an operation that must succeed and returns its data.
func (s *testServer) gqlData(t testing.TB, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := s.gql(t, query, vars)
	if len(r.Errors) > 0 {
		t.Fatalf("graphql errors: %v\nquery: %s", r.Errors, query)
	}
	return r.Data
}

// gqlError runs an operation that must fail and returns its first error.
func (s *testServer) gqlError(t testing.TB, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := s.gql(t, query, vars)
	if len(r.Errors) == 0 {
		t.Fatalf("graphql: no error for %s %v: %v", query, vars, r.Data)
	}
	return r.Errors[0]
}

// asJSON re-encodes v so that results compare as JSON text.
func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func loadSmoke(t *testing.T, srv *testServer, name string) {
	t.Helper()
	newSampleReplay(srv).postFile(t, filepath.Join(samplesDir(t), "smoke", name))
}

func TestGraphQLTagsAndTerms(t *testing.T) {
	srv := startServer(t)
	loadSmoke(t, srv, "tags_and_terms.json")

	// smoke-test/tests/tags_and_terms/tags_and_terms_test.py
	const datasetTags = `query getDataset($urn: String!) { dataset(urn: $urn) { globalTags { tags { tag { urn name description } } } } }`
	const chartTags = `query getChart($urn: String!) { chart(urn: $urn) { globalTags { tags { tag { urn name description } } } } }`
	const datasetTerms = `query getDataset($urn: String!) { dataset(urn: $urn) { glossaryTerms { terms { term { urn name } } } } }`
	const addTag = `mutation addTag($input: TagAssociationInput!) { addTag(input: $input) }`
	const removeTag = `mutation removeTag($input: TagAssociationInput!) { removeTag(input: $input) }`
	const addTerm = `mutation addTerm($input: TermAssociationInput!) { addTerm(input: $input) }`
	const removeTerm = `mutation removeTerm($input: TermAssociationInput!) { removeTerm(input: $input) }`
	legacy := `{"tags":[{"tag":{"description":"Indicates the dataset is no longer supported","name":"Legacy","urn":"urn:li:tag:Legacy"}}]}`

	for _, tc := range []struct{ name, query, field, urn string }{
		{"dataset", datasetTags, "dataset", smokeDataset},
		{"chart", chartTags, "chart", smokeChart},
	} {
		t.Run("tag "+tc.name, func(t *testing.T) {
			vars := map[string]any{"urn": tc.urn}
			if got := srv.gqlData(t, tc.query, vars)[tc.field].(map[string]any)["globalTags"]; got != nil {
				t.Fatalf("globalTags before = %v, want null", got)
			}
			in := map[string]any{"input": map[string]any{"tagUrn": legacyTag, "resourceUrn": tc.urn}}
			if got := srv.gqlData(t, addTag, in)["addTag"]; got != true {
				t.Fatalf("addTag = %v", got)
			}
			if got := asJSON(srv.gqlData(t, tc.query, vars)[tc.field].(map[string]any)["globalTags"]); got != legacy {
				t.Errorf("globalTags after add = %s, want %s", got, legacy)
			}
			if got := srv.gqlData(t, removeTag, in)["removeTag"]; got != true {
				t.Fatalf("removeTag = %v", got)
			}
			if got := asJSON(srv.gqlData(t, tc.query, vars)[tc.field].(map[string]any)["globalTags"]); got != `{"tags":[]}` {
				t.Errorf("globalTags after remove = %s, want {\"tags\":[]}", got)
			}
		})
	}

	t.Run("term", func(t *testing.T) {
		vars := map[string]any{"urn": smokeDataset}
		if got := srv.gqlData(t, datasetTerms, vars)["dataset"].(map[string]any)["glossaryTerms"]; got != nil {
			t.Fatalf("glossaryTerms before = %v, want null", got)
		}
		in := map[string]any{"input": map[string]any{"termUrn": savingsAccount, "resourceUrn": smokeDataset}}
		if got := srv.gqlData(t, addTerm, in)["addTerm"]; got != true {
			t.Fatalf("addTerm = %v", got)
		}
		want := `{"terms":[{"term":{"name":"SavingAccount","urn":"urn:li:glossaryTerm:SavingAccount"}}]}`
		if got := asJSON(srv.gqlData(t, datasetTerms, vars)["dataset"].(map[string]any)["glossaryTerms"]); got != want {
			t.Errorf("glossaryTerms after add = %s, want %s", got, want)
		}
		if got := srv.gqlData(t, removeTerm, in)["removeTerm"]; got != true {
			t.Fatalf("removeTerm = %v", got)
		}
		if got := asJSON(srv.gqlData(t, datasetTerms, vars)["dataset"].(map[string]any)["glossaryTerms"]); got != `{"terms":[]}` {
			t.Errorf("glossaryTerms after remove = %s", got)
		}
	})

	t.Run("schema field", func(t *testing.T) {
		// These queries go to /api/v2/graphql, as the smoke test sends them.
		const fieldTags = `query getDataset($urn: String!) { dataset(urn: $urn) { urn name description platform { urn }
			editableSchemaMetadata { editableSchemaFieldInfo { globalTags { tags { tag { urn name description } } } } } } }`
		const fieldTerms = `query getDataset($urn: String!) { dataset(urn: $urn) { urn name description platform { urn }
			editableSchemaMetadata { editableSchemaFieldInfo { glossaryTerms { terms { term { urn name } } } } } } }`
		const fieldDescription = `query getDataset($urn: String!) { dataset(urn: $urn) { urn name description platform { urn }
			editableSchemaMetadata { editableSchemaFieldInfo { description } } } }`
		vars := map[string]any{"urn": smokeDataset}
		esm := func(q string) string {
			t.Helper()
			r := srv.gqlAt(t, "/api/v2/graphql", q, vars)
			if len(r.Errors) > 0 {
				t.Fatalf("errors: %v", r.Errors)
			}
			ds := r.Data["dataset"].(map[string]any)
			if ds["urn"] != smokeDataset || ds["name"] != "test-tags-terms-sample-kafka" || asJSON(ds["platform"]) != `{"urn":"urn:li:dataPlatform:kafka"}` {
				t.Errorf("dataset = %v", ds)
			}
			return asJSON(ds["editableSchemaMetadata"])
		}
		mutate := func(q, name string, in map[string]any) {
			t.Helper()
			r := srv.gqlAt(t, "/api/v2/graphql", q, map[string]any{"input": in})
			if len(r.Errors) > 0 || r.Data[name] != true {
				t.Fatalf("%s = %v, errors %v", name, r.Data, r.Errors)
			}
		}
		field := func(kind, urn string) map[string]any {
			return map[string]any{kind: urn, "resourceUrn": smokeDataset, "subResource": smokeField, "subResourceType": "DATASET_FIELD"}
		}
		if got := esm(fieldTags); got != "null" {
			t.Fatalf("editableSchemaMetadata before = %s, want null", got)
		}
		mutate(addTag, "addTag", field("tagUrn", legacyTag))
		if got, want := esm(fieldTags), `{"editableSchemaFieldInfo":[{"globalTags":`+legacy+`}]}`; got != want {
			t.Errorf("after addTag = %s, want %s", got, want)
		}
		mutate(removeTag, "removeTag", field("tagUrn", legacyTag))
		if got, want := esm(fieldTags), `{"editableSchemaFieldInfo":[{"globalTags":{"tags":[]}}]}`; got != want {
			t.Errorf("after removeTag = %s, want %s", got, want)
		}
		mutate(addTerm, "addTerm", field("termUrn", savingsAccount))
		if got, want := esm(fieldTerms), `{"editableSchemaFieldInfo":[{"glossaryTerms":{"terms":[{"term":{"name":"SavingAccount","urn":"urn:li:glossaryTerm:SavingAccount"}}]}}]}`; got != want {
			t.Errorf("after addTerm = %s, want %s", got, want)
		}
		mutate(removeTerm, "removeTerm", field("termUrn", savingsAccount))
		if got, want := esm(fieldTerms), `{"editableSchemaFieldInfo":[{"glossaryTerms":{"terms":[]}}]}`; got != want {
			t.Errorf("after removeTerm = %s, want %s", got, want)
		}
		if got, want := esm(fieldDescription), `{"editableSchemaFieldInfo":[{"description":null}]}`; got != want {
			t.Errorf("description before = %s, want %s", got, want)
		}
		mutate(`mutation updateDescription($input: DescriptionUpdateInput!) { updateDescription(input: $input) }`, "updateDescription",
			map[string]any{"description": "new description", "resourceUrn": smokeDataset, "subResource": smokeField, "subResourceType": "DATASET_FIELD"})
		if got, want := esm(fieldDescription), `{"editableSchemaFieldInfo":[{"description":"new description"}]}`; got != want {
			t.Errorf("description after = %s, want %s", got, want)
		}
	})

	t.Run("writes are versioned and indexed", func(t *testing.T) {
		srv.gqlData(t, addTag, map[string]any{"input": map[string]any{"tagUrn": legacyTag, "resourceUrn": smokeDataset}})
		// The aspect went through the ingest pipeline: the REST API sees it
		// with the caller as its creator, and search finds the dataset by tag.
		b := srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(smokeDataset)+"?aspects=List(globalTags)", nil)
		if !strings.Contains(string(b), gqlActor) || !strings.Contains(string(b), legacyTag) {
			t.Errorf("globalTags via rest.li = %s", b)
		}
		d := srv.gqlData(t, `{ searchAcrossEntities(input: {types: [DATASET], query: "tags:Legacy"}) { total searchResults { entity { urn } } } }`, nil)
		if got := asJSON(d["searchAcrossEntities"]); got != `{"searchResults":[{"entity":{"urn":"`+smokeDataset+`"}}],"total":1}` {
			t.Errorf("search by tag = %s", got)
		}
	})
}

func TestGraphQLDeprecation(t *testing.T) {
	srv := startServer(t)
	loadSmoke(t, srv, "deprecation.json")
	// smoke-test/tests/deprecation/deprecation_test.py
	const get = `query getDataset($urn: String!) { dataset(urn: $urn) { deprecation { deprecated decommissionTime note actor } } }`
	const update = `mutation updateDeprecation($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }`
	vars := map[string]any{"urn": smokeDataset}
	dep := func() string {
		t.Helper()
		return asJSON(srv.gqlAt(t, "/api/v2/graphql", get, vars).Data["dataset"].(map[string]any)["deprecation"])
	}
	if got := dep(); got != "null" {
		t.Fatalf("deprecation before = %s", got)
	}
	if d := srv.gqlData(t, update, map[string]any{"input": map[string]any{"urn": smokeDataset, "deprecated": true, "note": "My test note", "decommissionTime": 0}}); d["updateDeprecation"] != true {
		t.Fatalf("updateDeprecation = %v", d)
	}
	if got, want := dep(), `{"actor":"urn:li:corpuser:datahub","decommissionTime":0,"deprecated":true,"note":"My test note"}`; got != want {
		t.Errorf("deprecation = %s, want %s", got, want)
	}
	srv.gqlData(t, update, map[string]any{"input": map[string]any{"urn": smokeDataset, "deprecated": false}})
	if got, want := dep(), `{"actor":"urn:li:corpuser:datahub","decommissionTime":null,"deprecated":false,"note":""}`; got != want {
		t.Errorf("deprecation after partial update = %s, want %s", got, want)
	}
}

func TestGraphQLBrowse(t *testing.T) {
	srv := startServer(t)
	loadSmoke(t, srv, "browse.json")
	// smoke-test/tests/browse/browse_test.py
	const q = `query browse($input: BrowseInput!) { browse(input: $input) { total entities { urn } groups { name count } metadata { path totalNumEntities } } }`
	browse := func(path []string, count int) string {
		t.Helper()
		return asJSON(srv.gqlData(t, q, map[string]any{"input": map[string]any{"type": "DATASET", "path": path, "start": 0, "count": count}})["browse"])
	}
	ds := func(n string) string {
		return `{"urn":"urn:li:dataset:(urn:li:dataPlatform:kafka,test-browse-` + n + `,PROD)"}`
	}
	for _, tc := range []struct {
		path  []string
		count int
		want  string
	}{
		{[]string{"prod"}, 100, `{"entities":[` + ds("3") + `],"groups":[{"count":3,"name":"kafka1"},{"count":2,"name":"kafka2"}],"metadata":{"path":["prod"],"totalNumEntities":3},"total":1}`},
		{[]string{"prod", "kafka1"}, 10, `{"entities":[` + ds("1") + `,` + ds("2") + `,` + ds("3") + `],"groups":[],"metadata":{"path":["prod","kafka1"],"totalNumEntities":0},"total":3}`},
		{[]string{"prod", "kafka2"}, 10, `{"entities":[` + ds("1") + `,` + ds("2") + `],"groups":[],"metadata":{"path":["prod","kafka2"],"totalNumEntities":0},"total":2}`},
	} {
		if got := browse(tc.path, tc.count); got != tc.want {
			t.Errorf("browse %v =\n %s\nwant\n %s", tc.path, got, tc.want)
		}
	}
	d := srv.gqlData(t, `{ browsePaths(input: {type: DATASET, urn: "urn:li:dataset:(urn:li:dataPlatform:kafka,test-browse-3,PROD)"}) { path } }`, nil)
	if got := asJSON(d["browsePaths"]); got != `[{"path":["prod"]},{"path":["prod","kafka1"]}]` {
		t.Errorf("browsePaths = %s", got)
	}
}

// TestGraphQLGlossaryFlow is the SPEC's flow: create a term, attach it to a
// dataset and a column, read it back, remove and batch-remove it.
func TestGraphQLGlossaryFlow(t *testing.T) {
	srv := startServer(t)
	loadSmoke(t, srv, "tags_and_terms.json")
	const termURN = "urn:li:glossaryTerm:CustomerAccount"
	d := srv.gqlData(t, `mutation { createGlossaryTerm(input: {name: "CustomerAccount", id: "CustomerAccount", description: "A customer's account"}) }`, nil)
	if d["createGlossaryTerm"] != termURN {
		t.Fatalf("createGlossaryTerm = %v", d)
	}
	e := srv.gqlError(t, `mutation { createGlossaryTerm(input: {name: "CustomerAccount", id: "CustomerAccount"}) }`, nil)
	if !strings.Contains(e["message"].(string), "already exists") || asJSON(e["extensions"]) != `{"code":400,"type":"BAD_REQUEST"}` {
		t.Errorf("duplicate createGlossaryTerm error = %v", e)
	}
	// The creator owns the term, as in DataHub.
	d = srv.gqlData(t, `{ glossaryTerm(urn: "`+termURN+`") { urn type name properties { name description termSource } ownership { owners { owner { ... on CorpUser { urn } } type } } } }`, nil)
	if got, want := asJSON(d["glossaryTerm"]), `{"name":"CustomerAccount","ownership":{"owners":[{"owner":{"urn":"urn:li:corpuser:datahub"},"type":"TECHNICAL_OWNER"}]},"properties":{"description":"A customer's account","name":"CustomerAccount","termSource":"INTERNAL"},"type":"GLOSSARY_TERM","urn":"`+termURN+`"}`; got != want {
		t.Errorf("glossaryTerm = %s\nwant %s", got, want)
	}

	d = srv.gqlData(t, `mutation add($input: AddTermsInput!) { addTerms(input: $input) }`, map[string]any{"input": map[string]any{"termUrns": []string{termURN}, "resourceUrn": smokeDataset}})
	if d["addTerms"] != true {
		t.Fatalf("addTerms = %v", d)
	}
	srv.gqlData(t, `mutation add($input: AddTermsInput!) { addTerms(input: $input) }`, map[string]any{"input": map[string]any{"termUrns": []string{termURN}, "resourceUrn": smokeDataset, "subResourceType": "DATASET_FIELD", "subResource": smokeField}})
	const read = `query($urn: String!) { dataset(urn: $urn) { glossaryTerms { terms { term { urn glossaryTermInfo { name description } } } }
		editableSchemaMetadata { editableSchemaFieldInfo { fieldPath glossaryTerms { terms { term { urn } } } } } } }`
	d = srv.gqlData(t, read, map[string]any{"urn": smokeDataset})
	want := `{"editableSchemaMetadata":{"editableSchemaFieldInfo":[{"fieldPath":"` + smokeField + `","glossaryTerms":{"terms":[{"term":{"urn":"` + termURN + `"}}]}}]},` +
		`"glossaryTerms":{"terms":[{"term":{"glossaryTermInfo":{"description":"A customer's account","name":"CustomerAccount"},"urn":"` + termURN + `"}}]}}`
	if got := asJSON(d["dataset"]); got != want {
		t.Errorf("dataset terms = %s\nwant %s", got, want)
	}
	d = srv.gqlData(t, `mutation rm($input: TermAssociationInput!) { removeTerm(input: $input) }`, map[string]any{"input": map[string]any{"termUrn": termURN, "resourceUrn": smokeDataset}})
	if d["removeTerm"] != true {
		t.Fatalf("removeTerm = %v", d)
	}
	d = srv.gqlData(t, `mutation rm($input: BatchRemoveTermsInput!) { batchRemoveTerms(input: $input) }`, map[string]any{"input": map[string]any{"termUrns": []string{termURN},
		"resources": []any{map[string]any{"resourceUrn": smokeDataset, "subResourceType": "DATASET_FIELD", "subResource": smokeField}}}})
	if d["batchRemoveTerms"] != true {
		t.Fatalf("batchRemoveTerms = %v", d)
	}
	d = srv.gqlData(t, read, map[string]any{"urn": smokeDataset})
	if got, want := asJSON(d["dataset"]), `{"editableSchemaMetadata":{"editableSchemaFieldInfo":[{"fieldPath":"`+smokeField+`","glossaryTerms":{"terms":[]}}]},"glossaryTerms":{"terms":[]}}`; got != want {
		t.Errorf("after removal = %s\nwant %s", got, want)
	}

	// The term is an edge target: relationships see the dataset that used it.
	srv.gqlData(t, `mutation { batchAddTerms(input: {termUrns: ["`+termURN+`"], resources: [{resourceUrn: "`+smokeDataset+`"}, {resourceUrn: "`+smokeChart+`"}]}) }`, nil)
	d = srv.gqlData(t, `{ glossaryTerm(urn: "`+termURN+`") { relationships(input: {types: ["TermedWith"], direction: INCOMING}) { total relationships { type entity { urn type } } } } }`, nil)
	if got := asJSON(d["glossaryTerm"]); !strings.Contains(got, smokeDataset) || !strings.Contains(got, `"total":2`) {
		t.Errorf("term relationships = %s", got)
	}
}

func TestGraphQLMutationErrors(t *testing.T) {
	srv := startServer(t)
	loadSmoke(t, srv, "tags_and_terms.json")
	missing := "urn:li:dataset:(urn:li:dataPlatform:kafka,no-such-dataset,PROD)"
	for name, tc := range map[string]struct {
		query string
		vars  map[string]any
		want  string
	}{
		"addTerms on a missing dataset":          {`mutation($i: AddTermsInput!) { addTerms(input: $i) }`, map[string]any{"i": map[string]any{"termUrns": []string{savingsAccount}, "resourceUrn": missing}}, "does not exist"},
		"removeTerm on a missing dataset":        {`mutation($i: TermAssociationInput!) { removeTerm(input: $i) }`, map[string]any{"i": map[string]any{"termUrn": savingsAccount, "resourceUrn": missing}}, "does not exist"},
		"addTag with a missing tag":              {`mutation($i: TagAssociationInput!) { addTag(input: $i) }`, map[string]any{"i": map[string]any{"tagUrn": "urn:li:tag:Nope", "resourceUrn": smokeDataset}}, "does not exist"},
		"addTag with a term URN":                 {`mutation($i: TagAssociationInput!) { addTag(input: $i) }`, map[string]any{"i": map[string]any{"tagUrn": savingsAccount, "resourceUrn": smokeDataset}}, "is not a tag URN"},
		"updateDeprecation on a missing dataset": {`mutation($i: UpdateDeprecationInput!) { updateDeprecation(input: $i) }`, map[string]any{"i": map[string]any{"urn": missing, "deprecated": true}}, "does not exist"},
		"duplicate createTag":                    {`mutation { createTag(input: {id: "Legacy", name: "Legacy"}) }`, nil, "This Tag already exists!"},
		"setDomain to a missing domain":          {`mutation { setDomain(entityUrn: "` + smokeDataset + `", domainUrn: "urn:li:domain:nope") }`, nil, "does not exist"},
	} {
		t.Run(name, func(t *testing.T) {
			r := srv.gql(t, tc.query, tc.vars)
			if len(r.Errors) != 1 {
				t.Fatalf("errors = %v", r.Errors)
			}
			e := r.Errors[0]
			if msg, _ := e["message"].(string); !strings.Contains(msg, tc.want) {
				t.Errorf("message = %q, want it to contain %q", msg, tc.want)
			}
			if got := asJSON(e["extensions"]); got != `{"code":400,"type":"BAD_REQUEST"}` {
				t.Errorf("extensions = %s", got)
			}
			// The failed field is null in data, as in DataHub.
			for k, v := range r.Data {
				if v != nil {
					t.Errorf("data.%s = %v, want null", k, v)
				}
			}
		})
	}
	// Nothing was written: the dataset still has no tags.
	d := srv.gqlData(t, `{ dataset(urn: "`+smokeDataset+`") { globalTags { tags { tag { urn } } } } }`, nil)
	if got := asJSON(d); got != `{"dataset":{"globalTags":null}}` {
		t.Errorf("dataset after failed mutations = %s", got)
	}
}

// TestGraphQLMutations exercises the mutations the terraform provider and
// DataHub's e2e tests use.
func TestGraphQLMutations(t *testing.T) {
	srv := startServer(t)
	loadSmoke(t, srv, "tags_and_terms.json")
	must := func(q string) map[string]any { t.Helper(); return srv.gqlData(t, q, nil) }

	// Tags.
	if d := must(`mutation { createTag(input: {id: "pii", name: "PII", description: "personal data"}) }`); d["createTag"] != "urn:li:tag:pii" {
		t.Fatalf("createTag = %v", d)
	}
	must(`mutation { setTagColor(urn: "urn:li:tag:pii", colorHex: "#FF0000") }`)
	must(`mutation { addTags(input: {tagUrns: ["urn:li:tag:pii", "urn:li:tag:Legacy"], resourceUrn: "` + smokeDataset + `"}) }`)
	must(`mutation { batchAddTags(input: {tagUrns: ["urn:li:tag:pii"], resources: [{resourceUrn: "` + smokeChart + `"}]}) }`)
	// Tag.name is the tag's id, as in DataHub (its display name is
	// properties.name).
	d := must(`{ tag(urn: "urn:li:tag:pii") { name description properties { name colorHex } } dataset(urn: "` + smokeDataset + `") { tags { tags { tag { urn } } } } }`)
	if got, want := asJSON(d), `{"dataset":{"tags":{"tags":[{"tag":{"urn":"urn:li:tag:pii"}},{"tag":{"urn":"urn:li:tag:Legacy"}}]}},"tag":{"description":"personal data","name":"pii","properties":{"colorHex":"#FF0000","name":"PII"}}}`; got != want {
		t.Errorf("tag = %s\nwant %s", got, want)
	}
	must(`mutation { batchRemoveTags(input: {tagUrns: ["urn:li:tag:pii"], resources: [{resourceUrn: "` + smokeChart + `"}, {resourceUrn: "` + smokeDataset + `"}]}) }`)
	must(`mutation { deleteTag(urn: "urn:li:tag:pii") }`)
	if d := must(`{ tag(urn: "urn:li:tag:pii") { urn } }`); d["tag"] != nil {
		t.Errorf("tag after deleteTag = %v", d)
	}

	// Glossary hierarchy.
	must(`mutation { createGlossaryNode(input: {id: "finance", name: "Finance"}) }`)
	must(`mutation { createGlossaryTerm(input: {id: "revenue", name: "Revenue", parentNode: "urn:li:glossaryNode:finance"}) }`)
	must(`mutation { createGlossaryNode(input: {id: "accounting", name: "Accounting"}) }`)
	must(`mutation { updateParentNode(input: {resourceUrn: "urn:li:glossaryNode:finance", parentNode: "urn:li:glossaryNode:accounting"}) }`)
	must(`mutation { updateName(input: {urn: "urn:li:glossaryTerm:revenue", name: "Total revenue"}) }`)
	must(`mutation { updateDescription(input: {resourceUrn: "urn:li:glossaryTerm:revenue", description: "Money in"}) }`)
	d = must(`{ glossaryTerm(urn: "urn:li:glossaryTerm:revenue") { properties { name description } parentNodes { count nodes { urn properties { name } } } } }`)
	if got, want := asJSON(d), `{"glossaryTerm":{"parentNodes":{"count":2,"nodes":[{"properties":{"name":"Finance"},"urn":"urn:li:glossaryNode:finance"},{"properties":{"name":"Accounting"},"urn":"urn:li:glossaryNode:accounting"}]},"properties":{"description":"Money in","name":"Total revenue"}}}`; got != want {
		t.Errorf("glossary = %s\nwant %s", got, want)
	}
	must(`mutation { deleteGlossaryEntity(urn: "urn:li:glossaryTerm:revenue") }`)
	if d := must(`{ glossaryTerm(urn: "urn:li:glossaryTerm:revenue") { urn } }`); d["glossaryTerm"] != nil {
		t.Errorf("term after delete = %v", d)
	}

	// Owners, descriptions, domains.
	must(`mutation { addOwner(input: {ownerUrn: "urn:li:corpuser:alice", ownerEntityType: CORP_USER, type: BUSINESS_OWNER, resourceUrn: "` + smokeChart + `"}) }`)
	must(`mutation { addOwners(input: {owners: [{ownerUrn: "urn:li:corpGroup:eng", ownerEntityType: CORP_GROUP}], resourceUrn: "` + smokeChart + `"}) }`)
	must(`mutation { removeOwner(input: {ownerUrn: "urn:li:corpuser:alice", resourceUrn: "` + smokeChart + `"}) }`)
	must(`mutation { updateDescription(input: {resourceUrn: "` + smokeDataset + `", description: "Edited"}) }`)
	if d := must(`mutation { createDomain(input: {id: "marketing", name: "Marketing", description: "Growth"}) }`); d["createDomain"] != "urn:li:domain:marketing" {
		t.Fatalf("createDomain = %v", d)
	}
	must(`mutation { setDomain(entityUrn: "` + smokeDataset + `", domainUrn: "urn:li:domain:marketing") }`)
	d = must(`{ chart(urn: "` + smokeChart + `") { ownership { owners { owner { ... on CorpGroup { urn name } ... on CorpUser { urn } } type } } }
		dataset(urn: "` + smokeDataset + `") { editableProperties { description } domain { domain { urn id properties { name description } } } } }`)
	if got, want := asJSON(d), `{"chart":{"ownership":{"owners":[{"owner":{"name":"eng","urn":"urn:li:corpGroup:eng"},"type":"TECHNICAL_OWNER"}]}},"dataset":{"domain":{"domain":{"id":"marketing","properties":{"description":"Growth","name":"Marketing"},"urn":"urn:li:domain:marketing"}},"editableProperties":{"description":"Edited"}}}`; got != want {
		t.Errorf("owners/domain = %s\nwant %s", got, want)
	}
	must(`mutation { unsetDomain(entityUrn: "` + smokeDataset + `") }`)
	if d := must(`{ dataset(urn: "` + smokeDataset + `") { domain { domain { urn } } } }`); asJSON(d) != `{"dataset":{"domain":null}}` {
		t.Errorf("after unsetDomain = %s", asJSON(d))
	}
	d = must(`{ listDomains(input: {start: 0, count: 10}) { total domains { urn } } }`)
	if got := asJSON(d); got != `{"listDomains":{"domains":[{"urn":"urn:li:domain:marketing"}],"total":1}}` {
		t.Errorf("listDomains = %s", got)
	}

	// Groups and users.
	if d := must(`mutation { createGroup(input: {id: "analysts", name: "Analysts", description: "People who count"}) }`); d["createGroup"] != "urn:li:corpGroup:analysts" {
		t.Fatalf("createGroup = %v", d)
	}
	for _, u := range []string{"urn:li:corpuser:jdoe", "urn:li:corpuser:bob"} {
		ingestProposal(t, srv, "corpuser", u, "corpUserInfo", `{"active": true}`)
	}
	must(`mutation { addGroupMembers(input: {groupUrn: "urn:li:corpGroup:analysts", userUrns: ["urn:li:corpuser:jdoe", "urn:li:corpuser:bob"]}) }`)
	must(`mutation { removeGroupMembers(input: {groupUrn: "urn:li:corpGroup:analysts", userUrns: ["urn:li:corpuser:bob"]}) }`)
	d = must(`mutation { updateCorpGroupProperties(urn: "urn:li:corpGroup:analysts", input: {slack: "#analysts"}) { urn name properties { displayName description } editableProperties { slack } } }`)
	if got, want := asJSON(d), `{"updateCorpGroupProperties":{"editableProperties":{"slack":"#analysts"},"name":"analysts","properties":{"description":"People who count","displayName":"Analysts"},"urn":"urn:li:corpGroup:analysts"}}`; got != want {
		t.Errorf("updateCorpGroupProperties = %s\nwant %s", got, want)
	}
	// Members added here are native members, as DataHub's app reads them.
	d = must(`{ corpGroup(urn: "urn:li:corpGroup:analysts") { relationships(input: {types: ["IsMemberOfNativeGroup"], direction: INCOMING}) { total relationships { entity { urn } } } } }`)
	if got := asJSON(d); got != `{"corpGroup":{"relationships":{"relationships":[{"entity":{"urn":"urn:li:corpuser:jdoe"}}],"total":1}}}` {
		t.Errorf("group members = %s", got)
	}
	d = must(`{ listGroups(input: {start: 0, count: 10}) { total groups { urn name } } }`)
	if got := asJSON(d); got != `{"listGroups":{"groups":[{"name":"analysts","urn":"urn:li:corpGroup:analysts"}],"total":1}}` {
		t.Errorf("listGroups = %s", got)
	}
	must(`mutation { removeGroup(urn: "urn:li:corpGroup:analysts") }`)
	// As in DataHub, the removed group still answers, with nothing stored.
	if d := must(`{ corpGroup(urn: "urn:li:corpGroup:analysts") { urn exists properties { displayName } } }`); asJSON(d) != `{"corpGroup":{"exists":false,"properties":null,"urn":"urn:li:corpGroup:analysts"}}` {
		t.Errorf("group after removeGroup = %s", asJSON(d))
	}
	if d := must(`mutation { removeUser(urn: "urn:li:corpuser:jdoe") }`); d["removeUser"] != true {
		t.Errorf("removeUser = %v", d)
	}
}

func TestGraphQLQueries(t *testing.T) {
	srv := startServer(t)
	replaySamples(t, srv)

	// terraform-provider-datahub's configure query.
	d := srv.gqlData(t, `{ me { corpUser { urn username type info { displayName email } } } }`, nil)
	if got := asJSON(d); got != `{"me":{"corpUser":{"info":{"displayName":"DataHub","email":null},"type":"CORP_USER","urn":"urn:li:corpuser:datahub","username":"datahub"}}}` {
		// The samples may or may not describe the datahub user; the URN is what the provider needs.
		if !strings.Contains(got, `"urn":"urn:li:corpuser:datahub"`) {
			t.Errorf("me = %s", got)
		}
	}

	const hive = "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"
	d = srv.gqlData(t, `query($urn: String!) { dataset(urn: $urn) { urn type exists name origin platform { urn name }
		properties { name description customProperties { key value } }
		ownership { owners { owner { ... on CorpUser { urn username } } type } lastModified { time actor } }
		schemaMetadata { name platformUrn fields { fieldPath type nativeDataType nullable } }
		institutionalMemory { elements { url description author { urn } } }
		status { removed } browsePaths { path } subTypes { typeNames }
		lineage(input: {direction: UPSTREAM}) { total relationships { type degree entity { urn type } } }
		downstream: lineage(input: {direction: DOWNSTREAM}) { total }
		relationships(input: {types: ["DownstreamOf"], direction: OUTGOING}) { total relationships { type entity { urn } } } } }`, map[string]any{"urn": hive})
	ds := d["dataset"].(map[string]any)
	if ds["urn"] != hive || ds["type"] != "DATASET" || ds["exists"] != true || ds["name"] != "SampleHiveDataset" || ds["origin"] != "PROD" {
		t.Errorf("dataset = %v", asJSON(ds))
	}
	if got := asJSON(ds["platform"]); got != `{"name":"hive","urn":"urn:li:dataPlatform:hive"}` {
		t.Errorf("platform = %s", got)
	}
	if fields := ds["schemaMetadata"].(map[string]any)["fields"].([]any); len(fields) == 0 {
		t.Errorf("schemaMetadata has no fields: %v", ds["schemaMetadata"])
	}
	if ds["ownership"] == nil || len(ds["ownership"].(map[string]any)["owners"].([]any)) == 0 {
		t.Errorf("ownership = %v", ds["ownership"])
	}
	up := ds["lineage"].(map[string]any)
	if n, _ := up["total"].(json.Number).Int64(); n == 0 {
		t.Errorf("upstream lineage of %s is empty: %v", hive, up)
	}

	// Unknown URNs read as null; entity/entities dispatch on the URN.
	d = srv.gqlData(t, `{ dataset(urn: "urn:li:dataset:(urn:li:dataPlatform:hive,nope,PROD)") { urn }
		entity(urn: "`+hive+`") { urn type ... on Dataset { name } }
		entities(urns: ["`+hive+`", "urn:li:corpuser:nobody-here"], checkForExistence: true) { urn type } }`, nil)
	if got, want := asJSON(d), `{"dataset":null,"entities":[{"type":"DATASET","urn":"`+hive+`"}],"entity":{"name":"SampleHiveDataset","type":"DATASET","urn":"`+hive+`"}}`; got != want {
		t.Errorf("entity queries = %s\nwant %s", got, want)
	}

	// Search, autocomplete, lists.
	d = srv.gqlData(t, `{ search(input: {type: DATASET, query: "SampleHive", start: 0, count: 5}) { start count total searchResults { entity { urn ... on Dataset { name } } matchedFields { name value } } facets { field aggregations { value count } } } }`, nil)
	s := d["search"].(map[string]any)
	if n, _ := s["total"].(json.Number).Int64(); n < 1 || !strings.Contains(asJSON(s["searchResults"]), hive) {
		t.Errorf("search = %s", asJSON(s))
	}
	d = srv.gqlData(t, `{ searchAcrossEntities(input: {query: "*", start: 0, count: 3, orFilters: [{and: [{field: "platform", values: ["urn:li:dataPlatform:kafka"]}]}]}) { total count searchResults { entity { type } } } }`, nil)
	if s := d["searchAcrossEntities"].(map[string]any); s["count"] != json.Number("3") || !strings.Contains(asJSON(s), "DATASET") {
		t.Errorf("searchAcrossEntities = %s", asJSON(s))
	}
	d = srv.gqlData(t, `{ autoComplete(input: {type: DATASET, query: "SampleH"}) { query suggestions entities { urn } } }`, nil)
	if !strings.Contains(asJSON(d), "SampleHiveDataset") {
		t.Errorf("autoComplete = %s", asJSON(d))
	}
	d = srv.gqlData(t, `{ listUsers(input: {start: 0, count: 100}) { total users { urn username } } }`, nil)
	if n, _ := d["listUsers"].(map[string]any)["total"].(json.Number).Int64(); n == 0 {
		t.Errorf("listUsers = %s", asJSON(d))
	}
	d = srv.gqlData(t, `{ searchAcrossLineage(input: {urn: "`+hive+`", direction: DOWNSTREAM, query: "*"}) { total searchResults { degree entity { urn } } } }`, nil)
	if n, _ := d["searchAcrossLineage"].(map[string]any)["total"].(json.Number).Int64(); n == 0 {
		t.Errorf("searchAcrossLineage = %s", asJSON(d))
	}
}

func TestGraphQLTransport(t *testing.T) {
	srv := startServer(t)
	t.Run("GET is 405", func(t *testing.T) {
		for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
			req, _ := http.NewRequest(m, srv.URL+"/api/graphql?query={me{corpUser{urn}}}", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s: status %d, want 405", m, resp.StatusCode)
			}
		}
	})
	t.Run("unparsable body is 400 with an empty body", func(t *testing.T) {
		for _, body := range []string{``, `{`, `[]`, `{"query": 5}`, `{"variables": {}}`, `{"query": "{ me { corpUser { urn } } }", "variables": "x"}`} {
			status, _, b := srv.graphqlRaw(t, "/api/graphql", []byte(body), nil)
			if status != http.StatusBadRequest || len(b) != 0 {
				t.Errorf("body %q: status %d, body %q; want 400 and empty", body, status, b)
			}
		}
	})
	t.Run("invalid queries are 200 with errors", func(t *testing.T) {
		for _, q := range []string{`{ nope }`, `{ dataset(urn: 5) { urn } }`, `query {`} {
			status, h, b := srv.graphqlRaw(t, "/api/v2/graphql", map[string]any{"query": q}, nil)
			var r gqlResponse
			_ = json.Unmarshal(b, &r)
			if status != http.StatusOK || len(r.Errors) == 0 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
				t.Errorf("%s: status %d %s: %s", q, status, h.Get("Content-Type"), b)
			}
			if ext := r.Errors[0]["extensions"].(map[string]any); ext["code"] != float64(400) || ext["type"] != "BAD_REQUEST" || ext["classification"] == nil {
				t.Errorf("%s: extensions = %v", q, ext)
			}
		}
	})
	t.Run("response shape", func(t *testing.T) {
		_, _, b := srv.graphqlRaw(t, "/api/graphql", map[string]any{"query": `query Q { me { corpUser { urn } } }`, "operationName": "Q"}, nil)
		if string(b) != `{"data":{"me":{"corpUser":{"urn":"urn:li:corpuser:datahub"}}},"extensions":{}}` {
			t.Errorf("response = %s", b)
		}
	})
	t.Run("depth and complexity limits", func(t *testing.T) {
		deep := "{ me { corpUser { urn } } }"
		for range 60 {
			deep = strings.Replace(deep, "{ urn }", "{ relationships(input: {types: [\"x\"], direction: INCOMING}) { relationships { entity { urn ... on CorpUser { urn } } } } }", 1)
		}
		e := srv.gqlError(t, deep, nil)
		if !strings.Contains(e["message"].(string), "depth") {
			t.Errorf("deep query error = %v", e)
		}
		aliases := make([]string, 0, 800)
		for i := range 800 {
			aliases = append(aliases, "f"+strconv.Itoa(i)+": me { corpUser { urn } }")
		}
		wide := "{ " + strings.Join(aliases, " ") + " }"
		e = srv.gqlError(t, wide, nil)
		if !strings.Contains(e["message"].(string), "complexity") {
			t.Errorf("wide query error = %v", e)
		}
	})
	t.Run("graphql-response+json", func(t *testing.T) {
		status, h, _ := srv.graphqlRaw(t, "/api/graphql", map[string]any{"query": `{ nope }`}, map[string]string{"Accept": "application/graphql-response+json"})
		if status != http.StatusBadRequest || !strings.HasPrefix(h.Get("Content-Type"), "application/graphql-response+json") {
			t.Errorf("status %d, content type %s", status, h.Get("Content-Type"))
		}
	})
}

var _ = reflect.DeepEqual
