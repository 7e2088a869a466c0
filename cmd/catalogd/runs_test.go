package main

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// runProposal is an UPSERT of one aspect of a hive dataset made by the
// ingestion run run.
func runProposal(t *testing.T, name, aspect string, value any, run string) map[string]any {
	t.Helper()
	b, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"entityType": "dataset", "entityUrn": hive(name), "changeType": "UPSERT", "aspectName": aspect,
		"aspect":         map[string]any{"value": string(b), "contentType": "application/json"},
		"systemMetadata": map[string]any{"runId": run, "lastObserved": time.Now().UnixMilli()},
	}
}

// ingestRun writes proposals as one batch, then waits a little so that the
// next run's writes are stamped later.
func ingestRun(t *testing.T, srv *testServer, proposals ...map[string]any) {
	t.Helper()
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": proposals})
	time.Sleep(5 * time.Millisecond)
}

// runsAction posts a runs action and returns its value.
func runsAction(t *testing.T, srv *testServer, action string, params map[string]any) any {
	t.Helper()
	var v struct{ Value any }
	if err := json.Unmarshal(srv.mustDo(t, 200, "POST", "/runs?action="+action, params), &v); err != nil {
		t.Fatal(err)
	}
	return v.Value
}

// runIDs lists the ids of the runs the list action answers, in order.
func runIDs(t *testing.T, srv *testServer, includeSoft bool) []string {
	t.Helper()
	out := []string{}
	for _, r := range runsAction(t, srv, "list", map[string]any{"pageOffset": 0, "pageSize": 100, "includeSoft": includeSoft}).([]any) {
		// The server's own bootstrap writes name no run.
		if id := get(t, r, "runId").(string); id != "no-run-id-provided" {
			out = append(out, id)
		}
	}
	return out
}

// rowKeys lists "urn aspect" of aspect row summaries, marking key aspects.
func rowKeys(t *testing.T, rows any) []string {
	t.Helper()
	out := []string{}
	for _, r := range rows.([]any) {
		k := get(t, r, "urn").(string) + " " + get(t, r, "aspectName").(string)
		if get(t, r, "keyAspect") == true {
			k += " (key)"
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// latestValue is the latest value of an aspect as JSON, "" when absent.
func latestValue(t *testing.T, srv *testServer, urn, aspect string) string {
	t.Helper()
	status, b := srv.do(t, "GET", "/aspects/"+pathEscape(urn)+"?aspect="+aspect+"&version=0", nil)
	if status == 404 {
		return ""
	}
	if status != 200 {
		t.Fatalf("GET aspect %s of %s: %d %s", aspect, urn, status, b)
	}
	for _, v := range decode(t, b)["aspect"].(map[string]any) {
		return jsonString(v)
	}
	t.Fatalf("GET aspect %s of %s: no value in %s", aspect, urn, b)
	return ""
}

// TestIngestionRunRollback ingests three runs that create and overwrite
// datasets, lists and describes them, and rolls them back with DataHub's
// CLI requests (dry, soft, hard) and the UI's rollbackIngestion: entities
// a run created are soft- or hard-deleted, aspects it overwrote are
// restored to the earlier run's value with their edges and search
// documents, and the other runs' data is untouched.
func TestIngestionRunRollback(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := loadUIOps(t, srv)
			a, b, s, d := hive("rollback.kept"), hive("rollback.onlyb"), hive("rollback.shared"), hive("rollback.onlyc")
			desc := func(text string) map[string]any {
				return map[string]any{"description": text, "customProperties": map[string]any{}}
			}
			tags := func(tag string) map[string]any {
				return map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:" + tag}}}
			}

			// Run a creates a and s; run b creates b (downstream of a) and
			// overwrites s's description and tags it; run c creates d and
			// gives a an owner.
			ingestRun(t, srv,
				runProposal(t, "rollback.kept", "datasetProperties", desc("lionfish kept"), "run-a"),
				runProposal(t, "rollback.kept", "globalTags", tags("fromA"), "run-a"),
				runProposal(t, "rollback.shared", "datasetProperties", desc("lionfish shared"), "run-a"))
			ingestRun(t, srv,
				runProposal(t, "rollback.onlyb", "datasetProperties", desc("zebrafish only b"), "run-b"),
				runProposal(t, "rollback.onlyb", "upstreamLineage", map[string]any{"upstreams": []any{
					map[string]any{"dataset": a, "type": "TRANSFORMED", "auditStamp": map[string]any{"time": 0, "actor": "urn:li:corpuser:unknown"}}}}, "run-b"),
				runProposal(t, "rollback.shared", "datasetProperties", desc("zebrafish shared"), "run-b"),
				runProposal(t, "rollback.shared", "globalTags", tags("fromB"), "run-b"),
				runProposal(t, "rollback.shared", "datasetProfile", map[string]any{"timestampMillis": 1700000000000, "rowCount": 42}, "run-b"))
			ingestRun(t, srv,
				runProposal(t, "rollback.onlyc", "datasetProperties", desc("catfish only c"), "run-c"),
				runProposal(t, "rollback.kept", "ownership", map[string]any{"owners": []any{
					map[string]any{"owner": "urn:li:corpuser:owner", "type": "DATAOWNER"}}}, "run-c"))

			if got, want := runIDs(t, srv, false), []string{"run-c", "run-b", "run-a"}; !slices.Equal(got, want) {
				t.Errorf("runs = %v, want %v (most recent first)", got, want)
			}
			// Each run holds the latest aspects it wrote last, the key and
			// default aspects of the entities it created included.
			wantRows := map[string]int{"run-a": 5 + 3, "run-b": 5 + 2, "run-c": 4 + 1}
			for _, r := range runsAction(t, srv, "list", map[string]any{}).([]any) {
				id := get(t, r, "runId").(string)
				if want, ok := wantRows[id]; ok && num(t, get(t, r, "rows")) != want {
					t.Errorf("run %s has %v rows, want %d", id, get(t, r, "rows"), want)
				}
				if ts, _ := get(t, r, "timestamp").(float64); ts < float64(time.Now().Add(-time.Hour).UnixMilli()) {
					t.Errorf("run %s timestamp %.0f is not the time of its writes", id, ts)
				}
			}
			if page := runsAction(t, srv, "list", map[string]any{"pageOffset": 1, "pageSize": 1}).([]any); len(page) != 1 || get(t, page[0], "runId") != "run-b" {
				t.Errorf("runs from 1, 1 of them = %v, want run-b", page)
			}

			if got := runsProfiles(t, srv, s); len(got) != 1 {
				t.Fatalf("profiles of %s = %v, want run-b's", s, got)
			}
			described := runsAction(t, srv, "describe", map[string]any{"runId": "run-b", "start": 0, "count": 100, "includeAspect": true})
			wantB := []string{b + " browsePaths", b + " dataPlatformInstance", b + " datasetKey (key)", b + " datasetProperties", b + " upstreamLineage",
				s + " datasetProperties", s + " globalTags"}
			slices.Sort(wantB)
			if got := rowKeys(t, described); !slices.Equal(got, wantB) {
				t.Errorf("describe run-b = %v, want %v", got, wantB)
			}
			for _, r := range described.([]any) {
				if get(t, r, "runId") != "run-b" || get(t, r, "aspect") == nil {
					t.Errorf("describe row %v: want run-b with its aspect", r)
				}
				if get(t, r, "urn") == s && get(t, r, "aspectName") == "datasetProperties" && !strings.Contains(jsonString(get(t, r, "aspect")), "zebrafish shared") {
					t.Errorf("describe row of %s's properties holds %v", s, get(t, r, "aspect"))
				}
			}
			if page := runsAction(t, srv, "describe", map[string]any{"runId": "run-b", "start": 5, "count": 10}).([]any); len(page) != 2 {
				t.Errorf("describe run-b from 5: %d rows, want 2", len(page))
			}
			if rows := runsAction(t, srv, "describe", map[string]any{"runId": "never-ran", "start": 0, "count": 10}).([]any); len(rows) != 0 {
				t.Errorf("describe of an unknown run = %v, want no rows", rows)
			}

			// A dry run reports and changes nothing.
			dry := runsAction(t, srv, "rollback", map[string]any{"runId": "run-b", "dryRun": true, "safe": true})
			for field, want := range map[string]int{"entitiesAffected": 2, "entitiesDeleted": 1, "aspectsReverted": 6, "unsafeEntitiesCount": 0} {
				if got := num(t, get(t, dry, field)); got != want {
					t.Errorf("dry run: %s = %d, want %d", field, got, want)
				}
			}
			wantSoft := slices.DeleteFunc(slices.Clone(wantB), func(k string) bool { return strings.HasSuffix(k, "(key)") })
			if got := rowKeys(t, get(t, dry, "aspectRowSummaries")); !slices.Equal(got, wantSoft) {
				t.Errorf("dry run rows = %v, want %v", got, wantSoft)
			}
			if got := latestValue(t, srv, s, "datasetProperties"); !strings.Contains(got, "zebrafish shared") {
				t.Errorf("after a dry run %s's properties = %s", s, got)
			}

			// The CLI's default rollback is safe: b is soft-deleted, s is
			// back to run a's description without b's tag, a is untouched.
			_, offset := pollEvents(t, srv, "pollTimeoutSeconds=0")
			done := runsAction(t, srv, "rollback", map[string]any{"runId": "run-b", "dryRun": false, "safe": true})
			// The event stream tells of the changes the rollback made.
			events, _ := pollEvents(t, srv, "pollTimeoutSeconds=0&limit=100&offsetId="+url.QueryEscape(offset))
			var seen []string
			for _, e := range events {
				seen = append(seen, e.EntityURN+" "+e.short())
			}
			if !slices.Contains(seen, s+" TAG REMOVE urn:li:tag:fromB") {
				t.Errorf("events of the rollback = %v, want the removal of tag fromB from %s", seen, s)
			}
			// The real rollback also counts the run's profile of s, which
			// went too.
			for field, want := range map[string]int{"entitiesAffected": 2, "entitiesDeleted": 1, "aspectsReverted": 7} {
				if got := num(t, get(t, done, field)); got != want {
					t.Errorf("rollback: %s = %d, want %d", field, got, want)
				}
			}
			profiles := runsProfiles(t, srv, s)
			if len(profiles) != 0 {
				t.Errorf("profiles of %s after rolling back the run that wrote them = %v", s, profiles)
			}
			checks := []struct{ urn, aspect, want string }{
				{s, "datasetProperties", "lionfish shared"},
				{s, "globalTags", ""},
				{b, "status", `{"removed":true}`},
				{b, "datasetKey", `"name":"rollback.onlyb"`},
				{b, "datasetProperties", ""},
				{b, "upstreamLineage", ""},
				{a, "datasetProperties", "lionfish kept"},
				{a, "globalTags", "fromA"},
				{a, "ownership", "urn:li:corpuser:owner"},
				{d, "datasetProperties", "catfish only c"},
			}
			for _, c := range checks {
				got := latestValue(t, srv, c.urn, c.aspect)
				if (c.want == "" && got != "") || !strings.Contains(got, c.want) {
					t.Errorf("after rolling back run-b: %s of %s = %q, want %q", c.aspect, c.urn, got, c.want)
				}
			}
			// The restored version is the latest again, not history too.
			if status, _ := srv.do(t, "GET", "/aspects/"+pathEscape(s)+"?aspect=datasetProperties&version=1", nil); status != 404 {
				t.Errorf("%s's properties keep a history version after the rollback: status %d", s, status)
			}
			if got := relationships(t, srv, "INCOMING", a, "types=DownstreamOf").Entities; len(got) != 0 {
				t.Errorf("a's downstreams after rolling back b's lineage = %v, want none", got)
			}
			if got := relationships(t, srv, "OUTGOING", s, "types=TaggedWith").Entities; len(got) != 0 {
				t.Errorf("s's tags after the rollback = %v, want none", got)
			}
			if got := srv.search(t, map[string]any{"input": "zebrafish", "entity": "dataset"}); got.NumEntities != 0 {
				t.Errorf("search zebrafish after the rollback = %v, want nothing", got.Entities)
			}
			if got := srv.search(t, map[string]any{"input": "lionfish", "entity": "dataset"}); !slices.Equal(sorted(got.Entities), sorted([]string{a, s})) {
				t.Errorf("search lionfish after the rollback = %v, want %s and %s", got.Entities, a, s)
			}
			if got, want := runIDs(t, srv, false), []string{"run-c", "run-a"}; !slices.Equal(got, want) {
				t.Errorf("runs after rolling back run-b = %v, want %v (b's only rows are soft-deleted)", got, want)
			}
			if got := runIDs(t, srv, true); !slices.Contains(got, "run-b") {
				t.Errorf("runs including soft-deleted = %v, want run-b among them", got)
			}

			// a was created by run a but has an owner from run c: a hard
			// rollback of run a would remove it too.
			dry = runsAction(t, srv, "rollback", map[string]any{"runId": "run-a", "dryRun": true, "safe": false})
			if unsafe := get(t, dry, "unsafeEntities").([]any); len(unsafe) != 1 || get(t, unsafe[0], "urn") != a || num(t, get(t, dry, "aspectsAffected")) != 1 {
				t.Errorf("dry hard rollback of run-a: unsafe %v, aspectsAffected %v; want %s with its ownership", unsafe, get(t, dry, "aspectsAffected"), a)
			}
			if got := num(t, get(t, dry, "aspectsReverted")); got != 9 {
				t.Errorf("dry hard rollback of run-a reverts %d aspects, want 9 (keys included)", got)
			}

			// The UI's rollback hard-deletes what run c created and takes
			// its owner off a.
			if got := ui.run(t, "rollbackIngestion", map[string]any{"input": map[string]any{"runId": "run-c"}}); get(t, got, "rollbackIngestion") != "true" {
				t.Errorf("rollbackIngestion = %v", got)
			}
			if got := latestValue(t, srv, d, "datasetKey"); got != "" {
				t.Errorf("d's key after rolling back run-c = %s, want d deleted", got)
			}
			if got := latestValue(t, srv, a, "ownership"); got != "" {
				t.Errorf("a's ownership after rolling back run-c = %s", got)
			}
			if got := srv.search(t, map[string]any{"input": "catfish", "entity": "dataset"}); got.NumEntities != 0 {
				t.Errorf("search catfish after the rollback = %v", got.Entities)
			}
			if got := relationships(t, srv, "INCOMING", "urn:li:corpuser:owner", "types=OwnedBy").Entities; len(got) != 0 {
				t.Errorf("owner's entities after the rollback = %v", got)
			}

			// A hard rollback of run a removes a and s with every aspect.
			done = runsAction(t, srv, "rollback", map[string]any{"runId": "run-a", "safe": false})
			if got := num(t, get(t, done, "entitiesDeleted")); got != 2 {
				t.Errorf("hard rollback of run-a deleted %d entities, want 2", got)
			}
			for _, u := range []string{a, s} {
				for _, aspect := range []string{"datasetKey", "datasetProperties"} {
					if got := latestValue(t, srv, u, aspect); got != "" {
						t.Errorf("%s of %s after the hard rollback of run-a = %s, want it deleted", aspect, u, got)
					}
				}
			}
			if got := srv.search(t, map[string]any{"input": "lionfish", "entity": "dataset"}); got.NumEntities != 0 {
				t.Errorf("search lionfish after the hard rollback = %v", got.Entities)
			}
			if got := runIDs(t, srv, true); slices.Contains(got, "run-a") || slices.Contains(got, "run-c") {
				t.Errorf("runs after the hard rollbacks = %v", got)
			}
		})
	}
}

// TestRunsErrors checks the answers to runs requests that name no run, the
// reserved default run, or an unknown one.
func TestRunsErrors(t *testing.T) {
	srv := startServer(t)
	for _, tt := range []struct {
		action string
		body   map[string]any
		status int
		want   string
	}{
		{"rollback", map[string]any{}, 400, "runId is required"},
		{"rollback", map[string]any{"runId": "no-run-id-provided"}, 400, "no-run-id-provided"},
		{"describe", map[string]any{"start": 0, "count": 10}, 400, "runId is required"},
		{"describe", map[string]any{"runId": "x"}, 400, "start and count are required"},
		{"list", map[string]any{"pageSize": -1}, 400, "must not be negative"},
		{"nope", map[string]any{}, 400, "unknown action"},
	} {
		status, b := srv.do(t, "POST", "/runs?action="+tt.action, tt.body)
		if status != tt.status || !strings.Contains(string(b), tt.want) {
			t.Errorf("%s %v: %d %s, want %d with %q", tt.action, tt.body, status, b, tt.status, tt.want)
		}
	}
	// An unknown run rolls back nothing, as in DataHub.
	res := runsAction(t, srv, "rollback", map[string]any{"runId": "never-ran"})
	if num(t, get(t, res, "aspectsReverted")) != 0 || num(t, get(t, res, "entitiesAffected")) != 0 || len(get(t, res, "aspectRowSummaries").([]any)) != 0 {
		t.Errorf("rollback of an unknown run = %v", res)
	}
}

// TestUIRollbackOfManagedRun rolls back, as DataHub's ingestion page does
// (by the execution request's id), a managed run whose writes carry the
// request's URN as their run id, and checks that the request is marked
// rolled back.
func TestUIRollbackOfManagedRun(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := loadUIOps(t, srv)
			const request = "urn:li:dataHubExecutionRequest:exec-rollback"
			result, _ := json.Marshal(map[string]any{"status": "SUCCESS", "startTimeMs": 1700000000000, "durationMs": 10})
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": map[string]any{
				"entityType": "dataHubExecutionRequest", "entityUrn": request, "changeType": "UPSERT", "aspectName": "dataHubExecutionRequestResult",
				"aspect": map[string]any{"value": string(result), "contentType": "application/json"}}})
			ingestRun(t, srv, runProposal(t, "managed.table", "datasetProperties", map[string]any{"description": "from the managed run", "customProperties": map[string]any{}}, request))
			if got := latestValue(t, srv, hive("managed.table"), "datasetKey"); got == "" {
				t.Fatal("the managed run's dataset was not written")
			}

			if got := ui.run(t, "rollbackIngestion", map[string]any{"input": map[string]any{"runId": "exec-rollback"}}); get(t, got, "rollbackIngestion") != "true" {
				t.Errorf("rollbackIngestion = %v", got)
			}
			for _, aspect := range []string{"datasetKey", "datasetProperties"} {
				if got := latestValue(t, srv, hive("managed.table"), aspect); got != "" {
					t.Errorf("%s of the managed run's dataset after its rollback = %s", aspect, got)
				}
			}
			if got := latestValue(t, srv, request, "dataHubExecutionRequestResult"); !strings.Contains(got, `"status":"ROLLED_BACK"`) || !strings.Contains(got, `"durationMs":10`) {
				t.Errorf("execution request result after the rollback = %s, want its status ROLLED_BACK", got)
			}
		})
	}
}

// runsProfiles reads the datasetProfile values of urn.
func runsProfiles(t *testing.T, srv *testServer, urn string) []any {
	t.Helper()
	var v struct {
		Value struct{ Values []any }
	}
	b := srv.mustDo(t, 200, "POST", "/aspects?action=getTimeseriesAspectValues", map[string]any{"urn": urn, "entity": "dataset", "aspect": "datasetProfile"})
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v.Value.Values
}
