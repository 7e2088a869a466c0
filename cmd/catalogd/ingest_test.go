package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
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

// TestIngestServerKeepsFileOrder loads files that mix legacy snapshots and
// proposals for the same aspects with "catalogd ingest", into a running
// server (--server) and into a local store, and checks that every aspect
// ends as applying the records one at a time, in file order, leaves it: the
// loader batches, but never reorders.
func TestIngestServerKeepsFileOrder(t *testing.T) {
	ds := func(platform, name string) string {
		return "urn:li:dataset:(urn:li:dataPlatform:" + platform + "," + name + ",PROD)"
	}
	type orderFile struct {
		path string
		// want holds the final upstream of some datasets (and, under
		// "<urn> tag", the tag): what the file's last record for them says.
		want map[string]string
	}
	files := []orderFile{{filepath.Join("testdata", "ingest_mixed_forms.json"), map[string]string{
		ds("hive", "order_a"): ds("hive", "order_up3"), ds("hive", "order_b"): ds("hive", "order_up3"),
		ds("hive", "order_c"): ds("hive", "order_up2"), ds("hive", "order_c") + " tag": "urn:li:tag:last",
	}}}
	// DataHub's own dbt fixture for its UI tests: three BigQuery datasets get
	// their lineage from a proposal first and from a snapshot later.
	cypress := filepath.Join("..", "..", "..", "shared", "datahub-samples", "cypress_dbt_data.json")
	if _, err := os.Stat(cypress); err == nil {
		jaffle := "cypress_project.jaffle_shop."
		want := map[string]string{}
		for _, name := range []string{"stg_customers", "stg_orders", "stg_payments"} {
			want[ds("bigquery", jaffle+name)] = ds("dbt", jaffle+name)
		}
		files = append(files, orderFile{cypress, want})
	} else {
		t.Logf("%s not found: only the synthetic file is checked", cypress)
	}
	reg := registry.Default()
	for _, f := range files {
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			// Loaded into a running server, and into a local store a server
			// then serves.
			remote, localDir := startServer(t), t.TempDir()
			for _, args := range [][]string{{"--server", remote.URL}, {"--data-dir", localDir}} {
				stdout, stderr, err := runCLI(t, append(append([]string{"ingest", "--quiet"}, args...), f.path)...)
				if err != nil {
					t.Fatalf("ingest %v: %v\n%s\n%s", args, err, stdout, stderr)
				}
			}
			loaded := map[string]*testServer{"--server": remote, "--data-dir": startServer(t, "--data-dir", localDir)}
			oneByOne := startServer(t)
			recs, err := readRecords(f.path)
			if err != nil {
				t.Fatal(err)
			}
			one := &remoteSink{reg: reg, base: oneByOne.URL, client: &http.Client{Timeout: time.Minute}}
			type target struct{ urn, aspect string }
			var targets []target
			for _, r := range recs {
				if _, err := one.write(context.Background(), []record{r}); err != nil {
					t.Fatalf("%s: %v", r, err)
				}
				props, err := ingest.DecodeRecord(reg, r.raw)
				if err != nil {
					t.Fatalf("%s: %v", r, err)
				}
				for _, p := range props {
					if reg.Aspect(p.AspectName).Timeseries {
						continue // values accumulate; there is no last one
					}
					if tg := (target{p.EntityURN, p.AspectName}); !slices.Contains(targets, tg) {
						targets = append(targets, tg)
					}
				}
			}
			for mode, srv := range loaded {
				for _, tg := range targets {
					path := "/aspects/" + pathEscape(tg.urn) + "?aspect=" + tg.aspect + "&version=0"
					got, want := jsonString(decode(t, srv.mustDo(t, 200, "GET", path, nil))["aspect"]), jsonString(decode(t, oneByOne.mustDo(t, 200, "GET", path, nil))["aspect"])
					if got != want {
						t.Errorf("ingest %s: %s of %s:\n  %s\nwant, as the records one by one give:\n  %s", mode, tg.aspect, tg.urn, got, want)
					}
				}
				for key, want := range f.want {
					urn, tag := strings.CutSuffix(key, " tag")
					aspect, field, member := "upstreamLineage", "upstreams", "dataset"
					if tag {
						aspect, field, member = "globalTags", "tags", "tag"
					}
					v := readAspect(t, srv, urn, aspect)
					items, _ := v[field].([]any)
					if len(items) != 1 || items[0].(map[string]any)[member] != want {
						t.Errorf("ingest %s: %s of %s = %s, want only %s, as the file's last record for it says", mode, aspect, urn, jsonString(v), want)
					}
				}
			}
		})
	}
}
