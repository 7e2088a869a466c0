package search_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

const samplesDir = "../../../shared/datahub-samples"

// checkingIndexer indexes through a StoreIndexer from the state the write
// holds (IndexEntities) and checks, for every entity, that the document is
// the one built from the aspects read back from the transaction (the path
// Reindex and restores take).
type checkingIndexer struct {
	t       *testing.T
	b       *search.Builder
	idx     *search.StoreIndexer
	checked int
}

func (c *checkingIndexer) Reindex(ctx context.Context, tx catalog.Tx, urns []string) error {
	return c.idx.Reindex(ctx, tx, urns)
}

func (c *checkingIndexer) IndexEntities(ctx context.Context, tx catalog.Tx, ents []ingest.Entity) error {
	urns := make([]string, len(ents))
	for i, e := range ents {
		urns[i] = e.URN
	}
	want, wantDel, err := c.b.Documents(ctx, tx, urns)
	if err != nil {
		return err
	}
	wantByURN := map[string]catalog.Document{}
	for _, d := range want {
		wantByURN[d.URN] = d
	}
	dels := map[string]bool{}
	for _, u := range wantDel {
		dels[u] = true
	}
	for _, e := range ents {
		c.checked++
		// The held state must be the stored state.
		stored, err := tx.LatestAspects(ctx, []string{e.URN}, nil)
		if err != nil {
			return err
		}
		if got, want := aspectNames(e.Aspects), storedNames(stored[e.URN]); !reflect.DeepEqual(got, want) {
			c.t.Errorf("%s: held aspects %v, stored %v", e.URN, got, want)
		}
		for _, a := range e.Aspects {
			for _, s := range stored[e.URN] {
				if s.Name == a.Name && string(s.Value) != string(a.Value) {
					c.t.Errorf("%s %s: held value %s, stored %s", e.URN, a.Name, a.Value, s.Value)
				}
			}
			if a.Decoded != nil {
				var v any
				d := json.NewDecoder(strings.NewReader(string(a.Value)))
				d.UseNumber()
				if err := d.Decode(&v); err != nil {
					return err
				}
				if !reflect.DeepEqual(v, a.Decoded) {
					c.t.Errorf("%s %s: held decoded value %#v, decoding the value gives %#v", e.URN, a.Name, a.Decoded, v)
				}
			}
		}
		var series []catalog.TimeseriesValue
		if len(e.Aspects) > 0 {
			for _, a := range c.b.TimeseriesAspects(c.b.EntityOf(e.URN)) {
				vals, err := tx.Timeseries(ctx, catalog.TimeseriesQuery{URN: e.URN, Aspect: a, Limit: 1})
				if err != nil {
					return err
				}
				series = append(series, vals...)
			}
		}
		doc, ok, err := c.b.BuildLatest(e.URN, e.Aspects, series)
		if err != nil {
			return err
		}
		if !ok {
			if !dels[e.URN] {
				c.t.Errorf("%s: deleted from held state, has a document when read back", e.URN)
			}
			continue
		}
		w, found := wantByURN[e.URN]
		if !found {
			c.t.Errorf("%s: document from held state, none when read back", e.URN)
			continue
		}
		if !reflect.DeepEqual(doc, w) {
			c.t.Errorf("%s: document from held state\n%#v\nread back\n%#v", e.URN, doc, w)
		}
	}
	return c.idx.IndexEntities(ctx, tx, ents)
}

func aspectNames(as []ingest.LatestAspect) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	sort.Strings(out)
	return out
}

func storedNames(as []catalog.Aspect) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	sort.Strings(out)
	return out
}

// openEngine opens an SQLite store in a temporary directory, closed when
// the test ends, and its search engine for the default registry's fields.
func openEngine(t *testing.T) (*store.DB, *store.Search) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	eng, err := db.OpenSearch(ctx, search.Fields(registry.Default()))
	if err != nil {
		t.Fatal(err)
	}
	return db, eng
}

// TestIndexEntitiesMatchesReindex ingests every record of the DataHub
// samples, then PATCHes, deletes and rewrites some of them, and checks that
// the documents ingest builds from what it holds are those Reindex builds
// from what it reads back.
func TestIndexEntitiesMatchesReindex(t *testing.T) {
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skip("no ../shared/datahub-samples")
	}
	db, eng := openEngine(t)
	reg := registry.Default()
	b := search.NewBuilder(reg)
	chk := &checkingIndexer{t: t, b: b, idx: search.NewStoreIndexer(b, eng)}
	svc := ingest.New(reg, db, ingest.WithIndexer(chk))

	urns := ingestSamples(t, svc)
	changeSamples(t, svc, urns)
	if chk.checked < len(urns) {
		t.Fatalf("checked %d documents for %d entities", chk.checked, len(urns))
	}
	t.Logf("%d entities, %d documents checked", len(urns), chk.checked)
}

// ingestSamples writes every record of the DataHub samples through svc and
// returns the URNs written, in first-written order.
func ingestSamples(t *testing.T, svc *ingest.Service) []string {
	t.Helper()
	ctx := context.Background()
	reg := registry.Default()
	var files []string
	_ = filepath.Walk(samplesDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	var urns []string
	seen := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var records []json.RawMessage
		if json.Unmarshal(raw, &records) != nil {
			continue
		}
		var props []catalog.Proposal
		for _, r := range records {
			ps, err := ingest.DecodeRecord(reg, r)
			if err != nil {
				continue
			}
			props = append(props, ps...)
		}
		// Batches of 50, one by one where a batch is refused, so that every
		// valid proposal is written and batches mix entities.
		for i := 0; i < len(props); i += 50 {
			batch := props[i:min(i+50, len(props))]
			res, err := svc.Ingest(ctx, "", batch)
			if err != nil {
				for _, p := range batch {
					if r, err := svc.Ingest(ctx, "", []catalog.Proposal{p}); err == nil {
						res.URNs = append(res.URNs, r.URNs...)
					}
				}
			}
			for _, u := range res.URNs {
				if !seen[u] {
					seen[u] = true
					urns = append(urns, u)
				}
			}
		}
	}
	if len(urns) < 50 {
		t.Fatalf("only %d entities ingested from the samples", len(urns))
	}
	return urns
}

// changeSamples changes entities ingestSamples wrote: a PATCH adding a
// tag, an aspect delete, a soft delete, an entity delete and a rewrite in
// one batch, and unchanged rewrites.
func changeSamples(t *testing.T, svc *ingest.Service, urns []string) {
	t.Helper()
	ctx := context.Background()
	reg := registry.Default()
	var props []catalog.Proposal
	for i, u := range urns {
		cu, err := catalog.ParseURN(u)
		if err != nil {
			t.Fatal(err)
		}
		ent := reg.Entity(cu.EntityType())
		switch i % 5 {
		case 0:
			if reg.EntityHasAspect(ent.Name, "globalTags") {
				props = append(props, catalog.Proposal{EntityType: ent.Name, EntityURN: u, ChangeType: catalog.Patch, AspectName: "globalTags",
					Value: []byte(`[{"op":"add","path":"/tags/urn:li:tag:patched","value":{"tag":"urn:li:tag:patched"}}]`)})
			}
		case 1:
			if reg.EntityHasAspect(ent.Name, "status") {
				props = append(props, catalog.Proposal{EntityType: ent.Name, EntityURN: u, AspectName: "status", Value: []byte(`{"removed":true}`)})
			}
		case 2:
			props = append(props, catalog.Proposal{EntityType: ent.Name, EntityURN: u, ChangeType: catalog.Delete, AspectName: "browsePaths"})
		case 3:
			props = append(props,
				catalog.Proposal{EntityType: ent.Name, EntityURN: u, ChangeType: catalog.Delete, AspectName: ent.KeyAspect},
				catalog.Proposal{EntityType: ent.Name, EntityURN: u, AspectName: "status", Value: []byte(`{"removed":false}`)})
		}
		if len(props) >= 40 {
			for _, p := range props {
				// Some proposals do not apply to every entity type.
				if _, err := svc.Ingest(ctx, "", []catalog.Proposal{p}); err != nil && !strings.Contains(err.Error(), "not an aspect of") {
					t.Errorf("%s %s %s: %v", p.ChangeType, p.AspectName, p.EntityURN, err)
				}
			}
			if _, err := svc.Ingest(ctx, "", props); err != nil && !strings.Contains(err.Error(), "not an aspect of") {
				t.Errorf("batch of %d: %v", len(props), err)
			}
			props = nil
		}
	}
}

// TestStartIndexing checks the two steps of background indexing: documents
// are written only when finish is told to write, and a build error is
// reported by finish.
func TestStartIndexing(t *testing.T) {
	ctx := context.Background()
	db, eng := openEngine(t)
	reg := registry.Default()
	idx := search.NewStoreIndexer(search.NewBuilder(reg), eng)
	urn := "urn:li:dataset:(urn:li:dataPlatform:hive,db.orders_daily,PROD)"
	ent := ingest.Entity{URN: urn, Aspects: []ingest.LatestAspect{{Aspect: catalog.Aspect{
		URN: urn, Name: "datasetProperties", Value: json.RawMessage(`{"name":"orders_daily","customProperties":{}}`),
	}}}}
	index := func(write bool) error {
		t.Helper()
		return db.Update(ctx, func(tx catalog.Tx) error {
			finish, err := idx.StartIndexing(ctx, tx, []ingest.Entity{ent})
			if err != nil {
				return err
			}
			return finish(ctx, write)
		})
	}
	hits := func() int {
		t.Helper()
		res, err := eng.Search(ctx, catalog.SearchQuery{Text: "orders_daily", Count: 10})
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if err := index(false); err != nil {
		t.Fatalf("finish without writing: %v", err)
	}
	if n := hits(); n != 0 {
		t.Errorf("finish without writing: %d hits, want 0", n)
	}
	if err := index(true); err != nil {
		t.Fatalf("finish writing: %v", err)
	}
	if n := hits(); n != 1 {
		t.Errorf("finish writing: %d hits, want 1", n)
	}
	ent.Aspects[0].Value = json.RawMessage(`{"name":`)
	if err := index(true); err == nil || !strings.Contains(err.Error(), "datasetProperties") {
		t.Errorf("finish with a value that does not decode: error %v, want one naming datasetProperties", err)
	}
}
