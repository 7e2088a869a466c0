package search_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// countingPrebuilder counts how a StoreIndexer's prebuilt documents end:
// written from the build (Start with the plan adopted) or dropped.
type countingPrebuilder struct {
	*search.StoreIndexer
	started, discarded atomic.Int64
	// prebuilt, when set, receives the URNs of each Prebuild call.
	prebuilt chan []string
}

func (c *countingPrebuilder) Prebuild(ctx context.Context, r catalog.Reader, ents []ingest.Entity) ingest.Prebuilt {
	if c.prebuilt != nil {
		urns := make([]string, len(ents))
		for i, e := range ents {
			urns[i] = e.URN
		}
		c.prebuilt <- urns
	}
	p := c.StoreIndexer.Prebuild(ctx, r, ents)
	if p == nil {
		return nil
	}
	return countedPrebuilt{p, c}
}

type countedPrebuilt struct {
	ingest.Prebuilt
	c *countingPrebuilder
}

func (p countedPrebuilt) Start(ctx context.Context, tx catalog.Tx) (func(context.Context, bool) error, error) {
	p.c.started.Add(1)
	return p.Prebuilt.Start(ctx, tx)
}

func (p countedPrebuilt) Discard() {
	p.c.discarded.Add(1)
	p.Prebuilt.Discard()
}

// staleReader reads the state requests are planned against, and on every
// other call pretends that nothing is stored, as if other writes had come
// between the plan and its transaction.
type staleReader struct {
	db    *store.DB
	calls atomic.Int64
}

func (s *staleReader) Current(ctx context.Context, urns []string) (map[string]map[string]catalog.Current, error) {
	if s.calls.Add(1)%2 == 0 {
		return map[string]map[string]catalog.Current{}, nil
	}
	return s.db.Current(ctx, urns)
}

// TestPlanAhead ingests and changes the DataHub samples three times: applied
// in the write transaction, planned ahead against the stored state, and
// planned against a state that is often stale. All three must leave the
// same aspects, edges and search documents.
func TestPlanAhead(t *testing.T) {
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skip("no ../shared/datahub-samples")
	}
	reg := registry.Default()
	clock := ingest.WithClock(func() time.Time { return time.UnixMilli(1_700_000_000_000) })
	run := func(ahead func(db *store.DB) ingest.CurrentReader) (*store.DB, *countingPrebuilder) {
		db, eng := openEngine(t)
		idx := &countingPrebuilder{StoreIndexer: search.NewStoreIndexer(search.NewBuilder(reg), eng)}
		opts := []ingest.Option{ingest.WithIndexer(idx), clock}
		if ahead != nil {
			opts = append(opts, ingest.WithPlanAhead(ahead(db)))
		}
		svc := ingest.New(reg, db, opts...)
		changeSamples(t, svc, ingestSamples(t, svc))
		return db, idx
	}
	inTx, _ := run(nil)
	want := dumpStore(t, inTx)

	planned, idx := run(func(db *store.DB) ingest.CurrentReader { return db })
	if diff := cmp.Diff(want, dumpStore(t, planned)); diff != "" {
		t.Errorf("planned ahead: store differs from applying in the transaction (-want +got):\n%s", diff)
	}
	if idx.started.Load() == 0 || idx.discarded.Load() != 0 {
		t.Errorf("planned ahead against the stored state: %d plans' documents used, %d dropped; want all used", idx.started.Load(), idx.discarded.Load())
	}

	stale, idx := run(func(db *store.DB) ingest.CurrentReader { return &staleReader{db: db} })
	if diff := cmp.Diff(want, dumpStore(t, stale)); diff != "" {
		t.Errorf("planned against stale state: store differs from applying in the transaction (-want +got):\n%s", diff)
	}
	if idx.started.Load() == 0 || idx.discarded.Load() == 0 {
		t.Errorf("planned against stale state: %d plans' documents used, %d dropped; want some of each", idx.started.Load(), idx.discarded.Load())
	}
}

// dumpStore returns the rows of the aspect, edge and search tables, less
// the search documents' ids and the numbers of their facet values, which
// depend on the order of writes (the values themselves are keyword rows).
func dumpStore(t *testing.T, db *store.DB) map[string][]string {
	t.Helper()
	queries := map[string]string{
		"aspects":  "SELECT urn, aspect, version, metadata, systemmetadata, createdon, createdby FROM metadata_aspect_v2 ORDER BY 1, 2, 3",
		"edges":    "SELECT source_urn, relationship, destination_urn, source_aspect, created_on, created_actor, coalesce(properties, '') FROM edge ORDER BY 1, 2, 3, 4",
		"docs":     "SELECT d.urn, d.entity, d.removed, d.long, b.fields, b.acvals FROM search_doc d JOIN search_body b ON b.id = d.id ORDER BY d.urn",
		"keywords": "SELECT d.urn, k.field, k.value, coalesce(k.lvalue, ''), coalesce(k.num, '') FROM search_kw k JOIN search_doc d ON d.id = k.doc ORDER BY 1, 2, 3",
		"browse":   "SELECT d.urn, b.path FROM search_browse b JOIN search_doc d ON d.id = b.doc ORDER BY 1, 2",
	}
	out := map[string][]string{}
	for name, q := range queries {
		rows, err := db.Bun().QueryContext(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = fmt.Sprint(v.String)
			}
			out[name] = append(out[name], strings.Join(parts, " | "))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if len(out[name]) == 0 {
			t.Fatalf("%s: no rows", name)
		}
	}
	return out
}

// TestPrebuiltSeriesChanged prebuilds a dataset's document, then writes a
// profile of it: the transaction that uses the prebuilt document must build
// it afresh, with the profile's row count.
func TestPrebuiltSeriesChanged(t *testing.T) {
	ctx := context.Background()
	db, eng := openEngine(t)
	reg := registry.Default()
	idx := search.NewStoreIndexer(search.NewBuilder(reg), eng)
	svc := ingest.New(reg, db, ingest.WithIndexer(idx))
	const urn = "urn:li:dataset:(urn:li:dataPlatform:hive,profiled,PROD)"
	write := func(aspect, value string) {
		t.Helper()
		if _, err := svc.Ingest(ctx, "", []catalog.Proposal{{EntityType: "dataset", EntityURN: urn, AspectName: aspect, Value: []byte(value)}}); err != nil {
			t.Fatal(err)
		}
	}
	rowCount := func() string {
		t.Helper()
		var v string
		err := db.Bun().QueryRowContext(ctx, "SELECT k.value FROM search_kw k JOIN search_doc d ON d.id = k.doc WHERE d.urn = ? AND k.field = 'rowCount'", urn).Scan(&v)
		if err != nil && err != sql.ErrNoRows {
			t.Fatal(err)
		}
		return v
	}
	write("status", `{"removed":false}`)
	latest, err := db.LatestAspects(ctx, []string{urn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ent := ingest.Entity{URN: urn}
	for _, a := range latest[urn] {
		ent.Aspects = append(ent.Aspects, ingest.LatestAspect{Aspect: a})
	}
	pre := idx.Prebuild(ctx, db, []ingest.Entity{ent})
	if pre == nil {
		t.Fatal("the store's engine did not prebuild")
	}
	write("datasetProfile", `{"timestampMillis":1700000000000,"rowCount":42}`)
	if got := rowCount(); got != "42" {
		t.Fatalf("after the profile: rowCount %q, want 42", got)
	}
	err = db.Update(ctx, func(tx catalog.Tx) error {
		finish, err := pre.Start(ctx, tx)
		if err != nil {
			return err
		}
		return finish(ctx, true)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowCount(); got != "42" {
		t.Errorf("after the prebuilt document was written: rowCount %q, want 42 (built before the profile)", got)
	}
}

// TestPlanLeavesOutURNsInFlight sends a request for an entity while another
// request for it waits for the writer: the second request's plan leaves
// that entity out, applies it in the transaction, and the store ends as
// when the two are applied one after the other.
func TestPlanLeavesOutURNsInFlight(t *testing.T) {
	ctx := context.Background()
	reg := registry.Default()
	const x, y = "urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)", "urn:li:dataset:(urn:li:dataPlatform:hive,y,PROD)"
	first := []catalog.Proposal{{EntityType: "dataset", EntityURN: x, AspectName: "status", Value: []byte(`{"removed":false}`)}}
	second := []catalog.Proposal{
		{EntityType: "dataset", EntityURN: y, AspectName: "globalTags", Value: []byte(`{"tags":[{"tag":"urn:li:tag:t"}]}`)},
		{EntityType: "dataset", EntityURN: x, AspectName: "ownership", Value: []byte(`{"owners":[{"owner":"urn:li:corpuser:o","type":"DATAOWNER"}]}`)},
	}
	clock := ingest.WithClock(func() time.Time { return time.UnixMilli(1_700_000_000_000) })

	seqDB, seqEng := openEngine(t)
	seq := ingest.New(reg, seqDB, ingest.WithIndexer(search.NewStoreIndexer(search.NewBuilder(reg), seqEng)), clock)
	for _, req := range [][]catalog.Proposal{first, second} {
		if _, err := seq.Ingest(ctx, "", req); err != nil {
			t.Fatal(err)
		}
	}

	db, eng := openEngine(t)
	idx := &countingPrebuilder{StoreIndexer: search.NewStoreIndexer(search.NewBuilder(reg), eng), prebuilt: make(chan []string, 2)}
	svc := ingest.New(reg, db, ingest.WithIndexer(idx), ingest.WithPlanAhead(db), clock)
	// The writer is held until both requests are planned.
	hold, holding := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.Update(ctx, func(catalog.Tx) error {
			close(holding)
			<-hold
			return nil
		})
	}()
	<-holding
	errs := make(chan error, 2)
	go func() { _, err := svc.Ingest(ctx, "", first); errs <- err }()
	if got := <-idx.prebuilt; len(got) != 1 || got[0] != x {
		t.Fatalf("first request prebuilt %v, want [%s]", got, x)
	}
	go func() { _, err := svc.Ingest(ctx, "", second); errs <- err }()
	if got := <-idx.prebuilt; len(got) != 1 || got[0] != y {
		t.Fatalf("second request prebuilt %v, want [%s]: %s is in flight", got, y, x)
	}
	close(hold)
	for range 3 {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case err := <-held:
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if diff := cmp.Diff(dumpStore(t, seqDB), dumpStore(t, db)); diff != "" {
		t.Errorf("store differs from the requests applied one after the other (-want +got):\n%s", diff)
	}
	// The second plan holds y only, which the first request does not
	// write: it is used whichever request gets the writer first. The first
	// plan is dropped when the second request commits first.
	if used, dropped := idx.started.Load(), idx.discarded.Load(); used < 1 || used+dropped != 2 {
		t.Errorf("%d plans' documents used, %d dropped; want at least the second used, and each plan used or dropped", used, dropped)
	}
}

// TestPlanAheadConcurrent sends requests that share entities all at once,
// each (entity, aspect) written by one request only, so that any order of
// commits leaves the same store: planned ahead, with plans used, partial
// and dropped as the requests race, it must be the store the requests
// leave applied one by one, and a request after them must still be planned
// (nothing left in flight).
func TestPlanAheadConcurrent(t *testing.T) {
	ctx := context.Background()
	reg := registry.Default()
	clock := ingest.WithClock(func() time.Time { return time.UnixMilli(1_700_000_000_000) })
	values := map[string]func(i int) string{
		"status": func(i int) string { return fmt.Sprintf(`{"removed":%v}`, i%3 == 0) },
		"ownership": func(i int) string {
			return fmt.Sprintf(`{"owners":[{"owner":"urn:li:corpuser:u%d","type":"DATAOWNER"}]}`, i%4)
		},
		"globalTags":        func(i int) string { return fmt.Sprintf(`{"tags":[{"tag":"urn:li:tag:t%d"}]}`, i%5) },
		"datasetProperties": func(i int) string { return fmt.Sprintf(`{"name":"table %d","description":"Rows of table %d"}`, i, i) },
		"upstreamLineage": func(i int) string {
			return fmt.Sprintf(`{"upstreams":[{"dataset":"urn:li:dataset:(urn:li:dataPlatform:hive,t%d,PROD)","type":"TRANSFORMED"}]}`, (i+1)%12)
		},
	}
	var aspects []string
	for a := range values {
		aspects = append(aspects, a)
	}
	slices.Sort(aspects)
	// The 60 (entity, aspect) pairs in a scrambled order, two to a request:
	// each entity is in five requests.
	var requests [][]catalog.Proposal
	const entities = 12
	for k := 0; k < entities*len(aspects); k += 2 {
		var req []catalog.Proposal
		for _, j := range []int{k, k + 1} {
			pair := j * 7 % (entities * len(aspects))
			e, a := pair/len(aspects), aspects[pair%len(aspects)]
			req = append(req, catalog.Proposal{EntityType: "dataset", EntityURN: fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,t%d,PROD)", e),
				AspectName: a, Value: []byte(values[a](e))})
		}
		requests = append(requests, req)
	}
	seen := map[string]bool{}
	for _, req := range requests {
		for _, p := range req {
			k := p.EntityURN + " " + p.AspectName
			if seen[k] {
				t.Fatalf("%s written twice: the result would depend on the order", k)
			}
			seen[k] = true
		}
	}

	// Once they are all done, one request for every entity: nothing is in
	// flight any more, so its plan covers them all and is used, whatever
	// the race before it did with the others' plans.
	var after []catalog.Proposal
	for e := range entities {
		after = append(after, catalog.Proposal{EntityType: "dataset", EntityURN: fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,t%d,PROD)", e),
			AspectName: "editableDatasetProperties", Value: []byte(fmt.Sprintf(`{"description":"edited %d"}`, e))})
	}

	seqDB, seqEng := openEngine(t)
	seq := ingest.New(reg, seqDB, ingest.WithIndexer(search.NewStoreIndexer(search.NewBuilder(reg), seqEng)), clock)
	for _, req := range append(requests, after) {
		if _, err := seq.Ingest(ctx, "", req); err != nil {
			t.Fatal(err)
		}
	}
	want := dumpStore(t, seqDB)
	var used, dropped int64
	for round := range 5 {
		db, eng := openEngine(t)
		idx := &countingPrebuilder{StoreIndexer: search.NewStoreIndexer(search.NewBuilder(reg), eng)}
		svc := ingest.New(reg, db, ingest.WithIndexer(idx), ingest.WithPlanAhead(db), clock)
		errs := make(chan error, len(requests))
		for _, req := range requests {
			go func() { _, err := svc.Ingest(ctx, "", req); errs <- err }()
		}
		for range requests {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		used, dropped = used+idx.started.Load(), dropped+idx.discarded.Load()
		before := idx.started.Load()
		if _, err := svc.Ingest(ctx, "", after); err != nil {
			t.Fatal(err)
		}
		if idx.started.Load() != before+1 {
			t.Errorf("round %d: the request after the race did not use its plan", round)
		}
		if diff := cmp.Diff(want, dumpStore(t, db)); diff != "" {
			t.Fatalf("round %d: store differs from the requests applied one by one (-want +got):\n%s", round, diff)
		}
	}
	// How many plans the race used or dropped depends on the timing.
	t.Logf("in the races, plans' documents used %d times, dropped %d times", used, dropped)
}
