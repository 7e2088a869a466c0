package search_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// TestOutboxDrainer feeds an engine through the transactional outbox, the
// way an external engine is fed, using the in-store engine as the target:
// writes reach it only when drained, rolled-back writes never, and
// acknowledged entries are gone.
func TestOutboxDrainer(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.OpenOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	reg := registry.Default()
	target, err := db.OpenSearch(ctx, search.Fields(reg))
	if err != nil {
		t.Fatal(err)
	}
	d := search.NewDrainer(db, db, target, search.NewBuilder(reg))
	d.Batch = 3
	svc := ingest.New(reg, db, ingest.WithIndexer(&search.OutboxIndexer{Kick: d.Kick}))
	var props []catalog.Proposal
	for _, name := range []string{"orders", "customers", "payments", "refunds", "invoices"} {
		props = append(props, catalog.Proposal{EntityType: "dataset", ChangeType: catalog.Upsert, AspectName: "status",
			EntityURN: "urn:li:dataset:(urn:li:dataPlatform:hive," + name + ",PROD)", Value: []byte(`{"removed":false}`)})
	}
	if _, err := svc.Ingest(ctx, "", props); err != nil {
		t.Fatal(err)
	}
	// A failing request appends nothing.
	bad := append(props[:1:1], catalog.Proposal{EntityType: "dataset", EntityURN: "urn:li:dataset:(urn:li:dataPlatform:hive,ghost,PROD)", AspectName: "nosuchaspect", Value: []byte(`{}`)})
	if _, err := svc.Ingest(ctx, "", bad); err == nil {
		t.Fatal("bad proposal accepted")
	}
	count := func() int {
		res, err := target.Search(ctx, catalog.SearchQuery{EntityTypes: []string{"dataset"}, Count: 10})
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if n := count(); n != 0 {
		t.Fatalf("engine has %d documents before draining", n)
	}
	if n, err := d.DrainOnce(ctx); err != nil || n != 3 {
		t.Fatalf("first batch: %d entries, %v; want 3", n, err)
	}
	if err := d.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 5 {
		t.Errorf("engine has %d documents after draining, want 5", n)
	}
	if _, urns, err := db.ReadSearchOutbox(ctx, 10); err != nil || len(urns) != 0 {
		t.Errorf("outbox after flush: %v, %v; want empty", urns, err)
	}
	// Hard delete travels through the outbox too.
	u, _ := catalog.ParseURN("urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)")
	if _, _, err := svc.DeleteEntity(ctx, "", u); err != nil {
		t.Fatal(err)
	}
	if err := d.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 4 {
		t.Errorf("engine has %d documents after a hard delete, want 4", n)
	}
}
