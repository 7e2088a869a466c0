package search_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// slowScanStore is a store whose scans after the first fast pages wait
// for the restore to be cancelled and then take a little longer to return,
// as a read that stops at its next row does; it counts the scans running.
type slowScanStore struct {
	*store.DB
	fast            int32
	scans, scanning atomic.Int32
}

func (s *slowScanStore) ScanLatestAfter(ctx context.Context, afterURN string, limit int) ([]catalog.Aspect, error) {
	s.scanning.Add(1)
	defer s.scanning.Add(-1)
	if s.scans.Add(1) > s.fast {
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond)
		return nil, ctx.Err()
	}
	return s.DB.ScanLatestAfter(ctx, afterURN, limit)
}

// TestRestoreAllCancelledStopsReading checks that a full restore cancelled
// while it reads returns the cancellation, and only once it no longer reads
// the store: its caller may close the store as soon as it returns. It is
// cancelled after its first batch, with the next pages read (as many as
// the restore reads ahead) and the one after them being read.
func TestRestoreAllCancelledStopsReading(t *testing.T) {
	for _, tt := range []struct {
		name    string
		fast    int32 // pages read before the restore is cancelled
		indexer func(t *testing.T, db *store.DB) search.Indexer
	}{
		{"in-store engine", 3, func(t *testing.T, db *store.DB) search.Indexer {
			eng, err := db.OpenSearch(context.Background(), search.Fields(registry.Default()))
			if err != nil {
				t.Fatal(err)
			}
			return search.NewStoreIndexer(search.NewBuilder(registry.Default()), eng)
		}},
		{"outbox", 2, func(t *testing.T, db *store.DB) search.Indexer {
			if err := db.OpenOutbox(context.Background()); err != nil {
				t.Fatal(err)
			}
			return &search.OutboxIndexer{}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := store.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			idx := tt.indexer(t, db)
			err = db.Update(ctx, func(tx catalog.Tx) error {
				var ws []catalog.AspectWrite
				for i := range 8 {
					ws = append(ws, catalog.AspectWrite{Aspect: catalog.Aspect{
						URN:  fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,t%d,PROD)", i),
						Name: "status", Value: []byte(`{"removed":false}`), SystemMetadata: []byte(`{}`),
					}})
				}
				return tx.PutAspects(ctx, ws)
			})
			if err != nil {
				t.Fatal(err)
			}
			// A few rounds: where the restore stops depends on which of
			// its goroutines sees the cancellation first.
			for round := range 5 {
				s := &slowScanStore{DB: db, fast: tt.fast}
				ctx, cancel := context.WithCancel(ctx)
				_, err = search.NewRestorer(registry.Default(), s, idx).RestoreAll(ctx, 2, func(done, total int) { cancel() })
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Errorf("round %d: RestoreAll cancelled after its first batch: %v, want the cancellation", round, err)
				}
				if n := s.scanning.Load(); n != 0 {
					t.Fatalf("round %d: RestoreAll returned with %d scans of the store still running", round, n)
				}
			}
		})
	}
}
