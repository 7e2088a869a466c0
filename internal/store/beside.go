package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// besides is the pool of PostgreSQL connections that run part of a read
// beside the connection of its transaction, in that transaction's snapshot
// (beside). PostgreSQL runs a statement on one core: a search whose work
// splits in two (see textWindow) takes about half the time when the halves
// run at once on two connections.
//
// A read holding a connection of the main pool never waits for one of
// these: they are taken only when free (slots), and the pool holds as many
// connections as there are slots, so the part runs on the read's own
// connection instead, after its other part. Their number is the process's
// CPUs: more parts than cores at once would only take turns.
type besides struct {
	pool  *sql.DB
	slots chan struct{}
}

// newBesides opens the pool of n connections to dsn.
func newBesides(dsn string, n int) (*besides, error) {
	pool, err := openPostgresPool(dsn, n)
	if err != nil {
		return nil, err
	}
	return &besides{pool: pool, slots: make(chan struct{}, n)}, nil
}

// beside starts f on a connection of its own, in the snapshot of x, a
// PostgreSQL transaction of repeatable-read isolation that stays open
// until wait has returned, after running setup (statements of its own, such
// as SET LOCAL) in that connection's transaction. wait returns f's error or
// the error of setting the transaction up. beside returns nil, having run
// nothing, when no connection is free or when the store has none (SQLite):
// the caller then runs f's part itself. The caller must call wait before it
// ends x, on every path.
func (db *DB) beside(ctx context.Context, x querier, setup string, f func(querier) error) (wait func() error) {
	b := db.besides
	if b == nil {
		return nil
	}
	select {
	case b.slots <- struct{}{}:
	default:
		return nil
	}
	var snap string
	if err := x.QueryRowContext(ctx, "SELECT pg_export_snapshot()").Scan(&snap); err != nil {
		<-b.slots
		return func() error { return fmt.Errorf("export the snapshot: %w", err) }
	}
	done := make(chan error, 1)
	go func() {
		defer func() { <-b.slots }()
		done <- b.run(ctx, snap, setup, f)
	}()
	return func() error { return <-done }
}

// run runs f in a read-only transaction in the snapshot snap.
func (b *besides) run(ctx context.Context, snap, setup string, f func(querier) error) error {
	if strings.ContainsAny(snap, `'\`) {
		return fmt.Errorf("snapshot name %q", snap) // PostgreSQL's are hexadecimal digits and dashes
	}
	tx, err := b.pool.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin a transaction beside: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only; nothing to undo
	// One round trip: the snapshot must be set before any query of the
	// transaction, and setup is the caller's to run too.
	if _, err := tx.ExecContext(ctx, "SET TRANSACTION SNAPSHOT '"+snap+"'; "+setup); err != nil {
		return fmt.Errorf("take the snapshot: %w", err)
	}
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// close closes the pool.
func (b *besides) close() error { return b.pool.Close() }
