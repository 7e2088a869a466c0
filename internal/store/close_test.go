package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/testproc"
)

// TestCloseReleasesFiles checks that no connection outlives Close, with
// statements still being prepared in the background when it is called: a
// connection left open, or opened after Close returned, recreated the
// database's files while the directory was being removed (and kept the
// store's files open after the caller was told the store was closed).
func TestCloseReleasesFiles(t *testing.T) {
	ctx := context.Background()
	const rounds, queries = 10, 8
	// Statements that take milliseconds to compile, so that some are
	// still being prepared when Close is called; with two connections in
	// the pool, the others wait for one.
	var list strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&list, "%d,", i)
	}
	longList := strings.TrimSuffix(list.String(), ",")
	for round := range rounds {
		dir := filepath.Join(t.TempDir(), "data")
		db, err := Open(ctx, filepath.Join(dir, "catalog.db"), WithMaxConns(2))
		if err != nil {
			t.Fatal(err)
		}
		// Statements first run in a read transaction are prepared on
		// other connections of the pool, in the background.
		err = db.snapshot(ctx, func(q querier) error {
			for i := range queries {
				var n int
				if err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT %d WHERE %d IN (%s)", i, i, longList)).Scan(&n); err != nil || n != i {
					if err == nil {
						err = fmt.Errorf("query %d returned %d", i, n)
					}
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatalf("round %d: Close: %v", round, err)
		}
		open, err := testproc.OpenFiles(dir)
		if err != nil {
			t.Skipf("the open files cannot be listed here: %v", err)
		}
		if len(open) > 0 {
			t.Fatalf("round %d: files still open after Close: %v", round, open)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatalf("round %d: remove the data directory after Close: %v", round, err)
		}
	}
}

// TestOpenFailureStopsBackgroundWork checks that a store that fails to
// open leaves nothing running: its checkpointer went on, on a closed pool,
// for as long as the process lived.
func TestOpenFailureStopsBackgroundWork(t *testing.T) {
	file := filepath.Join(t.TempDir(), "catalog.db")
	if err := os.WriteFile(file, []byte(strings.Repeat("not a database ", 512)), 0o600); err != nil {
		t.Fatal(err)
	}
	if db, err := Open(context.Background(), file); err == nil {
		db.Close()
		t.Fatal("Open of a file that is not a database succeeded")
	}
	if stacks := testproc.GoroutineStacks(); strings.Contains(stacks, "store.(*DB).checkpoint") {
		t.Errorf("the checkpointer still runs after Open failed:\n%s", stacks)
	}
}
