// Package storetest opens real stores for tests and benchmarks of the
// packages built on internal/store: an SQLite file of the test's own, and,
// when CATALOGD_TEST_POSTGRES names a server, a PostgreSQL schema of the
// test's own, dropped when the test ends, so that tests run in parallel and
// repeatedly against one database.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for the admin connection

	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/testproc"
)

// PostgresEnv names the DSN of a PostgreSQL database for tests; they skip
// PostgreSQL when it is unset.
const PostgresEnv = "CATALOGD_TEST_POSTGRES"

// SQLiteDSN is a database file of the test's own.
func SQLiteDSN(tb testing.TB) string {
	return filepath.Join(tb.TempDir(), "data", "catalog.db")
}

// PostgresDSN is a schema of the test's own in the database PostgresEnv
// names; the test is skipped when it is unset.
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn == "" {
		tb.Skip(PostgresEnv + " is not set")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { admin.Close() })
	suffix := make([]byte, 6)
	rand.Read(suffix)
	schema := "catalogd_test_" + hex.EncodeToString(suffix)
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			tb.Errorf("drop test schema: %v", err)
		}
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}

// Open opens the store at dsn, closed when the test ends. Once the last
// store on a SQLite file is closed, its files must be: a connection that
// outlived Close recreated them while the test's directory was being
// removed.
func Open(tb testing.TB, dsn string, opts ...store.Option) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), dsn, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	dir := ""
	if db.Path() != "" {
		dir = filepath.Dir(db.Path())
		sqliteDirs.add(dir, 1)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("close the store: %v", err)
		}
		if dir == "" || sqliteDirs.add(dir, -1) > 0 {
			return
		}
		if open, _ := testproc.OpenFiles(dir); len(open) > 0 { // none where they cannot be listed
			tb.Errorf("the store's files are still open after Close: %v", open)
		}
	})
	return db
}

// sqliteDirs counts the stores Open has open in each directory: a test
// may open several on one file.
var sqliteDirs = dirCounts{n: map[string]int{}}

type dirCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// add adds delta to the count of dir and returns the new count.
func (c *dirCounts) add(dir string, delta int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[dir] += delta
	n := c.n[dir]
	if n == 0 {
		delete(c.n, dir)
	}
	return n
}

// Bench runs fn against SQLite and, when PostgresEnv is set, PostgreSQL.
func Bench(b *testing.B, fn func(b *testing.B, db *store.DB)) {
	b.Run("sqlite", func(b *testing.B) { fn(b, Open(b, SQLiteDSN(b))) })
	b.Run("postgres", func(b *testing.B) { fn(b, Open(b, PostgresDSN(b))) })
}

// ReportPercentiles reports the p50 and p99 of the measured durations.
func ReportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	ms := func(p float64) float64 { return float64(d[int(p*float64(len(d)-1))]) / 1e6 }
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
