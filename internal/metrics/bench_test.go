package metrics_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/catalogd/catalogd/internal/metrics"
)

// BenchmarkMiddleware measures what counting and timing adds to a request,
// routed as the server routes it (a ServeMux lookup names the route).
func BenchmarkMiddleware(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /entitiesV2/", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "{}") })
	route := func(r *http.Request) string {
		_, p := mux.Handler(r)
		return p
	}
	req := httptest.NewRequest("GET", "/entitiesV2/urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Cdb.orders%2CPROD%29", nil)
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", mux},
		{"instrumented", metrics.New(prometheus.NewRegistry()).Middleware(route, mux)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			w := httptest.NewRecorder()
			for b.Loop() {
				w.Body.Reset()
				bc.h.ServeHTTP(w, req)
			}
		})
	}
}
