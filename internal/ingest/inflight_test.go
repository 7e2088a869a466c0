package ingest

import (
	"maps"
	"slices"
	"testing"
)

// TestInflight checks which URNs of a request other requests in flight
// write.
func TestInflight(t *testing.T) {
	var s Service
	steps := []struct {
		enter, leave []string
		busy         []string
	}{
		{enter: []string{"a", "b"}},
		{enter: []string{"b", "c"}, busy: []string{"b"}},
		{enter: []string{"d"}},
		{leave: []string{"a", "b"}},
		{enter: []string{"b", "a"}, busy: []string{"b"}}, // the second request still writes b
		{leave: []string{"b", "c"}},
		{leave: []string{"b", "a"}},
		{enter: []string{"a", "b", "c"}},
	}
	for i, st := range steps {
		if st.leave != nil {
			s.leave(st.leave)
			continue
		}
		got := slices.Sorted(maps.Keys(s.enter(st.enter)))
		if !slices.Equal(got, st.busy) {
			t.Errorf("step %d: enter(%v) = %v busy, want %v", i, st.enter, got, st.busy)
		}
	}
	s.leave([]string{"d"})
	s.leave([]string{"a", "b", "c"})
	if len(s.inflight) != 0 {
		t.Errorf("after every request left, in flight: %v", s.inflight)
	}
}
