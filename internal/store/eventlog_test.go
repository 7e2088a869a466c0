package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
)

func openEventLog(t *testing.T, db *store.DB) *store.DB {
	t.Helper()
	if err := db.OpenEventLog(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// appendRow appends one row of count changes in a transaction of its own.
func appendRow(t *testing.T, db *store.DB, count int, ms int64, payload string) int64 {
	t.Helper()
	var end int64
	err := db.Update(context.Background(), func(tx catalog.Tx) error {
		var err error
		end, err = tx.(*store.Tx).AppendEvents(context.Background(), count, ms, []byte(payload))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return end
}

func TestEventLog(t *testing.T) {
	for name, open := range map[string]func(testing.TB) *store.DB{"sqlite": openSQLite, "postgres": openPostgres} {
		t.Run(name, func(t *testing.T) {
			db := openEventLog(t, open(t))
			ctx := context.Background()
			if end, err := db.EventLogEnd(ctx); err != nil || end != 0 {
				t.Fatalf("end of an empty log: %d, %v", end, err)
			}
			if got := appendRow(t, db, 2, 1000, "a\nb\n"); got != 2 {
				t.Errorf("first row ends at %d, want 2", got)
			}
			// A rolled-back append leaves neither its row nor its offsets.
			errRollback := errors.New("roll back")
			err := db.Update(ctx, func(tx catalog.Tx) error {
				if _, err := tx.(*store.Tx).AppendEvents(ctx, 5, 1500, []byte("x\n")); err != nil {
					return err
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				t.Fatal(err)
			}
			if got := appendRow(t, db, 3, 2000, "c\nd\ne\n"); got != 5 {
				t.Errorf("row after a rollback ends at %d, want 5", got)
			}
			appendRow(t, db, 1, 3000, "f\n")
			rows, err := db.ReadEvents(ctx, 3, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2 || rows[0].End != 5 || rows[0].Count != 3 || string(rows[0].Payload) != "c\nd\ne\n" || rows[1].End != 6 {
				t.Errorf("rows from offset 3: %+v", rows)
			}
			for _, tc := range []struct{ ms, want int64 }{{0, 0}, {1001, 2}, {2500, 5}, {9999, 6}} {
				if got, err := db.EventOffsetSince(ctx, tc.ms); err != nil || got != tc.want {
					t.Errorf("offset since %d: %d, %v; want %d", tc.ms, got, err, tc.want)
				}
			}
			// Pruning removes a prefix of rows; offsets go on.
			if n, err := db.PruneEvents(ctx, 2500); err != nil || n != 5 {
				t.Errorf("pruned %d changes, %v; want 5", n, err)
			}
			if rows, _ := db.ReadEvents(ctx, 0, 10); len(rows) != 1 || rows[0].End != 6 {
				t.Errorf("rows after pruning: %+v", rows)
			}
			if got := appendRow(t, db, 1, 4000, "g\n"); got != 7 {
				t.Errorf("row after pruning ends at %d, want 7", got)
			}
		})
	}
}

// TestEventLogCommitOrder checks on PostgreSQL that offsets follow commit
// order: a transaction that appends while another holds uncommitted
// offsets cannot commit before it, so a reader never sees an offset while
// a lower one may still appear.
func TestEventLogCommitOrder(t *testing.T) {
	db := openEventLog(t, openPostgres(t))
	ctx := context.Background()
	appended, release := make(chan int64), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- db.Update(ctx, func(tx catalog.Tx) error {
			end, err := tx.(*store.Tx).AppendEvents(ctx, 1, 1, []byte("first\n"))
			if err != nil {
				return err
			}
			appended <- end
			<-release
			return nil
		})
	}()
	firstEnd := <-appended
	second := make(chan int64, 1)
	go func() {
		var end int64
		err := db.Update(ctx, func(tx catalog.Tx) error {
			var err error
			end, err = tx.(*store.Tx).AppendEvents(ctx, 1, 2, []byte("second\n"))
			return err
		})
		if err != nil {
			end = -1
		}
		second <- end
	}()
	secondEnd := int64(0)
	select {
	case secondEnd = <-second:
		rows, _ := db.ReadEvents(ctx, 0, 10)
		t.Errorf("a later append (ending at %d) committed while an earlier one (ending at %d) was open; readers saw %+v", secondEnd, firstEnd, rows)
	case <-time.After(500 * time.Millisecond):
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if secondEnd == 0 {
		secondEnd = <-second
	}
	if secondEnd != firstEnd+1 {
		t.Errorf("the later append ends at %d, want %d", secondEnd, firstEnd+1)
	}
}
