package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// testStore is one store configuration the end-to-end tests run against.
type testStore struct {
	name string
	args []string // extra serve flags
}

// testStores returns the embedded SQLite store always and a fresh PostgreSQL
// database when CATALOGD_TEST_POSTGRES names a server.
func testStores(t *testing.T) []testStore {
	stores := []testStore{{name: "sqlite"}}
	if dsn := os.Getenv("CATALOGD_TEST_POSTGRES"); dsn != "" {
		stores = append(stores, testStore{name: "postgres", args: []string{"--store", freshPostgres(t, dsn)}})
	} else {
		t.Log("CATALOGD_TEST_POSTGRES not set: PostgreSQL variant skipped")
	}
	return stores
}

// freshPostgres creates an empty database on the server of dsn, dropped when
// the test ends, and returns its DSN.
func freshPostgres(t testing.TB, dsn string) string {
	t.Helper()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("catalogd_e2e_%d", rand.Uint64()%1e12)
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
