package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const hiveURN = "urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)"

func proposal(urn, aspect string, value any) map[string]any {
	b, _ := json.Marshal(value)
	return map[string]any{
		"entityType": "dataset", "entityUrn": urn, "changeType": "UPSERT", "aspectName": aspect,
		"aspect": map[string]any{"value": string(b), "contentType": "application/json"},
	}
}

// TestBadInput checks that every kind of bad write gets a 4xx whose rest.li
// error body names what is wrong, and that nothing is written.
func TestBadInput(t *testing.T) {
	srv := startServer(t, "--max-body", "65536")
	good := proposal(hiveURN, "datasetProperties", map[string]any{"description": "orders"})
	with := func(k string, v any) map[string]any {
		p := map[string]any{}
		for key, val := range good {
			p[key] = val
		}
		if v == nil {
			delete(p, k)
		} else {
			p[k] = v
		}
		return p
	}
	tests := []struct {
		name   string
		path   string
		body   any
		status int
		want   string // substring of the error message
	}{
		{"malformed JSON", "/aspects?action=ingestProposal", []byte(`{"proposal": {`), 400, "malformed"},
		{"unknown parameter", "/aspects?action=ingestProposal", map[string]any{"proposal": good, "extra": 1}, 400, "extra"},
		{"missing proposal", "/aspects?action=ingestProposal", map[string]any{}, 400, "proposal is required"},
		{"unknown proposal field", "/aspects?action=ingestProposal", map[string]any{"proposal": with("entityURN", "x")}, 400, "entityURN"},
		{"unknown entity type", "/aspects?action=ingestProposal", map[string]any{"proposal": with("entityType", "datasett")}, 400, `unknown entity type "datasett"`},
		{"malformed URN", "/aspects?action=ingestProposal", map[string]any{"proposal": with("entityUrn", "dataset:foo")}, 400, "malformed URN"},
		{"URN of another type", "/aspects?action=ingestProposal", map[string]any{"proposal": with("entityUrn", "urn:li:chart:(looker,a)")}, 400, "is not a dataset URN"},
		{"URN with wrong key arity", "/aspects?action=ingestProposal", map[string]any{"proposal": with("entityUrn", "urn:li:dataset:(urn:li:dataPlatform:hive,x)")}, 400, "dataset"},
		{"aspect of another entity", "/aspects?action=ingestProposal", map[string]any{"proposal": with("aspectName", "chartInfo")}, 400, "not an aspect of entity dataset"},
		{"unknown aspect", "/aspects?action=ingestProposal", map[string]any{"proposal": with("aspectName", "nope")}, 400, `unknown aspect "nope"`},
		{"value off schema", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(hiveURN, "datasetProperties", map[string]any{"description": 7})}, 400, "/description"},
		{"unknown aspect field", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(hiveURN, "status", map[string]any{"removd": true})}, 400, "removd"},
		{"value not JSON", "/aspects?action=ingestProposal", map[string]any{"proposal": with("aspect", map[string]any{"value": "{not json", "contentType": "application/json"})}, 400, "not valid JSON"},
		{"unsupported changeType", "/aspects?action=ingestProposal", map[string]any{"proposal": with("changeType", "MERGE")}, 400, `unknown changeType "MERGE"`},
		{"unsupported contentType", "/aspects?action=ingestProposal", map[string]any{"proposal": with("aspect", map[string]any{"value": "{}", "contentType": "text/yaml"})}, 400, `unsupported contentType "text/yaml"`},
		{"no URN and no key", "/aspects?action=ingestProposal", map[string]any{"proposal": with("entityUrn", nil)}, 400, "entityUrn or entityKeyAspect"},
		{"unknown action", "/aspects?action=frobnicate", map[string]any{}, 400, `unknown action "frobnicate"`},
		{"unknown snapshot", "/entities?action=ingest", map[string]any{"entity": map[string]any{"value": map[string]any{"com.linkedin.metadata.snapshot.NopeSnapshot": map[string]any{"urn": hiveURN, "aspects": []any{}}}}}, 400, "unknown snapshot type"},
		{"unknown snapshot aspect", "/entities?action=ingest", map[string]any{"entity": map[string]any{"value": map[string]any{"com.linkedin.metadata.snapshot.DatasetSnapshot": map[string]any{"urn": hiveURN, "aspects": []any{map[string]any{"com.linkedin.common.Nope": map[string]any{}}}}}}}, 400, "unknown aspect record"},
		{"body over the limit", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(hiveURN, "datasetProperties", map[string]any{"description": strings.Repeat("x", 70000)})}, 413, "exceeds the limit of 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := srv.do(t, "POST", tt.path, tt.body)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			e := decode(t, body)
			msg, _ := e["message"].(string)
			if !strings.Contains(msg, tt.want) {
				t.Errorf("message %q does not contain %q", msg, tt.want)
			}
			if e["status"] != json.Number(fmt.Sprint(tt.status)) || e["exceptionClass"] == nil || e["stackTrace"] == nil {
				t.Errorf("not a rest.li error body: %s", body)
			}
		})
	}
	// None of the bad requests wrote anything.
	srv.mustDo(t, 404, "GET", "/aspects/"+pathEscape(hiveURN)+"?aspect=datasetProperties", nil)
	srv.mustDo(t, 404, "GET", "/aspects/"+pathEscape(hiveURN)+"?aspect=datasetKey", nil)
}

// TestBatchIsAtomic checks that one bad proposal fails the whole batch, is
// named by its index, and leaves nothing written.
func TestBatchIsAtomic(t *testing.T) {
	srv := startServer(t)
	other := "urn:li:dataset:(urn:li:dataPlatform:hive,db.customers,PROD)"
	batch := []any{
		proposal(hiveURN, "datasetProperties", map[string]any{"description": "orders"}),
		proposal(other, "status", map[string]any{"removed": false}),
		proposal(other, "ownership", map[string]any{"owners": []any{map[string]any{"type": "DATAOWNER"}}}),
	}
	status, body := srv.do(t, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": batch})
	if status != 400 {
		t.Fatalf("status %d, want 400: %s", status, body)
	}
	msg, _ := decode(t, body)["message"].(string)
	for _, want := range []string{"proposal 2", other, "aspect ownership", `"owner"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not name %q", msg, want)
		}
	}
	for _, u := range []string{hiveURN, other} {
		srv.mustDo(t, 404, "GET", "/aspects/"+pathEscape(u)+"?aspect=datasetKey", nil)
	}
	// The same batch without the bad proposal applies whole.
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": batch[:2]})
	for _, u := range []string{hiveURN, other} {
		srv.mustDo(t, 200, "GET", "/aspects/"+pathEscape(u)+"?aspect=datasetKey", nil)
	}
}

// TestVersions checks DataHub's versioning: version 0 is the latest, history
// is kept at 1..N oldest first, negative versions count back from the newest
// history row, and an identical write creates no version.
func TestVersions(t *testing.T) {
	srv := startServer(t)
	write := func(desc string) {
		t.Helper()
		b := srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(hiveURN, "datasetProperties", map[string]any{"description": desc}), "async": "false"})
		if got := decode(t, b)["value"]; got != hiveURN {
			t.Errorf("ingestProposal answered %v, want the URN", got)
		}
	}
	write("a")
	write("b")
	write("b") // identical: no new version
	write("c")
	read := func(version string) string {
		t.Helper()
		b := srv.mustDo(t, 200, "GET", "/aspects/"+pathEscape(hiveURN)+"?aspect=datasetProperties&version="+version, nil)
		var resp struct {
			Version int64 `json:"version"`
			Aspect  map[string]struct {
				Description string `json:"description"`
			} `json:"aspect"`
		}
		if err := json.Unmarshal(b, &resp); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d:%s", resp.Version, resp.Aspect["com.linkedin.dataset.DatasetProperties"].Description)
	}
	for version, want := range map[string]string{"0": "0:c", "1": "1:a", "2": "2:b", "-1": "2:b", "-2": "1:a"} {
		if got := read(version); got != want {
			t.Errorf("version %s: got %s, want %s", version, got, want)
		}
	}
	srv.mustDo(t, 404, "GET", "/aspects/"+pathEscape(hiveURN)+"?aspect=datasetProperties&version=3", nil)
	srv.mustDo(t, 400, "GET", "/aspects/"+pathEscape(hiveURN)+"?aspect=datasetProperties&version=x", nil)

	// The first write also stored the key aspect and the default aspects.
	v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(hiveURN), nil))
	aspects := v2["aspects"].(map[string]any)
	wantDefaults := map[string]string{
		"datasetKey":           `{"name":"db.orders","origin":"PROD","platform":"urn:li:dataPlatform:hive"}`,
		"browsePaths":          `{"paths":["/prod/hive/db/orders"]}`,
		"dataPlatformInstance": `{"platform":"urn:li:dataPlatform:hive"}`,
	}
	for name, want := range wantDefaults {
		env, _ := aspects[name].(map[string]any)
		if got := jsonString(env["value"]); got != want {
			t.Errorf("default %s = %s, want %s", name, got, want)
		}
	}
	props := aspects["datasetProperties"].(map[string]any)
	sm, _ := props["systemMetadata"].(map[string]any)
	if sm["runId"] != "no-run-id-provided" || sm["lastObserved"] == nil {
		t.Errorf("default systemMetadata missing: %v", sm)
	}

	// Hard delete removes every aspect and version.
	del := decode(t, srv.mustDo(t, 200, "POST", "/entities?action=delete", map[string]any{"urn": hiveURN}))
	if rows := del["value"].(map[string]any)["rows"]; rows != json.Number("6") {
		t.Errorf("delete removed %v rows, want 6 (3 versions of datasetProperties + 3 defaults): %v", rows, del)
	}
	srv.mustDo(t, 404, "GET", "/aspects/"+pathEscape(hiveURN)+"?aspect=datasetProperties&version=1", nil)
}

// TestRestliConventions checks the protocol details real clients depend on.
func TestRestliConventions(t *testing.T) {
	srv := startServer(t)
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(hiveURN, "status", map[string]any{"removed": false})})

	req := func(path string, protocol string) (int, string, string) {
		t.Helper()
		r, _ := newRequest("GET", srv.URL+path, protocol)
		resp, err := srv.Client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("X-RestLi-Protocol-Version"), resp.Header.Get("X-RestLi-Error-Response")
	}
	// Fully and partly percent-encoded URNs, List() and repeated parameters.
	partly := "urn%3Ali%3Adataset%3A(urn%3Ali%3AdataPlatform%3Ahive,db.orders,PROD)"
	for _, path := range []string{
		"/entitiesV2/" + pathEscape(hiveURN) + "?aspects=List(status,datasetKey)",
		"/entitiesV2/" + partly + "?aspects=status&aspects=datasetKey",
		"/entitiesV2/" + hiveURN,
	} {
		b := srv.mustDo(t, 200, "GET", path, nil)
		aspects := decode(t, b)["aspects"].(map[string]any)
		if _, ok := aspects["datasetKey"]; !ok || len(aspects) < 2 {
			t.Errorf("GET %s: aspects %v", path, aspects)
		}
		if strings.Contains(path, "aspects=") && len(aspects) != 2 {
			t.Errorf("GET %s: projection ignored, got %d aspects", path, len(aspects))
		}
	}
	if status, v, _ := req("/entitiesV2/"+pathEscape(hiveURN), "2.0.0"); status != 200 || v != "2.0.0" {
		t.Errorf("protocol 2.0.0 not echoed: %d %q", status, v)
	}
	if _, v, _ := req("/entitiesV2/"+pathEscape(hiveURN), ""); v != "1.0.0" {
		t.Errorf("baseline protocol not echoed: %q", v)
	}
	if status, _, e := req("/aspects/"+pathEscape(hiveURN)+"?aspect=ownership", "2.0.0"); status != 404 || e != "true" {
		t.Errorf("absent aspect: status %d, X-RestLi-Error-Response %q", status, e)
	}
	// An entity never written still answers with its key aspect, as DataHub does.
	never := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:nobody"), nil))
	if k := jsonString(never["aspects"].(map[string]any)["corpUserKey"].(map[string]any)["value"]); k != `{"username":"nobody"}` {
		t.Errorf("synthesised key aspect = %s", k)
	}
	cfg := decode(t, srv.mustDo(t, 200, "GET", "/config", nil))
	if cfg["noCode"] != "true" {
		t.Errorf("/config noCode = %v, want the string \"true\"", cfg["noCode"])
	}
	srv.mustDo(t, 200, "GET", "/health", nil)
}
