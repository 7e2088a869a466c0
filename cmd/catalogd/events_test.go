package main

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// ece is the part of an EntityChangeEvent the tests compare.
type ece struct {
	EntityType string         `json:"entityType"`
	EntityURN  string         `json:"entityUrn"`
	Category   string         `json:"category"`
	Operation  string         `json:"operation"`
	Modifier   string         `json:"modifier"`
	Parameters map[string]any `json:"parameters"`
	AuditStamp struct {
		Actor string `json:"actor"`
		Time  int64  `json:"time"`
	} `json:"auditStamp"`
	Version *int `json:"version"`
}

// short is "CATEGORY OPERATION modifier" (or entity URN when there is no
// modifier), the form the tests list expected events in.
func (e ece) short() string {
	m := e.Modifier
	if m == "" {
		m = e.EntityURN
	}
	return e.Category + " " + e.Operation + " " + m
}

// pollEvents polls the stream once and decodes its events, checking each
// PlatformEvent's envelope.
func pollEvents(t testing.TB, srv *testServer, query string) (events []ece, offsetID string) {
	t.Helper()
	b := srv.mustDo(t, 200, "GET", "/openapi/v1/events/poll?topic=PlatformEvent_v1&"+query, nil)
	var resp struct {
		OffsetID string `json:"offsetId"`
		Count    int    `json:"count"`
		Events   []struct {
			ContentType string `json:"contentType"`
			Value       string `json:"value"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatalf("decode poll answer %s: %v", b, err)
	}
	if resp.Count != len(resp.Events) {
		t.Errorf("count %d, %d events", resp.Count, len(resp.Events))
	}
	for _, e := range resp.Events {
		var pe struct {
			Header struct {
				TimestampMillis int64 `json:"timestampMillis"`
			} `json:"header"`
			Name    string `json:"name"`
			Payload struct {
				Value       string `json:"value"`
				ContentType string `json:"contentType"`
			} `json:"payload"`
		}
		if err := json.Unmarshal([]byte(e.Value), &pe); err != nil {
			t.Fatalf("platform event %s: %v", e.Value, err)
		}
		if e.ContentType != "application/json" || pe.Name != "entityChangeEvent" || pe.Payload.ContentType != "application/json" {
			t.Errorf("platform event envelope: %s", e.Value)
		}
		var ev ece
		if err := json.Unmarshal([]byte(pe.Payload.Value), &ev); err != nil {
			t.Fatalf("entity change event %s: %v", pe.Payload.Value, err)
		}
		if ev.Version == nil || *ev.Version != 0 || ev.AuditStamp.Time != pe.Header.TimestampMillis || ev.AuditStamp.Actor == "" {
			t.Errorf("entity change event version, stamp or header: %s", e.Value)
		}
		if !strings.HasPrefix(ev.EntityURN, "urn:li:"+ev.EntityType+":") {
			t.Errorf("entityType %q does not match entityUrn %s", ev.EntityType, ev.EntityURN)
		}
		events = append(events, ev)
	}
	return events, resp.OffsetID
}

func shortEvents(evs []ece) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.short()
	}
	return out
}

func schemaOf(fields ...map[string]any) map[string]any {
	list := make([]any, len(fields))
	for i, f := range fields {
		list[i] = f
	}
	return map[string]any{
		"schemaName": "orders", "platform": "urn:li:dataPlatform:hive", "version": 0, "hash": "",
		"platformSchema": map[string]any{"com.linkedin.schema.MySqlDDL": map[string]any{"tableSchema": ""}},
		"fields":         list,
	}
}

func field(path, nativeType string) map[string]any {
	return map[string]any{"fieldPath": path, "nativeDataType": nativeType,
		"type": map[string]any{"type": map[string]any{"com.linkedin.schema.StringType": map[string]any{}}}}
}

// TestEventStream writes, changes and deletes metadata and reads the
// change events back through the poll endpoint: DataHub's categories,
// operations and modifiers, in commit order, each once, nothing for
// writes that change nothing or are refused.
func TestEventStream(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			// Without an offset the stream starts at its end.
			none, start := pollEvents(t, srv, "pollTimeoutSeconds=0")
			if len(none) != 0 {
				t.Fatalf("events before any write: %v", shortEvents(none))
			}
			u := hiveURN
			fieldURN := func(p string) string { return "urn:li:schemaField:(" + u + "," + p + ")" }
			steps := []struct {
				name  string
				props []map[string]any
				want  []string
			}{{
				name: "create",
				props: []map[string]any{
					proposal(u, "globalTags", map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:pii"}, map[string]any{"tag": "urn:li:tag:gold"}}}),
					proposal(u, "ownership", map[string]any{"owners": []any{map[string]any{"owner": "urn:li:corpuser:alice", "type": "DATAOWNER"}}}),
					proposal(u, "schemaMetadata", schemaOf(field("id", "int"), field("name", "string"))),
				},
				want: []string{
					"LIFECYCLE CREATE " + u,
					"TAG ADD urn:li:tag:gold", "TAG ADD urn:li:tag:pii",
					"OWNER ADD urn:li:corpuser:alice",
					"TECHNICAL_SCHEMA ADD " + fieldURN("id"), "TECHNICAL_SCHEMA ADD " + fieldURN("name"),
				},
			}, {
				name: "rewrite unchanged",
				props: []map[string]any{
					proposal(u, "globalTags", map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:pii"}, map[string]any{"tag": "urn:li:tag:gold"}}}),
				},
			}, {
				name: "change",
				props: []map[string]any{
					proposal(u, "globalTags", map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:pii"}}}),
					proposal(u, "ownership", map[string]any{"owners": []any{map[string]any{"owner": "urn:li:corpuser:bob", "type": "TECHNICAL_OWNER"}}}),
					proposal(u, "schemaMetadata", schemaOf(field("id", "bigint"), field("name", "string"), field("total", "decimal"))),
					proposal(u, "editableDatasetProperties", map[string]any{"description": "all orders"}),
					proposal(u, "status", map[string]any{"removed": true}),
				},
				want: []string{
					"TAG REMOVE urn:li:tag:gold",
					"OWNER REMOVE urn:li:corpuser:alice", "OWNER ADD urn:li:corpuser:bob",
					"TECHNICAL_SCHEMA MODIFY " + fieldURN("id"), "TECHNICAL_SCHEMA ADD " + fieldURN("total"),
					"DOCUMENTATION ADD " + u,
					"LIFECYCLE SOFT_DELETE " + u,
				},
			}}
			var all []string
			for _, step := range steps {
				srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": step.props})
				all = append(all, step.want...)
			}
			// A refused batch writes nothing, so it has no events.
			bad := proposal(u, "globalTags", map[string]any{"tags": "not a list"})
			if status, b := srv.do(t, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				proposal(u, "globalTags", map[string]any{"tags": []any{}}), bad}}); status != 400 {
				t.Fatalf("bad batch: %d %s", status, b)
			}
			// Deleting the entity is its hard deletion.
			srv.mustDo(t, 200, "POST", "/entities?action=delete", map[string]any{"urn": u})
			all = append(all, "LIFECYCLE HARD_DELETE "+u)

			got, next := pollEvents(t, srv, "offsetId="+url.QueryEscape(start)+"&limit=100")
			if !slices.Equal(shortEvents(got), all) {
				t.Fatalf("events:\n got  %q\n want %q", shortEvents(got), all)
			}
			byShort := map[string]ece{}
			for _, e := range got {
				byShort[e.short()] = e
			}
			checks := []struct {
				event string
				param string
				want  any
			}{
				{"TAG ADD urn:li:tag:pii", "tagUrn", "urn:li:tag:pii"},
				{"OWNER ADD urn:li:corpuser:bob", "ownerType", "TECHNICAL_OWNER"},
				{"TECHNICAL_SCHEMA MODIFY " + fieldURN("id"), "modificationCategory", "TYPE_CHANGE"},
				{"TECHNICAL_SCHEMA ADD " + fieldURN("total"), "fieldPath", "total"},
				{"TECHNICAL_SCHEMA ADD " + fieldURN("total"), "nullable", false},
				{"DOCUMENTATION ADD " + u, "description", "all orders"},
			}
			for _, c := range checks {
				if got := byShort[c.event].Parameters[c.param]; got != c.want {
					t.Errorf("%s: parameter %s = %v, want %v", c.event, c.param, got, c.want)
				}
			}
			if e := byShort["LIFECYCLE CREATE "+u]; e.EntityType != "dataset" || e.AuditStamp.Actor != "urn:li:corpuser:__datahub_system" {
				t.Errorf("creation event: %+v", e)
			}

			// Polling on from the offset returned finds nothing new.
			if more, _ := pollEvents(t, srv, "pollTimeoutSeconds=0&offsetId="+url.QueryEscape(next)); len(more) != 0 {
				t.Errorf("events after the last offset: %v", shortEvents(more))
			}
			// One event at a time gives the same sequence, offsets
			// pointing inside one write's events included.
			var one []string
			off := start
			for range len(all) + 1 {
				evs, nextOff := pollEvents(t, srv, "limit=1&pollTimeoutSeconds=0&offsetId="+url.QueryEscape(off))
				one = append(one, shortEvents(evs)...)
				off = nextOff
			}
			if !slices.Equal(one, all) {
				t.Errorf("events one at a time:\n got  %q\n want %q", one, all)
			}
			// The look-back window starts at the first event of the day.
			if back, _ := pollEvents(t, srv, "lookbackWindowDays=1&limit=1000&pollTimeoutSeconds=0"); len(back) < len(all) ||
				!slices.Equal(shortEvents(back[len(back)-len(all):]), all) {
				t.Errorf("look-back events end with %q, want %q", shortEvents(back), all)
			}
		})
	}
}

// TestEventStreamWaits checks that a poll with nothing to read waits and
// answers as soon as a write commits.
func TestEventStreamWaits(t *testing.T) {
	srv := startServer(t)
	_, start := pollEvents(t, srv, "pollTimeoutSeconds=0")
	done := make(chan []ece, 1)
	go func() {
		evs, _ := pollEvents(t, srv, "pollTimeoutSeconds=30&offsetId="+url.QueryEscape(start))
		done <- evs
	}()
	ingestProposal(t, srv, "dataset", hiveURN, "globalTags", `{"tags":[{"tag":"urn:li:tag:pii"}]}`)
	evs := <-done
	if got := shortEvents(evs); !slices.Equal(got, []string{"LIFECYCLE CREATE " + hiveURN, "TAG ADD urn:li:tag:pii"}) {
		t.Errorf("events of the waiting poll: %q", got)
	}
}

// TestEventStreamBadRequests checks the poll's answers to bad parameters.
func TestEventStreamBadRequests(t *testing.T) {
	srv := startServer(t)
	beyond := base64.StdEncoding.EncodeToString([]byte(`{"PlatformEvent_v1-0":99}`))
	tests := []struct{ query, want string }{
		{"", "topic is required"},
		{"topic=MetadataChangeLog_v1", "unsupported events topic"},
		{"topic=PlatformEvent_v1&offsetId=xyz", "malformed offsetId"},
		{"topic=PlatformEvent_v1&offsetId=" + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(`{"other-0":1}`))), "malformed offsetId"},
		{"topic=PlatformEvent_v1&offsetId=" + url.QueryEscape(beyond), "beyond the end"},
		{"topic=PlatformEvent_v1&limit=0", "limit must be"},
		{"topic=PlatformEvent_v1&pollTimeoutSeconds=x", "pollTimeoutSeconds must be"},
	}
	for _, tc := range tests {
		status, b := srv.do(t, "GET", "/openapi/v1/events/poll?"+tc.query, nil)
		if status != 400 || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %d %s, want 400 naming %q", tc.query, status, b, tc.want)
		}
	}
}

// TestEventStreamAssertionsAndBusinessAttributes checks the entity change
// events of an assertion run completing and of business attributes: their
// documentation, terms and tags, and their attachment to a schema field.
func TestEventStreamAssertionsAndBusinessAttributes(t *testing.T) {
	srv := startServer(t)
	_, start := pollEvents(t, srv, "pollTimeoutSeconds=0")
	const assertion = "urn:li:assertion:a1"
	const attr = "urn:li:businessAttribute:email"
	fieldURN := "urn:li:schemaField:(" + hiveURN + ",email)"
	run := func(status string) map[string]any {
		v := map[string]any{"timestampMillis": 1700000000000, "runId": "run-1", "asserteeUrn": hiveURN, "assertionUrn": assertion, "status": status}
		if status == "COMPLETE" {
			v["result"] = map[string]any{"type": "SUCCESS"}
		}
		return v
	}
	batch := func(props ...map[string]any) {
		t.Helper()
		srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": props})
	}
	batch(seed(assertion, "assertion", "assertionRunEvent", run("COMPLETE")))
	batch(seed(attr, "businessAttribute", "businessAttributeInfo", map[string]any{"fieldPath": "email", "name": "email", "description": "an address",
		"type": map[string]any{"type": map[string]any{"com.linkedin.schema.StringType": map[string]any{}}},
		"glossaryTerms": map[string]any{"terms": []any{map[string]any{"urn": "urn:li:glossaryTerm:pii"}},
			"auditStamp": map[string]any{"time": 1, "actor": "urn:li:corpuser:a"}}}))
	batch(seed(fieldURN, "schemaField", "businessAttributes", map[string]any{"businessAttribute": map[string]any{"businessAttributeUrn": attr}}))

	evs, _ := pollEvents(t, srv, "pollTimeoutSeconds=0&limit=100&offsetId="+url.QueryEscape(start))
	byShort := map[string]ece{}
	var got []string
	for _, e := range evs {
		if e.Category == "LIFECYCLE" {
			continue
		}
		got = append(got, e.short())
		byShort[e.short()] = e
	}
	want := []string{
		"RUN COMPLETED " + assertion,
		"DOCUMENTATION ADD email", "GLOSSARY_TERM ADD urn:li:glossaryTerm:pii",
		"BUSINESS_ATTRIBUTE ADD " + attr,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n got  %q\n want %q", got, want)
	}
	if p := byShort["RUN COMPLETED "+assertion].Parameters; jsonString(p) != `{"asserteeUrn":"`+hiveURN+`","assertionResult":"SUCCESS","runId":"run-1","runResult":"COMPLETE"}` {
		t.Errorf("assertion run parameters: %s", jsonString(p))
	}
	if e := byShort["BUSINESS_ATTRIBUTE ADD "+attr]; e.EntityURN != fieldURN || e.EntityType != "schemaField" || e.Parameters["datasetUrn"] != hiveURN {
		t.Errorf("business attribute event: %+v", e)
	}
}
