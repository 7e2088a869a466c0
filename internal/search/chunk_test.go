package search

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// TestChunkedBuild shares builds between a background goroutine and the
// finishing one: every entity is built exactly once, the parts come back
// in entity order, and an abandoned build skips the chunks not yet claimed.
func TestChunkedBuild(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 33, 200} {
		var built atomic.Int64
		c := newChunkedBuild(n, func(lo, hi int) builtPart {
			built.Add(int64(hi - lo))
			dels := make([]string, 0, hi-lo)
			for i := lo; i < hi; i++ {
				dels = append(dels, fmt.Sprint(i))
			}
			return builtPart{dels: dels}
		})
		go c.work()
		var got []string
		for _, p := range c.finish() {
			got = append(got, p.dels...)
		}
		if int(built.Load()) != n || len(got) != n {
			t.Fatalf("n=%d: built %d entities, returned %d", n, built.Load(), len(got))
		}
		for i, s := range got {
			if s != fmt.Sprint(i) {
				t.Fatalf("n=%d: entity %d came back as %s", n, i, s)
			}
		}
	}

	var built atomic.Int64
	c := newChunkedBuild(100, func(lo, hi int) builtPart {
		built.Add(1)
		return builtPart{}
	})
	c.abandon()
	go c.work() // a late worker finds nothing left to claim
	c.done.Wait()
	if built.Load() != 0 {
		t.Errorf("abandoned before any work, %d chunks were built", built.Load())
	}
}
