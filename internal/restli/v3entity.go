package restli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// The OpenAPI v3 entity endpoints are the ones the terraform provider and
// DataHub SDKs newer than 1.0.1 use. An entity is one JSON object: its "urn"
// and one member per aspect, {"<aspect>": {"value": {...}}}, optionally with
// "systemMetadata" beside "value". They share the rest.li handler so that
// they share its actor, body limit and error mapping.

const v3EntityPrefix = "/openapi/v3/entity/"

// ServeOpenAPIV3 registers GET, POST and DELETE /openapi/v3/entity/....
func (h *Handler) ServeOpenAPIV3() {
	h.mux.HandleFunc("GET "+v3EntityPrefix+"{entity}/{urn...}", h.v3GetEntity)
	h.mux.HandleFunc("DELETE "+v3EntityPrefix+"{entity}/{urn...}", h.v3DeleteEntity)
	h.mux.HandleFunc("POST "+v3EntityPrefix+"{entity}", h.v3PostEntities)
}

// v3URN reads the entity type and URN of a /openapi/v3/entity/<type>/<urn>
// path. Clients send the URN raw or percent-encoded; both decode the same.
func (h *Handler) v3URN(r *http.Request) (*catalog.EntitySpec, catalog.URN, error) {
	entity := r.PathValue("entity")
	ent := h.reg.Entity(entity)
	if ent == nil {
		return nil, catalog.URN{}, catalog.Errorf(catalog.NotFound, "unknown entity type %q", entity)
	}
	u, err := pathURN(r.URL, v3EntityPrefix+entity+"/")
	if err != nil {
		return nil, catalog.URN{}, err
	}
	if !strings.EqualFold(u.EntityType(), ent.Name) {
		return nil, catalog.URN{}, catalog.Errorf(catalog.Invalid, "URN %s is not a %s URN", u, ent.Name)
	}
	return ent, u, nil
}

func (h *Handler) v3GetEntity(w http.ResponseWriter, r *http.Request) {
	ent, u, err := h.v3URN(r)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	names := r.URL.Query()["aspects"]
	for _, n := range names {
		if !h.reg.EntityHasAspect(ent.Name, n) {
			WriteError(w, r, catalog.Errorf(catalog.Invalid, "aspect %s is not an aspect of entity %s", n, ent.Name))
			return
		}
	}
	withSM := boolParam(r.URL.Query(), "systemMetadata")
	out, err := h.v3Entities(r.Context(), []string{u.String()}, names, withSM)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if len(out) == 0 {
		WriteError(w, r, catalog.Errorf(catalog.NotFound, "entity %s not found", u))
		return
	}
	writeJSON(w, http.StatusOK, out[0])
}

// v3Entities renders the stored latest aspects of urns in the v3 form, in
// urns order, leaving out URNs with nothing stored.
func (h *Handler) v3Entities(ctx context.Context, urns, names []string, withSM bool) ([]map[string]any, error) {
	stored, err := h.store.LatestAspects(ctx, urns, names)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, u := range urns {
		as := stored[u]
		if len(as) == 0 {
			continue
		}
		e := map[string]any{"urn": u}
		for _, a := range as {
			env := map[string]any{"value": a.Value}
			if withSM && len(a.SystemMetadata) > 0 {
				env["systemMetadata"] = a.SystemMetadata
			}
			e[a.Name] = env
		}
		out = append(out, e)
	}
	return out, nil
}

func (h *Handler) v3PostEntities(w http.ResponseWriter, r *http.Request) {
	entity := r.PathValue("entity")
	ent := h.reg.Entity(entity)
	if ent == nil {
		WriteError(w, r, catalog.Errorf(catalog.NotFound, "unknown entity type %q", entity))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = checkUTF8(body)
	}
	if err != nil {
		WriteError(w, r, err)
		return
	}
	var items []map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&items); err != nil {
		WriteError(w, r, catalog.Errorf(catalog.Invalid, "body must be a JSON array of entities: %s", strings.TrimPrefix(err.Error(), "json: ")))
		return
	}
	var props []catalog.Proposal
	urns := make([]string, 0, len(items))
	written := map[string]bool{}
	for i, item := range items {
		var urn string
		if err := json.Unmarshal(item["urn"], &urn); err != nil || urn == "" {
			WriteError(w, r, catalog.Errorf(catalog.Invalid, "entity %d: urn is required", i))
			return
		}
		urns = append(urns, urn)
		names := make([]string, 0, len(item))
		for k := range item {
			if k != "urn" {
				names = append(names, k)
			}
		}
		// Sorted, so that a request is applied the same way every time.
		sort.Strings(names)
		for _, name := range names {
			var env struct {
				Value          json.RawMessage `json:"value"`
				SystemMetadata map[string]any  `json:"systemMetadata"`
			}
			if err := json.Unmarshal(item[name], &env); err != nil || len(env.Value) == 0 {
				WriteError(w, r, catalog.Errorf(catalog.Invalid, "entity %d (%s): aspect %s must be {\"value\": {...}}", i, catalog.QuoteURN(urn), name))
				return
			}
			props = append(props, catalog.Proposal{
				EntityType: ent.Name, EntityURN: urn, ChangeType: catalog.Upsert, AspectName: name,
				Value: env.Value, ContentType: "application/json", SystemMetadata: env.SystemMetadata,
			})
			written[name] = true
		}
	}
	if len(props) > 0 {
		if _, err := h.ingest.Ingest(r.Context(), h.actor(r), props); err != nil {
			WriteError(w, r, err)
			return
		}
	}
	names := make([]string, 0, len(written))
	for n := range written {
		names = append(names, n)
	}
	out, err := h.v3Entities(r.Context(), urns, names, boolParam(r.URL.Query(), "systemMetadata"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if out == nil {
		out = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, out)
}

// v3DeleteEntity hard-deletes the entity. Deleting an absent entity succeeds,
// so that a retried delete is harmless.
func (h *Handler) v3DeleteEntity(w http.ResponseWriter, r *http.Request) {
	_, u, err := h.v3URN(r)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	if _, _, err := h.ingest.DeleteEntity(r.Context(), h.actor(r), u); err != nil {
		WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func boolParam(q url.Values, name string) bool {
	v := strings.ToLower(q.Get(name))
	return v == "true" || v == "1"
}
