package store

import (
	"context"
	"database/sql"
	"sort"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Current returns the latest row and the highest version of every aspect of
// urns, in one query (plus one lock statement on PostgreSQL).
//
// On PostgreSQL it first takes a transaction-scoped advisory lock per URN, in
// a global order so that writers cannot deadlock: the caller is about to
// derive new history versions from MaxVersion, and two transactions reading
// the same MaxVersion would otherwise both write the same history row (or, for
// a new entity, one would silently skip its history). On SQLite write
// transactions are already serialised.
func (tx *Tx) Current(ctx context.Context, urns []string) (map[string]map[string]catalog.Current, error) {
	if len(urns) == 0 {
		return map[string]map[string]catalog.Current{}, nil
	}
	if tx.db.q.pg {
		// OFFSET 0 fences the ordered subquery so the volatile lock calls run
		// in hash order.
		if _, err := tx.q.ExecContext(ctx, `SELECT pg_advisory_xact_lock(k) FROM
(SELECT DISTINCT hashtextextended(u, 0) AS k FROM unnest($1::text[]) AS u ORDER BY k OFFSET 0) AS locks`, urns); err != nil {
			return nil, tx.db.fail(ctx, err, "lock %s", describeURNs(urns))
		}
	}
	return tx.current(ctx, tx.q, urns)
}

// Current is Tx.Current outside a transaction, without locks: the state of
// urns as one query sees it, which a writer must check again in its
// transaction before relying on it.
func (db *DB) Current(ctx context.Context, urns []string) (map[string]map[string]catalog.Current, error) {
	if len(urns) == 0 {
		return map[string]map[string]catalog.Current{}, nil
	}
	return db.current(ctx, db.reader.q, urns)
}

// current reads Current's rows through q.
func (r reader) current(ctx context.Context, q querier, urns []string) (map[string]map[string]catalog.Current, error) {
	out := make(map[string]map[string]catalog.Current, len(urns))
	qs := r.db.q
	query := `SELECT a.urn, a.aspect, a.version, a.metadata, a.systemmetadata, a.createdon, a.createdby, m.maxversion
FROM metadata_aspect_v2 AS a
JOIN (SELECT urn, aspect, MAX(version) AS maxversion FROM metadata_aspect_v2 WHERE ` + qs.inList("urn") + ` GROUP BY urn, aspect) AS m
ON a.urn = m.urn AND a.aspect = m.aspect AND a.version = 0`
	if qs.pg {
		// One index probe per URN, whatever the statistics say: during a
		// bulk load they lag the table's growth, and the planner, taking
		// each URN for thousands of rows, hash-joined a scan of the whole
		// table (140 ms a batch of 33 existing entities instead of 1.7).
		query = `SELECT a.urn, a.aspect, a.version, a.metadata, a.systemmetadata, a.createdon, a.createdby,
	(SELECT MAX(m.version) FROM metadata_aspect_v2 AS m WHERE m.urn = a.urn AND m.aspect = a.aspect)
FROM unnest($1::text[]) AS u(urn)
CROSS JOIN LATERAL (SELECT * FROM metadata_aspect_v2 AS x WHERE x.urn = u.urn AND x.version = 0 OFFSET 0) AS a`
	}
	rows, err := q.QueryContext(ctx, query, qs.listArg(urns))
	if err != nil {
		return nil, r.db.fail(ctx, err, "load current aspects of %s", describeURNs(urns))
	}
	defer rows.Close()
	for rows.Next() {
		var c catalog.Current
		var value, sys []byte
		if err := rows.Scan(&c.URN, &c.Name, &c.Version, &value, &sys, &c.Created.Time, &c.Created.Actor, &c.MaxVersion); err != nil {
			return nil, r.db.fail(ctx, err, "load current aspects of %s", describeURNs(urns))
		}
		c.Value, c.SystemMetadata = value, sys
		m := out[c.URN]
		if m == nil {
			m = map[string]catalog.Current{}
			out[c.URN] = m
		}
		m[c.Name] = c
	}
	if err := rows.Err(); err != nil {
		return nil, r.db.fail(ctx, err, "load current aspects of %s", describeURNs(urns))
	}
	return out, nil
}

type aspectKey struct{ urn, name string }

// PutAspects writes the history rows of all writes, then upserts their latest
// rows, each with as few multi-row statements as the parameter limits allow.
// When one batch writes the same aspect twice the last write is the latest
// (its History/Previous are expected to chain from the earlier one).
func (tx *Tx) PutAspects(ctx context.Context, writes []catalog.AspectWrite) error {
	if len(writes) == 0 {
		return nil
	}
	qs := tx.db.q
	var history []any
	var runs runIDs
	nHistory := 0
	// Later writes of the same aspect replace earlier ones in the upsert: a
	// single INSERT ... ON CONFLICT may not touch a row twice on PostgreSQL.
	last := make(map[aspectKey]int, len(writes))
	for i, w := range writes {
		if w.URN == "" || w.Name == "" {
			return catalog.Errorf(catalog.Invalid, "aspect write %d has no URN or aspect name", i)
		}
		if w.Value == nil {
			return catalog.Errorf(catalog.Invalid, "aspect %s of %s has no value", w.Name, w.URN)
		}
		last[aspectKey{w.URN, w.Name}] = i
		if w.History > 0 {
			p := w.Previous
			history = append(history, w.URN, w.Name, w.History, text(p.Value), text(p.SystemMetadata), p.Created.Time, p.Created.Actor, runs.of(p.SystemMetadata))
			nHistory++
		}
	}
	if err := qs.insertRows(ctx, tx.q, insertHistory, history); err != nil {
		return tx.db.fail(ctx, err, "keep history of %d aspects", nHistory)
	}
	latest := make([]any, 0, len(last)*len(insertLatest.cols))
	for i, w := range writes {
		if last[aspectKey{w.URN, w.Name}] != i {
			continue
		}
		latest = append(latest, w.URN, w.Name, int64(0), text(w.Value), text(w.SystemMetadata), w.Created.Time, w.Created.Actor, runs.of(w.SystemMetadata))
	}
	if err := qs.insertRows(ctx, tx.q, insertLatest, latest); err != nil {
		return tx.db.fail(ctx, err, "write %d aspects", len(last))
	}
	return nil
}

// aspectColumns are the columns PutAspects writes; run_id is the run index
// (see Reader.Runs), the runId of the row's system metadata.
var aspectColumns = []string{"urn", "aspect", "version", "metadata", "systemmetadata", "createdon", "createdby", "run_id"}
var aspectTypes = []string{"text", "text", "bigint", "text", "text", "bigint", "text", "text"}

var (
	insertHistory = bulkInsert{table: "metadata_aspect_v2", cols: aspectColumns, types: aspectTypes}
	insertLatest  = bulkInsert{table: "metadata_aspect_v2", cols: aspectColumns, types: aspectTypes,
		suffix: " ON CONFLICT (urn, aspect, version) DO UPDATE SET metadata = excluded.metadata, " +
			"systemmetadata = excluded.systemmetadata, createdon = excluded.createdon, createdby = excluded.createdby, run_id = excluded.run_id"}
	insertTimeseries = bulkInsert{table: "timeseries_aspect",
		cols:  []string{"urn", "entity", "aspect", "timestamp_ms", `"partition"`, "message_id", "value", "systemmetadata", "run_id"},
		types: []string{"text", "text", "text", "bigint", "text", "text", "text", "text", "text"},
		suffix: ` ON CONFLICT (urn, aspect, timestamp_ms, "partition", message_id) DO UPDATE SET entity = excluded.entity, ` +
			"value = excluded.value, systemmetadata = excluded.systemmetadata, run_id = excluded.run_id"}
	insertEdges = bulkInsert{table: "edge",
		cols:  []string{"source_urn", "relationship", "destination_urn", "source_aspect", "created_on", "created_actor", "properties"},
		types: []string{"text", "text", "text", "text", "bigint", "text", "text"},
		// ReplaceEdges deletes an aspect's edges and writes each key once,
		// so there is nothing to conflict with.
		skipConflicts: true}
)

// DeleteAspect removes every version of one aspect and the edges derived from
// it, returning the number of aspect rows removed.
func (tx *Tx) DeleteAspect(ctx context.Context, urn, name string) (int, error) {
	qs := tx.db.q
	res, err := tx.q.ExecContext(ctx, qs.rebind("DELETE FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ?"), urn, name)
	if err != nil {
		return 0, tx.db.fail(ctx, err, "delete aspect %s of %s", name, urn)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, tx.db.fail(ctx, err, "delete aspect %s of %s", name, urn)
	}
	if _, err := tx.q.ExecContext(ctx, qs.rebind("DELETE FROM edge WHERE source_urn = ? AND source_aspect = ?"), urn, name); err != nil {
		return 0, tx.db.fail(ctx, err, "delete edges of aspect %s of %s", name, urn)
	}
	return int(n), nil
}

// DeleteEntity removes every aspect version, timeseries value and outgoing
// edge of urn. Incoming edges stay: they belong to other entities' aspects.
func (tx *Tx) DeleteEntity(ctx context.Context, urn string) (rows, timeseriesRows int, err error) {
	qs := tx.db.q
	count := func(query, what string) (int, error) {
		res, err := tx.q.ExecContext(ctx, qs.rebind(query), urn)
		if err != nil {
			return 0, tx.db.fail(ctx, err, "delete %s of %s", what, urn)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, tx.db.fail(ctx, err, "delete %s of %s", what, urn)
		}
		return int(n), nil
	}
	if rows, err = count("DELETE FROM metadata_aspect_v2 WHERE urn = ?", "aspects"); err != nil {
		return 0, 0, err
	}
	if timeseriesRows, err = count("DELETE FROM timeseries_aspect WHERE urn = ?", "timeseries"); err != nil {
		return 0, 0, err
	}
	if _, err = count("DELETE FROM edge WHERE source_urn = ?", "edges"); err != nil {
		return 0, 0, err
	}
	return rows, timeseriesRows, nil
}

// DeleteTimeseries removes the values of a timeseries aspect of urn stamped
// timestampMillis, whatever their partition and message id.
func (tx *Tx) DeleteTimeseries(ctx context.Context, urn, aspect string, timestampMillis int64) (int, error) {
	res, err := tx.q.ExecContext(ctx, tx.db.q.rebind("DELETE FROM timeseries_aspect WHERE urn = ? AND aspect = ? AND timestamp_ms = ?"), urn, aspect, timestampMillis)
	if err != nil {
		return 0, tx.db.fail(ctx, err, "delete %s of %s at %d", aspect, urn, timestampMillis)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, tx.db.fail(ctx, err, "delete %s of %s at %d", aspect, urn, timestampMillis)
	}
	return int(n), nil
}

type timeseriesKey struct {
	urn, aspect        string
	ts                 int64
	partition, message string
}

// PutTimeseries upserts values on (urn, aspect, timestamp, partition,
// messageId) with multi-row statements; of duplicates within values the last
// one wins.
func (tx *Tx) PutTimeseries(ctx context.Context, values []catalog.TimeseriesValue) error {
	if len(values) == 0 {
		return nil
	}
	last := make(map[timeseriesKey]int, len(values))
	for i, v := range values {
		if v.URN == "" || v.Aspect == "" {
			return catalog.Errorf(catalog.Invalid, "timeseries value %d has no URN or aspect name", i)
		}
		if v.Value == nil {
			return catalog.Errorf(catalog.Invalid, "timeseries %s of %s at %d has no value", v.Aspect, v.URN, v.TimestampMillis)
		}
		last[timeseriesKey{v.URN, v.Aspect, v.TimestampMillis, v.Partition, v.MessageID}] = i
	}
	const cols = 9
	args := make([]any, 0, len(last)*cols)
	var runs runIDs
	for i, v := range values {
		if last[timeseriesKey{v.URN, v.Aspect, v.TimestampMillis, v.Partition, v.MessageID}] != i {
			continue
		}
		args = append(args, v.URN, v.Entity, v.Aspect, v.TimestampMillis, v.Partition, v.MessageID, text(v.Value), text(v.SystemMetadata), runs.of(v.SystemMetadata))
	}
	if err := tx.db.q.insertRows(ctx, tx.q, insertTimeseries, args); err != nil {
		return tx.db.fail(ctx, err, "write %d timeseries values", len(last))
	}
	return nil
}

type edgeKey struct{ relationship, destination string }

// storedEdge is what the edge table holds of one edge besides its key.
type storedEdge struct {
	createdOn    int64
	createdActor string
	properties   sql.NullString
}

// ReplaceEdges replaces, for each set, the edges derived from one aspect of
// one URN, writing only the difference: edges the aspect no longer yields
// are deleted, new or changed ones inserted, and unchanged ones left alone.
// A full restore derives the edges the table already holds, and an update
// of an aspect mostly keeps its edges; rewriting them all dirtied two index
// pages an edge. The stored edges of the sets' URNs are read in one query
// (none for fresh sets), deletes go by primary key and the inserts in one
// bulk statement.
func (tx *Tx) ReplaceEdges(ctx context.Context, sets []catalog.EdgeSet) error {
	qs := tx.db.q
	var stale []string // URNs with a set that is not fresh
	seenURN := map[string]bool{}
	for _, set := range sets {
		if !set.Fresh && !seenURN[set.URN] {
			seenURN[set.URN] = true
			stale = append(stale, set.URN)
		}
	}
	old, err := tx.storedEdges(ctx, stale)
	if err != nil {
		return tx.db.fail(ctx, err, "read edges of %s", describeURNs(stale))
	}
	const cols = 7
	var ins []any
	var del []any // flat (source, relationship, destination, aspect)
	for _, set := range sets {
		urn, aspect, edges := set.URN, set.Aspect, set.Edges
		last := make(map[edgeKey]int, len(edges))
		for i, e := range edges {
			if (e.Source != "" && e.Source != urn) || (e.SourceAspect != "" && e.SourceAspect != aspect) {
				return catalog.Errorf(catalog.Invalid, "edge %d from %s (%s) does not belong to aspect %s of %s", i, e.Source, e.SourceAspect, aspect, urn)
			}
			if e.Relationship == "" || e.Destination == "" {
				return catalog.Errorf(catalog.Invalid, "edge %d of aspect %s of %s has no relationship or destination", i, aspect, urn)
			}
			last[edgeKey{e.Relationship, e.Destination}] = i
		}
		// Sorted so that concurrent writers on PostgreSQL touch index pages in
		// the same order and the stored order does not depend on input order.
		keep := make([]int, 0, len(last))
		for _, i := range last {
			keep = append(keep, i)
		}
		sort.Slice(keep, func(a, b int) bool {
			x, y := edges[keep[a]], edges[keep[b]]
			if x.Relationship != y.Relationship {
				return x.Relationship < y.Relationship
			}
			return x.Destination < y.Destination
		})
		stored := old[aspectKey{urn, aspect}]
		for _, i := range keep {
			e := edges[i]
			k := edgeKey{e.Relationship, e.Destination}
			if was, ok := stored[k]; ok {
				delete(stored, k)
				if was.createdOn == e.Created.Time && was.createdActor == e.Created.Actor &&
					was.properties.Valid == (e.Properties != nil) && was.properties.String == string(e.Properties) {
					continue
				}
				del = append(del, urn, k.relationship, k.destination, aspect)
			}
			ins = append(ins, urn, e.Relationship, e.Destination, aspect, e.Created.Time, e.Created.Actor, text(e.Properties))
		}
		for k := range stored {
			del = append(del, urn, k.relationship, k.destination, aspect)
		}
	}
	if err := deleteKeys(ctx, tx, "edge", []string{"source_urn", "relationship", "destination_urn", "source_aspect"}, del); err != nil {
		return tx.db.fail(ctx, err, "delete %d edges", len(del)/4)
	}
	if err := qs.insertRows(ctx, tx.q, insertEdges, ins); err != nil {
		return tx.db.fail(ctx, err, "write %d edges", len(ins)/cols)
	}
	return nil
}

// storedEdges reads the edges of urns, by source aspect and key.
func (tx *Tx) storedEdges(ctx context.Context, urns []string) (map[aspectKey]map[edgeKey]storedEdge, error) {
	out := map[aspectKey]map[edgeKey]storedEdge{}
	if len(urns) == 0 {
		return out, nil
	}
	qs := tx.db.q
	rows, err := tx.q.QueryContext(ctx, qs.rebind("SELECT source_urn, source_aspect, relationship, destination_urn, created_on, created_actor, properties FROM edge WHERE "+qs.inList("source_urn")), qs.listArg(urns))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var a aspectKey
		var k edgeKey
		var e storedEdge
		if err := rows.Scan(&a.urn, &a.name, &k.relationship, &k.destination, &e.createdOn, &e.createdActor, &e.properties); err != nil {
			return nil, err
		}
		m := out[a]
		if m == nil {
			m = map[edgeKey]storedEdge{}
			out[a] = m
		}
		m[k] = e
	}
	return out, rows.Err()
}
