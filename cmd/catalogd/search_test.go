package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/store"
)

const (
	sHiveURN    = "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"
	sKafkaURN   = "urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)"
	usersCrURN  = "urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)"
	usersDelURN = "urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_deleted,PROD)"
	loggingURN  = "urn:li:dataset:(urn:li:dataPlatform:hive,logging_events,PROD)"
	browse1URN  = "urn:li:dataset:(urn:li:dataPlatform:kafka,test-browse-1,PROD)"
	browse2URN  = "urn:li:dataset:(urn:li:dataPlatform:kafka,test-browse-2,PROD)"
	browse3URN  = "urn:li:dataset:(urn:li:dataPlatform:kafka,test-browse-3,PROD)"
)

// searchValue is the value of a search action response.
type searchValue struct {
	NumEntities int `json:"numEntities"`
	PageSize    int `json:"pageSize"`
	From        int `json:"from"`
	Metadata    struct {
		URNs    []string `json:"urns"`
		Matches []struct {
			MatchedFields []struct{ Name, Value string } `json:"matchedFields"`
		} `json:"matches"`
		SearchResultMetadatas []struct {
			Name         string         `json:"name"`
			Aggregations map[string]int `json:"aggregations"`
		} `json:"searchResultMetadatas"`
	} `json:"metadata"`
	Entities []string `json:"entities"`
}

func (s *testServer) search(t *testing.T, body map[string]any) searchValue {
	t.Helper()
	if _, ok := body["start"]; !ok {
		body["start"] = 0
	}
	if _, ok := body["count"]; !ok {
		body["count"] = 100
	}
	action := "search"
	if _, ok := body["entity"]; !ok {
		action = "searchAcrossEntities"
	}
	b := s.mustDo(t, 200, "POST", "/entities?action="+action, body)
	var v struct{ Value searchValue }
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v.Value
}

type browseValue struct {
	NumEntities int `json:"numEntities"`
	NumGroups   int `json:"numGroups"`
	NumElements int `json:"numElements"`
	Metadata    struct {
		Path             string `json:"path"`
		TotalNumEntities int    `json:"totalNumEntities"`
		Groups           []struct {
			Name  string
			Count int
		} `json:"groups"`
	} `json:"metadata"`
	Groups []struct {
		Name  string
		Count int
	} `json:"groups"`
	Entities []struct{ Name, URN string } `json:"entities"`
}

func (s *testServer) browse(t *testing.T, path string, start, limit int) browseValue {
	t.Helper()
	b := s.mustDo(t, 200, "POST", "/entities?action=browse", map[string]any{"path": path, "entity": "dataset", "start": start, "limit": limit})
	var v struct{ Value browseValue }
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v.Value
}

func (s *testServer) autocomplete(t *testing.T, query string) []string {
	t.Helper()
	b := s.mustDo(t, 200, "POST", "/entities?action=autocomplete", map[string]any{"query": query, "entity": "dataset", "limit": 10})
	var v struct {
		Value struct {
			Query       string
			Suggestions []string
			Entities    []struct{ URN string }
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if v.Value.Query != query || len(v.Value.Entities) != len(v.Value.Suggestions) {
		t.Errorf("autocomplete %q answered %s", query, b)
	}
	return v.Value.Suggestions
}

func filterOf(field, cond string, negated bool, values ...string) map[string]any {
	return map[string]any{"or": []any{map[string]any{"and": []any{map[string]any{"field": field, "condition": cond, "values": values, "negated": negated}}}}}
}

func (s *testServer) setRemoved(t *testing.T, urn string, removed bool) {
	t.Helper()
	s.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": map[string]any{
		"entityType": "dataset", "entityUrn": urn, "changeType": "UPSERT", "aspectName": "status",
		"aspect": map[string]any{"value": fmt.Sprintf(`{"removed":%v}`, removed), "contentType": "application/json"},
	}})
}

// TestSearchSamples checks search, browse, autocomplete, soft delete and
// restoreIndices over DataHub's sample data, on every store.
func TestSearchSamples(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			dataDir := t.TempDir()
			args := append([]string{"--data-dir", dataDir}, st.args...)
			srv := startServer(t, args...)
			replaySamples(t, srv)
			checkSearchSamples(t, srv)
			checkRestoreIndices(t, srv, storeDSN(st, dataDir))
		})
	}
}

func checkSearchSamples(t *testing.T, srv *testServer) {
	t.Run("text", func(t *testing.T) {
		tests := []struct {
			input string
			want  []string // must be among the hits
			first string   // must be the first hit when set
		}{
			{"SampleHiveDataset", []string{sHiveURN}, sHiveURN},
			{"sample hive", []string{sHiveURN}, sHiveURN},
			{"log event", []string{loggingURN}, ""},                     // description
			{"users created on a single day", []string{usersCrURN}, ""}, // description words
			{"field_foo_2", []string{sKafkaURN}, sKafkaURN},             // field path
			{"fct_users", []string{usersCrURN, usersDelURN}, ""},
			{"browser_id", []string{usersDelURN}, usersDelURN},
		}
		for _, tc := range tests {
			res := srv.search(t, map[string]any{"input": tc.input, "entity": "dataset"})
			for _, w := range tc.want {
				if !slices.Contains(res.Entities, w) {
					t.Errorf("search %q = %v, missing %s", tc.input, res.Entities, w)
				}
			}
			if tc.first != "" && (len(res.Entities) == 0 || res.Entities[0] != tc.first) {
				t.Errorf("search %q ranks %v, want %s first", tc.input, res.Entities, tc.first)
			}
			if len(res.Metadata.URNs) != len(res.Entities) || len(res.Metadata.Matches) != len(res.Entities) {
				t.Errorf("search %q: metadata urns/matches not parallel to entities", tc.input)
			}
		}
		res := srv.search(t, map[string]any{"input": "SampleHiveDataset", "entity": "dataset"})
		if len(res.Metadata.Matches) == 0 || len(res.Metadata.Matches[0].MatchedFields) == 0 {
			t.Errorf("no matched fields reported for SampleHiveDataset: %+v", res.Metadata.Matches)
		}
	})

	t.Run("field queries", func(t *testing.T) {
		res := srv.search(t, map[string]any{"input": "tags:Legacy", "entity": "dataset"})
		if !slices.Contains(res.Entities, sHiveURN) {
			t.Errorf("tags:Legacy = %v, want %s among them", res.Entities, sHiveURN)
		}
		res = srv.search(t, map[string]any{"input": "platform:kafka", "entity": "dataset"})
		if !slices.Contains(res.Entities, sKafkaURN) {
			t.Errorf("platform:kafka = %v, want %s", res.Entities, sKafkaURN)
		}
		for _, u := range res.Entities {
			if !strings.Contains(u, "urn:li:dataPlatform:kafka,") {
				t.Errorf("platform:kafka found %s", u)
			}
		}
		res = srv.search(t, map[string]any{"input": "platform:urn:li:dataPlatform:hive", "entity": "dataset"})
		if !slices.Contains(res.Entities, sHiveURN) || slices.Contains(res.Entities, sKafkaURN) {
			t.Errorf("platform:urn:li:dataPlatform:hive = %v", res.Entities)
		}
		res = srv.search(t, map[string]any{"input": sHiveURN, "entity": "dataset"})
		if !reflect.DeepEqual(res.Entities, []string{sHiveURN}) {
			t.Errorf("search by URN = %v", res.Entities)
		}
	})

	t.Run("conditions", func(t *testing.T) {
		type want struct {
			has, hasNot []string
		}
		tests := []struct {
			name   string
			filter map[string]any
			want   want
		}{
			{"EQUAL", filterOf("platform", "EQUAL", false, "urn:li:dataPlatform:kafka"), want{[]string{sKafkaURN}, []string{sHiveURN}}},
			{"negated EQUAL", filterOf("platform", "EQUAL", true, "urn:li:dataPlatform:kafka"), want{[]string{sHiveURN}, []string{sKafkaURN}}},
			{"IEQUAL", filterOf("id", "IEQUAL", false, "samplehivedataset"), want{[]string{sHiveURN}, []string{sKafkaURN}}},
			{"CONTAIN", filterOf("id", "CONTAIN", false, "users"), want{[]string{usersCrURN, usersDelURN}, []string{sHiveURN}}},
			{"START_WITH", filterOf("id", "START_WITH", false, "fct_"), want{[]string{usersCrURN, usersDelURN}, []string{loggingURN}}},
			{"END_WITH", filterOf("id", "END_WITH", false, "_deleted"), want{[]string{usersDelURN}, []string{usersCrURN}}},
			{"GREATER_THAN", filterOf("rowCount", "GREATER_THAN", false, "0"), want{[]string{sHiveURN}, []string{sKafkaURN}}},
			{"GREATER_THAN_OR_EQUAL_TO", filterOf("rowCount", "GREATER_THAN_OR_EQUAL_TO", false, "0"), want{[]string{sHiveURN}, []string{sKafkaURN}}},
			{"LESS_THAN", filterOf("rowCount", "LESS_THAN", false, "0"), want{nil, []string{sHiveURN}}},
			{"LESS_THAN_OR_EQUAL_TO", filterOf("rowCount", "LESS_THAN_OR_EQUAL_TO", false, "1000000000000"), want{[]string{sHiveURN}, []string{sKafkaURN}}},
			{"deprecated value form", map[string]any{"or": []any{map[string]any{"and": []any{map[string]any{"field": "platform", "value": "urn:li:dataPlatform:kafka"}}}}}, want{[]string{sKafkaURN}, []string{sHiveURN}}},
			{"deprecated criteria form", map[string]any{"criteria": []any{map[string]any{"field": "platform", "values": []string{"urn:li:dataPlatform:kafka"}, "condition": "EQUAL"}}}, want{[]string{sKafkaURN}, []string{sHiveURN}}},
			{"OR of ANDs", map[string]any{"or": []any{
				map[string]any{"and": []any{map[string]any{"field": "platform", "values": []string{"urn:li:dataPlatform:kafka"}}}},
				map[string]any{"and": []any{map[string]any{"field": "id", "values": []string{"fct_users_created"}}, map[string]any{"field": "origin", "values": []string{"PROD"}}}},
			}}, want{[]string{sKafkaURN, usersCrURN}, []string{sHiveURN, usersDelURN}}},
		}
		for _, tc := range tests {
			res := srv.search(t, map[string]any{"input": "*", "entity": "dataset", "filter": tc.filter, "count": 1000})
			for _, u := range tc.want.has {
				if !slices.Contains(res.Entities, u) {
					t.Errorf("%s: %s missing from %d hits", tc.name, u, len(res.Entities))
				}
			}
			for _, u := range tc.want.hasNot {
				if slices.Contains(res.Entities, u) {
					t.Errorf("%s: %s should not match", tc.name, u)
				}
			}
		}
	})

	t.Run("facets and paging", func(t *testing.T) {
		all := srv.search(t, map[string]any{"input": "*", "entity": "dataset", "count": 1000})
		if all.NumEntities < 50 || len(all.Entities) != all.NumEntities {
			t.Fatalf("search * over datasets: numEntities %d, %d entities", all.NumEntities, len(all.Entities))
		}
		var platform map[string]int
		for _, m := range all.Metadata.SearchResultMetadatas {
			if m.Name == "platform" {
				platform = m.Aggregations
			}
		}
		sum := 0
		for _, n := range platform {
			sum += n
		}
		if platform["urn:li:dataPlatform:hive"] < 4 || sum != all.NumEntities {
			t.Errorf("platform facet %v (sum %d) over %d datasets", platform, sum, all.NumEntities)
		}
		var paged []string
		for start := 0; start < all.NumEntities; start += 7 {
			p := srv.search(t, map[string]any{"input": "*", "entity": "dataset", "start": start, "count": 7})
			if p.NumEntities != all.NumEntities || p.From != start || p.PageSize != 7 {
				t.Fatalf("page at %d: numEntities %d from %d pageSize %d", start, p.NumEntities, p.From, p.PageSize)
			}
			paged = append(paged, p.Entities...)
		}
		if !reflect.DeepEqual(paged, all.Entities) {
			t.Errorf("pages of 7 differ from one page: %d vs %d entities", len(paged), len(all.Entities))
		}
		across := srv.search(t, map[string]any{"input": "*", "entities": []string{}, "count": 1})
		if across.NumEntities <= all.NumEntities {
			t.Errorf("searchAcrossEntities over all types found %d, datasets alone %d", across.NumEntities, all.NumEntities)
		}
		two := srv.search(t, map[string]any{"input": "*", "entities": []string{"dataset", "chart"}, "count": 1})
		charts := srv.search(t, map[string]any{"input": "*", "entity": "chart", "count": 1})
		if two.NumEntities != all.NumEntities+charts.NumEntities {
			t.Errorf("searchAcrossEntities dataset+chart = %d, want %d+%d", two.NumEntities, all.NumEntities, charts.NumEntities)
		}
	})

	t.Run("autocomplete", func(t *testing.T) {
		if got := srv.autocomplete(t, "SampleH"); !slices.Contains(got, "SampleHiveDataset") {
			t.Errorf("autocomplete SampleH = %v", got)
		}
		if got := srv.autocomplete(t, "fct_users_d"); !slices.Contains(got, "fct_users_deleted") || slices.Contains(got, "fct_users_created") {
			t.Errorf("autocomplete fct_users_d = %v", got)
		}
	})

	t.Run("browse smoke test", func(t *testing.T) {
		// DataHub's smoke-test/tests/browse/browse_test.py, over smoke/browse.json.
		b := srv.browse(t, "/prod", 0, 100)
		var at []string
		for _, e := range b.Entities {
			at = append(at, e.URN)
		}
		if !reflect.DeepEqual(at, []string{browse3URN}) {
			t.Errorf("browse /prod entities = %v, want [%s]", at, browse3URN)
		}
		for _, tc := range []struct {
			path string
			want []string
		}{
			{"/prod/kafka1", []string{browse1URN, browse2URN, browse3URN}},
			{"/prod/kafka2", []string{browse1URN, browse2URN}},
		} {
			b := srv.browse(t, tc.path, 0, 10)
			var got []string
			for _, e := range b.Entities {
				got = append(got, e.URN)
				if e.Name != e.URN {
					t.Errorf("browse %s: entity name %q, want the URN", tc.path, e.Name)
				}
			}
			if !reflect.DeepEqual(got, tc.want) || b.NumEntities != len(tc.want) || len(b.Groups) != 0 ||
				b.Metadata.TotalNumEntities != 0 || b.Metadata.Path != tc.path || b.NumElements != len(tc.want) {
				t.Errorf("browse %s = %+v; want entities %v, total %d, no groups, totalNumEntities 0", tc.path, b, tc.want, len(tc.want))
			}
		}
		root := srv.browse(t, "/prod", 0, 1000)
		groups := map[string]int{}
		for _, g := range root.Groups {
			groups[g.Name] = g.Count
		}
		if groups["kafka1"] != 3 || groups["kafka2"] != 2 || root.NumGroups != len(root.Groups) || !reflect.DeepEqual(root.Groups, root.Metadata.Groups) {
			t.Errorf("browse /prod groups = %+v", root.Groups)
		}
	})

	t.Run("soft delete", func(t *testing.T) {
		srv.setRemoved(t, usersDelURN, true)
		if res := srv.search(t, map[string]any{"input": "fct_users_deleted", "entity": "dataset"}); slices.Contains(res.Entities, usersDelURN) {
			t.Errorf("soft-deleted entity still found: %v", res.Entities)
		}
		if got := srv.autocomplete(t, "fct_users_d"); slices.Contains(got, "fct_users_deleted") {
			t.Errorf("soft-deleted entity still suggested: %v", got)
		}
		res := srv.search(t, map[string]any{"input": "*", "entity": "dataset", "filter": filterOf("removed", "EQUAL", false, "true")})
		if !slices.Contains(res.Entities, usersDelURN) {
			t.Errorf("filter removed=true = %v, want %s", res.Entities, usersDelURN)
		}
		srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(usersDelURN), nil) // direct reads still work
		srv.setRemoved(t, usersDelURN, false)
		if res := srv.search(t, map[string]any{"input": "fct_users_deleted", "entity": "dataset"}); !slices.Contains(res.Entities, usersDelURN) {
			t.Errorf("undone soft delete: %v", res.Entities)
		}
		// Browse never shows soft-deleted entities.
		srv.setRemoved(t, browse3URN, true)
		if b := srv.browse(t, "/prod/kafka1", 0, 10); b.NumEntities != 2 {
			t.Errorf("browse after soft delete: %+v", b)
		}
		srv.setRemoved(t, browse3URN, false)
	})

	t.Run("bad input", func(t *testing.T) {
		tests := []struct {
			name, action string
			body         map[string]any
			mention      string
		}{
			{"unknown entity", "search", map[string]any{"input": "*", "entity": "nosuch", "start": 0, "count": 10}, "nosuch"},
			{"unknown condition", "search", map[string]any{"input": "*", "entity": "dataset", "start": 0, "count": 10, "filter": filterOf("origin", "ROUGHLY", false, "PROD")}, "ROUGHLY"},
			{"non-numeric", "search", map[string]any{"input": "*", "entity": "dataset", "start": 0, "count": 10, "filter": filterOf("rowCount", "GREATER_THAN", false, "lots")}, "lots"},
			{"negative start", "search", map[string]any{"input": "*", "entity": "dataset", "start": -1, "count": 10}, "start"},
			{"negative count", "searchAcrossEntities", map[string]any{"input": "*", "start": 0, "count": -5}, "count"},
			{"malformed filter", "search", map[string]any{"input": "*", "entity": "dataset", "start": 0, "count": 10, "filter": "platform=hive"}, "filter"},
			{"unknown filter field", "search", map[string]any{"input": "*", "entity": "dataset", "start": 0, "count": 10, "filter": filterOf("nosuchfield", "EQUAL", false, "x")}, "nosuchfield"},
			{"browse unknown entity", "browse", map[string]any{"path": "/", "entity": "nosuch", "start": 0, "limit": 10}, "nosuch"},
			{"browse negative limit", "browse", map[string]any{"path": "/", "entity": "dataset", "start": 0, "limit": -1}, "limit"},
			{"autocomplete unknown entity", "autocomplete", map[string]any{"query": "x", "entity": "nosuch", "limit": 10}, "nosuch"},
		}
		for _, tc := range tests {
			status, b := srv.do(t, "POST", "/entities?action="+tc.action, tc.body)
			if status != 400 || !strings.Contains(string(b), tc.mention) {
				t.Errorf("%s: status %d body %s; want 400 naming %q", tc.name, status, b, tc.mention)
			}
		}
		status, b := srv.do(t, "POST", "/operations?action=restoreIndices", map[string]any{"start": -3})
		if status != 400 {
			t.Errorf("restoreIndices start -3: %d %s", status, b)
		}
	})
}

// checkRestoreIndices empties the index by hand, checks that search finds
// nothing, restores through every restoreIndices path and checks that search
// answers as before.
func checkRestoreIndices(t *testing.T, srv *testServer, dsn string) {
	queries := []map[string]any{
		{"input": "SampleHiveDataset", "entity": "dataset"},
		{"input": "*", "entity": "dataset", "count": 1000},
		{"input": "tags:Legacy", "entity": "dataset"},
		{"input": "*", "entities": []string{}, "count": 1000},
	}
	before := make([]searchValue, len(queries))
	for i, q := range queries {
		before[i] = srv.search(t, q)
	}
	browseBefore := srv.browse(t, "/prod/kafka1", 0, 10)

	emptySearchIndex(t, dsn)
	if res := srv.search(t, map[string]any{"input": "*", "entities": []string{}}); res.NumEntities != 0 {
		t.Fatalf("emptied index still finds %d entities", res.NumEntities)
	}

	// One URN through /gms/operations, a pattern through /api/gms/operations
	// and the rest in batches through /operations and /aspects.
	b := srv.mustDo(t, 200, "POST", "/gms/operations?action=restoreIndices", map[string]any{"urn": sHiveURN})
	if v := decode(t, b)["value"]; !strings.Contains(fmt.Sprint(v), "rowsMigrated=") {
		t.Errorf("restoreIndices answered %s", b)
	}
	if res := srv.search(t, map[string]any{"input": "SampleHiveDataset", "entity": "dataset"}); !reflect.DeepEqual(res.Entities, []string{sHiveURN}) {
		t.Errorf("after restoring one URN: %v", res.Entities)
	}
	srv.mustDo(t, 200, "POST", "/api/gms/operations?action=restoreIndices", map[string]any{"urnLike": "urn:li:dataset:(urn:li:dataPlatform:kafka,%", "batchSize": 1000})
	for start, path := 0, "/operations"; ; start += 2000 {
		b := srv.mustDo(t, 200, "POST", path+"?action=restoreIndices", map[string]any{"start": start, "batchSize": 2000})
		if strings.Contains(string(b), "rowsMigrated=0,") {
			break
		}
		if path == "/operations" {
			path = "/aspects"
		} else {
			path = "/operations"
		}
		if start > 1e6 {
			t.Fatal("restoreIndices never finished")
		}
	}
	for i, q := range queries {
		after := srv.search(t, q)
		if !reflect.DeepEqual(after, before[i]) {
			t.Errorf("search %v after restore:\n%+v\nbefore:\n%+v", q, after, before[i])
		}
	}
	if after := srv.browse(t, "/prod/kafka1", 0, 10); !reflect.DeepEqual(after, browseBefore) {
		t.Errorf("browse after restore %+v, before %+v", after, browseBefore)
	}
}

// emptySearchIndex deletes every search document of the store at dsn by hand,
// behind the server's back, through a second handle on its database.
func emptySearchIndex(t *testing.T, dsn string) {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	tables := []string{"search_kw", "search_browse", "search_doc", "search_body"}
	if db.Dialect() == store.SQLite {
		tables = append(tables, "search_fts")
	}
	for _, tb := range tables {
		if _, err := db.Bun().ExecContext(context.Background(), "DELETE FROM "+tb); err != nil {
			t.Fatalf("empty %s: %v", tb, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// storeDSN is the DSN of the store a test server runs on: the SQLite file in
// dataDir unless the store's flags name another.
func storeDSN(st testStore, dataDir string) string {
	if len(st.args) == 2 && st.args[0] == "--store" {
		return st.args[1]
	}
	return "sqlite:" + filepath.Join(dataDir, "catalogd.db")
}
