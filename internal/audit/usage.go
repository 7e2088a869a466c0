package audit

import (
	"context"
	"fmt"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// The analytics events of DataHub's web app that recommendations read.
const (
	EntityViewEventType        = "EntityViewEvent"
	EntityActionEventType      = "EntityActionEvent"
	SearchResultsViewEventType = "SearchResultsViewEvent"
)

// UsageQuery selects usage events: of one actor (any when empty), of the
// event types given, each type optionally only from one API (Sources maps
// an event type to the event source it must come from).
type UsageQuery struct {
	Actor   string
	Types   []string
	Sources map[string]string
	Limit   int
}

// UsageEntry is one entity (or query) with when it was last used and how
// often.
type UsageEntry struct {
	Key   string // the entity URN, or the search query
	Last  int64  // epoch ms of the latest event
	Count int
}

func (r *Recorder) usageWhere(q UsageQuery) (string, []any) {
	var parts []string
	var args []any
	var types []string
	for _, t := range q.Types {
		if src := q.Sources[t]; src != "" {
			types = append(types, "(event_type = ? AND event_source = ?)")
			args = append(args, t, src)
		} else {
			types = append(types, "event_type = ?")
			args = append(args, t)
		}
	}
	if len(types) > 0 {
		parts = append(parts, "("+strings.Join(types, " OR ")+")")
	}
	if q.Actor != "" {
		parts = append(parts, "actor_urn = ?")
		args = append(args, q.Actor)
	}
	if len(parts) == 0 {
		parts = append(parts, "1 = 1")
	}
	return strings.Join(parts, " AND "), args
}

// RecentEntities lists the entities of the events q selects, the most
// recently used first.
func (r *Recorder) RecentEntities(ctx context.Context, q UsageQuery) ([]UsageEntry, error) {
	where, args := r.usageWhere(q)
	return r.usage(ctx, "entity_urn", where+" AND entity_urn <> ''", args, "last DESC, n DESC, k", q.Limit)
}

// PopularEntities lists the entities of the events q selects, the most
// used first.
func (r *Recorder) PopularEntities(ctx context.Context, q UsageQuery) ([]UsageEntry, error) {
	where, args := r.usageWhere(q)
	return r.usage(ctx, "entity_urn", where+" AND entity_urn <> ''", args, "n DESC, last DESC, k", q.Limit)
}

// RecentSearches lists the queries of the searches q selects that found
// something, the latest first.
func (r *Recorder) RecentSearches(ctx context.Context, q UsageQuery) ([]UsageEntry, error) {
	where, args := r.usageWhere(q)
	return r.usage(ctx, "search_query", where+" AND search_query <> ''", args, "last DESC, n DESC, k", q.Limit)
}

func (r *Recorder) usage(ctx context.Context, col, where string, args []any, order string, limit int) ([]UsageEntry, error) {
	if limit <= 0 || limit > MaxSize {
		return nil, catalog.Errorf(catalog.Invalid, "usage limit must be between 1 and %d", MaxSize)
	}
	query := fmt.Sprintf(`SELECT %s AS k, MAX(timestamp_ms) AS last, COUNT(*) AS n FROM audit_event WHERE %s
	GROUP BY %s ORDER BY %s LIMIT %d`, col, where, col, order, limit)
	rows, err := r.db.DB.QueryContext(ctx, r.rebind(query), args...)
	if err != nil {
		return nil, &catalog.Error{Kind: catalog.Internal, Op: "read usage events", Err: err}
	}
	defer rows.Close()
	var out []UsageEntry
	for rows.Next() {
		var e UsageEntry
		if err := rows.Scan(&e.Key, &e.Last, &e.Count); err != nil {
			return nil, &catalog.Error{Kind: catalog.Internal, Op: "read usage events", Err: err}
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, &catalog.Error{Kind: catalog.Internal, Op: "read usage events", Err: err}
	}
	return out, nil
}
