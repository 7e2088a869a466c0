package restli

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
)

// notFoundHeader is the header DataHub sets on a 404 of the entity
// endpoints, naming what was missing.
const notFoundHeader = "Not-Found-Reason"

// scrollType serves GET /openapi/vN/entity/<type>: one page of the
// entities of the type, with the aspects asked for (every one by default).
func (o *openAPI) scrollType(ver apiVersion) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ent, err := o.entityType(r)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		names, err := namesQuery(r, "aspectNames", "aspects")
		if err == nil {
			names, err = o.aspectList(ent, names)
		}
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		p, err := parseScroll(r)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		withSM, _ := boolQuery(r.URL.Query(), "systemMetadata", false)
		urns, next, err := o.scrollURNs(r.Context(), o.h.actor(r), []*catalog.EntitySpec{ent}, p)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		es, err := o.read(r.Context(), urns, readOpts{names: names, expand: true, withSM: withSM, keepEmpty: ver == v2})
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		writeScroll(w, r, ver, next, es)
	}
}

// scrollAcross serves POST /openapi/v3/entity/scroll: a page of the
// entities of the types named in the body (every type when none), with the
// aspects named there: none when "aspects" is absent, all when it is empty.
func (o *openAPI) scrollAcross(w http.ResponseWriter, r *http.Request) {
	body, err := readJSONBody(r, false)
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	var req struct {
		Entities []string  `json:"entities"`
		Aspects  *[]string `json:"aspects"`
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := decodeBody(body, &req, `{"entities": [...], "aspects": [...]}`); err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
	}
	var ents []*catalog.EntitySpec
	for _, n := range req.Entities {
		ent := o.h.reg.Entity(n)
		if ent == nil {
			writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "unknown entity type %q", n))
			return
		}
		if !slices.Contains(ents, ent) {
			ents = append(ents, ent)
		}
	}
	if len(ents) == 0 {
		for _, e := range o.h.reg.Entities() {
			ents = append(ents, o.h.reg.Entity(e.Name))
		}
	}
	opt := readOpts{expand: req.Aspects != nil}
	if req.Aspects != nil {
		for _, n := range *req.Aspects {
			a := o.anyAspect(ents, n)
			if a == nil {
				writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "aspect %q is not an aspect of the entity types scrolled", n))
				return
			}
			opt.names = append(opt.names, a.Name)
		}
	}
	p, err := parseScroll(r)
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	opt.withSM, _ = boolQuery(r.URL.Query(), "systemMetadata", false)
	urns, next, err := o.scrollURNs(r.Context(), o.h.actor(r), ents, p)
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	es, err := o.read(r.Context(), urns, opt)
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	writeScroll(w, r, v3, next, es)
}

// anyAspect resolves an aspect name of any of ents.
func (o *openAPI) anyAspect(ents []*catalog.EntitySpec, name string) *catalog.AspectSpec {
	for _, e := range ents {
		if a := o.aspectOf(e, name); a != nil {
			return a
		}
	}
	return nil
}

// get serves GET /openapi/vN/entity/<type>/<urn>[/<aspect>].
func (o *openAPI) get(ver apiVersion) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ent, u, asp, err := o.entityPath(r, ver)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		withSM, err := boolQuery(r.URL.Query(), "systemMetadata", false)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		if asp != nil {
			o.getAspect(w, r, ver, u, asp, withSM)
			return
		}
		names, err := namesQuery(r, "aspectNames", "aspects")
		if err == nil {
			names, err = o.aspectList(ent, names)
		}
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		es, err := o.read(r.Context(), []string{u.String()}, readOpts{names: names, expand: true, withSM: withSM, keepEmpty: ver == v2})
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		if len(es) == 0 {
			w.Header().Set(notFoundHeader, "ENTITY")
			writeOpenAPIError(w, r, catalog.Errorf(catalog.NotFound, "entity %s not found", u))
			return
		}
		b, err := appendEntity(nil, &es[0], ver)
		writeBody(w, r, http.StatusOK, b, err)
	}
}

// getAspect answers one aspect, {"value": ...}: the latest, or with
// version=N the N-th version of a versioned aspect (the version after the
// newest kept in history being the latest), or the newest value of a
// timeseries aspect at or before version (epoch milliseconds).
func (o *openAPI) getAspect(w http.ResponseWriter, r *http.Request, ver apiVersion, u catalog.URN, asp *catalog.AspectSpec, withSM bool) {
	var version int64
	if v := r.URL.Query().Get("version"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "query parameter version must be a non-negative integer, got %q", v))
			return
		}
		version = n
	}
	a, found, err := o.aspectVersion(r.Context(), u.String(), asp, version)
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	if !found {
		w.Header().Set(notFoundHeader, "ENTITY")
		writeOpenAPIError(w, r, catalog.Errorf(catalog.NotFound, "aspect %s of %s not found", asp.Name, u))
		return
	}
	if !withSM {
		a.sysMD, a.created = nil, nil
	}
	b, err := appendAspect(nil, &a, ver)
	writeBody(w, r, http.StatusOK, b, err)
}

// aspectVersion reads one version of an aspect (see getAspect).
func (o *openAPI) aspectVersion(ctx context.Context, urn string, asp *catalog.AspectSpec, version int64) (aspectOut, bool, error) {
	if asp.Timeseries {
		vals, err := o.h.store.Timeseries(ctx, catalog.TimeseriesQuery{URN: urn, Aspect: asp.Name, End: version, Limit: 1})
		if err != nil || len(vals) == 0 {
			return aspectOut{}, false, err
		}
		return aspectOut{name: asp.Name, value: vals[0].Value, sysMD: vals[0].SystemMetadata}, true, nil
	}
	out := func(a catalog.Aspect) aspectOut {
		c := a.Created
		return aspectOut{name: a.Name, value: a.Value, sysMD: a.SystemMetadata, created: &c}
	}
	if version > 0 {
		a, err := o.h.store.AspectVersion(ctx, urn, asp.Name, version)
		if err == nil {
			return out(a), true, nil
		}
		if catalog.KindOf(err) != catalog.NotFound {
			return aspectOut{}, false, err
		}
		// DataHub numbers the latest value one past the newest kept in history.
		newest, err := o.h.store.AspectVersion(ctx, urn, asp.Name, -1)
		if catalog.KindOf(err) == catalog.NotFound || (err == nil && newest.Version+1 != version) {
			return aspectOut{}, false, nil
		}
		if err != nil {
			return aspectOut{}, false, err
		}
	}
	stored, err := o.h.store.LatestAspects(ctx, []string{urn}, []string{asp.Name})
	if err != nil || len(stored[urn]) == 0 {
		return aspectOut{}, false, err
	}
	return out(stored[urn][0]), true, nil
}

// head serves HEAD /openapi/vN/entity/<type>/<urn>[/<aspect>]: 204 when the
// entity (or its aspect) exists, 404 otherwise; soft-deleted entities do
// not exist unless includeSoftDelete=true.
func (o *openAPI) head(ver apiVersion) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ent, u, asp, err := o.entityPath(r, ver)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		soft, err := boolQuery(r.URL.Query(), "includeSoftDelete", false)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		ok, err := o.exists(r.Context(), ent, u.String(), asp, soft)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		if ok {
			w.WriteHeader(http.StatusNoContent)
		} else {
			w.WriteHeader(http.StatusNotFound)
		}
	}
}

// exists reports whether the entity (and, when asp is set, that aspect of
// it) is stored and, unless soft is set, not soft-deleted.
func (o *openAPI) exists(ctx context.Context, ent *catalog.EntitySpec, urn string, asp *catalog.AspectSpec, soft bool) (bool, error) {
	names := []string{ent.KeyAspect, "status"}
	if asp != nil && !asp.Timeseries {
		names = append(names, asp.Name)
	}
	stored, err := o.h.store.LatestAspects(ctx, []string{urn}, names)
	if err != nil {
		return false, err
	}
	as := stored[urn]
	has := func(name string) bool {
		return slices.ContainsFunc(as, func(a catalog.Aspect) bool { return a.Name == name })
	}
	if !has(ent.KeyAspect) || (!soft && isRemoved(as)) {
		return false, nil
	}
	switch {
	case asp == nil:
		return true, nil
	case asp.Timeseries:
		vals, err := o.h.store.Timeseries(ctx, catalog.TimeseriesQuery{URN: urn, Aspect: asp.Name, Limit: 1})
		return len(vals) > 0, err
	}
	return has(asp.Name), nil
}

// delete serves DELETE /openapi/vN/entity/<type>/<urn>[/<aspect>]. An
// entity is hard-deleted whole, or only the aspects named by aspects=, or
// every aspect but its key with clear=true; a timeseries aspect loses its
// latest value. Deleting what does not exist
// succeeds, so that a retried delete is harmless.
func (o *openAPI) delete(ver apiVersion) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ent, u, asp, err := o.entityPath(r, ver)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		var names []string
		if asp != nil && asp.Timeseries {
			// A timeseries aspect has no single value: DataHub deletes its
			// latest one.
			if _, err := o.h.ingest.DeleteLatestTimeseries(r.Context(), o.h.actor(r), u, asp.Name); err != nil {
				writeOpenAPIError(w, r, err)
				return
			}
			w.WriteHeader(http.StatusOK)
			return
		}
		if asp != nil {
			names = []string{asp.Name}
		} else {
			clear, err := boolQuery(r.URL.Query(), "clear", false)
			if err == nil {
				names, err = namesQuery(r, "aspects")
			}
			if err == nil {
				names, err = o.aspectList(ent, names)
			}
			if err != nil {
				writeOpenAPIError(w, r, err)
				return
			}
			if clear {
				names = nil
				for _, n := range ent.Aspects {
					if a := o.h.reg.Aspect(n); a != nil && !a.Timeseries {
						names = append(names, n)
					}
				}
			}
		}
		if len(names) == 0 || slices.Contains(names, ent.KeyAspect) {
			if _, _, err := o.h.ingest.DeleteEntity(r.Context(), o.h.actor(r), u); err != nil {
				writeOpenAPIError(w, r, err)
				return
			}
			w.WriteHeader(http.StatusOK)
			return
		}
		props := make([]catalog.Proposal, len(names))
		for i, n := range names {
			props[i] = catalog.Proposal{EntityType: ent.Name, EntityURN: u.String(), ChangeType: catalog.Delete, AspectName: n}
		}
		if err := o.ingest(r.Context(), r, props); err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}

// aspectBody is one aspect of a v3 request: {"value": ..., "systemMetadata":
// ..., "headers": ...}; the headers are the proposal's, DataHub's
// conditional-write headers among them.
type aspectBody struct {
	Value          json.RawMessage   `json:"value"`
	SystemMetadata map[string]any    `json:"systemMetadata"`
	Headers        map[string]string `json:"headers"`
}

// conditionalHeaders adds to the headers of a one-aspect write's body the
// conditional-write headers of its HTTP request, which the body's override.
func conditionalHeaders(r *http.Request, body map[string]string) map[string]string {
	var out map[string]string
	for _, name := range []string{catalog.HeaderIfVersionMatch, catalog.HeaderIfModifiedSince, catalog.HeaderIfUnmodifiedSince} {
		v := r.Header.Get(name)
		if _, inBody := body[name]; v == "" || inBody {
			continue
		}
		if out == nil {
			out = maps.Clone(body)
			if out == nil {
				out = map[string]string{}
			}
		}
		out[name] = v
	}
	if out == nil {
		return body
	}
	return out
}

// changeTypeOf is the change type of an aspect write: CREATE_ENTITY,
// CREATE or UPSERT as the createIf... parameters say. DataHub spells the
// entity one createIfEntityNotExists and its smoke tests
// createEntityIfNotExists: both are read.
func changeTypeOf(r *http.Request, createDefault bool) (catalog.ChangeType, error) {
	q := r.URL.Query()
	createEntity := false
	for _, n := range []string{"createIfEntityNotExists", "createEntityIfNotExists"} {
		b, err := boolQuery(q, n, false)
		if err != nil {
			return "", err
		}
		createEntity = createEntity || b
	}
	create, err := boolQuery(q, "createIfNotExists", createDefault)
	switch {
	case err != nil:
		return "", err
	case createEntity:
		return catalog.CreateEntity, nil
	case create:
		return catalog.Create, nil
	}
	return catalog.Upsert, nil
}

// createAspect serves POST /openapi/vN/entity/<type>/<urn>/<aspect>: in v3
// the body is {"value": ..., "systemMetadata": ...}, in v2 the aspect
// itself. With createIfNotExists (true by default) the write fails when
// the aspect exists. It answers the entity with the aspect written, 200,
// or 202 with async=true.
func (o *openAPI) createAspect(ver apiVersion) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ent, u, asp, err := o.entityPath(r, ver)
		if err == nil && asp == nil {
			err = catalog.Errorf(catalog.Invalid, "POST %s names no aspect: write entities with POST /openapi/v%d/entity/%s", r.URL.Path, ver, ent.Name)
		}
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		q := r.URL.Query()
		async, err := boolQuery(q, "async", false)
		var withSM bool
		if err == nil {
			withSM, err = boolQuery(q, "systemMetadata", false)
		}
		var change catalog.ChangeType
		if err == nil {
			change, err = changeTypeOf(r, true)
		}
		body, rerr := readJSONBody(r, true)
		if err == nil {
			err = rerr
		}
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		ab := aspectBody{Value: body}
		if ver == v3 {
			ab = aspectBody{}
			if err := decodeBody(body, &ab, `{"value": {...}}`); err != nil {
				writeOpenAPIError(w, r, err)
				return
			}
			if len(ab.Value) == 0 || string(ab.Value) == "null" {
				writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "aspect %s: value is required ({\"value\": {...}})", asp.Name))
				return
			}
		}
		p := catalog.Proposal{
			EntityType: ent.Name, EntityURN: u.String(), ChangeType: change, AspectName: asp.Name,
			Value: ab.Value, ContentType: "application/json", SystemMetadata: ab.SystemMetadata,
			Headers: conditionalHeaders(r, ab.Headers),
		}
		if err := o.ingest(r.Context(), r, []catalog.Proposal{p}); err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		status := http.StatusOK
		if async {
			status = http.StatusAccepted
		}
		o.writeWritten(w, r, ver, status, []string{u.String()}, map[string][]string{u.String(): {asp.Name}}, sentValues(p), withSM, nil, true)
	}
}

// patchAspect serves PATCH /openapi/vN/entity/<type>/<urn>/<aspect> with a
// JSON Patch, {"patch": [...]} (or the bare list of operations). It answers
// the entity with the patched aspect.
func (o *openAPI) patchAspect(ver apiVersion) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ent, u, asp, err := o.entityPath(r, ver)
		if err == nil && asp == nil {
			err = catalog.Errorf(catalog.Invalid, "PATCH %s names no aspect: patch entities with PATCH /openapi/v3/entity/%s", r.URL.Path, ent.Name)
		}
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		withSM, err := boolQuery(r.URL.Query(), "systemMetadata", false)
		if err == nil {
			_, err = boolQuery(r.URL.Query(), "async", false)
		}
		body, rerr := readJSONBody(r, true)
		if err == nil {
			err = rerr
		}
		var ops json.RawMessage
		if err == nil {
			ops, err = patchOps(body, asp.Name)
		}
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		p := catalog.Proposal{EntityType: ent.Name, EntityURN: u.String(), ChangeType: catalog.Patch, AspectName: asp.Name, Value: ops,
			ContentType: "application/json-patch+json", Headers: conditionalHeaders(r, nil)}
		if err := o.ingest(r.Context(), r, []catalog.Proposal{p}); err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		o.writeWritten(w, r, ver, http.StatusOK, []string{u.String()}, map[string][]string{u.String(): {asp.Name}}, nil, withSM, nil, true)
	}
}

// patchOps returns the JSON Patch operations of DataHub's GenericJsonPatch
// ({"patch": [...], "arrayPrimaryKeys": ..., "forceGenericPatch": ...}) or
// of a bare list. catalogd derives the keys of arrays from the aspect's
// schema, so arrayPrimaryKeys is not needed.
func patchOps(body []byte, aspect string) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "[") {
		return json.RawMessage(trimmed), nil
	}
	var gp struct {
		Patch             json.RawMessage `json:"patch"`
		ArrayPrimaryKeys  json.RawMessage `json:"arrayPrimaryKeys"`
		ForceGenericPatch *bool           `json:"forceGenericPatch"`
	}
	if err := decodeBody(body, &gp, `{"patch": [...]}`); err != nil {
		return nil, err
	}
	if len(gp.Patch) == 0 || string(gp.Patch) == "null" {
		return nil, catalog.Errorf(catalog.Invalid, "aspect %s: missing `patch` field", aspect)
	}
	return gp.Patch, nil
}

// createEntities serves POST /openapi/vN/entity/<type>: a JSON array of
// entities, applied in one transaction. It answers the entities written
// (with every aspect a new entity got), 202 by default (DataHub writes
// asynchronously unless async=false; catalogd has always written them
// before it answers) or 200 with async=false.
func (o *openAPI) createEntities(ver apiVersion) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ent, err := o.entityType(r)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		q := r.URL.Query()
		async, err := boolQuery(q, "async", true)
		var withSM bool
		if err == nil {
			withSM, err = boolQuery(q, "systemMetadata", false)
		}
		var change catalog.ChangeType
		if err == nil {
			change, err = changeTypeOf(r, false)
		}
		var body []byte
		if err == nil {
			body, err = readJSONBody(r, true)
		}
		var items []entityItem
		if err == nil {
			items, err = o.entityItems(body, ent, ver, false)
		}
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		var props []catalog.Proposal
		for _, it := range items {
			for _, a := range it.aspects {
				props = append(props, catalog.Proposal{
					EntityType: ent.Name, EntityURN: it.urn, ChangeType: change, AspectName: a.name,
					Value: a.body.Value, ContentType: "application/json", SystemMetadata: a.body.SystemMetadata,
					Headers: a.body.Headers,
				})
			}
		}
		o.writeEntities(w, r, ver, ent, items, props, async, withSM, false)
	}
}

// patchEntities serves PATCH /openapi/v3/entity/<type>: entities whose
// aspects are {"value": {"patch": [...]}}, applied in one transaction. It
// answers 202 without a body by default, as DataHub does, or with
// async=false 200 and the entities patched.
func (o *openAPI) patchEntities(w http.ResponseWriter, r *http.Request) {
	ent, err := o.entityType(r)
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	q := r.URL.Query()
	async, err := boolQuery(q, "async", true)
	var withSM bool
	if err == nil {
		withSM, err = boolQuery(q, "systemMetadata", false)
	}
	var body []byte
	if err == nil {
		body, err = readJSONBody(r, true)
	}
	var items []entityItem
	if err == nil {
		items, err = o.entityItems(body, ent, v3, true)
	}
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	var props []catalog.Proposal
	for _, it := range items {
		for _, a := range it.aspects {
			props = append(props, catalog.Proposal{
				EntityType: ent.Name, EntityURN: it.urn, ChangeType: catalog.Patch, AspectName: a.name,
				Value: a.body.Value, ContentType: "application/json-patch+json", SystemMetadata: a.body.SystemMetadata,
				Headers: a.body.Headers,
			})
		}
	}
	o.writeEntities(w, r, v3, ent, items, props, async, withSM, true)
}

// entityItem is one entity of a batch write.
type entityItem struct {
	urn     string
	aspects []itemAspect
}

type itemAspect struct {
	name string
	body aspectBody
}

// entityItems decodes the entities of a batch write: in v3 objects with
// "urn" and one member per aspect, in v2 with "urn" and "aspects". With
// patch, each aspect's value is a GenericJsonPatch, reduced to its
// operations.
func (o *openAPI) entityItems(body []byte, ent *catalog.EntitySpec, ver apiVersion, patch bool) ([]entityItem, error) {
	var raw []map[string]json.RawMessage
	if err := decodeBody(body, &raw, "a JSON array of entities"); err != nil {
		return nil, err
	}
	items := make([]entityItem, 0, len(raw))
	for i, m := range raw {
		var s string
		if err := json.Unmarshal(m["urn"], &s); err != nil || s == "" {
			return nil, catalog.Errorf(catalog.Invalid, "entity %d: missing `urn` field", i)
		}
		u, err := o.parseURNOf(ent, s)
		if err != nil {
			return nil, catalog.WithOp("entity "+strconv.Itoa(i), err)
		}
		it := entityItem{urn: u.String()}
		members := m
		if ver == v2 {
			members = nil
			if err := json.Unmarshal(m["aspects"], &members); err != nil || members == nil {
				return nil, catalog.Errorf(catalog.Invalid, "entity %d (%s): missing `aspects` field ({\"aspects\": {\"<aspect>\": {\"value\": {...}}}})", i, catalog.QuoteURN(s))
			}
			for k := range m {
				if k != "urn" && k != "aspects" {
					return nil, catalog.Errorf(catalog.Invalid, "entity %d (%s): unknown field %q (want urn and aspects)", i, catalog.QuoteURN(s), k)
				}
			}
		}
		names := make([]string, 0, len(members))
		for k := range members {
			if k != "urn" || ver == v2 {
				names = append(names, k)
			}
		}
		// Sorted, so that a request is applied the same way every time.
		sort.Strings(names)
		for _, k := range names {
			asp := o.aspectOf(ent, k)
			if asp == nil {
				return nil, &validationError{catalog.Errorf(catalog.Invalid, "entity %d (%s): %q is not an aspect of entity %s", i, catalog.QuoteURN(s), k, ent.Name)}
			}
			var ab aspectBody
			d := json.NewDecoder(strings.NewReader(string(members[k])))
			d.UseNumber()
			if err := d.Decode(&ab); err != nil || len(ab.Value) == 0 || string(ab.Value) == "null" {
				return nil, catalog.Errorf(catalog.Invalid, "entity %d (%s): aspect %s must be {\"value\": {...}}", i, catalog.QuoteURN(s), k)
			}
			if patch {
				if ab.Value, err = patchOps(ab.Value, asp.Name); err != nil {
					return nil, catalog.WithOp("entity "+strconv.Itoa(i), err)
				}
			}
			it.aspects = append(it.aspects, itemAspect{name: asp.Name, body: ab})
		}
		items = append(items, it)
	}
	return items, nil
}

// writeEntities applies the proposals of a batch write and answers the
// entities written: with async, 202 (PATCH: without a body), else 200.
func (o *openAPI) writeEntities(w http.ResponseWriter, r *http.Request, ver apiVersion, ent *catalog.EntitySpec, items []entityItem, props []catalog.Proposal, async, withSM, patch bool) {
	var urns []string
	names := map[string][]string{}
	for _, it := range items {
		if _, seen := names[it.urn]; !seen {
			urns = append(urns, it.urn)
			names[it.urn] = []string{}
		}
		for _, a := range it.aspects {
			if !slices.Contains(names[it.urn], a.name) {
				names[it.urn] = append(names[it.urn], a.name)
			}
		}
	}
	// Entities that do not exist yet get their key and default aspects
	// in the write: DataHub's answer lists them.
	before, err := o.h.store.LatestAspects(r.Context(), urns, []string{ent.KeyAspect})
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	if err := o.ingest(r.Context(), r, props); err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	if async && patch {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	status := http.StatusOK
	if async {
		status = http.StatusAccepted
	}
	var fresh []string
	for _, u := range urns {
		if len(before[u]) == 0 {
			fresh = append(fresh, u)
		}
	}
	o.writeWritten(w, r, ver, status, urns, names, sentValues(props...), withSM, fresh, false)
}

// sentValues indexes the values of timeseries proposals, which are echoed
// rather than read back (a newer value may be stored).
func sentValues(props ...catalog.Proposal) map[[2]string]json.RawMessage {
	m := map[[2]string]json.RawMessage{}
	for _, p := range props {
		if p.ChangeType != catalog.Patch {
			m[[2]string{p.EntityURN, p.AspectName}] = p.Value
		}
	}
	return m
}

// writeWritten answers the aspects of urns that a write named, read back
// as stored; the entities of fresh with every aspect they have. With one
// set, the first entity is answered alone, else the list.
func (o *openAPI) writeWritten(w http.ResponseWriter, r *http.Request, ver apiVersion, status int, urns []string, names map[string][]string, sent map[[2]string]json.RawMessage, withSM bool, fresh []string, one bool) {
	ctx := r.Context()
	out := make([]entityOut, 0, len(urns))
	for _, u := range urns {
		opt := readOpts{names: names[u], withSM: withSM, keepEmpty: true}
		if slices.Contains(fresh, u) {
			opt.names, opt.expand = nil, true
		}
		var versioned []string
		e := entityOut{urn: u}
		for _, n := range opt.names {
			if a := o.h.reg.Aspect(n); a != nil && a.Timeseries {
				if v, ok := sent[[2]string{u, n}]; ok {
					e.aspects = append(e.aspects, aspectOut{name: n, value: v})
				}
				continue
			}
			versioned = append(versioned, n)
		}
		if len(versioned) > 0 || opt.expand {
			opt.names = versioned
			es, err := o.read(ctx, []string{u}, opt)
			if err != nil {
				writeOpenAPIError(w, r, err)
				return
			}
			e.aspects = append(e.aspects, es[0].aspects...)
		}
		slices.SortFunc(e.aspects, func(a, b aspectOut) int { return strings.Compare(a.name, b.name) })
		e.aspects = slices.CompactFunc(e.aspects, func(a, b aspectOut) bool { return a.name == b.name })
		out = append(out, e)
	}
	var b []byte
	var err error
	if one {
		b, err = appendEntity(nil, &out[0], ver)
	} else {
		b, err = appendEntities(nil, out, ver)
	}
	writeBody(w, r, status, b, err)
}

// batchGetV3 serves POST /openapi/v3/entity/<type>/batchGet: a list of
// {"urn": ..., "<aspect>": {}} naming the aspects to read of each entity
// (all when none). Entities with none of them are left out.
func (o *openAPI) batchGetV3(w http.ResponseWriter, r *http.Request) {
	ent, err := o.entityType(r)
	var withSM bool
	if err == nil {
		withSM, err = boolQuery(r.URL.Query(), "systemMetadata", false)
	}
	var body []byte
	if err == nil {
		body, err = readJSONBody(r, true)
	}
	var raw []map[string]json.RawMessage
	if err == nil {
		err = decodeBody(body, &raw, `a JSON array of {"urn": ..., "<aspect>": {}}`)
	}
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	type want struct {
		urn   string
		names []string
	}
	var wants []want
	for i, m := range raw {
		var s string
		if err := json.Unmarshal(m["urn"], &s); err != nil || s == "" {
			writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "entity %d: missing `urn` field", i))
			return
		}
		u, err := o.parseURNOf(ent, s)
		if err != nil {
			writeOpenAPIError(w, r, catalog.WithOp("entity "+strconv.Itoa(i), err))
			return
		}
		var names []string
		for k := range m {
			if k != "urn" {
				names = append(names, k)
			}
		}
		if names, err = o.aspectList(ent, names); err != nil {
			writeOpenAPIError(w, r, catalog.WithOp("entity "+strconv.Itoa(i), err))
			return
		}
		sort.Strings(names)
		wants = append(wants, want{u.String(), names})
	}
	// One read per distinct set of aspects.
	groups := map[string][]string{}
	for _, wt := range wants {
		k := strings.Join(wt.names, ",")
		if !slices.Contains(groups[k], wt.urn) {
			groups[k] = append(groups[k], wt.urn)
		}
	}
	got := map[string]entityOut{}
	for k, urns := range groups {
		var names []string
		if k != "" {
			names = strings.Split(k, ",")
		}
		es, err := o.read(r.Context(), urns, readOpts{names: names, expand: true, withSM: withSM})
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		for _, e := range es {
			got[e.urn] = e
		}
	}
	out := make([]entityOut, 0, len(wants))
	for _, wt := range wants {
		if e, ok := got[wt.urn]; ok {
			out = append(out, e)
			delete(got, wt.urn)
		}
	}
	b, err := appendEntities(nil, out, v3)
	writeBody(w, r, http.StatusOK, b, err)
}

// batchGetV2 serves POST /openapi/v2/entity/batch/<type>: {"urns": [...],
// "aspectNames": [...], "withSystemMetadata": bool}, answered as
// {"entities": [...]} with every URN asked for.
func (o *openAPI) batchGetV2(w http.ResponseWriter, r *http.Request) {
	ent, err := o.entityType(r)
	var body []byte
	if err == nil {
		body, err = readJSONBody(r, true)
	}
	var req struct {
		URNs               []string `json:"urns"`
		AspectNames        []string `json:"aspectNames"`
		WithSystemMetadata bool     `json:"withSystemMetadata"`
	}
	if err == nil {
		err = decodeBody(body, &req, `{"urns": [...], "aspectNames": [...], "withSystemMetadata": false}`)
	}
	var names []string
	if err == nil {
		names, err = o.aspectList(ent, req.AspectNames)
	}
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	urns := make([]string, 0, len(req.URNs))
	for i, s := range req.URNs {
		u, err := o.parseURNOf(ent, s)
		if err != nil {
			writeOpenAPIError(w, r, catalog.WithOp("urns["+strconv.Itoa(i)+"]", err))
			return
		}
		if !slices.Contains(urns, u.String()) {
			urns = append(urns, u.String())
		}
	}
	es, err := o.read(r.Context(), urns, readOpts{names: names, expand: true, withSM: req.WithSystemMetadata, keepEmpty: true})
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	b := append([]byte(nil), `{"entities":`...)
	b, err = appendEntities(b, es, v2)
	writeBody(w, r, http.StatusOK, append(b, '}'), err)
}

// platformEntities serves POST /openapi/v2/platform/entities/v1/: a list of
// MetadataChangeProposals whose aspect value is a JSON object (DataHub's
// generated classes add a "__type" member naming the record, which is
// dropped). They apply in one transaction; the answer is 201 with the URNs
// written, as DataHub answers writes committed to its database.
func (o *openAPI) platformEntities(w http.ResponseWriter, r *http.Request) {
	if _, err := boolQuery(r.URL.Query(), "async", false); err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	body, err := readJSONBody(r, true)
	if err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	type genericAspect struct {
		Value       json.RawMessage `json:"value"`
		ContentType string          `json:"contentType"`
	}
	var mcps []struct {
		EntityType      string         `json:"entityType"`
		EntityURN       string         `json:"entityUrn"`
		EntityKeyAspect *genericAspect `json:"entityKeyAspect"`
		ChangeType      string         `json:"changeType"`
		AspectName      string         `json:"aspectName"`
		Aspect          *genericAspect `json:"aspect"`
		SystemMetadata  map[string]any `json:"systemMetadata"`
		AuditHeader     map[string]any `json:"auditHeader"`
	}
	if err := decodeBody(body, &mcps, "a JSON array of MetadataChangeProposals"); err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	props := make([]catalog.Proposal, len(mcps))
	for i, m := range mcps {
		p := catalog.Proposal{
			EntityType: m.EntityType, EntityURN: m.EntityURN, ChangeType: catalog.ChangeType(m.ChangeType),
			AspectName: m.AspectName, SystemMetadata: m.SystemMetadata,
		}
		if m.EntityKeyAspect != nil {
			if p.EntityKey, err = genericValue(m.EntityKeyAspect.Value); err != nil {
				writeOpenAPIError(w, r, catalog.WithOp("proposal "+strconv.Itoa(i)+" entityKeyAspect", err))
				return
			}
		}
		if m.Aspect != nil {
			p.ContentType = m.Aspect.ContentType
			if p.Value, err = genericValue(m.Aspect.Value); err != nil {
				writeOpenAPIError(w, r, catalog.WithOp("proposal "+strconv.Itoa(i)+" aspect", err))
				return
			}
		}
		props[i] = p
	}
	if len(props) == 0 {
		writeJSON(w, http.StatusOK, []string{})
		return
	}
	res, err := o.h.ingest.Ingest(r.Context(), o.h.actor(r), props)
	if err != nil {
		writeOpenAPIError(w, r, &validationError{err})
		return
	}
	var urns []string
	for _, u := range res.URNs {
		if !slices.Contains(urns, u) {
			urns = append(urns, u)
		}
	}
	writeJSON(w, http.StatusCreated, urns)
}

// genericValue is the JSON of an OpenAPI GenericAspect value: an object
// (without the "__type" member of DataHub's generated classes), a list
// (JSON Patch), or a string holding JSON, as rest.li proposals carry it.
func genericValue(raw json.RawMessage) (json.RawMessage, error) {
	t := strings.TrimSpace(string(raw))
	switch {
	case t == "" || t == "null":
		return nil, catalog.Errorf(catalog.Invalid, "value is required")
	case strings.HasPrefix(t, `"`):
		s, ok := fastjson.String([]byte(t))
		if !ok {
			return nil, catalog.Errorf(catalog.Invalid, "value is not a JSON string")
		}
		return json.RawMessage(s), nil
	case strings.HasPrefix(t, "{"):
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(t), &m); err != nil {
			return nil, catalog.Errorf(catalog.Invalid, "value is not a JSON object: %v", err)
		}
		if _, ok := m["__type"]; ok {
			delete(m, "__type")
			b, err := json.Marshal(m)
			return b, err
		}
	}
	return json.RawMessage(t), nil
}
