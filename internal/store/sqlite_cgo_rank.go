//go:build cgo && sqlite_fts5

package store

/*
// The few SQLite and FTS5 declarations the rank function needs, as
// sqlite3.h documents them; the definitions are in the SQLite library that
// github.com/mattn/go-sqlite3 compiles into the same binary.
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;
typedef struct sqlite3_api_routines sqlite3_api_routines;
typedef long long sqlite3_int64;
typedef struct Fts5Context Fts5Context;
typedef struct Fts5PhraseIter { const unsigned char *a; const unsigned char *b; } Fts5PhraseIter;

typedef struct Fts5ExtensionApi {
	int iVersion;
	void *(*xUserData)(Fts5Context*);
	int (*xColumnCount)(Fts5Context*);
	int (*xRowCount)(Fts5Context*, sqlite3_int64*);
	int (*xColumnTotalSize)(Fts5Context*, int, sqlite3_int64*);
	int (*xTokenize)(Fts5Context*, const char*, int, void*, int (*)(void*, int, const char*, int, int, int));
	int (*xPhraseCount)(Fts5Context*);
	int (*xPhraseSize)(Fts5Context*, int);
	int (*xInstCount)(Fts5Context*, int*);
	int (*xInst)(Fts5Context*, int, int*, int*, int*);
	sqlite3_int64 (*xRowid)(Fts5Context*);
	int (*xColumnText)(Fts5Context*, int, const char**, int*);
	int (*xColumnSize)(Fts5Context*, int, int*);
	int (*xQueryPhrase)(Fts5Context*, int, void*, int (*)(const struct Fts5ExtensionApi*, Fts5Context*, void*));
	int (*xSetAuxdata)(Fts5Context*, void*, void (*)(void*));
	void *(*xGetAuxdata)(Fts5Context*, int);
	int (*xPhraseFirst)(Fts5Context*, int, Fts5PhraseIter*, int*, int*);
	void (*xPhraseNext)(Fts5Context*, Fts5PhraseIter*, int*, int*);
	int (*xPhraseFirstColumn)(Fts5Context*, int, Fts5PhraseIter*, int*);
	void (*xPhraseNextColumn)(Fts5Context*, Fts5PhraseIter*, int*);
} Fts5ExtensionApi;

typedef void (*fts5_extension_function)(const Fts5ExtensionApi*, Fts5Context*, sqlite3_context*, int, sqlite3_value**);

typedef struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(struct fts5_api*, const char*, void*, void*, void (*)(void*));
	int (*xFindTokenizer)(struct fts5_api*, const char*, void**, void*);
	int (*xCreateFunction)(struct fts5_api*, const char*, void*, fts5_extension_function, void (*)(void*));
} fts5_api;

extern int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
extern int sqlite3_bind_pointer(sqlite3_stmt*, int, void*, const char*, void (*)(void*));
extern int sqlite3_step(sqlite3_stmt*);
extern int sqlite3_finalize(sqlite3_stmt*);
extern double sqlite3_value_double(sqlite3_value*);
extern void sqlite3_result_double(sqlite3_context*, double);
extern int sqlite3_auto_extension(void (*)(void));

// catalogd_rank(fts, w0, w1, ...) scores a row by the columns each query
// phrase occurs in: the sum, over phrases and the columns holding them, of
// the column's weight. It reads the column lists the index itself keeps
// (detail=column), which is all a contentless table has: bm25 needs
// positions, so on such a table it scores every row 0, after counting each
// phrase's documents and reading each row's length for nothing.
static void catalogd_rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal, sqlite3_value **apVal) {
	double score = 0;
	int nPhrase = api->xPhraseCount(fts);
	for (int p = 0; p < nPhrase; p++) {
		Fts5PhraseIter it;
		int col = -1;
		if (api->xPhraseFirstColumn(fts, p, &it, &col) != 0) {
			continue;
		}
		for (; col >= 0; api->xPhraseNextColumn(fts, &it, &col)) {
			if (col < nVal) {
				score += sqlite3_value_double(apVal[col]);
			}
		}
	}
	sqlite3_result_double(ctx, score);
}

// catalogd_extension registers catalogd_rank on each new connection.
static int catalogd_extension(sqlite3 *db, char **err, const sqlite3_api_routines *routines) {
	fts5_api *api = 0;
	sqlite3_stmt *stmt = 0;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) == 0) {
		sqlite3_bind_pointer(stmt, 1, (void*)&api, "fts5_api_ptr", 0);
		sqlite3_step(stmt);
	}
	sqlite3_finalize(stmt);
	if (api == 0 || api->iVersion < 2) {
		return 1; // SQLITE_ERROR: FTS5 is missing
	}
	return api->xCreateFunction(api, "catalogd_rank", 0, catalogd_rank, 0);
}

static int catalogd_register(void) {
	return sqlite3_auto_extension((void (*)(void))catalogd_extension);
}
*/
import "C"

import "fmt"

func init() {
	configureSQLite()
	if rc := C.catalogd_register(); rc != 0 {
		panic(fmt.Sprintf("register the SQLite rank function: result code %d", rc))
	}
}
