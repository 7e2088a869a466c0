package search

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
)

// DocWriter is implemented by in-store engines: it replaces and deletes
// documents inside a store transaction, so that they commit or roll back with
// the aspects they were built from.
type DocWriter interface {
	WriteDocuments(ctx context.Context, tx catalog.Tx, upserts []catalog.Document, deletes []string) error
}

// LatestTimeseriesReader is implemented by stores that read the newest value
// of several timeseries aspects of several entities in one query. Readers
// without it are asked once per entity and aspect.
type LatestTimeseriesReader interface {
	LatestTimeseries(ctx context.Context, urns, aspects []string) ([]catalog.TimeseriesValue, error)
}

// Documents builds the documents of urns from what r reads. URNs with no
// stored aspect (deleted entities) or of unknown types are returned in
// deletes.
func (b *Builder) Documents(ctx context.Context, r catalog.Reader, urns []string) (docs []catalog.Document, deletes []string, err error) {
	latest, err := r.LatestAspects(ctx, urns, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("read aspects to index: %w", err)
	}
	return b.documentsFrom(ctx, r, entities(urns, latest))
}

// documentsFrom builds the documents of entities from their latest
// aspects, already read (decoded or not), and their latest timeseries
// values, read from r.
func (b *Builder) documentsFrom(ctx context.Context, r catalog.Reader, entities []ingest.Entity) (docs []catalog.Document, deletes []string, err error) {
	series, err := b.seriesOf(ctx, r, entities)
	if err != nil {
		return nil, nil, err
	}
	return b.build(entities, series)
}

// seriesOf reads the latest timeseries values of the entities that have
// aspects.
func (b *Builder) seriesOf(ctx context.Context, r catalog.Reader, entities []ingest.Entity) (map[string][]catalog.TimeseriesValue, error) {
	urns := make([]string, len(entities))
	has := make(map[string]bool, len(entities))
	for i, e := range entities {
		urns[i] = e.URN
		has[e.URN] = len(e.Aspects) > 0
	}
	return b.latestSeries(ctx, r, urns, func(u string) bool { return has[u] })
}

// build makes the documents of entities; those without aspects, or of an
// unknown type, are returned as deletes.
func (b *Builder) build(entities []ingest.Entity, series map[string][]catalog.TimeseriesValue) (docs []catalog.Document, dels []string, err error) {
	for _, e := range entities {
		doc, ok, err := b.BuildLatest(e.URN, e.Aspects, series[e.URN])
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			dels = append(dels, e.URN)
			continue
		}
		docs = append(docs, doc)
	}
	return docs, dels, nil
}

// entities pairs each of urns with its aspects in latest.
func entities(urns []string, latest map[string][]catalog.Aspect) []ingest.Entity {
	out := make([]ingest.Entity, len(urns))
	for i, u := range urns {
		out[i].URN = u
		out[i].Aspects = make([]ingest.LatestAspect, len(latest[u]))
		for j, a := range latest[u] {
			out[i].Aspects[j].Aspect = a
		}
	}
	return out
}

// latestSeries reads the newest value of each searchable timeseries aspect
// of the entities that have stored aspects.
func (b *Builder) latestSeries(ctx context.Context, r catalog.Reader, urns []string, stored func(urn string) bool) (map[string][]catalog.TimeseriesValue, error) {
	out := map[string][]catalog.TimeseriesValue{}
	var want []string
	aspectSet := map[string]bool{}
	for _, u := range urns {
		if !stored(u) {
			continue
		}
		names := b.timeseries[b.EntityOf(u)]
		if len(names) == 0 {
			continue
		}
		want = append(want, u)
		for _, n := range names {
			aspectSet[n] = true
		}
	}
	if len(want) == 0 {
		return out, nil
	}
	aspects := make([]string, 0, len(aspectSet))
	for n := range aspectSet {
		aspects = append(aspects, n)
	}
	sort.Strings(aspects)
	if lr, ok := r.(LatestTimeseriesReader); ok {
		vals, err := lr.LatestTimeseries(ctx, want, aspects)
		if err != nil {
			return nil, fmt.Errorf("read timeseries to index: %w", err)
		}
		for _, v := range vals {
			out[v.URN] = append(out[v.URN], v)
		}
		return out, nil
	}
	for _, u := range want {
		for _, a := range b.timeseries[b.EntityOf(u)] {
			vals, err := r.Timeseries(ctx, catalog.TimeseriesQuery{URN: u, Aspect: a, Limit: 1})
			if err != nil {
				return nil, fmt.Errorf("read timeseries %s of %s to index: %w", a, u, err)
			}
			out[u] = append(out[u], vals...)
		}
	}
	return out, nil
}

// StoreIndexer is the ingest.Indexer of an in-store engine: it rebuilds the
// documents of the written entities inside the write transaction.
type StoreIndexer struct {
	b *Builder
	w DocWriter
}

// NewStoreIndexer returns an indexer writing documents built by b through w.
func NewStoreIndexer(b *Builder, w DocWriter) *StoreIndexer { return &StoreIndexer{b: b, w: w} }

// Reindex rebuilds the documents of urns from what tx sees.
func (x *StoreIndexer) Reindex(ctx context.Context, tx catalog.Tx, urns []string) error {
	docs, dels, err := x.b.Documents(ctx, tx, urns)
	if err != nil {
		return err
	}
	return x.w.WriteDocuments(ctx, tx, docs, dels)
}

// IndexEntities rebuilds the documents of entities from the latest aspects
// the write holds (ingest.EntityIndexer): only the latest timeseries values
// are read from tx.
func (x *StoreIndexer) IndexEntities(ctx context.Context, tx catalog.Tx, entities []ingest.Entity) error {
	finish, err := x.StartIndexing(ctx, tx, entities)
	if err != nil {
		return err
	}
	return finish(ctx, true)
}

// StartIndexing is IndexEntities in two steps (ingest.BackgroundIndexer):
// when the engine prepares documents apart from writing them (DocPreparer),
// they are built and prepared on another goroutine until finish.
//
// The entities are built in small chunks, claimed in turn by that goroutine
// and, once the transaction's other writes are done, by finish itself: a
// finish that only waited held the store's single writer idle whenever the
// other goroutine was slower.
func (x *StoreIndexer) StartIndexing(ctx context.Context, tx catalog.Tx, entities []ingest.Entity) (finish func(ctx context.Context, write bool) error, err error) {
	series, err := x.b.seriesOf(ctx, tx, entities)
	if err != nil {
		return nil, err
	}
	return x.start(tx, entities, series), nil
}

// start is StartIndexing with the entities' latest timeseries values read.
func (x *StoreIndexer) start(tx catalog.Tx, entities []ingest.Entity, series map[string][]catalog.TimeseriesValue) (finish func(ctx context.Context, write bool) error) {
	p, ok := x.w.(DocPreparer)
	if !ok {
		return func(ctx context.Context, write bool) error {
			if !write {
				return nil
			}
			docs, dels, err := x.b.build(entities, series)
			if err != nil {
				return err
			}
			return x.w.WriteDocuments(ctx, tx, docs, dels)
		}
	}
	c := x.chunked(p, entities, series)
	go c.work()
	return x.finisher(p, c, tx)
}

// chunked returns the build of entities' documents, to be shared by the
// goroutines that call its work method.
func (x *StoreIndexer) chunked(p DocPreparer, entities []ingest.Entity, series map[string][]catalog.TimeseriesValue) *chunkedBuild {
	return newChunkedBuild(len(entities), func(lo, hi int) (part builtPart) {
		defer func() {
			// A panic here would end the process, not just the request.
			if r := recover(); r != nil {
				part.err = fmt.Errorf("build search documents: %v", r)
			}
		}()
		var docs []catalog.Document
		if docs, part.dels, part.err = x.b.build(entities[lo:hi], series); part.err == nil {
			part.docs = p.PrepareDocuments(docs)
		}
		return part
	})
}

// finisher returns the finish function of StartIndexing for build c.
func (x *StoreIndexer) finisher(p DocPreparer, c *chunkedBuild, tx catalog.Tx) func(ctx context.Context, write bool) error {
	return func(ctx context.Context, write bool) error {
		if !write {
			c.abandon()
			return nil
		}
		parts := c.finish()
		docs := make([]PreparedDocuments, 0, len(parts))
		var dels []string
		for _, part := range parts {
			if part.err != nil {
				return part.err
			}
			docs = append(docs, part.docs)
			dels = append(dels, part.dels...)
		}
		return p.WritePrepared(ctx, tx, p.JoinPrepared(docs), dels)
	}
}

// Prebuild implements ingest.Prebuilder: it starts building the documents
// on another goroutine, with the timeseries values r holds.
func (x *StoreIndexer) Prebuild(ctx context.Context, r catalog.Reader, entities []ingest.Entity) ingest.Prebuilt {
	p, ok := x.w.(DocPreparer)
	if !ok {
		return nil
	}
	series, err := x.b.seriesOf(ctx, r, entities)
	if err != nil {
		return nil
	}
	c := x.chunked(p, entities, series)
	go c.work()
	return &prebuilt{x: x, p: p, entities: entities, series: series, c: c}
}

// prebuilt is documents StoreIndexer.Prebuild is building.
type prebuilt struct {
	x        *StoreIndexer
	p        DocPreparer
	entities []ingest.Entity
	series   map[string][]catalog.TimeseriesValue
	c        *chunkedBuild
}

// Start uses the documents when the entities' latest timeseries values,
// which documents include, are the same in tx.
func (b *prebuilt) Start(ctx context.Context, tx catalog.Tx) (func(ctx context.Context, write bool) error, error) {
	series, err := b.x.b.seriesOf(ctx, tx, b.entities)
	if err != nil {
		b.c.abandon()
		return nil, err
	}
	if !sameSeries(series, b.series) {
		b.c.abandon()
		return b.x.start(tx, b.entities, series), nil
	}
	return b.x.finisher(b.p, b.c, tx), nil
}

func (b *prebuilt) Discard() { b.c.abandon() }

// sameSeries reports whether two readings of seriesOf are equal.
func sameSeries(x, y map[string][]catalog.TimeseriesValue) bool {
	if len(x) != len(y) {
		return false
	}
	for u, xs := range x {
		ys, ok := y[u]
		if !ok || !slices.EqualFunc(xs, ys, func(a, b catalog.TimeseriesValue) bool {
			return a.URN == b.URN && a.Entity == b.Entity && a.Aspect == b.Aspect && a.TimestampMillis == b.TimestampMillis &&
				a.Partition == b.Partition && a.MessageID == b.MessageID &&
				bytes.Equal(a.Value, b.Value) && bytes.Equal(a.SystemMetadata, b.SystemMetadata)
		}) {
			return false
		}
	}
	return true
}

// buildChunk is how many entities a builder claims at a time: few, so
// that finish rarely waits for a chunk another goroutine is still building.
const buildChunk = 2

// builtPart is the prepared documents of a chunk of entities.
type builtPart struct {
	docs PreparedDocuments
	dels []string
	err  error
}

// chunkedBuild shares the building of n entities, in chunks, among the
// goroutines that call work.
type chunkedBuild struct {
	n, chunks int
	build     func(lo, hi int) builtPart
	parts     []builtPart
	next      atomic.Int64 // the next chunk to claim
	stopped   atomic.Bool  // abandoned: chunks claimed from now on are skipped
	done      sync.WaitGroup
}

func newChunkedBuild(n int, build func(lo, hi int) builtPart) *chunkedBuild {
	chunks := (n + buildChunk - 1) / buildChunk
	c := &chunkedBuild{n: n, chunks: chunks, build: build, parts: make([]builtPart, chunks)}
	c.done.Add(chunks)
	return c
}

// work builds chunks until none is left to claim.
func (c *chunkedBuild) work() {
	for {
		i := int(c.next.Add(1)) - 1
		if i >= c.chunks {
			return
		}
		if !c.stopped.Load() {
			c.parts[i] = c.build(i*buildChunk, min((i+1)*buildChunk, c.n))
		}
		c.done.Done()
	}
}

// finish builds what is left and returns every chunk's part, in order.
func (c *chunkedBuild) finish() []builtPart {
	c.work()
	c.done.Wait()
	return c.parts
}

// abandon skips the chunks not yet claimed and waits for those being
// built, which read the caller's entities.
func (c *chunkedBuild) abandon() {
	c.stopped.Store(true)
	c.work()
	c.done.Wait()
}

// DocPreparer is implemented by in-store engines that convert documents to
// their rows apart from writing them, so that the conversion can run while
// the transaction does other work.
type DocPreparer interface {
	// PrepareDocuments converts documents to what WritePrepared and
	// InsertPrepared write; of several documents of one URN the last
	// counts. It needs no transaction and is safe for concurrent use.
	PrepareDocuments(docs []catalog.Document) PreparedDocuments
	// JoinPrepared returns the documents of parts, in order, as one; of
	// several documents of one URN the last counts.
	JoinPrepared(parts []PreparedDocuments) PreparedDocuments
	// WritePrepared is WriteDocuments for prepared documents.
	WritePrepared(ctx context.Context, tx catalog.Tx, docs PreparedDocuments, deletes []string) error
}

// DocResetter is implemented by in-store engines that can empty the index
// and then add documents without first removing old ones, which a full
// rebuild uses to write several times faster.
type DocResetter interface {
	// A rebuild prepares the next batch while the current one is written.
	DocPreparer
	ResetDocuments(ctx context.Context, tx catalog.Tx) error
	// InsertPrepared adds prepared documents that are not in the index.
	InsertPrepared(ctx context.Context, tx catalog.Tx, docs PreparedDocuments) error
	// FinishReset completes a rebuild after its last InsertPrepared, or
	// after it failed: what ResetDocuments set aside to write faster (an
	// index built once at the end rather than row by row) is restored. It
	// runs in transactions of its own.
	FinishReset(ctx context.Context) error
}

// PreparedDocuments are documents converted by an engine for writing; only
// the engine that prepared them reads them.
type PreparedDocuments any

// IndexLoaded rebuilds documents from aspects the caller already read
// (a restore scanning the aspect table), sparing a second read.
func (x *StoreIndexer) IndexLoaded(ctx context.Context, tx catalog.Tx, entities []ingest.Entity) error {
	docs, dels, err := x.b.documentsFrom(ctx, tx, entities)
	if err != nil {
		return err
	}
	return x.w.WriteDocuments(ctx, tx, docs, dels)
}

// Reset empties the index when the engine supports it, reporting whether
// it did.
func (x *StoreIndexer) Reset(ctx context.Context, tx catalog.Tx) (bool, error) {
	r, ok := x.w.(DocResetter)
	if !ok {
		return false, nil
	}
	return true, r.ResetDocuments(ctx, tx)
}

// OutboxTx is implemented by store transactions that can record URNs whose
// documents an external engine must rebuild.
type OutboxTx interface {
	AppendSearchOutbox(ctx context.Context, urns []string) error
}

// OutboxIndexer is the ingest.Indexer of an external engine: inside the
// write transaction it only appends the URNs to the outbox, so that a
// committed write is never lost by the index and a rolled-back one never
// reaches it. A Drainer does the indexing after commit.
type OutboxIndexer struct {
	// Kick, when set, is called after each append to wake the drainer early.
	Kick func()
}

// Reindex appends urns to the outbox of tx.
func (x *OutboxIndexer) Reindex(ctx context.Context, tx catalog.Tx, urns []string) error {
	ot, ok := tx.(OutboxTx)
	if !ok {
		return fmt.Errorf("search outbox: store transaction %T has no outbox", tx)
	}
	if err := ot.AppendSearchOutbox(ctx, urns); err != nil {
		return err
	}
	if x.Kick != nil {
		x.Kick()
	}
	return nil
}

var _ ingest.EntityIndexer = (*StoreIndexer)(nil)
