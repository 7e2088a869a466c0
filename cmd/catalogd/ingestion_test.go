package main

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeDataHub stands in for DataHub's CLI: `datahub ingest -c RECIPE
// --report-to REPORT [--test-source-connection]`. What it does follows the
// recipe's source.config.mode; every run appends a line to runs.log beside
// it.
const fakeDataHub = `#!/bin/sh
dir=$(dirname "$0")
recipe=$3
report=$5
echo "run $(basename "$PWD")" >> "$dir/runs.log"
printf '%s %s' "$DATAHUB_GMS_URL" "$DATAHUB_GMS_TOKEN" > "$dir/gms"
echo "token: $DATAHUB_GMS_TOKEN"
if [ "$6" = "--test-source-connection" ]; then
	echo '{"internal_failure":false,"basic_connectivity":{"capable":true}}' > "$report"
	echo "connection tested"
	exit 0
fi
if grep -q 's3cr3t-p4ss' "$recipe"; then echo "password resolved"; fi
grep -o '"password":"[^"]*"' "$recipe"
grep -q '"run_id":"urn:li:dataHubExecutionRequest:' "$recipe" && echo "run id set"
case $(grep -o '"mode":"[a-z]*"' "$recipe") in
*fail*) echo "cannot connect" >&2; exit 3 ;;
*sleep*) echo "sleeping"; sleep 60; echo "woke up" ;;
esac
echo '{"source":{"report":{"events_produced":7}}}' > "$report"
echo "done"
`

// fakeCLI writes fakeDataHub to a fresh directory and returns its path.
func fakeCLI(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "datahub")
	if err := os.WriteFile(p, []byte(fakeDataHub), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func runsLogged(t *testing.T, cli string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(cli), "runs.log"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// fail runs the UI operation name, which must fail, and returns its error.
func (c *uiOps) fail(t *testing.T, name string, vars map[string]any) string {
	t.Helper()
	r := c.srv.gql(t, c.docs.text(t, name), vars)
	if len(r.Errors) == 0 {
		t.Fatalf("%s %v: no error, answered %v", name, vars, r.Data)
	}
	msg, _ := r.Errors[0]["message"].(string)
	return msg
}

func (c *uiOps) createSource(t *testing.T, name, mode string, extra map[string]any) string {
	t.Helper()
	recipe := `{"source":{"type":"mysql","config":{"mode":"` + mode + `","password":"${DB_PASSWORD}"}}}`
	input := map[string]any{"name": name, "type": "mysql", "config": map[string]any{"recipe": recipe, "executorId": "default"}}
	for k, v := range extra {
		input[k] = v
	}
	urn, _ := c.run(t, "createIngestionSource", map[string]any{"input": input})["createIngestionSource"].(string)
	if urn == "" {
		t.Fatalf("createIngestionSource %s answered no URN", name)
	}
	return urn
}

func (c *uiOps) execute(t *testing.T, source string) string {
	t.Helper()
	urn, _ := c.run(t, "createIngestionExecutionRequest", map[string]any{"input": map[string]any{"ingestionSourceUrn": source}})["createIngestionExecutionRequest"].(string)
	if !strings.HasPrefix(urn, "urn:li:dataHubExecutionRequest:") {
		t.Fatalf("createIngestionExecutionRequest answered %q", urn)
	}
	return urn
}

// request reads an execution request as the UI's run details do.
func (c *uiOps) request(t *testing.T, urn string) map[string]any {
	t.Helper()
	r, _ := c.run(t, "getIngestionExecutionRequest", map[string]any{"urn": urn})["executionRequest"].(map[string]any)
	if r == nil {
		t.Fatalf("executionRequest %s is null", urn)
	}
	return r
}

// await polls the request until its status is one of want's kind (any
// final status when want is ""), and returns its result.
func (c *uiOps) await(t *testing.T, urn string, until func(status string) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		res, _ := c.request(t, urn)["result"].(map[string]any)
		status, _ := res["status"].(string)
		if until(status) {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: status %q after 45s, result %v", urn, status, res)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// awaitReport polls the request until the report of its run in progress
// shows text.
func (c *uiOps) awaitReport(t *testing.T, urn, text string) {
	t.Helper()
	res := c.await(t, urn, func(string) bool {
		res, _ := c.request(t, urn)["result"].(map[string]any)
		report, _ := res["report"].(string)
		return strings.Contains(report, text)
	})
	if res["status"] != "RUNNING" {
		t.Fatalf("%s: %v while its report shows %q", urn, res["status"], text)
	}
}

func final(status string) bool { return status != "" && status != "RUNNING" }

// TestIngestionRuns drives the UI's ingestion and secrets pages end to end:
// secrets are created, listed, updated and deleted and never shown; runs of
// sources execute a real subprocess in place of DataHub's CLI with the
// recipe's secrets filled in, and succeed, fail, are cancelled or time out,
// as the UI shows them.
func TestIngestionRuns(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			cli := fakeCLI(t)
			env := map[string]string{"SECRET_SERVICE_ENCRYPTION_KEY": "test key " + st.name}
			args := append([]string{"--ingest-command", cli + " ingest -c {recipe} --report-to {report}", "--ingest-timeout", "4s"}, st.args...)
			srv := startServerEnv(t, env, args...)
			c := &uiOps{srv: srv, docs: ops}

			// Secrets: created, listed without their value, updated, deleted.
			secret, _ := c.run(t, "createSecret", map[string]any{"input": map[string]any{"name": "DB_PASSWORD", "value": "first-value", "description": "the database's"}})["createSecret"].(string)
			if secret != "urn:li:dataHubSecret:DB_PASSWORD" {
				t.Fatalf("createSecret = %q", secret)
			}
			if msg := c.fail(t, "createSecret", map[string]any{"input": map[string]any{"name": "DB_PASSWORD", "value": "x"}}); !strings.Contains(msg, "already exists") {
				t.Errorf("creating a secret twice: %q", msg)
			}
			if msg := c.fail(t, "createSecret", map[string]any{"input": map[string]any{"name": "not a name", "value": "x"}}); !strings.Contains(msg, "secret name") {
				t.Errorf("a secret with a bad name: %q", msg)
			}
			c.run(t, "createSecret", map[string]any{"input": map[string]any{"name": "OTHER", "value": "other-value"}})
			c.run(t, "updateSecret", map[string]any{"input": map[string]any{"urn": secret, "name": "DB_PASSWORD", "value": "s3cr3t-p4ss", "description": "rotated"}})
			if msg := c.fail(t, "updateSecret", map[string]any{"input": map[string]any{"urn": secret, "name": "RENAMED", "value": "x"}}); !strings.Contains(msg, "cannot be renamed") {
				t.Errorf("renaming a secret: %q", msg)
			}
			if msg := c.fail(t, "updateSecret", map[string]any{"input": map[string]any{"urn": "urn:li:dataHubSecret:NOPE", "name": "NOPE", "value": "x"}}); !strings.Contains(msg, "does not exist") {
				t.Errorf("updating a missing secret: %q", msg)
			}
			list := c.run(t, "listSecrets", map[string]any{"input": map[string]any{"start": 0, "count": 10, "query": "db_"}})
			if got := asJSON(list["listSecrets"]); got != `{"count":1,"secrets":[{"description":"rotated","name":"DB_PASSWORD","urn":"urn:li:dataHubSecret:DB_PASSWORD"}],"start":0,"total":1}` {
				t.Errorf("listSecrets db_ = %s", got)
			}
			all := c.run(t, "listSecrets", map[string]any{"input": map[string]any{"start": 0, "count": 10}})
			if got, _ := pick(all, []string{"listSecrets", "total"}); asJSON(got) != "2" {
				t.Errorf("listSecrets total = %v, want 2", got)
			}
			c.run(t, "deleteSecret", map[string]any{"urn": "urn:li:dataHubSecret:OTHER"})
			all = c.run(t, "listSecrets", map[string]any{"input": map[string]any{"start": 0, "count": 10}})
			if got, _ := pick(all, []string{"listSecrets", "secrets", "*", "name"}); asJSON(got) != `["DB_PASSWORD"]` {
				t.Errorf("secrets after a delete = %s", asJSON(got))
			}

			// A run that succeeds, with the secret filled in.
			ok := c.createSource(t, "nightly mysql", "succeed", nil)
			run := c.execute(t, ok)
			res := c.await(t, run, final)
			report, _ := res["report"].(string)
			if res["status"] != "SUCCESS" || !strings.Contains(report, "password resolved") || !strings.Contains(report, "run id set") || !strings.Contains(report, "done") {
				t.Errorf("successful run: status %v, report %q", res["status"], report)
			}
			if !strings.Contains(report, `"password":"********"`) {
				t.Errorf("the report should show the filled-in password masked: %q", report)
			}
			if sr, _ := res["structuredReport"].(map[string]any); sr["type"] != "CLI_INGEST" || !strings.Contains(asJSON(sr["serializedValue"]), "events_produced") {
				t.Errorf("structured report = %v", res["structuredReport"])
			}
			if start := asJSON(res["startTimeMs"]); len(start) != 13 {
				t.Errorf("startTimeMs = %v, want a time in milliseconds", res["startTimeMs"])
			}
			if d := asJSON(res["durationMs"]); d == "null" || strings.HasPrefix(d, "-") {
				t.Errorf("durationMs = %v", res["durationMs"])
			}
			in, _ := c.request(t, run)["input"].(map[string]any)
			if in["task"] != "RUN_INGEST" || asJSON(in["source"]) != `{"type":"MANUAL_INGESTION_SOURCE"}` || in["executorId"] != "default" {
				t.Errorf("request input = %s", asJSON(in))
			}
			if actor, _ := pick(in, []string{"actor", "urn"}); actor != gqlActor {
				t.Errorf("request actor = %v", actor)
			}
			recipeArg := ""
			for _, a := range in["arguments"].([]any) {
				if m := a.(map[string]any); m["key"] == "recipe" {
					recipeArg, _ = m["value"].(string)
				}
			}
			if !strings.Contains(recipeArg, `"pipeline_name":"`+ok+`"`) || !strings.Contains(recipeArg, `"run_id":"`+run+`"`) || !strings.Contains(recipeArg, "${DB_PASSWORD}") {
				t.Errorf("the request's recipe = %s", recipeArg)
			}

			// A run that fails.
			bad := c.createSource(t, "broken", "fail", nil)
			failed := c.execute(t, bad)
			res = c.await(t, failed, final)
			if report, _ := res["report"].(string); res["status"] != "FAILURE" || !strings.Contains(report, "cannot connect") || !strings.Contains(report, "exit status 3") {
				t.Errorf("failing run: status %v, report %q", res["status"], report)
			}

			// A run cancelled while it runs.
			slow := c.createSource(t, "slow", "sleep", nil)
			cancelled := c.execute(t, slow)
			c.awaitReport(t, cancelled, "sleeping")
			c.run(t, "cancelIngestionExecutionRequest", map[string]any{"input": map[string]any{"ingestionSourceUrn": slow, "executionRequestUrn": cancelled}})
			res = c.await(t, cancelled, final)
			if report, _ := res["report"].(string); res["status"] != "CANCELLED" || strings.Contains(report, "woke up") {
				t.Errorf("cancelled run: status %v, report %q", res["status"], report)
			}
			if msg := c.fail(t, "cancelIngestionExecutionRequest", map[string]any{"input": map[string]any{"ingestionSourceUrn": "urn:li:dataHubIngestionSource:nope", "executionRequestUrn": cancelled}}); !strings.Contains(msg, "failed to find ingestion source") {
				t.Errorf("cancelling for a missing source: %q", msg)
			}

			// A run that outlives the timeout.
			timedOut := c.execute(t, slow)
			res = c.await(t, timedOut, final)
			if report, _ := res["report"].(string); res["status"] != "TIMEOUT" || !strings.Contains(report, "Timed out after 4s") {
				t.Errorf("run past the timeout: status %v, report %q", res["status"], report)
			}

			// A test of a connection.
			test, _ := c.run(t, "createTestConnectionRequest", map[string]any{"input": map[string]any{"recipe": `{"source":{"type":"mysql","config":{}}}`, "version": "0.14.1"}})["createTestConnectionRequest"].(string)
			res = c.await(t, test, final)
			if sr, _ := res["structuredReport"].(map[string]any); res["status"] != "SUCCESS" || sr["type"] != "TEST_CONNECTION" || !strings.Contains(asJSON(sr["serializedValue"]), "basic_connectivity") {
				t.Errorf("test connection: %s", asJSON(res))
			}

			// The source's page and the runs list show the runs, latest first.
			page := c.run(t, "getIngestionSource", map[string]any{"urn": slow, "runStart": 0, "runCount": 10})
			if got, _ := pick(page, []string{"ingestionSource", "executions", "executionRequests", "*", "urn"}); asJSON(got) != asJSON([]string{timedOut, cancelled}) {
				t.Errorf("runs of the slow source = %s", asJSON(got))
			}
			if got, _ := pick(page, []string{"ingestionSource", "config", "recipe"}); !strings.Contains(asJSON(got), "sleep") {
				t.Errorf("source recipe = %v", got)
			}
			sources := c.run(t, "listIngestionSources", map[string]any{"input": map[string]any{"start": 0, "count": 10, "query": "nightly"}})
			if got, _ := pick(sources, []string{"listIngestionSources", "ingestionSources", "*", "executions", "executionRequests", "*", "result", "status"}); asJSON(got) != `[["SUCCESS"]]` {
				t.Errorf("listIngestionSources nightly: last run statuses = %s", asJSON(got))
			}
			runs := c.run(t, "listIngestionExecutionRequests", map[string]any{"input": map[string]any{"start": 0, "count": 10}})
			if got, _ := pick(runs, []string{"listExecutionRequests", "executionRequests", "*", "urn"}); asJSON(got) != asJSON([]string{test, timedOut, cancelled, failed, run}) {
				t.Errorf("listExecutionRequests = %s", asJSON(got))
			}
			// Only the nightly source has succeeded (the test of a
			// connection has no source).
			if got, _ := pick(runs, []string{"listExecutionRequests", "executionRequests", "*", "source", "latestSuccessfulExecution", "urn"}); asJSON(got) != asJSON([]string{run}) {
				t.Errorf("latest successful runs of the runs' sources = %s", asJSON(got))
			}
			filtered := c.run(t, "listIngestionExecutionRequests", map[string]any{"input": map[string]any{"start": 0, "count": 10,
				"filters": []any{map[string]any{"field": "executionResultStatus", "values": []string{"FAILURE"}}}}})
			if got, _ := pick(filtered, []string{"listExecutionRequests", "executionRequests", "*", "urn"}); asJSON(got) != asJSON([]string{failed}) {
				t.Errorf("failed runs = %s", asJSON(got))
			}

			// The web app's default filters hide the platform's own sources
			// and their runs.
			system := "urn:li:dataHubIngestionSource:system-1"
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				seed(system, "dataHubIngestionSource", "dataHubIngestionSourceInfo", map[string]any{"name": "nightly system", "type": "datahub-gc",
					"config": map[string]any{"recipe": `{"source":{"type":"datahub-gc","config":{"mode":"succeed"}}}`, "executorId": "default"},
					"source": map[string]any{"type": "SYSTEM"}}),
			}, "async": "false"})
			systemRun := c.execute(t, system)
			c.await(t, systemRun, final)
			for _, tt := range []struct {
				filters []any
				want    []string
			}{
				{[]any{map[string]any{"field": "sourceType", "values": []string{"SYSTEM"}, "negated": true}}, []string{ok}},
				{[]any{map[string]any{"field": "sourceType", "values": []string{"SYSTEM"}}}, []string{system}},
				{[]any{map[string]any{"field": "sourceType", "values": []string{"SYSTEM"}, "negated": true},
					map[string]any{"field": "sourceExecutorId", "values": []string{"__datahub_cli_"}, "negated": true}}, []string{ok}},
				{[]any{map[string]any{"field": "sourceExecutorId", "values": []string{"__datahub_cli_"}}}, []string{}},
			} {
				got := c.run(t, "listIngestionSources", map[string]any{"input": map[string]any{"start": 0, "count": 10, "query": "nightly", "filters": tt.filters}})
				if urns, _ := pick(got, []string{"listIngestionSources", "ingestionSources", "*", "urn"}); asJSON(urns) != asJSON(tt.want) {
					t.Errorf("listIngestionSources nightly %s = %s, want %s", asJSON(tt.filters), asJSON(urns), asJSON(tt.want))
				}
			}
			for _, tt := range []struct {
				system bool
				want   []string
			}{{false, []string{test, timedOut, cancelled, failed, run}}, {true, []string{systemRun}}} {
				got := c.run(t, "listIngestionExecutionRequests", map[string]any{"input": map[string]any{"start": 0, "count": 10, "systemSources": tt.system}})
				if urns, _ := pick(got, []string{"listExecutionRequests", "executionRequests", "*", "urn"}); asJSON(urns) != asJSON(tt.want) {
					t.Errorf("listExecutionRequests systemSources %v = %s, want %s", tt.system, asJSON(urns), asJSON(tt.want))
				}
			}

			// Deleting a source.
			c.run(t, "deleteIngestionSource", map[string]any{"urn": bad})
			if got := c.run(t, "getIngestionSource", map[string]any{"urn": bad, "runStart": 0, "runCount": 1}); got["ingestionSource"] != nil {
				t.Errorf("deleted source still answered: %v", got)
			}

			assertSecretNeverServed(t, srv, "s3cr3t-p4ss", secret)
		})
	}
}

// assertSecretNeverServed reads the secret urn through every read API and
// asserts that neither its value nor the stored (encrypted) form is served.
func assertSecretNeverServed(t *testing.T, srv *testServer, value, urn string) {
	t.Helper()
	esc := pathEscape(urn)
	reads := []struct {
		method, path string
		body         any
	}{
		{"GET", "/entitiesV2/" + esc, nil},
		{"GET", "/entities/" + esc, nil},
		{"GET", "/aspects/" + esc + "?aspect=dataHubSecretValue&version=0", nil},
		{"GET", "/openapi/v3/entity/datahubsecret/" + esc, nil},
		{"GET", "/openapi/v3/entity/datahubsecret?count=10", nil},
		{"GET", "/openapi/v2/entity/datahubsecret/" + esc, nil},
		{"POST", "/entities?action=search", map[string]any{"input": "*", "entity": "dataHubSecret", "start": 0, "count": 10}},
		{"POST", "/openapi/v1/events/audit/search?size=100", map[string]any{}},
		{"GET", "/openapi/v1/events/poll?limit=1000", nil},
		{"GET", "/openapi/v2/timeline/v1/" + esc + "?categories=LIFECYCLE", nil},
	}
	for _, r := range reads {
		_, b := srv.do(t, r.method, r.path, r.body)
		if strings.Contains(string(b), value) || strings.Contains(string(b), `"v1:`) {
			t.Errorf("%s %s serves the secret: %s", r.method, r.path, b)
		}
	}
	for _, q := range []string{
		`{ searchAcrossEntities(input: {query: "DB_PASSWORD", start: 0, count: 10}) { searchResults { entity { urn } } } }`,
	} {
		_, _, b := srv.graphqlRaw(t, "/api/graphql", map[string]any{"query": q}, nil)
		if strings.Contains(string(b), value) {
			t.Errorf("GraphQL %s serves the secret: %s", q, b)
		}
	}
	if out := srv.stderr.String() + srv.stdout.String(); strings.Contains(out, value) {
		t.Errorf("the server's log shows the secret")
	}
}

// TestIngestionRestart checks that runs survive restarts: a request made
// while no executor runs is run once by the next server; a run a crashed
// server left RUNNING, and one in progress when a server stops, end as
// FAILURE and are not run again; a generated secret key (SQLite) is kept
// beside the database, readable by its owner only, and still decrypts.
func TestIngestionRestart(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			cli := fakeCLI(t)
			dir := t.TempDir()
			storeArgs := append([]string{"--data-dir", dir}, st.args...)
			env := map[string]string{}
			if st.name != "sqlite" {
				env["SECRET_SERVICE_ENCRYPTION_KEY"] = "restart key"
			}
			// On PostgreSQL a run is failed once it shows no progress for
			// the lease, as another replica may be running it.
			executor := []string{"--ingest-command", cli + " ingest -c {recipe} --report-to {report}", "--ingest-lease", "3s"}

			a := startServerEnv(t, env, append([]string{"--ingest-command", "none"}, storeArgs...)...)
			c := &uiOps{srv: a, docs: ops}
			c.run(t, "createSecret", map[string]any{"input": map[string]any{"name": "DB_PASSWORD", "value": "s3cr3t-p4ss"}})
			src := c.createSource(t, "restarted", "succeed", nil)
			if msg := c.fail(t, "createIngestionExecutionRequest", map[string]any{"input": map[string]any{"ingestionSourceUrn": src}}); !strings.Contains(msg, "no ingestion executor is configured") {
				t.Errorf("a run without an executor: %q", msg)
			}
			if msg := c.fail(t, "createTestConnectionRequest", map[string]any{"input": map[string]any{"recipe": "{}"}}); !strings.Contains(msg, "no ingestion executor is configured") {
				t.Errorf("a test without an executor: %q", msg)
			}
			// A request written by another client, and one a crashed
			// executor left running.
			now := time.Now().UnixMilli()
			recipe := `{"source":{"type":"mysql","config":{"mode":"succeed","password":"${DB_PASSWORD}"}}}`
			input := func(requested int64) map[string]any {
				return map[string]any{"task": "RUN_INGEST", "args": map[string]any{"recipe": recipe}, "executorId": "default",
					"source": map[string]any{"type": "MANUAL_INGESTION_SOURCE", "ingestionSource": src}, "requestedAt": requested}
			}
			pending, stale := "urn:li:dataHubExecutionRequest:pending-1", "urn:li:dataHubExecutionRequest:stale-1"
			a.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				seed(pending, "dataHubExecutionRequest", "dataHubExecutionRequestInput", input(now)),
				seed(stale, "dataHubExecutionRequest", "dataHubExecutionRequestInput", input(now-5000)),
				seed(stale, "dataHubExecutionRequest", "dataHubExecutionRequestResult", map[string]any{"status": "RUNNING", "startTimeMs": now - 4000, "report": "half way\n"}),
			}, "async": "false"})
			time.Sleep(1500 * time.Millisecond)
			if res := c.request(t, pending)["result"]; res != nil {
				t.Errorf("a server without an executor ran %s: %v", pending, res)
			}
			a.stop()
			if st.name == "sqlite" {
				fi, err := os.Stat(filepath.Join(dir, "secret-encryption-key"))
				if err != nil {
					t.Fatalf("generated secret key: %v", err)
				}
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("secret key file mode %v, want 0600", fi.Mode().Perm())
				}
			}

			b := startServerEnv(t, env, append(executor, storeArgs...)...)
			c = &uiOps{srv: b, docs: ops}
			res := c.await(t, pending, final)
			if report, _ := res["report"].(string); res["status"] != "SUCCESS" || !strings.Contains(report, "password resolved") {
				t.Errorf("the pending run after a restart: status %v, report %q", res["status"], report)
			}
			res = c.await(t, stale, final)
			if report, _ := res["report"].(string); res["status"] != "FAILURE" || !strings.HasPrefix(report, "half way\n") || !strings.Contains(report, "catalogd stopped while this run was in progress") {
				t.Errorf("the run a crash left running: status %v, report %q", res["status"], report)
			}
			slow := c.createSource(t, "slow", "sleep", nil)
			interrupted := c.execute(t, slow)
			c.awaitReport(t, interrupted, "sleeping")
			b.stop()
			if n := runsLogged(t, cli); n != 2 {
				t.Errorf("%d runs before the second restart, want 2", n)
			}

			d := startServerEnv(t, env, append(executor, storeArgs...)...)
			c = &uiOps{srv: d, docs: ops}
			res = c.await(t, interrupted, final)
			if report, _ := res["report"].(string); res["status"] != "FAILURE" || !strings.Contains(report, "catalogd is stopping") {
				t.Errorf("the run in progress at a stop: status %v, report %q", res["status"], report)
			}
			time.Sleep(1500 * time.Millisecond)
			if n := runsLogged(t, cli); n != 2 {
				t.Errorf("%d runs after the second restart, want still 2 (none run twice)", n)
			}
			runs := c.run(t, "listIngestionExecutionRequests", map[string]any{"input": map[string]any{"start": 0, "count": 10}})
			if got, _ := pick(runs, []string{"listExecutionRequests", "total"}); asJSON(got) != "3" {
				t.Errorf("%s runs listed, want 3", asJSON(got))
			}
		})
	}
}

// TestIngestionDefaultExecutor checks the executor's default: DataHub's
// CLI when it is on the PATH, and otherwise a clear refusal to run.
func TestIngestionDefaultExecutor(t *testing.T) {
	if _, err := exec.LookPath("datahub"); err == nil {
		t.Skip("DataHub's CLI is on the PATH")
	}
	srv := startServerEnv(t, map[string]string{"SECRET_SERVICE_ENCRYPTION_KEY": "k"})
	c := loadUIOps(t, srv)
	src := c.createSource(t, "any", "succeed", nil)
	msg := c.fail(t, "createIngestionExecutionRequest", map[string]any{"input": map[string]any{"ingestionSourceUrn": src}})
	if !strings.Contains(msg, "DataHub's CLI (datahub) is not on catalogd's PATH") || !strings.Contains(msg, "--ingest-command") {
		t.Errorf("a run without the CLI: %q", msg)
	}
}

// TestIngestionPrivileges checks that secrets need Manage Secrets and runs
// Manage Ingestion, through GraphQL and through the generic write APIs.
func TestIngestionPrivileges(t *testing.T) {
	cli := fakeCLI(t)
	s := startAuthServerEnv(t, map[string]string{"SECRET_SERVICE_ENCRYPTION_KEY": "k"}, "--ingest-command", cli+" ingest -c {recipe} --report-to {report}")
	s.cliToken(t, "alice") // creates the user, who has no privileges
	admin, user := bearer(s.admin), bearer(sessionToken(t, "alice"))
	gql := func(token, query string) (int, string) {
		st, b := s.call(t, token, "POST", "/api/graphql", map[string]any{"query": query})
		return st, string(b)
	}
	if _, b := gql(admin, `mutation { createSecret(input: {name: "TOKEN", value: "tok-value-123"}) }`); !strings.Contains(b, "urn:li:dataHubSecret:TOKEN") {
		t.Fatalf("admin createSecret: %s", b)
	}
	_, b := gql(admin, `mutation { createIngestionSource(input: {name: "n", type: "mysql", config: {recipe: "{}", executorId: "default"}}) }`)
	src := regexp.MustCompile(`urn:li:dataHubIngestionSource:[0-9a-f-]+`).FindString(b)
	if src == "" {
		t.Fatalf("createIngestionSource: %s", b)
	}
	for _, q := range []string{
		`{ listSecrets(input: {start: 0, count: 10}) { total } }`,
		`mutation { createSecret(input: {name: "MINE", value: "v"}) }`,
		`mutation { updateSecret(input: {urn: "urn:li:dataHubSecret:TOKEN", name: "TOKEN", value: "v"}) }`,
		`mutation { deleteSecret(urn: "urn:li:dataHubSecret:TOKEN") }`,
		`mutation { createIngestionExecutionRequest(input: {ingestionSourceUrn: "` + src + `"}) }`,
		`mutation { createTestConnectionRequest(input: {recipe: "{}"}) }`,
		`mutation { deleteIngestionSource(urn: "` + src + `") }`,
		`{ listExecutionRequests(input: {start: 0, count: 10}) { total } }`,
		`mutation { rollbackIngestion(input: {runId: "some-run"}) }`,
	} {
		if _, b := gql(user, q); !strings.Contains(b, "UNAUTHORIZED") && !strings.Contains(b, "unauthorized") {
			t.Errorf("a user without privileges: %s answered %s", q, b)
		}
	}
	for _, p := range []map[string]any{
		mcp("dataHubSecret", "urn:li:dataHubSecret:MINE", "dataHubSecretValue", map[string]any{"name": "MINE", "value": "v"}),
		mcp("dataHubExecutionRequest", "urn:li:dataHubExecutionRequest:mine", "dataHubExecutionRequestInput",
			map[string]any{"task": "RUN_INGEST", "args": map[string]any{}, "executorId": "default", "source": map[string]any{"type": "MANUAL_INGESTION_SOURCE"}, "requestedAt": 1}),
	} {
		if st, b := s.call(t, user, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": p}); st != 403 {
			t.Errorf("a user without privileges writing %s: %d %s", p["entityUrn"], st, b)
		}
	}
	if _, b := gql(admin, `{ listSecrets(input: {start: 0, count: 10}) { total secrets { name } } }`); !strings.Contains(b, `"total":1`) || strings.Contains(b, "tok-value-123") {
		t.Errorf("admin listSecrets: %s", b)
	}

	// A run writes to this server as its requester: its command is given
	// the server's address and a token of the user who asked for it,
	// which its report does not show.
	_, b = gql(admin, `mutation { createIngestionExecutionRequest(input: {ingestionSourceUrn: "`+src+`"}) }`)
	run := regexp.MustCompile(`urn:li:dataHubExecutionRequest:[0-9a-f-]+`).FindString(b)
	if run == "" {
		t.Fatalf("createIngestionExecutionRequest: %s", b)
	}
	var report string
	for deadline := time.Now().Add(30 * time.Second); ; {
		_, b := gql(admin, `{ executionRequest(urn: "`+run+`") { result { status report } } }`)
		if strings.Contains(b, `"SUCCESS"`) {
			report = b
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not succeed: %s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	gms, err := os.ReadFile(filepath.Join(filepath.Dir(cli), "gms"))
	if err != nil {
		t.Fatal(err)
	}
	url, token, _ := strings.Cut(string(gms), " ")
	if url != s.URL || token == "" {
		t.Fatalf("the command was given DATAHUB_GMS_URL %q and a token of %d bytes", url, len(token))
	}
	if strings.Contains(report, token) || !strings.Contains(report, "token: ********") {
		t.Errorf("the report shows the run's token: %s", report)
	}
	if _, b := gql(bearer(token), `{ me { corpUser { urn } } }`); !strings.Contains(b, `"urn":"urn:li:corpuser:datahub"`) {
		t.Errorf("the run's token: me = %s", b)
	}
}

// TestIngestionSecretsNeedKeyOnPostgres checks that on PostgreSQL, where
// no key is generated (the database must not hold it), secrets are refused
// with what to set.
func TestIngestionSecretsNeedKeyOnPostgres(t *testing.T) {
	dsn := os.Getenv("CATALOGD_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("CATALOGD_TEST_POSTGRES not set")
	}
	srv := startServer(t, "--store", freshPostgres(t, dsn), "--ingest-command", "none")
	c := loadUIOps(t, srv)
	if msg := c.fail(t, "createSecret", map[string]any{"input": map[string]any{"name": "X", "value": "v"}}); !strings.Contains(msg, "SECRET_SERVICE_ENCRYPTION_KEY") {
		t.Errorf("createSecret without a key: %q", msg)
	}
	if got, _ := pick(c.run(t, "listSecrets", map[string]any{"input": map[string]any{"start": 0, "count": 10}}), []string{"listSecrets", "total"}); asJSON(got) != "0" {
		t.Errorf("listSecrets total = %s", asJSON(got))
	}
}

// TestSecretsNotInClear reads the store's raw bytes after secrets were
// created and updated: no value may be there in clear, on SQLite (every
// file of the data directory, the write-ahead log included) nor on
// PostgreSQL (every row of every table, as text).
func TestSecretsNotInClear(t *testing.T) {
	ops := loadUIDocs(t)
	values := []string{"first-cleartext-9f1c", "rotated-cleartext-77ab"}
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"SECRET_SERVICE_ENCRYPTION_KEY": "raw rows key " + st.name}
			srv := startServerEnv(t, env, append([]string{"--data-dir", dir, "--ingest-command", "none"}, st.args...)...)
			c := &uiOps{srv: srv, docs: ops}
			c.run(t, "createSecret", map[string]any{"input": map[string]any{"name": "RAW_CHECK", "value": values[0]}})
			c.run(t, "updateSecret", map[string]any{"input": map[string]any{"urn": "urn:li:dataHubSecret:RAW_CHECK", "name": "RAW_CHECK", "value": values[1]}})

			// found counts, per needle, where it is stored in the raw data.
			found := map[string]int{}
			needles := append([]string{"RAW_CHECK"}, values...)
			if st.name == "sqlite" {
				files, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					b, err := os.ReadFile(filepath.Join(dir, f.Name()))
					if err != nil || f.IsDir() {
						continue
					}
					for _, n := range needles {
						found[n] += bytes.Count(b, []byte(n))
					}
				}
			} else {
				db, err := sql.Open("pgx", st.args[1])
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				rows, err := db.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
				if err != nil {
					t.Fatal(err)
				}
				var tables []string
				for rows.Next() {
					var name string
					if err := rows.Scan(&name); err != nil {
						t.Fatal(err)
					}
					tables = append(tables, name)
				}
				rows.Close()
				for _, table := range tables {
					for _, n := range needles {
						var k int
						if err := db.QueryRow(`SELECT count(*) FROM "`+table+`" AS r WHERE r::text LIKE '%' || $1 || '%'`, n).Scan(&k); err != nil {
							t.Fatalf("read %s: %v", table, err)
						}
						found[n] += k
					}
				}
			}
			if found["RAW_CHECK"] == 0 {
				t.Fatalf("the secret's name is nowhere in the raw data: the test does not read where the store writes")
			}
			for _, v := range values {
				if found[v] > 0 {
					t.Errorf("the secret value %q is stored in clear (%d times)", v, found[v])
				}
			}
		})
	}
}
