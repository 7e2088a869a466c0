package restli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/restli"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

// handler is the rest.li handler with the read routes under benchmark.
func handler(db *store.DB) *restli.Handler {
	h := restli.New(restli.Config{Registry: registry.Default(), Store: db})
	h.ServeRelationships()
	h.ServeTimeseries()
	return h
}

// serve runs one request through h and fails unless it answers 200.
func serve(b *testing.B, h http.Handler, req *http.Request) []byte {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s %s: %d %s", req.Method, req.URL, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

func benchDataset(i int) string {
	return fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,warehouse.db.table_%d,PROD)", i)
}

// load1MEdges writes 100,000 datasets with 10 edges each, the way ingest
// would derive them: 5 DownstreamOf (upstreamLineage), 3 TaggedWith among
// 1,000 tags (globalTags) and 2 OwnedBy among 1,000 users (ownership).
func load1MEdges(b *testing.B, db *store.DB) (datasets, tags int) {
	const nDatasets, nTags, nUsers = 100_000, 1_000, 1_000
	ctx := context.Background()
	rng := mrand.New(mrand.NewPCG(1, 2))
	created := catalog.AuditStamp{Time: 1700000000000, Actor: "urn:li:corpuser:etl"}
	var sets []catalog.EdgeSet
	flush := func() {
		if err := db.Update(ctx, func(tx catalog.Tx) error { return tx.ReplaceEdges(ctx, sets) }); err != nil {
			b.Fatalf("load edges: %v", err)
		}
		sets = sets[:0]
	}
	edges := func(rel string, n int, dest func() string) []catalog.Edge {
		out := make([]catalog.Edge, 0, n)
		for len(out) < n {
			d := dest()
			if !slices.ContainsFunc(out, func(e catalog.Edge) bool { return e.Destination == d }) {
				out = append(out, catalog.Edge{Relationship: rel, Destination: d, Created: created})
			}
		}
		return out
	}
	start := time.Now()
	for i := range nDatasets {
		urn := benchDataset(i)
		sets = append(sets,
			catalog.EdgeSet{URN: urn, Aspect: "upstreamLineage", Edges: edges("DownstreamOf", 5, func() string { return benchDataset(rng.IntN(nDatasets)) })},
			catalog.EdgeSet{URN: urn, Aspect: "globalTags", Edges: edges("TaggedWith", 3, func() string { return fmt.Sprintf("urn:li:tag:tag_%d", rng.IntN(nTags)) })},
			catalog.EdgeSet{URN: urn, Aspect: "ownership", Edges: edges("OwnedBy", 2, func() string { return fmt.Sprintf("urn:li:corpuser:user_%d", rng.IntN(nUsers)) })},
		)
		if len(sets) >= 600 {
			flush()
		}
	}
	flush()
	b.Logf("loaded 1,000,000 edges in %v", time.Since(start).Round(time.Millisecond))
	return nDatasets, nTags
}

// BenchmarkRelationships measures GET /relationships through the handler
// (parameter parsing, the store query, JSON encoding) over 1,000,000 edges.
func BenchmarkRelationships(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, db *store.DB) {
		datasets, tags := load1MEdges(b, db)
		h := handler(db)
		for _, tc := range []struct {
			name string
			url  func(rng *mrand.Rand) string
		}{
			{"outgoing-DownstreamOf", func(rng *mrand.Rand) string {
				return "/relationships?direction=OUTGOING&types=List(DownstreamOf)&urn=" + url.QueryEscape(benchDataset(rng.IntN(datasets)))
			}},
			{"incoming-DownstreamOf", func(rng *mrand.Rand) string {
				return "/relationships?direction=INCOMING&types=List(DownstreamOf)&urn=" + url.QueryEscape(benchDataset(rng.IntN(datasets)))
			}},
			{"outgoing-all-types", func(rng *mrand.Rand) string {
				return "/relationships?direction=OUTGOING&types=List(DownstreamOf,TaggedWith,OwnedBy)&urn=" + url.QueryEscape(benchDataset(rng.IntN(datasets)))
			}},
			// About 300 datasets per tag: a full page of 100 plus the count.
			{"incoming-TaggedWith-page100", func(rng *mrand.Rand) string {
				return fmt.Sprintf("/relationships?direction=INCOMING&types=TaggedWith&urn=urn%%3Ali%%3Atag%%3Atag_%d", rng.IntN(tags))
			}},
		} {
			b.Run(tc.name, func(b *testing.B) {
				rng := mrand.New(mrand.NewPCG(5, 6))
				var durations []time.Duration
				results := 0
				for b.Loop() {
					req := httptest.NewRequest("GET", tc.url(rng), nil)
					t0 := time.Now()
					body := serve(b, h, req)
					durations = append(durations, time.Since(t0))
					var page struct{ Count int }
					if err := json.Unmarshal(body, &page); err != nil {
						b.Fatal(err)
					}
					results += page.Count
				}
				b.ReportMetric(float64(results)/float64(len(durations)), "results/op")
				storetest.ReportPercentiles(b, durations)
			})
		}
	})
}

// BenchmarkTimeseriesRange reads 10,000 datasetProfile values of one dataset
// through getTimeseriesAspectValues: the whole range, and a partition-
// filtered range of 1,000 values.
func BenchmarkTimeseriesRange(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, db *store.DB) {
		const points = 10_000
		ctx := context.Background()
		urn := benchDataset(0)
		const t0 = int64(1700000000000)
		var values []catalog.TimeseriesValue
		for i := range points {
			ts := t0 + int64(i)*60_000
			v := fmt.Sprintf(`{"timestampMillis":%d,"rowCount":%d,"columnCount":12,"partitionSpec":{"type":"PARTITION","partition":"p%d"},"fieldProfiles":[{"fieldPath":"id","uniqueCount":%d,"nullCount":0,"min":"1","max":"%d"},{"fieldPath":"name","uniqueCount":900,"nullCount":3,"sampleValues":["alice","bob","carol"]}]}`,
				ts, 1000+i, i%10, 1000+i, 1000+i)
			values = append(values, catalog.TimeseriesValue{URN: urn, Entity: "dataset", Aspect: "datasetProfile",
				TimestampMillis: ts, Partition: fmt.Sprintf("p%d", i%10), Value: json.RawMessage(v),
				SystemMetadata: json.RawMessage(`{"lastObserved":1700000000000,"runId":"bench"}`)})
		}
		for chunk := range slices.Chunk(values, 1000) {
			if err := db.Update(ctx, func(tx catalog.Tx) error { return tx.PutTimeseries(ctx, chunk) }); err != nil {
				b.Fatalf("load timeseries: %v", err)
			}
		}
		h := handler(db)
		for _, tc := range []struct {
			name string
			want int
			body map[string]any
		}{
			{"all-10k", points, map[string]any{"urn": urn, "entity": "dataset", "aspect": "datasetProfile",
				"startTimeMillis": t0, "endTimeMillis": t0 + points*60_000}},
			{"partition-1k", points / 10, map[string]any{"urn": urn, "entity": "dataset", "aspect": "datasetProfile",
				"filter": map[string]any{"or": []any{map[string]any{"and": []any{
					map[string]any{"field": "partitionSpec.partition", "values": []string{"p3"}, "condition": "EQUAL"}}}}}}},
		} {
			b.Run(tc.name, func(b *testing.B) {
				body, _ := json.Marshal(tc.body)
				var durations []time.Duration
				for b.Loop() {
					req := httptest.NewRequest("POST", "/aspects?action=getTimeseriesAspectValues", bytes.NewReader(body))
					t0 := time.Now()
					out := serve(b, h, req)
					durations = append(durations, time.Since(t0))
					var resp struct {
						Value struct{ Values []json.RawMessage }
					}
					if err := json.Unmarshal(out, &resp); err != nil || len(resp.Value.Values) != tc.want {
						b.Fatalf("%d values (%v), want %d", len(resp.Value.Values), err, tc.want)
					}
				}
				storetest.ReportPercentiles(b, durations)
			})
		}
	})
}
