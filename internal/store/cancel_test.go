package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// TestCancelledUpdateLeavesWriterWorking checks that an Update whose
// context ends as it begins fails with the cancellation and leaves the
// next Update working: the transaction's connection was discarded, on
// another goroutine, from under the store, and the next write failed on it.
func TestCancelledUpdateLeavesWriterWorking(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	put := func(ctx context.Context, i int) error {
		return db.Update(ctx, func(tx catalog.Tx) error {
			return tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: catalog.Aspect{
				URN: fmt.Sprintf("urn:li:corpuser:u%d", i), Name: "corpUserKey",
				Value: []byte(`{"username":"u"}`), SystemMetadata: []byte(`{}`),
			}}})
		})
	}
	for i := range 50 {
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := put(cancelled, i); !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: Update with a cancelled context: %v, want the cancellation", i, err)
		}
		if err := put(ctx, i); err != nil {
			t.Fatalf("round %d: Update after a cancelled one: %v", i, err)
		}
	}
}
