package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

// setup opens a fresh SQLite store with the auth service bootstrapped.
func setup(tb testing.TB) (*auth.Service, *ingest.Service) {
	tb.Helper()
	return setupOn(tb, storetest.Open(tb, storetest.SQLiteDSN(tb)))
}

// setupOn bootstraps an auth service on db, as a server does: each call on
// one database is another replica.
func setupOn(tb testing.TB, db *store.DB) (*auth.Service, *ingest.Service) {
	tb.Helper()
	ctx := context.Background()
	svc, _, err := auth.New(ctx, db, auth.Config{SigningKey: "bench-signing-key", SystemClientSecret: "s3cret", RootPassword: "root-password"})
	if err != nil {
		tb.Fatal(err)
	}
	rec, err := audit.New(ctx, db, []byte("k"))
	if err != nil {
		tb.Fatal(err)
	}
	ing := ingest.New(registry.Default(), db, ingest.WithAuditor(rec), ingest.WithAuditor(svc), ingest.WithAuthorizer(svc))
	if _, err := svc.Bootstrap(ctx, ing, rec); err != nil {
		tb.Fatal(err)
	}
	return svc, ing
}

// BenchmarkMiddleware measures what authentication and authorization add to
// a request: the middleware around a handler that does nothing, for a read
// of one entity (view privilege checked against the policies).
func BenchmarkMiddleware(b *testing.B) {
	storetest.Bench(b, benchMiddleware)
}

func benchMiddleware(b *testing.B, db *store.DB) {
	svc, _ := setupOn(b, db)
	ctx := context.Background()
	session, err := svc.Login(ctx, "datahub", "root-password", auth.Client{Address: "127.0.0.1"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.EnsureUser(ctx, catalog.SystemActor, "urn:li:corpuser:reader"); err != nil {
		b.Fatal(err)
	}
	personal, _, err := svc.CreateAccessToken(ctx, catalog.SystemActor, "urn:li:corpuser:reader", "bench", "", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	h := svc.Middleware(auth.MiddlewareConfig{Enabled: true, WriteError: func(w http.ResponseWriter, _ *http.Request, err error) {
		b.Fatalf("refused: %v", err)
	}}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	path := "/entitiesV2/urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Cbench%2CPROD%29"
	for _, c := range []struct{ name, header string }{
		{"session", "Bearer " + session.AccessToken},
		{"personal", "Bearer " + personal},
		{"system", "Basic __datahub_system:s3cret"},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Authorization", c.header)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req) // warm the caches
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				h.ServeHTTP(w, req)
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
		})
	}
	// Cold: every token is new, so each request verifies a signature and
	// (personal tokens) reads the store.
	b.Run("session-uncached", func(b *testing.B) {
		tokens := make([]string, b.N)
		for i := range tokens {
			s, err := svc.IssueToken(ctx, catalog.SystemActor, "urn:li:corpuser:datahub", auth.Session, time.Hour)
			if err != nil {
				b.Fatal(err)
			}
			tokens[i] = "Bearer " + s
		}
		w := httptest.NewRecorder()
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Authorization", tokens[i])
			start := time.Now()
			h.ServeHTTP(w, req)
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "p50-µs")
	})
}
