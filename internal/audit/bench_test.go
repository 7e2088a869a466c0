package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/store"
)

// BenchmarkIngestAudited measures what the audit log adds to a write: batches
// of 200 aspect writes (a new dataset each, so 200 events plus the key and
// default aspects' events) with and without the auditor, no search index.
func BenchmarkIngestAudited(b *testing.B) {
	for _, audited := range []bool{false, true} {
		b.Run(fmt.Sprintf("audited=%v", audited), func(b *testing.B) {
			ctx := context.Background()
			db, err := store.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "a.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			var opts []ingest.Option
			if audited {
				r, err := New(ctx, db, []byte("k"))
				if err != nil {
					b.Fatal(err)
				}
				opts = append(opts, ingest.WithAuditor(r))
			}
			svc := ingest.New(registry.Default(), db, opts...)
			val, _ := json.Marshal(map[string]any{"description": "a dataset", "customProperties": map[string]string{"k": "v"}})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				props := make([]catalog.Proposal, 200)
				for j := range props {
					props[j] = catalog.Proposal{EntityType: "dataset", AspectName: "datasetProperties", Value: val, ContentType: "application/json",
						EntityURN: fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,b.%d.%d,PROD)", i, j)}
				}
				if _, err := svc.Ingest(ctx, catalog.SystemActor, props); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(200*b.N)/b.Elapsed().Seconds(), "aspects/s")
		})
	}
}
