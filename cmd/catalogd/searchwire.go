package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/catalogd/catalogd/internal/meili"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// searchStack is the search engine chosen by --search with what keeps it in
// step with the store.
type searchStack struct {
	service  *search.Service
	indexer  search.Indexer
	restorer *search.Restorer
	// drainer feeds an external engine from the outbox; nil for the
	// in-store engine.
	drainer *search.Drainer
	close   func()
}

// isMeilisearch reports whether a --search spec names Meilisearch.
func isMeilisearch(spec string) bool {
	return strings.HasPrefix(spec, "meilisearch://") || strings.HasPrefix(spec, "meilisearchs://")
}

// openSearch opens the engine named by spec: "" or "store" for the in-store
// engine (FTS5 / PostgreSQL full text in the store's database),
// meilisearch://host:port for Meilisearch with the key in
// CATALOGD_MEILISEARCH_KEY.
func openSearch(ctx context.Context, spec string, getenv func(string) string, db *store.DB, reg *registry.Registry) (*searchStack, error) {
	fields := search.Fields(reg)
	b := search.NewBuilder(reg)
	switch {
	case spec == "" || spec == "store":
		eng, err := db.OpenSearch(ctx, fields)
		if err != nil {
			return nil, fmt.Errorf("open in-store search: %w", err)
		}
		idx := search.NewStoreIndexer(b, eng)
		return &searchStack{
			service:  search.NewService(reg, eng),
			indexer:  idx,
			restorer: search.NewRestorer(reg, db, idx),
			close:    func() {},
		}, nil
	case isMeilisearch(spec):
		url := "http://" + strings.TrimPrefix(spec, "meilisearch://")
		if strings.HasPrefix(spec, "meilisearchs://") {
			url = "https://" + strings.TrimPrefix(spec, "meilisearchs://")
		}
		if err := db.OpenOutbox(ctx); err != nil {
			return nil, fmt.Errorf("open search outbox: %w", err)
		}
		eng, err := meili.New(ctx, url, getenv("CATALOGD_MEILISEARCH_KEY"), fields, meili.WithKeyedFields(search.KeyedFields(reg)))
		if err != nil {
			return nil, fmt.Errorf("open Meilisearch at %s: %w", url, err)
		}
		d := search.NewDrainer(db, db, eng, b)
		idx := &search.OutboxIndexer{Kick: d.Kick}
		return &searchStack{
			service:  search.NewService(reg, eng),
			indexer:  idx,
			restorer: search.NewRestorer(reg, db, idx),
			drainer:  d,
			close:    eng.Close,
		}, nil
	}
	return nil, fmt.Errorf("unknown --search %q: want store or meilisearch://host:port", spec)
}
