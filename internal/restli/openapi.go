package restli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/search"
)

// DataHub's OpenAPI entity endpoints (v2 and v3), which its Python SDK from
// 1.0.1 on, its terraform provider and DataHub Actions use instead of
// rest.li. An entity is read and written as a JSON object: in v3 its "urn"
// and one member per aspect, {"<aspect>": {"value": {...}}}; in v2 its
// "urn" and {"aspects": {"<aspect>": {"value": {...}}}}. Errors are
// answered as DataHub's Spring handlers answer them, {"error": "..."}.
// Every write goes through the ingest pipeline, so these endpoints validate,
// authorize, version, index and audit exactly as the rest.li ones do.

// openAPI serves the OpenAPI v2 and v3 endpoints over a Handler's registry,
// store and ingest service.
type openAPI struct {
	h      *Handler
	search *search.Service // for scrolls with a query; nil: queries refused
	// canView refuses a page that lists an entity the caller may not view.
	canView ViewAuthorizer
}

// ViewAuthorizer refuses, with a Forbidden error, when actor may not view
// every one of urns.
type ViewAuthorizer func(ctx context.Context, actor string, urns []string) error

// apiVersion selects the v2 or v3 shape of entities and aspects.
type apiVersion int

const (
	v2 apiVersion = 2
	v3 apiVersion = 3
)

// Paging of scrolls: DataHub's default page and its result window, beyond
// which a count is lowered without an error.
const (
	defaultScrollCount = 10
	maxScrollCount     = search.MaxPageSize
)

// ServeOpenAPI registers DataHub's OpenAPI v3 and v2 entity endpoints, the
// v3 and v2 relationship reads, and POST /openapi/v2/platform/entities/v1/.
// svc answers scrolls with a query; with svc nil only "*" is accepted.
// canView checks, as DataHub does, that the caller may view every entity a
// page of a scroll or of relationships lists; nil lets every caller see
// every entity.
func (h *Handler) ServeOpenAPI(svc *search.Service, canView ViewAuthorizer) {
	if canView == nil {
		canView = func(context.Context, string, []string) error { return nil }
	}
	o := &openAPI{h: h, search: svc, canView: canView}
	for _, ver := range []apiVersion{v2, v3} {
		p := fmt.Sprintf("/openapi/v%d/entity/", ver)
		h.mux.HandleFunc("GET "+p+"{entity}", o.scrollType(ver))
		h.mux.HandleFunc("POST "+p+"{entity}", o.createEntities(ver))
		h.mux.HandleFunc("GET "+p+"{entity}/{rest...}", o.get(ver))
		h.mux.HandleFunc("HEAD "+p+"{entity}/{rest...}", o.head(ver))
		h.mux.HandleFunc("DELETE "+p+"{entity}/{rest...}", o.delete(ver))
		h.mux.HandleFunc("POST "+p+"{entity}/{rest...}", o.createAspect(ver))
		h.mux.HandleFunc("PATCH "+p+"{entity}/{rest...}", o.patchAspect(ver))
		h.mux.HandleFunc(fmt.Sprintf("GET /openapi/v%d/relationship/{rest...}", ver), o.relationships)
	}
	h.mux.HandleFunc("PATCH /openapi/v3/entity/{entity}", o.patchEntities)
	h.mux.HandleFunc("POST /openapi/v3/entity/{entity}/batchGet", o.batchGetV3)
	h.mux.HandleFunc("POST /openapi/v3/entity/scroll", o.scrollAcross)
	h.mux.HandleFunc("POST /openapi/v2/entity/batch/{entity}", o.batchGetV2)
	h.mux.HandleFunc("POST /openapi/v2/platform/entities/v1/", o.platformEntities)
	h.mux.HandleFunc("POST /openapi/v2/platform/entities/v1", o.platformEntities)
}

// errorBodyOpenAPI is the error body of DataHub's OpenAPI controllers.
type errorBodyOpenAPI struct {
	Error   string `json:"error"`
	Message string `json:"message,omitempty"`
}

// writeOpenAPIError answers err as DataHub's OpenAPI endpoints do: the
// status of its kind and {"error": message}; a value the write pipeline
// refused is a "Validation Error" with the reason as its message. Internal
// errors are logged and shown only as "internal error".
func writeOpenAPIError(w http.ResponseWriter, r *http.Request, err error) {
	status := StatusOf(err)
	body := errorBodyOpenAPI{Error: catalog.Message(err)}
	var ve *validationError
	switch {
	case status == http.StatusRequestEntityTooLarge:
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			body.Error = fmt.Sprintf("request body exceeds the limit of %d bytes", mbe.Limit)
		}
	case status == http.StatusInternalServerError:
		slog.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	case errors.As(err, &ve) && status == http.StatusBadRequest:
		body = errorBodyOpenAPI{Error: "Validation Error", Message: catalog.Message(err)}
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, body)
}

// validationError marks an error of the write pipeline: DataHub reports a
// refused value as a validation error.
type validationError struct{ err error }

func (e *validationError) Error() string { return e.err.Error() }
func (e *validationError) Unwrap() error { return e.err }

// ingest applies props through the write pipeline.
func (o *openAPI) ingest(ctx context.Context, r *http.Request, props []catalog.Proposal) error {
	if len(props) == 0 {
		return nil
	}
	if _, err := o.h.ingest.Ingest(ctx, o.h.actor(r), props); err != nil {
		return &validationError{err}
	}
	return nil
}

// entityType resolves the {entity} path value (case-insensitive).
func (o *openAPI) entityType(r *http.Request) (*catalog.EntitySpec, error) {
	name := r.PathValue("entity")
	ent := o.h.reg.Entity(name)
	if ent == nil {
		return nil, catalog.Errorf(catalog.NotFound, "unknown entity type %q", name)
	}
	return ent, nil
}

// aspectOf resolves an aspect name of ent case-insensitively, as DataHub
// does (its generated paths spell aspect names in lower case).
func (o *openAPI) aspectOf(ent *catalog.EntitySpec, name string) *catalog.AspectSpec {
	if a := o.h.reg.Aspect(name); a != nil && o.h.reg.EntityHasAspect(ent.Name, a.Name) {
		return a
	}
	for _, n := range append([]string{ent.KeyAspect}, ent.Aspects...) {
		if strings.EqualFold(n, name) {
			return o.h.reg.Aspect(n)
		}
	}
	return nil
}

// aspectList resolves aspect names of ent, refusing unknown ones.
func (o *openAPI) aspectList(ent *catalog.EntitySpec, names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, n := range names {
		a := o.aspectOf(ent, n)
		if a == nil {
			return nil, catalog.Errorf(catalog.Invalid, "aspect %q is not an aspect of entity %s", n, ent.Name)
		}
		if !slices.Contains(out, a.Name) {
			out = append(out, a.Name)
		}
	}
	return out, nil
}

// parseURNOf parses a URN that must name an entity of type ent.
func (o *openAPI) parseURNOf(ent *catalog.EntitySpec, s string) (catalog.URN, error) {
	u, err := catalog.ParseURN(s)
	if err != nil {
		return catalog.URN{}, err
	}
	if !strings.EqualFold(u.EntityType(), ent.Name) {
		return catalog.URN{}, catalog.Errorf(catalog.Invalid, "URN %s is not a %s URN", u, ent.Name)
	}
	if _, err := o.h.entitySpec(u); err != nil {
		return catalog.URN{}, err
	}
	return u, nil
}

// entityPath reads /openapi/vN/entity/<type>/<urn>[/<aspect>]. The URN
// comes raw or percent-encoded; a raw URN may hold slashes, so a last
// segment is the aspect only when it names an aspect of the entity type and
// what precedes it is a URN of that type.
func (o *openAPI) entityPath(r *http.Request, ver apiVersion) (*catalog.EntitySpec, catalog.URN, *catalog.AspectSpec, error) {
	ent, err := o.entityType(r)
	if err != nil {
		return nil, catalog.URN{}, nil, err
	}
	prefix := fmt.Sprintf("/openapi/v%d/entity/", ver)
	rest := strings.TrimPrefix(r.URL.EscapedPath(), prefix)
	if _, after, ok := strings.Cut(rest, "/"); ok {
		rest = after
	}
	if i := strings.LastIndexByte(rest, '/'); i > 0 {
		if name, err := url.PathUnescape(rest[i+1:]); err == nil {
			if a := o.aspectOf(ent, name); a != nil {
				if head, err := url.PathUnescape(rest[:i]); err == nil {
					if u, err := o.parseURNOf(ent, head); err == nil {
						return ent, u, a, nil
					}
				}
			}
		}
	}
	s, err := url.PathUnescape(rest)
	if err != nil {
		return nil, catalog.URN{}, nil, catalog.Errorf(catalog.Invalid, "bad percent-encoding in URN %q", rest)
	}
	if s == "" {
		return nil, catalog.URN{}, nil, catalog.Errorf(catalog.Invalid, "URN missing from path")
	}
	u, err := o.parseURNOf(ent, s)
	return ent, u, nil, err
}

// EntityPathURN returns the URN that a path of the OpenAPI entity
// endpoints names (/openapi/v2|v3/entity/<type>/<urn>[/<aspect>]), for
// the authorization of reads, and false for other paths.
func (h *Handler) EntityPathURN(r *http.Request) (string, bool) {
	o := &openAPI{h: h}
	for _, ver := range []apiVersion{v2, v3} {
		prefix := fmt.Sprintf("/openapi/v%d/entity/", ver)
		rest, ok := strings.CutPrefix(r.URL.EscapedPath(), prefix)
		if !ok {
			continue
		}
		typ, _, ok := strings.Cut(rest, "/")
		if !ok {
			return "", false
		}
		name, err := url.PathUnescape(typ)
		if err != nil {
			return "", false
		}
		req := r.Clone(r.Context())
		req.SetPathValue("entity", name)
		_, u, _, err := o.entityPath(req, ver)
		if err != nil {
			return "", false
		}
		return u.String(), true
	}
	return "", false
}

// boolQuery reads an optional boolean query parameter.
func boolQuery(q url.Values, name string, def bool) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, catalog.Errorf(catalog.Invalid, "query parameter %s must be true or false, got %q", name, v)
	}
	return b, nil
}

// namesQuery reads aspect names given as repeated parameters of any of
// names, as List(a,b), or comma-separated (as Spring binds a Set<String>).
func namesQuery(r *http.Request, names ...string) ([]string, error) {
	var out []string
	for _, n := range names {
		vals, err := queryList(r.URL.RawQuery, n)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out, nil
}

// aspectOut is one aspect of a rendered entity.
type aspectOut struct {
	name  string
	value json.RawMessage
	// sysMD and created are rendered when the caller asked for system
	// metadata (created only in v3, as its auditStamp).
	sysMD   json.RawMessage
	created *catalog.AuditStamp
}

// entityOut is an entity as the OpenAPI endpoints render it.
type entityOut struct {
	urn     string
	aspects []aspectOut // by name
}

// appendAspect appends {"value": ..., "systemMetadata": ..., "auditStamp": ...}.
func appendAspect(dst []byte, a *aspectOut, ver apiVersion) ([]byte, error) {
	dst = append(dst, `{"value":`...)
	var ok bool
	if dst, ok = appendRaw(dst, a.value); !ok {
		return dst, fmt.Errorf("stored value of aspect %s is not valid JSON", a.name)
	}
	if len(a.sysMD) > 0 {
		dst = append(dst, `,"systemMetadata":`...)
		if dst, ok = appendRaw(dst, a.sysMD); !ok {
			return dst, fmt.Errorf("stored system metadata of aspect %s is not valid JSON", a.name)
		}
	}
	if ver == v3 && a.created != nil {
		dst = append(dst, `,"auditStamp":{"time":`...)
		dst = strconv.AppendInt(dst, a.created.Time, 10)
		dst = append(dst, `,"actor":`...)
		actor := a.created.Actor
		if actor == "" {
			actor = catalog.SystemActor
		}
		dst = fastjson.AppendString(dst, actor)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendEntity appends the entity in the shape of ver.
func appendEntity(dst []byte, e *entityOut, ver apiVersion) ([]byte, error) {
	dst = append(dst, `{"urn":`...)
	dst = fastjson.AppendString(dst, e.urn)
	if ver == v2 {
		dst = append(dst, `,"aspects":{`...)
	}
	var err error
	for i := range e.aspects {
		if ver == v3 || i > 0 {
			dst = append(dst, ',')
		}
		dst = fastjson.AppendString(dst, e.aspects[i].name)
		dst = append(dst, ':')
		if dst, err = appendAspect(dst, &e.aspects[i], ver); err != nil {
			return dst, fmt.Errorf("%s: %w", e.urn, err)
		}
	}
	if ver == v2 {
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendEntities appends a JSON array of entities.
func appendEntities(dst []byte, es []entityOut, ver apiVersion) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i := range es {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendEntity(dst, &es[i], ver); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// writeBody answers status with a JSON body built by an append function,
// or with its error.
func writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte, err error) {
	if err != nil {
		writeOpenAPIError(w, r, &catalog.Error{Kind: catalog.Internal, Op: "encode response", Err: err})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// readOpts says what to read of each entity.
type readOpts struct {
	// names are the aspects asked for; none means every aspect of the
	// entity's type when expand is set, and no aspect otherwise.
	names  []string
	expand bool
	withSM bool
	// keepEmpty lists entities with none of the aspects too (v2);
	// otherwise they are left out, as DataHub's v3 does.
	keepEmpty bool
}

// read reads the latest versioned and timeseries aspects of urns, in urns
// order. All URNs must be of known entity types.
func (o *openAPI) read(ctx context.Context, urns []string, opt readOpts) ([]entityOut, error) {
	if len(urns) == 0 {
		return nil, nil
	}
	if len(opt.names) == 0 && !opt.expand {
		out := make([]entityOut, len(urns))
		for i, u := range urns {
			out[i] = entityOut{urn: u}
		}
		return out, nil
	}
	// The names split into versioned and timeseries aspects; with none
	// given, every aspect of each URN's type.
	var versioned, series []string
	all := len(opt.names) == 0
	if all {
		seen := map[string]bool{}
		for _, u := range urns {
			ent := o.h.reg.Entity(urnType(u))
			if ent == nil || seen[ent.Name] {
				continue
			}
			seen[ent.Name] = true
			for _, n := range ent.Aspects {
				if a := o.h.reg.Aspect(n); a != nil && a.Timeseries && !slices.Contains(series, n) {
					series = append(series, n)
				}
			}
		}
	} else {
		for _, n := range opt.names {
			if a := o.h.reg.Aspect(n); a != nil && a.Timeseries {
				series = append(series, n)
			} else {
				versioned = append(versioned, n)
			}
		}
	}
	got := map[string][]aspectOut{}
	if all || len(versioned) > 0 {
		stored, err := o.h.store.LatestAspects(ctx, urns, versioned)
		if err != nil {
			return nil, err
		}
		for u, as := range stored {
			for _, a := range as {
				ao := aspectOut{name: a.Name, value: a.Value}
				if opt.withSM {
					ao.sysMD = a.SystemMetadata
					c := a.Created
					ao.created = &c
				}
				got[u] = append(got[u], ao)
			}
		}
	}
	if len(series) > 0 {
		if err := o.readSeries(ctx, urns, series, opt.withSM, got); err != nil {
			return nil, err
		}
	}
	out := make([]entityOut, 0, len(urns))
	for _, u := range urns {
		as := got[u]
		if len(as) == 0 && !opt.keepEmpty {
			continue
		}
		slices.SortFunc(as, func(a, b aspectOut) int { return strings.Compare(a.name, b.name) })
		out = append(out, entityOut{urn: u, aspects: as})
	}
	return out, nil
}

// readSeries adds the newest value of each timeseries aspect to got,
// leaving out aspects that do not belong to a URN's entity type.
func (o *openAPI) readSeries(ctx context.Context, urns, series []string, withSM bool, got map[string][]aspectOut) error {
	belongs := func(u, aspect string) bool { return o.h.reg.EntityHasAspect(urnType(u), aspect) }
	if !withSM {
		vals, err := o.h.store.LatestTimeseries(ctx, urns, series)
		if err != nil {
			return err
		}
		for _, v := range vals {
			if belongs(v.URN, v.Aspect) {
				got[v.URN] = append(got[v.URN], aspectOut{name: v.Aspect, value: v.Value})
			}
		}
		return nil
	}
	// System metadata is read value by value: the batch read leaves it out.
	for _, u := range urns {
		for _, a := range series {
			if !belongs(u, a) {
				continue
			}
			vals, err := o.h.store.Timeseries(ctx, catalog.TimeseriesQuery{URN: u, Aspect: a, Limit: 1})
			if err != nil {
				return err
			}
			if len(vals) > 0 {
				got[u] = append(got[u], aspectOut{name: a, value: vals[0].Value, sysMD: vals[0].SystemMetadata})
			}
		}
	}
	return nil
}

// urnType is the entity type of a URN string ("" when it is not one).
func urnType(u string) string {
	rest, ok := strings.CutPrefix(u, "urn:li:")
	if !ok {
		return ""
	}
	t, _, _ := strings.Cut(rest, ":")
	return t
}

// readJSONBody reads a JSON request body, refusing invalid UTF-8 and an empty
// body where one is required.
func readJSONBody(r *http.Request, required bool) ([]byte, error) {
	body, err := readBody(r)
	if err == nil {
		err = checkUTF8(body)
	}
	if err != nil {
		return nil, err
	}
	if required && len(bytes.TrimSpace(body)) == 0 {
		return nil, catalog.Errorf(catalog.Invalid, "request body is required")
	}
	return body, nil
}

// decodeBody decodes a JSON body into v with numbers kept exact.
func decodeBody(body []byte, v any, what string) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return catalog.Errorf(catalog.Invalid, "body must be %s: %s", what, strings.TrimPrefix(err.Error(), "json: "))
	}
	if d.More() {
		return catalog.Errorf(catalog.Invalid, "body must be %s: data after the JSON value", what)
	}
	return nil
}
