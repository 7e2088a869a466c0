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
// a parameter could not be bound (the caller takes the driver's path, which
// words the error), or the step's result code.
static int catalogd_exec(sqlite3_stmt *st, int n, const sqlite3_int64 *meta, const char *buf, sqlite3_int64 *rowid, sqlite3_int64 *changes) {
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
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}
*/
import "C"

import (
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
}

// execDirect runs a prepared statement with all its parameters bound in one
// call into the library instead of one call per value, and without SQLite
// copying each text: a write transaction binds about 8,000 values, and the
// calls and copies were a fifth of the writer's time outside the library.
// ok is false when the statement or its arguments are not ones it handles,
// or when executing them failed; the caller then runs the statement through
// the driver, which reports the error as it always has (a failed statement
// leaves nothing behind to repeat).
func (x *execScratch) execDirect(st *sqlite3.SQLiteStmt, args []driver.NamedValue) (driver.Result, bool) {
	if stmtHandleOffset == 0 || len(args) > math.MaxInt32 {
		return nil, false
	}
	handle := *(**C.sqlite3_stmt)(unsafe.Add(unsafe.Pointer(st), stmtHandleOffset))
	if handle == nil {
		return nil, false
	}
	meta, buf := x.meta[:0], x.buf[:0]
	for i, a := range args {
		if a.Name != "" || a.Ordinal != i+1 {
			return nil, false
		}
		switch v := a.Value.(type) {
		case nil:
			meta = append(meta, 0, 0, 0)
		case int64:
			meta = append(meta, 1, C.sqlite3_int64(v), 0)
		case bool:
			b := C.sqlite3_int64(0)
			if v {
				b = 1
			}
			meta = append(meta, 1, b, 0)
		case float64:
			meta = append(meta, 2, C.sqlite3_int64(math.Float64bits(v)), 0)
		case string:
			meta = append(meta, 3, C.sqlite3_int64(len(buf)), C.sqlite3_int64(len(v)))
			buf = append(buf, v...)
		case []byte:
			if v == nil {
				meta = append(meta, 0, 0, 0)
				break
			}
			meta = append(meta, 4, C.sqlite3_int64(len(buf)), C.sqlite3_int64(len(v)))
			buf = append(buf, v...)
		default:
			return nil, false
		}
	}
	// Never an empty buffer: a NULL pointer would bind an empty text as
	// NULL.
	buf = append(buf, 0)
	if len(meta) == 0 {
		meta = append(meta, 0)
	}
	x.meta, x.buf = meta, buf
	var rowid, changes C.sqlite3_int64
	rc := C.catalogd_exec(handle, C.int(len(args)), &meta[0], (*C.char)(unsafe.Pointer(&buf[0])), &rowid, &changes)
	if rc != 0 && rc != 100 && rc != 101 { // SQLITE_OK, SQLITE_ROW, SQLITE_DONE
		return nil, false
	}
	return execResult{id: int64(rowid), changes: int64(changes)}, true
}

type execResult struct{ id, changes int64 }

func (r execResult) LastInsertId() (int64, error) { return r.id, nil }
func (r execResult) RowsAffected() (int64, error) { return r.changes, nil }
