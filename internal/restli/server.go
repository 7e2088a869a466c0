// Package restli serves DataHub's rest.li-style JSON API (/aspects,
// /entities, /entitiesV2, /relationships, /operations, /runs) plus the /config and
// /health endpoints real clients probe first. It decodes requests, calls the
// services and encodes responses with rest.li's conventions: the protocol
// version header echoed, action responses wrapped in {"value": ...}, errors
// as rest.li ErrorResponse bodies.
package restli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
)

const (
	protocolHeader = "X-RestLi-Protocol-Version"
	protocol2      = "2.0.0"
	protocol1      = "1.0.0"
)

// DefaultMaxBody is the default request body limit: DataHub's Python emitter
// sends batches of up to about 15 MB.
const DefaultMaxBody = 32 << 20

// ActionFunc handles one rest.li action. body is the request's JSON object;
// a non-nil result is answered as {"value": result}, a nil one as an empty 200.
type ActionFunc func(ctx context.Context, r *http.Request, body []byte) (any, error)

// Handler serves the rest.li resources.
type Handler struct {
	reg     *registry.Registry
	store   catalog.Reader
	ingest  *ingest.Service
	actor   func(*http.Request) string
	maxBody int64
	config  map[string]any
	actions map[string]map[string]ActionFunc // resource → action → handler
	// actionRoutes maps the patterns of the action routes to their resource.
	actionRoutes map[string]string
	mux          *http.ServeMux
}

// Config holds a Handler's dependencies.
type Config struct {
	Registry *registry.Registry
	Store    catalog.Reader
	Ingest   *ingest.Service
	// Actor returns the URN of the caller; nil means every caller acts as
	// the system actor.
	Actor func(*http.Request) string
	// MaxBody limits request bodies in bytes (DefaultMaxBody when 0).
	MaxBody int64
	// ServerConfig is served at GET /config.
	ServerConfig map[string]any
}

// New returns a Handler for the rest.li resources.
func New(c Config) *Handler {
	h := &Handler{
		reg: c.Registry, store: c.Store, ingest: c.Ingest, actor: c.Actor,
		maxBody: c.MaxBody, config: c.ServerConfig,
		actions: map[string]map[string]ActionFunc{},
		mux:     http.NewServeMux(),
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBody
	}
	if h.actor == nil {
		h.actor = func(*http.Request) string { return catalog.SystemActor }
	}
	h.HandleAction("aspects", "ingestProposal", h.ingestProposal)
	h.HandleAction("aspects", "ingestProposalBatch", h.ingestProposalBatch)
	h.HandleAction("entities", "ingest", h.ingestSnapshot)
	h.HandleAction("entities", "batchIngest", h.batchIngestSnapshots)
	h.HandleAction("entities", "delete", h.deleteEntity)
	h.HandleAction("entities", "listUrns", h.listURNs)
	h.HandleAction("entities", "exists", h.entityExists)
	h.serveRuns()

	h.actionRoutes = map[string]string{"POST /gms/operations": "operations", "POST /api/gms/operations": "operations"}
	for _, res := range []string{"aspects", "entities", "entitiesV2", "relationships", "operations", "runs"} {
		h.actionRoutes["POST /"+res] = res
	}
	for pattern, res := range h.actionRoutes {
		h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { h.serveAction(w, r, res) })
	}
	h.mux.HandleFunc("GET /entitiesV2/", h.getEntityV2)
	h.mux.HandleFunc("GET /entitiesV2", h.batchGetEntityV2)
	h.mux.HandleFunc("GET /entities/", h.getEntitySnapshot)
	h.mux.HandleFunc("GET /aspects/", h.getAspect)
	h.mux.HandleFunc("GET /config", h.getConfig)
	h.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "OK")
	})
	return h
}

// HandleAction registers fn as the handler of POST /<resource>?action=<name>.
func (h *Handler) HandleAction(resource, name string, fn ActionFunc) {
	if h.actions[resource] == nil {
		h.actions[resource] = map[string]ActionFunc{}
	}
	h.actions[resource][name] = fn
}

// HandleFunc registers a non-action route (pattern as for http.ServeMux)
// that shares the rest.li conventions.
func (h *Handler) HandleFunc(pattern string, fn http.HandlerFunc) { h.mux.HandleFunc(pattern, fn) }

// Route names the route r takes, for labelling metrics: the pattern it
// matches ("GET /entitiesV2/"), with the action of a registered rest.li
// action ("POST /aspects?action=ingestProposal"); "" when no route matches.
// Its values are bounded by the routes registered, whatever the requests.
func (h *Handler) Route(r *http.Request) string {
	_, pattern := h.mux.Handler(r)
	if res, ok := h.actionRoutes[pattern]; ok {
		if name := r.URL.Query().Get("action"); h.actions[res][name] != nil {
			return pattern + "?action=" + name
		}
	}
	return pattern
}

// Actor returns the URN of the caller of r.
func (h *Handler) Actor(r *http.Request) string { return h.actor(r) }

// ServeHTTP echoes the protocol version, limits the body and routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v := r.Header.Get(protocolHeader)
	if v != protocol2 {
		v = protocol1
	}
	w.Header().Set(protocolHeader, v)
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, h.maxBody)
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) serveAction(w http.ResponseWriter, r *http.Request, resource string) {
	name := r.URL.Query().Get("action")
	if name == "" {
		WriteError(w, r, catalog.Errorf(catalog.Invalid, "POST /%s needs an action query parameter", resource))
		return
	}
	fn := h.actions[resource][name]
	if fn == nil {
		WriteError(w, r, catalog.Errorf(catalog.Invalid, "unknown action %q on resource %s", name, resource))
		return
	}
	body, err := readBody(r)
	if err == nil {
		err = checkUTF8(body)
	}
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	res, err := fn(r.Context(), r, body)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if res == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"value": res})
}

// readBody reads the request body, in one allocation when its length is
// known (ingest batches are hundreds of KB, which io.ReadAll would grow
// to by doubling).
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength <= 0 || r.ContentLength > 64<<20 {
		return io.ReadAll(r.Body)
	}
	buf := bytes.NewBuffer(make([]byte, 0, r.ContentLength+bytes.MinRead))
	_, err := buf.ReadFrom(r.Body)
	return buf.Bytes(), err
}

// checkUTF8 refuses a request body that is not valid UTF-8, as DataHub's
// JSON parser does, instead of letting the JSON decoder replace the bad bytes
// with U+FFFD: text the client did not send must not be stored, nor become
// part of a URN.
func checkUTF8(body []byte) error {
	if utf8.Valid(body) {
		return nil
	}
	i := 0
	for i < len(body) {
		r, size := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return catalog.Errorf(catalog.Invalid, "request body is not valid UTF-8 (at byte %d)", i)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// DecodeParams decodes an action's JSON parameters into v, rejecting unknown
// parameters and naming the one that is wrong.
func DecodeParams(body []byte, v any) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return catalog.Errorf(catalog.Invalid, "malformed request body: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	// encoding/json matches names case-insensitively; rest.li does not.
	names := jsonNames(v)
	for k := range members {
		if !names[k] {
			return catalog.Errorf(catalog.Invalid, "unknown parameter %q for this action", k)
		}
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if ok := errors.As(err, &te); ok && te.Field != "" {
			return catalog.Errorf(catalog.Invalid, "parameter %s: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		return catalog.Errorf(catalog.Invalid, "malformed request body: %s", msg)
	}
	return nil
}

// jsonNames returns the JSON member names of the struct v points to.
func jsonNames(v any) map[string]bool {
	t := reflect.TypeOf(v).Elem()
	names := make(map[string]bool, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	return names
}

func (h *Handler) getConfig(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.config)
}
