package store

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/uptrace/bun"
)

// runIDOf returns the runId member of a system metadata object, "" when
// it has none (or it is not a string, or sysMD is not an object). It reads
// only the top level: a runId nested in properties is not the run's.
func runIDOf(sysMD []byte) string {
	if len(sysMD) == 0 {
		return ""
	}
	var id string
	fastjson.Members(sysMD, func(key string, v fastjson.Cursor) bool {
		if key != "runId" {
			return true
		}
		id, _ = v.String()
		return false
	})
	return id
}

// runIDBytes finds the top-level runId string of a system metadata object
// without decoding it: the bytes of the value (nil when there is none, or
// it is not a string). ok is false when the object needs a real decoder
// (escapes in the value or in a key), which runIDOf is. It allocates
// nothing: it runs for every aspect version written.
func runIDBytes(b []byte) (id []byte, ok bool) {
	depth, expectKey := 0, false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			depth++
			expectKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			end, escaped := i+1, false
			for end < len(b) && b[end] != '"' {
				if b[end] == '\\' {
					escaped = true
					end++
				}
				end++
			}
			if end >= len(b) {
				return nil, false
			}
			if expectKey && depth == 1 {
				expectKey = false
				if escaped {
					return nil, false
				}
				if string(b[i+1:end]) == "runId" {
					j := skipSpace(b, end+1)
					if j >= len(b) || b[j] != ':' {
						return nil, false
					}
					if j = skipSpace(b, j+1); j >= len(b) || b[j] != '"' {
						return nil, true
					}
					k := j + 1
					for k < len(b) && b[k] != '"' && b[k] != '\\' {
						k++
					}
					if k >= len(b) || b[k] == '\\' {
						return nil, false
					}
					return b[j+1 : k], true
				}
			}
			i = end
		}
	}
	return nil, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// runIDs hands PutAspects the run id column of its rows: the rows of a
// batch nearly always share their run, whose value is then boxed once.
type runIDs struct {
	last []byte
	val  any
}

func (c *runIDs) of(sysMD []byte) any {
	id, ok := runIDBytes(sysMD)
	if !ok {
		return runIDOf(sysMD)
	}
	if c.val == nil || !bytes.Equal(id, c.last) {
		c.last, c.val = id, string(id)
	}
	return c.val
}

// softDeleted is the condition that the entity of the row aliased a is
// soft-deleted: its latest status says removed. Status values are stored
// as canonical JSON (no spaces), which the pattern relies on.
const softDeleted = `EXISTS (SELECT 1 FROM metadata_aspect_v2 AS s WHERE s.urn = a.urn AND s.aspect = 'status' AND s.version = 0 AND s.metadata LIKE '%"removed":true%')`

// Runs implements catalog.Reader. The runs are read from the run index
// (the run_id column of the latest rows); a run's timestamp is the newest
// createdon of its rows.
func (r reader) Runs(ctx context.Context, q catalog.RunQuery) ([]catalog.RunSummary, error) {
	query := "SELECT a.run_id, COUNT(*), MAX(a.createdon) FROM metadata_aspect_v2 AS a WHERE a.version = 0 AND a.run_id <> '' GROUP BY a.run_id"
	if !q.IncludeSoftDeleted {
		// As DataHub lists them: a run is hidden when every row of it is
		// soft-deleted, and counted whole otherwise.
		query += " HAVING SUM(CASE WHEN " + softDeleted + " THEN 0 ELSE 1 END) > 0"
	}
	query += " ORDER BY MAX(a.createdon) DESC, a.run_id LIMIT ? OFFSET ?"
	limit := int64(q.Limit)
	if limit <= 0 {
		limit = noLimit
	}
	rows, err := r.q.QueryContext(ctx, r.db.q.rebind(query), limit, max(q.Offset, 0))
	if err != nil {
		return nil, r.db.fail(ctx, err, "list ingestion runs")
	}
	defer rows.Close()
	var out []catalog.RunSummary
	for rows.Next() {
		var s catalog.RunSummary
		if err := rows.Scan(&s.RunID, &s.Rows, &s.Timestamp); err != nil {
			return nil, r.db.fail(ctx, err, "list ingestion runs")
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, r.db.fail(ctx, err, "list ingestion runs")
	}
	return out, nil
}

// RunAspects implements catalog.Reader through the run index.
func (r reader) RunAspects(ctx context.Context, q catalog.RunAspectQuery) ([]catalog.Aspect, error) {
	query := "SELECT a.urn, a.aspect, a.version, a.metadata, a.systemmetadata, a.createdon, a.createdby FROM metadata_aspect_v2 AS a WHERE a.run_id = ? AND a.version = 0 AND a.run_id <> ''"
	if !q.IncludeSoftDeleted {
		query += " AND NOT " + softDeleted
	}
	query += " ORDER BY a.urn, a.aspect LIMIT ? OFFSET ?"
	limit := int64(q.Limit)
	if limit <= 0 {
		limit = noLimit
	}
	out, err := r.queryAspects(ctx, query, q.RunID, limit, max(q.Offset, 0))
	if err != nil {
		return nil, r.db.fail(ctx, err, "load aspects of run %s", q.RunID)
	}
	return out, nil
}

// RevertAspect implements catalog.Tx: one read of the aspect's versions
// and run ids (by primary key), then deletes by key and one update of the
// latest row.
func (tx *Tx) RevertAspect(ctx context.Context, urn, name, runID string, keepLast bool) (catalog.Revert, error) {
	var out catalog.Revert
	qs := tx.db.q
	rows, err := tx.q.QueryContext(ctx, qs.rebind("SELECT version, run_id FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ? ORDER BY version"), urn, name)
	if err != nil {
		return out, tx.db.fail(ctx, err, "read versions of aspect %s of %s", name, urn)
	}
	type version struct {
		n   int64
		run string
	}
	var versions []version
	for rows.Next() {
		var v version
		if err := rows.Scan(&v.n, &v.run); err != nil {
			rows.Close()
			return out, tx.db.fail(ctx, err, "read versions of aspect %s of %s", name, urn)
		}
		versions = append(versions, v)
	}
	if err := rows.Close(); err != nil {
		return out, tx.db.fail(ctx, err, "read versions of aspect %s of %s", name, urn)
	}
	if len(versions) == 0 || versions[0].n != 0 || versions[0].run != runID {
		return out, nil
	}
	out.Reverted = true
	if out.Previous, err = tx.AspectVersion(ctx, urn, name, 0); err != nil {
		return out, err
	}
	// History newest first: the run's versions go, up to the first
	// written by another run, which survives.
	var drop []any // flat (urn, aspect, version)
	survivor := -1
	for i := len(versions) - 1; i > 0; i-- {
		if versions[i].run != runID {
			survivor = i
			break
		}
		drop = append(drop, urn, name, versions[i].n)
	}
	if survivor < 0 {
		if keepLast {
			return out, nil
		}
		if _, err := tx.DeleteAspect(ctx, urn, name); err != nil {
			return out, err
		}
		out.Removed = true
		return out, nil
	}
	kept, err := tx.AspectVersion(ctx, urn, name, versions[survivor].n)
	if err != nil {
		return out, err
	}
	drop = append(drop, urn, name, versions[survivor].n)
	if err := deleteKeys(ctx, tx, "metadata_aspect_v2", []string{"urn", "aspect", "version"}, drop); err != nil {
		return out, tx.db.fail(ctx, err, "delete versions of aspect %s of %s", name, urn)
	}
	if _, err := tx.q.ExecContext(ctx, qs.rebind("UPDATE metadata_aspect_v2 SET metadata = ?, systemmetadata = ?, createdon = ?, createdby = ?, run_id = ? WHERE urn = ? AND aspect = ? AND version = 0"),
		text(kept.Value), text(kept.SystemMetadata), kept.Created.Time, kept.Created.Actor, runIDOf(kept.SystemMetadata), urn, name); err != nil {
		return out, tx.db.fail(ctx, err, "restore aspect %s of %s", name, urn)
	}
	kept.Version = 0
	out.Restored, out.Current = true, kept
	if survivor > 1 {
		out.MaxVersion = versions[survivor-1].n
	}
	return out, nil
}

// runIndexMigration adds the run index: the run id of every aspect version
// and timeseries value in a column of its own, filled from the stored system metadata, and an
// index of the latest rows by run. Only latest rows with a run id are
// indexed (history rows are found by key when a run is rolled back), so
// that writing a history row costs nothing more.
func runIndexMigration(ctx context.Context, tx bun.Tx, dialect string) error {
	fill := `UPDATE %s SET run_id = COALESCE(CASE WHEN json_valid(systemmetadata)
	AND json_type(systemmetadata, '$.runId') = 'text' THEN json_extract(systemmetadata, '$.runId') END, '')
WHERE systemmetadata IS NOT NULL`
	stmts := []string{
		"ALTER TABLE metadata_aspect_v2 ADD COLUMN run_id TEXT NOT NULL DEFAULT ''",
		"ALTER TABLE timeseries_aspect ADD COLUMN run_id TEXT NOT NULL DEFAULT ''",
	}
	if dialect == Postgres {
		// A system metadata text that is not JSON must not fail the
		// migration: the cast's error is caught row by row.
		stmts = append(stmts, `CREATE FUNCTION pg_temp.catalogd_run_id(s text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE j jsonb;
BEGIN
	j := s::jsonb;
	IF jsonb_typeof(j) = 'object' AND jsonb_typeof(j->'runId') = 'string' THEN
		RETURN j->>'runId';
	END IF;
	RETURN '';
EXCEPTION WHEN others THEN
	RETURN '';
END $$`)
		fill = "UPDATE %s SET run_id = pg_temp.catalogd_run_id(systemmetadata) WHERE systemmetadata IS NOT NULL"
	}
	stmts = append(stmts, fmt.Sprintf(fill, "metadata_aspect_v2"), fmt.Sprintf(fill, "timeseries_aspect"),
		// A rollback deletes the timeseries values of its run.
		"CREATE INDEX timeseries_aspect_run ON timeseries_aspect (run_id) WHERE run_id <> ''",
		// The predicate names run_id as well as version: an index of all
		// latest rows was one the planners could take for any read of
		// latest rows, and PostgreSQL, with statistics lagging a bulk
		// load, scanned it whole for each URN Current looked up (three
		// times slower writes). Queries of runs state both terms. The key
		// is the run id alone: the rows a run adds then go to the end of
		// its part of the index (SQLite orders equal keys by rowid,
		// PostgreSQL keeps them in one posting list), where (run_id, urn,
		// aspect) scattered them and dirtied a page for nearly every row.
		"CREATE INDEX metadata_aspect_v2_run ON metadata_aspect_v2 (run_id) WHERE version = 0 AND run_id <> ''")
	return execAll(stmts...)(ctx, tx, dialect)
}

// DeleteRunTimeseries implements catalog.Tx through the run index of
// timeseries values.
func (tx *Tx) DeleteRunTimeseries(ctx context.Context, runID string) ([]string, int, error) {
	if runID == "" {
		return nil, 0, nil
	}
	rows, err := tx.q.QueryContext(ctx, tx.db.q.rebind("DELETE FROM timeseries_aspect WHERE run_id = ? AND run_id <> '' RETURNING urn"), runID)
	if err != nil {
		return nil, 0, tx.db.fail(ctx, err, "delete timeseries values of run %s", runID)
	}
	defer rows.Close()
	n := 0
	var urns []string
	seen := map[string]bool{}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, 0, tx.db.fail(ctx, err, "delete timeseries values of run %s", runID)
		}
		n++
		if !seen[u] {
			seen[u] = true
			urns = append(urns, u)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, tx.db.fail(ctx, err, "delete timeseries values of run %s", runID)
	}
	sort.Strings(urns)
	return urns, n, nil
}
