package main

import (
	"context"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/metrics"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// metricFamilies is a parsed scrape.
type metricFamilies map[string]*dto.MetricFamily

func parseMetrics(t *testing.T, body []byte) metricFamilies {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parse the exposition: %v\n%.2000s", err, body)
	}
	return fams
}

// value sums the series of the named family whose labels include want:
// counter and gauge values, histogram sample counts.
func (f metricFamilies) value(name string, want map[string]string) float64 {
	fam := f[name]
	if fam == nil {
		return 0
	}
	sum := 0.0
	for _, m := range fam.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			if labels[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

// labelValues lists every label value of every series.
func (f metricFamilies) labelValues() []string {
	var out []string
	for _, fam := range f {
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}

// TestMetrics makes requests of every kind to a server with authentication
// on and checks that the metrics at /metrics moved by as much, with the
// right labels; that /metrics needs credentials and the Get Analytics
// privilege on the API port, and none on the debug address; and that what
// a client sends never becomes a label of its own.
func TestMetrics(t *testing.T) {
	s := startAuthServer(t, "--debug-addr", "127.0.0.1:0")
	admin := bearer(s.admin)
	scrape := func() metricFamilies {
		t.Helper()
		st, b, h := s.callH(t, admin, "GET", "/metrics", nil)
		if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
			t.Fatalf("GET /metrics as the root user: %d %s %.300s", st, h.Get("Content-Type"), b)
		}
		return parseMetrics(t, b)
	}

	if st, b := s.call(t, "", "GET", "/metrics", nil); st != 401 {
		t.Errorf("GET /metrics without credentials: %d %.300s, want 401", st, b)
	}
	reader, _ := s.cliToken(t, "reader")
	if st, b := s.call(t, bearer(reader), "GET", "/metrics", nil); st != 403 {
		t.Errorf("GET /metrics as a reader: %d %.300s, want 403", st, b)
	}

	before := scrape()
	ds := "urn:li:dataset:(urn:li:dataPlatform:hive,metrics.orders,PROD)"
	if st, b := s.call(t, admin, "POST", "/aspects?action=ingestProposal",
		map[string]any{"proposal": mcp("dataset", ds, "status", map[string]any{"removed": false})}); st != 200 {
		t.Fatalf("ingest: %d %s", st, b)
	}
	if st, b := s.call(t, admin, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
		mcp("dataset", ds, "status", map[string]any{"removed": true}),
		mcp("dataset", ds, "noSuchAspect", map[string]any{}),
	}}); st != 400 {
		t.Fatalf("invalid batch: %d %s", st, b)
	}
	if st, b := s.call(t, admin, "GET", "/entitiesV2/"+pathEscape(ds), nil); st != 200 {
		t.Fatalf("read: %d %s", st, b)
	}
	if st, b := s.call(t, "", "GET", "/entitiesV2/"+pathEscape(ds), nil); st != 401 {
		t.Fatalf("read without credentials: %d %s", st, b)
	}
	if st, b := s.call(t, "Bearer not-a-token", "GET", "/entitiesV2/"+pathEscape(ds), nil); st != 401 {
		t.Fatalf("read with a bad token: %d %s", st, b)
	}
	for _, q := range []map[string]any{
		{"query": "query metricsProbe { me { corpUser { urn } } }", "operationName": "metricsProbe"},
		{"query": "query metricsBroken { noSuchField }", "operationName": "metricsBroken"},
		{"query": "{ me { corpUser { urn } } }"},
		{"query": "query x { me { corpUser { urn } } }", "operationName": "not a name"},
	} {
		if st, b := s.call(t, admin, "POST", "/api/graphql", q); st != 200 {
			t.Fatalf("graphql %v: %d %s", q, st, b)
		}
	}
	if st, b := s.call(t, "", "POST", "/logIn", map[string]string{"username": "datahub", "password": "wrong"}); st != 401 {
		t.Fatalf("login with a wrong password: %d %s", st, b)
	}
	// A path no route serves, outside the contract.
	req, err := http.NewRequest("GET", s.URL+"/no-such-route-a1b2c3/"+pathEscape(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	after := scrape()

	for _, c := range []struct {
		name   string
		labels map[string]string
		delta  float64
	}{
		{"catalogd_http_requests_total", map[string]string{"route": "POST /aspects?action=ingestProposal", "method": "POST", "status": "200"}, 1},
		{"catalogd_http_requests_total", map[string]string{"route": "POST /aspects?action=ingestProposalBatch", "method": "POST", "status": "400"}, 1},
		{"catalogd_http_requests_total", map[string]string{"route": "GET /entitiesV2/", "method": "GET", "status": "200"}, 1},
		{"catalogd_http_requests_total", map[string]string{"route": "GET /entitiesV2/", "method": "GET", "status": "401"}, 2},
		{"catalogd_http_requests_total", map[string]string{"route": "/api/graphql", "method": "POST", "status": "200"}, 4},
		{"catalogd_http_requests_total", map[string]string{"route": "POST /logIn", "status": "401"}, 1},
		{"catalogd_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "status": "404"}, 1},
		{"catalogd_http_requests_total", map[string]string{"route": "GET /metrics", "status": "200"}, 1},
		{"catalogd_http_request_duration_seconds", map[string]string{"route": "GET /entitiesV2/", "method": "GET"}, 3},
		{"catalogd_graphql_operations_total", map[string]string{"operation": "metricsProbe", "outcome": "ok"}, 1},
		{"catalogd_graphql_operations_total", map[string]string{"operation": "metricsBroken", "outcome": "rejected"}, 1},
		{"catalogd_graphql_operations_total", map[string]string{"operation": "anonymous", "outcome": "ok"}, 1},
		{"catalogd_graphql_operations_total", map[string]string{"operation": "invalid", "outcome": "rejected"}, 1},
		{"catalogd_graphql_operation_duration_seconds", map[string]string{"operation": "metricsProbe"}, 1},
		{"catalogd_ingest_aspects_total", map[string]string{"entity": "dataset", "aspect": "status", "change": "write"}, 1},
		{"catalogd_ingest_aspects_total", map[string]string{"entity": "dataset", "aspect": "datasetKey", "change": "write"}, 1},
		{"catalogd_ingest_proposals_total", map[string]string{"outcome": "applied"}, 1},
		{"catalogd_ingest_proposals_total", map[string]string{"outcome": "invalid"}, 2},
		{"catalogd_auth_failures_total", map[string]string{"reason": "no_credentials"}, 1},
		{"catalogd_auth_failures_total", map[string]string{"reason": "bad_credentials"}, 1},
		{"catalogd_auth_failures_total", map[string]string{"reason": "login_rejected"}, 1},
	} {
		if got := after.value(c.name, c.labels) - before.value(c.name, c.labels); got != c.delta {
			t.Errorf("%s%v moved by %v, want %v", c.name, c.labels, got, c.delta)
		}
	}
	// Writes run in transactions; the reader's 403 counted before.
	if after.value("catalogd_store_write_transaction_seconds", map[string]string{"outcome": "commit"}) <=
		before.value("catalogd_store_write_transaction_seconds", map[string]string{"outcome": "commit"}) {
		t.Error("no committed write transaction observed")
	}
	if before.value("catalogd_auth_failures_total", map[string]string{"reason": "forbidden"}) != 1 {
		t.Errorf("the reader's refused scrape is not counted as forbidden")
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "catalogd_http_requests_in_flight"} {
		if after[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
	for _, v := range after.labelValues() {
		if strings.Contains(v, "a1b2c3") || strings.Contains(v, "metrics.orders") || strings.Contains(v, "not a name") {
			t.Errorf("a label holds what a client sent: %q", v)
		}
	}

	// The debug address serves the same metrics without credentials.
	m := regexp.MustCompile(`profiler and metrics listening" addr=(\S+)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no debug address logged:\n%s", s.stderr)
	}
	dresp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(dresp.Body)
	dresp.Body.Close()
	if dresp.StatusCode != 200 {
		t.Fatalf("debug /metrics: %d %s", dresp.StatusCode, body)
	}
	debug := parseMetrics(t, body)
	if got := debug.value("catalogd_graphql_operations_total", map[string]string{"operation": "metricsProbe"}); got != 1 {
		t.Errorf("debug /metrics: metricsProbe counted %v times, want 1; families: %v", got, slices.Sorted(maps.Keys(debug)))
	}
}

// TestOutboxLagMetrics checks the search outbox gauges the server exposes
// with Meilisearch against a real store: writes waiting to be indexed, and
// none once drained.
func TestOutboxLagMetrics(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "catalogd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.OpenOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	promReg, _ := newMetrics()
	metrics.WatchOutbox(promReg, db.SearchOutboxLag)
	gather := func() metricFamilies {
		t.Helper()
		fams, err := promReg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := metricFamilies{}
		for _, f := range fams {
			out[f.GetName()] = f
		}
		return out
	}
	reg := registry.Default()
	svc := ingest.New(reg, db, ingest.WithIndexer(&search.OutboxIndexer{Kick: func() {}}))
	var props []catalog.Proposal
	for _, name := range []string{"orders", "customers"} {
		props = append(props, catalog.Proposal{EntityType: "dataset", ChangeType: catalog.Upsert, AspectName: "status",
			EntityURN: "urn:li:dataset:(urn:li:dataPlatform:hive," + name + ",PROD)", Value: []byte(`{"removed":false}`)})
	}
	if _, err := svc.Ingest(ctx, "", props); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	got := gather()
	if p, age := got.value("catalogd_search_outbox_pending", nil), got.value("catalogd_search_outbox_oldest_age_seconds", nil); p != 2 || age <= 0 {
		t.Errorf("two writes waiting: pending %v, oldest age %vs", p, age)
	}
	target, err := db.OpenSearch(ctx, search.Fields(reg))
	if err != nil {
		t.Fatal(err)
	}
	if err := search.NewDrainer(db, db, target, search.NewBuilder(reg)).Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got = gather()
	if p, age := got.value("catalogd_search_outbox_pending", nil), got.value("catalogd_search_outbox_oldest_age_seconds", nil); p != 0 || age != 0 {
		t.Errorf("drained: pending %v, oldest age %vs", p, age)
	}
}
