package restli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/registry"
)

// envelopedAspect is one aspect of an EntityResponse (entitiesV2).
type envelopedAspect struct {
	Name           string             `json:"name"`
	Type           string             `json:"type"`
	Version        int64              `json:"version"`
	Value          json.RawMessage    `json:"value"`
	Created        catalog.AuditStamp `json:"created"`
	SystemMetadata json.RawMessage    `json:"systemMetadata,omitempty"`
}

type entityResponse struct {
	URN        string                     `json:"urn"`
	EntityName string                     `json:"entityName"`
	Aspects    map[string]envelopedAspect `json:"aspects"`
}

// appendJSON appends the response as encoding/json encodes it (without
// HTML escaping), copying the stored values through fastjson.AppendCompact.
// It fails, naming the aspect, if a stored value is not valid JSON.
func (r *entityResponse) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"urn":`...)
	dst = fastjson.AppendString(dst, r.URN)
	dst = append(dst, `,"entityName":`...)
	dst = fastjson.AppendString(dst, r.EntityName)
	dst = append(dst, `,"aspects":{`...)
	names := make([]string, 0, len(r.Aspects))
	for n := range r.Aspects {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		a := r.Aspects[n]
		dst = fastjson.AppendString(dst, n)
		dst = append(dst, `:{"name":`...)
		dst = fastjson.AppendString(dst, a.Name)
		dst = append(dst, `,"type":`...)
		dst = fastjson.AppendString(dst, a.Type)
		dst = append(dst, `,"version":`...)
		dst = strconv.AppendInt(dst, a.Version, 10)
		dst = append(dst, `,"value":`...)
		var ok bool
		if dst, ok = appendRaw(dst, a.Value); !ok {
			return dst, fmt.Errorf("stored value of aspect %s of %s is not valid JSON", n, r.URN)
		}
		dst = append(dst, `,"created":{"time":`...)
		dst = strconv.AppendInt(dst, a.Created.Time, 10)
		dst = append(dst, `,"actor":`...)
		dst = fastjson.AppendString(dst, a.Created.Actor)
		dst = append(dst, '}')
		if len(a.SystemMetadata) > 0 {
			dst = append(dst, `,"systemMetadata":`...)
			if dst, ok = appendRaw(dst, a.SystemMetadata); !ok {
				return dst, fmt.Errorf("stored system metadata of aspect %s of %s is not valid JSON", n, r.URN)
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, "}}"...), nil
}

// appendRaw appends a json.RawMessage as encoding/json does: null when nil,
// otherwise compacted (an empty value is not valid JSON).
func appendRaw(dst []byte, raw json.RawMessage) ([]byte, bool) {
	if raw == nil {
		return append(dst, "null"...), true
	}
	return fastjson.AppendCompact(dst, raw)
}

// writeEncoded answers 200 with a body that appendJSON or appendBatch
// made, or with their error: a stored value that is not JSON is an
// internal error.
func writeEncoded(w http.ResponseWriter, r *http.Request, body []byte, err error) {
	if err != nil {
		WriteError(w, r, &catalog.Error{Kind: catalog.Internal, Op: "encode entity response", Err: err})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n')) // as json.Encoder ends a value
}

// appendBatch encodes a batch get's body as writeJSON encoded it: the entity
// responses by URN, and the errors of the URNs that could not be read.
func appendBatch(batch map[string]entityResponse, errs map[string]any) ([]byte, error) {
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(errs); err != nil {
		return nil, err
	}
	b := append([]byte(`{"errors":`), bytes.TrimSuffix(e.Bytes(), []byte("\n"))...)
	b = append(b, `,"results":{`...)
	urns := make([]string, 0, len(batch))
	for u := range batch {
		urns = append(urns, u)
	}
	slices.Sort(urns)
	for i, u := range urns {
		if i > 0 {
			b = append(b, ',')
		}
		b = fastjson.AppendString(b, u)
		b = append(b, ':')
		r := batch[u]
		var err error
		if b, err = r.appendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, `},"statuses":{}}`...), nil
}

// entitySpec resolves the entity type of u, or fails with Invalid.
func (h *Handler) entitySpec(u catalog.URN) (*catalog.EntitySpec, error) {
	ent := h.reg.Entity(u.EntityType())
	if ent == nil {
		return nil, catalog.Errorf(catalog.Invalid, "unknown entity type %q in URN %s", u.EntityType(), u)
	}
	if err := registry.CheckURN(ent, u); err != nil {
		return nil, err
	}
	return ent, nil
}

// aspectNames validates the aspects query parameter against the entity.
func (h *Handler) aspectNames(ent *catalog.EntitySpec, names []string) error {
	for _, n := range names {
		if !h.reg.EntityHasAspect(ent.Name, n) {
			return catalog.Errorf(catalog.Invalid, "aspect %q is not an aspect of entity %s", n, ent.Name)
		}
	}
	return nil
}

// entityResponses builds EntityResponses for urns. Like DataHub, an entity
// with nothing stored still answers with its key aspect, built from the URN.
func (h *Handler) entityResponses(ctx context.Context, urns []catalog.URN, names []string) (map[string]entityResponse, error) {
	keys := make([]string, len(urns))
	for i, u := range urns {
		keys[i] = u.String()
	}
	stored, err := h.store.LatestAspects(ctx, keys, names)
	if err != nil {
		return nil, err
	}
	out := make(map[string]entityResponse, len(urns))
	for _, u := range urns {
		ent, err := h.entitySpec(u)
		if err != nil {
			return nil, err
		}
		resp := entityResponse{URN: u.String(), EntityName: ent.Name, Aspects: map[string]envelopedAspect{}}
		for _, a := range stored[u.String()] {
			resp.Aspects[a.Name] = envelopedAspect{
				Name: a.Name, Type: "VERSIONED", Version: 0, Value: a.Value,
				Created: a.Created, SystemMetadata: a.SystemMetadata,
			}
		}
		if _, ok := resp.Aspects[ent.KeyAspect]; !ok && (len(names) == 0 || slices.Contains(names, ent.KeyAspect)) {
			key, err := h.keyValue(ent, u)
			if err != nil {
				return nil, err
			}
			resp.Aspects[ent.KeyAspect] = envelopedAspect{
				Name: ent.KeyAspect, Type: "VERSIONED", Value: key,
				Created: catalog.AuditStamp{Actor: catalog.SystemActor, Time: time.Now().UnixMilli()},
			}
		}
		out[u.String()] = resp
	}
	return out, nil
}

func (h *Handler) keyValue(ent *catalog.EntitySpec, u catalog.URN) (json.RawMessage, error) {
	key, err := registry.KeyFromURN(ent, u)
	if err != nil {
		return nil, err
	}
	return json.Marshal(key)
}

func (h *Handler) getEntityV2(w http.ResponseWriter, r *http.Request) {
	u, err := pathURN(r.URL, "/entitiesV2/")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	names, err := queryList(r.URL.RawQuery, "aspects")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	ent, err := h.entitySpec(u)
	if err == nil {
		err = h.aspectNames(ent, names)
	}
	if err != nil {
		WriteError(w, r, err)
		return
	}
	resp, err := h.entityResponses(r.Context(), []catalog.URN{u}, names)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	one := resp[u.String()]
	body, err := one.appendJSON(nil)
	writeEncoded(w, r, body, err)
}

func (h *Handler) batchGetEntityV2(w http.ResponseWriter, r *http.Request) {
	ids, err := queryList(r.URL.RawQuery, "ids")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if len(ids) == 0 {
		WriteError(w, r, catalog.Errorf(catalog.Invalid, "query parameter ids is required, e.g. ids=List(<urn>,<urn>)"))
		return
	}
	names, err := queryList(r.URL.RawQuery, "aspects")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	urns := make([]catalog.URN, 0, len(ids))
	errs := map[string]any{}
	for _, id := range ids {
		u, err := catalog.ParseURN(id)
		if err == nil {
			var ent *catalog.EntitySpec
			if ent, err = h.entitySpec(u); err == nil {
				err = h.aspectNames(ent, names)
			}
		}
		if err != nil {
			status := StatusOf(err)
			errs[id] = errorBody{Status: status, Message: catalog.Message(err), ExceptionClass: exceptionClass}
			continue
		}
		urns = append(urns, u)
	}
	results, err := h.entityResponses(r.Context(), urns, names)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	body, err := appendBatch(results, errs)
	writeEncoded(w, r, body, err)
}

// getEntitySnapshot serves the deprecated GET /entities/<urn>: the entity as
// its legacy snapshot record, key aspect first, holding the aspects that the
// snapshot's union allows.
func (h *Handler) getEntitySnapshot(w http.ResponseWriter, r *http.Request) {
	u, err := pathURN(r.URL, "/entities/")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	ent, err := h.entitySpec(u)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if ent.Snapshot == "" {
		WriteError(w, r, catalog.Errorf(catalog.Invalid, "entity type %s has no snapshot form; read it with GET /entitiesV2/<urn>", ent.Name))
		return
	}
	names, err := queryList(r.URL.RawQuery, "aspects")
	if err == nil {
		err = h.aspectNames(ent, names)
	}
	if err != nil {
		WriteError(w, r, err)
		return
	}
	resp, err := h.entityResponses(r.Context(), []catalog.URN{u}, nil)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	aspects := resp[u.String()].Aspects
	var list []map[string]json.RawMessage
	for _, name := range append([]string{ent.KeyAspect}, ent.SnapshotAspects...) {
		a, ok := aspects[name]
		if !ok || (len(names) > 0 && name != ent.KeyAspect && !slices.Contains(names, name)) {
			continue
		}
		spec := h.reg.Aspect(name)
		if spec == nil {
			continue
		}
		list = append(list, map[string]json.RawMessage{spec.WireName: a.Value})
		delete(aspects, name) // the key aspect may also be listed among SnapshotAspects
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"value": map[string]any{ent.Snapshot: map[string]any{"urn": u.String(), "aspects": list}},
	})
}

// getAspect serves GET /aspects/<urn>?aspect=<name>&version=<n>.
func (h *Handler) getAspect(w http.ResponseWriter, r *http.Request) {
	u, err := pathURN(r.URL, "/aspects/")
	if err != nil {
		WriteError(w, r, err)
		return
	}
	ent, err := h.entitySpec(u)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	name := q.Get("aspect")
	if name == "" {
		WriteError(w, r, catalog.Errorf(catalog.Invalid, "query parameter aspect is required"))
		return
	}
	if err := h.aspectNames(ent, []string{name}); err != nil {
		WriteError(w, r, err)
		return
	}
	spec := h.reg.Aspect(name)
	if spec.Timeseries {
		WriteError(w, r, catalog.Errorf(catalog.Invalid, "aspect %s is a timeseries aspect; read it with POST /aspects?action=getTimeseriesAspectValues", name))
		return
	}
	var version int64
	if v := q.Get("version"); v != "" {
		version, err = strconv.ParseInt(v, 10, 64)
		if err != nil {
			WriteError(w, r, catalog.Errorf(catalog.Invalid, "query parameter version must be an integer, got %q", v))
			return
		}
	}
	a, err := h.store.AspectVersion(r.Context(), u.String(), name, version)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"version": a.Version,
		"aspect":  map[string]json.RawMessage{spec.WireName: a.Value},
	})
}
