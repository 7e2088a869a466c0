package store

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestScratchQueries times raw SQL against a kept benchmark database.
func TestScratchQueries(t *testing.T) {
	file := os.Getenv("SCRATCH_DB")
	if file == "" {
		t.Skip()
	}
	ctx := context.Background()
	db, err := Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{os.Getenv("SCRATCH_Q1"), os.Getenv("SCRATCH_Q2"), os.Getenv("SCRATCH_Q3")} {
		if q == "" {
			continue
		}
		rows, err := db.sql.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var a, b, c int
			var d string
			rows.Scan(&a, &b, &c, &d)
			t.Logf("plan: %d %d %s", a, b, d)
		}
		rows.Close()
		for i := 0; i < 3; i++ {
			t0 := time.Now()
			rows, err := db.sql.QueryContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			cols, _ := rows.Columns()
			for rows.Next() {
				n++
				if os.Getenv("SCRATCH_PRINT") != "" && i == 0 && n < 40 {
					vals := make([]any, len(cols))
					ptrs := make([]any, len(cols))
					for j := range vals {
						ptrs[j] = &vals[j]
					}
					rows.Scan(ptrs...)
					t.Logf("row: %v", vals)
				}
			}
			rows.Close()
			t.Logf("%d rows in %s: %.100s", n, time.Since(t0), q)
		}
	}
}
