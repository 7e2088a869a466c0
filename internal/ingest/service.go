package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/registry"
)

// DefaultRunID is the run id DataHub records when a writer gives none.
const DefaultRunID = "no-run-id-provided"

// Indexer keeps derived indexes (search documents) in step with the store.
// It is called inside the write transaction with the URNs whose aspects
// changed, after all of the request's writes, so that an index kept in the
// same database commits or rolls back with them.
type Indexer interface {
	Reindex(ctx context.Context, tx catalog.Tx, urns []string) error
}

// EntityIndexer is implemented by indexers that build documents from the
// latest aspects the write already holds, sparing a read back of what it
// just wrote and a second decoding of the values it decoded. The service
// prefers it to Reindex for ingest.
type EntityIndexer interface {
	Indexer
	// IndexEntities updates the documents of entities, inside tx. An entity
	// with no aspects was deleted.
	IndexEntities(ctx context.Context, tx catalog.Tx, entities []Entity) error
}

// BackgroundIndexer is an EntityIndexer that builds documents while the
// write goes on: on SQLite one transaction writes at a time, so building
// the documents (interpreting annotations, tokenizing) on another core while
// the writer inserts aspects, edges and audit rows shortens every write.
type BackgroundIndexer interface {
	EntityIndexer
	// StartIndexing reads from tx what the documents of entities need
	// besides their aspects, then builds them on another goroutine, which
	// reads entities but neither tx nor anything the caller changes until
	// finish returns. finish waits for the documents and, when write is
	// true, writes them into tx, reporting an error of building or writing
	// them; with write false (the write failed) it only waits. It must be
	// called exactly once, before the transaction ends.
	StartIndexing(ctx context.Context, tx catalog.Tx, entities []Entity) (finish func(ctx context.Context, write bool) error, err error)
}

// Prebuilder is a BackgroundIndexer that can also build documents before
// the write transaction begins (see WithPlanAhead).
type Prebuilder interface {
	BackgroundIndexer
	// Prebuild starts building the documents of entities, reading from r
	// what they need besides their aspects (as StartIndexing reads it from
	// a transaction). It reads entities, and neither changes them nor
	// keeps them past Start or Discard. It returns nil when it cannot
	// build ahead.
	Prebuild(ctx context.Context, r catalog.Reader, entities []Entity) Prebuilt
}

// Prebuilt is documents being built ahead of a transaction. Exactly one of
// its methods is called, once.
type Prebuilt interface {
	// Start is StartIndexing, in tx, for the entities given to Prebuild:
	// the prebuilt documents are written when what they were built from
	// besides the entities is the same in tx, and documents are built
	// afresh otherwise.
	Start(ctx context.Context, tx catalog.Tx) (finish func(ctx context.Context, write bool) error, err error)
	// Discard stops the building and waits for it to end.
	Discard()
}

// CurrentReader reads what Tx.Current reads, outside a transaction.
type CurrentReader interface {
	Current(ctx context.Context, urns []string) (map[string]map[string]catalog.Current, error)
}

// Entity is the state of one entity at the end of a write: every latest
// (non-timeseries) aspect, as tx now holds it.
type Entity struct {
	URN     string
	Aspects []LatestAspect
}

// LatestAspect is one latest aspect of an Entity.
type LatestAspect struct {
	catalog.Aspect
	// Decoded is Value decoded as JSON with numbers kept exact
	// (json.Number), when the writer holds it; nil means decode Value.
	// Readers must not modify it.
	Decoded any
}

// Change is one aspect change of a write, as the audit log and the
// authorizer see it.
type Change struct {
	URN, EntityType, Aspect string
	Deleted                 bool // a DELETE: the aspect, or with the key aspect the entity
	Key                     bool // Aspect is the entity's key aspect
}

// Auditor records the changes a write made, inside its transaction, so that
// the audit log commits or rolls back with them. at is the write's time in
// epoch ms.
type Auditor interface {
	RecordChanges(ctx context.Context, tx catalog.Tx, actor string, at int64, changes []Change) error
}

// AspectChange is one change of a versioned aspect's latest value, with the
// values before and after it, or one timeseries value written (with no
// value before it), for change recorders.
type AspectChange struct {
	URN, EntityType, Aspect string
	// Previous is the value before the change, nil when the aspect did not
	// exist.
	Previous json.RawMessage
	// Value is the value after the change, nil when the aspect (or, for
	// the key aspect, the entity) was deleted.
	Value json.RawMessage
	// Created is who made the change and when.
	Created catalog.AuditStamp
}

// ChangeRecorder records the changes a write made to aspects, with their
// values before and after, inside its transaction, so that
// the record commits or rolls back with them. It works in two steps so
// that the costly one can run before the transaction: EncodeChanges turns
// changes into a record, RecordChanges writes records. Readers must not
// modify the values.
type ChangeRecorder interface {
	// RecordsAspect reports whether changes of the named aspect are
	// recorded; the writer collects no others.
	RecordsAspect(aspect string) bool
	// EncodeChanges makes the record of changes, in the order given. For
	// a request planned ahead of its transaction (WithPlanAhead) it runs
	// before the transaction, and the record is dropped when the plan is.
	EncodeChanges(changes []AspectChange) (EncodedChanges, error)
	// RecordChanges writes the records of a write, in order, last in its
	// transaction; it is called when the write changed recorded aspects.
	RecordChanges(ctx context.Context, tx catalog.Tx, records []EncodedChanges) error
}

// EncodedChanges is a record a ChangeRecorder made, opaque to the writer.
type EncodedChanges any

// Authorizer decides, before anything is written, whether actor may make the
// changes a request asks for; a refusal is a Forbidden error.
type Authorizer interface {
	AuthorizeChanges(ctx context.Context, actor string, changes []Change) error
}

// Observer learns of the outcome of each request once it is decided, for
// metrics. It is called after the transaction, and must not block.
type Observer interface {
	// Committed reports a request of n proposals that committed changes
	// (none when every value was unchanged).
	Committed(n int, changes []Change)
	// Failed reports a request of n proposals that failed with err;
	// nothing of it was written.
	Failed(n int, err error)
}

// Service applies proposals. It is safe for concurrent use.
type Service struct {
	reg     *registry.Registry
	store   catalog.Store
	indexer Indexer
	// auditor and authorizer are optional hooks (audit log, access
	// control); the CLI's local loader runs without them.
	auditors   []Auditor
	authorizer Authorizer
	observer   Observer
	changes    ChangeRecorder
	now        func() time.Time
	schemas    schemaCache // parsed aspect schemas, for PATCH
	// ahead reads the state requests are planned against (WithPlanAhead);
	// nil when they are not.
	ahead CurrentReader
	// inflight counts, for each URN, the requests that write it and have
	// not finished; a request that shares a URN with one of them is not
	// planned, since that one would most likely change the URN's state
	// before this one's transaction and the plan be wasted.
	inflightMu sync.Mutex
	inflight   map[string]int
	// keyed finds what names a deleted entity besides the graph's edges;
	// nil when nothing does.
	keyed KeyedReferenceFinder
}

// Option configures a Service.
type Option func(*Service)

// WithIndexer makes the service update idx in every write transaction.
func WithIndexer(idx Indexer) Option { return func(s *Service) { s.indexer = idx } }

// WithAuditor makes the service report every change to a, in the write
// transaction. Given several times, every auditor is called, in order.
func WithAuditor(a Auditor) Option { return func(s *Service) { s.auditors = append(s.auditors, a) } }

// WithChangeRecorder makes the service report the changes of every write
// to r, last in the write transaction.
func WithChangeRecorder(r ChangeRecorder) Option { return func(s *Service) { s.changes = r } }

// WithAuthorizer makes the service ask a before every write.
func WithAuthorizer(a Authorizer) Option { return func(s *Service) { s.authorizer = a } }

// WithObserver makes the service report the outcome of every request to o.
func WithObserver(o Observer) Option { return func(s *Service) { s.observer = o } }

// WithPlanAhead makes the service plan each request's writes, and build
// its search documents, before the write transaction, against the state
// cr reads; in the transaction the plan is used when Tx.Current shows that
// state unchanged, and the request is applied afresh otherwise. Where
// write transactions run one at a time (SQLite), that moves most of a
// request's work out of them. Requests that delete, or write timeseries
// values, are not planned.
func WithPlanAhead(cr CurrentReader) Option { return func(s *Service) { s.ahead = cr } }

// WithClock replaces the clock, for tests.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// New returns a Service writing to store, checking against reg.
func New(reg *registry.Registry, store catalog.Store, opts ...Option) *Service {
	s := &Service{reg: reg, store: store, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Result reports what Ingest did.
type Result struct {
	// URNs holds the entity URN of each proposal, in request order.
	URNs []string
	// Written counts the aspect versions and timeseries values written;
	// unchanged values are not counted.
	Written int
	// DeletedRows and DeletedTimeseriesRows count the aspect rows (every
	// version) and timeseries values the request's deletes of entities
	// removed.
	DeletedRows, DeletedTimeseriesRows int
}

// Ingest applies props as one atomic change made by actor. When the request
// holds more than one proposal, errors name the failing proposal by index.
func (s *Service) Ingest(ctx context.Context, actor string, props []catalog.Proposal) (Result, error) {
	if s.observer == nil {
		return s.ingest(ctx, actor, props, nil)
	}
	var changes []Change
	res, err := s.ingest(ctx, actor, props, &changes)
	if err != nil {
		s.observer.Failed(len(props), err)
	} else {
		s.observer.Committed(len(props), changes)
	}
	return res, err
}

// ingest is Ingest, also setting *changes, when not nil, to the changes
// committed.
func (s *Service) ingest(ctx context.Context, actor string, props []catalog.Proposal, changes *[]Change) (Result, error) {
	if actor == "" {
		actor = catalog.SystemActor
	}
	now := s.now().UnixMilli()
	prepared := make([]*prepared, len(props))
	for i := range props {
		p, err := s.prepare(&props[i], now)
		if err != nil {
			return Result{}, proposalError(i, len(props), &props[i], err)
		}
		p.index = i
		prepared[i] = p
	}
	res := Result{URNs: make([]string, len(prepared))}
	for i, p := range prepared {
		res.URNs[i] = p.urn
	}
	if s.authorizer != nil {
		changes := make([]Change, len(prepared))
		for i, p := range prepared {
			changes[i] = Change{URN: p.urn, EntityType: p.entity.Name, Aspect: p.aspect.Name, Deleted: p.change == catalog.Delete, Key: p.aspect.Name == p.entity.KeyAspect}
		}
		if err := s.authorizer.AuthorizeChanges(ctx, actor, changes); err != nil {
			return Result{}, err
		}
	}
	urns := requestURNs(prepared)
	var pl *plan
	if s.ahead != nil {
		pl = s.plan(ctx, actor, now, urns, s.enter(urns), prepared)
		defer s.leave(urns)
	}
	var deleted []string // entities deleted, whose references go
	err := s.store.Update(ctx, func(tx catalog.Tx) error {
		cur, err := tx.Current(ctx, urns)
		if err != nil {
			return err
		}
		var a *applier
		if pl != nil && sameCurrent(pl.cur, pl.current(cur)) {
			adopted := pl
			pl = nil // from here on a writes or drops its documents
			a = adopted.a
			a.tx, a.planning = tx, false
			// The proposals the plan left out, applied now.
			if err := a.run(ctx, adopted.restURNs, cur, adopted.rest); err != nil {
				adopted.discard()
				return err
			}
		} else {
			if pl != nil {
				pl.discard()
				pl = nil
			}
			a = s.newApplier(tx, actor, now, len(props), len(prepared))
			if err := a.run(ctx, urns, cur, prepared); err != nil {
				return err
			}
		}
		res.Written, err = a.write(ctx)
		res.DeletedRows, res.DeletedTimeseriesRows = a.deletedRows, a.deletedTimeseries
		deleted = a.deleted
		if changes != nil {
			*changes = a.changes
		}
		return err
	})
	if pl != nil {
		pl.discard()
	}
	if err == nil && s.keyed != nil {
		for _, u := range deleted {
			s.removeKeyedReferences(ctx, u)
		}
	}
	return res, err
}

// newApplier returns an applier for a request of n proposals.
func (s *Service) newApplier(tx catalog.Tx, actor string, now int64, total, n int) *applier {
	// Room for the writes of the proposals and the default aspects of the
	// new entities among them, without regrowing.
	return &applier{svc: s, tx: tx, actor: actor, now: now, total: total, pending: make([]catalog.AspectWrite, 0, 2*n)}
}

// enter records a request writing urns as in flight, and returns those of
// urns that other requests in flight write.
func (s *Service) enter(urns []string) (busy map[string]bool) {
	s.inflightMu.Lock()
	defer s.inflightMu.Unlock()
	if s.inflight == nil {
		s.inflight = make(map[string]int)
	}
	for _, u := range urns {
		if s.inflight[u] > 0 {
			if busy == nil {
				busy = make(map[string]bool)
			}
			busy[u] = true
		}
		s.inflight[u]++
	}
	return busy
}

// leave ends what enter recorded.
func (s *Service) leave(urns []string) {
	s.inflightMu.Lock()
	defer s.inflightMu.Unlock()
	for _, u := range urns {
		if s.inflight[u]--; s.inflight[u] <= 0 {
			delete(s.inflight, u)
		}
	}
}

// plan is a request applied ahead of its transaction (WithPlanAhead), but
// for the proposals of URNs that other requests in flight write.
type plan struct {
	a    *applier // planning: its writes are buffered, not sent
	urns []string // the URNs planned
	cur  map[string]map[string]catalog.Current
	// rest are the proposals left out, for restURNs, in request order.
	rest     []*prepared
	restURNs []string
}

func (pl *plan) discard() {
	if pl.a.pre != nil {
		pl.a.pre.Discard()
		pl.a.pre = nil
	}
}

// plan applies prepared to the state s.ahead reads, outside any
// transaction, and starts building the search documents that result,
// leaving out the proposals for the URNs in busy, which requests in flight
// also write: their commits would most likely change those URNs' state
// before this request's transaction, and the plan be wasted. It returns
// nil when the request is not planned: it deletes or writes timeseries
// values, every URN is busy, or applying it failed (the transaction then
// applies it afresh and reports the error). The caller has WithPlanAhead.
func (s *Service) plan(ctx context.Context, actor string, now int64, urns []string, busy map[string]bool, prepared []*prepared) *plan {
	for _, p := range prepared {
		// A conditional write is judged on the state its transaction sees.
		// Structured property values are checked against the
		// properties as the transaction reads them.
		if p.change == catalog.Delete || p.aspect.Timeseries || len(p.src.Headers) > 0 || p.aspect.Name == structuredPropertiesAspect {
			return nil
		}
	}
	pl := &plan{urns: urns}
	ps := prepared
	if len(busy) > 0 {
		pl.urns = nil
		for _, u := range urns {
			if busy[u] {
				pl.restURNs = append(pl.restURNs, u)
			} else {
				pl.urns = append(pl.urns, u)
			}
		}
		if len(pl.urns) == 0 {
			return nil
		}
		ps = nil
		for _, p := range prepared {
			if busy[p.urn] {
				pl.rest = append(pl.rest, p)
			} else {
				ps = append(ps, p)
			}
		}
	}
	var err error
	if pl.cur, err = s.ahead.Current(ctx, pl.urns); err != nil {
		return nil
	}
	a := s.newApplier(nil, actor, now, len(prepared), len(prepared))
	a.planning = true
	if err := a.run(ctx, pl.urns, pl.cur, ps); err != nil {
		return nil
	}
	if a.sets, err = a.edgeSets(a.order); err != nil {
		return nil
	}
	if err := a.encodeChanges(); err != nil {
		return nil
	}
	a.planned, a.plannedN = true, len(a.order)
	if pb, ok := s.indexer.(Prebuilder); ok {
		if ents := a.dirtyEntities(a.order); len(ents) > 0 {
			a.pre = pb.Prebuild(ctx, s.store, ents)
		}
	}
	pl.a = a
	return pl
}

// current returns the entries of cur, read in the transaction, for the
// URNs pl planned.
func (pl *plan) current(cur map[string]map[string]catalog.Current) map[string]map[string]catalog.Current {
	if len(pl.restURNs) == 0 {
		return cur
	}
	out := make(map[string]map[string]catalog.Current, len(pl.urns))
	for _, u := range pl.urns {
		if c, ok := cur[u]; ok {
			out[u] = c
		}
	}
	return out
}

// sameCurrent reports whether two readings of Tx.Current are equal.
func sameCurrent(x, y map[string]map[string]catalog.Current) bool {
	if len(x) != len(y) {
		return false
	}
	for u, xa := range x {
		ya, ok := y[u]
		if !ok || len(xa) != len(ya) {
			return false
		}
		for name, c := range xa {
			d, ok := ya[name]
			if !ok || c.MaxVersion != d.MaxVersion || c.Version != d.Version || c.Created != d.Created ||
				!bytes.Equal(c.Value, d.Value) || !bytes.Equal(c.SystemMetadata, d.SystemMetadata) {
				return false
			}
		}
	}
	return true
}

// prepared is a proposal that passed every check that needs no stored state.
type prepared struct {
	index  int
	src    *catalog.Proposal
	entity *catalog.EntitySpec
	aspect *catalog.AspectSpec
	urn    string
	change catalog.ChangeType
	value  any // normalised aspect value (nil for DELETE and PATCH)
	patch  []patchOp
	canon  []byte // canonical JSON of value
	sysMD  []byte // canonical JSON of the system metadata
}

func (s *Service) prepare(p *catalog.Proposal, now int64) (*prepared, error) {
	out := &prepared{src: p}
	if p.EntityType == "" {
		return nil, catalog.Errorf(catalog.Invalid, "entityType is required")
	}
	ent := s.reg.Entity(p.EntityType)
	if ent == nil {
		return nil, catalog.Errorf(catalog.Invalid, "unknown entity type %q", p.EntityType)
	}
	out.entity = ent

	switch {
	case p.EntityURN != "":
		u, err := catalog.ParseURN(p.EntityURN)
		if err != nil {
			return nil, err
		}
		if !strings.EqualFold(u.EntityType(), ent.Name) {
			return nil, catalog.Errorf(catalog.Invalid, "URN %s is not a %s URN", p.EntityURN, ent.Name)
		}
		if err := registry.CheckURN(ent, u); err != nil {
			return nil, err
		}
		out.urn = u.String()
	case len(p.EntityKey) > 0:
		key, err := decodeJSON(p.EntityKey)
		if err != nil {
			return nil, catalog.Errorf(catalog.Invalid, "entityKeyAspect is not valid JSON: %v", err)
		}
		key, err = s.reg.Normalize(ent.KeyAspect, key)
		if err != nil {
			return nil, err
		}
		m, ok := key.(map[string]any)
		if !ok {
			return nil, catalog.Errorf(catalog.Invalid, "entityKeyAspect must be a JSON object")
		}
		urn, err := registry.URNFromKey(ent, m)
		if err != nil {
			return nil, err
		}
		out.urn = urn
	default:
		return nil, catalog.Errorf(catalog.Invalid, "one of entityUrn or entityKeyAspect is required")
	}

	if p.AspectName == "" {
		return nil, catalog.Errorf(catalog.Invalid, "aspectName is required")
	}
	asp := s.reg.Aspect(p.AspectName)
	if asp == nil {
		return nil, catalog.Errorf(catalog.Invalid, "unknown aspect %q", p.AspectName)
	}
	if !s.reg.EntityHasAspect(ent.Name, asp.Name) {
		return nil, catalog.Errorf(catalog.Invalid, "aspect %s is not an aspect of entity %s", asp.Name, ent.Name)
	}
	out.aspect = asp

	change := catalog.ChangeType(strings.ToUpper(string(p.ChangeType)))
	if change == "" {
		change = catalog.Upsert
	}
	switch change {
	case catalog.Upsert, catalog.Update, catalog.Create, catalog.CreateEntity:
	case catalog.Delete:
		if asp.Timeseries {
			return nil, catalog.Errorf(catalog.Invalid, "changeType DELETE is not supported for timeseries aspect %s", asp.Name)
		}
	case catalog.Patch:
		if asp.Timeseries {
			return nil, catalog.Errorf(catalog.Invalid, "changeType PATCH is not supported for timeseries aspect %s", asp.Name)
		}
	case catalog.Restate:
		return nil, catalog.Errorf(catalog.Invalid, "changeType %s is not supported", change)
	default:
		return nil, catalog.Errorf(catalog.Invalid, "unknown changeType %q (want UPSERT, CREATE, CREATE_ENTITY, UPDATE, PATCH or DELETE)", p.ChangeType)
	}
	out.change = change

	if p.Edit != nil && (change != catalog.Upsert || asp.Timeseries) {
		return nil, catalog.Errorf(catalog.Invalid, "an edit of aspect %s must be an UPSERT of a versioned aspect", asp.Name)
	}
	switch {
	case p.Edit != nil:
		// Decoded once the edit has run, in the transaction.
	case change == catalog.Delete:
	case change == catalog.Patch:
		// The JSON Patch is parsed here and applied in the transaction, to
		// the value current at that point.
		switch ct := strings.ToLower(p.ContentType); ct {
		case "", PatchContentType, "application/json":
		default:
			return nil, catalog.Errorf(catalog.Invalid, "unsupported contentType %q for changeType PATCH (want %s)", p.ContentType, PatchContentType)
		}
		ops, err := parsePatch(p.Value)
		if err != nil {
			return nil, err
		}
		out.patch = ops
	default:
		if ct := p.ContentType; ct != "" && !strings.EqualFold(ct, "application/json") {
			return nil, catalog.Errorf(catalog.Invalid, "unsupported contentType %q for changeType %s (want application/json)", ct, change)
		}
		var err error
		if out.value, out.canon, err = s.decodeValue(asp, p.Value); err != nil {
			return nil, err
		}
	}
	sm, err := systemMetadata(p.SystemMetadata, now)
	if err != nil {
		return nil, err
	}
	out.sysMD = sm
	return out, nil
}

// decodeValue decodes, normalises and validates an aspect value given as
// JSON, returning it with its canonical JSON.
func (s *Service) decodeValue(asp *catalog.AspectSpec, raw []byte) (any, []byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil, catalog.Errorf(catalog.Invalid, "aspect value is required")
	}
	// Aspect values are never changed once they arrive (each is its own
	// copy, or a request body's), so the decoded strings may share them.
	var err error
	v, ok := fastjson.DecodeShared(raw)
	if !ok {
		if v, err = decodeJSON(raw); err != nil {
			return nil, nil, catalog.Errorf(catalog.Invalid, "aspect value is not valid JSON: %v", err)
		}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, nil, catalog.Errorf(catalog.Invalid, "aspect value must be a JSON object")
	}
	if v, err = s.reg.Normalize(asp.Name, v); err != nil {
		return nil, nil, err
	}
	canon, err := canonicalJSONSized(v, len(raw))
	if err != nil {
		return nil, nil, err
	}
	if asp.Timeseries {
		if _, ok := int64At(v, "timestampMillis"); !ok {
			return nil, nil, catalog.Errorf(catalog.Invalid, "timeseries aspect %s needs timestampMillis", asp.Name)
		}
	}
	return v, canon, nil
}

// systemMetadata fills DataHub's defaults into a proposal's system metadata.
func systemMetadata(in map[string]any, now int64) ([]byte, error) {
	m := make(map[string]any, len(in)+2)
	for k, v := range in {
		if v != nil {
			m[k] = v
		}
	}
	if _, ok := m["runId"]; !ok {
		m["runId"] = DefaultRunID
	}
	if lo, ok := int64At(m, "lastObserved"); !ok || lo == 0 {
		m["lastObserved"] = now
	}
	b, err := canonicalJSON(m)
	if err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "systemMetadata: %v", err)
	}
	return b, nil
}

func proposalError(i, n int, p *catalog.Proposal, err error) error {
	var op string
	if n > 1 {
		op = fmt.Sprintf("proposal %d", i)
	} else {
		op = "proposal"
	}
	var what []string
	if p.EntityURN != "" {
		what = append(what, p.EntityURN)
	} else if p.EntityType != "" {
		what = append(what, "entity type "+p.EntityType)
	}
	if p.AspectName != "" {
		what = append(what, "aspect "+p.AspectName)
	}
	if len(what) > 0 {
		op += " (" + strings.Join(what, ", ") + ")"
	}
	return catalog.WithOp(op, err)
}

// decodeJSON decodes one JSON value keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	if v, ok := fastjson.Decode(b); ok {
		return v, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// canonicalJSON encodes v with sorted object keys and no HTML escaping, so
// that equal values have equal bytes.
func canonicalJSON(v any) ([]byte, error) { return canonicalJSONSized(v, 0) }

// canonicalJSONSized is canonicalJSON for a value whose encoding is about
// size bytes (the JSON it was decoded from): the buffer is made that large
// at once instead of growing to it.
func canonicalJSONSized(v any, size int) ([]byte, error) {
	if b, ok := fastjson.AppendCanonical(make([]byte, 0, size), v); ok {
		return b, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// int64At reads an integer member of a JSON object decoded with UseNumber.
func int64At(v any, key string) (int64, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return 0, false
	}
	switch n := m[key].(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		return int64(n), true
	}
	return 0, false
}

func stringAt(v any, keys ...string) string {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// DeleteEntity hard-deletes urn: every aspect version, timeseries value and
// outgoing edge, and the references to it in other entities' aspects (see
// Proposal.KeepReferences), in one transaction. It returns the number of
// aspect and timeseries rows of urn removed.
func (s *Service) DeleteEntity(ctx context.Context, actor string, urn catalog.URN) (rows, timeseriesRows int, err error) {
	ent := s.reg.Entity(urn.EntityType())
	if ent == nil {
		return 0, 0, catalog.Errorf(catalog.Invalid, "unknown entity type %q in URN %s", urn.EntityType(), urn)
	}
	res, err := s.Ingest(ctx, actor, []catalog.Proposal{{EntityType: ent.Name, EntityURN: urn.String(), AspectName: ent.KeyAspect, ChangeType: catalog.Delete}})
	if err != nil {
		return 0, 0, err
	}
	return res.DeletedRows, res.DeletedTimeseriesRows, nil
}

// DeleteLatestTimeseries removes the latest value of the timeseries aspect
// of urn: every value stamped with the newest timestampMillis, as DataHub's
// DELETE of a timeseries aspect does. It returns the number of values
// removed, 0 when the aspect has none.
func (s *Service) DeleteLatestTimeseries(ctx context.Context, actor string, urn catalog.URN, aspect string) (int, error) {
	ent := s.reg.Entity(urn.EntityType())
	if ent == nil {
		return 0, catalog.Errorf(catalog.Invalid, "unknown entity type %q in URN %s", urn.EntityType(), urn)
	}
	if asp := s.reg.Aspect(aspect); asp == nil || !asp.Timeseries || !slices.Contains(ent.Aspects, aspect) {
		return 0, catalog.Errorf(catalog.Invalid, "%s is not a timeseries aspect of %s", aspect, ent.Name)
	}
	if actor == "" {
		actor = catalog.SystemActor
	}
	deleted := []Change{{URN: urn.String(), EntityType: ent.Name, Aspect: aspect, Deleted: true}}
	if s.authorizer != nil {
		if err := s.authorizer.AuthorizeChanges(ctx, actor, deleted); err != nil {
			return 0, err
		}
	}
	var n int
	err := s.store.Update(ctx, func(tx catalog.Tx) error {
		n = 0 // the transaction may be retried
		latest, err := tx.Timeseries(ctx, catalog.TimeseriesQuery{URN: urn.String(), Aspect: aspect, Limit: 1})
		if err != nil || len(latest) == 0 {
			return err
		}
		if n, err = tx.DeleteTimeseries(ctx, urn.String(), aspect, latest[0].TimestampMillis); err != nil || n == 0 {
			return err
		}
		now := s.now().UnixMilli()
		for _, au := range s.auditors {
			if err := au.RecordChanges(ctx, tx, actor, now, deleted); err != nil {
				return err
			}
		}
		if s.indexer != nil {
			// Search documents may carry the latest timeseries values.
			return s.indexer.Reindex(ctx, tx, []string{urn.String()})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
