package restli

import (
	"context"
	"net/http"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/usage"
)

// ServeUsage registers DataHub's usageStats resource: POST
// /usageStats?action=batchIngest, query and queryRange.
func (h *Handler) ServeUsage() {
	h.HandleAction("usageStats", "batchIngest", h.usageBatchIngest)
	h.HandleAction("usageStats", "query", h.usageQuery)
	h.HandleAction("usageStats", "queryRange", h.usageQueryRange)
	h.mux.HandleFunc("POST /usageStats", func(w http.ResponseWriter, r *http.Request) { h.serveAction(w, r, "usageStats") })
}

// usageBatchIngest stores usage aggregations as datasetUsageStatistics
// values, all or none.
func (h *Handler) usageBatchIngest(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		Buckets []usage.Aggregation `json:"buckets"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	props, err := usage.Proposals(p.Buckets)
	if err != nil {
		return nil, err
	}
	if len(props) == 0 {
		return nil, nil
	}
	_, err = h.ingest.Ingest(ctx, h.actor(r), props)
	return nil, err
}

func (h *Handler) usageQuery(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		Resource   string `json:"resource"`
		Duration   string `json:"duration"`
		StartTime  *int64 `json:"startTime"`
		EndTime    *int64 `json:"endTime"`
		MaxBuckets *int   `json:"maxBuckets"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	q, err := usageQuery(p.Resource, p.Duration)
	if err != nil {
		return nil, err
	}
	if p.StartTime != nil {
		q.Start = *p.StartTime
	}
	if p.EndTime != nil {
		q.End = *p.EndTime
	}
	return usage.Run(ctx, h.store, q)
}

func (h *Handler) usageQueryRange(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p struct {
		Resource     string `json:"resource"`
		Duration     string `json:"duration"`
		RangeFromEnd string `json:"rangeFromEnd"`
	}
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	q, err := usageQuery(p.Resource, p.Duration)
	if err != nil {
		return nil, err
	}
	q, err = usage.RangeQuery(q.Resource, q.Duration, p.RangeFromEnd, time.Now())
	if err != nil {
		return nil, err
	}
	return usage.Run(ctx, h.store, q)
}

func usageQuery(resource, duration string) (usage.Query, error) {
	if resource == "" {
		return usage.Query{}, catalog.Errorf(catalog.Invalid, "parameter resource is required")
	}
	u, err := catalog.ParseURN(resource)
	if err != nil {
		return usage.Query{}, err
	}
	if err := usage.CheckDuration(duration); err != nil {
		return usage.Query{}, err
	}
	return usage.Query{Resource: u, Duration: duration}, nil
}
