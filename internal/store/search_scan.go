package store

import (
	"context"

	"github.com/catalogd/catalogd/internal/catalog"
)

// LatestTimeseries returns, for each of urns and each of aspects, the value
// with the newest timestamp (any partition), in one query: the search
// documents carry the searchable fields of the latest timeseries values.
func (r reader) LatestTimeseries(ctx context.Context, urns, aspects []string) ([]catalog.TimeseriesValue, error) {
	if len(urns) == 0 || len(aspects) == 0 {
		return nil, nil
	}
	q := r.db.q
	var out []catalog.TimeseriesValue
	err := r.snapshot(ctx, func(x querier) error {
		query := `SELECT t.urn, t.entity, t.aspect, t.timestamp_ms, t."partition", t.message_id, t.value
FROM timeseries_aspect t
JOIN (SELECT urn, aspect, MAX(timestamp_ms) AS ts FROM timeseries_aspect
      WHERE ` + q.inList("urn") + ` AND ` + q.inList("aspect") + ` GROUP BY urn, aspect) m
ON t.urn = m.urn AND t.aspect = m.aspect AND t.timestamp_ms = m.ts
ORDER BY t.urn, t.aspect, t."partition" DESC, t.message_id DESC`
		if q.pg {
			// Index probes per URN and aspect, as Tx.Current does (see there).
			query = `SELECT t.urn, t.entity, t.aspect, t.timestamp_ms, t."partition", t.message_id, t.value
FROM unnest($1::text[]) AS u(urn)
CROSS JOIN unnest($2::text[]) AS s(aspect)
CROSS JOIN LATERAL (SELECT * FROM timeseries_aspect AS x WHERE x.urn = u.urn AND x.aspect = s.aspect
	AND x.timestamp_ms = (SELECT MAX(y.timestamp_ms) FROM timeseries_aspect AS y WHERE y.urn = u.urn AND y.aspect = s.aspect) OFFSET 0) AS t
ORDER BY t.urn, t.aspect, t."partition" DESC, t.message_id DESC`
		}
		rows, err := x.QueryContext(ctx, query, q.listArg(urns), q.listArg(aspects))
		if err != nil {
			return err
		}
		defer rows.Close()
		var last catalog.TimeseriesValue
		for rows.Next() {
			var v catalog.TimeseriesValue
			var value string
			if err := rows.Scan(&v.URN, &v.Entity, &v.Aspect, &v.TimestampMillis, &v.Partition, &v.MessageID, &value); err != nil {
				return err
			}
			v.Value = []byte(value)
			if v.URN == last.URN && v.Aspect == last.Aspect {
				continue // several partitions share the newest timestamp: keep one
			}
			last = v
			out = append(out, v)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, r.db.fail(ctx, err, "read latest timeseries of %s", describeURNs(urns))
	}
	return out, nil
}

// ScanLatestAfter returns up to limit version-0 rows with a URN greater than
// afterURN, in (urn, aspect) order (limit <= 0: all): a full index restore
// pages by key so each page costs the same.
func (r reader) ScanLatestAfter(ctx context.Context, afterURN string, limit int) ([]catalog.Aspect, error) {
	lim := int64(limit)
	if lim <= 0 {
		lim = noLimit
	}
	const page = "SELECT " + aspectCols + " FROM metadata_aspect_v2 WHERE version = 0 AND urn > ? ORDER BY urn, aspect LIMIT ?"
	var out []catalog.Aspect
	var err error
	if r.db.q.pg {
		// A page must come from the primary key in its order. Without
		// statistics (a table just loaded, which is when a restore runs)
		// the planner guessed a few hundred rows after the cursor, read
		// every one of them through a bitmap and sorted them on disk to
		// keep the first page: each page cost as much as the rest of the
		// table, and a restore of 800,000 aspects ran at 2,000 a second.
		err = r.snapshot(ctx, func(x querier) error {
			if _, err := x.ExecContext(ctx, "SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off"); err != nil {
				return err
			}
			var qerr error
			out, qerr = reader{db: r.db, q: x, snapshot: r.snapshot}.queryAspects(ctx, page, afterURN, lim)
			if qerr != nil {
				return qerr
			}
			_, err := x.ExecContext(ctx, "SET LOCAL enable_sort = on; SET LOCAL enable_bitmapscan = on")
			return err
		})
	} else {
		out, err = r.queryAspects(ctx, page, afterURN, lim)
	}
	if err != nil {
		return nil, r.db.fail(ctx, err, "scan latest aspects after %s", afterURN)
	}
	return out, nil
}

// CountLatest returns the number of version-0 rows, for restore progress.
func (r reader) CountLatest(ctx context.Context) (int, error) {
	var n int
	if err := r.q.QueryRowContext(ctx, "SELECT COUNT(*) FROM metadata_aspect_v2 WHERE version = 0").Scan(&n); err != nil {
		return 0, r.db.fail(ctx, err, "count latest aspects")
	}
	return n, nil
}
