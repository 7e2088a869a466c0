package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestStmtCacheInTransaction checks that a statement run in a transaction
// for the first time runs without a second connection of the pool: every
// connection may be held by such a transaction (concurrent searches on the
// search pool), and waiting for another to prepare on then waits forever.
func TestStmtCacheInTransaction(t *testing.T) {
	db := sql.OpenDB(sqliteConnector{path: filepath.Join(t.TempDir(), "cache.db")})
	t.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(1)
	cache := newStmtCache(db)
	t.Cleanup(cache.close)
	// Generous: the statement runs in microseconds, or never.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 3 {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := (cachedQuerier{tx: tx, cache: cache}).QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
			t.Fatalf("run %d: SELECT 1 = %d, %v", i, n, err)
		}
		_ = tx.Rollback()
	}
}
