package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/catalogd/catalogd/internal/registry"
)

// restoreMemoryLimit is the Go heap size restore-indices lets the collector
// wait for, unless GOMEMLIMIT says otherwise.
const restoreMemoryLimit = 1 << 30

// runRestoreIndices rebuilds every search document and graph edge from the
// stored aspects: after a crash of an external engine, a registry change
// that adds search fields, or by hand to check the index.
func runRestoreIndices(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore-indices", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs, getenv)
	searchSpec := fs.String("search", envOr(getenv, "CATALOGD_SEARCH", "store"), "search engine: store or meilisearch://HOST:PORT (env CATALOGD_SEARCH)")
	batch := fs.Int("batch", 5000, "aspect rows per transaction")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if getenv("GOMEMLIMIT") == "" {
		// A full restore holds several batches of documents at once
		// while it builds them on every core and writes two at a time
		// (about 15 MB a batch of 5,000 aspects on PostgreSQL, whose
		// tsvectors are kept as lexemes): under the server's memory limit
		// the collector ran without pause, and a restore of 800,000
		// aspects took 105-129 s instead of 70.
		debug.SetMemoryLimit(restoreMemoryLimit)
	}
	db, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	reg := registry.Default()
	ss, err := openSearch(ctx, *searchSpec, getenv, db, reg)
	if err != nil {
		return err
	}
	defer ss.close()
	bar := newProgress(stderr, "rows", *quiet)
	progress := func(done, total int) { bar.set(done, total) }
	res, err := ss.restorer.RestoreAll(ctx, *batch, progress)
	bar.done()
	if err != nil {
		return err
	}
	if ss.drainer != nil {
		if err := ss.drainer.Flush(ctx); err != nil {
			return fmt.Errorf("index the restored documents: %w", err)
		}
	}
	secs := res.Took.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(res.Rows) / secs
	}
	fmt.Fprintf(stdout, "restored %d aspects of %d entities (%d ignored) in %s: %.0f aspects/s\n",
		res.Rows, res.Entities, res.Ignored, res.Took.Round(time.Millisecond), rate)
	return nil
}
