package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

const patchDataset = "urn:li:dataset:(urn:li:dataPlatform:hive,patched,PROD)"

// patchProposal is an ingestProposal body carrying a JSON Patch the way the
// Python SDK sends one: the patch array as a JSON string in aspect.value.
func patchProposal(urn, aspect string, ops ...map[string]any) map[string]any {
	b, _ := json.Marshal(ops)
	return map[string]any{"proposal": map[string]any{
		"entityType": "dataset", "entityUrn": urn, "changeType": "PATCH", "aspectName": aspect,
		"aspect": map[string]any{"value": string(b), "contentType": "application/json-patch+json"},
	}, "async": "false"}
}

func addTagOp(tag string) map[string]any {
	return map[string]any{"op": "add", "path": "/tags/" + tag, "value": map[string]any{"tag": tag}}
}

func readAspect(t *testing.T, srv *testServer, urn, aspect string) map[string]any {
	t.Helper()
	got := decode(t, srv.mustDo(t, 200, "GET", "/aspects/"+pathEscape(urn)+"?aspect="+aspect+"&version=0", nil))
	for _, v := range got["aspect"].(map[string]any) {
		return v.(map[string]any)
	}
	t.Fatalf("empty aspect union")
	return nil
}

// TestPatchConcurrent has many clients add a different tag to one dataset at
// once: every tag must survive, because each patch is applied to the value
// current inside its own write transaction.
func TestPatchConcurrent(t *testing.T) {
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			srv := startServer(t, db.args...)
			const n = 40
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					tag := fmt.Sprintf("urn:li:tag:t%02d", i)
					srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", patchProposal(patchDataset, "globalTags", addTagOp(tag)))
				}()
			}
			wg.Wait()
			tags, _ := readAspect(t, srv, patchDataset, "globalTags")["tags"].([]any)
			if len(tags) != n {
				t.Fatalf("%d tags after %d concurrent patches: %v", len(tags), n, tags)
			}
		})
	}
}

// TestPatchFailures checks that a patch that cannot apply is a 4xx and
// writes nothing, also for the proposals before it in the same batch.
func TestPatchFailures(t *testing.T) {
	srv := startServer(t)
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", patchProposal(patchDataset, "globalTags", addTagOp("urn:li:tag:keep")))
	tests := []struct {
		name string
		ops  []map[string]any
	}{
		{"failed test", []map[string]any{addTagOp("urn:li:tag:new"), {"op": "test", "path": "/tags/urn:li:tag:keep/context", "value": "x"}}},
		{"remove of a missing tag", []map[string]any{addTagOp("urn:li:tag:new"), {"op": "remove", "path": "/tags/urn:li:tag:absent"}}},
		{"invalid result", []map[string]any{{"op": "add", "path": "/tags/urn:li:tag:new", "value": map[string]any{"colour": "red"}}}},
		{"malformed op", []map[string]any{{"op": "frobnicate", "path": "/tags"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := srv.do(t, "POST", "/aspects?action=ingestProposal", patchProposal(patchDataset, "globalTags", tt.ops...))
			if status < 400 || status >= 500 {
				t.Fatalf("status %d, want 4xx: %s", status, body)
			}
			tags, _ := readAspect(t, srv, patchDataset, "globalTags")["tags"].([]any)
			if len(tags) != 1 {
				t.Fatalf("tags changed by a failed patch: %v", tags)
			}
		})
	}

	// In a batch the earlier UPSERT is rolled back with the failing PATCH.
	other := "urn:li:dataset:(urn:li:dataPlatform:hive,never,PROD)"
	bad, _ := json.Marshal([]map[string]any{{"op": "remove", "path": "/tags/urn:li:tag:absent"}})
	status, body := srv.do(t, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
		map[string]any{"entityType": "dataset", "entityUrn": other, "changeType": "UPSERT", "aspectName": "status",
			"aspect": map[string]any{"value": `{"removed":false}`, "contentType": "application/json"}},
		map[string]any{"entityType": "dataset", "entityUrn": other, "changeType": "PATCH", "aspectName": "globalTags",
			"aspect": map[string]any{"value": string(bad), "contentType": "application/json-patch+json"}},
	}})
	if status < 400 || status >= 500 {
		t.Fatalf("batch: status %d, want 4xx: %s", status, body)
	}
	srv.mustDo(t, 404, "GET", "/aspects/"+pathEscape(other)+"?aspect=status&version=0", nil)
}

// TestPatchAndURNTypesRefused checks through ingestProposal that JSON Patch
// paths RFC 6901 and 6902 reject, and a URN of another entity where the
// schema types the field with tag URNs, are answered 400 and change nothing.
func TestPatchAndURNTypesRefused(t *testing.T) {
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			srv := startServer(t, db.args...)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", patchProposal(patchDataset, "globalTags", addTagOp("urn:li:tag:keep")))
			want := jsonString(readAspect(t, srv, patchDataset, "globalTags"))
			tag := map[string]any{"tag": "urn:li:tag:new"}
			for _, tt := range []struct {
				name string
				body map[string]any
			}{
				{"index past the end", patchProposal(patchDataset, "globalTags", map[string]any{"op": "add", "path": "/tags/999", "value": tag})},
				{"negative index", patchProposal(patchDataset, "globalTags", map[string]any{"op": "add", "path": "/tags/-5", "value": tag})},
				{"escape ~2", patchProposal(patchDataset, "globalTags", map[string]any{"op": "add", "path": "/tags/urn:li:tag:a~2b", "value": tag})},
				{"user as a tag by patch", patchProposal(patchDataset, "globalTags", addTagOp("urn:li:corpuser:datahub"))},
				{"user as a tag by upsert", map[string]any{"proposal": mcp("dataset", patchDataset, "globalTags",
					map[string]any{"tags": []any{map[string]any{"tag": "urn:li:corpuser:datahub"}}})}},
			} {
				status, body := srv.do(t, "POST", "/aspects?action=ingestProposal", tt.body)
				if status != 400 {
					t.Errorf("%s: status %d, want 400: %s", tt.name, status, body)
				}
				if got := jsonString(readAspect(t, srv, patchDataset, "globalTags")); got != want {
					t.Fatalf("%s: globalTags changed to %s, want %s", tt.name, got, want)
				}
			}
		})
	}
}

// TestPatchSequenceInBatch checks that a patch sees the proposals before it in
// the same request, and that /config announces PATCH support.
func TestPatchSequenceInBatch(t *testing.T) {
	srv := startServer(t)
	cfg := decode(t, srv.mustDo(t, 200, "GET", "/config", nil))
	if cfg["patchCapable"] != true {
		t.Errorf("/config patchCapable = %v, want true", cfg["patchCapable"])
	}
	up := map[string]any{"entityType": "dataset", "entityUrn": patchDataset, "changeType": "UPSERT", "aspectName": "globalTags",
		"aspect": map[string]any{"value": `{"tags":[{"tag":"urn:li:tag:a"}]}`, "contentType": "application/json"}}
	p1 := patchProposal(patchDataset, "globalTags", addTagOp("urn:li:tag:b"))["proposal"]
	p2 := patchProposal(patchDataset, "globalTags", map[string]any{"op": "remove", "path": "/tags/urn:li:tag:a"})["proposal"]
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{up, p1, p2}})
	tags, _ := readAspect(t, srv, patchDataset, "globalTags")["tags"].([]any)
	if len(tags) != 1 || tags[0].(map[string]any)["tag"] != "urn:li:tag:b" {
		t.Fatalf("tags = %v, want only urn:li:tag:b", tags)
	}
}

// TestReingestKeepsHumanEdits replays the sample data, has a person tag and
// describe a column of every sampled dataset with a schema, replays the
// samples again and checks that the edits survived the re-ingestion.
func TestReingestKeepsHumanEdits(t *testing.T) {
	srv := startServer(t)
	first := replaySamples(t, srv)
	type edit struct{ urn, field string }
	var edits []edit
	for urn, aspects := range first.sent {
		if _, ok := aspects["schemaMetadata"]; !ok || first.entity[urn] != "dataset" {
			continue
		}
		if _, ok := aspects["editableSchemaMetadata"]; ok {
			continue // the samples themselves overwrite this one
		}
		sm := readAspect(t, srv, urn, "schemaMetadata")
		fields, _ := sm["fields"].([]any)
		if len(fields) == 0 {
			continue
		}
		fp, _ := fields[0].(map[string]any)["fieldPath"].(string)
		seg := strings.NewReplacer("~", "~0", "/", "~1").Replace(fp)
		srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", patchProposal(urn, "editableSchemaMetadata",
			map[string]any{"op": "add", "path": "/editableSchemaFieldInfo/" + seg + "/globalTags/tags/urn:li:tag:human", "value": map[string]any{"tag": "urn:li:tag:human"}},
			map[string]any{"op": "add", "path": "/editableSchemaFieldInfo/" + seg + "/description", "value": "written by a person"}))
		edits = append(edits, edit{urn, fp})
	}
	if len(edits) == 0 {
		t.Fatal("no sample dataset with a schema")
	}
	second := replaySamples(t, srv)
	checkRoundTrip(t, srv, second)
	for _, e := range edits {
		esm := readAspect(t, srv, e.urn, "editableSchemaMetadata")
		infos, _ := esm["editableSchemaFieldInfo"].([]any)
		if len(infos) != 1 {
			t.Errorf("%s: editableSchemaFieldInfo = %v", e.urn, infos)
			continue
		}
		info := infos[0].(map[string]any)
		if info["fieldPath"] != e.field || info["description"] != "written by a person" {
			t.Errorf("%s: human edit lost: %v", e.urn, info)
		}
	}
	t.Logf("%d datasets edited and re-ingested", len(edits))
}
