package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
)

// benchStores runs b against SQLite and, when configured, PostgreSQL.
func benchStores(b *testing.B, fn func(b *testing.B, db *store.DB)) {
	b.Run("sqlite", func(b *testing.B) { fn(b, openSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { fn(b, openPostgres(b)) })
}

// Realistic aspect values: a datasetProperties of ~600 bytes, a status, an
// ownership and a schemaMetadata of ~2 KB, with DataHub-like system metadata.
var (
	benchSys    = json.RawMessage(`{"lastObserved":1700000000000,"runId":"file-2023_11_14-12_00_00","lastRunId":"no-run-id-provided","properties":{"clientId":"acryl-datahub","clientVersion":"0.12.0"}}`)
	benchProps  = json.RawMessage(`{"customProperties":{"owner":"data-eng","retention":"30d","format":"parquet","location":"s3://warehouse/analytics/events"},"name":"events","qualifiedName":"analytics.public.events","description":"All product events, one row per event, partitioned by day. Used by the growth and product analytics teams for funnels and retention.","created":{"time":1690000000000,"actor":"urn:li:corpuser:etl"},"lastModified":{"time":1700000000000,"actor":"urn:li:corpuser:etl"},"tags":[]}`)
	benchOwner  = json.RawMessage(`{"owners":[{"owner":"urn:li:corpuser:jdoe","type":"TECHNICAL_OWNER","source":{"type":"SERVICE"}},{"owner":"urn:li:corpGroup:data-eng","type":"DATAOWNER"}],"lastModified":{"time":1700000000000,"actor":"urn:li:corpuser:etl"}}`)
	benchStat   = json.RawMessage(`{"removed":false}`)
	benchSchema json.RawMessage
)

func init() {
	fields := make([]map[string]any, 12)
	for i := range fields {
		fields[i] = map[string]any{"fieldPath": fmt.Sprintf("column_%d", i), "nativeDataType": "VARCHAR(255)",
			"type":     map[string]any{"type": map[string]any{"com.linkedin.schema.StringType": map[string]any{}}},
			"nullable": true, "recursive": false, "isPartOfKey": false}
	}
	benchSchema, _ = json.Marshal(map[string]any{"schemaName": "events", "platform": "urn:li:dataPlatform:postgres",
		"version": 0, "hash": "", "platformSchema": map[string]any{"com.linkedin.schema.MySqlDDL": map[string]any{"tableSchema": ""}},
		"fields": fields})
}

// BenchmarkPutAspects writes batches of 200 aspects (50 datasets x 4 aspects)
// the way the ingest pipeline does: Current for the batch's URNs, then
// PutAspects, in one transaction. Half the iterations overwrite existing
// datasets, so history rows are written too.
func BenchmarkPutAspects(b *testing.B) {
	benchStores(b, func(b *testing.B, db *store.DB) {
		ctx := context.Background()
		const perBatch, entities = 200, 50
		names := []string{"datasetProperties", "status", "ownership", "schemaMetadata"}
		values := []json.RawMessage{benchProps, benchStat, benchOwner, benchSchema}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			// Batches 2k and 2k+1 touch the same datasets: insert, then update.
			urns := make([]string, entities)
			for j := range urns {
				urns[j] = fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:postgres,analytics.public.events_%d_%d,PROD)", i/2, j)
			}
			err := db.Update(ctx, func(tx catalog.Tx) error {
				cur, err := tx.Current(ctx, urns)
				if err != nil {
					return err
				}
				writes := make([]catalog.AspectWrite, 0, perBatch)
				for _, u := range urns {
					for k, name := range names {
						w := catalog.AspectWrite{Aspect: catalog.Aspect{URN: u, Name: name, Value: values[k], SystemMetadata: benchSys,
							Created: catalog.AuditStamp{Time: int64(i), Actor: "urn:li:corpuser:etl"}}}
						if c, ok := cur[u][name]; ok {
							w.History, w.Previous = c.MaxVersion+1, c.Aspect
						}
						writes = append(writes, w)
					}
				}
				return tx.PutAspects(ctx, writes)
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N*perBatch)/b.Elapsed().Seconds(), "aspects/s")
	})
}

// BenchmarkLatestAspects reads all latest aspects of one dataset among 10,000.
func BenchmarkLatestAspects(b *testing.B) {
	benchStores(b, func(b *testing.B, db *store.DB) {
		ctx := context.Background()
		const n = 10000
		names := []string{"datasetProperties", "status", "ownership", "schemaMetadata"}
		values := []json.RawMessage{benchProps, benchStat, benchOwner, benchSchema}
		urn := func(i int) string {
			return fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:postgres,analytics.public.t%d,PROD)", i)
		}
		for start := 0; start < n; start += 500 {
			var writes []catalog.AspectWrite
			for i := start; i < start+500; i++ {
				for k, name := range names {
					writes = append(writes, catalog.AspectWrite{Aspect: catalog.Aspect{URN: urn(i), Name: name, Value: values[k], SystemMetadata: benchSys}})
				}
			}
			if err := db.Update(ctx, func(tx catalog.Tx) error { return tx.PutAspects(ctx, writes) }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				i++
				got, err := db.LatestAspects(ctx, []string{urn(i * 7919 % n)}, nil)
				if err != nil || len(got) != 1 {
					b.Fatal(len(got), err)
				}
			}
		})
	})
}
