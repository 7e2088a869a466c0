package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"path/filepath"
	"sync"
	"time"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/events"
	"github.com/catalogd/catalogd/internal/graph"
	"github.com/catalogd/catalogd/internal/graphql"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/metrics"
	"github.com/catalogd/catalogd/internal/openlineage"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/restli"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/timeline"
	"github.com/catalogd/catalogd/internal/webui"
)

// Version is the catalogd version, reported at /config.
var Version = "0.1.0"

// storeFlags are the flags that choose where data lives, shared by the
// subcommands that open the store.
type storeFlags struct {
	dataDir string
	store   string
}

func (s *storeFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&s.dataDir, "data-dir", envOr(getenv, "CATALOGD_DATA_DIR", "data"), "directory of the embedded store (env CATALOGD_DATA_DIR)")
	fs.StringVar(&s.store, "store", getenv("CATALOGD_STORE"), "store DSN: postgres://... for the scale-out mode; default the SQLite file in --data-dir (env CATALOGD_STORE)")
}

func (s *storeFlags) dsn() string {
	if s.store != "" {
		return s.store
	}
	return "sqlite:" + filepath.Join(s.dataDir, "catalogd.db")
}

func (s *storeFlags) open(ctx context.Context, opts ...store.Option) (*store.DB, error) {
	db, err := store.Open(ctx, s.dsn(), opts...)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return db, nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs, getenv)
	addr := fs.String("addr", envOr(getenv, "CATALOGD_ADDR", "127.0.0.1:8080"), "listen address HOST:PORT; port 0 picks a free port (env CATALOGD_ADDR)")
	maxBody := fs.Int64("max-body", restli.DefaultMaxBody, "request body limit in bytes")
	logLevel := fs.String("log-level", envOr(getenv, "CATALOGD_LOG_LEVEL", "info"), "debug, info, warn or error")
	searchSpec := fs.String("search", envOr(getenv, "CATALOGD_SEARCH", "store"), "search engine: store (in the store's database) or meilisearch://HOST:PORT (key in env CATALOGD_MEILISEARCH_KEY) (env CATALOGD_SEARCH)")
	debugAddr := fs.String("debug-addr", getenv("CATALOGD_DEBUG_ADDR"), "if set, serve Go's profiler (/debug/pprof/) and the metrics (/metrics) without credentials on this separate HOST:PORT, never on the API port (env CATALOGD_DEBUG_ADDR)")
	var timeouts httpTimeouts
	timeouts.register(fs, getenv)
	var ingf ingestionFlags
	ingf.register(fs, getenv)
	uiDir := fs.String("ui", getenv("CATALOGD_UI_DIR"), "serve the built DataHub web app in this directory (datahub-web-react's dist), with its sign-in, on the API's address (env CATALOGD_UI_DIR)")
	eventRetention := fs.Duration("event-retention", envDuration(getenv, "CATALOGD_EVENT_RETENTION", 7*24*time.Hour), "how long the event stream keeps events (env CATALOGD_EVENT_RETENTION)")
	authOn := fs.Bool("auth", envOr(getenv, "CATALOGD_AUTH", "true") != "false", "require credentials and check privileges; --auth=false is a development mode in which every caller is the system or the X-DataHub-Actor user (env CATALOGD_AUTH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if timeouts.err != nil {
		return timeouts.err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("bad -log-level: %w", err)
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))

	start := time.Now()
	promReg, m := newMetrics()
	db, err := sf.open(ctx, store.WithTxObserver(m.ObserveTransaction))
	if err != nil {
		return err
	}
	defer db.Close()
	reg := registry.Default()
	ss, err := openSearch(ctx, *searchSpec, getenv, db, reg)
	if err != nil {
		return err
	}
	defer ss.close()
	// Background work ends, and is waited for, before the search engine
	// and the store close (deferred above), on every way out: a drainer or
	// pruner still running used the store after it had closed, and one
	// left running after an early return used it forever.
	bg, stopBackground := context.WithCancel(ctx)
	var background sync.WaitGroup
	defer func() {
		stopBackground()
		background.Wait()
	}()
	if ss.drainer != nil {
		background.Go(func() { ss.drainer.Run(bg) })
		metrics.WatchOutbox(promReg, db.SearchOutboxLag)
	}
	authSvc, rec, err := openAuth(ctx, &sf, db, getenv, *authOn, stdout)
	if err != nil {
		return err
	}
	// With --auth=false the authorizer allows everything.
	stream, recordEvents, err := openEvents(ctx, db)
	if err != nil {
		return err
	}
	background.Go(func() { stream.Prune(bg, *eventRetention) })
	opts := []ingest.Option{ingest.WithIndexer(ss.indexer), ingest.WithAuditor(rec), ingest.WithAuditor(authSvc), ingest.WithAuthorizer(authSvc),
		ingest.WithObserver(ingestMetrics{m}), ingest.WithKeyedReferenceFinder(ss.service), recordEvents}
	if db.Dialect() == store.SQLite {
		// One write transaction at a time: requests waiting for it do
		// their work ahead of it (see the ingest figures in BENCHMARKS.md).
		opts = append(opts, ingest.WithPlanAhead(db))
	}
	svc := ingest.New(reg, db, opts...)
	if err := bootstrapAuth(ctx, authSvc, svc, rec, stdout); err != nil {
		return err
	}
	// The read APIs never see secret aspects (credentials).
	reads := auth.FilterReader{Store: db}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	base := "http://" + ln.Addr().String()
	managed, executor, err := openIngestion(ctx, &ingf, db, svc, authSvc, getenv, base)
	if err != nil {
		ln.Close()
		return err
	}
	if executor != nil {
		// Stopped, its runs recorded, before the store closes.
		exCtx, stopExecutor := context.WithCancel(ctx)
		exDone := make(chan struct{})
		go func() {
			defer close(exDone)
			executor.Run(exCtx)
		}()
		defer func() {
			stopExecutor()
			<-exDone
		}()
	}
	api := restli.New(restli.Config{
		Registry:     reg,
		Store:        reads,
		Ingest:       svc,
		Actor:        actorOf,
		MaxBody:      *maxBody,
		ServerConfig: serverConfig(base, getenv),
	})
	api.ServeRelationships()
	api.RegisterSearch(ss.service, ss.restorer)
	api.ServeTimeseries()
	api.ServeUsage()
	timelines := timeline.NewService(db)
	analytics, err := envBool(getenv, "DATAHUB_ANALYTICS_ENABLED", true)
	if err != nil {
		return err
	}
	gqlConfig := graphql.Config{
		Registry: reg, Store: reads, Ingest: svc, Search: ss.service, Lineage: graph.New(db, reg),
		Auth: authSvc, Timeline: timelines, Ingestion: managed, Actor: actorOf, MaxBody: *maxBody, ObserveOperation: m.ObserveOperation,
	}
	if analytics {
		// As in DataHub, the usage-based recommendations need analytics.
		gqlConfig.Usage = rec
	}
	gql := graphql.New(gqlConfig)
	// DataHub serves GraphQL at /api/graphql; its frontend proxy adds /api/v2/graphql.
	api.HandleFunc("/api/graphql", gql.ServeHTTP)
	api.HandleFunc("/api/v2/graphql", gql.ServeHTTP)
	api.ServeOpenAPI(ss.service, authSvc.RequireView)
	api.HandleFunc("POST "+auth.LoginPath, authSvc.LoginHandler(restli.WriteError))
	api.HandleFunc("POST "+audit.SearchPath, rec.SearchHandler(restli.WriteError))
	api.HandleFunc("GET "+events.PollPath, stream.PollHandler(restli.WriteError))
	api.HandleFunc("GET "+timeline.Path, timelines.Handler(restli.WriteError))
	api.HandleFunc("POST "+openlineage.Path, openlineage.Handler(svc, actorOf, restli.WriteError))
	api.HandleFunc("GET "+auth.MetricsPath, metrics.Handler(promReg).ServeHTTP)
	var app *webui.App
	if *uiDir != "" {
		if app, err = webui.NewApp(*uiDir, isAPIPath); err != nil {
			return err
		}
		defer app.Close()
	}
	webui.Register(api, webui.Options{AuthRequired: *authOn, SessionActor: authSvc.SessionActor})
	sso, err := openSSO(getenv, authSvc, base)
	if err != nil {
		return err
	}
	registerSignIn(api, authSvc, rec, app != nil, analytics, sso)
	root, route := withApp(api, app)
	handler := authSvc.Middleware(auth.MiddlewareConfig{
		Enabled: *authOn, WriteError: restli.WriteError, OnFailure: m.AuthFailure, EntityURN: api.EntityPathURN,
		Public: func(r *http.Request) bool { return app != nil && api.Route(r) == "" && app.Serves(r) },
	}, root)
	srv := timeouts.server(m.Middleware(route, logRequests(handler)))
	if *debugAddr != "" {
		if err := serveDebug(bg, *debugAddr, &timeouts, metrics.Handler(promReg)); err != nil {
			return err
		}
	}
	storeAttr := slog.String("store", db.Dialect())
	if db.Dialect() == store.SQLite {
		storeAttr = slog.String("store", db.Dialect()+": "+store.SQLiteEngine())
	}
	slog.Info("catalogd started", "addr", base, storeAttr, "startup", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(stdout, "catalogd listening on %s\n", base)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// actorOf is the caller of r as the auth middleware established it.
func actorOf(r *http.Request) string {
	if a, ok := auth.ActorFrom(r.Context()); ok && a.URN != "" {
		return a.URN
	}
	return catalog.SystemActor
}

// datahubVersion is the DataHub release whose interface catalogd serves.
// /config reports it, with a "v", as the server's version; it is kept below
// 1.0.1 so SDKs keep using the rest.li endpoints catalogd serves.
const datahubVersion = "0.14.1"

// serverConfig is the GET /config document. DataHub's Python SDK refuses to
// talk to a server whose noCode is not the string "true".
// managedIngestion.defaultCliVersion is the DataHub CLI version that works
// with the server, which DataHub derives from its own release version and
// lets UI_INGESTION_DEFAULT_CLI_VERSION override.
func serverConfig(base string, getenv func(string) string) map[string]any {
	return map[string]any{
		"noCode":                   "true",
		"retention":                "true",
		"statefulIngestionCapable": true,
		"patchCapable":             true,
		"supportsImpactAnalysis":   false,
		"timeZone":                 "UTC",
		"baseUrl":                  base,
		"versions": map[string]any{
			"acryldata/datahub": map[string]any{"version": "v" + datahubVersion, "commit": "catalogd-" + Version},
			"catalogd":          map[string]any{"version": Version},
		},
		"datahub": map[string]any{"serverType": "prod", "serverEnv": "core"},
		"managedIngestion": map[string]any{
			// The ingestion pages work (sources, secrets); whether runs can
			// execute depends on the executor.
			"enabled":           true,
			"defaultCliVersion": envOr(getenv, "UI_INGESTION_DEFAULT_CLI_VERSION", datahubVersion),
		},
		"telemetry": map[string]any{"enabledCli": false, "enabledIngestion": false},
	}
}

// logRequests logs each request at debug level with its status and duration.
func logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !slog.Default().Enabled(r.Context(), slog.LevelDebug) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		slog.Debug("request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "duration", time.Since(start))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serveDebug serves the profiler and the metrics on their own listener,
// without credentials: the address is the operator's, never the API port.
func serveDebug(ctx context.Context, addr string, timeouts *httpTimeouts, metricsHandler http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on debug address %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("GET "+auth.MetricsPath, metricsHandler)
	srv := timeouts.server(mux)
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	slog.Info("profiler and metrics listening", "addr", ln.Addr().String())
	return nil
}
