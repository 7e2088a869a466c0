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
// authenticate, the sign-in flow itself, and the browser pages (which call
// the API with the user's own session or token).
var publicPaths = map[string]bool{
	"/health": true, "/config": true, LoginPath: true,
	LogoutPath: true, SignUpPath: true, ResetCredentialsPath: true, AuthenticatePath: true, SSOPath: true,
	"/api/graphiql": true, "/restli/docs": true, "/openapi.json": true,
}

// signInPaths set session cookies from what the request carries: another
// site must not be able to sign a browser in (login CSRF).
var signInPaths = map[string]bool{LoginPath: true, SignUpPath: true, ResetCredentialsPath: true}

// MetricsPath is where the API port serves Prometheus metrics, to callers
// with the Get Analytics privilege.
const MetricsPath = "/metrics"

func isPublic(path string) bool {
	return publicPaths[path] || strings.HasPrefix(path, "/api/graphiql/assets/") || strings.HasPrefix(path, CallbackPath)
}

// MiddlewareConfig configures Middleware.
type MiddlewareConfig struct {
	// Enabled turns authentication and authorization on. Off, every caller
	// acts as the user named by the legacy X-DataHub-Actor header, or as
	// the system (DataHub's behaviour with authentication disabled).
	Enabled bool
	// WriteError answers an error in the protocol's error format.
	WriteError func(http.ResponseWriter, *http.Request, error)
	// OnFailure, when set, is told of every request refused for want of
	// valid credentials or of a route's privilege, and of every failed
	// login, with the reason: FailureNoCredentials, FailureBadCredentials,
	// FailureForbidden, FailureLogin or FailureLoginLocked.
	OnFailure func(reason string)
	// Public, when set, tells further requests that need no credentials:
	// the web app's pages and files.
	Public func(*http.Request) bool
	// EntityURN names the entity a path of the OpenAPI entity endpoints
	// reads (/openapi/v3/entity/<type>/<urn>[/<aspect>]), for the privilege
	// check; nil checks such reads against every entity.
	EntityURN func(*http.Request) (string, bool)
}

// Reasons of authentication failures, as MiddlewareConfig.OnFailure reports
// them.
const (
	FailureNoCredentials  = "no_credentials"  // no Authorization header
	FailureBadCredentials = "bad_credentials" // an unknown, expired, revoked or malformed token or secret
	FailureForbidden      = "forbidden"       // the actor lacks the route's privilege
	FailureLogin          = "login_rejected"  // a wrong username or password at /logIn
	FailureLoginLocked    = "login_locked"    // a login refused while the account or address is locked out
)

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
		failed := func(reason string) {
			if c.OnFailure != nil {
				c.OnFailure(reason)
			}
		}
		if isPublic(r.URL.Path) || (c.Public != nil && c.Public(r)) {
			if signInPaths[r.URL.Path] {
				if err := checkSameOrigin(r); err != nil {
					refuse(w, r, c.WriteError, err)
					return
				}
			}
			if r.URL.Path != LoginPath || c.OnFailure == nil {
				next.ServeHTTP(w, r.WithContext(ctx))
				return
			}
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(sw, r.WithContext(ctx))
			switch sw.status {
			case http.StatusUnauthorized:
				failed(FailureLogin)
			case http.StatusTooManyRequests:
				failed(FailureLoginLocked)
			}
			return
		}
		var a Actor
		var err error
		switch h := r.Header.Get("Authorization"); {
		case h != "":
			a, err = s.parseAuthorization(ctx, h)
		case hasSessionCookie(r):
			if a, err = s.cookieSession(ctx, r); err == nil {
				err = checkSameOrigin(r)
			}
		default:
			failed(FailureNoCredentials)
			refuse(w, r, c.WriteError, errUnauthorized)
			return
		}
		if err == errCrossOrigin {
			failed(FailureForbidden)
			refuse(w, r, c.WriteError, err)
			return
		}
		if err != nil {
			if k := catalog.KindOf(err); k != catalog.Unauthorized && k != catalog.Forbidden {
				slog.ErrorContext(ctx, "authenticate request", "err", err)
			} else {
				failed(FailureBadCredentials)
			}
			refuse(w, r, c.WriteError, err)
			return
		}
		ctx = WithActor(ctx, a)
		r = r.WithContext(ctx)
		after, err := s.authorizeRoute(r, a.URN, c.EntityURN)
		if err != nil {
			if catalog.KindOf(err) == catalog.Forbidden {
				failed(FailureForbidden)
			}
			refuse(w, r, c.WriteError, err)
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

// refuse answers a request the middleware turns away, without reading its
// body. A request that declared one is answered with Connection: close: else
// net/http would read (up to 256 KB of) the body before sending the answer,
// waiting for a body the client may never send. With it, the answer goes
// out at once and the connection is closed after it.
func refuse(w http.ResponseWriter, r *http.Request, writeError func(http.ResponseWriter, *http.Request, error), err error) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
	writeError(w, r, err)
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

// writeActions are checked per proposal by the ingest pipeline (a
// rollback as the deletion of every entity of the run, as DataHub checks
// it).
var writeActions = map[string]bool{
	"ingestProposal": true, "ingestProposalBatch": true, "ingest": true, "batchIngest": true, "delete": true,
	"rollback": true,
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
func (s *Service) authorizeRoute(r *http.Request, actor string, entityURN func(*http.Request) (string, bool)) (after func(status int), err error) {
	ctx := r.Context()
	p := r.URL.Path
	if ok, err := s.openAPIRead(r, actor, entityURN); ok {
		return nil, err
	}
	switch {
	case p == audit.SearchPath:
		return nil, s.Require(ctx, actor, Resource{}, "search audit events", PrivGetAnalytics)
	case p == MetricsPath:
		return nil, s.Require(ctx, actor, Resource{}, "read metrics", PrivGetAnalytics)
	case p == "/api/graphql" || p == "/api/v2/graphql" || p == LoginPath || p == audit.TrackPath:
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
		case p == "/runs" && action == "describe":
			// What a run wrote is read as entities are (DataHub's ENTITY
			// READ).
			return nil, s.Require(ctx, actor, Resource{}, "describe ingestion run", viewPrivileges...)
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
