package audit

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// TrackPath is where DataHub's web app posts its analytics events.
const TrackPath = "/track"

// trackType is the shape of an analytics event's type (PageViewEvent,
// SearchEvent, EntityViewEvent, ...).
var trackType = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// maxTrackBody bounds one analytics event.
const maxTrackBody = 64 << 10

// maxTrackQuery bounds the search query an analytics event may record.
const maxTrackQuery = 1024

// TrackHandler serves POST TrackPath: an analytics event of the web app
// ({"type": ..., "entityUrn": ..., ...}) is recorded as a usage event of
// its type by actor, searchable with the audit events, or, when enabled is
// false, accepted and dropped. The types of the events the server records
// itself (logins, changes) are refused, so that a browser cannot forge
// them.
func (r *Recorder) TrackHandler(enabled bool, actor func(*http.Request) string, writeError func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(io.LimitReader(req.Body, maxTrackBody+1))
		if err != nil {
			writeError(w, req, catalog.WithOp("read request body", err))
			return
		}
		if len(body) > maxTrackBody {
			writeError(w, req, catalog.Errorf(catalog.Invalid, "analytics event larger than %d bytes", maxTrackBody))
			return
		}
		var ev struct {
			Type       string   `json:"type"`
			EntityURN  string   `json:"entityUrn"`
			EntityType string   `json:"entityType"`
			Query      string   `json:"query"`
			Total      *float64 `json:"total"`
		}
		if err := json.Unmarshal(body, &ev); err != nil {
			writeError(w, req, catalog.Errorf(catalog.Invalid, `malformed analytics event: expected a JSON object with a "type"`))
			return
		}
		if !trackType.MatchString(ev.Type) || slices.Contains(EventTypes, ev.Type) {
			writeError(w, req, catalog.Errorf(catalog.Invalid, "analytics event type %q is not accepted", ev.Type))
			return
		}
		if !enabled {
			w.WriteHeader(http.StatusOK)
			return
		}
		e := Event{Type: ev.Type, Actor: actor(req)}
		if u, err := catalog.ParseURN(ev.EntityURN); err == nil {
			e.EntityURN, e.EntityType = u.String(), u.EntityType()
		} else if ev.EntityType != "" && len(ev.EntityType) <= 64 {
			e.EntityType = strings.ToLower(ev.EntityType)
		}
		// A search's query is kept when it found something, for the
		// user's recent searches, as DataHub's recommendation reads them.
		if q := strings.TrimSpace(ev.Query); q != "" && len(q) <= maxTrackQuery && (ev.Total == nil || *ev.Total > 0) {
			e.Query = q
		}
		if err := r.Record(req.Context(), e); err != nil {
			writeError(w, req, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}
