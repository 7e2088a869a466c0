package auth

import (
	"context"
	"net/http"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// PrivExistsEntity lets an actor learn whether an entity exists.
const PrivExistsEntity = "EXISTS_ENTITY"

// existsPrivileges are the alternatives that let an actor ask whether an
// entity exists: knowing it exists is less than viewing it.
var existsPrivileges = []string{PrivExistsEntity, PrivViewEntity, PrivGetEntity}

// openAPIRead returns the privilege check of the reads of DataHub's OpenAPI
// v2 and v3 endpoints (writes are checked by the ingest pipeline); ok is
// false for every other request. entityURN names the entity a path of the
// entity endpoints reads.
func (s *Service) openAPIRead(r *http.Request, actor string, entityURN func(*http.Request) (string, bool)) (ok bool, err error) {
	ctx := r.Context()
	p := r.URL.Path
	rest, isEntity := strings.CutPrefix(p, "/openapi/v3/entity/")
	if !isEntity {
		rest, isEntity = strings.CutPrefix(p, "/openapi/v2/entity/")
	}
	relationship := strings.HasPrefix(p, "/openapi/v3/relationship/") || strings.HasPrefix(p, "/openapi/v2/relationship/")
	switch {
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && isEntity && strings.Contains(rest, "/"):
		res := Resource{}
		if entityURN != nil {
			if u, found := entityURN(r); found {
				res = resourceOf(u)
			}
		}
		if r.Method == http.MethodHead {
			return true, s.Require(ctx, actor, res, "check the existence of entity", existsPrivileges...)
		}
		return true, s.Require(ctx, actor, res, "view entity", viewPrivileges...)
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && (isEntity || relationship):
		// A scroll of a type, or the edges of a relationship type or an entity.
		res := Resource{}
		if relationship {
			tail := r.URL.EscapedPath()[strings.Index(r.URL.EscapedPath(), "/relationship/")+len("/relationship/"):]
			if _, u, found := strings.Cut(tail, "/"); found {
				res = resourceOf(unescape(u))
			}
		}
		return true, s.Require(ctx, actor, res, "view entities", viewPrivileges...)
	case r.Method == http.MethodPost && p == "/openapi/v3/entity/scroll":
		return true, s.Require(ctx, actor, Resource{}, "view entities", viewPrivileges...)
	case r.Method == http.MethodPost && isEntity && (strings.HasSuffix(p, "/batchGet") && strings.Count(rest, "/") == 1 ||
		strings.HasPrefix(rest, "batch/") && strings.HasPrefix(p, "/openapi/v2/")):
		return true, s.requireBatch(r, actor)
	case r.Method == http.MethodPost && p == "/entities" && r.URL.Query().Get("action") == "exists":
		var args struct {
			URN string `json:"urn"`
		}
		peekJSON(r, &args)
		return true, s.Require(ctx, actor, resourceOf(args.URN), "check the existence of entity", existsPrivileges...)
	}
	return false, nil
}

// requireBatch checks the view privilege on every entity a batch read
// names: the v3 list of {"urn": ...} or the v2 {"urns": [...]}. A body that
// names none (or that is not JSON, which the handler refuses) needs the
// privilege on every entity.
func (s *Service) requireBatch(r *http.Request, actor string) error {
	var urns []string
	if strings.HasPrefix(r.URL.Path, "/openapi/v2/") {
		var args struct {
			URNs []string `json:"urns"`
		}
		peekJSON(r, &args)
		urns = args.URNs
	} else {
		var args []struct {
			URN string `json:"urn"`
		}
		peekJSON(r, &args)
		for _, a := range args {
			urns = append(urns, a.URN)
		}
	}
	if len(urns) == 0 {
		return s.Require(r.Context(), actor, Resource{}, "view entities", viewPrivileges...)
	}
	seen := map[string]bool{}
	for _, u := range urns {
		if seen[u] {
			continue
		}
		seen[u] = true
		if err := s.Require(r.Context(), actor, resourceOf(u), "view entity "+catalog.QuoteURN(u), viewPrivileges...); err != nil {
			return err
		}
	}
	return nil
}

// RequireView refuses, with a Forbidden error, when actor may not view
// every one of urns: the check of the entities a scroll lists, which
// DataHub makes on the whole page.
func (s *Service) RequireView(ctx context.Context, actor string, urns []string) error {
	for _, u := range urns {
		if err := s.Require(ctx, actor, resourceOf(u), "view entity "+catalog.QuoteURN(u), viewPrivileges...); err != nil {
			return err
		}
	}
	return nil
}
