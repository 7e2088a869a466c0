// Package metrics defines catalogd's Prometheus metrics: HTTP requests by
// route, GraphQL operations, ingest, store transactions, the search outbox
// and authentication failures. The other packages know nothing of
// Prometheus: they report through small hooks (functions and interfaces of
// their own) that the program wires to the methods of Metrics.
//
// Every label has a bounded set of values, so that a client cannot grow the
// number of series: routes are the registered patterns, GraphQL operation
// names are kept up to MaxOperationNames, entity types and aspects come from
// the registry, error reasons from a fixed list.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// latencyBuckets suit requests that mostly take well under a millisecond
// (entity reads) but may take seconds (large batches, index restores).
var latencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// Metrics holds catalogd's metrics. Its methods are safe for concurrent use.
type Metrics struct {
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	httpInFlight prometheus.Gauge

	gqlOperations *prometheus.CounterVec
	gqlDuration   *prometheus.HistogramVec
	gqlNames      boundedNames

	aspects   *prometheus.CounterVec
	proposals *prometheus.CounterVec

	txWait     prometheus.Histogram
	txDuration *prometheus.HistogramVec

	authFailures *prometheus.CounterVec
}

// New registers catalogd's metrics with reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "catalogd_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "catalogd_http_request_duration_seconds",
			Help:    "Time from a request's headers to the end of its handler, by route pattern and method.",
			Buckets: latencyBuckets,
		}, []string{"route", "method"}),
		httpInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "catalogd_http_requests_in_flight",
			Help: "HTTP requests being handled.",
		}),
		gqlOperations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "catalogd_graphql_operations_total",
			Help: "GraphQL operations answered, by operation name and outcome: ok, error (it ran and reported errors) or rejected (it did not run: syntax, validation, limits).",
		}, []string{"operation", "outcome"}),
		gqlDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "catalogd_graphql_operation_duration_seconds",
			Help:    "Time to answer a GraphQL operation once its request was read, by operation name.",
			Buckets: latencyBuckets,
		}, []string{"operation"}),
		gqlNames: boundedNames{limit: MaxOperationNames, seen: map[string]bool{}},
		aspects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "catalogd_ingest_aspects_total",
			Help: "Aspect changes committed by the write pipeline, by entity type, aspect and change: write (a new version or timeseries value) or delete. Rewrites of an unchanged value are not counted.",
		}, []string{"entity", "aspect", "change"}),
		proposals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "catalogd_ingest_proposals_total",
			Help: "Proposals handed to the write pipeline, by outcome: applied, or the kind of error that failed their request (invalid, forbidden, conflict, ...); every proposal of a failed request counts as failed.",
		}, []string{"outcome"}),
		txWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "catalogd_store_write_wait_seconds",
			Help:    "Time a write transaction waited to begin (on SQLite, for the one writer slot).",
			Buckets: latencyBuckets,
		}),
		txDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "catalogd_store_write_transaction_seconds",
			Help:    "Time from the start of a write transaction to its commit or rollback, by outcome: commit or rollback.",
			Buckets: latencyBuckets,
		}, []string{"outcome"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "catalogd_auth_failures_total",
			Help: "Requests refused by authentication or by a route's privilege check, and failed logins, by reason.",
		}, []string{"reason"}),
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.httpInFlight, m.gqlOperations, m.gqlDuration,
		m.aspects, m.proposals, m.txWait, m.txDuration, m.authFailures)
	return m
}

// Handler serves the metrics gathered by g in Prometheus's exposition formats.
func Handler(g prometheus.Gatherer) http.Handler {
	// A collector that fails (the outbox's database) leaves out its own
	// metrics, not the others.
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorLog: slogLogger{}, ErrorHandling: promhttp.ContinueOnError})
}

type slogLogger struct{}

func (slogLogger) Println(v ...any) { slog.Warn("metrics exposition", "err", v) }

// Middleware counts and times the requests next serves. route names the
// route of a request, from a bounded set of values ("" for none).
func (m *Metrics) Middleware(route func(*http.Request) string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		m.httpInFlight.Inc()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			m.httpInFlight.Dec()
			rt := route(r)
			if rt == "" {
				rt = "unmatched"
			}
			method := methodLabel(r.Method)
			m.httpRequests.WithLabelValues(rt, method, statusLabel(sw.status)).Inc()
			m.httpDuration.WithLabelValues(rt, method).Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(sw, r)
	})
}

func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodHead, http.MethodOptions:
		return m
	}
	return "other"
}

// statusLabels spares formatting the common status codes per request.
var statusLabels = func() map[int]string {
	m := map[int]string{}
	for code := 100; code < 600; code++ {
		if http.StatusText(code) != "" {
			m[code] = strconv.Itoa(code)
		}
	}
	return m
}()

func statusLabel(code int) string {
	if s, ok := statusLabels[code]; ok {
		return s
	}
	return "other"
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// MaxOperationNames is the number of distinct GraphQL operation names
// labelled by name; operations named otherwise are counted as "other".
const MaxOperationNames = 200

// ObserveOperation counts a GraphQL operation: name as the request gave it
// ("" for an anonymous one), outcome ok, error or rejected, and the time it
// took.
func (m *Metrics) ObserveOperation(name, outcome string, d time.Duration) {
	label := m.gqlNames.label(name)
	m.gqlOperations.WithLabelValues(label, outcome).Inc()
	m.gqlDuration.WithLabelValues(label).Observe(d.Seconds())
}

// boundedNames labels the first limit distinct valid names as themselves
// and every later one as "other".
type boundedNames struct {
	limit int
	mu    sync.RWMutex
	seen  map[string]bool
}

func (b *boundedNames) label(name string) string {
	switch {
	case name == "":
		return "anonymous"
	case !validName(name):
		return "invalid"
	}
	b.mu.RLock()
	ok, full := b.seen[name], len(b.seen) >= b.limit
	b.mu.RUnlock()
	if ok {
		return name
	}
	if full {
		return "other"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.seen[name] && len(b.seen) >= b.limit {
		return "other"
	}
	b.seen[name] = true
	return name
}

// validName reports whether s is a GraphQL name (/[_A-Za-z][_0-9A-Za-z]*/)
// of reasonable length; a request may name an operation anything.
func validName(s string) bool {
	if len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// AspectChanged counts an aspect change committed by the write pipeline.
func (m *Metrics) AspectChanged(entity, aspect string, deleted bool) {
	change := "write"
	if deleted {
		change = "delete"
	}
	m.aspects.WithLabelValues(entity, aspect, change).Inc()
}

// Proposals counts n proposals with an outcome: "applied", or the kind of
// the error that failed their request.
func (m *Metrics) Proposals(outcome string, n int) {
	m.proposals.WithLabelValues(outcome).Add(float64(n))
}

// ObserveTransaction times a write transaction: how long it waited to
// begin, how long it then ran, and whether it committed.
func (m *Metrics) ObserveTransaction(wait, run time.Duration, committed bool) {
	outcome := "rollback"
	if committed {
		outcome = "commit"
	}
	m.txWait.Observe(wait.Seconds())
	m.txDuration.WithLabelValues(outcome).Observe(run.Seconds())
}

// AuthFailure counts a refused request or a failed login.
func (m *Metrics) AuthFailure(reason string) {
	m.authFailures.WithLabelValues(reason).Inc()
}

// OutboxLag reads the search outbox: the entries not yet indexed and when
// the oldest of them was written (zero when there is none).
type OutboxLag func(ctx context.Context) (pending int64, oldest time.Time, err error)

// WatchOutbox registers with reg the gauges of the search outbox, read by
// lag at each scrape (so every replica reports the shared outbox, whichever
// one drains it).
func WatchOutbox(reg prometheus.Registerer, lag OutboxLag) {
	reg.MustRegister(&outboxCollector{lag: lag})
}

var (
	outboxPendingDesc = prometheus.NewDesc("catalogd_search_outbox_pending",
		"Search outbox entries not yet indexed by the external search engine.", nil, nil)
	outboxAgeDesc = prometheus.NewDesc("catalogd_search_outbox_oldest_age_seconds",
		"Age of the oldest search outbox entry not yet indexed; 0 when the outbox is empty: how far search lags behind the store.", nil, nil)
)

type outboxCollector struct{ lag OutboxLag }

func (c *outboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- outboxPendingDesc
	ch <- outboxAgeDesc
}

func (c *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pending, oldest, err := c.lag(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(outboxPendingDesc, err)
		return
	}
	age := 0.0
	if !oldest.IsZero() {
		age = max(0, time.Since(oldest).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(outboxPendingDesc, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(outboxAgeDesc, prometheus.GaugeValue, age)
}
