package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/events"
	"github.com/catalogd/catalogd/internal/timeline"
)

// TraceHeader is the response header carrying the request's trace id: a
// W3C traceparent, which DataHub's Python SDK reads back after writes. An
// incoming traceparent's trace id is kept, so a caller's trace continues.
const TraceHeader = "traceparent"

// publicPaths answer without credentials: what clients probe before they
// authenticate, the login itself, and the browser pages (which call the
// API with the user's own token).
var publicPaths = map[string]bool{
	"/health": true, "/config": true, LoginPath: true,
	"/api/graphiql": true, "/restli/docs": true, "/openapi.json": true,
}

func isPublic(path string) bool {
	return publicPaths[path] || strings.HasPrefix(path, "/api/graphiql/assets/")
}

// MiddlewareConfig configures Middleware.
type MiddlewareConfig struct {
	// Enabled turns authentication and authorization on. Off, every caller
	// acts as the user named by the legacy X-DataHub-Actor header, or as
	// the system (DataHub's behaviour with authentication disabled).
	Enabled bool
	// WriteError answers an error in the protocol's error format.
	WriteError func(http.ResponseWriter, *http.Request, error)
}

// Middleware authenticates every request but the public ones, attaches the
// actor and the audit request metadata to its context, sets the trace
// header, and checks the route's privileges. s may be nil when disabled.
func (s *Service) Middleware(c MiddlewareConfig, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		trace := traceID(r.Header.Get(TraceHeader))
		w.Header().Set(TraceHeader, "00-"+trace+"-"+randomHex(8)+"-01")
		req := &audit.Request{SourceIP: ClientIP(r), UserAgent: r.UserAgent(), TraceID: trace, Source: audit.SourceOf(r.URL.Path)}
		ctx := audit.WithRequest(r.Context(), req)
		if !c.Enabled {
			a := Actor{URN: catalog.SystemActor}
			if h := r.Header.Get("X-DataHub-Actor"); strings.HasPrefix(h, "urn:li:corpuser:") {
				a.URN = h
			}
			next.ServeHTTP(w, r.WithContext(WithActor(ctx, a)))
			return
		}
		if isPublic(r.URL.Path) {
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		h := r.Header.Get("Authorization")
		if h == "" {
			c.WriteError(w, r, errUnauthorized)
			return
		}
		a, err := s.parseAuthorization(ctx, h)
		if err != nil {
			if k := catalog.KindOf(err); k != catalog.Unauthorized && k != catalog.Forbidden {
				slog.ErrorContext(ctx, "authenticate request", "err", err)
			}
			c.WriteError(w, r, err)
			return
		}
		ctx = WithActor(ctx, a)
		r = r.WithContext(ctx)
		after, err := s.authorizeRoute(r, a.URN)
		if err != nil {
			c.WriteError(w, r, err)
			return
		}
		if after == nil {
			next.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		after(sw.status)
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

// ClientIP is the address the request came from. Forwarding headers are not
// trusted: anyone can send them, and login throttling keys on the address.
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// traceID returns the trace id of a valid W3C traceparent, else a new one.
func traceID(tp string) string {
	// version "-" trace-id (32 hex) "-" parent-id (16 hex) "-" flags
	if len(tp) == 55 && tp[2] == '-' && tp[35] == '-' && tp[52] == '-' {
		id := tp[3:35]
		if _, err := hex.DecodeString(id); err == nil && id != strings.Repeat("0", 32) {
			return strings.ToLower(id)
		}
	}
	return randomHex(16)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// The alternatives that let an actor view an entity, and search.
var (
	viewPrivileges   = []string{PrivViewEntity, PrivGetEntity}
	searchPrivileges = []string{PrivSearch, PrivViewEntity}
)

// writeActions are checked per proposal by the ingest pipeline.
var writeActions = map[string]bool{
	"ingestProposal": true, "ingestProposalBatch": true, "ingest": true, "batchIngest": true, "delete": true,
}

// timeseriesPrivileges are the extra privileges of sensitive timeseries aspects.
var timeseriesPrivileges = map[string][]string{
	"datasetProfile":           {PrivViewDatasetProfile},
	"datasetUsageStatistics":   {PrivViewDatasetUsage},
	"operation":                {PrivViewDatasetOps},
	"dashboardUsageStatistics": {PrivViewDashboardUsage, PrivViewDatasetUsage},
}

// authorizeRoute checks the privileges the route of r needs. Writes are left
// to the ingest pipeline, GraphQL to its resolvers. A non-nil after is
// called with the response status once the handler is done.
func (s *Service) authorizeRoute(r *http.Request, actor string) (after func(status int), err error) {
	ctx := r.Context()
	p := r.URL.Path
	switch {
	case p == audit.SearchPath:
		return nil, s.Require(ctx, actor, Resource{}, "search audit events", PrivGetAnalytics)
	case p == "/api/graphql" || p == "/api/v2/graphql" || p == LoginPath:
		return nil, nil
	case p == events.PollPath:
		return nil, s.Require(ctx, actor, Resource{}, "read platform events", PrivGetPlatformEvents)
	case r.Method == http.MethodGet && strings.HasPrefix(p, timeline.Path):
		res := pathResource(r, timeline.Path)
		if err := s.Require(ctx, actor, res, "view entity", viewPrivileges...); err != nil {
			return nil, err
		}
		if s.cfg.RestAuthorization {
			return nil, s.Require(ctx, actor, res, "get timeline", PrivGetTimeline)
		}
		return nil, nil
	case r.Method == http.MethodGet:
		for _, prefix := range []string{"/entitiesV2/", "/entities/", "/aspects/"} {
			if strings.HasPrefix(p, prefix) {
				return nil, s.Require(ctx, actor, pathResource(r, prefix), "view entity", viewPrivileges...)
			}
		}
		if strings.HasPrefix(p, "/openapi/v3/entity/") {
			rest := strings.TrimPrefix(r.URL.EscapedPath(), "/openapi/v3/entity/")
			if _, u, ok := strings.Cut(rest, "/"); ok {
				return nil, s.Require(ctx, actor, resourceOf(unescape(u)), "view entity", viewPrivileges...)
			}
		}
		if p == "/relationships" {
			return nil, s.Require(ctx, actor, resourceOf(r.URL.Query().Get("urn")), "view relationships", viewPrivileges...)
		}
		return nil, s.Require(ctx, actor, Resource{}, "view entities", viewPrivileges...)
	case r.Method == http.MethodPost && r.URL.Query().Get("action") != "":
		action := r.URL.Query().Get("action")
		switch {
		case writeActions[action]:
			return nil, nil
		case action == "restoreIndices":
			if err := s.Require(ctx, actor, Resource{}, "restore indices", PrivRestoreIndices); err != nil {
				return nil, err
			}
			var args struct {
				URN    string `json:"urn"`
				Aspect string `json:"aspect"`
			}
			peekJSON(r, &args)
			return func(status int) { s.recordRestore(ctx, actor, status, args.URN, args.Aspect) }, nil
		case p == "/usageStats" && (action == "query" || action == "queryRange"):
			var args struct {
				Resource string `json:"resource"`
			}
			peekJSON(r, &args)
			res := resourceOf(args.Resource)
			if err := s.Require(ctx, actor, res, "view entity", viewPrivileges...); err != nil {
				return nil, err
			}
			return nil, s.Require(ctx, actor, res, "view usage", PrivViewDatasetUsage)
		case action == "getTimeseriesAspectValues":
			var args struct {
				URN    string `json:"urn"`
				Aspect string `json:"aspect"`
			}
			peekJSON(r, &args)
			res := resourceOf(args.URN)
			if err := s.Require(ctx, actor, res, "view entity", viewPrivileges...); err != nil {
				return nil, err
			}
			if extra := timeseriesPrivileges[args.Aspect]; extra != nil {
				if err := s.Require(ctx, actor, res, "view "+args.Aspect, extra...); err != nil {
					return nil, err
				}
			}
			if s.cfg.RestAuthorization {
				return nil, s.Require(ctx, actor, res, "get timeseries aspects", PrivGetTimeseriesAspect)
			}
			return nil, nil
		}
		return nil, s.Require(ctx, actor, Resource{}, "search", searchPrivileges...)
	}
	return nil, nil
}

// pathResource is the entity named by the path after prefix.
func pathResource(r *http.Request, prefix string) Resource {
	rest := strings.TrimPrefix(r.URL.EscapedPath(), prefix)
	return resourceOf(unescape(rest))
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// resourceOf is the resource of a URN; an unparsable one yields the zero
// Resource, and the handler rejects the request.
func resourceOf(urn string) Resource {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return Resource{}
	}
	return Resource{Type: u.EntityType(), URN: u.String()}
}

// maxPeek bounds the bodies read for an authorization decision; the actions
// peeked at take a handful of small parameters.
const maxPeek = 1 << 20

// peekJSON decodes r's body into v and puts the body back for the handler.
// A body that is too large or not JSON leaves v as it is.
func peekJSON(r *http.Request, v any) {
	if r.Body == nil {
		return
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err == nil && len(b) < maxPeek {
		_ = json.Unmarshal(b, v)
	}
}

// recordRestore audits a successful index restore as an EntityEvent
// (DataHub restores by re-emitting change logs of type RESTATE).
func (s *Service) recordRestore(ctx context.Context, actor string, status int, urn, aspect string) {
	if status != http.StatusOK || s.audit == nil {
		return
	}
	ev := audit.Event{Type: audit.EntityEvent, Actor: actor, EntityURN: urn, Aspect: aspect}
	if u, err := catalog.ParseURN(urn); err == nil {
		ev.EntityType = u.EntityType()
	}
	if err := s.audit.Record(ctx, ev); err != nil {
		slog.ErrorContext(ctx, "record restore event", "err", err)
	}
}
