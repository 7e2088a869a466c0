//go:build cgo && sqlite_fts5

package store

/*
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

// The SQLite declarations the file system shim needs, as sqlite3.h
// documents them; the definitions are in the library that
// github.com/mattn/go-sqlite3 compiles into the same binary.
typedef long long sqlite3_int64;
typedef struct sqlite3_file sqlite3_file;
typedef struct sqlite3_io_methods sqlite3_io_methods;
struct sqlite3_file { const sqlite3_io_methods *pMethods; };
struct sqlite3_io_methods {
	int iVersion;
	int (*xClose)(sqlite3_file*);
	int (*xRead)(sqlite3_file*, void*, int, sqlite3_int64);
	int (*xWrite)(sqlite3_file*, const void*, int, sqlite3_int64);
	int (*xTruncate)(sqlite3_file*, sqlite3_int64);
	int (*xSync)(sqlite3_file*, int);
	int (*xFileSize)(sqlite3_file*, sqlite3_int64*);
	int (*xLock)(sqlite3_file*, int);
	int (*xUnlock)(sqlite3_file*, int);
	int (*xCheckReservedLock)(sqlite3_file*, int*);
	int (*xFileControl)(sqlite3_file*, int, void*);
	int (*xSectorSize)(sqlite3_file*);
	int (*xDeviceCharacteristics)(sqlite3_file*);
	int (*xShmMap)(sqlite3_file*, int, int, int, void volatile**);
	int (*xShmLock)(sqlite3_file*, int, int, int);
	void (*xShmBarrier)(sqlite3_file*);
	int (*xShmUnmap)(sqlite3_file*, int);
	int (*xFetch)(sqlite3_file*, sqlite3_int64, int, void**);
	int (*xUnfetch)(sqlite3_file*, sqlite3_int64, void*);
};
typedef struct sqlite3_vfs sqlite3_vfs;
typedef void (*sqlite3_syscall_ptr)(void);
struct sqlite3_vfs {
	int iVersion;
	int szOsFile;
	int mxPathname;
	sqlite3_vfs *pNext;
	const char *zName;
	void *pAppData;
	int (*xOpen)(sqlite3_vfs*, const char*, sqlite3_file*, int, int*);
	int (*xDelete)(sqlite3_vfs*, const char*, int);
	int (*xAccess)(sqlite3_vfs*, const char*, int, int*);
	int (*xFullPathname)(sqlite3_vfs*, const char*, int, char*);
	void *(*xDlOpen)(sqlite3_vfs*, const char*);
	void (*xDlError)(sqlite3_vfs*, int, char*);
	void (*(*xDlSym)(sqlite3_vfs*, void*, const char*))(void);
	void (*xDlClose)(sqlite3_vfs*, void*);
	int (*xRandomness)(sqlite3_vfs*, int, char*);
	int (*xSleep)(sqlite3_vfs*, int);
	int (*xCurrentTime)(sqlite3_vfs*, double*);
	int (*xGetLastError)(sqlite3_vfs*, int, char*);
	int (*xCurrentTimeInt64)(sqlite3_vfs*, sqlite3_int64*);
	int (*xSetSystemCall)(sqlite3_vfs*, const char*, sqlite3_syscall_ptr);
	sqlite3_syscall_ptr (*xGetSystemCall)(sqlite3_vfs*, const char*);
	const char *(*xNextSystemCall)(sqlite3_vfs*, const char*);
};
extern sqlite3_vfs *sqlite3_vfs_find(const char*);
extern sqlite3_file *sqlite3_database_file_object(const char*);
extern int sqlite3_vfs_register(sqlite3_vfs*, int);
extern int sqlite3_config(int, ...);

// catalogd_configure turns off the library's memory statistics, which take
// a global mutex around every allocation and keep counts nothing here
// reads: 5% of the library's instructions in an ingest batch. It must run
// before the library initializes; afterwards it fails, and changes nothing.
static int catalogd_configure(void) {
	return sqlite3_config(9, 0); // SQLITE_CONFIG_MEMSTATUS
}

#define WC_OPEN_WAL 0x00080000 // SQLITE_OPEN_WAL
#define WC_OPEN_MAIN_DB 0x00000100 // SQLITE_OPEN_MAIN_DB
#define WC_FRAME_HEADER 24     // bytes of a WAL frame's header
// The unix VFS writes at most 128 KB - 1 bytes in one call (it masks the
// length with 0x1ffff), so the buffer holds no more.
#define WC_BUFFER 0x1ffff

// wcFile is a file of the catalogd VFS: the parent VFS's file follows it in
// the same allocation. For a WAL file it gathers the frames SQLite writes
// one after another into one buffer.
//
// SQLite writes each WAL frame with two system calls, its 24-byte header
// and then the page, and an ingest batch commits about a thousand frames:
// two thousand writes of which the buffer makes about 35. What is buffered is
// written before any other operation on the file, before any write that
// does not continue it, and at the latest when the data of a commit frame
// (one whose header holds the database size) is buffered, within that
// write. SQLite makes frames visible to other connections only after the
// commit frame's write has returned, by updating the WAL index, so no
// connection or process can read a frame that is still in the buffer; and a
// failed write fails the commit frame's write, which SQLite then rolls
// back, as it would without the buffer. Frames of a transaction that spilled
// pages to the WAL and then rolled back may still be buffered when it ends:
// they are written before the connection takes or releases any lock of the
// WAL (SQLite's locks of the database file's shared memory), so never after
// another connection may have written where they go. A WAL file is used by
// one connection at a time, as every SQLite file is, so the buffer needs no
// lock.
typedef struct wcFile {
	sqlite3_file base;
	sqlite3_file *real;
	int wal;
	char *buf;          // allocated at the first write
	int n;              // bytes in buf
	sqlite3_int64 ofst; // file offset of buf[0]
	sqlite3_int64 next; // offset just past the previous write
	int commit;         // the previous write was a commit frame's header
	struct wcFile *walFile; // of a database file: its WAL, while open
	struct wcFile *dbFile;  // of a WAL file: its database file
	// A main database file is memory-mapped here rather than by the
	// parent (see wcFetch): h is the parent's descriptor of it, -1 when
	// the parent's pages are used.
	int h;
	unsigned char *map;     // the mapping, or 0
	sqlite3_int64 mapSize;  // bytes of it SQLite may be handed
	sqlite3_int64 mapAlloc; // bytes mapped
	sqlite3_int64 mapMax;   // the limit SQLite asked for (PRAGMA mmap_size)
	int fetched;            // pages handed out and not yet released
} wcFile;

static sqlite3_vfs *wcParent;

static int wcFlush(wcFile *f) {
	if (f->n == 0) {
		return 0;
	}
	int n = f->n;
	f->n = 0;
	return f->real->pMethods->xWrite(f->real, f->buf, n, f->ofst);
}

static void wcUnmap(wcFile *f) {
	if (f->map) {
		munmap(f->map, f->mapAlloc);
		f->map = 0;
		f->mapSize = 0;
		f->mapAlloc = 0;
	}
}

// wcMap maps the database file as large as it is, up to mapMax, unless
// pages of the current mapping are still handed out.
static int wcMap(wcFile *f) {
	if (f->fetched > 0) {
		return 0;
	}
	struct stat st;
	if (fstat(f->h, &st) != 0) {
		return 10 | (7<<8); // SQLITE_IOERR_FSTAT
	}
	sqlite3_int64 n = st.st_size;
	if (n > f->mapMax) {
		n = f->mapMax;
	}
	if (n == f->mapSize) {
		return 0;
	}
	wcUnmap(f);
	if (n > 0) {
		void *p = mmap(0, (size_t)n, PROT_READ, MAP_SHARED, f->h, 0);
		if (p == MAP_FAILED) {
			// As the parent does: no more mappings, SQLite reads.
			f->mapMax = 0;
			return 0;
		}
		f->map = p;
		f->mapSize = f->mapAlloc = n;
	}
	return 0;
}

static int wcClose(sqlite3_file *pf) {
	wcFile *f = (wcFile*)pf;
	if (f->dbFile) {
		f->dbFile->walFile = 0;
	}
	wcUnmap(f);
	int rc = wcFlush(f);
	free(f->buf);
	f->buf = 0;
	int rc2 = f->real->pMethods->xClose(f->real);
	return rc ? rc : rc2;
}

static int wcRead(sqlite3_file *pf, void *p, int amt, sqlite3_int64 ofst) {
	wcFile *f = (wcFile*)pf;
	int rc = wcFlush(f);
	if (rc) return rc;
	return f->real->pMethods->xRead(f->real, p, amt, ofst);
}

static int wcWrite(sqlite3_file *pf, const void *p, int amt, sqlite3_int64 ofst) {
	wcFile *f = (wcFile*)pf;
	if (!f->wal) {
		return f->real->pMethods->xWrite(f->real, p, amt, ofst);
	}
	int commit = f->commit;
	f->commit = amt == WC_FRAME_HEADER && (((const unsigned char*)p)[4] | ((const unsigned char*)p)[5] |
		((const unsigned char*)p)[6] | ((const unsigned char*)p)[7]) != 0;
	int follows = ofst == f->next;
	f->next = ofst + amt;
	if (f->n > 0 && (!follows || f->n + amt > WC_BUFFER)) {
		int rc = wcFlush(f);
		if (rc) return rc;
	}
	if (f->buf == 0 && follows) {
		f->buf = malloc(WC_BUFFER);
	}
	if (!follows || f->buf == 0 || amt > WC_BUFFER) {
		return f->real->pMethods->xWrite(f->real, p, amt, ofst);
	}
	if (f->n == 0) {
		f->ofst = ofst;
	}
	memcpy(f->buf + f->n, p, amt);
	f->n += amt;
	return commit ? wcFlush(f) : 0;
}

static int wcTruncate(sqlite3_file *pf, sqlite3_int64 size) {
	wcFile *f = (wcFile*)pf;
	int rc = wcFlush(f);
	if (rc) return rc;
	rc = f->real->pMethods->xTruncate(f->real, size);
	if (rc == 0 && size < f->mapSize) {
		// Pages past the end are read, not fetched, from now on.
		f->mapSize = size;
	}
	return rc;
}

static int wcSync(sqlite3_file *pf, int flags) {
	wcFile *f = (wcFile*)pf;
	int rc = wcFlush(f);
	if (rc) return rc;
	return f->real->pMethods->xSync(f->real, flags);
}

static int wcFileSize(sqlite3_file *pf, sqlite3_int64 *size) {
	wcFile *f = (wcFile*)pf;
	int rc = wcFlush(f);
	if (rc) return rc;
	return f->real->pMethods->xFileSize(f->real, size);
}

static int wcLock(sqlite3_file *pf, int lock) {
	wcFile *f = (wcFile*)pf;
	return f->real->pMethods->xLock(f->real, lock);
}

static int wcUnlock(sqlite3_file *pf, int lock) {
	wcFile *f = (wcFile*)pf;
	return f->real->pMethods->xUnlock(f->real, lock);
}

static int wcCheckReservedLock(sqlite3_file *pf, int *out) {
	wcFile *f = (wcFile*)pf;
	return f->real->pMethods->xCheckReservedLock(f->real, out);
}

static int wcFileControl(sqlite3_file *pf, int op, void *arg) {
	wcFile *f = (wcFile*)pf;
	int rc = wcFlush(f);
	if (rc) return rc;
	if (op == 18 && f->h >= 0) { // SQLITE_FCNTL_MMAP_SIZE, of a file mapped here
		sqlite3_int64 limit = *(sqlite3_int64*)arg;
		*(sqlite3_int64*)arg = f->mapMax;
		if (limit >= 0 && limit != f->mapMax && f->fetched == 0) {
			f->mapMax = limit;
			if (f->mapSize > 0) {
				wcUnmap(f);
				return wcMap(f);
			}
		}
		return 0;
	}
	return f->real->pMethods->xFileControl(f->real, op, arg);
}

static int wcSectorSize(sqlite3_file *pf) {
	wcFile *f = (wcFile*)pf;
	return f->real->pMethods->xSectorSize(f->real);
}

static int wcDeviceCharacteristics(sqlite3_file *pf) {
	wcFile *f = (wcFile*)pf;
	return f->real->pMethods->xDeviceCharacteristics(f->real);
}

static int wcShmMap(sqlite3_file *pf, int pg, int pgsz, int extend, void volatile **pp) {
	wcFile *f = (wcFile*)pf;
	return f->real->pMethods->xShmMap(f->real, pg, pgsz, extend, pp);
}

static int wcShmLock(sqlite3_file *pf, int offset, int n, int flags) {
	wcFile *f = (wcFile*)pf;
	if (f->walFile) {
		int rc = wcFlush(f->walFile);
		if (rc) return rc;
	}
	return f->real->pMethods->xShmLock(f->real, offset, n, flags);
}

static void wcShmBarrier(sqlite3_file *pf) {
	wcFile *f = (wcFile*)pf;
	f->real->pMethods->xShmBarrier(f->real);
}

static int wcShmUnmap(sqlite3_file *pf, int del) {
	wcFile *f = (wcFile*)pf;
	return f->real->pMethods->xShmUnmap(f->real, del);
}

// wcFetch hands SQLite a page of the memory-mapped database file. The
// parent maps at most the library's compile-time limit (2 GB): the pages of
// a larger database past it were read, each into every connection's small
// page cache, with a system call and a copy, and at 1M datasets (a 6 GB
// file) those reads were a third of a search's time. A main database file
// of the unix VFS is therefore mapped here, whole, up to the limit that
// PRAGMA mmap_size asks, as the parent maps it (unixFetch, unixUnfetch):
// from the file's size when first fetched, again when SQLite says the
// mapping may be stale, never while pages of it are handed out. A parent
// without memory maps (methods before version 3) has no pages to hand out:
// SQLite then reads them.
static int wcFetch(sqlite3_file *pf, sqlite3_int64 ofst, int amt, void **pp) {
	wcFile *f = (wcFile*)pf;
	*pp = 0;
	if (f->h >= 0) {
		if (f->mapMax <= 0) {
			return 0;
		}
		if (f->map == 0) {
			int rc = wcMap(f);
			if (rc) return rc;
		}
		// Addressable bytes past the page, in case SQLite overreads a
		// corrupt one, as the parent keeps.
		if (f->map && f->mapSize >= ofst + amt + 256) {
			*pp = f->map + ofst;
			f->fetched++;
		}
		return 0;
	}
	if (f->real->pMethods->iVersion < 3) {
		return 0;
	}
	return f->real->pMethods->xFetch(f->real, ofst, amt, pp);
}

static int wcUnfetch(sqlite3_file *pf, sqlite3_int64 ofst, void *p) {
	wcFile *f = (wcFile*)pf;
	if (f->h >= 0) {
		if (p) {
			f->fetched--;
		} else if (f->fetched == 0) {
			wcUnmap(f);
		}
		return 0;
	}
	if (f->real->pMethods->iVersion < 3) {
		return 0;
	}
	return f->real->pMethods->xUnfetch(f->real, ofst, p);
}

// wcParentFD returns the descriptor the parent VFS opened file name with,
// or -1. The unix VFS keeps it after three pointers (struct unixFile of
// sqlite3.c, unchanged since 3.7); the descriptor found there is used only
// when it is open on the file of that name.
static int wcParentFD(sqlite3_file *real, const char *name) {
	if (wcParent == 0 || wcParent->zName == 0 || strncmp(wcParent->zName, "unix", 4) != 0 || name == 0) {
		return -1;
	}
	int h = *(int*)((char*)real + 3*sizeof(void*));
	struct stat a, b;
	if (h < 0 || fstat(h, &a) != 0 || stat(name, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino || !S_ISREG(a.st_mode)) {
		return -1;
	}
	return h;
}

static sqlite3_io_methods wcMethods = {
	3, wcClose, wcRead, wcWrite, wcTruncate, wcSync, wcFileSize, wcLock, wcUnlock,
	wcCheckReservedLock, wcFileControl, wcSectorSize, wcDeviceCharacteristics,
	wcShmMap, wcShmLock, wcShmBarrier, wcShmUnmap, wcFetch, wcUnfetch,
};

static int wcOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *pf, int flags, int *outFlags) {
	wcFile *f = (wcFile*)pf;
	memset(f, 0, sizeof(*f));
	f->real = (sqlite3_file*)&f[1];
	int rc = wcParent->xOpen(wcParent, name, f->real, flags, outFlags);
	if (f->real->pMethods == 0) {
		// The parent opened nothing: SQLite must not call our methods.
		return rc;
	}
	f->h = -1;
	if (rc == 0 && (flags & WC_OPEN_MAIN_DB) != 0) {
		f->h = wcParentFD(f->real, name);
	}
	f->wal = (flags & WC_OPEN_WAL) != 0;
	if (f->wal) {
		// The database file is open, through this VFS: SQLite opens a
		// WAL for a database it has opened, and closes it first.
		wcFile *db = (wcFile*)sqlite3_database_file_object(name);
		if (db) {
			db->walFile = f;
			f->dbFile = db;
		}
	}
	pf->pMethods = &wcMethods;
	return rc;
}

static int wcDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
	return wcParent->xDelete(wcParent, name, syncDir);
}

static int wcAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
	return wcParent->xAccess(wcParent, name, flags, out);
}

static int wcFullPathname(sqlite3_vfs *vfs, const char *name, int n, char *out) {
	return wcParent->xFullPathname(wcParent, name, n, out);
}

static void *wcDlOpen(sqlite3_vfs *vfs, const char *name) {
	return wcParent->xDlOpen(wcParent, name);
}

static void wcDlError(sqlite3_vfs *vfs, int n, char *msg) {
	wcParent->xDlError(wcParent, n, msg);
}

static void (*wcDlSym(sqlite3_vfs *vfs, void *h, const char *sym))(void) {
	return wcParent->xDlSym(wcParent, h, sym);
}

static void wcDlClose(sqlite3_vfs *vfs, void *h) {
	wcParent->xDlClose(wcParent, h);
}

static int wcRandomness(sqlite3_vfs *vfs, int n, char *out) {
	return wcParent->xRandomness(wcParent, n, out);
}

static int wcSleep(sqlite3_vfs *vfs, int us) {
	return wcParent->xSleep(wcParent, us);
}

static int wcCurrentTime(sqlite3_vfs *vfs, double *t) {
	return wcParent->xCurrentTime(wcParent, t);
}

static int wcGetLastError(sqlite3_vfs *vfs, int n, char *msg) {
	return wcParent->xGetLastError(wcParent, n, msg);
}

static int wcCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *t) {
	return wcParent->xCurrentTimeInt64(wcParent, t);
}

static sqlite3_vfs wcVFS;

// catalogd_register_vfs registers the VFS "catalogd" over the default one.
static int catalogd_register_vfs(void) {
	wcParent = sqlite3_vfs_find(0);
	if (wcParent == 0 || wcParent->iVersion < 2) {
		return 1; // SQLITE_ERROR
	}
	wcVFS.iVersion = 2;
	wcVFS.szOsFile = sizeof(wcFile) + wcParent->szOsFile;
	wcVFS.mxPathname = wcParent->mxPathname;
	wcVFS.zName = "catalogd";
	wcVFS.xOpen = wcOpen;
	wcVFS.xDelete = wcDelete;
	wcVFS.xAccess = wcAccess;
	wcVFS.xFullPathname = wcFullPathname;
	wcVFS.xDlOpen = wcDlOpen;
	wcVFS.xDlError = wcDlError;
	wcVFS.xDlSym = wcDlSym;
	wcVFS.xDlClose = wcDlClose;
	wcVFS.xRandomness = wcRandomness;
	wcVFS.xSleep = wcSleep;
	wcVFS.xCurrentTime = wcCurrentTime;
	wcVFS.xGetLastError = wcGetLastError;
	wcVFS.xCurrentTimeInt64 = wcCurrentTimeInt64;
	return sqlite3_vfs_register(&wcVFS, 0);
}
*/
import "C"

import (
	"fmt"
	"sync"
)

// sqliteVFS is the VFS every connection of the C library opens its files
// with: the default one, with the WAL's frames written in few system calls
// (see wcFile above). Ingest commits about a thousand frames a batch, and
// their two thousand writes cost about 2 µs each more than one buffered
// write.
const sqliteVFS = "catalogd"

var configureOnce sync.Once

// configureSQLite sets the library's global options; every init of this
// package that would initialize the library calls it first.
func configureSQLite() {
	configureOnce.Do(func() { C.catalogd_configure() })
}

func init() {
	configureSQLite()
	if rc := C.catalogd_register_vfs(); rc != 0 {
		panic(fmt.Sprintf("register the SQLite VFS: result code %d", rc))
	}
}
