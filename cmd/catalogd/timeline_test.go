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

// writeSchemaHistory changes the schema of dataset u three times, with a
// tag and a description between the changes, and returns the time before
// each of the five writes.
func writeSchemaHistory(t *testing.T, srv *testServer, u string) []int64 {
	t.Helper()
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
	return stamps
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
			stamps := writeSchemaHistory(t, srv, u)

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

// uiOperation returns the operation of DataHub's web UI named name, as the
// UI sends it.
func uiOperation(t *testing.T, name string) string {
	t.Helper()
	return loadUIDocs(t).text(t, name)
}

// TestTimelineGraphQL runs the UI's getTimeline, getSchemaVersionList and
// getSchemaBlame, exactly as the UI sends them, on a dataset whose schema
// changed three times.
func TestTimelineGraphQL(t *testing.T) {
	timelineOp := uiOperation(t, "getTimeline")
	versionsOp := uiOperation(t, "getSchemaVersionList")
	blameOp := uiOperation(t, "getSchemaBlame")
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			u := hiveURN
			stamps := writeSchemaHistory(t, srv, u)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(u, "ownership",
				map[string]any{"owners": []any{map[string]any{"owner": "urn:li:corpuser:jdoe", "type": "DATAOWNER"}}})})

			// The schema's changes, oldest first.
			type timelineResult struct {
				GetTimeline struct {
					ChangeTransactions []struct {
						TimestampMillis     int64
						LastSemanticVersion string
						VersionStamp        string
						ChangeType          string
						Changes             []struct {
							URN        string
							Category   string
							Operation  string
							Modifier   string
							Parameters []struct{ Key, Value string }
							AuditStamp struct {
								Actor string
								Time  int64
							}
							Description string
						}
					}
				}
			}
			var tl, owners, all timelineResult
			decodeData(t, srv.gqlData(t, timelineOp, map[string]any{"input": map[string]any{"urn": u, "changeCategories": []string{"TECHNICAL_SCHEMA"}}}), &tl)
			var got []string
			for _, tx := range tl.GetTimeline.ChangeTransactions {
				var evs []string
				for _, e := range tx.Changes {
					evs = append(evs, e.Category+" "+e.Operation+" "+e.Modifier)
					if e.URN != u || e.AuditStamp.Actor != "urn:li:corpuser:__datahub_system" || e.AuditStamp.Time != tx.TimestampMillis || e.Description == "" {
						t.Errorf("change %+v of transaction at %d: want the dataset, the writer, the transaction's time and a description", e, tx.TimestampMillis)
					}
				}
				got = append(got, tx.LastSemanticVersion+" "+tx.ChangeType+": "+strings.Join(evs, ", "))
			}
			fieldURN := func(p string) string { return "urn:li:schemaField:(" + u + "," + p + ")" }
			want := []string{
				"0.0.0-computed MODIFY: TECHNICAL_SCHEMA ADD " + fieldURN("id") + ", TECHNICAL_SCHEMA ADD " + fieldURN("name"),
				"1.0.0-computed MODIFY: TECHNICAL_SCHEMA MODIFY " + fieldURN("name") + ", TECHNICAL_SCHEMA MODIFY " + fieldURN("id"),
				"2.0.0-computed MODIFY: TECHNICAL_SCHEMA REMOVE " + fieldURN("id") + ", TECHNICAL_SCHEMA ADD " + fieldURN("total"),
			}
			if !slices.Equal(got, want) {
				t.Fatalf("getTimeline TECHNICAL_SCHEMA:\n got  %q\n want %q", got, want)
			}
			txs := tl.GetTimeline.ChangeTransactions
			if p := txs[1].Changes[0].Parameters; !slices.Contains(p, struct{ Key, Value string }{"modificationCategory", "RENAME"}) ||
				!slices.Contains(p, struct{ Key, Value string }{"nullable", "false"}) {
				t.Errorf("rename parameters %v: want modificationCategory RENAME and nullable false as text", p)
			}
			for i, tx := range txs {
				if tx.TimestampMillis < stamps[2*i] || !strings.Contains(tx.VersionStamp, "schemaMetadata:") {
					t.Errorf("transaction %d: time %d (written after %d), versionStamp %q", i, tx.TimestampMillis, stamps[2*i], tx.VersionStamp)
				}
			}

			// GraphQL names the owner category OWNERSHIP; no categories
			// means all of them.
			decodeData(t, srv.gqlData(t, timelineOp, map[string]any{"input": map[string]any{"urn": u, "changeCategories": []string{"OWNERSHIP"}}}), &owners)
			if c := owners.GetTimeline.ChangeTransactions; len(c) != 1 || len(c[0].Changes) != 1 || c[0].Changes[0].Category != "OWNERSHIP" ||
				c[0].Changes[0].Operation != "ADD" || c[0].Changes[0].Modifier != "urn:li:corpuser:jdoe" {
				t.Errorf("getTimeline OWNERSHIP: %+v", c)
			}
			decodeData(t, srv.gqlData(t, timelineOp, map[string]any{"input": map[string]any{"urn": u}}), &all)
			cats := map[string]bool{}
			for _, tx := range all.GetTimeline.ChangeTransactions {
				for _, e := range tx.Changes {
					cats[e.Category] = true
				}
			}
			if len(cats) != 4 || !cats["TECHNICAL_SCHEMA"] || !cats["TAG"] || !cats["DOCUMENTATION"] || !cats["OWNERSHIP"] {
				t.Errorf("getTimeline of every category shows categories %v, want TECHNICAL_SCHEMA, TAG, DOCUMENTATION, OWNERSHIP", cats)
			}

			// The schema's versions, newest first.
			type version struct {
				SemanticVersion          string
				SemanticVersionTimestamp int64
				VersionStamp             string
			}
			var vl struct {
				GetSchemaVersionList struct {
					LatestVersion       version
					SemanticVersionList []version
				}
			}
			decodeData(t, srv.gqlData(t, versionsOp, map[string]any{"input": map[string]any{"datasetUrn": u}}), &vl)
			wantVersions := []version{
				{"2.0.0", txs[2].TimestampMillis, txs[2].VersionStamp},
				{"1.0.0", txs[1].TimestampMillis, txs[1].VersionStamp},
				{"0.0.0", txs[0].TimestampMillis, txs[0].VersionStamp},
			}
			if l := vl.GetSchemaVersionList; l.LatestVersion != wantVersions[0] || !slices.Equal(l.SemanticVersionList, wantVersions) {
				t.Errorf("getSchemaVersionList: %+v\n want latest %+v, list %+v", l, wantVersions[0], wantVersions)
			}

			// The schema tab shows a version picked from the list by its
			// stamp: the fields the dataset had then.
			versionedOp := uiOperation(t, "getVersionedDataset")
			for _, tc := range []struct {
				stamp string
				want  []string
			}{
				{wantVersions[0].VersionStamp, []string{"full_name", "total"}},
				{wantVersions[2].VersionStamp, []string{"id", "name"}},
				{"", []string{"full_name", "total"}},
			} {
				var vd struct {
					VersionedDataset *struct {
						Schema struct {
							Fields []struct{ FieldPath, NativeDataType string }
						}
					}
				}
				decodeData(t, srv.gqlData(t, versionedOp, map[string]any{"urn": u, "versionStamp": tc.stamp}), &vd)
				var got []string
				if vd.VersionedDataset != nil {
					for _, f := range vd.VersionedDataset.Schema.Fields {
						got = append(got, f.FieldPath)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, tc.want) {
					t.Errorf("getVersionedDataset at %q: fields %q, want %q", tc.stamp, got, tc.want)
				}
			}
			if r := srv.gql(t, versionedOp, map[string]any{"urn": u, "versionStamp": "schemaMetadata"}); len(r.Errors) == 0 || !strings.Contains(fmt.Sprint(r.Errors), "not aspect:version") {
				t.Errorf("getVersionedDataset with a malformed stamp: %v, want an error naming it", r.Errors)
			}

			// The last change of each field as of a version; removed fields
			// are left out, a rename is blamed on the field's old path.
			blame := func(v any) []string {
				t.Helper()
				var b struct {
					GetSchemaBlame struct {
						Version              *version
						SchemaFieldBlameList []struct {
							FieldPath         string
							SchemaFieldChange struct {
								TimestampMillis       int64
								LastSemanticVersion   string
								LastSchemaFieldChange string
								VersionStamp          string
							}
						}
					}
				}
				decodeData(t, srv.gqlData(t, blameOp, map[string]any{"input": map[string]any{"datasetUrn": u, "version": v}}), &b)
				if b.GetSchemaBlame.Version == nil {
					return nil
				}
				out := []string{"at " + b.GetSchemaBlame.Version.SemanticVersion}
				for _, f := range b.GetSchemaBlame.SchemaFieldBlameList {
					c := f.SchemaFieldChange
					out = append(out, f.FieldPath+": "+c.LastSchemaFieldChange)
					i := slices.IndexFunc(wantVersions, func(w version) bool { return w.SemanticVersion == c.LastSemanticVersion })
					if i < 0 || c.TimestampMillis != wantVersions[i].SemanticVersionTimestamp || c.VersionStamp != wantVersions[i].VersionStamp {
						t.Errorf("blame of %s: %+v does not name its version's transaction", f.FieldPath, c)
					}
				}
				return out
			}
			for _, tc := range []struct {
				version any
				want    []string
			}{
				{nil, []string{"at 2.0.0", "name: Modified in v1.0.0", "total: Added in v2.0.0"}},
				{"1.0.0", []string{"at 1.0.0", "id: Modified in v1.0.0", "name: Modified in v1.0.0"}},
				{"0.9.3", []string{"at 0.0.0", "id: Added in v0.0.0", "name: Added in v0.0.0"}},
			} {
				if got := blame(tc.version); !slices.Equal(got, tc.want) {
					t.Errorf("getSchemaBlame version %v:\n got  %q\n want %q", tc.version, got, tc.want)
				}
			}

			// A dataset without a schema history has no versions.
			other := "urn:li:dataset:(urn:li:dataPlatform:hive,no_schema,PROD)"
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(other, "status", map[string]any{"removed": false})})
			if d := srv.gqlData(t, versionsOp, map[string]any{"input": map[string]any{"datasetUrn": other}}); d["getSchemaVersionList"] != nil {
				t.Errorf("getSchemaVersionList of a dataset without schema: %v, want null", d)
			}
			if r := srv.gql(t, blameOp, map[string]any{"input": map[string]any{"datasetUrn": u, "version": "latest"}}); len(r.Errors) == 0 {
				t.Errorf("getSchemaBlame of version \"latest\" answered %v, want an error", r.Data)
			}
		})
	}
}

// decodeData decodes GraphQL response data into v.
func decodeData(t *testing.T, data map[string]any, v any) {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}
