package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// runCLI runs the real program with args and returns its stdout, stderr and error.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"catalogd"}, args...), func(string) string { return "" }, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func TestIngestCommand(t *testing.T) {
	dir := samplesDir(t)
	files := []string{
		filepath.Join(dir, "bootstrap_mce.json"),
		filepath.Join(dir, "demo_data.json"),
		filepath.Join(dir, "golden", "glossary_events_golden.json"),
	}
	const sampleHive = "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"

	t.Run("local", func(t *testing.T) {
		data := t.TempDir()
		stdout, stderr, err := runCLI(t, append([]string{"ingest", "--data-dir", data}, files...)...)
		if err != nil {
			t.Fatalf("ingest: %v\n%s\n%s", err, stdout, stderr)
		}
		if !strings.Contains(stdout, "ingested 347 records") || !strings.Contains(stdout, "0 failures") {
			t.Errorf("summary: %s", stdout)
		}
		if !strings.Contains(stderr, "347/347 records") {
			t.Errorf("no progress bar on stderr: %q", stderr)
		}
		// A server on the same data dir serves what was loaded.
		srv := startServer(t, "--data-dir", data)
		b := srv.mustDo(t, 200, "GET", "/aspects/"+pathEscape(sampleHive)+"?aspect=schemaMetadata", nil)
		if !strings.Contains(string(b), "SampleHiveSchema") {
			t.Errorf("schemaMetadata not loaded: %s", b)
		}
		// The load went through the server's write path: indexed...
		if got := srv.search(t, map[string]any{"entity": "dataset", "input": "SampleHiveDataset"}); !slices.Contains(got.Metadata.URNs, sampleHive) {
			t.Errorf("search after a local load: %v, want %s", got.Metadata.URNs, sampleHive)
		}
		// ...and audited, as the system actor, naming the command.
		var page auditPage
		if err := json.Unmarshal(srv.mustDo(t, 200, "POST", "/openapi/v1/events/audit/search?size=1000", map[string]any{"aspectTypes": []string{"schemaMetadata"}}), &page); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range page.UsageEvents {
			if e.EntityURN == sampleHive && e.EventType == "UpdateAspectEvent" && e.ActorURN == catalog.SystemActor && e.UserAgent == "catalogd ingest" {
				found = true
			}
		}
		if !found {
			t.Errorf("no audit event of the local load for %s: %+v", sampleHive, page.UsageEvents)
		}
	})

	t.Run("server", func(t *testing.T) {
		srv := startServer(t)
		stdout, stderr, err := runCLI(t, append([]string{"ingest", "--quiet", "--server", srv.URL}, files...)...)
		if err != nil {
			t.Fatalf("ingest: %v\n%s\n%s", err, stdout, stderr)
		}
		if !strings.Contains(stdout, "0 failures") {
			t.Errorf("summary: %s", stdout)
		}
		b := srv.mustDo(t, 200, "GET", "/aspects/"+pathEscape("urn:li:glossaryNode:Classification")+"?aspect=glossaryNodeInfo", nil)
		if !strings.Contains(string(b), "definition") {
			t.Errorf("glossary node not loaded: %s", b)
		}
	})

	t.Run("failures are reported with reasons", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.json")
		content := `[
 {"entityType":"dataset","entityUrn":"urn:li:dataset:(urn:li:dataPlatform:hive,ok,PROD)","changeType":"UPSERT","aspectName":"status","aspect":{"json":{"removed":false}}},
 {"entityType":"dataset","entityUrn":"urn:li:dataset:(urn:li:dataPlatform:hive,bad,PROD)","changeType":"UPSERT","aspectName":"status","aspect":{"json":{"removed":"no"}}}
]`
		if err := os.WriteFile(bad, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mode := range [][]string{{"--data-dir", t.TempDir()}, {"--server", startServer(t).URL}} {
			stdout, _, err := runCLI(t, append(append([]string{"ingest", "--quiet"}, mode...), bad)...)
			if err == nil || !strings.Contains(err.Error(), "1 of 2 records failed") {
				t.Errorf("%v: error %v, want 1 of 2 records failed", mode, err)
			}
			if !strings.Contains(stdout, "bad.json record 1") || !strings.Contains(stdout, "/removed") || !strings.Contains(stdout, "1 failures") {
				t.Errorf("%v: failure not reported with its reason:\n%s", mode, stdout)
			}
		}
	})
}
