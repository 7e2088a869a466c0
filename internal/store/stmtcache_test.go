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

// TestStmtCachePoolReadWaitsAlone checks that a read outside a transaction
// that waits for a connection to prepare its statement on does not hold up
// the transactions that hold the connections: they finish, and the read
// then gets its connection (GraphQL resolvers reading the pool beside
// snapshot reads once waited for each other forever).
func TestStmtCachePoolReadWaitsAlone(t *testing.T) {
	db := sql.OpenDB(sqliteConnector{path: filepath.Join(t.TempDir(), "cache.db")})
	t.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(1)
	cache := newStmtCache(db)
	t.Cleanup(cache.close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	// A pool read: its statement is prepared on the pool, which has no
	// free connection until the transaction ends.
	pooled := make(chan error, 1)
	go func() {
		var n int
		pooled <- (cachedQuerier{pool: db, cache: cache}).QueryRowContext(ctx, "SELECT 2").Scan(&n)
	}()
	time.Sleep(100 * time.Millisecond) // let the pool read wait for the connection
	var n int
	if err := (cachedQuerier{tx: tx, cache: cache}).QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the transaction's read behind a waiting pool read: %d, %v", n, err)
	}
	_ = tx.Rollback()
	if err := <-pooled; err != nil {
		t.Fatalf("the pool read, once the connection was free: %v", err)
	}
}

// TestStmtCacheCloseWithConnectionsHeld checks that closing the cache does
// not wait for the transactions that hold every connection of the pool:
// the statements it still has to prepare in the background are given up,
// rather than prepared once a connection is free.
func TestStmtCacheCloseWithConnectionsHeld(t *testing.T) {
	db := sql.OpenDB(sqliteConnector{path: filepath.Join(t.TempDir(), "cache.db")})
	t.Cleanup(func() { _ = db.Close() })
	db.SetMaxOpenConns(1)
	cache := newStmtCache(db)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	// Its statement is prepared in the background, which waits for the
	// connection the transaction holds.
	var n int
	if err := (cachedQuerier{tx: tx, cache: cache}).QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("SELECT 1 = %d, %v", n, err)
	}
	closed := make(chan struct{})
	go func() {
		cache.close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second): // generous: it takes microseconds, or forever
		t.Fatal("closing the cache waited for the transaction holding the pool's connection")
	}
}
