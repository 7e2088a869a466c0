package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
)

// Two SQLite drivers can be compiled in, with the same behaviour:
//
//   - SQLite's C library through cgo (github.com/mattn/go-sqlite3), when
//     cgo is enabled and the build has the sqlite_fts5 tag, as `make build`
//     and `make test` do: searches and write transactions run about 1.8
//     times faster than in the translation to Go.
//   - modernc.org/sqlite, SQLite translated to Go, otherwise: a plain
//     `go build` works without a C compiler.
//
// Each driver file provides sqliteDriver, openSQLiteConn (a connection
// whose write transactions begin IMMEDIATE and read-only ones deferred, with
// lowerFunc registered), sqliteCode and SQLiteEngine.

// lowerFunc is the SQLite function filters on "fields" JSON values use to
// ignore case: SQLite's lower() folds ASCII only, and the port folds case as
// Go's strings.ToLower does.
const lowerFunc = "catalogd_lower"

// foldCase is lowerFunc's implementation: text is lower-cased, anything
// else returned as it is.
func foldCase(v any) any {
	switch v := v.(type) {
	case string:
		return strings.ToLower(v)
	case []byte:
		return strings.ToLower(string(v))
	}
	return v
}

// textRank is the SQLite score expression of a full-text hit: the weights
// of the columns its words occur in, summed by catalogd_rank, an FTS5
// function each driver file registers on every connection.
func textRank(weights []string) string {
	return "catalogd_rank(search_fts, " + strings.Join(weights, ", ") + ")"
}

// SQLite primary and extended result codes (https://sqlite.org/rescode.html)
// that classify distinguishes; they are the same in both drivers.
const (
	sqliteReadOnly             = 8
	sqliteBusy                 = 5
	sqliteLocked               = 6
	sqliteIOErr                = 10
	sqliteFull                 = 13
	sqliteCantOpen             = 14
	sqliteConstraint           = 19
	sqliteConstraintPrimaryKey = 1555
	sqliteConstraintUnique     = 2067
)

// sqliteConnector opens connections to one SQLite file, each set up with
// pragmas, run in order (busy_timeout first, so that the others wait for a
// lock rather than fail; journal_mode before anything that would create the
// file).
type sqliteConnector struct {
	path    string
	pragmas []string
}

func (c sqliteConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := openSQLiteConn(c.path)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("SQLite driver %T cannot execute statements", conn)
	}
	for _, p := range c.pragmas {
		if _, err := ex.ExecContext(ctx, "PRAGMA "+p, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("PRAGMA %s: %w", p, err)
		}
	}
	return conn, nil
}

func (c sqliteConnector) Driver() driver.Driver { return sqliteDriver }
