package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// reader implements catalog.Reader over a pool (DB) or a transaction (Tx).
type reader struct {
	db *DB
	q  querier
	// snapshot runs f with one consistent view: a read-only transaction on
	// the pool, the transaction itself inside Update.
	snapshot func(ctx context.Context, f func(querier) error) error
}

// noLimit stands for "all rows" where an OFFSET needs a LIMIT beside it.
const noLimit = 1<<63 - 1

const aspectCols = "urn, aspect, version, metadata, systemmetadata, createdon, createdby"

func scanAspect(rows interface{ Scan(...any) error }) (catalog.Aspect, error) {
	var a catalog.Aspect
	var value, sys []byte
	err := rows.Scan(&a.URN, &a.Name, &a.Version, &value, &sys, &a.Created.Time, &a.Created.Actor)
	a.Value, a.SystemMetadata = value, sys
	return a, err
}

// LatestAspects returns the version-0 rows of urns in one query, keyed by URN,
// each URN's aspects in name order.
func (r reader) LatestAspects(ctx context.Context, urns []string, names []string) (map[string][]catalog.Aspect, error) {
	out := make(map[string][]catalog.Aspect, len(urns))
	if len(urns) == 0 {
		return out, nil
	}
	qs := r.db.q
	var b strings.Builder
	args := make([]any, 0, 2)
	b.WriteString("SELECT " + aspectCols + " FROM metadata_aspect_v2 WHERE ")
	// A single URN (the common read) is an equality, which the planners
	// handle best and which keeps the statement trivially cacheable.
	if len(urns) == 1 {
		b.WriteString("urn = ?")
		args = append(args, urns[0])
	} else {
		b.WriteString(qs.inList("urn"))
		args = append(args, qs.listArg(urns))
	}
	b.WriteString(" AND version = 0")
	if len(names) == 1 {
		b.WriteString(" AND aspect = ?")
		args = append(args, names[0])
	} else if len(names) > 1 {
		b.WriteString(" AND " + qs.inList("aspect"))
		args = append(args, qs.listArg(names))
	}
	b.WriteString(" ORDER BY urn, aspect")
	list, err := r.queryAspects(ctx, b.String(), args...)
	if err != nil {
		return nil, r.db.fail(ctx, err, "load latest aspects of %s", describeURNs(urns))
	}
	for _, a := range list {
		out[a.URN] = append(out[a.URN], a)
	}
	return out, nil
}

// queryAspects runs a query selecting aspectCols and scans every row.
func (r reader) queryAspects(ctx context.Context, query string, args ...any) ([]catalog.Aspect, error) {
	rows, err := r.q.QueryContext(ctx, r.db.q.rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []catalog.Aspect
	for rows.Next() {
		a, err := scanAspect(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// describeURNs names a URN list in error messages without flooding them.
func describeURNs(urns []string) string {
	if len(urns) == 1 {
		return urns[0]
	}
	if len(urns) == 0 {
		return "no URNs"
	}
	return urns[0] + " and " + strconv.Itoa(len(urns)-1) + " more"
}

// AspectVersion returns one version of one aspect. Negative versions count
// back from the highest stored version (maxVersion + version + 1), as DataHub
// does; when no history exists -1 therefore names the latest row.
func (r reader) AspectVersion(ctx context.Context, urn, name string, version int64) (catalog.Aspect, error) {
	var row *sql.Row
	if version >= 0 {
		row = r.q.QueryRowContext(ctx, r.db.q.rebind("SELECT "+aspectCols+
			" FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ? AND version = ?"), urn, name, version)
	} else {
		// One round trip: the target version is computed in the query.
		row = r.q.QueryRowContext(ctx, r.db.q.rebind("SELECT "+aspectCols+
			" FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ? AND version = "+
			"(SELECT MAX(version) FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ?) + ?"),
			urn, name, urn, name, version+1)
	}
	a, err := scanAspect(row)
	if errors.Is(err, sql.ErrNoRows) {
		return catalog.Aspect{}, catalog.Errorf(catalog.NotFound, "aspect %s of %s: version %d not found", name, urn, version)
	}
	if err != nil {
		return catalog.Aspect{}, r.db.fail(ctx, err, "load aspect %s of %s version %d", name, urn, version)
	}
	return a, nil
}

// Timeseries returns values newest first (ties broken by partition and
// message id, descending, so the unique index is walked backwards).
func (r reader) Timeseries(ctx context.Context, q catalog.TimeseriesQuery) ([]catalog.TimeseriesValue, error) {
	var b strings.Builder
	args := []any{q.URN, q.Aspect}
	b.WriteString(`SELECT urn, entity, aspect, timestamp_ms, "partition", message_id, value, systemmetadata
FROM timeseries_aspect WHERE urn = ? AND aspect = ?`)
	if q.Start != 0 {
		b.WriteString(" AND timestamp_ms >= ?")
		args = append(args, q.Start)
	}
	if q.End != 0 {
		b.WriteString(" AND timestamp_ms <= ?")
		args = append(args, q.End)
	}
	if q.Partition != "" {
		b.WriteString(` AND "partition" = ?`)
		args = append(args, q.Partition)
	}
	b.WriteString(` ORDER BY timestamp_ms DESC, "partition" DESC, message_id DESC`)
	if q.Limit > 0 {
		b.WriteString(" LIMIT ?")
		args = append(args, q.Limit)
	}
	rows, err := r.q.QueryContext(ctx, r.db.q.rebind(b.String()), args...)
	if err != nil {
		return nil, r.db.fail(ctx, err, "load timeseries %s of %s", q.Aspect, q.URN)
	}
	defer rows.Close()
	var out []catalog.TimeseriesValue
	for rows.Next() {
		var v catalog.TimeseriesValue
		var value, sys []byte
		if err := rows.Scan(&v.URN, &v.Entity, &v.Aspect, &v.TimestampMillis, &v.Partition, &v.MessageID, &value, &sys); err != nil {
			return nil, r.db.fail(ctx, err, "load timeseries %s of %s", q.Aspect, q.URN)
		}
		v.Value, v.SystemMetadata = value, sys
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, r.db.fail(ctx, err, "load timeseries %s of %s", q.Aspect, q.URN)
	}
	return out, nil
}

// Edges returns one page of the edges touching q.URN and their total count.
// Incoming edges are ordered by (relationship, source, source aspect),
// outgoing ones by (relationship, destination, source aspect): the orders of
// the incoming index and of the table's own key. Without a URN, the edges of
// q.Relationships are ordered by (relationship, source, destination, source
// aspect). Count <= 0 means no limit.
func (r reader) Edges(ctx context.Context, q catalog.EdgeQuery) ([]catalog.Edge, int, error) {
	var where, order string
	var args []any
	switch {
	case q.URN == "":
		if len(q.Relationships) == 0 {
			return nil, 0, catalog.Errorf(catalog.Invalid, "edges of every entity need a relationship")
		}
		where, order = "1 = 1", "relationship, source_urn, destination_urn, source_aspect"
	case q.Direction == catalog.Incoming:
		where, order = "destination_urn = ?", "relationship, source_urn, source_aspect"
	case q.Direction == catalog.Outgoing:
		where, order = "source_urn = ?", "relationship, destination_urn, source_aspect"
	default:
		return nil, 0, catalog.Errorf(catalog.Invalid, "edge direction %q: want %s or %s", q.Direction, catalog.Incoming, catalog.Outgoing)
	}
	if q.URN != "" {
		args = append(args, q.URN)
	}
	if len(q.Relationships) == 1 {
		where += " AND relationship = ?"
		args = append(args, q.Relationships[0])
	} else if len(q.Relationships) > 1 {
		where += " AND " + r.db.q.inList("relationship")
		args = append(args, r.db.q.listArg(q.Relationships))
	}
	start := max(q.Start, 0)
	page := "SELECT source_urn, relationship, destination_urn, source_aspect, created_on, created_actor, properties FROM edge WHERE " +
		where + " ORDER BY " + order
	pageArgs := args
	if q.Count > 0 || start > 0 {
		limit := int64(q.Count)
		if limit <= 0 {
			limit = noLimit
		}
		page += " LIMIT ? OFFSET ?"
		pageArgs = append(append([]any(nil), args...), limit, start)
	}
	var edges []catalog.Edge
	total := 0
	err := r.snapshot(ctx, func(tx querier) error {
		rows, err := tx.QueryContext(ctx, r.db.q.rebind(page), pageArgs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e catalog.Edge
			var props []byte
			if err := rows.Scan(&e.Source, &e.Relationship, &e.Destination, &e.SourceAspect, &e.Created.Time, &e.Created.Actor, &props); err != nil {
				return err
			}
			e.Properties = props
			edges = append(edges, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		// The count query is skipped when the page itself shows the total.
		if start == 0 && (q.Count <= 0 || len(edges) < q.Count) {
			total = len(edges)
			return nil
		}
		return tx.QueryRowContext(ctx, r.db.q.rebind("SELECT COUNT(*) FROM edge WHERE "+where), args...).Scan(&total)
	})
	if err != nil {
		return nil, 0, r.db.fail(ctx, err, "load %s edges of %s", strings.ToLower(string(q.Direction)), q.URN)
	}
	return edges, total, nil
}

// ScanLatest returns version-0 rows in (urn, aspect) order (reversed when
// q.Descending). URNLike is a SQL LIKE pattern with '\' as escape character,
// case-sensitive on both databases. Limit <= 0 means no limit.
func (r reader) ScanLatest(ctx context.Context, q catalog.ScanQuery) ([]catalog.Aspect, error) {
	where, args := scanWhere(q, r.db.q.pg)
	cols := aspectCols
	if q.KeysOnly {
		cols = "urn, aspect"
	}
	query := "SELECT " + cols + " FROM metadata_aspect_v2 WHERE " + where + " ORDER BY urn, aspect"
	if q.Descending {
		query = "SELECT " + cols + " FROM metadata_aspect_v2 WHERE " + where + " ORDER BY urn DESC, aspect DESC"
	}
	if q.Limit > 0 || q.Offset > 0 {
		limit := int64(q.Limit)
		if limit <= 0 {
			limit = noLimit
		}
		query += " LIMIT ? OFFSET ?"
		args = append(args, limit, max(q.Offset, 0))
	}
	var out []catalog.Aspect
	var err error
	if q.KeysOnly {
		out, err = r.queryKeys(ctx, query, args...)
	} else {
		out, err = r.queryAspects(ctx, query, args...)
	}
	if err != nil {
		return nil, r.db.fail(ctx, err, "scan latest aspects")
	}
	return out, nil
}

// queryKeys runs a query selecting urn and aspect.
func (r reader) queryKeys(ctx context.Context, query string, args ...any) ([]catalog.Aspect, error) {
	rows, err := r.q.QueryContext(ctx, r.db.q.rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []catalog.Aspect
	for rows.Next() {
		var a catalog.Aspect
		if err := rows.Scan(&a.URN, &a.Name); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// CountScan returns the number of rows ScanLatest returns for q without
// its Offset and Limit.
func (r reader) CountScan(ctx context.Context, q catalog.ScanQuery) (int, error) {
	where, args := scanWhere(q, r.db.q.pg)
	var n int
	if err := r.q.QueryRowContext(ctx, r.db.q.rebind("SELECT COUNT(*) FROM metadata_aspect_v2 WHERE "+where), args...).Scan(&n); err != nil {
		return 0, r.db.fail(ctx, err, "count latest aspects")
	}
	return n, nil
}

// scanWhere is the condition selecting the rows of q.
func scanWhere(q catalog.ScanQuery, pg bool) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("version = 0")
	if q.URN != "" {
		b.WriteString(" AND urn = ?")
		args = append(args, q.URN)
	}
	keyset := q.After != "" && !pg
	if q.URNLike != "" {
		if keyset {
			// SQLite turns a LIKE prefix into a range of the index, which
			// it would prefer to the keyset's bound, and then walk every
			// row before the page. "+urn" keeps the LIKE out of the index;
			// the prefix's own bound is given as a plain comparison.
			b.WriteString(` AND +urn LIKE ? ESCAPE '\'`)
			args = append(args, q.URNLike)
			if prefix, ok := likePrefix(q.URNLike); ok {
				if q.Descending {
					b.WriteString(" AND urn >= ?")
					args = append(args, prefix)
				} else if end, ok := prefixEnd(prefix); ok {
					b.WriteString(" AND urn < ?")
					args = append(args, end)
				}
			}
		} else {
			b.WriteString(` AND urn LIKE ? ESCAPE '\'`)
			args = append(args, q.URNLike)
		}
	}
	if q.After != "" {
		if q.Descending {
			b.WriteString(" AND urn < ?")
		} else {
			b.WriteString(" AND urn > ?")
		}
		args = append(args, q.After)
	}
	if q.Aspect != "" {
		b.WriteString(" AND aspect = ?")
		args = append(args, q.Aspect)
	}
	return b.String(), args
}

// likePrefix returns the literal prefix of a LIKE pattern that is a prefix
// followed by one final '%' ('\' escaping), and false for other patterns.
func likePrefix(pattern string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\' && i+1 < len(pattern):
			i++
			b.WriteByte(pattern[i])
		case c == '%':
			return b.String(), i == len(pattern)-1
		case c == '_':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// prefixEnd is the least string above every string that starts with
// prefix, in byte order (SQLite's BINARY collation).
func prefixEnd(prefix string) (string, bool) {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}
