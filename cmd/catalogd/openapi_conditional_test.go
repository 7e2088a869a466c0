package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// doHeaders is do with extra request headers.
func (s *testServer) doHeaders(t testing.TB, method, path string, body any, header map[string]string) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// TestOpenAPIV3ConditionalWrites writes aspects on conditions, as DataHub's
// conditional writes do: If-Version-Match names the aspect's current
// version (-1 for none), If-Modified-Since and If-Unmodified-Since bound
// its last write; a condition that does not hold answers 412 and writes
// nothing.
func TestOpenAPIV3ConditionalWrites(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			urn := datasetURN("conditional")
			path := "/openapi/v3/entity/dataset/" + pathEscape(urn) + "/globaltags"
			tags := func(names ...string) map[string]any {
				var l []any
				for _, n := range names {
					l = append(l, map[string]any{"tag": "urn:li:tag:" + n})
				}
				return map[string]any{"tags": l}
			}
			stored := func() string {
				t.Helper()
				env := decode(t, srv.mustDo(t, 200, "GET", path, nil))
				var names []string
				v, _ := env["value"].(map[string]any)
				l, _ := v["tags"].([]any)
				for _, e := range l {
					names = append(names, strings.TrimPrefix(e.(map[string]any)["tag"].(string), "urn:li:tag:"))
				}
				return strings.Join(names, ",")
			}
			upsert := "?createIfNotExists=false&async=false"
			past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
			future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
			steps := []struct {
				name    string
				method  string
				query   string
				body    map[string]any
				header  map[string]string
				status  int
				wantNow string // the tags stored after the step
			}{
				{"create expecting no value", "POST", "?async=false", map[string]any{"value": tags("a"), "headers": map[string]string{"If-Version-Match": "-1"}}, nil, 200, "a"},
				{"stale version in the body", "POST", upsert, map[string]any{"value": tags("b"), "headers": map[string]string{"If-Version-Match": "2"}}, nil, 412, "a"},
				{"current version in the body", "POST", upsert, map[string]any{"value": tags("b"), "headers": map[string]string{"If-Version-Match": "1"}}, nil, 200, "b"},
				{"version 1 is now stale", "POST", upsert, map[string]any{"value": tags("c")}, map[string]string{"If-Version-Match": "1"}, 412, "b"},
				{"current version as an HTTP header", "POST", upsert, map[string]any{"value": tags("c")}, map[string]string{"If-Version-Match": "2"}, 200, "c"},
				{"the body's header wins", "POST", upsert, map[string]any{"value": tags("d"), "headers": map[string]string{"If-Version-Match": "9"}}, map[string]string{"If-Version-Match": "3"}, 412, "c"},
				{"patch on the current version", "PATCH", "", map[string]any{"patch": []any{map[string]any{"op": "add", "path": "/tags/-", "value": map[string]any{"tag": "urn:li:tag:e"}}}}, map[string]string{"If-Version-Match": "3"}, 200, "c,e"},
				{"patch on a stale version", "PATCH", "", map[string]any{"patch": []any{map[string]any{"op": "remove", "path": "/tags/0"}}}, map[string]string{"If-Version-Match": "3"}, 412, "c,e"},
				{"unmodified since an hour ago", "POST", upsert, map[string]any{"value": tags("f"), "headers": map[string]string{"If-Unmodified-Since": past}}, nil, 412, "c,e"},
				{"modified since an hour ago", "POST", upsert, map[string]any{"value": tags("f"), "headers": map[string]string{"If-Modified-Since": past}}, nil, 200, "f"},
				{"modified since in an hour", "POST", upsert, map[string]any{"value": tags("g"), "headers": map[string]string{"If-Modified-Since": future}}, nil, 412, "f"},
				{"unmodified since in an hour", "POST", upsert, map[string]any{"value": tags("g"), "headers": map[string]string{"If-Unmodified-Since": future}}, nil, 200, "g"},
				{"an instant that is not one", "POST", upsert, map[string]any{"value": tags("h"), "headers": map[string]string{"If-Modified-Since": "yesterday"}}, nil, 400, "g"},
			}
			for _, s := range steps {
				status, b := srv.doHeaders(t, s.method, path+s.query, s.body, s.header)
				if status != s.status {
					t.Fatalf("%s: status %d, want %d: %s", s.name, status, s.status, b)
				}
				if status == 412 && !strings.Contains(string(b), "globalTags of "+urn) {
					t.Errorf("%s: 412 body %s does not name the aspect", s.name, b)
				}
				if got := stored(); got != s.wantNow {
					t.Errorf("after %s: tags %q, want %q", s.name, got, s.wantNow)
				}
			}

			// In a batch, one failed condition writes none of the batch.
			other := datasetURN("conditional_other")
			batch := []any{
				map[string]any{"urn": other, "status": map[string]any{"value": map[string]any{"removed": false}}},
				map[string]any{"urn": urn, "globalTags": map[string]any{"value": tags("z"), "headers": map[string]string{"If-Version-Match": "1"}}},
			}
			if status, b := srv.do(t, "POST", "/openapi/v3/entity/dataset?async=false", batch); status != 412 {
				t.Fatalf("batch with a stale version: status %d: %s", status, b)
			}
			srv.mustDo(t, 404, "GET", "/openapi/v3/entity/dataset/"+pathEscape(other), nil)
			if got := stored(); got != "g" {
				t.Errorf("after the refused batch: tags %q", got)
			}

			// rest.li proposals carry the same headers.
			p := proposal(urn, "globalTags", tags("r"))
			p["headers"] = map[string]any{"If-Version-Match": "1"}
			if status, b := srv.do(t, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": p}); status != 412 {
				t.Errorf("ingestProposal with a stale version: status %d: %s", status, b)
			}
			p["headers"] = map[string]any{"If-Version-Match": "6"}
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": p})
			if got := stored(); got != "r" {
				t.Errorf("after a conditional ingestProposal: tags %q, want r", got)
			}
		})
	}
}

// TestOpenAPIV3DeleteTimeseries deletes a timeseries aspect: as in DataHub,
// its latest value goes and the earlier ones stay.
func TestOpenAPIV3DeleteTimeseries(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			urn := datasetURN("profiled")
			path := "/openapi/v3/entity/dataset/" + pathEscape(urn) + "/datasetprofile"
			for _, ts := range []int64{1700000000000, 1700000100000} {
				srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(urn, "datasetProfile",
					map[string]any{"timestampMillis": ts, "rowCount": ts / 1e8})})
			}
			latest := func() string {
				t.Helper()
				env := decode(t, srv.mustDo(t, 200, "GET", path, nil))
				v, _ := env["value"].(map[string]any)
				return fmt.Sprint(v["timestampMillis"])
			}
			if got := latest(); got != "1700000100000" {
				t.Fatalf("latest profile at %v", got)
			}
			srv.mustDo(t, 200, "DELETE", path, nil)
			if got := latest(); got != "1700000000000" {
				t.Errorf("after one DELETE the latest profile is at %v, want the earlier one", got)
			}
			srv.mustDo(t, 200, "DELETE", path, nil)
			srv.mustDo(t, 404, "GET", path, nil)
			srv.mustDo(t, 404, "HEAD", path, nil)
			// Deleting what is not there succeeds, so that a retry is harmless.
			srv.mustDo(t, 200, "DELETE", path, nil)
			// The entity's other aspects are untouched.
			srv.mustDo(t, 204, "HEAD", "/openapi/v3/entity/dataset/"+pathEscape(urn), nil)
		})
	}
}
