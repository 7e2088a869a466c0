package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/catalogd/catalogd/gen/api"
)

const (
	datasetURN = "urn:li:dataset:(urn:li:dataPlatform:hdfs,logs/2024/events,PROD)"
	restliErr  = `{"status":404,"message":"Did not find x","exceptionClass":"com.linkedin.restli.server.RestLiServiceException","stackTrace":"com.linkedin.restli.server.RestLiServiceException [HTTP Status:404]: Did not find x\n\tat x"}`
)

var jsonCT = http.Header{"Content-Type": {"application/json"}}

func loadValidator(t *testing.T) *Validator {
	t.Helper()
	v, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return v
}

// escapedURN percent-encodes a URN the way the Python SDK does (quote(urn, safe="")).
func escapedURN(urn string) string {
	return strings.ReplaceAll(url.QueryEscape(urn), "+", "%20")
}

func newReq(t *testing.T, method, target string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, "http://gms.test"+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

type respCase struct {
	name    string
	method  string
	target  string
	status  int
	header  http.Header
	body    string
	wantErr []string // substrings; nil = must validate
}

func runCases(t *testing.T, cases []respCase) {
	v := loadValidator(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := newReq(t, c.method, c.target)
			err := v.ValidateResponse(req, c.status, c.header, []byte(c.body))
			if c.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("expected an error containing %q", c.wantErr)
			}
			t.Logf("error: %v", err)
			for _, w := range c.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestValidResponses(t *testing.T) {
	enc := escapedURN(datasetURN)
	if !strings.Contains(enc, "%2F") {
		t.Fatalf("test URN should contain an encoded slash: %s", enc)
	}
	runCases(t, []respCase{
		{name: "ingestProposal", method: "POST", target: "/aspects?action=ingestProposal", status: 200, header: jsonCT,
			body: `{"value":"urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)"}`},
		{name: "ingestProposalBatch", method: "POST", target: "/aspects?action=ingestProposalBatch", status: 200, header: jsonCT,
			body: `{"value":"success"}`},
		{name: "getTimeseriesAspectValues", method: "POST", target: "/aspects?action=getTimeseriesAspectValues", status: 200, header: jsonCT,
			body: `{"value":{"entityName":"dataset","aspectName":"datasetProfile","limit":10000,"startTimeMillis":1,"endTimeMillis":2,
			"values":[{"aspect":{"value":"{\"timestampMillis\":1,\"rowCount\":3}","contentType":"application/json"},"systemMetadata":{"lastObserved":1,"runId":"r"}}]}}`},
		{name: "aspects restoreIndices", method: "POST", target: "/aspects?action=restoreIndices", status: 200, header: jsonCT,
			body: `{"value":"{args=..., result=...}"}`},
		{name: "snapshot ingest empty body", method: "POST", target: "/entities?action=ingest", status: 200, header: http.Header{}},
		{name: "batchIngest empty body", method: "POST", target: "/entities?action=batchIngest", status: 200},
		{name: "search", method: "POST", target: "/entities?action=search", status: 200, header: jsonCT,
			body: `{"value":{"numEntities":1,"pageSize":10,"from":0,"metadata":{"urns":["urn:li:chart:(looker,baz1)"],
			"matches":[{"matchedFields":[{"name":"tool","value":"looker"}]}],"searchResultMetadatas":[{"name":"tool","aggregations":{"looker":1}}]},
			"entities":["urn:li:chart:(looker,baz1)"]}}`},
		{name: "searchAcrossEntities", method: "POST", target: "/entities?action=searchAcrossEntities", status: 200, header: jsonCT,
			body: `{"value":{"numEntities":0,"pageSize":10,"from":0,"metadata":{"urns":[],"matches":[],"searchResultMetadatas":[]},"entities":[]}}`},
		{name: "browse", method: "POST", target: "/entities?action=browse", status: 200, header: jsonCT,
			body: `{"value":{"numEntities":1,"pageSize":10,"from":0,"numGroups":1,"numElements":2,
			"metadata":{"path":"/looker","totalNumEntities":4,"groups":[{"name":"sub","count":3}]},
			"groups":[{"name":"sub","count":3}],"entities":[{"name":"urn:li:chart:(looker,baz1)","urn":"urn:li:chart:(looker,baz1)"}]}}`},
		{name: "autocomplete", method: "POST", target: "/entities?action=autocomplete", status: 200, header: jsonCT,
			body: `{"value":{"query":"Baz","suggestions":["Baz Chart 1"],"entities":[{"urn":"urn:li:chart:(looker,baz1)"}]}}`},
		{name: "delete", method: "POST", target: "/entities?action=delete", status: 200, header: jsonCT,
			body: `{"value":{"urn":"urn:li:corpuser:x","rows":3,"timeseriesRows":0}}`},
		{name: "listUrns", method: "POST", target: "/entities?action=listUrns", status: 200, header: jsonCT,
			body: `{"value":{"entities":["urn:li:corpuser:x"],"start":0,"count":1,"total":1}}`},
		{name: "action error 422", method: "POST", target: "/aspects?action=ingestProposal", status: 422, header: jsonCT,
			body: strings.Replace(restliErr, `"status":404`, `"status":422`, 1)},
		{name: "entitiesV2 with encoded slash", method: "GET", target: "/entitiesV2/" + enc + "?aspects=List(ownership,datasetKey)", status: 200,
			header: http.Header{"Content-Type": {"application/json"}, "X-Restli-Protocol-Version": {"2.0.0"}},
			body: `{"urn":"` + datasetURN + `","entityName":"dataset","aspects":{"datasetKey":{"name":"datasetKey","type":"VERSIONED","version":0,
			"value":{"name":"logs/2024/events","platform":"urn:li:dataPlatform:hdfs","origin":"PROD"},"created":{"actor":"urn:li:corpuser:__datahub_system","time":1}}}}`},
		{name: "entitiesV2 half-encoded urn", method: "GET", target: "/entitiesV2/urn%3Ali%3Adataset%3A(urn%3Ali%3AdataPlatform%3Afoo,bar,PROD)", status: 200, header: jsonCT,
			body: `{"urn":"u","entityName":"dataset","aspects":{}}`},
		{name: "entitiesV2 batch", method: "GET", target: "/entitiesV2?ids=List(" + enc + ")&aspects=status&aspects=ownership", status: 200, header: jsonCT,
			body: `{"results":{"` + datasetURN + `":{"urn":"` + datasetURN + `","entityName":"dataset","aspects":{}}},"errors":{},"statuses":{}}`},
		{name: "entities snapshot", method: "GET", target: "/entities/" + escapedURN("urn:li:corpuser:fbar"), status: 200, header: jsonCT,
			body: `{"value":{"com.linkedin.metadata.snapshot.CorpUserSnapshot":{"urn":"urn:li:corpuser:fbar",
			"aspects":[{"com.linkedin.metadata.key.CorpUserKey":{"username":"fbar"}},{"com.linkedin.identity.CorpUserInfo":{"active":true}}]}}}`},
		{name: "versioned aspect", method: "GET", target: "/aspects/" + enc + "?aspect=status&version=0", status: 200, header: jsonCT,
			body: `{"version":0,"aspect":{"com.linkedin.common.Status":{"removed":false}}}`},
		{name: "versioned aspect 404", method: "GET", target: "/aspects/" + enc + "?aspect=status&version=0", status: 404,
			header: http.Header{"Content-Type": {"application/json"}, "X-Restli-Error-Response": {"true"}}, body: restliErr},
		{name: "relationships", method: "GET", target: "/relationships?direction=INCOMING&urn=urn%3Ali%3AcorpGroup%3Aeng&types=List(IsMemberOfGroup)", status: 200, header: jsonCT,
			body: `{"start":0,"count":1,"total":1,"relationships":[{"type":"IsMemberOfGroup","entity":"urn:li:corpuser:jdoe"}],"entities":["urn:li:corpuser:jdoe"]}`},
		{name: "operations", method: "POST", target: "/operations?action=restoreIndices", status: 200, header: jsonCT, body: `{"value":"ok"}`},
		{name: "gms operations", method: "POST", target: "/gms/operations?action=restoreIndices", status: 200, header: jsonCT, body: `{"value":"ok"}`},
		{name: "api gms operations", method: "POST", target: "/api/gms/operations?action=restoreIndices", status: 403, header: jsonCT,
			body: `{"status":403,"message":"User is unauthorized to restore indices.","exceptionClass":"com.linkedin.restli.server.RestLiServiceException","stackTrace":"..."}`},
		{name: "config", method: "GET", target: "/config", status: 200, header: jsonCT,
			body: `{"noCode":"true","patchCapable":true,"statefulIngestionCapable":true,"versions":{"acryldata/datahub":{"version":"v0.12.0"}},
			"datahub":{"serverType":"prod","serverEnv":"core"},"somethingNew":{"x":1}}`},
		{name: "health", method: "GET", target: "/health", status: 200, header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, body: "OK"},
		{name: "audit search", method: "POST", target: "/openapi/v1/events/audit/search?size=1&includeRaw=false", status: 200, header: jsonCT,
			body: `{"nextScrollId":null,"count":1,"total":1,"usageEvents":[{"eventType":"LogInEvent","timestamp":1,"actorUrn":"urn:li:corpuser:datahub",
			"eventSource":"GRAPHQL","loginSource":"PASSWORD_LOGIN","sourceIP":null},
			{"eventType":"UpdateAspectEvent","timestamp":1,"actorUrn":"urn:li:corpuser:datahub","eventSource":null,"loginSource":null,
			"entityUrn":"urn:li:corpuser:x","entityType":"corpuser","aspectName":"status","rawUsageEvent":{"usageSource":"backend"}}]}`},
		{name: "graphql", method: "POST", target: "/api/graphql", status: 200, header: http.Header{"Content-Type": {"application/json;charset=utf-8"}},
			body: `{"data":{"createTag":null},"errors":[{"message":"This Tag already exists!","locations":[{"line":1,"column":10}],"path":["createTag"],
			"extensions":{"code":400,"type":"BAD_REQUEST"}}],"extensions":{}}`},
		{name: "graphql v2", method: "POST", target: "/api/v2/graphql", status: 200, header: jsonCT, body: `{"data":{"addTerms":true},"extensions":{}}`},
		{name: "graphql 400 empty", method: "POST", target: "/api/graphql", status: 400},
		{name: "graphql GET 405", method: "GET", target: "/api/graphql", status: 405},
		{name: "graphiql", method: "GET", target: "/api/graphiql", status: 200, header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, body: "<html></html>"},
		{name: "restli docs", method: "GET", target: "/restli/docs", status: 200, header: http.Header{"Content-Type": {"text/html"}}, body: "<html></html>"},
		{name: "openapi.json", method: "GET", target: "/openapi.json", status: 200, header: jsonCT, body: `{"openapi":"3.0.3"}`},
		{name: "unauthorized", method: "GET", target: "/entitiesV2/" + enc, status: 401, header: jsonCT,
			body: `{"status":401,"message":"Unauthorized to perform this action.","exceptionClass":"com.linkedin.restli.server.RestLiServiceException","stackTrace":""}`},
	})
}

func TestInvalidResponses(t *testing.T) {
	enc := escapedURN(datasetURN)
	runCases(t, []respCase{
		{name: "search new-model entities", method: "POST", target: "/entities?action=search", status: 200, header: jsonCT,
			body: `{"value":{"numEntities":1,"pageSize":10,"from":0,"metadata":{"urns":[],"matches":[],"searchResultMetadatas":[]},
			"entities":[{"entity":"urn:li:chart:(looker,baz1)","matchedFields":[]}]}}`,
			wantErr: []string{"POST /entities?action=search (entitiesAction)", "SearchResponse", "/value/entities/0"}},
		{name: "search missing metadata.urns", method: "POST", target: "/entities?action=search", status: 200, header: jsonCT,
			body:    `{"value":{"numEntities":0,"pageSize":10,"from":0,"metadata":{"matches":[],"searchResultMetadatas":[]},"entities":[]}}`,
			wantErr: []string{"/value/metadata", `"urns"`}},
		{name: "ingest with body", method: "POST", target: "/entities?action=ingest", status: 200, header: jsonCT, body: `{"value":"x"}`,
			wantErr: []string{"action=ingest", "must be empty"}},
		{name: "ingestProposal non-string value", method: "POST", target: "/aspects?action=ingestProposal", status: 200, header: jsonCT, body: `{"value":42}`,
			wantErr: []string{"IngestProposalResponse", "at /value"}},
		{name: "action response not JSON", method: "POST", target: "/aspects?action=ingestProposal", status: 200,
			header: http.Header{"Content-Type": {"text/plain"}}, body: `success`, wantErr: []string{"not JSON"}},
		{name: "unknown action", method: "POST", target: "/entities?action=frobnicate", status: 200, header: jsonCT, body: `{}`,
			wantErr: []string{"entitiesAction", `unknown rest.li action "frobnicate"`}},
		{name: "missing action", method: "POST", target: "/aspects", status: 200, header: jsonCT, body: `{}`,
			wantErr: []string{`unknown rest.li action ""`}},
		{name: "unknown path", method: "GET", target: "/nope", status: 200, header: jsonCT, body: `{}`,
			wantErr: []string{"no operation for GET /nope"}},
		{name: "wrong method", method: "DELETE", target: "/config", status: 200, header: jsonCT, body: `{}`,
			wantErr: []string{"no operation for DELETE /config", "method not allowed"}},
		{name: "entitiesV2 missing entityName", method: "GET", target: "/entitiesV2/" + enc, status: 200, header: jsonCT,
			body: `{"urn":"u","aspects":{}}`, wantErr: []string{"GET /entitiesV2/{urn} (getEntityV2)", `"entityName"`}},
		{name: "entitiesV2 aspect value string", method: "GET", target: "/entitiesV2/" + enc, status: 200, header: jsonCT,
			body:    `{"urn":"u","entityName":"dataset","aspects":{"status":{"name":"status","type":"VERSIONED","version":0,"value":"{}","created":{"actor":"a","time":1}}}}`,
			wantErr: []string{"/aspects/status/value"}},
		{name: "entitiesV2 bad aspect type", method: "GET", target: "/entitiesV2/" + enc, status: 200, header: jsonCT,
			body:    `{"urn":"u","entityName":"dataset","aspects":{"status":{"name":"status","type":"LATEST","version":0,"value":{},"created":{"actor":"a","time":1}}}}`,
			wantErr: []string{"/aspects/status/type"}},
		{name: "error body not restli", method: "GET", target: "/entitiesV2/" + enc, status: 500, header: jsonCT,
			body: `{"error":"boom"}`, wantErr: []string{"status 500", `"status"`}},
		{name: "error body plain text", method: "POST", target: "/aspects?action=ingestProposal", status: 500,
			header: http.Header{"Content-Type": {"text/plain"}}, body: `boom`, wantErr: []string{"status 500", "Content-Type"}},
		{name: "undeclared status", method: "GET", target: "/config", status: 201, header: jsonCT, body: `{"noCode":"true"}`,
			wantErr: []string{"GET /config (getConfig)", "status is not supported"}},
		{name: "action undeclared status", method: "POST", target: "/entities?action=ingest", status: 204,
			wantErr: []string{"status 204 is not declared"}},
		{name: "config noCode boolean", method: "GET", target: "/config", status: 200, header: jsonCT, body: `{"noCode":true}`,
			wantErr: []string{"at /noCode"}},
		{name: "versioned aspect two keys", method: "GET", target: "/aspects/" + enc + "?aspect=status&version=0", status: 200, header: jsonCT,
			body: `{"version":0,"aspect":{"a.B":{},"c.D":{}}}`, wantErr: []string{"at /aspect"}},
		{name: "browse missing path", method: "POST", target: "/entities?action=browse", status: 200, header: jsonCT,
			body:    `{"value":{"numEntities":0,"pageSize":10,"from":0,"numGroups":0,"numElements":0,"metadata":{"totalNumEntities":0},"groups":[],"entities":[]}}`,
			wantErr: []string{"/value/metadata", `"path"`}},
		{name: "relationships missing total", method: "GET", target: "/relationships?direction=OUTGOING&urn=x&types=OwnedBy", status: 200, header: jsonCT,
			body: `{"start":0,"count":0,"relationships":[]}`, wantErr: []string{`"total"`}},
		{name: "audit bad eventSource", method: "POST", target: "/openapi/v1/events/audit/search", status: 200, header: jsonCT,
			body:    `{"count":1,"total":1,"usageEvents":[{"eventType":"LogInEvent","timestamp":1,"actorUrn":"u","eventSource":"SOAP"}]}`,
			wantErr: []string{"/usageEvents/0/eventSource"}},
		{name: "timeseries value object", method: "POST", target: "/aspects?action=getTimeseriesAspectValues", status: 200, header: jsonCT,
			body:    `{"value":{"entityName":"dataset","aspectName":"datasetProfile","values":[{"aspect":{"value":{"rowCount":1}}}]}}`,
			wantErr: []string{"/value/values/0/aspect/value"}},
	})
}

func TestValidateRequest(t *testing.T) {
	v := loadValidator(t)
	post := func(target, body string) *http.Request {
		req := newReq(t, "POST", target)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
		return req
	}
	good := map[string]string{
		"/aspects?action=ingestProposal": `{"proposal":{"entityType":"dataset","entityUrn":"` + datasetURN + `","changeType":"UPSERT","aspectName":"status",
			"aspect":{"value":"{\"removed\":false}","contentType":"application/json"}},"async":"false"}`,
		"/entities?action=search":             `{"input":"*","entity":"dataset","start":0,"count":10,"filter":{"or":[{"and":[{"field":"tags","values":["urn:li:tag:pii"],"condition":"EQUAL"}]}]}}`,
		"/openapi/v1/events/audit/search":     `{}`,
		"/api/graphql":                        `{"query":"{ me { corpUser { urn } } }"}`,
		"/operations?action=restoreIndices":   `{"urnLike":"urn:li:dataset:%"}`,
		"/entities?action=ingest":             `{"entity":{"value":{"com.linkedin.metadata.snapshot.TagSnapshot":{"urn":"urn:li:tag:x","aspects":[]}}}}`,
		"/aspects?action=ingestProposalBatch": `{"proposals":[{"entityType":"tag","changeType":"UPSERT","aspect":{"json":{"name":"x"}}}]}`,
	}
	for target, body := range good {
		if err := v.ValidateRequest(post(target, body), []byte(body)); err != nil {
			t.Errorf("%s: unexpected error: %v", target, err)
		}
	}
	bad := map[string]string{
		"/aspects?action=ingestProposal": `{"proposal":{"entityUrn":"x","changeType":"MERGE"}}`,
		"/entities?action=search":        `{"input":"*","entity":"dataset","start":"0","count":10}`,
		"/api/graphql":                   `{"variables":{}}`,
	}
	for target, body := range bad {
		if err := v.ValidateRequest(post(target, body), []byte(body)); err == nil {
			t.Errorf("%s: expected an error", target)
		} else {
			t.Logf("%s: %v", target, err)
		}
	}
	// Missing required query parameter.
	req := newReq(t, "GET", "/relationships?urn=x&types=OwnedBy")
	if err := v.ValidateRequest(req, nil); err == nil || !strings.Contains(err.Error(), "direction") {
		t.Errorf("relationships without direction: got %v", err)
	}
}

func TestSpecConsistency(t *testing.T) {
	v := loadValidator(t)
	doc := v.Doc()
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" || op.Description == "" {
				t.Errorf("%s %s: operationId and description are required", method, path)
			}
			acts := v.actions[op]
			if acts == nil || op.RequestBody == nil {
				continue
			}
			// Named request/response examples of action operations must match the action's schemas.
			for name, ex := range op.RequestBody.Value.Content.Get("application/json").Examples {
				a := acts[name]
				if a == nil {
					t.Errorf("%s %s: request example %q is not an action", method, path, name)
					continue
				}
				if err := a.request.VisitJSON(ex.Value.Value); err != nil {
					t.Errorf("%s %s: request example %q: %v", method, path, name, err)
				}
			}
			resp := op.Responses.Status(200).Value.Content.Get("application/json")
			for name, ex := range resp.Examples {
				a := acts[name]
				if a == nil || a.response == nil {
					t.Errorf("%s %s: response example %q is not an action with a body", method, path, name)
					continue
				}
				if err := a.response.VisitJSON(ex.Value.Value); err != nil {
					t.Errorf("%s %s: response example %q: %v", method, path, name, err)
				}
			}
		}
	}
	if got := v.Actions("post", "/entities"); len(got) != 9 {
		t.Errorf("Actions(POST /entities) = %d actions, want 9", len(got))
	}
}

// recorder captures Errorf calls of the transport.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestTransport(t *testing.T) {
	v := loadValidator(t)
	var gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.EscapedPath()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/entitiesV2/"):
			urn, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/entitiesV2/"))
			_ = json.NewEncoder(w).Encode(map[string]any{"urn": urn, "entityName": "dataset", "aspects": map[string]any{}})
		case r.URL.Path == "/config":
			_, _ = io.WriteString(w, `{"noCode":true}`) // wrong: must be the string "true"
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, restliErr)
		}
	}))
	defer srv.Close()

	rec := &recorder{TB: t}
	hc := &http.Client{Transport: v.Transport(rec, nil)}
	client, err := api.NewClientWithResponses(srv.URL, api.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Good response, URN with a slash travels as %2F and still matches /entitiesV2/{urn}.
	res, err := client.GetEntityV2WithResponse(ctx, datasetURN, &api.GetEntityV2Params{Aspects: &[]string{"status"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.JSON200 == nil || res.JSON200.Urn != datasetURN {
		t.Fatalf("body not restored / decoded: %d %s", res.StatusCode(), res.Body)
	}
	if !strings.Contains(gotPath, "%2F") {
		t.Errorf("server saw path %q, want an encoded slash", gotPath)
	}
	if len(rec.errs) != 0 {
		t.Fatalf("unexpected contract errors: %v", rec.errs)
	}

	// Bad response is reported, and the caller still gets the body.
	cfg, err := client.GetConfigWithResponse(ctx)
	if err == nil && cfg.StatusCode() != 200 {
		t.Fatalf("status %d", cfg.StatusCode())
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "at /noCode") {
		t.Fatalf("want one error about /noCode, got %v", rec.errs)
	}

	// Error responses in rest.li form are fine.
	rec.errs = nil
	resp, err := hc.Get(srv.URL + "/aspects/" + escapedURN(datasetURN) + "?aspect=status&version=0")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(b) != restliErr {
		t.Errorf("body not restored: %q", b)
	}
	if len(rec.errs) != 0 {
		t.Errorf("unexpected contract errors: %v", rec.errs)
	}

	// Unknown routes are reported.
	resp, err = hc.Get(srv.URL + "/does/not/exist")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "no operation for GET /does/not/exist") {
		t.Errorf("want an unknown-route error, got %v", rec.errs)
	}
}
