package restli

import (
	"context"
	"net/http"

	"github.com/catalogd/catalogd/internal/catalog"
)

// listURNsResult is DataHub's ListUrnsResult.
type listURNsResult struct {
	Entities []string `json:"entities"`
	Start    int      `json:"start"`
	Count    int      `json:"count"`
	Total    int      `json:"total"`
}

// listURNs serves POST /entities?action=listUrns: a page (start, count) of
// the URNs of one entity type in URN order, with their total. An entity
// exists when its key aspect is stored, as in DataHub.
func (h *Handler) listURNs(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		Entity string `json:"entity"`
		Start  *int   `json:"start"`
		Count  *int   `json:"count"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	if p.Entity == "" {
		return nil, catalog.Errorf(catalog.Invalid, "parameter entity is required")
	}
	ent := h.reg.Entity(p.Entity)
	if ent == nil {
		return nil, catalog.Errorf(catalog.Invalid, "unknown entity type %q", p.Entity)
	}
	start, count := intOr(p.Start, 0), intOr(p.Count, defaultScrollCount)
	if start < 0 || count < 0 {
		return nil, catalog.Errorf(catalog.Invalid, "start (%d) and count (%d) must not be negative", start, count)
	}
	count = min(count, maxScrollCount)
	q := catalog.ScanQuery{URNLike: "urn:li:" + likeEscape(ent.Name) + ":%", Aspect: ent.KeyAspect}
	total, err := h.store.CountScan(ctx, q)
	if err != nil {
		return nil, err
	}
	res := listURNsResult{Entities: []string{}, Start: start, Total: total}
	if count > 0 && start < total {
		q.Offset, q.Limit, q.KeysOnly = start, count, true
		rows, err := h.store.ScanLatest(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, a := range rows {
			res.Entities = append(res.Entities, a.URN)
		}
	}
	res.Count = len(res.Entities)
	return res, nil
}

// entityExists serves POST /entities?action=exists: whether the entity's
// key aspect is stored; a soft-deleted entity exists unless
// includeSoftDelete is false.
func (h *Handler) entityExists(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		URN               string `json:"urn"`
		IncludeSoftDelete *bool  `json:"includeSoftDelete"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	if p.URN == "" {
		return nil, catalog.Errorf(catalog.Invalid, "parameter urn is required")
	}
	u, err := catalog.ParseURN(p.URN)
	if err != nil {
		return nil, err
	}
	ent, err := h.entitySpec(u)
	if err != nil {
		return nil, err
	}
	soft := p.IncludeSoftDelete == nil || *p.IncludeSoftDelete
	o := &openAPI{h: h}
	return o.exists(ctx, ent, u.String(), nil, soft)
}
