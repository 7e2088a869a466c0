package restli

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
)

// DataHub's defaults for the runs resource.
const (
	defaultRunsPageSize = 100
	maxRunsPageSize     = 10000
)

// serveRuns registers DataHub's runs resource (BatchIngestionRunResource):
// the ingestion runs that wrote the latest aspects, what one wrote, and
// its rollback, as `datahub ingest list-runs`, `show` and `rollback` use
// them.
func (h *Handler) serveRuns() {
	h.HandleAction("runs", "list", h.listRuns)
	h.HandleAction("runs", "describe", h.describeRun)
	h.HandleAction("runs", "rollback", h.rollbackRun)
}

// runSummary is DataHub's IngestionRunSummary.
type runSummary struct {
	RunID     string `json:"runId"`
	Timestamp int64  `json:"timestamp"`
	Rows      int64  `json:"rows"`
}

// aspectRowSummary is DataHub's AspectRowSummary: one latest aspect of a
// run.
type aspectRowSummary struct {
	RunID      string `json:"runId"`
	AspectName string `json:"aspectName"`
	URN        string `json:"urn"`
	// Timestamp is the aspect's lastObserved, or when it was written.
	Timestamp int64           `json:"timestamp"`
	Metadata  string          `json:"metadata"`
	Version   int64           `json:"version"`
	KeyAspect bool            `json:"keyAspect"`
	Aspect    json.RawMessage `json:"aspect,omitempty"`
}

func (h *Handler) listRuns(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		PageOffset  *int  `json:"pageOffset"`
		PageSize    *int  `json:"pageSize"`
		IncludeSoft *bool `json:"includeSoft"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	offset, size := intOr(p.PageOffset, 0), intOr(p.PageSize, defaultRunsPageSize)
	if offset < 0 || size < 0 {
		return nil, catalog.Errorf(catalog.Invalid, "pageOffset (%d) and pageSize (%d) must not be negative", offset, size)
	}
	out := []runSummary{}
	if size == 0 {
		return out, nil
	}
	runs, err := h.store.Runs(ctx, catalog.RunQuery{Offset: offset, Limit: min(size, maxRunsPageSize), IncludeSoftDeleted: p.IncludeSoft != nil && *p.IncludeSoft})
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		out = append(out, runSummary{RunID: run.RunID, Timestamp: run.Timestamp, Rows: run.Rows})
	}
	return out, nil
}

func (h *Handler) describeRun(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		RunID         string `json:"runId"`
		Start         *int   `json:"start"`
		Count         *int   `json:"count"`
		IncludeSoft   *bool  `json:"includeSoft"`
		IncludeAspect *bool  `json:"includeAspect"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	if p.RunID == "" {
		return nil, catalog.Errorf(catalog.Invalid, "parameter runId is required")
	}
	if p.Start == nil || p.Count == nil {
		return nil, catalog.Errorf(catalog.Invalid, "parameters start and count are required")
	}
	if *p.Start < 0 || *p.Count < 0 {
		return nil, catalog.Errorf(catalog.Invalid, "start (%d) and count (%d) must not be negative", *p.Start, *p.Count)
	}
	out := []aspectRowSummary{}
	if *p.Count == 0 {
		return out, nil
	}
	rows, err := h.store.RunAspects(ctx, catalog.RunAspectQuery{RunID: p.RunID, IncludeSoftDeleted: p.IncludeSoft != nil && *p.IncludeSoft,
		Offset: *p.Start, Limit: min(*p.Count, maxRunsPageSize)})
	if err != nil {
		return nil, err
	}
	withAspect := p.IncludeAspect != nil && *p.IncludeAspect
	for _, a := range rows {
		out = append(out, h.rowSummary(p.RunID, a, h.isKeyAspect(a), withAspect))
	}
	return out, nil
}

func (h *Handler) rollbackRun(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		RunID      string `json:"runId"`
		DryRun     *bool  `json:"dryRun"`
		HardDelete *bool  `json:"hardDelete"`
		Safe       *bool  `json:"safe"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	// As DataHub: safe, when given, decides (hardDelete is deprecated),
	// and rollbacks are soft by default.
	hard := p.HardDelete != nil && *p.HardDelete
	if p.Safe != nil {
		hard = !*p.Safe
	}
	res, err := h.ingest.Rollback(ctx, h.actor(r), ingest.Rollback{RunID: p.RunID, DryRun: p.DryRun != nil && *p.DryRun, HardDelete: hard})
	if err != nil {
		return nil, err
	}
	rows := make([]aspectRowSummary, 0, len(res.Rows))
	for _, row := range res.Rows {
		rows = append(rows, h.rowSummary(p.RunID, row.Aspect, row.Key, false))
	}
	unsafe := make([]map[string]string, 0, len(res.UnsafeEntities))
	for _, u := range res.UnsafeEntities {
		unsafe = append(unsafe, map[string]string{"urn": u})
	}
	return map[string]any{
		"aspectRowSummaries":  rows,
		"entitiesAffected":    res.EntitiesAffected,
		"aspectsAffected":     res.AspectsAffected,
		"entitiesDeleted":     res.EntitiesDeleted,
		"aspectsReverted":     res.AspectsReverted,
		"unsafeEntitiesCount": len(res.UnsafeEntities),
		"unsafeEntities":      unsafe,
	}, nil
}

// rowSummary describes one latest aspect of run runID, with its value
// when withAspect.
func (h *Handler) rowSummary(runID string, a catalog.Aspect, key, withAspect bool) aspectRowSummary {
	s := aspectRowSummary{RunID: runID, AspectName: a.Name, URN: a.URN, Timestamp: a.Created.Time,
		Metadata: string(a.Value), Version: a.Version, KeyAspect: key}
	var sys struct {
		LastObserved int64 `json:"lastObserved"`
	}
	if json.Unmarshal(a.SystemMetadata, &sys) == nil && sys.LastObserved > 0 {
		s.Timestamp = sys.LastObserved
	}
	if withAspect {
		s.Aspect = a.Value
	}
	return s
}

// isKeyAspect reports whether a is its entity's key aspect.
func (h *Handler) isKeyAspect(a catalog.Aspect) bool {
	u, err := catalog.ParseURN(a.URN)
	if err != nil {
		return false
	}
	ent := h.reg.Entity(u.EntityType())
	return ent != nil && ent.KeyAspect == a.Name
}
