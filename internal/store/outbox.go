package store

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// The search outbox: write transactions append the URNs whose documents an
// external engine must rebuild (AppendSearchOutbox); a drainer reads them
// after commit and acknowledges them once indexed. Entries are removed by
// sequence number, not below a high-water mark, because on PostgreSQL
// sequence numbers can commit out of order.

// outboxLockKey is the PostgreSQL advisory lock held by the one replica that
// drains the outbox ("outbox" in ASCII).
const outboxLockKey = 0x6f7574626f78

// sqliteOutboxLocks serialises drainers of one SQLite database within the
// process (only one process opens an embedded store).
var sqliteOutboxLocks sync.Map // *DB → *sync.Mutex

var outboxMigrations = []Migration{{
	Version: 1,
	Name:    "search outbox",
	Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
		if dialect == Postgres {
			return execAll(`CREATE TABLE IF NOT EXISTS search_outbox (seq BIGSERIAL PRIMARY KEY, urn TEXT NOT NULL)`)(ctx, tx, dialect)
		}
		return execAll(`CREATE TABLE IF NOT EXISTS search_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, urn TEXT NOT NULL)`)(ctx, tx, dialect)
	},
}, {
	Version: 2,
	Name:    "search outbox entry times",
	// created_ms (epoch ms) tells how far the index lags behind; entries
	// already waiting count from the migration.
	Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE search_outbox ADD COLUMN created_ms BIGINT NOT NULL DEFAULT 0`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE search_outbox SET created_ms = ?`, time.Now().UnixMilli())
		return err
	},
}}

// OpenOutbox brings the outbox table up to date. Call it before writes that
// append to the outbox.
func (db *DB) OpenOutbox(ctx context.Context) error {
	return db.Migrate(ctx, "search_outbox", outboxMigrations)
}

// AppendSearchOutbox records urns for the search drainer, in tx.
func (tx *Tx) AppendSearchOutbox(ctx context.Context, urns []string) error {
	now := time.Now().UnixMilli()
	flat := make([]any, 0, 2*len(urns))
	for _, u := range urns {
		flat = append(flat, u, now)
	}
	if err := tx.db.q.insertRows(ctx, tx.q, bulkInsert{table: "search_outbox", cols: []string{"urn", "created_ms"}, types: []string{"text", "bigint"}}, flat); err != nil {
		return tx.db.fail(ctx, err, "append %s to the search outbox", describeURNs(urns))
	}
	return nil
}

// ReadSearchOutbox returns up to limit entries, oldest first.
func (db *DB) ReadSearchOutbox(ctx context.Context, limit int) ([]int64, []string, error) {
	rows, err := db.sql.QueryContext(ctx, db.q.rebind("SELECT seq, urn FROM search_outbox ORDER BY seq LIMIT ?"), int64(limit))
	if err != nil {
		return nil, nil, db.fail(ctx, err, "read the search outbox")
	}
	defer rows.Close()
	var seqs []int64
	var urns []string
	for rows.Next() {
		var s int64
		var u string
		if err := rows.Scan(&s, &u); err != nil {
			return nil, nil, db.fail(ctx, err, "read the search outbox")
		}
		seqs, urns = append(seqs, s), append(urns, u)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, db.fail(ctx, err, "read the search outbox")
	}
	return seqs, urns, nil
}

// SearchOutboxLag returns the number of entries not yet acknowledged and
// when the oldest of them was appended (zero when there is none).
func (db *DB) SearchOutboxLag(ctx context.Context) (pending int64, oldest time.Time, err error) {
	var first sql.NullInt64
	if err := db.sql.QueryRowContext(ctx, "SELECT count(*), min(created_ms) FROM search_outbox").Scan(&pending, &first); err != nil {
		return 0, time.Time{}, db.fail(ctx, err, "read the search outbox")
	}
	if first.Valid {
		oldest = time.UnixMilli(first.Int64)
	}
	return pending, oldest, nil
}

// AckSearchOutbox removes indexed entries.
func (db *DB) AckSearchOutbox(ctx context.Context, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	var arg any = seqs
	cond := "seq = ANY(?)"
	if db.dialect != Postgres {
		cond = "seq IN (SELECT value FROM json_each(?))"
		arg = jsonInts(seqs)
	}
	btx, release, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer release()
	defer btx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := btx.Tx.ExecContext(ctx, db.q.rebind("DELETE FROM search_outbox WHERE "+cond), arg); err != nil {
		return db.fail(ctx, err, "acknowledge %d search outbox entries", len(seqs))
	}
	if err := btx.Commit(); err != nil {
		return db.fail(ctx, err, "acknowledge %d search outbox entries", len(seqs))
	}
	return nil
}

func jsonInts(v []int64) string {
	b := make([]byte, 0, 8*len(v)+2)
	b = append(b, '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendInt(b, n)
	}
	return string(append(b, ']'))
}

func appendInt(b []byte, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// TryLockSearchOutbox takes the drain lock: a session-level advisory lock on
// a dedicated PostgreSQL connection (so every replica competes for it), an
// in-process mutex on SQLite.
func (db *DB) TryLockSearchOutbox(ctx context.Context) (func(), bool, error) {
	if db.dialect != Postgres {
		m, _ := sqliteOutboxLocks.LoadOrStore(db, &sync.Mutex{})
		mu := m.(*sync.Mutex)
		if !mu.TryLock() {
			return nil, false, nil
		}
		return mu.Unlock, true, nil
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, false, db.fail(ctx, err, "lock the search outbox")
	}
	var ok bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", int64(outboxLockKey)).Scan(&ok); err != nil {
		conn.Close()
		return nil, false, db.fail(ctx, err, "lock the search outbox")
	}
	if !ok {
		conn.Close()
		return nil, false, nil
	}
	return func() {
		_, err := conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", int64(outboxLockKey))
		if err != nil {
			// A connection that may still hold the lock must not return to the pool.
			_ = conn.Raw(func(any) error { return sql.ErrConnDone })
		}
		conn.Close()
	}, true, nil
}
