//go:build unix

package store_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
)

// TestSQLiteFilesPrivate checks that the data directory is created 0700 and
// the database file and its -wal and -shm companions are 0600, whatever the
// umask, and that the files of a store an older version left 0644 are
// tightened when it is opened.
func TestSQLiteFilesPrivate(t *testing.T) {
	old := syscall.Umask(0o022) // the usual umask, which left them 0644
	t.Cleanup(func() { syscall.Umask(old) })
	ctx := context.Background()
	write := func(t *testing.T, db *store.DB) {
		t.Helper()
		v, _ := json.Marshal(map[string]any{"removed": false})
		err := db.Update(ctx, func(tx catalog.Tx) error {
			return tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: catalog.Aspect{URN: "urn:li:corpuser:x", Name: "status", Value: v}}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, path string, want os.FileMode) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %v, want %v", filepath.Base(path), got, want)
		}
	}

	t.Run("new", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		path := filepath.Join(dir, "catalogd.db")
		db, err := store.Open(ctx, "sqlite:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		write(t, db)
		check(t, dir, 0o700)
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			check(t, p, 0o600)
		}
	})

	t.Run("existing", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		path := filepath.Join(dir, "catalogd.db")
		db, err := store.Open(ctx, "sqlite:"+path)
		if err != nil {
			t.Fatal(err)
		}
		write(t, db)
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if err := os.Chmod(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// Open again while the first handle keeps the -wal and -shm files.
		db2, err := store.Open(ctx, "sqlite:"+path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			check(t, p, 0o600)
		}
		db2.Close()
		db.Close()
	})
}
