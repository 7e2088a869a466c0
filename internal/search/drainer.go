package search

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Outbox is the store side of the search outbox: URNs appended by write
// transactions (OutboxTx), read and acknowledged by the Drainer.
type Outbox interface {
	// ReadSearchOutbox returns up to limit entries, oldest first.
	ReadSearchOutbox(ctx context.Context, limit int) (seqs []int64, urns []string, err error)
	// AckSearchOutbox removes entries once their documents are in the engine.
	AckSearchOutbox(ctx context.Context, seqs []int64) error
	// TryLockSearchOutbox takes the drain lock shared by every replica
	// (a PostgreSQL advisory lock; in-process on SQLite). ok is false when
	// another holder has it; release must be called when ok.
	TryLockSearchOutbox(ctx context.Context) (release func(), ok bool, err error)
}

// Drainer feeds an external engine from the outbox after commit. Indexing
// is idempotent (a document is rebuilt from the store's current state), so
// an entry that is indexed twice, after a crash between indexing and
// acknowledging, does no harm.
type Drainer struct {
	store  catalog.Reader
	outbox Outbox
	index  catalog.SearchIndex
	b      *Builder
	// Batch is the number of outbox entries indexed at once.
	Batch int
	// Poll is how often an idle drainer looks at the outbox.
	Poll time.Duration
	kick chan struct{}
}

// NewDrainer returns a drainer indexing into idx documents built by b from
// store, for the URNs of outbox.
func NewDrainer(store catalog.Reader, outbox Outbox, idx catalog.SearchIndex, b *Builder) *Drainer {
	return &Drainer{store: store, outbox: outbox, index: idx, b: b, Batch: 500, Poll: 250 * time.Millisecond, kick: make(chan struct{}, 1)}
}

// Kick wakes the drainer before its next poll.
func (d *Drainer) Kick() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// Run drains until ctx ends. Failures (engine or store unavailable) are
// logged and retried with exponential backoff up to 30s.
func (d *Drainer) Run(ctx context.Context) {
	backoff := time.Duration(0)
	for {
		wait := d.Poll
		if backoff > 0 {
			wait = backoff
		}
		select {
		case <-ctx.Done():
			return
		case <-d.kick:
		case <-time.After(wait):
		}
		n, err := d.DrainOnce(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			backoff = min(max(2*backoff, 100*time.Millisecond), 30*time.Second)
			slog.Warn("search outbox: drain failed, retrying", "err", err, "retry_in", backoff)
		case err == nil:
			backoff = 0
			if n > 0 {
				d.Kick() // more may be waiting
			}
		}
	}
}

// DrainOnce indexes one batch of the outbox if this process holds the drain
// lock, returning the number of entries acknowledged.
func (d *Drainer) DrainOnce(ctx context.Context) (int, error) {
	release, ok, err := d.outbox.TryLockSearchOutbox(ctx)
	if err != nil || !ok {
		return 0, err
	}
	defer release()
	seqs, urns, err := d.outbox.ReadSearchOutbox(ctx, d.Batch)
	if err != nil || len(seqs) == 0 {
		return 0, err
	}
	uniq := make([]string, 0, len(urns))
	seen := map[string]bool{}
	for _, u := range urns {
		if !seen[u] {
			seen[u] = true
			uniq = append(uniq, u)
		}
	}
	docs, dels, err := d.b.Documents(ctx, d.store, uniq)
	if err != nil {
		return 0, err
	}
	if len(docs) > 0 {
		if err := d.index.Upsert(ctx, docs); err != nil {
			return 0, fmt.Errorf("index %d documents: %w", len(docs), err)
		}
	}
	if len(dels) > 0 {
		if err := d.index.Delete(ctx, dels); err != nil {
			return 0, fmt.Errorf("delete %d documents: %w", len(dels), err)
		}
	}
	if err := d.outbox.AckSearchOutbox(ctx, seqs); err != nil {
		return 0, err
	}
	return len(seqs), nil
}

// Flush drains until the outbox is empty, for tests and shutdown.
func (d *Drainer) Flush(ctx context.Context) error {
	for {
		n, err := d.DrainOnce(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			_, urns, err := d.outbox.ReadSearchOutbox(ctx, 1)
			if err != nil {
				return err
			}
			if len(urns) == 0 {
				if f, ok := d.index.(interface{ Flush(context.Context) error }); ok {
					return f.Flush(ctx)
				}
				return nil
			}
			time.Sleep(20 * time.Millisecond) // another replica holds the lock
		}
	}
}
