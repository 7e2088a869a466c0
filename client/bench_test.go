package client_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/catalogd/catalogd/client"
)

// BenchmarkEmitter measures emitter throughput over HTTP against a real
// server (SQLite store): one op is one proposal, sent in batches of the
// given size; batch=1 is one request per proposal.
func BenchmarkEmitter(b *testing.B) {
	for _, size := range []int{1, 20, 200} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			c, _ := newClient(b)
			ctx := context.Background()
			em := c.NewEmitter(size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p, err := client.UpsertProposal(fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,db.t%d,PROD)", i), "datasetProperties",
					map[string]any{"name": fmt.Sprintf("t%d", i), "description": "a table"})
				if err != nil {
					b.Fatal(err)
				}
				if err := em.Emit(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			if err := em.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "proposals/s")
		})
	}
}
