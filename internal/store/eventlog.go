package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"
)

// The event log: the changes of every committed write that events are made
// of, each with an offset that orders them as their transactions
// committed. A write appends one row holding its changes (AppendEvents, in
// its transaction); rows stay until they age out (PruneEvents), whoever
// read them.
//
// Offsets come from a counter row that a write increments as its last
// statement before committing. On PostgreSQL the row lock it takes is held
// until the commit is visible, so the next writer reads the counter only
// after that: offsets follow commit order, and a reader never sees an
// offset before a lower one that will still commit (a sequence would give
// out numbers in start order, and a slow transaction would commit a number
// below offsets already read). On SQLite write transactions are serialised
// anyway. A rolled-back write leaves neither its row nor its increment.

var eventLogMigrations = []Migration{{
	Version: 1,
	Name:    "event log",
	Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
		table := `CREATE TABLE IF NOT EXISTS event_log (
	end_offset BIGINT PRIMARY KEY,
	changes BIGINT NOT NULL,
	created_ms BIGINT NOT NULL,
	payload TEXT NOT NULL
)`
		if dialect != Postgres {
			// The integer key is SQLite's rowid: the table is its own index.
			table = `CREATE TABLE IF NOT EXISTS event_log (
	end_offset INTEGER PRIMARY KEY,
	changes BIGINT NOT NULL,
	created_ms BIGINT NOT NULL,
	payload TEXT NOT NULL
)`
		}
		return execAll(
			table,
			`CREATE TABLE IF NOT EXISTS event_log_head (id INTEGER PRIMARY KEY, end_offset BIGINT NOT NULL)`,
			`INSERT INTO event_log_head (id, end_offset) VALUES (1, 0) ON CONFLICT (id) DO NOTHING`,
		)(ctx, tx, dialect)
	},
}}

// OpenEventLog brings the event log's tables up to date.
func (db *DB) OpenEventLog(ctx context.Context) error {
	return db.Migrate(ctx, "event_log", eventLogMigrations)
}

// EventRow is one row of the event log: the changes of one write, which
// have the offsets End-Count to End-1, encoded by the writer as Payload.
type EventRow struct {
	End       int64
	Count     int
	CreatedMS int64
	Payload   []byte
}

// AppendEvents appends the count changes of payload to the log in tx and
// returns the offset past them. Call it last in the transaction: on
// PostgreSQL it holds every other writer of events back until the commit.
func (tx *Tx) AppendEvents(ctx context.Context, count int, createdMS int64, payload []byte) (int64, error) {
	var end int64
	if tx.db.q.pg {
		err := tx.q.QueryRowContext(ctx, `WITH h AS (UPDATE event_log_head SET end_offset = end_offset + $1 WHERE id = 1 RETURNING end_offset)
INSERT INTO event_log (end_offset, changes, created_ms, payload) SELECT end_offset, $1, $2, $3 FROM h RETURNING end_offset`,
			int64(count), createdMS, text(payload)).Scan(&end)
		if err != nil {
			return 0, tx.db.fail(ctx, err, "append %d changes to the event log", count)
		}
		return end, nil
	}
	if err := tx.q.QueryRowContext(ctx, "UPDATE event_log_head SET end_offset = end_offset + ? WHERE id = 1 RETURNING end_offset", int64(count)).Scan(&end); err != nil {
		return 0, tx.db.fail(ctx, err, "append %d changes to the event log", count)
	}
	if _, err := tx.q.ExecContext(ctx, "INSERT INTO event_log (end_offset, changes, created_ms, payload) VALUES (?, ?, ?, ?)",
		end, int64(count), createdMS, text(payload)); err != nil {
		return 0, tx.db.fail(ctx, err, "append %d changes to the event log", count)
	}
	return end, nil
}

// EventLogEnd returns the offset the next committed change will have.
func (db *DB) EventLogEnd(ctx context.Context) (int64, error) {
	var end int64
	if err := db.sql.QueryRowContext(ctx, "SELECT end_offset FROM event_log_head WHERE id = 1").Scan(&end); err != nil {
		return 0, db.fail(ctx, err, "read the end of the event log")
	}
	return end, nil
}

// ReadEvents returns up to limit rows holding changes at or after offset
// from, in offset order.
func (db *DB) ReadEvents(ctx context.Context, from int64, limit int) ([]EventRow, error) {
	rows, err := db.sql.QueryContext(ctx, db.q.rebind("SELECT end_offset, changes, created_ms, payload FROM event_log WHERE end_offset > ? ORDER BY end_offset LIMIT ?"), from, int64(limit))
	if err != nil {
		return nil, db.fail(ctx, err, "read the event log")
	}
	defer rows.Close()
	var out []EventRow
	for rows.Next() {
		var r EventRow
		var n int64
		if err := rows.Scan(&r.End, &n, &r.CreatedMS, &r.Payload); err != nil {
			return nil, db.fail(ctx, err, "read the event log")
		}
		r.Count = int(n)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, db.fail(ctx, err, "read the event log")
	}
	return out, nil
}

// EventOffsetSince returns the offset of the first change appended at or
// after ms (epoch ms), or the end of the log when there is none.
func (db *DB) EventOffsetSince(ctx context.Context, ms int64) (int64, error) {
	var start int64
	err := db.sql.QueryRowContext(ctx, db.q.rebind("SELECT end_offset - changes FROM event_log WHERE created_ms >= ? ORDER BY end_offset LIMIT 1"), ms).Scan(&start)
	if errors.Is(err, sql.ErrNoRows) {
		return db.EventLogEnd(ctx)
	}
	if err != nil {
		return 0, db.fail(ctx, err, "find events since %d", ms)
	}
	return start, nil
}

// PruneEvents removes the rows appended before ms (epoch ms), returning how
// many changes they held. The log stays a contiguous range of offsets (rows
// are removed up to the last one that old, whatever the clock did), and
// offsets are never reused.
func (db *DB) PruneEvents(ctx context.Context, before int64) (int64, error) {
	btx, release, err := db.beginWrite(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	defer btx.Rollback() //nolint:errcheck // a no-op after Commit
	var last sql.NullInt64
	if err := btx.Tx.QueryRowContext(ctx, db.q.rebind("SELECT MAX(end_offset) FROM event_log WHERE created_ms < ?"), before).Scan(&last); err != nil {
		return 0, db.fail(ctx, err, "prune the event log")
	}
	if !last.Valid {
		return 0, nil
	}
	var n sql.NullInt64
	if err := btx.Tx.QueryRowContext(ctx, db.q.rebind("SELECT SUM(changes) FROM event_log WHERE end_offset <= ?"), last.Int64).Scan(&n); err != nil {
		return 0, db.fail(ctx, err, "prune the event log")
	}
	if _, err := btx.Tx.ExecContext(ctx, db.q.rebind("DELETE FROM event_log WHERE end_offset <= ?"), last.Int64); err != nil {
		return 0, db.fail(ctx, err, "prune the event log")
	}
	if err := btx.Commit(); err != nil {
		return 0, db.fail(ctx, err, "prune the event log")
	}
	return n.Int64, nil
}
