package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/catalogd/catalogd/internal/registry"
)

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
	start := time.Now()
	lastDraw := time.Time{}
	progress := func(done, total int) {
		if *quiet || (time.Since(lastDraw) < 100*time.Millisecond && done != total) {
			return
		}
		lastDraw = time.Now()
		fmt.Fprint(stderr, progressBar(done, total, time.Since(start)))
	}
	res, err := ss.restorer.RestoreAll(ctx, *batch, progress)
	if !*quiet {
		fmt.Fprintln(stderr)
	}
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

// progressBar draws "\r[#####     ] 50% 500/1000 1.2s" (total < 0: unknown).
func progressBar(done, total int, took time.Duration) string {
	const width = 30
	if total <= 0 {
		return fmt.Sprintf("\rrestoring: %d rows %s", done, took.Round(100*time.Millisecond))
	}
	filled := min(width, done*width/max(total, 1))
	bar := make([]byte, width)
	for i := range bar {
		if i < filled {
			bar[i] = '#'
		} else {
			bar[i] = ' '
		}
	}
	return fmt.Sprintf("\r[%s] %3d%% %d/%d rows %s", bar, done*100/max(total, 1), done, total, took.Round(100*time.Millisecond))
}
