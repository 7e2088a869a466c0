package client

import (
	"context"
	"fmt"
	"sync"
)

// DefaultBatchSize is the number of proposals per request DataHub's emitter
// uses for ingestProposalBatch.
const DefaultBatchSize = 200

// Emitter batches proposals into ingestProposalBatch requests. Emit buffers
// and sends a full batch at once; Flush sends what is buffered. Each batch is
// applied atomically by the server and retried as the Client retries. An
// Emitter is safe for concurrent use; batches are sent one at a time, in
// order.
type Emitter struct {
	c    *Client
	size int

	mu  sync.Mutex
	buf []Proposal
}

// NewEmitter returns an Emitter sending batches of size proposals (at most
// DefaultBatchSize when size <= 0; 1 sends every proposal on its own).
func (c *Client) NewEmitter(size int) *Emitter {
	if size <= 0 {
		size = DefaultBatchSize
	}
	return &Emitter{c: c, size: size}
}

// Emit queues props, sending every batch that fills up. On an error the
// proposals of the failed batch are dropped, and those not yet sent stay queued.
func (e *Emitter) Emit(ctx context.Context, props ...Proposal) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buf = append(e.buf, props...)
	for len(e.buf) >= e.size {
		if err := e.sendLocked(ctx, e.size); err != nil {
			return err
		}
	}
	return nil
}

// EmitEntity queues the proposals Upsert would send for ent. Its proposals
// can end up in different batches, so they are not applied atomically.
func (e *Emitter) EmitEntity(ctx context.Context, ent *Entity) error {
	props, err := ent.proposals(true)
	if err != nil {
		return err
	}
	return e.Emit(ctx, props...)
}

// Flush sends every queued proposal.
func (e *Emitter) Flush(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.buf) > 0 {
		if err := e.sendLocked(ctx, min(e.size, len(e.buf))); err != nil {
			return err
		}
	}
	return nil
}

func (e *Emitter) sendLocked(ctx context.Context, n int) error {
	batch := e.buf[:n]
	err := e.c.Send(ctx, batch)
	e.buf = append(e.buf[:0], e.buf[n:]...)
	if err != nil {
		return fmt.Errorf("emit batch of %d proposals: %w", n, err)
	}
	return nil
}
