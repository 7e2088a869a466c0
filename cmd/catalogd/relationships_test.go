package main

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// Sample URNs of bootstrap_mce.json.
const (
	kafkaDS     = "urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)"
	hdfsDS      = "urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)"
	hiveDS      = "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"
	loggingDS   = "urn:li:dataset:(urn:li:dataPlatform:hive,logging_events,PROD)"
	createdDS   = "urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)"
	deletedDS   = "urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_deleted,PROD)"
	backupDS    = "urn:li:dataset:(urn:li:dataPlatform:s3,project/root/events/logging_events_bckp,PROD)"
	chartBaz1   = "urn:li:chart:(looker,baz1)"
	chartBaz2   = "urn:li:chart:(looker,baz2)"
	dashBaz     = "urn:li:dashboard:(looker,baz)"
	task123     = "urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123)"
	task456     = "urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_456)"
	userJdoe    = "urn:li:corpuser:jdoe"
	userDatahub = "urn:li:corpuser:datahub"
	groupJdoe   = "urn:li:corpGroup:jdoe"
	groupBfoo   = "urn:li:corpGroup:bfoo"
	tagLegacy   = "urn:li:tag:Legacy"
	dbtCustomer = "urn:li:dataset:(urn:li:dataPlatform:dbt,pagila.dbt_postgres.customer_details,PROD)"
)

// relationshipsPage is the decoded GET /relationships response.
type relationshipsPage struct {
	Start, Count, Total int
	Relationships       []struct {
		Type, Entity string
		Created      *struct {
			Time  int64
			Actor string
		}
	}
	Entities []string
}

// relationships asks GET /relationships with a types parameter already in
// its query form and checks the invariants every response keeps.
func relationships(t *testing.T, srv *testServer, direction, urn, types string, extra ...string) relationshipsPage {
	t.Helper()
	path := "/relationships?direction=" + direction + "&urn=" + url.QueryEscape(urn) + "&" + types
	for _, e := range extra {
		path += "&" + e
	}
	var page relationshipsPage
	if err := json.Unmarshal(srv.mustDo(t, 200, "GET", path, nil), &page); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if page.Count != len(page.Relationships) || len(page.Entities) != len(page.Relationships) {
		t.Fatalf("GET %s: count %d, %d relationships, %d entities", path, page.Count, len(page.Relationships), len(page.Entities))
	}
	for i, r := range page.Relationships {
		if r.Entity != page.Entities[i] {
			t.Errorf("GET %s: relationship %d names %s, entities[%d] %s", path, i, r.Entity, i, page.Entities[i])
		}
	}
	return page
}

func sorted(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return out
}

func TestRelationships(t *testing.T) {
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			srv := startServer(t, db.args...)
			replaySamples(t, srv)
			// No sample carries groupMembership: jdoe joins both sample groups.
			ingestProposal(t, srv, "corpuser", userJdoe, "groupMembership", `{"groups":["`+groupJdoe+`","`+groupBfoo+`"]}`)
			testRelationshipEdges(t, srv)
			testRelationshipParams(t, srv)
			testRelationshipUpdates(t, srv)
		})
	}
}

func ingestProposal(t *testing.T, srv *testServer, entity, urn, aspect, value string) {
	t.Helper()
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": map[string]any{
		"entityType": entity, "entityUrn": urn, "changeType": "UPSERT", "aspectName": aspect,
		"aspect": map[string]any{"value": value, "contentType": "application/json"},
	}})
}

func testRelationshipEdges(t *testing.T, srv *testServer) {
	tests := []struct {
		name      string
		direction string
		urn       string
		types     string
		want      []string // exactly these entities
		includes  []string // at least these entities
	}{
		// The lineage chain Kafka → HDFS → Hive → logging_events → fct_users_*, both ways.
		{"hdfs upstream", "OUTGOING", hdfsDS, "types=DownstreamOf", []string{kafkaDS}, nil},
		{"hive upstream", "OUTGOING", hiveDS, "types=DownstreamOf", []string{hdfsDS}, nil},
		{"logging_events upstream", "OUTGOING", loggingDS, "types=DownstreamOf", []string{hiveDS}, nil},
		// Fine-grained lineage adds a DownstreamOf edge to the upstream column too.
		{"fct_users_created upstream", "OUTGOING", createdDS, "types=DownstreamOf", []string{loggingDS, "urn:li:schemaField:(" + loggingDS + ",event_data)"}, nil},
		{"fct_users_deleted upstream", "OUTGOING", deletedDS, "types=DownstreamOf", []string{createdDS, loggingDS}, nil},
		{"kafka downstream", "INCOMING", kafkaDS, "types=DownstreamOf", []string{hdfsDS}, nil},
		{"hdfs downstream", "INCOMING", hdfsDS, "types=DownstreamOf", []string{hiveDS}, nil},
		{"hive downstream", "INCOMING", hiveDS, "types=DownstreamOf", []string{loggingDS}, nil},
		{"logging_events downstream", "INCOMING", loggingDS, "types=DownstreamOf", []string{backupDS, createdDS, deletedDS}, nil},
		{"fct_users_created downstream", "INCOMING", createdDS, "types=DownstreamOf", []string{deletedDS}, nil},
		{"fct_users_deleted downstream", "INCOMING", deletedDS, "types=DownstreamOf", []string{}, nil},
		// Jobs: inputs are consumed, outputs produced, upstream jobs DownstreamOf.
		{"job inputs", "OUTGOING", task456, "types=Consumes", []string{loggingDS}, nil},
		{"job outputs", "OUTGOING", task456, "types=Produces", []string{deletedDS}, nil},
		{"job upstream job", "OUTGOING", task456, "types=DownstreamOf", []string{task123}, nil},
		{"dataset produced by job", "INCOMING", createdDS, "types=Produces", []string{task123}, nil},
		// People and groups.
		{"group members", "INCOMING", groupJdoe, "types=IsMemberOfGroup", []string{userJdoe}, nil},
		{"user groups", "OUTGOING", userJdoe, "types=List(IsMemberOfGroup)", []string{groupBfoo, groupJdoe}, nil},
		{"dataset owners", "OUTGOING", kafkaDS, "types=OwnedBy", []string{"urn:li:corpuser:datahub", userJdoe}, nil},
		{"owned by jdoe", "INCOMING", userJdoe, "types=OwnedBy", nil, []string{kafkaDS, hdfsDS, deletedDS, tagLegacy, groupBfoo}},
		{"owned by datahub", "INCOMING", userDatahub, "types=OwnedBy", nil, []string{kafkaDS, task123, task456, "urn:li:dataFlow:(airflow,dag_abc,PROD)"}},
		{"owned by a group", "INCOMING", groupBfoo, "types=OwnedBy", []string{dashBaz}, nil},
		// Tags and terms, including the chart tag of baz1 and schema-field terms.
		{"chart tag", "OUTGOING", chartBaz1, "types=TaggedWith", []string{tagLegacy}, nil},
		{"tagged Legacy", "INCOMING", tagLegacy, "types=TaggedWith", nil, []string{chartBaz1, hiveDS}},
		{"dataset terms", "OUTGOING", dbtCustomer, "types=TermedWith", []string{"urn:li:glossaryTerm:Finance_test", "urn:li:glossaryTerm:double_meta_property"}, nil},
		{"termed with", "INCOMING", "urn:li:glossaryTerm:Finance_test", "types=TermedWith", nil, []string{dbtCustomer}},
		// Dashboards contain charts; charts consume datasets (inputs in both MCE forms).
		{"dashboard charts", "OUTGOING", dashBaz, "types=Contains", []string{chartBaz1, chartBaz2}, nil},
		{"chart in dashboard", "INCOMING", chartBaz1, "types=Contains", []string{dashBaz}, nil},
		{"chart input plain", "OUTGOING", chartBaz1, "types=Consumes", []string{kafkaDS}, nil},
		{"chart input avro union", "OUTGOING", chartBaz2, "types=Consumes", []string{hdfsDS}, nil},
		{"dataset consumers", "INCOMING", kafkaDS, "types=Consumes", nil, []string{chartBaz1}},
		// Containers.
		{"container", "OUTGOING", hiveDS, "types=IsPartOf", []string{"urn:li:container:SCHEMA"}, nil},
		// The types parameter in every form clients send.
		{"types List", "OUTGOING", task456, "types=List(Consumes,Produces)", []string{deletedDS, loggingDS}, nil},
		{"types encoded List", "OUTGOING", task456, "types=" + url.QueryEscape("List(Consumes,Produces)"), []string{deletedDS, loggingDS}, nil},
		{"types repeated", "OUTGOING", task456, "types=Consumes&types=Produces", []string{deletedDS, loggingDS}, nil},
		{"types comma", "OUTGOING", task456, "types=Consumes,Produces", []string{deletedDS, loggingDS}, nil},
		{"unknown type", "OUTGOING", task456, "types=NoSuchRelationship", []string{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := relationships(t, srv, tt.direction, tt.urn, tt.types)
			got := sorted(page.Entities)
			if tt.want != nil && !slices.Equal(got, sorted(tt.want)) {
				t.Errorf("%s %s %s: entities %v, want %v", tt.direction, tt.urn, tt.types, got, sorted(tt.want))
			}
			for _, w := range tt.includes {
				if !slices.Contains(got, w) {
					t.Errorf("%s %s %s: entities %v, missing %s", tt.direction, tt.urn, tt.types, got, w)
				}
			}
			if page.Total != len(got) || page.Start != 0 {
				t.Errorf("%s %s %s: start %d total %d for %d entities", tt.direction, tt.urn, tt.types, page.Start, page.Total, len(got))
			}
			for _, r := range page.Relationships {
				if !strings.Contains(tt.types, r.Type) {
					t.Errorf("%s %s %s: relationship of type %s", tt.direction, tt.urn, tt.types, r.Type)
				}
				if r.Created == nil || r.Created.Time <= 0 || !strings.HasPrefix(r.Created.Actor, "urn:li:corpuser:") {
					t.Errorf("%s %s %s: relationship to %s has created %+v, want a time and actor", tt.direction, tt.urn, tt.types, r.Entity, r.Created)
				}
			}
		})
	}
}

func testRelationshipParams(t *testing.T, srv *testServer) {
	t.Run("paging", func(t *testing.T) {
		all := relationships(t, srv, "INCOMING", loggingDS, "types=DownstreamOf")
		for _, tt := range []struct {
			start, count string
			want         []string
		}{
			{"0", "2", all.Entities[:2]},
			{"1", "2", all.Entities[1:3]},
			{"2", "5", all.Entities[2:]},
			{"3", "5", nil},
			{"0", "0", nil},
		} {
			page := relationships(t, srv, "INCOMING", loggingDS, "types=DownstreamOf", "start="+tt.start, "count="+tt.count)
			if !slices.Equal(page.Entities, tt.want) || page.Total != 3 || page.Start != atoi(tt.start) {
				t.Errorf("start=%s count=%s: start %d total %d entities %v, want total 3 and %v", tt.start, tt.count, page.Start, page.Total, page.Entities, tt.want)
			}
		}
	})
	t.Run("bad requests", func(t *testing.T) {
		ok := "urn=" + url.QueryEscape(kafkaDS) + "&types=OwnedBy"
		for _, tt := range []struct{ query, msg string }{
			{"direction=SIDEWAYS&" + ok, "unknown direction"},
			{"direction=incoming&" + ok, "unknown direction"},
			{ok, "direction is required"},
			{"direction=INCOMING&types=OwnedBy", "urn is required"},
			{"direction=INCOMING&types=OwnedBy&urn=not-a-urn", "malformed URN"},
			{"direction=INCOMING&urn=" + url.QueryEscape(kafkaDS), "types is required"},
			{"direction=INCOMING&" + ok + "&start=-1", "start"},
			{"direction=INCOMING&" + ok + "&count=ten", "count"},
		} {
			status, body := srv.do(t, "GET", "/relationships?"+tt.query, nil)
			if status != 400 || !strings.Contains(string(body), tt.msg) {
				t.Errorf("GET /relationships?%s: status %d %s, want 400 mentioning %q", tt.query, status, body, tt.msg)
			}
		}
	})
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// testRelationshipUpdates runs last: it changes the sample graph.
func testRelationshipUpdates(t *testing.T, srv *testServer) {
	t.Run("replacing an aspect removes its stale edges", func(t *testing.T) {
		ingestProposal(t, srv, "dataset", deletedDS, "upstreamLineage",
			`{"upstreams":[{"dataset":"`+createdDS+`","type":"TRANSFORMED","auditStamp":{"time":1,"actor":"urn:li:corpuser:jdoe"}}]}`)
		if got := relationships(t, srv, "OUTGOING", deletedDS, "types=DownstreamOf").Entities; !slices.Equal(got, []string{createdDS}) {
			t.Errorf("upstreams of fct_users_deleted after the replace: %v, want only fct_users_created", got)
		}
		if got := sorted(relationships(t, srv, "INCOMING", loggingDS, "types=DownstreamOf").Entities); !slices.Equal(got, sorted([]string{backupDS, createdDS})) {
			t.Errorf("downstreams of logging_events after the replace: %v, want the backup and fct_users_created", got)
		}
		ingestProposal(t, srv, "chart", chartBaz1, "globalTags", `{"tags":[{"tag":"urn:li:tag:NeedsDocumentation"}]}`)
		if got := relationships(t, srv, "OUTGOING", chartBaz1, "types=TaggedWith").Entities; !slices.Equal(got, []string{"urn:li:tag:NeedsDocumentation"}) {
			t.Errorf("tags of chart baz1 after the replace: %v", got)
		}
		if got := relationships(t, srv, "INCOMING", tagLegacy, "types=TaggedWith").Entities; slices.Contains(got, chartBaz1) {
			t.Errorf("tag Legacy still lists chart baz1 after its tags were replaced: %v", got)
		}
		// Other aspects' edges of the same entity are untouched.
		if got := relationships(t, srv, "INCOMING", chartBaz1, "types=Contains").Entities; !slices.Equal(got, []string{dashBaz}) {
			t.Errorf("dashboard of chart baz1 after its tags were replaced: %v", got)
		}
	})
	t.Run("deleting an entity removes its outgoing edges", func(t *testing.T) {
		srv.mustDo(t, 200, "POST", "/entities?action=delete", map[string]any{"urn": task456})
		if page := relationships(t, srv, "OUTGOING", task456, "types=List(Consumes,Produces,DownstreamOf,OwnedBy)"); page.Total != 0 {
			t.Errorf("edges of the deleted job: %v", page.Entities)
		}
		if got := relationships(t, srv, "INCOMING", deletedDS, "types=Produces").Entities; len(got) != 0 {
			t.Errorf("fct_users_deleted still produced by %v after the job was deleted", got)
		}
		if got := relationships(t, srv, "INCOMING", userDatahub, "types=OwnedBy").Entities; slices.Contains(got, task456) {
			t.Errorf("datahub still owns the deleted job: %v", got)
		}
	})
}
