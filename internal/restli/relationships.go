package restli

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Paging of GET /relationships: DataHub's defaults, and a cap that keeps one
// response to a few megabytes however large a count is asked for.
const (
	defaultRelationshipCount = 100
	maxRelationshipCount     = 10_000
)

// entityRelationship is DataHub's EntityRelationship record.
type entityRelationship struct {
	Type    string              `json:"type"`
	Entity  string              `json:"entity"`
	Created *catalog.AuditStamp `json:"created,omitempty"`
}

// entityRelationships is DataHub's EntityRelationships record plus the
// "entities" list that older clients and DataHub's own docs read.
type entityRelationships struct {
	Start         int                  `json:"start"`
	Count         int                  `json:"count"`
	Total         int                  `json:"total"`
	Relationships []entityRelationship `json:"relationships"`
	Entities      []string             `json:"entities"`
}

// ServeRelationships registers GET /relationships, the rest.li simple
// resource listing the edges of one entity.
func (h *Handler) ServeRelationships() {
	h.HandleFunc("GET /relationships", h.getRelationships)
}

func (h *Handler) getRelationships(w http.ResponseWriter, r *http.Request) {
	q, err := relationshipQuery(r.URL)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	// The store reads Count <= 0 as "no limit"; a page of zero still needs
	// the total, so ask for one edge and drop it.
	want := q.Count
	if want == 0 {
		q.Count = 1
	}
	edges, total, err := h.store.Edges(r.Context(), q)
	if err != nil {
		WriteError(w, r, catalog.WithOp("list relationships of "+q.URN, err))
		return
	}
	if len(edges) > want {
		edges = edges[:want]
	}
	resp := entityRelationships{
		Start: q.Start, Count: len(edges), Total: total,
		Relationships: make([]entityRelationship, len(edges)),
		Entities:      make([]string, len(edges)),
	}
	for i, e := range edges {
		other := e.Destination
		if q.Direction == catalog.Incoming {
			other = e.Source
		}
		rel := entityRelationship{Type: e.Relationship, Entity: other}
		if e.Created.Time != 0 || e.Created.Actor != "" {
			c := e.Created
			if c.Actor == "" {
				// AuditStamp requires an actor; edges written without one
				// were written by the service itself.
				c.Actor = catalog.SystemActor
			}
			rel.Created = &c
		}
		resp.Relationships[i] = rel
		resp.Entities[i] = other
	}
	writeJSON(w, http.StatusOK, resp)
}

// relationshipQuery parses and checks the query parameters of GET
// /relationships: urn, direction and types are required, start and count
// optional.
func relationshipQuery(u *url.URL) (catalog.EdgeQuery, error) {
	params := u.Query()
	var q catalog.EdgeQuery
	urn := params.Get("urn")
	if urn == "" {
		return q, catalog.Errorf(catalog.Invalid, "query parameter urn is required")
	}
	parsed, err := catalog.ParseURN(urn)
	if err != nil {
		return q, catalog.WithOp("query parameter urn", err)
	}
	q.URN = parsed.String()

	// Java's RelationshipDirection.valueOf: exact, upper-case names only.
	switch d := params.Get("direction"); d {
	case string(catalog.Incoming), string(catalog.Outgoing):
		q.Direction = catalog.Direction(d)
	case "":
		return q, catalog.Errorf(catalog.Invalid, "query parameter direction is required: INCOMING or OUTGOING")
	default:
		return q, catalog.Errorf(catalog.Invalid, "query parameter direction: unknown direction %q, want INCOMING or OUTGOING", d)
	}

	types, err := queryList(u.RawQuery, "types")
	if err != nil {
		return q, err
	}
	for _, t := range types {
		// Relationship names never hold commas, so a bare "A,B" (shown in
		// DataHub's docs, sent by protocol 1.0 clients) is two names.
		for _, name := range strings.Split(t, ",") {
			if name = strings.TrimSpace(name); name != "" && !slices.Contains(q.Relationships, name) {
				q.Relationships = append(q.Relationships, name)
			}
		}
	}
	if len(q.Relationships) == 0 {
		return q, catalog.Errorf(catalog.Invalid, "query parameter types is required, e.g. types=List(OwnedBy,DownstreamOf)")
	}

	if q.Start, err = nonNegative(params, "start", 0); err != nil {
		return q, err
	}
	if q.Count, err = nonNegative(params, "count", defaultRelationshipCount); err != nil {
		return q, err
	}
	q.Count = min(q.Count, maxRelationshipCount)
	return q, nil
}

// nonNegative reads an optional non-negative integer query parameter.
func nonNegative(params url.Values, name string, def int) (int, error) {
	s := params.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, catalog.Errorf(catalog.Invalid, "query parameter %s: want a non-negative integer, got %q", name, s)
	}
	return n, nil
}
