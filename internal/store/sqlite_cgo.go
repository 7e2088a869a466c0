//go:build cgo && sqlite_fts5

package store

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/mattn/go-sqlite3"
)

// SQLiteEngine names the SQLite driver compiled in.
func SQLiteEngine() string {
	v, _, _ := sqlite3.Version()
	return "SQLite " + v + " (C library, cgo)"
}

var sqliteDriver driver.Driver = &sqlite3.SQLiteDriver{}

// openSQLiteConn opens a connection without the library's mutexes
// (database/sql never shares a connection between goroutines).
func openSQLiteConn(path string) (driver.Conn, error) {
	c, err := sqliteDriver.Open("file:" + path + "?_mutex=no&vfs=" + sqliteVFS)
	if err != nil {
		return nil, err
	}
	conn := c.(*sqlite3.SQLiteConn)
	if err := conn.RegisterFunc(lowerFunc, foldCase, true); err != nil {
		conn.Close()
		return nil, err
	}
	return &cgoConn{SQLiteConn: conn}, nil
}

// cgoConn begins write transactions IMMEDIATE (taking the write lock at
// BEGIN, so they never fail to upgrade a read lock) and read-only ones
// deferred, so that readers never wait for the writer; the driver itself
// has one BEGIN for both.
type cgoConn struct {
	*sqlite3.SQLiteConn
	scratch execScratch                    // for cgoStmt and directExec; a connection runs one statement at a time
	direct  map[string]*sqlite3.SQLiteStmt // directExec's statements
}

// Close finalizes directExec's statements, then closes the connection.
func (c *cgoConn) Close() error {
	for _, st := range c.direct {
		_ = st.Close()
	}
	c.direct = nil
	return c.SQLiteConn.Close()
}

func (c *cgoConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	begin := "BEGIN IMMEDIATE"
	if opts.ReadOnly {
		begin = "BEGIN"
	}
	if _, err := c.ExecContext(ctx, begin, nil); err != nil {
		return nil, err
	}
	return cgoTx{c}, nil
}

// The driver runs each statement, and each step of a query's rows, on a
// goroutine of its own when its context can be cancelled, so that it can
// interrupt the library when the context ends. A search reads hundreds of
// rows and a write transaction runs dozens of statements: the goroutines and
// their hand-offs cost more than the statements (search p50 5.1 against
// 8.7 ms at 100k datasets). Statements therefore run under a context that
// cannot be cancelled. A cancelled request still stops within a statement:
// database/sql checks the context before each statement and closes a
// query's rows when it ends, which stops them at the next row.

func (c *cgoConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.SQLiteConn.ExecContext(context.WithoutCancel(ctx), query, args)
}

func (c *cgoConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.SQLiteConn.QueryContext(context.WithoutCancel(ctx), query, args)
}

func (c *cgoConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.SQLiteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return cgoStmt{st.(*sqlite3.SQLiteStmt), &c.scratch}, nil
}

// cgoStmt runs a prepared statement under a context that cannot be
// cancelled (see cgoConn.ExecContext).
type cgoStmt struct {
	*sqlite3.SQLiteStmt
	scratch *execScratch
}

func (s cgoStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if res, ok, err := s.scratch.execDirect(s.SQLiteStmt, args); ok {
		return res, err
	}
	return s.SQLiteStmt.ExecContext(context.WithoutCancel(ctx), args)
}

func (s cgoStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.SQLiteStmt.QueryContext(context.WithoutCancel(ctx), args)
}

type cgoTx struct{ c *cgoConn }

func (t cgoTx) Commit() error {
	_, err := t.c.ExecContext(context.Background(), "COMMIT", nil)
	if err != nil && !t.c.AutoCommit() {
		// A failed COMMIT (SQLITE_BUSY, say) leaves the transaction
		// open; the connection goes back to the pool, so end it.
		_, _ = t.c.ExecContext(context.Background(), "ROLLBACK", nil)
	}
	return err
}

func (t cgoTx) Rollback() error {
	_, err := t.c.ExecContext(context.Background(), "ROLLBACK", nil)
	return err
}

// sqliteCode returns the extended result code of a SQLite error.
func sqliteCode(err error) (int, bool) {
	var e sqlite3.Error
	if errors.As(err, &e) {
		return int(e.ExtendedCode), true
	}
	return 0, false
}
