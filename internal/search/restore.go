package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
)

// RestoreArgs selects the stored rows restoreIndices rebuilds, as DataHub
// names them.
type RestoreArgs struct {
	URN       string
	URNLike   string // SQL LIKE pattern
	Aspect    string
	Start     int // row offset in (urn, aspect) order; default 0
	BatchSize int // rows; default 10
}

// RestoreResult reports what a restore did.
type RestoreResult struct {
	Args     RestoreArgs
	Rows     int // rows whose documents and edges were rebuilt
	Ignored  int // rows of unknown entity types or aspects
	Entities int // documents rebuilt
	SQLTime  time.Duration
	Took     time.Duration
}

// String formats the result the way DataHub's restoreIndices answers (a
// Java Map.toString of args and result), which clients only log.
func (r RestoreResult) String() string {
	a := r.Args
	null := func(s string) string {
		if s == "" {
			return "null"
		}
		return s
	}
	return fmt.Sprintf("{args=RestoreIndicesArgs(start=%d, batchSize=%d, aspectName=%s, urn=%s, urnLike=%s), result=RestoreIndicesResult(ignored=%d, rowsMigrated=%d, entities=%d, timeSqlQueryMs=%d, timeTakenMs=%d)}",
		a.Start, a.BatchSize, null(a.Aspect), null(a.URN), null(a.URNLike),
		r.Ignored, r.Rows, r.Entities, r.SQLTime.Milliseconds(), r.Took.Milliseconds())
}

// Indexer is what the ingest pipeline calls (ingest.Indexer).
type Indexer interface {
	Reindex(ctx context.Context, tx catalog.Tx, urns []string) error
}

// Restorer rebuilds search documents and graph edges from the store.
type Restorer struct {
	reg   *registry.Registry
	store catalog.Store
	idx   Indexer
}

// NewRestorer returns a Restorer writing through idx (a StoreIndexer or an
// OutboxIndexer).
func NewRestorer(reg *registry.Registry, store catalog.Store, idx Indexer) *Restorer {
	return &Restorer{reg: reg, store: store, idx: idx}
}

// Restore rebuilds the documents and edges of the rows args selects.
func (r *Restorer) Restore(ctx context.Context, args RestoreArgs) (RestoreResult, error) {
	start := time.Now()
	if args.Start < 0 || args.BatchSize < 0 {
		return RestoreResult{}, catalog.Errorf(catalog.Invalid, "start and batchSize must not be negative")
	}
	if args.BatchSize == 0 {
		args.BatchSize = 10
	}
	res := RestoreResult{Args: args}
	rows, err := r.store.ScanLatest(ctx, catalog.ScanQuery{URN: args.URN, URNLike: args.URNLike, Aspect: args.Aspect, Offset: args.Start, Limit: args.BatchSize})
	if err != nil {
		return res, fmt.Errorf("restore indices: %w", err)
	}
	res.SQLTime = time.Since(start)
	if err := r.apply(ctx, rows, &res, false); err != nil {
		return res, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// rowScanner is implemented by stores that page through the latest rows by
// key rather than by offset, which keeps a full rebuild linear.
type rowScanner interface {
	catalog.Reader
	ScanLatestAfter(ctx context.Context, afterURN string, limit int) ([]catalog.Aspect, error)
	CountLatest(ctx context.Context) (int, error)
}

// RestoreAll rebuilds every document and edge, batch rows at a time,
// reporting progress (rows done of total) after each batch.
func (r *Restorer) RestoreAll(ctx context.Context, batch int, progress func(done, total int)) (RestoreResult, error) {
	start := time.Now()
	if batch <= 0 {
		batch = 5000
	}
	res := RestoreResult{Args: RestoreArgs{BatchSize: batch}}
	sc, ok := r.store.(rowScanner)
	if !ok {
		for off := 0; ; off += batch {
			rows, err := r.store.ScanLatest(ctx, catalog.ScanQuery{Offset: off, Limit: batch})
			if err != nil {
				return res, fmt.Errorf("restore indices: %w", err)
			}
			if len(rows) == 0 {
				break
			}
			if err := r.apply(ctx, rows, &res, false); err != nil {
				return res, err
			}
			if progress != nil {
				progress(res.Rows+res.Ignored, -1)
			}
		}
		res.Took = time.Since(start)
		return res, nil
	}
	total, err := sc.CountLatest(ctx)
	if err != nil {
		return res, fmt.Errorf("restore indices: %w", err)
	}
	// An in-store index is emptied first and refilled without per-document
	// deletes: searches during the rebuild see it partly filled.
	fresh := false
	si, _ := r.idx.(*StoreIndexer)
	if si != nil {
		if err := r.store.Update(ctx, func(tx catalog.Tx) error {
			var err error
			fresh, err = si.Reset(ctx, tx)
			return err
		}); err != nil {
			return res, fmt.Errorf("restore indices: reset the index: %w", err)
		}
	}
	// Reading the next batch overlaps with indexing the current one.
	pages := make(chan page, 1)
	ctx, cancel := context.WithCancel(ctx)
	// The scanner reads the store: it has ended when RestoreAll returns,
	// also after a failure, so that the caller may close the store.
	var scanner sync.WaitGroup
	defer func() {
		cancel()
		scanner.Wait()
	}()
	scanner.Go(func() {
		defer close(pages)
		after := ""
		for {
			rows, err := sc.ScanLatestAfter(ctx, after, batch)
			if err != nil {
				send(ctx, pages, page{err: err})
				return
			}
			if len(rows) == 0 {
				return
			}
			last := rows[len(rows)-1].URN
			if len(rows) == batch {
				// The last URN's rows may continue in the next page: keep
				// them for it, unless the page holds nothing else.
				cut := len(rows)
				for cut > 0 && rows[cut-1].URN == last {
					cut--
				}
				if cut > 0 {
					rows = rows[:cut]
					last = rows[cut-1].URN
				} else {
					// One entity fills the page: read all of its rows.
					rows, err = sc.ScanLatest(ctx, catalog.ScanQuery{URN: last})
					if err != nil {
						send(ctx, pages, page{err: err})
						return
					}
				}
			}
			if !send(ctx, pages, page{rows: rows}) {
				return
			}
			after = last
		}
	})
	if fresh {
		err := r.pipeline(ctx, si, pages, &res, func() {
			if progress != nil {
				progress(res.Rows+res.Ignored, total)
			}
		})
		// Also after a failure, so that the index works with what it got.
		if ferr := si.w.(DocResetter).FinishReset(context.WithoutCancel(ctx)); err == nil && ferr != nil {
			err = fmt.Errorf("restore indices: %w", ferr)
		}
		if err != nil {
			return res, err
		}
		res.Took = time.Since(start)
		return res, nil
	}
	for p := range pages {
		if p.err != nil {
			return res, fmt.Errorf("restore indices: %w", p.err)
		}
		if err := r.apply(ctx, p.rows, &res, true); err != nil {
			return res, err
		}
		if progress != nil {
			progress(res.Rows+res.Ignored, total)
		}
	}
	// The scanner also stops, without an error, when ctx ends: the rows
	// then end early.
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("restore indices: %w", err)
	}
	res.Took = time.Since(start)
	return res, nil
}

// page is a batch of rows read by RestoreAll's scanner.
type page struct {
	rows []catalog.Aspect
	err  error
}

// send sends p on pages unless ctx ends first (the reader has given up),
// and reports whether it did.
func send(ctx context.Context, pages chan<- page, p page) bool {
	select {
	case pages <- p:
		return true
	case <-ctx.Done():
		return false
	}
}

// pipeline writes a rebuild of a reset in-store index: while one batch is
// written, the next batches' edges are decoded and their documents built
// and converted to rows outside the write transaction, on as many
// goroutines as there are cores. Built on one goroutine and written one
// batch at a time, the documents of a PostgreSQL restore of 800,000
// aspects took 48 s to go in while the database's backends used less than
// half a core.
func (r *Restorer) pipeline(ctx context.Context, si *StoreIndexer, pages <-chan page, res *RestoreResult, progress func()) error {
	dr, ok := si.w.(DocResetter)
	if !ok {
		return fmt.Errorf("restore indices: engine %T cannot insert prepared documents", si.w)
	}
	type prepared struct {
		loaded
		docs PreparedDocuments
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	// The goroutines building documents read the store: they have ended
	// when pipeline returns, also after a failure, so that the caller may
	// close the store.
	var building sync.WaitGroup
	defer func() {
		cancel()
		building.Wait()
	}()
	const writers = 2
	workers := max(1, runtime.GOMAXPROCS(0))
	// Each page's result comes through a channel of its own, queued in
	// page order.
	out := make(chan chan prepared, workers)
	building.Go(func() {
		defer close(out)
		sem := make(chan struct{}, workers)
		for {
			var p page
			select {
			case next, ok := <-pages:
				if !ok {
					return
				}
				p = next
			case <-ctx.Done():
				return
			}
			done := make(chan prepared, 1)
			select {
			case out <- done:
			case <-ctx.Done():
				return
			}
			if p.err != nil {
				done <- prepared{err: fmt.Errorf("restore indices: %w", p.err)}
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			building.Go(func() {
				defer func() { <-sem }()
				var b prepared
				if b.loaded, b.err = r.load(p.rows); b.err == nil && len(b.entities) > 0 {
					docs, _, err := si.b.documentsFrom(ctx, r.store, b.entities)
					if err != nil {
						b.err = fmt.Errorf("restore indices: %w", err)
					} else {
						b.docs = dr.PrepareDocuments(docs)
					}
				}
				done <- b
			})
		}
	})
	// Two batches are written at once, on two connections: a batch's
	// transaction alternates between encoding rows here and the database
	// taking them in, and one at a time left both cores half idle.
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next := range out {
				var b prepared
				select {
				case b = <-next:
				case <-ctx.Done():
					return
				}
				if b.err != nil {
					fail(b.err)
					return
				}
				if len(b.entities) > 0 {
					if err := r.store.Update(ctx, func(tx catalog.Tx) error {
						if len(b.edges) > 0 {
							if err := tx.ReplaceEdges(ctx, b.edges); err != nil {
								return err
							}
						}
						return dr.InsertPrepared(ctx, tx, b.docs)
					}); err != nil {
						fail(err)
						return
					}
				}
				mu.Lock()
				res.Rows += b.rows
				res.Ignored += b.ignored
				res.Entities += len(b.entities)
				progress()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// loaded is a batch of rows grouped for indexing.
type loaded struct {
	entities      []ingest.Entity
	edges         []catalog.EdgeSet
	rows, ignored int
}

// load groups rows by entity and derives the edges of their aspects,
// keeping the values it decodes for the documents; rows of unknown entity
// types or aspects are counted as ignored.
func (r *Restorer) load(rows []catalog.Aspect) (loaded, error) {
	var l loaded
	at := map[string]int{} // index in l.entities
	for _, row := range rows {
		u, err := catalog.ParseURN(row.URN)
		ent := (*catalog.EntitySpec)(nil)
		if err == nil {
			ent = r.reg.Entity(u.EntityType())
		}
		spec := r.reg.Aspect(row.Name)
		if ent == nil || spec == nil {
			l.ignored++
			continue
		}
		l.rows++
		i, ok := at[row.URN]
		if !ok {
			i = len(l.entities)
			at[row.URN] = i
			l.entities = append(l.entities, ingest.Entity{URN: row.URN})
		}
		la := ingest.LatestAspect{Aspect: row}
		if len(spec.Relationships) > 0 {
			v, ok := fastjson.Decode(row.Value)
			if !ok {
				d := json.NewDecoder(bytes.NewReader(row.Value))
				d.UseNumber()
				if err := d.Decode(&v); err != nil {
					return l, fmt.Errorf("restore indices: decode %s of %s: %w", row.Name, row.URN, err)
				}
			}
			l.edges = append(l.edges, catalog.EdgeSet{URN: row.URN, Aspect: row.Name, Edges: ingest.Edges(row.URN, spec, v, row.Created)})
			la.Decoded = v
		}
		l.entities[i].Aspects = append(l.entities[i].Aspects, la)
	}
	return l, nil
}

// apply rebuilds, in one transaction, the edges of rows and the documents of
// their entities. complete says that rows hold every latest aspect of each
// of their URNs, so documents can be built without reading them again.
func (r *Restorer) apply(ctx context.Context, rows []catalog.Aspect, res *RestoreResult, complete bool) error {
	l, err := r.load(rows)
	res.Rows += l.rows
	res.Ignored += l.ignored
	if err != nil {
		return err
	}
	if len(l.entities) == 0 {
		return nil
	}
	res.Entities += len(l.entities)
	return r.store.Update(ctx, func(tx catalog.Tx) error {
		if len(l.edges) > 0 {
			if err := tx.ReplaceEdges(ctx, l.edges); err != nil {
				return err
			}
		}
		if si, ok := r.idx.(*StoreIndexer); ok && complete {
			return si.IndexLoaded(ctx, tx, l.entities)
		}
		urns := make([]string, len(l.entities))
		for i, e := range l.entities {
			urns[i] = e.URN
		}
		return r.idx.Reindex(ctx, tx, urns)
	})
}
