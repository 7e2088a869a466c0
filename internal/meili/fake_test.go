package meili

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// fakeServer answers the few endpoints the engine uses with canned bodies
// and records the requests, so that request shapes and response handling are
// tested without a Meilisearch server.
type fakeServer struct {
	mu       sync.Mutex
	requests []string // "METHOD path body"
	search   string   // body answered to /indexes/*/search
	multi    string   // body answered to /multi-search
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+" "+string(b))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasPrefix(r.URL.Path, "/tasks/"):
		fmt.Fprint(w, `{"uid":1,"status":"succeeded"}`)
	case r.Method == http.MethodPost && r.URL.Path == "/indexes",
		r.Method == http.MethodPatch,
		strings.HasSuffix(r.URL.Path, "/documents"),
		strings.HasSuffix(r.URL.Path, "/delete-batch"):
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, `{"taskUid":1}`)
	case r.URL.Path == "/multi-search":
		fmt.Fprint(w, f.multi)
	default:
		fmt.Fprint(w, f.search)
	}
}

func (f *fakeServer) last(prefix string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.requests) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(f.requests[i], prefix+" "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(rest), &m); err != nil {
				return map[string]any{"raw": rest}
			}
			return m
		}
	}
	return nil
}

func openFake(t *testing.T) (*Engine, *fakeServer) {
	f := &fakeServer{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	e, err := New(context.Background(), srv.URL, "key", testFields, WithIndex("ix"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e, f
}

func TestFakeSetup(t *testing.T) {
	_, f := openFake(t)
	if got := f.last("POST /indexes"); got["uid"] != "ix" || got["primaryKey"] != "id" {
		t.Errorf("create index body = %v", got)
	}
	st := f.last("PATCH /indexes/ix/settings")
	if st == nil {
		t.Fatal("no settings update")
	}
	if fmt.Sprint(st["searchableAttributes"]) != "[w_name w_description w_urn]" {
		t.Errorf("searchableAttributes = %v", st["searchableAttributes"])
	}
	if st["typoTolerance"].(map[string]any)["enabled"] != false {
		t.Errorf("typoTolerance = %v", st["typoTolerance"])
	}
}

func TestFakeSearch(t *testing.T) {
	e, f := openFake(t)
	f.search = `{"hits":[{"_urn":"urn:li:dataset:a","_type":"dataset","_rankingScore":0.5,
		"t_name":["Orders", "Payments"],"t_description":["none"]}],
		"totalHits":7,"facetDistribution":{"x_platform":{"kafka":1,"%4bafka":2}}}`
	res, err := e.Search(context.Background(), catalog.SearchQuery{Text: "Ord", Count: 10, Start: 10,
		Facets: []string{"platform", "nope"}, EntityTypes: []string{"dataset"}})
	if err != nil {
		t.Fatal(err)
	}
	want := catalog.SearchResult{Total: 7,
		Hits: []catalog.SearchHit{{URN: "urn:li:dataset:a", EntityType: "dataset", Score: 0.5,
			MatchedFields: []catalog.MatchedField{{Name: "name", Value: "Orders"}}}},
		Facets: map[string]map[string]int{"platform": {"kafka": 1, "Kafka": 2}, "nope": {}}}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("search = %+v\nwant %+v", res, want)
	}
	req := f.last("POST /indexes/ix/search")
	if req["page"] != 2.0 || req["hitsPerPage"] != 10.0 || req["q"] != "ord" || req["matchingStrategy"] != "all" ||
		fmt.Sprint(req["attributesToSearchOn"]) != "[w_name w_description w_urn]" ||
		req["filter"] != `(_typeX = "dataset") AND (_removed = false)` {
		t.Errorf("search request = %v", req)
	}

	// Unaligned paging: one query for the page, one for the exact total.
	f.multi = `{"results":[{"hits":[{"_urn":"urn:li:dataset:b","_type":"dataset"}]},{"hits":[],"totalHits":4}]}`
	res, err = e.Search(context.Background(), catalog.SearchQuery{Start: 3, Count: 2})
	if err != nil || res.Total != 4 || len(res.Hits) != 1 || res.Hits[0].URN != "urn:li:dataset:b" {
		t.Errorf("unaligned search = %+v, %v", res, err)
	}
	queries := f.last("POST /multi-search")["queries"].([]any)
	if q := queries[0].(map[string]any); q["offset"] != 3.0 || q["limit"] != 2.0 {
		t.Errorf("page query = %v", q)
	}
	if q := queries[1].(map[string]any); q["hitsPerPage"] != 0.0 || q["page"] != 1.0 {
		t.Errorf("count query = %v", q)
	}
}

func TestFakeSearchPostFilter(t *testing.T) {
	e, f := openFake(t)
	f.search = `{"hits":[
		{"_urn":"urn:li:dataset:a","_type":"dataset","t_tags":["urn:li:tag:PII"],"t_platform":["kafka"]},
		{"_urn":"urn:li:dataset:b","_type":"dataset","t_tags":["urn:li:tag:pii.x"],"t_platform":["hive"]},
		{"_urn":"urn:li:dataset:c","_type":"dataset","t_tags":["urn:li:tag:PII","urn:li:tag:x"],"t_platform":["kafka"]}],
		"totalHits":3}`
	res, err := e.Search(context.Background(), catalog.SearchQuery{Count: 1, Start: 1, Facets: []string{"platform"},
		Filter: catalog.Filter{Or: [][]catalog.Criterion{{crit("tags", "END_WITH", ":PII")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || len(res.Hits) != 1 || res.Hits[0].URN != "urn:li:dataset:c" ||
		!reflect.DeepEqual(res.Facets, map[string]map[string]int{"platform": {"kafka": 2}}) {
		t.Errorf("post-filtered search = %+v", res)
	}
	if req := f.last("POST /indexes/ix/search"); req["filter"] != "(_removed = false) AND (t_tags EXISTS)" {
		t.Errorf("relaxed filter = %v", req["filter"])
	}

	f.search = `{"hits":[],"totalHits":20000}`
	_, err = e.Search(context.Background(), catalog.SearchQuery{Count: 1,
		Filter: catalog.Filter{Or: [][]catalog.Criterion{{crit("tags", "CONTAIN", "P")}}}})
	if catalog.KindOf(err) != catalog.Invalid {
		t.Errorf("too broad scan = %v, want Invalid", err)
	}
}

func TestFakeBrowse(t *testing.T) {
	e, f := openFake(t)
	f.multi = `{"results":[
		{"hits":[],"totalHits":5,"facetDistribution":{"_bp2":{"/prod/kafka":3,"/prod/%48ive":1,"/dev/x":1}}},
		{"hits":[],"totalHits":2}]}`
	f.search = `{"hits":[{"_urn":"urn:li:dataset:z"}]}`
	br, err := e.Browse(context.Background(), catalog.BrowseQuery{EntityType: "dataset", Path: "/prod/", Start: 1, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := catalog.BrowseResult{Groups: []catalog.BrowseGroup{{Name: "kafka", Count: 3}},
		URNs: []string{"urn:li:dataset:z"}, NumGroups: 2, NumEntities: 2, Total: 5}
	if !reflect.DeepEqual(br, want) {
		t.Errorf("browse = %+v\nwant %+v", br, want)
	}
	queries := f.last("POST /multi-search")["queries"].([]any)
	if q := queries[0].(map[string]any); q["filter"] != `((_typeX = "dataset") AND (_removed = false)) AND (_anc = "/prod")` ||
		fmt.Sprint(q["facets"]) != "[_bp2]" {
		t.Errorf("below query = %v", q)
	}
	if q := queries[1].(map[string]any); q["filter"] != `((_typeX = "dataset") AND (_removed = false)) AND (_loc = "/prod")` {
		t.Errorf("at query = %v", q)
	}
	if q := f.last("POST /indexes/ix/search"); q["offset"] != nil || q["limit"] != 1.0 || fmt.Sprint(q["sort"]) != "[_urn:asc]" {
		t.Errorf("entities query = %v", q)
	}
}

func TestFakeWrites(t *testing.T) {
	e, f := openFake(t)
	ctx := context.Background()
	if err := e.Upsert(ctx, []catalog.Document{{URN: "urn:li:dataset:a", EntityType: "dataset"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.Delete(ctx, []string{"urn:li:dataset:a"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Upsert(ctx, []catalog.Document{{URN: "urn:li:dataset:b"}}); catalog.KindOf(err) != catalog.Invalid {
		t.Errorf("upsert without entity type = %v, want Invalid", err)
	}
	if len(e.pending) != 2 {
		t.Errorf("pending tasks = %v", e.pending)
	}
	if err := e.Flush(ctx); err != nil || len(e.pending) != 0 {
		t.Errorf("flush: %v, pending %v", err, e.pending)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var sawDelete bool
	for _, r := range f.requests {
		if strings.HasPrefix(r, "POST /indexes/ix/documents/delete-batch ") {
			sawDelete = strings.Contains(r, docID("urn:li:dataset:a"))
		}
	}
	if !sawDelete {
		t.Errorf("no delete-batch by id in %q", f.requests)
	}
}
