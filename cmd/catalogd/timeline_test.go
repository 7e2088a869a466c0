package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

type changeTransaction struct {
	Timestamp    int64  `json:"timestamp"`
	Actor        string `json:"actor"`
	SemVer       string `json:"semVer"`
	SemVerChange string `json:"semVerChange"`
	ChangeEvents []struct {
		EntityURN    string         `json:"entityUrn"`
		Category     string         `json:"category"`
		Operation    string         `json:"operation"`
		Modifier     string         `json:"modifier"`
		Parameters   map[string]any `json:"parameters"`
		SemVerChange string         `json:"semVerChange"`
		Description  string         `json:"description"`
	} `json:"changeEvents"`
	RawDiff      []map[string]any `json:"rawDiff"`
	VersionStamp string           `json:"versionStamp"`
}

func getTimeline(t *testing.T, srv *testServer, urn, query string) []changeTransaction {
	t.Helper()
	var txs []changeTransaction
	b := srv.mustDo(t, 200, "GET", "/openapi/v2/timeline/v1/"+pathEscape(urn)+"?"+query, nil)
	if err := json.Unmarshal(b, &txs); err != nil {
		t.Fatalf("decode timeline %s: %v", b, err)
	}
	return txs
}

// summary is "semVer semVerChange: OPERATION what, ..." per transaction,
// what being the field path, else the modifier, else the entity URN: the
// form the test lists expected timelines in.
func summary(txs []changeTransaction) []string {
	var out []string
	for _, tx := range txs {
		var evs []string
		for _, e := range tx.ChangeEvents {
			what := e.Modifier
			if p, ok := e.Parameters["fieldPath"].(string); ok {
				what = p
			} else if what == "" {
				what = e.EntityURN
			}
			evs = append(evs, e.Operation+" "+what)
		}
		out = append(out, tx.SemVer+" "+tx.SemVerChange+": "+strings.Join(evs, ", "))
	}
	return out
}

// TestTimeline changes a dataset's schema three times, and its tags and
// documentation, and reads its timeline: each change, with DataHub's
// categories, operations and semantic versions, computed from the stored
// aspect versions.
func TestTimeline(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			u := hiveURN
			described := func(f map[string]any, d string) map[string]any { f["description"] = d; return f }
			writes := []map[string]any{
				proposal(u, "schemaMetadata", schemaOf(field("id", "int"), described(field("name", "string"), "the name"))),
				proposal(u, "globalTags", map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:pii"}}}),
				// The type of id changes, name is renamed to full_name.
				proposal(u, "schemaMetadata", schemaOf(field("id", "bigint"), described(field("full_name", "string"), "the name"))),
				proposal(u, "editableDatasetProperties", map[string]any{"description": "all orders"}),
				// A field is added and one removed.
				proposal(u, "schemaMetadata", schemaOf(field("full_name", "string"), field("total", "decimal"))),
			}
			var stamps []int64
			for _, w := range writes {
				before := time.Now().UnixMilli()
				srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": w})
				stamps = append(stamps, before)
				// Transactions are told apart by their millisecond.
				time.Sleep(3 * time.Millisecond)
			}

			txs := getTimeline(t, srv, u, "categories=TECHNICAL_SCHEMA")
			// name is renamed (same type and description), id retyped; then
			// id is removed (total has another type) and total added.
			want := []string{
				"0.0.0-computed MINOR: ADD id, ADD name",
				"1.0.0-computed MAJOR: MODIFY name, MODIFY id",
				"2.0.0-computed MAJOR: REMOVE id, ADD total",
			}
			if got := summary(txs); !slices.Equal(got, want) {
				t.Fatalf("TECHNICAL_SCHEMA timeline:\n got  %q\n want %q", got, want)
			}
			tx := txs[1]
			if e := tx.ChangeEvents[0]; e.Parameters["modificationCategory"] != "RENAME" || e.SemVerChange != "MINOR" ||
				e.Description != "A forwards & backwards compatible change due to renaming of the field 'name to full_name'." {
				t.Errorf("rename event: %+v", e)
			}
			if e := tx.ChangeEvents[1]; e.Parameters["modificationCategory"] != "TYPE_CHANGE" || e.SemVerChange != "MAJOR" ||
				e.Modifier != "urn:li:schemaField:("+u+",id)" || e.EntityURN != u {
				t.Errorf("type change event: %+v", e)
			}
			for i, tx := range txs {
				if tx.Actor != "urn:li:corpuser:__datahub_system" || tx.Timestamp < stamps[2*i] || tx.RawDiff != nil {
					t.Errorf("transaction %d: actor %s, timestamp %d (written after %d), rawDiff %v", i, tx.Actor, tx.Timestamp, stamps[2*i], tx.RawDiff)
				}
			}
			// The version of every aspect at the time of each transaction.
			if got := txs[0].VersionStamp; got != "browsePaths:0;dataPlatformInstance:0;datasetKey:0;schemaMetadata:1" {
				t.Errorf("first versionStamp %q", got)
			}
			if got := txs[2].VersionStamp; got != "browsePaths:0;dataPlatformInstance:0;datasetKey:0;editableDatasetProperties:0;globalTags:0;schemaMetadata:0" {
				t.Errorf("last versionStamp %q", got)
			}

			// Several categories, field-level documentation included.
			// The second schema change renames a field with its
			// description: no documentation change, and no version.
			got := summary(getTimeline(t, srv, u, "categories=TAG&categories=DOCUMENTATION"))
			fieldURN := func(p string) string { return "urn:li:schemaField:(" + u + "," + p + ")" }
			want = []string{
				"0.0.0-computed MINOR: ADD " + fieldURN("name"),
				"0.1.0-computed MINOR: ADD urn:li:tag:pii",
				"0.2.0-computed MINOR: ADD " + u,
				"0.3.0-computed MINOR: REMOVE " + fieldURN("full_name"),
			}
			if !slices.Equal(got, want) {
				t.Errorf("TAG and DOCUMENTATION timeline:\n got  %q\n want %q", got, want)
			}

			// A window holding the last change alone diffs it against the
			// version before; raw adds the JSON Patch.
			last := getTimeline(t, srv, u, fmt.Sprintf("categories=TECHNICAL_SCHEMA&raw=true&startTime=%d", stamps[4]))
			if got := summary(last); len(got) != 1 || !strings.HasSuffix(got[0], "MAJOR: REMOVE id, ADD total") {
				t.Errorf("windowed timeline %q", got)
			}
			if len(last) == 1 && !slices.ContainsFunc(last[0].RawDiff, func(op map[string]any) bool {
				return op["op"] == "replace" && op["path"] == "/fields/0/fieldPath" && op["value"] == "full_name"
			}) {
				t.Errorf("rawDiff %v lacks the replaced first field path", last[0].RawDiff)
			}
			if got := getTimeline(t, srv, u, fmt.Sprintf("categories=TECHNICAL_SCHEMA&endTime=%d", stamps[0]-1)); len(got) != 0 {
				t.Errorf("timeline before the first write: %q", summary(got))
			}
		})
	}
}

// TestTimelineBadRequests checks the timeline's answers to bad requests.
func TestTimelineBadRequests(t *testing.T) {
	srv := startServer(t)
	tests := []struct{ path, want string }{
		{"/openapi/v2/timeline/v1/" + pathEscape(hiveURN), "categories is required"},
		{"/openapi/v2/timeline/v1/" + pathEscape(hiveURN) + "?categories=SCHEMA", "unknown change category"},
		{"/openapi/v2/timeline/v1/" + pathEscape(hiveURN) + "?categories=TAG&startTime=yesterday", "startTime must be an integer"},
		{"/openapi/v2/timeline/v1/" + pathEscape("urn:li:chart:(looker,c1)") + "?categories=TAG", "entity type chart has no timeline"},
		{"/openapi/v2/timeline/v1/not-a-urn?categories=TAG", "malformed URN"},
	}
	for _, tc := range tests {
		status, b := srv.do(t, "GET", tc.path, nil)
		if status != 400 || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %d %s, want 400 naming %q", tc.path, status, b, tc.want)
		}
	}
}
