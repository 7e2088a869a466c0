//go:build cgo && sqlite_fts5 && linux

package store_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
)

// TestWALWritesGathered checks the C library's VFS: a commit's WAL frames
// reach the file in a few large writes, and everything committed is read
// back through other connections, after a transaction large enough to
// spill pages to the WAL before its commit and rewrite them there.
func TestWALWritesGathered(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "vfs.db")
	// No checkpoints during the test: they would write too.
	db, err := store.Open(ctx, file, store.WithCheckpoints(time.Hour, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pageSize int64
	if err := db.Bun().QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		t.Fatal(err)
	}

	value := func(i, round int) []byte {
		return []byte(fmt.Sprintf(`{"username":"u%d","round":%d,"pad":"%s"}`, i, round, strings.Repeat("x", 1500+i%700)))
	}
	write := func(n, round int) {
		t.Helper()
		writes := make([]catalog.AspectWrite, n)
		for i := range writes {
			// Scattered keys, as real URNs are, so that most writes dirty a
			// page of their own.
			writes[i] = catalog.AspectWrite{Aspect: catalog.Aspect{
				URN: fmt.Sprintf("urn:li:corpuser:u%08d", (i*7919)%n), Name: "corpUserKey",
				Value: value((i*7919)%n, round), SystemMetadata: []byte(`{}`),
			}}
		}
		if err := db.Update(ctx, func(tx catalog.Tx) error { return tx.PutAspects(ctx, writes) }); err != nil {
			t.Fatal(err)
		}
	}
	walFrames := func() int64 {
		t.Helper()
		fi, err := os.Stat(file + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return (fi.Size() - 32) / (pageSize + 24)
	}

	write(10, 0) // creates the WAL
	frames0, writes0 := walFrames(), processWrites(t)
	write(1000, 1)
	frames, writes := walFrames()-frames0, processWrites(t)-writes0
	if frames < 400 {
		t.Fatalf("the commit appended only %d frames; the test needs hundreds", frames)
	}
	// Unbuffered, SQLite makes two writes a frame. The allowance covers
	// whatever else the process writes meanwhile.
	if writes > frames/8+20 {
		t.Errorf("a commit of %d WAL frames took %d write calls", frames, writes)
	}

	// 40 MB in one transaction: more than the writer's page cache, so
	// SQLite writes pages to the WAL before the commit and overwrites
	// them in place when they change again.
	const many = 20000
	write(many, 2)
	write(many, 3)

	other, err := store.Open(ctx, file, store.WithCheckpoints(time.Hour, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, r := range []catalog.Reader{db, other} {
		for _, i := range []int{0, 1, 999, 12345, many - 1} {
			urn := fmt.Sprintf("urn:li:corpuser:u%08d", i)
			a, err := r.AspectVersion(ctx, urn, "corpUserKey", 0)
			if err != nil {
				t.Fatalf("read %s: %v", urn, err)
			}
			if want := string(value(i, 3)); string(a.Value) != want {
				t.Errorf("%s reads %.60s..., want %.60s...", urn, a.Value, want)
			}
		}
	}
}

// processWrites returns the number of write system calls the process has
// made.
func processWrites(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/io")
	if err != nil {
		t.Skipf("no write count: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "syscw: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no syscw in /proc/self/io")
	return 0
}

// TestWALBufferAfterRollback checks that frames a rolled-back transaction
// left in the WAL buffer cannot overwrite what another connection commits
// afterwards, in the same place of the WAL.
func TestWALBufferAfterRollback(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "rollback.db")
	open := func() *store.DB {
		t.Helper()
		db, err := store.Open(ctx, file, store.WithCheckpoints(time.Hour, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open(), open()
	writes := func(n int, tag string) []catalog.AspectWrite {
		w := make([]catalog.AspectWrite, n)
		for i := range w {
			w[i] = catalog.AspectWrite{Aspect: catalog.Aspect{
				URN: fmt.Sprintf("urn:li:corpuser:%s%08d", tag, (i*7919)%n), Name: "corpUserKey",
				Value: []byte(fmt.Sprintf(`{"username":"%s%d","pad":"%s"}`, tag, (i*7919)%n, strings.Repeat(tag, 1800))), SystemMetadata: []byte(`{}`),
			}}
		}
		return w
	}
	const n = 20000 // 40 MB: more than the writer's page cache, so it spills to the WAL
	truncate := func() {
		t.Helper()
		if _, err := b.Bun().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
	}
	// An empty WAL, so that rolling back reads nothing from it.
	truncate()
	rollback := fmt.Errorf("roll back")
	if err := a.Update(ctx, func(tx catalog.Tx) error {
		if err := tx.PutAspects(ctx, writes(n, "a")); err != nil {
			return err
		}
		return rollback
	}); err != rollback {
		t.Fatalf("Update = %v, want the rollback", err)
	}
	// The WAL starts over, and b writes where a's frames went.
	truncate()
	if err := b.Update(ctx, func(tx catalog.Tx) error { return tx.PutAspects(ctx, writes(n, "b")) }); err != nil {
		t.Fatal(err)
	}
	// a writes again: anything it still held would reach the file now.
	if err := a.Update(ctx, func(tx catalog.Tx) error { return tx.PutAspects(ctx, writes(10, "c")) }); err != nil {
		t.Fatal(err)
	}
	var check string
	if err := b.Bun().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	rows, err := b.ScanLatest(ctx, catalog.ScanQuery{URNLike: "urn:li:corpuser:b%", Limit: 2 * n})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d aspects of b, want %d", len(rows), n)
	}
	for _, r := range rows {
		i, err := strconv.Atoi(strings.TrimPrefix(r.URN, "urn:li:corpuser:b"))
		if err != nil {
			t.Fatalf("unexpected URN %s", r.URN)
		}
		if want := fmt.Sprintf(`{"username":"b%d",`, i); !strings.HasPrefix(string(r.Value), want) {
			t.Fatalf("%s reads %.40s..., want %s...", r.URN, r.Value, want)
		}
	}
}

// TestSearchesMapTheFile checks the VFS's memory map of the database file
// that searches read through: searches see every committed document while
// the file grows past the mapped size and after it shrinks below it (a
// VACUUM, then a checkpoint that truncates the file), and the mapping
// covers the whole file.
func TestSearchesMapTheFile(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "map.db")
	db, err := store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.OpenSearch(ctx, []catalog.SearchField{{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true}, {Name: "description", Type: "TEXT", Boost: 1, QueryByDefault: true}})
	if err != nil {
		t.Fatal(err)
	}
	docs := func(from, to int) []catalog.Document {
		var out []catalog.Document
		for i := from; i < to; i++ {
			out = append(out, catalog.Document{URN: fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:p,t%06d,PROD)", i), EntityType: "dataset",
				Fields: map[string][]any{"name": {fmt.Sprintf("shared t%06d", i)}, "description": {strings.Repeat(fmt.Sprintf("pad%d ", i), 200)}}})
		}
		return out
	}
	count := func(want int) {
		t.Helper()
		res, err := s.Search(ctx, catalog.SearchQuery{Text: "shared", EntityTypes: []string{"dataset"}, Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != want {
			t.Fatalf("search counted %d documents, want %d", res.Total, want)
		}
	}
	mapped := func() int64 {
		t.Helper()
		f, err := os.Open("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var size int64
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) == 6 && fields[5] == file {
				lo, hi, _ := strings.Cut(fields[0], "-")
				a, _ := strconv.ParseUint(lo, 16, 64)
				b, _ := strconv.ParseUint(hi, 16, 64)
				size = max(size, int64(b-a))
			}
		}
		return size
	}
	if err := s.Upsert(ctx, docs(0, 500)); err != nil {
		t.Fatal(err)
	}
	count(500)
	if err := s.Upsert(ctx, docs(500, 3000)); err != nil {
		t.Fatal(err)
	}
	count(3000)
	if _, err := db.Bun().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	count(3000)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if m := mapped(); m < fi.Size()-int64(os.Getpagesize()) {
		t.Errorf("%d bytes of the %d-byte file mapped", m, fi.Size())
	}
	var urns []string
	for _, d := range docs(100, 3000) {
		urns = append(urns, d.URN)
	}
	if err := s.Delete(ctx, urns); err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if _, err := db.Bun().ExecContext(ctx, st); err != nil {
			t.Fatal(st, err)
		}
	}
	small, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if small.Size() >= fi.Size() {
		t.Fatalf("the file did not shrink: %d bytes, %d before", small.Size(), fi.Size())
	}
	count(100)
	if err := s.Upsert(ctx, docs(3000, 3500)); err != nil {
		t.Fatal(err)
	}
	count(600)
}
