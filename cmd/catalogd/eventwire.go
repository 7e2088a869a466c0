package main

import (
	"context"
	"fmt"
	"time"

	"github.com/catalogd/catalogd/internal/events"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/store"
)

// openEvents opens the event log of db and returns its stream and the
// ingest option that records every write's change events in it. Every
// writer of the store takes the option, so that the stream misses no
// committed change.
func openEvents(ctx context.Context, db *store.DB) (*events.Stream, ingest.Option, error) {
	if err := db.OpenEventLog(ctx); err != nil {
		return nil, nil, fmt.Errorf("open event log: %w", err)
	}
	return events.NewStream(db, db), ingest.WithChangeRecorder(events.Recorder{}), nil
}

// envDuration reads a duration from the environment, def when unset or
// unparsable (the flag's own parsing reports a bad value given as a flag).
func envDuration(getenv func(string) string, key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(getenv(key)); err == nil {
		return d
	}
	return def
}
