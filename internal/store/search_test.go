package store_test

import (
	"context"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/catalogtest"
	"github.com/catalogd/catalogd/internal/store"
)

func openSearch(t *testing.T, db *store.DB, fields []catalog.SearchField) catalog.SearchIndex {
	t.Helper()
	s, err := db.OpenSearch(context.Background(), fields)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSearchSQLite(t *testing.T) {
	catalogtest.RunSearchTests(t, func(t *testing.T, fields []catalog.SearchField) catalog.SearchIndex {
		return openSearch(t, openSQLite(t), fields)
	})
}

func TestSearchPostgres(t *testing.T) {
	catalogtest.RunSearchTests(t, func(t *testing.T, fields []catalog.SearchField) catalog.SearchIndex {
		return openSearch(t, openPostgres(t), fields)
	})
}
