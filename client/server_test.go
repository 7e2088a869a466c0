package client_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/restli"
	"github.com/catalogd/catalogd/internal/store"
)

// startServer runs a real catalogd HTTP stack (rest.li and OpenAPI v3
// handlers, ingest pipeline, SQLite store) on a random port. It panics on
// failure so that examples can use it too.
func startServer() (url string, stop func()) {
	dir, err := os.MkdirTemp("", "catalogd-client-")
	if err != nil {
		panic(err)
	}
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(dir, "catalogd.db"))
	if err != nil {
		panic(err)
	}
	reg := registry.Default()
	h := restli.New(restli.Config{Registry: reg, Store: db, Ingest: ingest.New(reg, db)})
	h.ServeOpenAPI(nil, nil)
	srv := httptest.NewServer(h)
	return srv.URL, func() {
		srv.Close()
		db.Close()
		os.RemoveAll(dir)
	}
}
