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
	c, err := sqliteDriver.Open("file:" + path + "?_mutex=no")
	if err != nil {
		return nil, err
	}
	conn := c.(*sqlite3.SQLiteConn)
	if err := conn.RegisterFunc(lowerFunc, foldCase, true); err != nil {
		conn.Close()
		return nil, err
	}
	return &cgoConn{conn}, nil
}

// cgoConn begins write transactions IMMEDIATE (taking the write lock at
// BEGIN, so they never fail to upgrade a read lock) and read-only ones
// deferred, so that readers never wait for the writer; the driver itself
// has one BEGIN for both.
type cgoConn struct {
	*sqlite3.SQLiteConn
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
