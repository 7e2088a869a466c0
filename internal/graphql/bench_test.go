package graphql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/contract"
	"github.com/catalogd/catalogd/internal/graph"
	"github.com/catalogd/catalogd/internal/graphql"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

// stack is the GraphQL handler over a fresh SQLite store with the in-store
// search engine, wired as catalogd serve wires it.
type stack struct {
	h   *graphql.Handler
	svc *ingest.Service
}

func newStack(tb testing.TB) *stack {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "catalog.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return newStackOn(tb, db)
}

// newStackOn is the stack over db.
func newStackOn(tb testing.TB, db *store.DB) *stack {
	tb.Helper()
	ctx := context.Background()
	reg := registry.Default()
	eng, err := db.OpenSearch(ctx, search.Fields(reg))
	if err != nil {
		tb.Fatal(err)
	}
	svc := ingest.New(reg, db, ingest.WithIndexer(search.NewStoreIndexer(search.NewBuilder(reg), eng)))
	h := graphql.New(graphql.Config{Registry: reg, Store: db, Ingest: svc, Search: search.NewService(reg, eng), Lineage: graph.New(db, reg)})
	return &stack{h: h, svc: svc}
}

func (s *stack) ingest(tb testing.TB, props []catalog.Proposal) {
	tb.Helper()
	if _, err := s.svc.Ingest(context.Background(), "", props); err != nil {
		tb.Fatal(err)
	}
}

func prop(urn, entity, aspect string, v any) catalog.Proposal {
	b, _ := json.Marshal(v)
	return catalog.Proposal{EntityType: entity, EntityURN: urn, ChangeType: catalog.Upsert, AspectName: aspect, Value: b}
}

// post runs one GraphQL request through the handler and fails on errors.
func (s *stack) post(tb testing.TB, body []byte) []byte {
	req := httptest.NewRequest(http.MethodPost, "/api/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte(`"errors"`)) {
		tb.Fatalf("status %d: %s", w.Code, w.Body.Bytes())
	}
	return w.Body.Bytes()
}

// latencies runs fn b.N times and reports p50 and p99 in milliseconds.
func latencies(b *testing.B, fn func()) {
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		fn()
		d = append(d, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	pct := func(p float64) float64 { return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

const benchDataset = "urn:li:dataset:(urn:li:dataPlatform:hive,bench.orders,PROD)"

// BenchmarkDatasetQuery reads one dataset with 3 owners, 3 tags, 2 terms and
// a 50-field schema (5 fields tagged), every related entity resolved.
func BenchmarkDatasetQuery(b *testing.B) {
	s := newStack(b)
	s.ingest(b, benchDatasetProposals())
	body, _ := json.Marshal(map[string]any{"query": `query($urn: String!) { dataset(urn: $urn) { urn name platform { urn name }
		properties { name description customProperties { key value } }
		ownership { owners { owner { ... on CorpUser { urn username info { displayName email } } } type } }
		globalTags { tags { tag { urn name description } } }
		glossaryTerms { terms { term { urn name glossaryTermInfo { name description } } } }
		schemaMetadata { name fields { fieldPath type nativeDataType nullable description globalTags { tags { tag { urn name } } } } } } }`,
		"variables": map[string]any{"urn": benchDataset}})
	out := s.post(b, body)
	if !bytes.Contains(out, []byte(`"col_49"`)) || !bytes.Contains(out, []byte(`"User 2"`)) || !bytes.Contains(out, []byte(`"term1"`)) {
		b.Fatalf("unexpected answer: %s", out)
	}
	latencies(b, func() { s.post(b, body) })
}

// BenchmarkUIGetDataset runs getDataset exactly as DataHub's web UI sends it
// (the operation and its 60-odd fragments) for the dataset of
// BenchmarkDatasetQuery, among n generated datasets (10,000 by default;
// CATALOGD_BENCH_ENTITIES=100000 for the 100k figure).
func BenchmarkUIGetDataset(b *testing.B) {
	dir := filepath.Join("..", "..", "..", "shared", "datahub-ui")
	ops, err := contract.UIOperations(dir)
	if err != nil {
		b.Skipf("DataHub's web UI documents: %v", err)
	}
	var query string
	for _, op := range ops {
		if op.Name == "getDataset" {
			query = op.Text()
		}
	}
	s := newStack(b)
	loadDatasets(b, s, benchEntities(b))
	s.ingest(b, benchDatasetProposals())
	body, _ := json.Marshal(map[string]any{"query": query, "operationName": "getDataset", "variables": map[string]any{"urn": benchDataset}})
	out := s.post(b, body)
	if !bytes.Contains(out, []byte(`"urn:li:corpuser:user2"`)) || !bytes.Contains(out, []byte(`"urn:li:glossaryTerm:term1"`)) || !bytes.Contains(out, []byte(`"urn:li:tag:tag2"`)) {
		b.Fatalf("unexpected answer: %.2000s", out)
	}
	latencies(b, func() { s.post(b, body) })
}

// benchEntities is how many datasets a benchmark loads: 10,000, or
// CATALOGD_BENCH_ENTITIES.
func benchEntities(b *testing.B) int {
	n := 10000
	if v := os.Getenv("CATALOGD_BENCH_ENTITIES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	return n
}

// loadDatasets ingests n generated datasets, each with properties and a tag.
func loadDatasets(b *testing.B, s *stack, n int) {
	start := time.Now()
	for i := 0; i < n; i += 200 {
		var props []catalog.Proposal
		for j := i; j < min(n, i+200); j++ {
			urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,db%d.%s_%s_%d,PROD)", j%50, word(j), word(j/7), j)
			props = append(props,
				prop(urn, "dataset", "datasetProperties", map[string]any{"name": word(j) + "_" + word(j/7), "description": "table of " + word(j/3) + " " + word(j/11)}),
				prop(urn, "dataset", "globalTags", map[string]any{"tags": []map[string]any{{"tag": fmt.Sprintf("urn:li:tag:tag%d", j%20)}}}),
			)
		}
		s.ingest(b, props)
	}
	b.Logf("loaded %d datasets in %s", n, time.Since(start).Round(time.Second))
}

// benchDatasetProposals are the proposals of benchDataset: 3 owners, 3
// tags, 2 terms, a 50-field schema (5 fields tagged) and the users, tags and
// terms themselves.
func benchDatasetProposals() []catalog.Proposal {
	var props []catalog.Proposal
	var owners, tags, terms []map[string]any
	for i := range 3 {
		u := fmt.Sprintf("urn:li:corpuser:user%d", i)
		props = append(props, prop(u, "corpuser", "corpUserInfo", map[string]any{"active": true, "displayName": "User " + strconv.Itoa(i), "email": "u@example.com"}))
		owners = append(owners, map[string]any{"owner": u, "type": "DATAOWNER"})
		t := fmt.Sprintf("urn:li:tag:tag%d", i)
		props = append(props, prop(t, "tag", "tagProperties", map[string]any{"name": "tag" + strconv.Itoa(i), "description": "a tag"}))
		tags = append(tags, map[string]any{"tag": t})
	}
	for i := range 2 {
		t := fmt.Sprintf("urn:li:glossaryTerm:term%d", i)
		props = append(props, prop(t, "glossaryTerm", "glossaryTermInfo", map[string]any{"name": "term" + strconv.Itoa(i), "definition": "a term", "termSource": "INTERNAL"}))
		terms = append(terms, map[string]any{"urn": t})
	}
	var fields []map[string]any
	for i := range 50 {
		f := map[string]any{"fieldPath": fmt.Sprintf("col_%d", i), "nativeDataType": "varchar", "description": "column " + strconv.Itoa(i),
			"type": map[string]any{"type": map[string]any{"com.linkedin.schema.StringType": map[string]any{}}}}
		if i%10 == 0 {
			f["globalTags"] = map[string]any{"tags": tags[:1]}
		}
		fields = append(fields, f)
	}
	props = append(props,
		prop(benchDataset, "dataset", "datasetProperties", map[string]any{"name": "orders", "description": "Orders", "customProperties": map[string]string{"a": "1", "b": "2"}}),
		prop(benchDataset, "dataset", "ownership", map[string]any{"owners": owners, "lastModified": map[string]any{"time": 1, "actor": "urn:li:corpuser:user0"}}),
		prop(benchDataset, "dataset", "globalTags", map[string]any{"tags": tags}),
		prop(benchDataset, "dataset", "glossaryTerms", map[string]any{"terms": terms, "auditStamp": map[string]any{"time": 1, "actor": "urn:li:corpuser:user0"}}),
		prop(benchDataset, "dataset", "schemaMetadata", map[string]any{"schemaName": "orders", "platform": "urn:li:dataPlatform:hive", "version": 0, "hash": "",
			"platformSchema": map[string]any{"com.linkedin.schema.OtherSchema": map[string]any{"rawSchema": ""}}, "fields": fields}),
	)
	return props
}

// BenchmarkSearchAcrossEntities searches n generated datasets (10,000 by
// default; CATALOGD_BENCH_ENTITIES=100000 for the 100k figure) for two words
// of a dataset's name, 10 results with names and platforms.
func BenchmarkSearchAcrossEntities(b *testing.B) {
	n := benchEntities(b)
	s := newStack(b)
	loadDatasets(b, s, n)
	q := `query($q: String!) { searchAcrossEntities(input: {query: $q, start: 0, count: 10}) { total searchResults { entity { urn ... on Dataset { name platform { urn } properties { name } } } } } }`
	bodies := make([][]byte, 64)
	for i := range bodies {
		j := (i * 7919) % n
		bodies[i], _ = json.Marshal(map[string]any{"query": q, "variables": map[string]any{"q": word(j) + " " + word(j/7)}})
	}
	i := 0
	latencies(b, func() {
		s.post(b, bodies[i%len(bodies)])
		i++
	})
}

// word returns one of 1,000 pseudo-words.
func word(i int) string {
	syll := []string{"ka", "lo", "mi", "ra", "te", "su", "no", "vi", "de", "po"}
	i %= 1000
	return syll[i%10] + syll[(i/10)%10] + syll[(i/100)%10]
}

// BenchmarkHostileQueries answers queries built to exhaust the parser or the
// validator, each 3 MB or the most the bounds let through: the figures are
// the time a request of each kind holds a core.
func BenchmarkHostileQueries(b *testing.B) {
	h := graphql.New(graphql.Config{Registry: registry.Default()})
	const size = 3 << 20
	deep := func(open, inner, close string) string {
		n := size / (len(open) + len(close))
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	chain := func(n, k int) string { // unused fragments, each spreading the next
		var sb strings.Builder
		sb.WriteString("{ __typename } ")
		for i := range n - 1 {
			fmt.Fprintf(&sb, "fragment F%d on Query { ...F%d %s } ", i, i+1, strings.Repeat(" __typename", k))
		}
		fmt.Fprintf(&sb, "fragment F%d on Query { __typename }", n-1)
		return sb.String()
	}
	for _, q := range []struct{ name, query string }{
		{"nested selections", deep("{a", "", "}")},
		{"nested lists", "{ dataset(urn: " + deep("[", "1", "]") + ") { urn } }"},
		{"many fields", "{" + strings.Repeat(" __typename", size/11) + "}"},
		{"same name within bounds", "{" + strings.Repeat(" __typename", 990) + "}"},
		{"fragment chain within bounds", chain(25, 4)},
	} {
		b.Run(q.name, func(b *testing.B) {
			i := 0
			latencies(b, func() {
				// A new comment each time, so that no answer comes from the
				// query cache.
				i++
				body, _ := json.Marshal(map[string]any{"query": q.query + "\n# " + strconv.Itoa(i)})
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/graphql", bytes.NewReader(body)))
				if w.Code != http.StatusOK {
					b.Fatalf("status %d", w.Code)
				}
			})
		})
	}
}

// BenchmarkUIPages times the operations of DataHub's web UI that its search
// page and lineage views send, exactly as the UI sends them, over n
// generated datasets (CATALOGD_BENCH_ENTITIES; 100000 for the figures in
// BENCHMARKS.md) on SQLite and, with CATALOGD_TEST_POSTGRES, PostgreSQL:
// the search page's results with facets, its aggregations and
// autocomplete, getEntityLineageV2 in a 5-hop graph, and the lineage of a
// dataset with 10,000 upstreams.
func BenchmarkUIPages(b *testing.B) {
	ops, err := contract.UIOperations(filepath.Join("..", "..", "..", "shared", "datahub-ui"))
	if err != nil {
		b.Skipf("DataHub's web UI documents: %v", err)
	}
	text := map[string]string{}
	for _, op := range ops {
		text[op.Name] = op.Text()
	}
	n := benchEntities(b)
	storetest.Bench(b, func(b *testing.B, db *store.DB) {
		s := newStackOn(b, db)
		loadDatasets(b, s, n)
		mid, wide := loadLineage(b, s, n)
		body := func(op string, vars map[string]any) []byte {
			out, _ := json.Marshal(map[string]any{"query": text[op], "operationName": op, "variables": vars})
			return out
		}
		queries := func(j int) string { return word(j) + " " + word(j/7) }
		cases := []struct {
			name string
			body func(i int) []byte
			want string
		}{
			{"getSearchResultsForMultiple", func(i int) []byte {
				return body("getSearchResultsForMultiple", map[string]any{"input": map[string]any{"types": []any{}, "query": queries((i * 7919) % n),
					"start": 0, "count": 10, "filters": []any{}, "orFilters": []any{},
					"searchFlags": map[string]any{"getSuggestions": true, "includeStructuredPropertyFacets": true}}})
			}, `"facets"`},
			{"aggregateAcrossEntities", func(i int) []byte {
				return body("aggregateAcrossEntities", map[string]any{"input": map[string]any{"types": []any{}, "query": queries((i * 7919) % n),
					"orFilters": []any{}, "facets": []any{"platform", "tags", "_entityType", "_entityType␞typeNames"},
					"searchFlags": map[string]any{"maxAggValues": 20}}})
			}, `"aggregations"`},
			{"getAutoCompleteMultipleResults", func(i int) []byte {
				return body("getAutoCompleteMultipleResults", map[string]any{"input": map[string]any{"query": word((i * 7919) % n)[:4], "limit": 10}})
			}, `"suggestions"`},
			{"getEntityLineageV2/5-hop", func(int) []byte {
				return body("getEntityLineageV2", map[string]any{"urn": mid, "showColumns": false, "separateSiblings": false})
			}, `"upstream"`},
			{"getEntityLineageV2/10k-upstreams", func(int) []byte {
				return body("getEntityLineageV2", map[string]any{"urn": wide, "showColumns": false, "separateSiblings": false})
			}, fmt.Sprintf(`"total":%d`, min(n, 10000))},
		}
		for _, c := range cases {
			b.Run(c.name, func(b *testing.B) {
				if out := s.post(b, c.body(0)); !bytes.Contains(out, []byte(c.want)) {
					b.Fatalf("answer without %s: %.1000s", c.want, out)
				}
				i := 0
				latencies(b, func() {
					s.post(b, c.body(i))
					i++
				})
			})
		}
	})
}

// loadLineage adds lineage between the generated datasets: five hops of ten
// datasets each, every one reading all ten of the hop before, whose middle
// dataset it returns, and a dataset reading the first 10,000 datasets (all
// n when fewer), which it returns second.
func loadLineage(b *testing.B, s *stack, n int) (mid, wide string) {
	b.Helper()
	dataset := func(name string) string { return "urn:li:dataset:(urn:li:dataPlatform:hive,lineage." + name + ",PROD)" }
	upstreams := func(urns []string) map[string]any {
		var ups []map[string]any
		for _, u := range urns {
			ups = append(ups, map[string]any{"dataset": u, "type": "TRANSFORMED", "auditStamp": map[string]any{"time": 1, "actor": "urn:li:corpuser:etl"}})
		}
		return map[string]any{"upstreams": ups}
	}
	var props []catalog.Proposal
	var prev []string
	for hop := range 6 {
		var cur []string
		for k := range 10 {
			u := dataset(fmt.Sprintf("hop%d_%d", hop, k))
			cur = append(cur, u)
			props = append(props, prop(u, "dataset", "datasetProperties", map[string]any{"name": fmt.Sprintf("hop%d_%d", hop, k)}))
			if prev != nil {
				props = append(props, prop(u, "dataset", "upstreamLineage", upstreams(prev)))
			}
		}
		prev = cur
	}
	var all []string
	for j := range min(n, 10000) {
		all = append(all, fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,db%d.%s_%s_%d,PROD)", j%50, word(j), word(j/7), j))
	}
	wide = dataset("wide")
	props = append(props, prop(wide, "dataset", "datasetProperties", map[string]any{"name": "wide"}), prop(wide, "dataset", "upstreamLineage", upstreams(all)))
	s.ingest(b, props)
	return dataset("hop3_0"), wide
}
