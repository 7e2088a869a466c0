package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
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

// private creates the directory of the SQLite file path readable by the
// owner only (0700), and the database file and its -wal and -shm companions
// readable and writable by the owner only (0600): they hold password hashes,
// tokens' metadata and everything else in the catalog. SQLite creates the
// companions with the mode of the database file, so creating that one 0600
// is enough for a new store; the modes of an existing one (from a version
// that left them 0644) are tightened. An existing directory is left as it
// is, since it may hold other files, but a warning names one that others
// can list.
func private(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return catalog.WithOp("create data directory", err)
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		slog.Warn("the data directory is open to other users; the database files in it are not, but their names are: chmod 700 it to hide them too",
			"dir", dir, "mode", fi.Mode().Perm().String())
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		// An empty file is an empty database to SQLite.
		if err := f.Close(); err != nil {
			return catalog.WithOp("create database file", err)
		}
	case !errors.Is(err, fs.ErrExist):
		return catalog.WithOp("create database file", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return catalog.WithOp("check the mode of the database files", err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, perm&^0o077); err != nil {
				return catalog.WithOp("make the database files private", err)
			}
		}
	}
	return nil
}
