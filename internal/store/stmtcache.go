package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStmts bounds the statement cache; statements beyond it run
// unprepared. The write path uses a few dozen texts (multi-row INSERTs come
// in power-of-two row counts, see chunkRows).
const maxCachedStmts = 256

// stmtCache keeps the statements of SQLite transactions and reads prepared.
// The driver otherwise compiles every statement at each call, and the
// multi-row INSERTs of an ingest batch (thousands of parameters) cost
// about a tenth of the write transaction to compile. Statements are
// prepared on the pool and bound to each transaction with Tx.StmtContext,
// which reuses the compiled statement of the transaction's connection:
// SQLite writes always run on the same connection (DB.writeConn).
type stmtCache struct {
	db      *sql.DB
	mu      sync.Mutex
	m       map[string]*sql.Stmt
	pending map[string]bool // being prepared in the background
	closed  bool
	// preparing counts the background prepares, which close waits for:
	// one still running when the pool closed kept its connection open,
	// or opened one, after DB.Close had returned, and that connection
	// recreated the database's files while the caller was removing them.
	preparing sync.WaitGroup
	// stop cancels the background prepares' wait for a connection, so
	// that close does not wait for transactions holding them all.
	ctx  context.Context
	stop context.CancelFunc
}

func newStmtCache(db *sql.DB) *stmtCache {
	ctx, stop := context.WithCancel(context.Background())
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}, pending: map[string]bool{}, ctx: ctx, stop: stop}
}

// get returns the prepared statement of query, preparing it on the pool
// when needed; nil when the cache is full or closed. Preparing takes a
// connection of the pool, so callers holding one (in a transaction) use
// cached instead.
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	if st := c.m[query]; st != nil || c.closed || len(c.m) >= maxCachedStmts {
		c.mu.Unlock()
		return st, nil
	}
	c.mu.Unlock()
	// Prepared without the lock: preparing waits for a free connection, and
	// the transactions holding the connections take the lock in cached; a
	// lock held here had them wait for each other forever once every
	// connection was in a transaction (concurrent GraphQL resolvers did).
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[query]; old != nil || c.closed || len(c.m) >= maxCachedStmts {
		_ = st.Close()
		return old, nil
	}
	c.m[query] = st
	return st, nil
}

// cached returns the prepared statement of query when the cache holds it,
// nil otherwise, and then has it prepared in the background for the next
// calls. It is for callers in a transaction: they hold a connection of the
// pool, and waiting for another one to prepare on would wait forever once
// every connection is held that way (concurrent searches did).
func (c *stmtCache) cached(query string) *sql.Stmt {
	c.mu.Lock()
	st := c.m[query]
	start := st == nil && !c.closed && !c.pending[query] && len(c.m)+len(c.pending) < maxCachedStmts
	if start {
		c.pending[query] = true
		c.preparing.Add(1)
	}
	c.mu.Unlock()
	if start {
		go c.prepare(query)
	}
	return st
}

// prepare prepares query on the pool and caches it.
func (c *stmtCache) prepare(query string) {
	defer c.preparing.Done()
	st, err := c.db.PrepareContext(c.ctx, query)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, query)
	if err != nil {
		return
	}
	if c.closed || c.m[query] != nil {
		_ = st.Close()
		return
	}
	c.m[query] = st
}

// close releases every statement and waits for the background prepares
// to give their connections back; later gets return nil.
func (c *stmtCache) close() {
	c.mu.Lock()
	for _, st := range c.m {
		_ = st.Close()
	}
	c.m, c.closed = nil, true
	c.mu.Unlock()
	// Unlocked: a prepare finishing takes the lock. None starts once
	// closed is set.
	c.stop()
	c.preparing.Wait()
}

// cachedQuerier runs each statement through the cache: in a SQLite
// transaction (tx set), or on the pool for reads outside one. Statements
// without results in a write transaction go through direct when it can.
type cachedQuerier struct {
	pool   *sql.DB // used when tx is nil
	tx     *sql.Tx
	cache  *stmtCache
	direct directExecer // nil: always through database/sql
}

// directExecer runs a statement of a write transaction outside
// database/sql, on the transaction's connection, and returns its result or
// error; ok is false when it did not run it (an argument type it leaves to
// database/sql's conversion, say).
type directExecer interface {
	exec(ctx context.Context, query string, args []any) (res sql.Result, ok bool, err error)
}

// uncached is where statements the cache does not hold run.
func (x cachedQuerier) uncached() querier {
	if x.tx != nil {
		return x.tx
	}
	return x.pool
}

func (x cachedQuerier) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if x.tx == nil {
		return x.cache.get(ctx, query)
	}
	st := x.cache.cached(query)
	if st == nil {
		return nil, nil
	}
	return x.tx.StmtContext(ctx, st), nil
}

func (x cachedQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if x.direct != nil {
		if res, ok, err := x.direct.exec(ctx, query, args); ok {
			return res, err
		}
	}
	st, err := x.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return x.uncached().ExecContext(ctx, query, args...)
	}
	return st.ExecContext(ctx, args...)
}

func (x cachedQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := x.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return x.uncached().QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

func (x cachedQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := x.stmt(ctx, query)
	if err != nil || st == nil {
		// An error here recurs when the query runs, and the Row reports it.
		return x.uncached().QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// chunkRows returns how many of n remaining rows the next multi-row
// statement takes, at most per: the largest power of two that fits, so
// that statement texts (and prepared statements) come in a few sizes.
func chunkRows(n, per int) int {
	m := 1
	for m*2 <= n && m*2 <= per {
		m *= 2
	}
	return m
}
