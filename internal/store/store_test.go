package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/catalogtest"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

const postgresEnv = storetest.PostgresEnv

func openSQLite(t testing.TB) *store.DB { return storetest.Open(t, storetest.SQLiteDSN(t)) }

// openPostgres opens a store in a PostgreSQL schema of its own.
func openPostgres(t testing.TB) *store.DB {
	return storetest.Open(t, storetest.PostgresDSN(t), store.WithMaxConns(8))
}

func TestSQLite(t *testing.T) {
	catalogtest.RunStoreTests(t, func(t *testing.T) catalog.Store { return openSQLite(t) })
}

func TestPostgres(t *testing.T) {
	if os.Getenv(postgresEnv) == "" {
		t.Skip(postgresEnv + " is not set")
	}
	catalogtest.RunStoreTests(t, func(t *testing.T) catalog.Store { return openPostgres(t) })
}

// TestWALStaysBounded writes without pause and checks that the SQLite WAL
// is rewound: passive checkpoints alone let it grow with every commit.
func TestWALStaysBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "wal.db")
	db, err := store.Open(context.Background(), file, store.WithCheckpoints(10*time.Millisecond, 32))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	commits := 0
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); commits++ {
		err := db.Update(ctx, func(tx catalog.Tx) error {
			return tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: catalog.Aspect{
				URN: fmt.Sprintf("urn:li:corpuser:u%d", commits), Name: "corpUserKey",
				Value: []byte(`{"username":"u"}`), SystemMetadata: []byte(`{}`),
			}}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var pageSize int64
	if err := db.Bun().QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	// Every commit appends two or three frames; a WAL that is never rewound
	// holds them all, one rewound every few milliseconds a small fraction
	// (measured: under half even when a loaded machine delays the
	// checkpointer).
	frames := fi.Size() / (pageSize + 24)
	if frames > int64(commits) {
		t.Errorf("WAL holds %d frames after %d commits: it is not being rewound", frames, commits)
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, dsn := range []string{"sqlite:" + filepath.Join(dir, "a", "b.db"), filepath.Join(dir, "plain.db")} {
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatalf("Open(%q): %v", dsn, err)
		}
		if db.Dialect() != store.SQLite || db.Bun() == nil {
			t.Errorf("Open(%q): dialect %q", dsn, db.Dialect())
		}
		var mode string
		if err := db.Bun().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v; want wal", mode, err)
		}
		db.Close()
		// Reopening finds the schema migrated and keeps the data.
		db, err = store.Open(ctx, dsn)
		if err != nil {
			t.Fatalf("reopen %q: %v", dsn, err)
		}
		var n int
		if err := db.Bun().QueryRowContext(ctx, "SELECT COUNT(*) FROM catalogd_migration").Scan(&n); err != nil || n != 4 {
			t.Errorf("migrations recorded = %d, %v; want 4", n, err)
		}
		db.Close()
	}
}

// TestOpenConcurrently starts several stores on one database at once, as
// replicas do: the migration must apply exactly once without errors.
func TestOpenConcurrently(t *testing.T) {
	for _, tt := range []struct {
		name string
		open func(t testing.TB) *store.DB
	}{{"sqlite", openSQLite}, {"postgres", openPostgres}} {
		t.Run(tt.name, func(t *testing.T) {
			first := tt.open(t)
			var dsn string
			switch first.Dialect() {
			case store.SQLite:
				var file string
				if err := first.Bun().QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
					t.Fatal(err)
				}
				dsn = file
			default:
				var schema string
				if err := first.Bun().QueryRow("SELECT current_schema()").Scan(&schema); err != nil {
					t.Fatal(err)
				}
				// A second schema in the same database, opened concurrently.
				dsn = os.Getenv(postgresEnv)
				if _, err := first.Bun().Exec("CREATE SCHEMA " + schema + "_b"); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { first.Bun().Exec("DROP SCHEMA " + schema + "_b CASCADE") })
				sep := "?"
				if strings.Contains(dsn, "?") {
					sep = "&"
				}
				dsn += sep + "search_path=" + schema + "_b"
			}
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					db, err := store.Open(context.Background(), dsn)
					if err == nil {
						db.Close()
					}
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestUnavailable(t *testing.T) {
	_, err := store.Open(context.Background(), "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if catalog.KindOf(err) != catalog.Unavailable {
		t.Errorf("Open on a closed port: %v (kind %v), want Unavailable", err, catalog.KindOf(err))
	}
}

// TestCurrentOutsideTx checks that DB.Current reads what Tx.Current reads,
// history versions included.
func TestCurrentOutsideTx(t *testing.T) {
	ctx := context.Background()
	for name, db := range map[string]func(testing.TB) *store.DB{"sqlite": openSQLite, "postgres": openPostgres} {
		t.Run(name, func(t *testing.T) {
			if name == "postgres" && os.Getenv(postgresEnv) == "" {
				t.Skip(postgresEnv + " is not set")
			}
			db := db(t)
			urns := []string{"urn:li:dataset:a", "urn:li:dataset:b", "urn:li:dataset:absent"}
			put := func(urn, name, value string, history int64, prev catalog.Aspect) catalog.Aspect {
				a := catalog.Aspect{URN: urn, Name: name, Value: []byte(value), SystemMetadata: []byte(`{"runId":"r"}`), Created: catalog.AuditStamp{Time: 5, Actor: "urn:li:corpuser:x"}}
				if err := db.Update(ctx, func(tx catalog.Tx) error {
					return tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: a, History: history, Previous: prev}})
				}); err != nil {
					t.Fatal(err)
				}
				return a
			}
			first := put(urns[0], "status", `{"removed":false}`, 0, catalog.Aspect{})
			put(urns[0], "status", `{"removed":true}`, 1, first)
			put(urns[1], "ownership", `{"owners":[]}`, 0, catalog.Aspect{})
			got, err := db.Current(ctx, urns)
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]map[string]catalog.Current
			if err := db.Update(ctx, func(tx catalog.Tx) error {
				want, err = tx.Current(ctx, urns)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("DB.Current = %+v\nTx.Current = %+v", got, want)
			}
			if c := got[urns[0]]["status"]; c.MaxVersion != 1 || string(c.Value) != `{"removed":true}` {
				t.Errorf("status of %s = %+v, want the second value with history version 1", urns[0], c)
			}
		})
	}
}
