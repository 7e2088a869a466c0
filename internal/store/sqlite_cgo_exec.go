//go:build cgo && sqlite_fts5

package store

/*
#include <string.h>

// The SQLite declarations a statement's execution needs, as sqlite3.h
// documents them; the definitions are in the library that
// github.com/mattn/go-sqlite3 compiles into the same binary.
typedef long long sqlite3_int64;
typedef unsigned long long sqlite3_uint64;
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
int sqlite3_bind_null(sqlite3_stmt*, int);
int sqlite3_bind_int64(sqlite3_stmt*, int, sqlite3_int64);
int sqlite3_bind_double(sqlite3_stmt*, int, double);
int sqlite3_bind_text64(sqlite3_stmt*, int, const char*, sqlite3_uint64, void(*)(void*), unsigned char);
int sqlite3_bind_blob64(sqlite3_stmt*, int, const void*, sqlite3_uint64, void(*)(void*));
int sqlite3_bind_parameter_count(sqlite3_stmt*);
int sqlite3_step(sqlite3_stmt*);
int sqlite3_extended_errcode(sqlite3*);
const char *sqlite3_errmsg(sqlite3*);
int sqlite3_reset(sqlite3_stmt*);
int sqlite3_clear_bindings(sqlite3_stmt*);
sqlite3 *sqlite3_db_handle(sqlite3_stmt*);
sqlite3_int64 sqlite3_last_insert_rowid(sqlite3*);
sqlite3_int64 sqlite3_changes64(sqlite3*);

// catalogd_exec binds n parameters described by meta (three integers each:
// kind, value or offset into buf, length) and steps the statement once, as
// the driver's Exec does. Text and blobs are bound without a copy
// (SQLITE_STATIC): buf outlives the step, and the bindings are cleared
// before returning, so SQLite keeps no pointer into it. It returns -1 when
// a parameter could not be bound (nothing ran: the caller takes the
// driver's path, which words the error), or the step's result code; for a
// failed step, the extended code and SQLite's message (cut to msgcap - 1
// bytes) go to *ext and msg.
static int catalogd_exec(sqlite3_stmt *st, int n, const sqlite3_int64 *meta, const char *buf, sqlite3_int64 *rowid, sqlite3_int64 *changes, int *ext, char *msg, int msgcap) {
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (n != sqlite3_bind_parameter_count(st)) {
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const sqlite3_int64 *m = meta + 3*i;
		int rc;
		switch (m[0]) {
		case 0:
			rc = sqlite3_bind_null(st, i+1);
			break;
		case 1:
			rc = sqlite3_bind_int64(st, i+1, m[1]);
			break;
		case 2: {
			double d;
			memcpy(&d, &m[1], sizeof d);
			rc = sqlite3_bind_double(st, i+1, d);
			break;
		}
		case 3:
			rc = sqlite3_bind_text64(st, i+1, buf + m[1], (sqlite3_uint64)m[2], (void(*)(void*))0, 1);
			break;
		default:
			rc = sqlite3_bind_blob64(st, i+1, buf + m[1], (sqlite3_uint64)m[2], (void(*)(void*))0);
			break;
		}
		if (rc != 0) {
			sqlite3_clear_bindings(st);
			return -1;
		}
	}
	int rc = sqlite3_step(st);
	sqlite3 *db = sqlite3_db_handle(st);
	*rowid = sqlite3_last_insert_rowid(db);
	*changes = sqlite3_changes64(db);
	if (rc != 0 && rc != 100 && rc != 101) {
		*ext = sqlite3_extended_errcode(db);
		const char *m = sqlite3_errmsg(db);
		strncpy(msg, m ? m : "", msgcap - 1);
		msg[msgcap - 1] = 0;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}
*/
import "C"

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"math"
	"reflect"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// stmtHandleOffset is where a sqlite3.SQLiteStmt keeps its C statement, or
// 0 when the driver's struct no longer has the field this expects (the
// statements then bind through the driver).
var stmtHandleOffset = func() uintptr {
	f, ok := reflect.TypeFor[sqlite3.SQLiteStmt]().FieldByName("s")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Name() != "_Ctype_struct_sqlite3_stmt" {
		return 0
	}
	return f.Offset
}()

// execScratch holds the packed parameters of a connection's statements
// between executions.
type execScratch struct {
	meta []C.sqlite3_int64
	buf  []byte
	msg  []C.char // SQLite's message when a statement fails
}

// execDirect runs a prepared statement with all its parameters bound in one
// call into the library instead of one call per value, and without SQLite
// copying each text: a write transaction binds about 8,000 values, and
// binding them one call at a time took 7% of the server's CPU in ingest.
// ok is false when the statement or its arguments are not ones it handles;
// nothing ran, and the caller runs the statement through the driver. A
// statement that fails is not run again (its failure may have ended the
// transaction): err is SQLite's error, as the driver reports it.
func (x *execScratch) execDirect(st *sqlite3.SQLiteStmt, args []driver.NamedValue) (res driver.Result, ok bool, err error) {
	x.reset()
	for i, a := range args {
		if a.Name != "" || a.Ordinal != i+1 || !x.add(a.Value) {
			return nil, false, nil
		}
	}
	return x.run(st, len(args))
}

// execValues is execDirect for arguments as database/sql takes them, before
// its conversion; ok is false for any type the conversion would change.
func (x *execScratch) execValues(st *sqlite3.SQLiteStmt, args []any) (res driver.Result, ok bool, err error) {
	x.reset()
	for _, a := range args {
		if i, ok := a.(int); ok {
			a = int64(i)
		}
		if !x.add(a) {
			return nil, false, nil
		}
	}
	return x.run(st, len(args))
}

func (x *execScratch) reset() { x.meta, x.buf = x.meta[:0], x.buf[:0] }

// add packs one parameter: nil, int64, bool, float64, string or []byte, as
// the driver binds them.
func (x *execScratch) add(v any) bool {
	switch v := v.(type) {
	case nil:
		x.meta = append(x.meta, 0, 0, 0)
	case int64:
		x.meta = append(x.meta, 1, C.sqlite3_int64(v), 0)
	case bool:
		b := C.sqlite3_int64(0)
		if v {
			b = 1
		}
		x.meta = append(x.meta, 1, b, 0)
	case float64:
		x.meta = append(x.meta, 2, C.sqlite3_int64(math.Float64bits(v)), 0)
	case string:
		x.meta = append(x.meta, 3, C.sqlite3_int64(len(x.buf)), C.sqlite3_int64(len(v)))
		x.buf = append(x.buf, v...)
	case []byte:
		if v == nil {
			x.meta = append(x.meta, 0, 0, 0)
			break
		}
		x.meta = append(x.meta, 4, C.sqlite3_int64(len(x.buf)), C.sqlite3_int64(len(v)))
		x.buf = append(x.buf, v...)
	default:
		return false
	}
	return true
}

// run executes st with the n packed parameters.
func (x *execScratch) run(st *sqlite3.SQLiteStmt, n int) (driver.Result, bool, error) {
	if stmtHandleOffset == 0 || n > math.MaxInt32 {
		return nil, false, nil
	}
	handle := *(**C.sqlite3_stmt)(unsafe.Add(unsafe.Pointer(st), stmtHandleOffset))
	if handle == nil {
		return nil, false, nil
	}
	// Never an empty buffer: a NULL pointer would bind an empty text as
	// NULL.
	x.buf = append(x.buf, 0)
	if len(x.meta) == 0 {
		x.meta = append(x.meta, 0)
	}
	if x.msg == nil {
		x.msg = make([]C.char, 512)
	}
	var rowid, changes C.sqlite3_int64
	var ext C.int
	rc := C.catalogd_exec(handle, C.int(n), &x.meta[0], (*C.char)(unsafe.Pointer(&x.buf[0])), &rowid, &changes, &ext, &x.msg[0], C.int(len(x.msg)))
	switch rc {
	case -1:
		return nil, false, nil
	case 0, 100, 101: // SQLITE_OK, SQLITE_ROW, SQLITE_DONE
		return execResult{id: int64(rowid), changes: int64(changes)}, true, nil
	}
	return nil, true, execError{msg: C.GoString(&x.msg[0]), err: sqlite3.Error{Code: sqlite3.ErrNo(rc & 0xff), ExtendedCode: sqlite3.ErrNoExtended(ext)}}
}

// execError is the error of a statement execScratch ran: SQLite's message,
// as the driver's errors read, wrapping the driver's error type, which
// classify reads the result code of.
type execError struct {
	msg string
	err sqlite3.Error
}

func (e execError) Error() string { return e.msg }
func (e execError) Unwrap() error { return e.err }

// maxDirectStmts bounds a connection's statements for execValues, as
// maxCachedStmts bounds the pool's.
const maxDirectStmts = 256

// directExec runs statements of a SQLite write transaction on its
// connection without database/sql: no conversion of the arguments into a
// new slice, no statement bound to the transaction for each call. They
// were a tenth of the bytes an ingest allocated.
type directExec struct{ conn *sql.Conn }

func newDirectExec(conn *sql.Conn) directExecer { return directExec{conn} }

func (d directExec) exec(ctx context.Context, query string, args []any) (res sql.Result, ok bool, err error) {
	if ctx.Err() != nil {
		return nil, false, nil // database/sql reports it
	}
	_ = d.conn.Raw(func(dc any) error {
		c, isCgo := dc.(*cgoConn)
		if !isCgo {
			return nil
		}
		st := c.direct[query]
		if st == nil {
			if len(c.direct) >= maxDirectStmts {
				return nil
			}
			ds, err := c.SQLiteConn.Prepare(query)
			if err != nil {
				return nil // database/sql prepares it again and reports the error
			}
			st = ds.(*sqlite3.SQLiteStmt)
			if c.direct == nil {
				c.direct = map[string]*sqlite3.SQLiteStmt{}
			}
			c.direct[query] = st
		}
		res, ok, err = c.scratch.execValues(st, args)
		return nil
	})
	return res, ok, err
}

type execResult struct{ id, changes int64 }

func (r execResult) LastInsertId() (int64, error) { return r.id, nil }
func (r execResult) RowsAffected() (int64, error) { return r.changes, nil }
