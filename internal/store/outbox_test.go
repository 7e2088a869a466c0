package store_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

// storeDSNs are the databases the tests of this file run on: SQLite, and
// PostgreSQL when it is configured.
func storeDSNs(t *testing.T) map[string]func(t *testing.T) string {
	dsns := map[string]func(t *testing.T) string{"sqlite": func(t *testing.T) string { return storetest.SQLiteDSN(t) }}
	if os.Getenv(postgresEnv) != "" {
		dsns["postgres"] = func(t *testing.T) string { return storetest.PostgresDSN(t) }
	}
	return dsns
}

// TestSearchOutboxLag checks what the outbox reports of the index's lag:
// the entries not yet acknowledged and the time the oldest was appended,
// also for entries appended before the outbox recorded times.
func TestSearchOutboxLag(t *testing.T) {
	for name, dsn := range storeDSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := storetest.Open(t, dsn(t))
			// An outbox of the first version, with an entry waiting.
			if err := db.Migrate(ctx, "search_outbox", store.OutboxMigrations[:1]); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Bun().ExecContext(ctx, `INSERT INTO search_outbox (urn) VALUES ('urn:li:corpuser:old')`); err != nil {
				t.Fatal(err)
			}
			before := time.Now().Add(-time.Millisecond)
			if err := db.OpenOutbox(ctx); err != nil {
				t.Fatal(err)
			}
			pending, oldest, err := db.SearchOutboxLag(ctx)
			if err != nil || pending != 1 || oldest.Before(before) || oldest.After(time.Now()) {
				t.Fatalf("after the upgrade: %d pending, oldest %v (upgraded after %v), err %v", pending, oldest, before, err)
			}
			seqs, _, err := db.ReadSearchOutbox(ctx, 10)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.AckSearchOutbox(ctx, seqs); err != nil {
				t.Fatal(err)
			}
			if pending, oldest, err := db.SearchOutboxLag(ctx); err != nil || pending != 0 || !oldest.IsZero() {
				t.Fatalf("empty outbox: %d pending, oldest %v, err %v", pending, oldest, err)
			}

			appended := time.Now().Add(-time.Millisecond)
			urns := []string{"urn:li:corpuser:a", "urn:li:corpuser:b", "urn:li:corpuser:c"}
			if err := db.Update(ctx, func(tx catalog.Tx) error {
				return tx.(*store.Tx).AppendSearchOutbox(ctx, urns)
			}); err != nil {
				t.Fatal(err)
			}
			// A rolled-back append is not waiting.
			rollback := errors.New("roll back")
			if err := db.Update(ctx, func(tx catalog.Tx) error {
				if err := tx.(*store.Tx).AppendSearchOutbox(ctx, []string{"urn:li:corpuser:ghost"}); err != nil {
					return err
				}
				return rollback
			}); !errors.Is(err, rollback) {
				t.Fatal(err)
			}
			pending, oldest, err = db.SearchOutboxLag(ctx)
			if err != nil || pending != 3 || oldest.Before(appended) || oldest.After(time.Now()) {
				t.Fatalf("after appending 3: %d pending, oldest %v (appended after %v), err %v", pending, oldest, appended, err)
			}
			seqs, _, err = db.ReadSearchOutbox(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.AckSearchOutbox(ctx, seqs); err != nil {
				t.Fatal(err)
			}
			if pending, _, err := db.SearchOutboxLag(ctx); err != nil || pending != 1 {
				t.Fatalf("after acknowledging 2 of 3: %d pending, err %v", pending, err)
			}
		})
	}
}

// TestTxObserver checks that every write transaction is reported once,
// with whether it committed.
func TestTxObserver(t *testing.T) {
	for name, dsn := range storeDSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var mu sync.Mutex
			var outcomes []bool
			db := storetest.Open(t, dsn(t), store.WithTxObserver(func(wait, run time.Duration, committed bool) {
				if wait < 0 || run < 0 {
					t.Errorf("negative times: wait %v, run %v", wait, run)
				}
				mu.Lock()
				outcomes = append(outcomes, committed)
				mu.Unlock()
			}))
			write := catalog.AspectWrite{Aspect: catalog.Aspect{URN: "urn:li:corpuser:tx", Name: "corpUserKey", Value: []byte(`{"username":"tx"}`)}}
			if err := db.Update(ctx, func(tx catalog.Tx) error { return tx.PutAspects(ctx, []catalog.AspectWrite{write}) }); err != nil {
				t.Fatal(err)
			}
			failed := errors.New("fail")
			if err := db.Update(ctx, func(tx catalog.Tx) error { return failed }); !errors.Is(err, failed) {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(outcomes) != 2 || !outcomes[0] || outcomes[1] {
				t.Errorf("observed %v, want [true false]", outcomes)
			}
		})
	}
}
