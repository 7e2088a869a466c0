package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// auditEvent is one UsageEventResult as the tests read it.
type auditEvent struct {
	EventType        string         `json:"eventType"`
	Timestamp        int64          `json:"timestamp"`
	ActorURN         string         `json:"actorUrn"`
	SourceIP         string         `json:"sourceIP"`
	EventSource      string         `json:"eventSource"`
	UserAgent        string         `json:"userAgent"`
	TelemetryTraceID string         `json:"telemetryTraceId"`
	EntityURN        string         `json:"entityUrn"`
	EntityType       string         `json:"entityType"`
	AspectName       string         `json:"aspectName"`
	LoginSource      string         `json:"loginSource"`
	Raw              map[string]any `json:"rawUsageEvent"`
}

type auditPage struct {
	NextScrollID *string      `json:"nextScrollId"`
	Count        int          `json:"count"`
	Total        int          `json:"total"`
	UsageEvents  []auditEvent `json:"usageEvents"`
}

// auditSearch runs one audit search as the admin.
func (s *authServer) auditSearch(t testing.TB, query url.Values, filter map[string]any) auditPage {
	t.Helper()
	if filter == nil {
		filter = map[string]any{}
	}
	st, b := s.call(t, bearer(s.admin), "POST", "/openapi/v1/events/audit/search?"+query.Encode(), filter)
	if st != 200 {
		t.Fatalf("audit search %v %v: %d %s", query, filter, st, b)
	}
	var p auditPage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if p.Count != len(p.UsageEvents) {
		t.Fatalf("count %d for %d events", p.Count, len(p.UsageEvents))
	}
	return p
}

// traceOf is the trace id of a traceparent header.
func traceOf(t testing.TB, tp string) string {
	t.Helper()
	parts := strings.Split(tp, "-")
	if len(parts) != 4 || len(parts[1]) != 32 {
		t.Fatalf("bad traceparent %q", tp)
	}
	return parts[1]
}

// TestAuditEventTypes performs, for every event type, the operation that
// should produce it, and finds the event by its type and the trace id the
// response carried, with the request's metadata.
func TestAuditEventTypes(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) { testAuditEventTypes(t, st.args) })
	}
}

func testAuditEventTypes(t *testing.T, storeArgs []string) {
	s := startAuthServer(t, storeArgs...)
	admin := bearer(s.admin)
	const user = "urn:li:corpuser:audited"
	const policy = "urn:li:dataHubPolicy:audit-test"
	const source = "urn:li:dataHubIngestionSource:audit-test"
	ds := "urn:li:dataset:(urn:li:dataPlatform:hive,audit.one,PROD)"
	policyInfo := map[string]any{"displayName": "p", "description": "d", "type": "METADATA", "state": "ACTIVE",
		"privileges": []string{"VIEW_ENTITY_PAGE"}, "actors": map[string]any{"users": []string{user}}}
	sourceInfo := map[string]any{"name": "s", "type": "mysql", "config": map[string]any{"recipe": "{}"}}
	ingestOne := func(p map[string]any) func() (int, []byte, string) {
		return func() (int, []byte, string) {
			st, b, h := s.callH(t, admin, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": p})
			return st, b, h.Get("traceparent")
		}
	}
	var tokenID string
	steps := []struct {
		name    string
		do      func() (int, []byte, string)
		want    []string // event types the operation produces
		source  string
		entity  string
		aspects map[string]string // event type → aspect name
	}{
		{"create user", ingestOne(mcp("corpuser", user, "corpUserInfo", map[string]any{"active": true, "displayName": "A"})),
			[]string{"CreateUserEvent", "UpdateUserEvent"}, "RESTLI", user, map[string]string{"CreateUserEvent": "corpUserKey", "UpdateUserEvent": "corpUserInfo"}},
		{"update aspect", ingestOne(mcp("dataset", ds, "status", map[string]any{"removed": false})),
			[]string{"UpdateAspectEvent"}, "RESTLI", ds, map[string]string{"UpdateAspectEvent": "status"}},
		{"update aspect over openapi", func() (int, []byte, string) {
			st, b, h := s.callH(t, admin, "POST", "/openapi/v3/entity/dataset?async=false",
				[]any{map[string]any{"urn": ds, "status": map[string]any{"value": map[string]any{"removed": true}}}})
			return st, b, h.Get("traceparent")
		}, []string{"UpdateAspectEvent"}, "OPENAPI", ds, map[string]string{"UpdateAspectEvent": "status"}},
		{"create policy", ingestOne(map[string]any{"entityType": "dataHubPolicy", "entityUrn": policy, "changeType": "UPSERT",
			"aspectName": "dataHubPolicyInfo", "aspect": map[string]any{"value": jsonString(policyInfo), "contentType": "application/json"}}),
			[]string{"CreatePolicyEvent", "UpdatePolicyEvent"}, "RESTLI", policy, nil},
		{"delete policy", ingestOne(map[string]any{"entityType": "dataHubPolicy", "entityUrn": policy, "changeType": "DELETE", "aspectName": "dataHubPolicyKey"}),
			[]string{"DeletePolicyEvent"}, "RESTLI", policy, nil},
		{"create ingestion source", ingestOne(map[string]any{"entityType": "dataHubIngestionSource", "entityUrn": source, "changeType": "UPSERT",
			"aspectName": "dataHubIngestionSourceInfo", "aspect": map[string]any{"value": jsonString(sourceInfo), "contentType": "application/json"}}),
			[]string{"CreateIngestionSourceEvent", "UpdateIngestionSourceEvent"}, "RESTLI", source, nil},
		{"create access token", func() (int, []byte, string) {
			_, tokenID = s.cliToken(t, "audited")
			return 200, nil, ""
		}, []string{"CreateAccessTokenEvent"}, "", "", nil},
		{"revoke access token", func() (int, []byte, string) {
			return ingestOne(map[string]any{"entityType": "dataHubAccessToken", "entityUrn": "urn:li:dataHubAccessToken:" + tokenID,
				"changeType": "DELETE", "aspectName": "dataHubAccessTokenKey"})()
		}, []string{"RevokeAccessTokenEvent"}, "RESTLI", "", nil},
		{"delete entity", func() (int, []byte, string) {
			st, b, h := s.callH(t, admin, "POST", "/entities?action=delete", map[string]any{"urn": ds})
			return st, b, h.Get("traceparent")
		}, []string{"DeleteEntityEvent"}, "RESTLI", ds, map[string]string{"DeleteEntityEvent": "datasetKey"}},
		{"restore indices", func() (int, []byte, string) {
			st, b, h := s.callH(t, admin, "POST", "/operations?action=restoreIndices", map[string]any{"urn": user})
			return st, b, h.Get("traceparent")
		}, []string{"EntityEvent"}, "RESTLI", user, nil},
		{"log in", func() (int, []byte, string) {
			st, b, h := s.callH(t, "", "POST", "/logIn", map[string]any{"username": "datahub", "password": testRootPassword})
			return st, b, h.Get("traceparent")
		}, []string{"LogInEvent"}, "RESTLI", "urn:li:corpuser:datahub", nil},
		{"failed log in", func() (int, []byte, string) {
			st, b, h := s.callH(t, "", "POST", "/logIn", map[string]any{"username": "datahub", "password": "wrong-password"})
			if st == 401 {
				st = 200
			}
			return st, b, h.Get("traceparent")
		}, []string{"FailedLogInEvent"}, "RESTLI", "urn:li:corpuser:datahub", nil},
	}
	seen := map[string]bool{}
	for _, step := range steps {
		st, b, tp := step.do()
		if st != 200 {
			t.Fatalf("%s: %d %s", step.name, st, b)
		}
		for _, typ := range step.want {
			seen[typ] = true
			p := s.auditSearch(t, url.Values{"size": {"50"}}, map[string]any{"eventTypes": []string{typ}})
			var found *auditEvent
			for i, e := range p.UsageEvents {
				if a := step.aspects[typ]; a != "" && e.AspectName != a {
					continue
				}
				if tp == "" && (step.entity == "" || e.EntityURN == step.entity) || tp != "" && e.TelemetryTraceID == traceOf(t, tp) {
					found = &p.UsageEvents[i]
					break
				}
			}
			if found == nil {
				t.Errorf("%s: no %s event with the request's trace id in %+v\n%s", step.name, typ, p.UsageEvents, s.stderr.String())
				continue
			}
			if step.entity != "" && found.EntityURN != step.entity {
				t.Errorf("%s: %s entityUrn %q, want %q", step.name, typ, found.EntityURN, step.entity)
			}
			if a := step.aspects[typ]; a != "" && found.AspectName != a {
				t.Errorf("%s: %s aspectName %q, want %q", step.name, typ, found.AspectName, a)
			}
			if tp != "" {
				if found.EventSource != step.source || found.SourceIP != "127.0.0.1" || found.UserAgent != "catalogd-test/1.0" {
					t.Errorf("%s: %s request metadata %+v", step.name, typ, found)
				}
				if !strings.HasPrefix(typ, "LogIn") && !strings.HasPrefix(typ, "FailedLogIn") && found.ActorURN != "urn:li:corpuser:datahub" {
					t.Errorf("%s: %s actor %q", step.name, typ, found.ActorURN)
				}
			}
			if strings.Contains(typ, "LogIn") && found.LoginSource != "PASSWORD_LOGIN" {
				t.Errorf("%s: loginSource %q", step.name, found.LoginSource)
			}
			if found.Raw["type"] != typ || found.Raw["usageSource"] != "backend" {
				t.Errorf("%s: rawUsageEvent %v", step.name, found.Raw)
			}
		}
	}
	// GraphQL-sourced events are checked with the GraphQL mutations.
	for _, typ := range []string{"EntityEvent", "CreateUserEvent", "UpdateUserEvent", "CreateAccessTokenEvent", "RevokeAccessTokenEvent",
		"CreatePolicyEvent", "UpdatePolicyEvent", "DeletePolicyEvent", "CreateIngestionSourceEvent", "UpdateIngestionSourceEvent",
		"DeleteEntityEvent", "UpdateAspectEvent", "LogInEvent", "FailedLogInEvent"} {
		if !seen[typ] {
			t.Errorf("event type %s not exercised", typ)
		}
	}
	// includeRaw=false drops the raw event.
	p := s.auditSearch(t, url.Values{"includeRaw": {"false"}, "size": {"3"}}, nil)
	for _, e := range p.UsageEvents {
		if e.Raw != nil {
			t.Errorf("includeRaw=false returned %v", e.Raw)
		}
	}
}

// TestAuditFiltersAndScroll pages through many events with several filters
// and checks the pages against one big page: same events, same order, no
// duplicates, no gaps; and that bad scroll ids are refused.
func TestAuditFiltersAndScroll(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) { testAuditFiltersAndScroll(t, st.args) })
	}
}

func testAuditFiltersAndScroll(t *testing.T, storeArgs []string) {
	s := startAuthServer(t, storeArgs...)
	admin := bearer(s.admin)
	var props []any
	for i := 0; i < 37; i++ {
		ds := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,scroll.%02d,PROD)", i)
		props = append(props, mcp("dataset", ds, "status", map[string]any{"removed": false}))
		if i%3 == 0 {
			props = append(props, mcp("dataset", ds, "globalTags", map[string]any{"tags": []any{}}))
		}
	}
	// Two requests: events of one request share a timestamp, so the tie
	// breakers (type, actor, id) decide the order.
	half := len(props) / 2
	for _, batch := range [][]any{props[:half], props[half:]} {
		if st, b := s.call(t, admin, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": batch}); st != 200 {
			t.Fatalf("ingest: %d %s", st, b)
		}
	}
	filters := []map[string]any{
		{},
		{"eventTypes": []string{"UpdateAspectEvent"}},
		{"eventTypes": []string{"UpdateAspectEvent", "CreateUserEvent"}, "entityTypes": []string{"dataset"}},
		{"aspectTypes": []string{"status", "globalTags"}, "actorUrns": []string{"urn:li:corpuser:datahub"}},
		{"aspectTypes": []string{"globalTags"}},
	}
	for _, f := range filters {
		all := s.auditSearch(t, url.Values{"size": {"1000"}}, f)
		if all.NextScrollID != nil || all.Total != len(all.UsageEvents) {
			t.Fatalf("%v: one big page: total %d, %d events, next %v", f, all.Total, len(all.UsageEvents), all.NextScrollID)
		}
		if len(all.UsageEvents) < 12 {
			t.Fatalf("%v: only %d events", f, len(all.UsageEvents))
		}
		for _, e := range all.UsageEvents {
			if !matches(f, e) {
				t.Errorf("%v: event %+v does not match", f, e)
			}
		}
		var paged []auditEvent
		q := url.Values{"size": {"5"}}
		for pages := 0; ; pages++ {
			p := s.auditSearch(t, q, f)
			if p.Total != all.Total {
				t.Errorf("%v: page total %d, want %d", f, p.Total, all.Total)
			}
			paged = append(paged, p.UsageEvents...)
			if p.NextScrollID == nil {
				break
			}
			if pages > 100 {
				t.Fatal("endless scroll")
			}
			q.Set("scrollId", *p.NextScrollID)
		}
		if len(paged) != len(all.UsageEvents) {
			t.Fatalf("%v: paged %d events, want %d", f, len(paged), len(all.UsageEvents))
		}
		for i := range paged {
			if jsonString(paged[i]) != jsonString(all.UsageEvents[i]) {
				t.Fatalf("%v: event %d differs:\n%+v\n%+v", f, i, paged[i], all.UsageEvents[i])
			}
			if i > 0 && paged[i].Timestamp > paged[i-1].Timestamp {
				t.Fatalf("%v: not newest first at %d", f, i)
			}
		}
	}

	// Bad scroll ids: garbage, altered, or issued for other filters.
	p := s.auditSearch(t, url.Values{"size": {"2"}}, map[string]any{"eventTypes": []string{"UpdateAspectEvent"}})
	good := *p.NextScrollID
	raw, _ := base64.StdEncoding.DecodeString(good)
	altered := base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(raw), "UpdateAspectEvent", "UpdateAspectEvenu", 1)))
	forged := base64.StdEncoding.EncodeToString([]byte(`{"sort":[1700000000000,"UpdateAspectEvent","urn:li:corpuser:datahub","0"],"pitId":null,"expirationTime":0}`))
	for name, c := range map[string]struct {
		id     string
		filter map[string]any
	}{
		"garbage":       {"%%%", map[string]any{"eventTypes": []string{"UpdateAspectEvent"}}},
		"not json":      {base64.StdEncoding.EncodeToString([]byte("nope")), map[string]any{"eventTypes": []string{"UpdateAspectEvent"}}},
		"forged":        {forged, map[string]any{"eventTypes": []string{"UpdateAspectEvent"}}},
		"altered":       {altered, map[string]any{"eventTypes": []string{"UpdateAspectEvent"}}},
		"other filters": {good, map[string]any{"eventTypes": []string{"CreateUserEvent"}}},
	} {
		st, b := s.call(t, admin, "POST", "/openapi/v1/events/audit/search?scrollId="+url.QueryEscape(c.id), c.filter)
		if st != 400 {
			t.Errorf("%s scrollId: %d %s", name, st, b)
		}
	}
	// Time window: nothing before the server existed; bad parameters are 400.
	old := fmt.Sprint(time.Now().Add(-48 * time.Hour).UnixMilli())
	if p := s.auditSearch(t, url.Values{"startTime": {old}, "endTime": {fmt.Sprint(time.Now().Add(-47 * time.Hour).UnixMilli())}}, nil); p.Total != 0 {
		t.Errorf("old window: %d events", p.Total)
	}
	for _, q := range []string{"size=-1", "size=x", "startTime=x", "includeRaw=maybe"} {
		if st, b := s.call(t, admin, "POST", "/openapi/v1/events/audit/search?"+q, map[string]any{}); st != 400 {
			t.Errorf("%s: %d %s", q, st, b)
		}
	}
}

// matches applies an audit filter to an event the way the server should.
func matches(f map[string]any, e auditEvent) bool {
	in := func(key, v string) bool {
		vals, ok := f[key].([]string)
		if !ok || len(vals) == 0 {
			return true
		}
		for _, x := range vals {
			if x == v {
				return true
			}
		}
		return false
	}
	return in("eventTypes", e.EventType) && in("entityTypes", e.EntityType) && in("aspectTypes", e.AspectName) && in("actorUrns", e.ActorURN)
}

// TestAuditTotalCapped writes 10,001 events and checks total stops at 10,000.
func TestAuditTotalCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,001 events")
	}
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) { testAuditTotalCapped(t, st.args) })
	}
}

func testAuditTotalCapped(t *testing.T, storeArgs []string) {
	s := startAuthServer(t, storeArgs...)
	ds := "urn:li:dataset:(urn:li:dataPlatform:hive,audit.many,PROD)"
	base := time.Now().Add(-time.Hour).UnixMilli()
	const n = 10_001
	for start := 0; start < n; start += 2500 {
		var props []any
		for i := start; i < min(n, start+2500); i++ {
			props = append(props, mcp("dataset", ds, "datasetProfile", map[string]any{"timestampMillis": base + int64(i), "rowCount": i}))
		}
		if st, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": props}); st != 200 {
			t.Fatalf("ingest: %d %.300s", st, b)
		}
	}
	p := s.auditSearch(t, url.Values{"size": {"1"}}, map[string]any{"aspectTypes": []string{"datasetProfile"}})
	if p.Total != 10_000 || p.NextScrollID == nil {
		t.Fatalf("total %d (next %v), want 10000", p.Total, p.NextScrollID)
	}
}
