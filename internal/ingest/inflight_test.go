package ingest

import "testing"

// TestInflight checks that a request is planned only when no request in
// flight writes any of its URNs.
func TestInflight(t *testing.T) {
	var s Service
	steps := []struct {
		enter, leave []string
		alone        bool
	}{
		{enter: []string{"a", "b"}, alone: true},
		{enter: []string{"b", "c"}, alone: false}, // b is in flight
		{enter: []string{"d"}, alone: true},
		{leave: []string{"a", "b"}},
		{enter: []string{"b"}, alone: false}, // the second request still writes b
		{leave: []string{"b", "c"}},
		{leave: []string{"b"}},
		{enter: []string{"a", "b", "c"}, alone: true},
	}
	for i, st := range steps {
		if st.leave != nil {
			s.leave(st.leave)
			continue
		}
		if got := s.enter(st.enter); got != st.alone {
			t.Errorf("step %d: enter(%v) = %v, want %v", i, st.enter, got, st.alone)
		}
	}
	s.leave([]string{"d"})
	s.leave([]string{"a", "b", "c"})
	if len(s.inflight) != 0 {
		t.Errorf("after every request left, in flight: %v", s.inflight)
	}
}
