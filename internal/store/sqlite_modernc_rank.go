//go:build !(cgo && sqlite_fts5)

package store

import (
	"fmt"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// This is catalogd_rank (see sqlite_cgo_rank.go, which has it in C) for
// SQLite translated to Go. That translation calls a C function pointer by
// treating the pointer as a Go func value (a pointer to the func's code
// pointer, https://golang.org/s/go11func); funcPtr makes one of a top-level
// Go function, as the driver does for its own callbacks, and callPtr calls
// one the library hands out. The functions have the translated C
// signatures: a *libc.TLS first, pointers as uintptr, int as int32.

// funcPtr returns the C function pointer of f, a top-level function (whose
// func value is static, so the pointer stays valid).
func funcPtr[F any](f F) uintptr {
	return *(*uintptr)(unsafe.Pointer(&struct{ f F }{f}))
}

// callPtr returns the C function pointer p as a Go function of type F.
func callPtr[F any](p uintptr) F {
	return *(*F)(unsafe.Pointer(&struct{ p uintptr }{p}))
}

// load and put read and write C memory (the library's, never Go's heap) at
// address p.
func load[T any](p uintptr) T   { return *(*T)(unsafe.Add(nil, p)) }
func put[T any](p uintptr, v T) { *(*T)(unsafe.Add(nil, p)) = v }

// Offsets of the members used in fts5_api and Fts5ExtensionApi (sqlite3.h:
// an int, padded to a pointer's alignment, then function pointers).
const (
	ptrSize                = unsafe.Sizeof(uintptr(0))
	fts5CreateFunction     = ptrSize + 2*ptrSize  // fts5_api.xCreateFunction
	fts5PhraseCount        = ptrSize + 5*ptrSize  // Fts5ExtensionApi.xPhraseCount
	fts5PhraseFirstColumn  = ptrSize + 17*ptrSize // Fts5ExtensionApi.xPhraseFirstColumn
	fts5PhraseNextColumn   = ptrSize + 18*ptrSize // Fts5ExtensionApi.xPhraseNextColumn
	fts5PhraseIterSize     = 2 * ptrSize          // Fts5PhraseIter: two pointers
	sqliteOK               = 0
	sqliteError            = 1
	fts5APIPointerTypeName = "fts5_api_ptr"
)

// C strings the extension passes to SQLite, allocated once.
var cFts5Query, cFts5PtrType, cRankName = mustCString("SELECT fts5(?1)"), mustCString(fts5APIPointerTypeName), mustCString("catalogd_rank")

func mustCString(s string) uintptr {
	p, err := libc.CString(s)
	if err != nil {
		panic(err)
	}
	return p
}

func init() {
	tls := libc.NewTLS()
	defer tls.Close()
	if rc := sqlite3.Xsqlite3_auto_extension(tls, funcPtr(rankExtension)); rc != sqliteOK {
		panic(fmt.Sprintf("register the SQLite rank function: result code %d", rc))
	}
}

// rankExtension registers catalogd_rank on a new connection (an
// sqlite3_loadext_entry).
func rankExtension(tls *libc.TLS, db, errMsg, routines uintptr) int32 {
	// Room for the statement pointer and the fts5_api pointer.
	mem := tls.Alloc(int(2 * ptrSize))
	defer tls.Free(int(2 * ptrSize))
	pStmt, pAPI := mem, mem+ptrSize
	put[uintptr](pStmt, 0)
	put[uintptr](pAPI, 0)
	if sqlite3.Xsqlite3_prepare_v2(tls, db, cFts5Query, -1, pStmt, 0) == sqliteOK {
		stmt := load[uintptr](pStmt)
		sqlite3.Xsqlite3_bind_pointer(tls, stmt, 1, pAPI, cFts5PtrType, 0)
		sqlite3.Xsqlite3_step(tls, stmt)
	}
	sqlite3.Xsqlite3_finalize(tls, load[uintptr](pStmt))
	api := load[uintptr](pAPI)
	if api == 0 || load[int32](api) < 2 {
		return sqliteError // FTS5 is missing
	}
	create := callPtr[func(*libc.TLS, uintptr, uintptr, uintptr, uintptr, uintptr) int32](load[uintptr](api + fts5CreateFunction))
	return create(tls, api, cRankName, 0, funcPtr(rankFunction), 0)
}

// rankFunction is catalogd_rank (an fts5_extension_function): the sum, over
// query phrases and the columns holding them, of the columns' weights.
func rankFunction(tls *libc.TLS, api, fts, ctx uintptr, nVal int32, vals uintptr) {
	phraseCount := callPtr[func(*libc.TLS, uintptr) int32](load[uintptr](api + fts5PhraseCount))
	first := callPtr[func(*libc.TLS, uintptr, int32, uintptr, uintptr) int32](load[uintptr](api + fts5PhraseFirstColumn))
	next := callPtr[func(*libc.TLS, uintptr, uintptr, uintptr)](load[uintptr](api + fts5PhraseNextColumn))
	mem := tls.Alloc(int(fts5PhraseIterSize + 4))
	defer tls.Free(int(fts5PhraseIterSize + 4))
	iter, pCol := mem, mem+fts5PhraseIterSize
	score := 0.0
	for p := range phraseCount(tls, fts) {
		put[int32](pCol, -1)
		if first(tls, fts, p, iter, pCol) != sqliteOK {
			continue
		}
		for col := load[int32](pCol); col >= 0; col = load[int32](pCol) {
			if col < nVal {
				score += sqlite3.Xsqlite3_value_double(tls, load[uintptr](vals+uintptr(col)*8))
			}
			next(tls, fts, iter, pCol)
		}
	}
	sqlite3.Xsqlite3_result_double(tls, ctx, score)
}
