package restli

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// genericNode is one end of a relationship in DataHub's GenericRelationship.
type genericNode struct {
	EntityType string `json:"entityType"`
	URN        string `json:"urn"`
}

// genericRelationship is DataHub's GenericRelationship.
type genericRelationship struct {
	RelationshipType string      `json:"relationshipType"`
	Destination      genericNode `json:"destination"`
	Source           genericNode `json:"source"`
}

// relationshipScroll is DataHub's GenericScrollResult of relationships.
type relationshipScroll struct {
	ScrollID string                `json:"scrollId,omitempty"`
	Results  []genericRelationship `json:"results"`
}

// relationships serves GET /openapi/v2|v3/relationship/<type> (every edge
// of a relationship type) and /openapi/v2|v3/relationship/<entity>/<urn>
// (the edges of an entity: relationshipType[] to filter, direction
// OUTGOING by default or INCOMING), a page of count edges at a time.
func (o *openAPI) relationships(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	count := defaultScrollCount
	if v := q.Get("count"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "query parameter count must be a non-negative integer, got %q", v))
			return
		}
		count = min(n, maxRelationshipCount)
	}
	start := 0
	if v := q.Get("scrollId"); v != "" {
		b, err := base64.RawURLEncoding.DecodeString(v)
		n, cerr := strconv.Atoi(strings.TrimPrefix(string(b), "edges:"))
		if err != nil || cerr != nil || !strings.HasPrefix(string(b), "edges:") || n < 0 {
			writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "malformed scrollId %q: pass the scrollId of the previous page unchanged", v))
			return
		}
		start = n
	}
	if _, err := boolQuery(q, "includeSoftDelete", false); err != nil {
		writeOpenAPIError(w, r, err)
		return
	}
	esc := r.URL.EscapedPath()
	tail := esc[strings.Index(esc, "/relationship/")+len("/relationship/"):]
	eq := catalog.EdgeQuery{Start: start, Count: count + 1}
	if typ, urn, ok := strings.Cut(tail, "/"); ok {
		ent := o.h.reg.Entity(typ)
		if ent == nil {
			writeOpenAPIError(w, r, catalog.Errorf(catalog.NotFound, "unknown entity type %q", typ))
			return
		}
		s, err := url.PathUnescape(urn)
		if err != nil {
			writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "bad percent-encoding in URN %q", urn))
			return
		}
		u, err := o.parseURNOf(ent, s)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		eq.URN = u.String()
		switch d := strings.ToUpper(q.Get("direction")); d {
		case "", "OUTGOING":
			eq.Direction = catalog.Outgoing
		case "INCOMING":
			eq.Direction = catalog.Incoming
		default:
			writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "direction must be INCOMING or OUTGOING, got %q", q.Get("direction")))
			return
		}
		for _, t := range append(q["relationshipType[]"], q["relationshipType"]...) {
			for _, s := range strings.Split(t, ",") {
				if s = strings.TrimSpace(s); s != "" && s != "*" {
					eq.Relationships = append(eq.Relationships, s)
				}
			}
		}
	} else {
		rel, err := url.PathUnescape(tail)
		if err != nil || rel == "" {
			writeOpenAPIError(w, r, catalog.Errorf(catalog.Invalid, "relationship type missing from path"))
			return
		}
		eq.Relationships = []string{rel}
	}
	out := relationshipScroll{Results: []genericRelationship{}}
	if count > 0 {
		edges, _, err := o.h.store.Edges(r.Context(), eq)
		if err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		if len(edges) > count {
			edges = edges[:count]
			out.ScrollID = base64.RawURLEncoding.EncodeToString([]byte("edges:" + strconv.Itoa(start+count)))
		}
		ends := make([]string, 0, 2*len(edges))
		for _, e := range edges {
			if !slices.Contains(ends, e.Source) {
				ends = append(ends, e.Source)
			}
			if !slices.Contains(ends, e.Destination) {
				ends = append(ends, e.Destination)
			}
		}
		if err := o.canView(r.Context(), o.h.actor(r), ends); err != nil {
			writeOpenAPIError(w, r, err)
			return
		}
		for _, e := range edges {
			out.Results = append(out.Results, genericRelationship{
				RelationshipType: e.Relationship,
				Source:           genericNode{EntityType: urnType(e.Source), URN: e.Source},
				Destination:      genericNode{EntityType: urnType(e.Destination), URN: e.Destination},
			})
		}
	}
	writeJSON(w, http.StatusOK, out)
}
