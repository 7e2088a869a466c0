package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/catalogd/catalogd/internal/metrics"
)

// TestOperationNamesBounded checks that operation names become labels only
// up to the limit, and names no client can make a label of.
func TestOperationNamesBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	for i := 0; i < metrics.MaxOperationNames+50; i++ {
		m.ObserveOperation(fmt.Sprintf("op%d", i), "ok", time.Millisecond)
	}
	m.ObserveOperation("op0", "ok", time.Millisecond) // named before the limit
	for _, name := range []string{"", "with space", "1leadingDigit", strings.Repeat("a", 101), "caf\xe9"} {
		m.ObserveOperation(name, "rejected", time.Millisecond)
	}
	for _, tc := range []struct {
		operation, outcome string
		want               float64
	}{
		{"op0", "ok", 2},
		{fmt.Sprintf("op%d", metrics.MaxOperationNames-1), "ok", 1},
		{"other", "ok", 50},
		{"anonymous", "rejected", 1},
		{"invalid", "rejected", 4},
	} {
		c, err := metricValue(reg, "catalogd_graphql_operations_total", map[string]string{"operation": tc.operation, "outcome": tc.outcome})
		if err != nil || c != tc.want {
			t.Errorf("operation %q outcome %s: %v (%v), want %v", tc.operation, tc.outcome, c, err, tc.want)
		}
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == "catalogd_graphql_operations_total" && len(f.GetMetric()) != metrics.MaxOperationNames+3 {
			t.Errorf("%d series, want %d", len(f.GetMetric()), metrics.MaxOperationNames+3)
		}
	}
}

// metricValue is the value of the one counter of family name with labels.
func metricValue(g prometheus.Gatherer, name string, labels map[string]string) (float64, error) {
	fams, err := g.Gather()
	if err != nil {
		return 0, err
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
					continue next
				}
			}
			return m.GetCounter().GetValue(), nil
		}
	}
	return 0, fmt.Errorf("no %s%v", name, labels)
}

// TestOutboxGauges checks the outbox gauges, and that a failure to read the
// outbox leaves them out of a scrape without failing it.
func TestOutboxGauges(t *testing.T) {
	var lag struct {
		sync.Mutex
		pending int64
		oldest  time.Time
		err     error
	}
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	m.AuthFailure("no_credentials")
	metrics.WatchOutbox(reg, func(context.Context) (int64, time.Time, error) {
		lag.Lock()
		defer lag.Unlock()
		return lag.pending, lag.oldest, lag.err
	})
	srv := httptest.NewServer(metrics.Handler(reg))
	defer srv.Close()
	scrape := func() string {
		t.Helper()
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("scrape: %d %s", resp.StatusCode, b)
		}
		return string(b)
	}

	got := scrape()
	for _, want := range []string{"catalogd_search_outbox_pending 0\n", "catalogd_search_outbox_oldest_age_seconds 0\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("empty outbox: no %q in\n%s", want, got)
		}
	}
	lag.Lock()
	lag.pending, lag.oldest = 7, time.Now().Add(-90*time.Second)
	lag.Unlock()
	got = scrape()
	if !strings.Contains(got, "catalogd_search_outbox_pending 7\n") || !strings.Contains(got, "catalogd_search_outbox_oldest_age_seconds 90.") {
		t.Errorf("7 entries, the oldest 90s old:\n%s", got)
	}
	lag.Lock()
	lag.err = errors.New("database is down")
	lag.Unlock()
	got = scrape()
	if strings.Contains(got, "catalogd_search_outbox_pending") || !strings.Contains(got, `catalogd_auth_failures_total{reason="no_credentials"} 1`) {
		t.Errorf("outbox unreadable: want its gauges left out and the rest served:\n%s", got)
	}
}
