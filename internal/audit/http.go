package audit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// SearchPath is where the audit search is served.
const SearchPath = "/openapi/v1/events/audit/search"

// usageEvent is one UsageEventResult on the wire.
type usageEvent struct {
	EventType        string         `json:"eventType"`
	Timestamp        int64          `json:"timestamp"`
	ActorURN         string         `json:"actorUrn"`
	SourceIP         string         `json:"sourceIP,omitempty"`
	EventSource      string         `json:"eventSource,omitempty"`
	UserAgent        string         `json:"userAgent,omitempty"`
	TelemetryTraceID string         `json:"telemetryTraceId,omitempty"`
	EntityURN        string         `json:"entityUrn,omitempty"`
	EntityType       string         `json:"entityType,omitempty"`
	AspectName       string         `json:"aspectName,omitempty"`
	LoginSource      string         `json:"loginSource,omitempty"`
	RawUsageEvent    map[string]any `json:"rawUsageEvent,omitempty"`
}

type searchResponse struct {
	NextScrollID *string      `json:"nextScrollId"`
	Count        int          `json:"count"`
	Total        int          `json:"total"`
	UsageEvents  []usageEvent `json:"usageEvents"`
}

// SearchHandler serves POST SearchPath. writeError answers errors in the
// protocol's error format; authorization is the caller's business.
func (r *Recorder) SearchHandler(writeError func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		q, includeRaw, err := r.parseSearch(req)
		if err != nil {
			writeError(w, req, err)
			return
		}
		page, err := r.Search(req.Context(), q)
		if err != nil {
			writeError(w, req, err)
			return
		}
		resp := searchResponse{Count: len(page.Events), Total: page.Total, UsageEvents: make([]usageEvent, len(page.Events))}
		if page.Next != "" {
			resp.NextScrollID = &page.Next
		}
		for i := range page.Events {
			e := &page.Events[i]
			u := usageEvent{
				EventType: e.Type, Timestamp: e.Timestamp, ActorURN: e.Actor, SourceIP: e.SourceIP,
				EventSource: e.Source, UserAgent: e.UserAgent, TelemetryTraceID: e.TraceID,
				EntityURN: e.EntityURN, EntityType: e.EntityType, AspectName: e.Aspect, LoginSource: e.LoginSource,
			}
			if includeRaw {
				u.RawUsageEvent = e.raw()
			}
			resp.UsageEvents[i] = u
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(resp)
	}
}

// parseSearch reads the query parameters and the required JSON body.
func (r *Recorder) parseSearch(req *http.Request) (Query, bool, error) {
	vals := req.URL.Query()
	now := r.now().UnixMilli()
	// The default end is just past now, so that an event recorded in the
	// current millisecond (by the request just before) is included.
	q := Query{Start: now - 24*time.Hour.Milliseconds(), End: now + 1, Size: DefaultSize, ScrollID: vals.Get("scrollId")}
	intParam := func(name string, dst *int64) error {
		s := vals.Get(name)
		if s == "" {
			return nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return catalog.Errorf(catalog.Invalid, "query parameter %s: %q is not an integer", name, s)
		}
		if v != -1 { // DataHub's "not given"
			*dst = v
		}
		return nil
	}
	if err := intParam("startTime", &q.Start); err != nil {
		return q, false, err
	}
	if err := intParam("endTime", &q.End); err != nil {
		return q, false, err
	}
	if s := vals.Get("size"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			return q, false, catalog.Errorf(catalog.Invalid, "query parameter size: %q is not an integer", s)
		}
		q.Size = v
	}
	includeRaw := true
	if s := vals.Get("includeRaw"); s != "" {
		v, err := strconv.ParseBool(s)
		if err != nil {
			return q, false, catalog.Errorf(catalog.Invalid, "query parameter includeRaw: %q is not a boolean", s)
		}
		includeRaw = v
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return q, false, catalog.WithOp("read request body", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return q, false, catalog.Errorf(catalog.Invalid, "a JSON object body is required (it may be {})")
	}
	var f struct {
		EventTypes  []string `json:"eventTypes"`
		EntityTypes []string `json:"entityTypes"`
		AspectTypes []string `json:"aspectTypes"`
		ActorURNs   []string `json:"actorUrns"`
	}
	// Unknown members are ignored, as DataHub's Jackson binding does.
	if err := json.Unmarshal(body, &f); err != nil {
		return q, false, catalog.Errorf(catalog.Invalid, "malformed request body: %v", err)
	}
	q.EventTypes, q.EntityTypes, q.AspectTypes, q.ActorURNs = f.EventTypes, f.EntityTypes, f.AspectTypes, f.ActorURNs
	return q, includeRaw, nil
}
