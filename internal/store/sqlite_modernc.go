//go:build !(cgo && sqlite_fts5)

package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// SQLiteEngine names the SQLite driver compiled in.
func SQLiteEngine() string { return "modernc.org/sqlite (SQLite translated to Go)" }

// sqliteDriver is a driver of catalogd's own, so that lowerFunc is not
// registered on the driver other packages get as "sqlite".
var sqliteDriver driver.Driver = func() *sqlite.Driver {
	d := &sqlite.Driver{}
	d.MustRegisterDeterministicScalarFunction(lowerFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		return foldCase(args[0]), nil
	})
	return d
}()

// openSQLiteConn opens a connection; the driver itself begins read-only
// transactions deferred and the others as _txlock says.
func openSQLiteConn(path string) (driver.Conn, error) {
	return sqliteDriver.Open("file:" + path + "?_txlock=immediate")
}

// sqliteCode returns the extended result code of a SQLite error.
func sqliteCode(err error) (int, bool) {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code(), true
	}
	return 0, false
}

// newDirectExec has nothing to offer the pure-Go driver, whose statements
// database/sql runs without crossing into C.
func newDirectExec(*sql.Conn) directExecer { return nil }
