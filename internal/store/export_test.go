package store

import (
	"context"

	"github.com/catalogd/catalogd/internal/catalog"
)

// MigrateSearchTo applies the search migrations up to version only, so that
// tests can write an index in an older layout and open it.
func MigrateSearchTo(ctx context.Context, db *DB, fields []catalog.SearchField, version int64) error {
	var ms []Migration
	for _, m := range db.newSearch(fields).migrations() {
		if m.Version <= version {
			ms = append(ms, m)
		}
	}
	return db.Migrate(ctx, "search", ms)
}

// TSWords and TSVector expose the tsvector builders to the tests of
// package store_test.
var (
	TSWords  = tsWords
	TSVector = tsVector
)

// OutboxMigrations exposes the search outbox's migrations, to test upgrades.
var OutboxMigrations = outboxMigrations

// SetRankCandidates sets how many hits of a ranking tier PostgreSQL scores,
// so that small corpora go through every tier.
func SetRankCandidates(s *Search, n int) { s.candidates = n }

// TraceTiers makes s report which tier settled each page PostgreSQL ranks
// (-1: every hit was scored) and whether the tier was cut short.
func TraceTiers(s *Search, f func(tier int, cut bool)) { s.traceTier = f }

// SetWalkFrom sets the count of hits from which PostgreSQL looks for a
// ranking tier's first hits in URN order, so that small corpora take
// that path.
func SetWalkFrom(s *Search, n int) { s.walkFrom = n }

// SetSampleHits sets the hits a sample of documents is chosen to hold (see
// sampleLevel), so that small corpora count common words over samples.
func SetSampleHits(s *Search, n float64) { s.sampleHits = n }

// TraceSamples makes s report the sample level each PostgreSQL search
// counted over first and whether that sample held the hits counted.
func TraceSamples(s *Search, f func(level int, full bool)) { s.traceSample = f }

// TraceFewTiers makes s report the ranking tiers it lists through the index
// because PostgreSQL's statistics estimate few hits in them.
func TraceFewTiers(s *Search, f func(tier int)) { s.traceFew = f }

// TraceWalks makes s report the walks in URN order that it stopped after
// their probe (see rankTiers).
func TraceWalks(s *Search, f func()) { s.traceWalk = f }

// ForgetWordStats makes s read PostgreSQL's word statistics again.
func ForgetWordStats(s *Search) { s.stats.Store(nil) }

// LastWordWhole reports whether a text search of tokens matches its last
// word as a whole word (see lastWordWhole).
func LastWordWhole(ctx context.Context, s *Search, tokens ...string) (bool, error) {
	var whole bool
	err := s.db.searchSnapshot(ctx, func(x querier) error {
		var err error
		whole, err = s.lastWordWhole(ctx, x, tokens)
		return err
	})
	return whole, err
}

// SetSplitHits sets the estimated hits from which PostgreSQL counts a
// window in halves (see textWindow), so that small corpora take that path.
func SetSplitHits(s *Search, n float64) { s.splitHits = n }

// TraceSplits makes s report each window PostgreSQL counts in halves and
// whether the halves ran at once, on two connections.
func TraceSplits(s *Search, f func(beside bool)) { s.traceSplit = f }

// HoldBesides takes every connection that runs part of a read beside it
// (see DB.beside), as concurrent searches would, until release is called.
func HoldBesides(db *DB) (release func()) {
	n := cap(db.besides.slots)
	for range n {
		db.besides.slots <- struct{}{}
	}
	return func() {
		for range n {
			<-db.besides.slots
		}
	}
}
