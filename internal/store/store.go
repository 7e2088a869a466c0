// Package store implements catalog.Store over SQLite (embedded, the default)
// and PostgreSQL (scale-out), with one schema and one set of queries for both.
//
// Queries on the hot paths are hand-written SQL sent straight to database/sql
// (bun's query builder and placeholder formatting cost more than the database
// work on a batch of small rows); bun is used as the handle other packages
// build on, so that the search index and the audit log can keep their tables
// in the same database and write them in the same transaction as the aspects.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

// Dialect names returned by (*DB).Dialect.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// DB is a catalog.Store backed by SQLite or PostgreSQL. It is safe for
// concurrent use.
type DB struct {
	bun     *bun.DB
	sql     *sql.DB
	dialect string
	q       queries
	// writeSem serialises write transactions on SQLite, where only one writer
	// can hold the database lock at a time. Waiting here (rather than inside
	// SQLite's busy handler) is fair, honours the context, and means
	// SQLITE_BUSY only surfaces when another process holds the lock for longer
	// than the busy timeout. It is nil on PostgreSQL, which has row locks.
	writeSem chan struct{}
	// searchSQL is the SQLite pool searches read through (memory-mapped);
	// nil on PostgreSQL.
	searchSQL *sql.DB
	// besides runs parts of PostgreSQL searches on connections of their
	// own (beside); nil on SQLite.
	besides *besides
	// searchStmts keeps the statements of searches compiled: preparing
	// a full-text query (parsing, planning, opening the FTS5 table) cost
	// about 0.3 ms, several percent of a search. nil on PostgreSQL.
	searchStmts *stmtCache
	// readStmts keeps the statements of the other reads compiled: an
	// entitiesV2 read spent a tenth of its CPU compiling its one SELECT.
	// nil on PostgreSQL, whose driver keeps statements prepared itself.
	readStmts *stmtCache
	// busyTimeout is how long SQLite waits for a lock (SQLite only).
	busyTimeout time.Duration
	// writeConn is the connection every SQLite write transaction runs on,
	// held while writeSem is (nil until the first write, or after it
	// broke). One connection keeps its page cache from one transaction to
	// the next: SQLite drops a connection's cache when another connection
	// wrote since it last read, so writes spread over the pool started cold
	// and read back the index pages they were about to modify. Its cache is
	// larger than the readers' (writerCacheKB) so that a batch's dirty
	// pages stay in memory until commit instead of spilling to the WAL.
	writeConn *bun.Conn
	// stmts keeps the statements of SQLite write transactions compiled;
	// nil on PostgreSQL, where pgx caches prepared statements itself.
	stmts *stmtCache
	// stopCheckpoints ends the SQLite background checkpointer; nil on PostgreSQL.
	stopCheckpoints func()
	// path is the SQLite database file; empty on PostgreSQL.
	path string
	// observeTx is told of every transaction Update runs; nil for none.
	observeTx TxObserver
	reader
}

var _ catalog.Store = (*DB)(nil)

type options struct {
	busyTimeout     time.Duration
	maxConns        int
	checkpointEvery time.Duration
	restartFrames   int
	observeTx       TxObserver
}

// TxObserver is told of each write transaction Update ran: how long it
// waited to begin (on SQLite, for the writer slot), how long it then ran
// until its commit or rollback, and whether it committed. It is called
// after the transaction and must not block.
type TxObserver func(wait, run time.Duration, committed bool)

// WithTxObserver makes Update report every transaction to o.
func WithTxObserver(o TxObserver) Option {
	return func(opts *options) { opts.observeTx = o }
}

// Option configures Open.
type Option func(*options)

// WithBusyTimeout sets how long a SQLite statement waits for a lock held by
// another connection or process before failing as Unavailable (default 10s).
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) { o.busyTimeout = d }
}

// WithMaxConns sets the size of the connection pool (default: 4 per CPU,
// at least 8). On SQLite all but one of them are typically readers.
func WithMaxConns(n int) Option {
	return func(o *options) { o.maxConns = n }
}

// WithCheckpoints sets how often SQLite's WAL is copied into the database
// file (default checkpointEvery) and the WAL length in frames past which it
// is also rewound (default walRestartFrames).
func WithCheckpoints(every time.Duration, restartFrames int) Option {
	return func(o *options) { o.checkpointEvery, o.restartFrames = every, restartFrames }
}

// Open connects to the database named by dsn and brings its schema up to date.
// A dsn starting with postgres:// or postgresql:// selects PostgreSQL; one
// starting with sqlite: or any other string is a SQLite file path, whose
// parent directory is created when missing.
func Open(ctx context.Context, dsn string, opts ...Option) (*DB, error) {
	o := options{busyTimeout: 10 * time.Second, maxConns: max(8, 4*runtime.GOMAXPROCS(0)), checkpointEvery: checkpointEvery, restartFrames: walRestartFrames}
	for _, opt := range opts {
		opt(&o)
	}
	var db *DB
	var err error
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		db, err = openPostgres(dsn, o)
	} else {
		db, err = openSQLite(strings.TrimPrefix(dsn, "sqlite:"), o)
	}
	if err != nil {
		return nil, err
	}
	db.observeTx = o.observeTx
	// A store that fails to open is closed whole: closing its pool alone
	// left the SQLite checkpointer running, retrying on the closed pool
	// every second for as long as the process lived.
	if err := db.sql.PingContext(ctx); err != nil {
		err = db.fail(ctx, err, "connect to %s database", db.dialect)
		db.Close()
		return nil, err
	}
	if err := db.Migrate(ctx, "store", schemaMigrations); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openPostgresPool opens a pool of at most n connections to dsn, which
// closes connections idle for five minutes.
func openPostgresPool(dsn string, n int) (*sql.DB, error) {
	pool, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	pool.SetMaxOpenConns(n)
	pool.SetMaxIdleConns(n)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	return pool, nil
}

func openPostgres(dsn string, o options) (*DB, error) {
	sqldb, err := openPostgresPool(dsn, o.maxConns)
	if err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "invalid PostgreSQL DSN: %v", err)
	}
	b, err := newBesides(dsn, runtime.GOMAXPROCS(0))
	if err != nil {
		_ = sqldb.Close()
		return nil, catalog.Errorf(catalog.Invalid, "invalid PostgreSQL DSN: %v", err)
	}
	db := newDB(sqldb, bun.NewDB(sqldb, pgdialect.New()), Postgres)
	db.besides = b
	return db, nil
}

func openSQLite(path string, o options) (*DB, error) {
	path = strings.TrimPrefix(path, "file:")
	if path == "" {
		return nil, catalog.Errorf(catalog.Invalid, "empty SQLite path")
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		// Options in the DSN are ours to choose; the caller names a file.
		path = path[:i]
	}
	if err := private(path); err != nil {
		return nil, err
	}
	// Pages stay at SQLite's default 4 KB: ingest inserts into many indexes
	// at random keys, dirtying one leaf per row whatever its size, and each
	// dirty page is a WAL frame at commit; 8 and 16 KB pages measured 10-30%
	// slower.
	pragmas := []string{
		fmt.Sprintf("busy_timeout = %d", o.busyTimeout.Milliseconds()),
		"journal_mode = WAL", // readers never block the writer, nor it them
		"synchronous = NORMAL",
		"foreign_keys = ON",
		// A page cache larger than the 2 MB default keeps a batch's dirty
		// pages in memory until commit instead of spilling them to the WAL
		// mid-transaction. It is per connection, so it is kept modest: the
		// pool holds several.
		"cache_size = -4096",
		"temp_store = MEMORY",
		// Checkpoints run in the background (see checkpoint) instead of
		// inside whichever commit crosses the WAL size threshold, where they
		// cost about half of the commit time.
		"wal_autocheckpoint = 0",
		// LIKE is case-sensitive on PostgreSQL; make SQLite agree so that
		// ScanLatest's URN patterns mean the same on both (and can use the
		// index).
		"case_sensitive_like = ON",
	}
	sqldb := sql.OpenDB(sqliteConnector{path: path, pragmas: pragmas})
	// Searches read the database through memory maps: a query visits
	// thousands of index pages, and reading each with a system call (and a
	// copy into a connection's page cache) made them about twice as slow.
	// Their few connections have a pool of their own so that the other
	// readers, whose mappings would each count the same pages again in the
	// process's RSS, keep to their page caches. The limit is far above any
	// catalog's size (it is address space, not memory): the C library's
	// VFS maps at most 2 GB whatever it says, and catalogd's maps the
	// whole file (see wcFetch).
	searchdb := sql.OpenDB(sqliteConnector{path: path, pragmas: append(pragmas[:len(pragmas):len(pragmas)], "mmap_size = 1099511627776")})
	searchdb.SetMaxOpenConns(runtime.GOMAXPROCS(0))
	searchdb.SetMaxIdleConns(runtime.GOMAXPROCS(0))
	sqldb.SetMaxOpenConns(o.maxConns)
	sqldb.SetMaxIdleConns(o.maxConns)
	db := newDB(sqldb, bun.NewDB(sqldb, sqlitedialect.New()), SQLite)
	db.path = path
	db.searchSQL = searchdb
	db.searchStmts = newStmtCache(searchdb)
	db.writeSem = make(chan struct{}, 1)
	db.busyTimeout = o.busyTimeout
	db.stmts = newStmtCache(sqldb)
	db.readStmts = newStmtCache(sqldb)
	db.reader.q = cachedQuerier{pool: sqldb, cache: db.readStmts}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		db.checkpoint(ctx, o.checkpointEvery, o.restartFrames)
	}()
	db.stopCheckpoints = func() {
		cancel()
		<-done
	}
	return db, nil
}

// checkpointEvery is how often the SQLite WAL is copied back into the
// database file. A passive checkpoint never blocks writers or readers, but
// it copies each page changed since the last one, and the pages every
// transaction changes (upper levels of the indexes, the ends of the
// tables) were copied five times a second: at 1 s instead of 200 ms an
// ingest of 60k datasets waited half as long for the disk (4 s instead of
// 8) and ran 5-15% faster, with a WAL of at most about walRestartFrames
// plus a second of writes.
const checkpointEvery = time.Second

// walRestartFrames is the WAL length, in frames, past which the checkpointer
// also rewinds the WAL. Passive checkpoints alone never do under sustained
// writes: the writer appends while they copy, so the log is never fully
// copied and grows without bound (gigabytes in a long ingest, and every
// page read then searches a larger WAL index).
//
// A restart holds every writer back while it copies the frames of the last
// transaction and syncs them (the earlier ones were copied passively): a
// full restore, whose transactions each write about 2,800 frames, restarted
// after every one and waited 10 of its 42 s for the restarts at 2,048
// frames; at 16,384 it waited 2.7 s. With SQLite's C library the writer
// waits for little else, and an ingest of 40k-100k datasets through the API
// ran 5-22% faster (and used 2-8% less CPU an aspect) at 65,536 frames than
// at 16,384 in alternating runs: a WAL of at most about 256 MB plus a second
// of writes.
const walRestartFrames = 65536

// checkpoint copies the WAL into the database file periodically until ctx
// ends, then once more (truncating the WAL) so a clean shutdown leaves a
// compact database.
func (db *DB) checkpoint(ctx context.Context, every time.Duration, restartFrames int) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			_, _ = db.sql.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
			return
		case <-t.C:
			if frames, ok := db.passiveCheckpoint(ctx); ok && frames > restartFrames {
				db.restartWAL(ctx)
			}
		}
	}
}

// passiveCheckpoint copies what it can of the WAL without blocking anyone and
// reports the WAL's length in frames.
func (db *DB) passiveCheckpoint(ctx context.Context) (frames int, ok bool) {
	var busy, copied int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		if ctx.Err() == nil {
			slog.Warn("SQLite checkpoint failed", "err", err)
		}
		return 0, false
	}
	return frames, true
}

// restartPoll is how often restartWAL copies the WAL while it waits for
// the writer slot.
const restartPoll = 5 * time.Millisecond

// restartWAL copies the frames the passive checkpoint missed and rewinds the
// WAL, between two write transactions. It waits briefly for readers of old
// frames and gives up (until the next tick) rather than hold writers back.
//
// The writer slot is often queued for by several transactions, each adding
// to the WAL; what they add is copied passively while restartWAL waits, so
// that the restart itself, which holds every writer back, copies only the
// last few frames (copying them all under the slot cost a fifth of the
// ingest time).
func (db *DB) restartWAL(ctx context.Context) {
	granted := make(chan struct{})
	go func() {
		db.writeSem <- struct{}{}
		close(granted)
	}()
	poll := time.NewTimer(restartPoll)
	defer poll.Stop()
	for waiting := true; waiting; {
		select {
		case <-granted:
			waiting = false
		case <-poll.C:
			if ctx.Err() == nil {
				db.passiveCheckpoint(ctx)
			}
			poll.Reset(restartPoll)
		}
	}
	defer func() { <-db.writeSem }()
	if ctx.Err() != nil {
		return
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 100"); err != nil {
		return
	}
	defer func() {
		_, _ = conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA busy_timeout = %d", db.busyTimeout.Milliseconds()))
	}()
	var busy, frames, copied int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(RESTART)").Scan(&busy, &frames, &copied); err != nil && ctx.Err() == nil {
		slog.Warn("SQLite WAL restart failed", "err", err)
	}
}

func newDB(sqldb *sql.DB, b *bun.DB, dialect string) *DB {
	db := &DB{bun: b, sql: sqldb, dialect: dialect, q: newQueries(dialect == Postgres)}
	db.reader = reader{db: db, q: sqldb, snapshot: db.snapshot}
	return db
}

// Dialect reports the database in use: "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.dialect }

// Path returns the SQLite database file, or "" on PostgreSQL. Files kept
// beside it (in its directory) share its protection: the directory is
// created readable by the owner only.
func (db *DB) Path() string { return db.path }

// Bun returns the connection pool for packages that keep their own tables in
// the same database. Writes that must be atomic with aspect writes belong in
// Update, through (*Tx).Bun; on SQLite, writes made here outside Update wait
// for the busy timeout when a write transaction is running.
func (db *DB) Bun() *bun.DB { return db.bun }

// Close stops background work and closes the connection pool.
func (db *DB) Close() error {
	if db.stopCheckpoints != nil {
		db.stopCheckpoints()
	}
	if db.writeSem != nil {
		// Wait for a running write, then return its connection to the pool.
		db.writeSem <- struct{}{}
		if db.writeConn != nil {
			_ = db.writeConn.Close()
			db.writeConn = nil
		}
		db.stmts.close()
		<-db.writeSem
	}
	if db.readStmts != nil {
		db.readStmts.close()
	}
	if db.searchSQL != nil {
		db.searchStmts.close()
		_ = db.searchSQL.Close()
	}
	if db.besides != nil {
		_ = db.besides.close()
	}
	return db.bun.Close()
}

// Update runs fn in one read-write transaction, rolled back when fn returns an
// error or panics. On SQLite write transactions run one at a time.
func (db *DB) Update(ctx context.Context, fn func(tx catalog.Tx) error) error {
	asked := time.Now()
	btx, conn, release, err := db.beginWriteConn(ctx)
	if err != nil {
		return err
	}
	defer release()
	begun := time.Now()
	committed, ok := false, false // committed: Commit was called; ok: it succeeded
	defer func() {
		if !committed {
			_ = btx.Rollback()
		}
		if db.observeTx != nil {
			db.observeTx(begun.Sub(asked), time.Since(begun), ok)
		}
	}()
	var q querier = btx.Tx
	if db.stmts != nil {
		ct := cachedQuerier{tx: btx.Tx, cache: db.stmts}
		if db.writeConn != nil {
			ct.direct = newDirectExec(db.writeConn.Conn)
		}
		q = ct
	}
	tx := &Tx{btx: btx, conn: conn, reader: reader{db: db, q: q}}
	tx.reader.snapshot = func(ctx context.Context, f func(querier) error) error { return f(q) }
	if err := fn(tx); err != nil {
		return err
	}
	committed = true
	if err := btx.Commit(); err != nil {
		return db.fail(ctx, err, "commit")
	}
	ok = true
	for _, f := range tx.onCommit {
		f()
	}
	return nil
}

// writerCacheKB is the page cache of the SQLite write connection: room for
// the pages a large batch dirties (about 1,100 of 4 KB for 200 aspects of
// new datasets) and the upper levels of the indexes they go into. 16 MB was
// no faster and cost 8 MB more RSS.
const writerCacheKB = 8 << 10

// beginWrite starts a write transaction, first waiting for the writer slot on
// SQLite. release must be called after the transaction ends.
func (db *DB) beginWrite(ctx context.Context) (bun.Tx, func(), error) {
	btx, _, release, err := db.beginWriteConn(ctx)
	return btx, release, err
}

// beginWriteConn is beginWrite that also returns, on PostgreSQL, the
// connection the transaction runs on.
func (db *DB) beginWriteConn(ctx context.Context) (bun.Tx, *bun.Conn, func(), error) {
	if db.writeSem == nil {
		// On a connection of its own, which COPY needs (see Tx.copyRows).
		c, err := db.bun.Conn(ctx)
		if err != nil {
			return bun.Tx{}, nil, nil, db.fail(ctx, err, "begin transaction")
		}
		btx, err := c.BeginTx(ctx, nil)
		if err != nil {
			_ = c.Close()
			return bun.Tx{}, nil, nil, db.fail(ctx, err, "begin transaction")
		}
		return btx, &c, func() { _ = c.Close() }, nil
	}
	select {
	case db.writeSem <- struct{}{}:
	case <-ctx.Done():
		return bun.Tx{}, nil, nil, db.fail(ctx, ctx.Err(), "wait for write lock")
	}
	release := func() { <-db.writeSem }
	if err := ctx.Err(); err != nil {
		// It ended as the slot came free: both were ready.
		release()
		return bun.Tx{}, nil, nil, db.fail(ctx, err, "wait for write lock")
	}
	if db.writeConn == nil {
		c, err := db.bun.Conn(ctx)
		if err != nil {
			release()
			return bun.Tx{}, nil, nil, db.fail(ctx, err, "open write connection")
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size(-%d)", writerCacheKB)); err != nil {
			_ = c.Close()
			release()
			return bun.Tx{}, nil, nil, db.fail(ctx, err, "open write connection")
		}
		db.writeConn = &c
	}
	// Begun under a context that cannot be cancelled: database/sql ends a
	// transaction whose context ends on a goroutine of its own, and
	// discarded the write connection there (the C library's driver cannot
	// reset a session) from under the store, whose next write then failed
	// on it, and closed it after Close had returned. The statements still
	// stop when ctx ends, and Update then rolls back.
	btx, err := db.writeConn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		// The connection may be broken: the next write takes a new one.
		_ = db.writeConn.Close()
		db.writeConn = nil
		release()
		return bun.Tx{}, nil, nil, db.fail(ctx, err, "begin transaction")
	}
	return btx, nil, release, nil
}

// snapshot runs f in a read-only transaction so that reads made of several
// queries see one consistent state.
func (db *DB) snapshot(ctx context.Context, f func(querier) error) error {
	return db.snapshotOn(ctx, db.sql, db.readStmts, f)
}

// searchSnapshot is snapshot on the search connections (SQLite; the pool on
// PostgreSQL).
func (db *DB) searchSnapshot(ctx context.Context, f func(querier) error) error {
	if db.searchSQL != nil {
		return db.snapshotOn(ctx, db.searchSQL, db.searchStmts, f)
	}
	return db.snapshotOn(ctx, db.sql, db.readStmts, f)
}

// snapshotOn runs f in a read-only transaction on pool, through the
// statement cache when there is one.
func (db *DB) snapshotOn(ctx context.Context, pool *sql.DB, stmts *stmtCache, f func(querier) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	begin := ctx
	if db.dialect == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	} else {
		// Begun as a write transaction is (see beginWriteConn): a
		// snapshot whose context ended was otherwise rolled back (and,
		// with the C library's driver, its connection closed) on a
		// goroutine of database/sql's own, which could still be at it
		// after Close had returned.
		if err := ctx.Err(); err != nil {
			return db.fail(ctx, err, "begin read transaction")
		}
		begin = context.WithoutCancel(ctx)
	}
	tx, err := pool.BeginTx(begin, opts)
	if err != nil {
		return db.fail(ctx, err, "begin read transaction")
	}
	defer tx.Rollback() //nolint:errcheck // read-only; nothing to undo
	var q querier = tx
	if stmts != nil {
		q = cachedQuerier{tx: tx, cache: stmts}
	}
	if err := f(q); err != nil {
		return err
	}
	return tx.Commit()
}

// Tx is the catalog.Tx handed to Update's fn.
type Tx struct {
	btx bun.Tx
	// conn is the connection of a PostgreSQL transaction (nil on SQLite).
	conn *bun.Conn
	reader
	// onCommit runs after the transaction committed: what the engine
	// learnt inside it (new search facet values) becomes shared only then.
	onCommit []func()
	// facetIDs are the search facet values this transaction resolved.
	facetIDs map[string]uint32
}

var _ catalog.Tx = (*Tx)(nil)

// Bun returns the underlying transaction, so that other packages' tables
// (search documents, audit events) are written atomically with the aspects.
// It is valid only while fn runs.
func (tx *Tx) Bun() bun.Tx { return tx.btx }

// ExecContext runs a statement in the transaction, for packages that keep
// their tables in the store's database (the audit log). On SQLite the
// statement stays prepared for the next transactions, so callers should
// use a small set of statement texts.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.q.ExecContext(ctx, query, args...)
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
