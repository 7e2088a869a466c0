package store

import "testing"

// TestRunIDOf checks that the run index reads the top-level runId of
// system metadata as a JSON decoder does, whatever the fast path sees.
func TestRunIDOf(t *testing.T) {
	tests := []struct{ sys, want string }{
		{`{"lastObserved":1,"runId":"file-2024"}`, "file-2024"},
		{` { "runId" : "spaced" , "x": 1 } `, "spaced"},
		{`{"properties":{"runId":"nested"},"runId":"top"}`, "top"},
		{`{"properties":{"runId":"nested"}}`, ""},
		{`{"list":[{"runId":"in array"}],"runId":"top"}`, "top"},
		{`{"note":"a \"runId\":\"fake\" inside","runId":"real"}`, "real"},
		{`{"runId":"with \"escapes\""}`, `with "escapes"`},
		{`{"run\u0049d":"escaped key"}`, "escaped key"},
		{`{"runId":7}`, ""},
		{`{"runId":null}`, ""},
		{`{}`, ""},
		{``, ""},
		{`not json`, ""},
	}
	for _, tt := range tests {
		if got := runIDOf([]byte(tt.sys)); got != tt.want {
			t.Errorf("runIDOf(%s) = %q, want %q", tt.sys, got, tt.want)
		}
		var c runIDs
		got, _ := c.of([]byte(tt.sys)).(string)
		if tt.sys != "not json" && got != tt.want {
			t.Errorf("runIDs.of(%s) = %q, want %q", tt.sys, got, tt.want)
		}
	}
	// One boxed value for the rows of one run.
	var c runIDs
	a, b := c.of([]byte(`{"runId":"r","lastObserved":1}`)), c.of([]byte(`{"lastObserved":2,"runId":"r"}`))
	next := []byte(`{"lastObserved":3,"runId":"r"}`)
	if allocs := testing.AllocsPerRun(100, func() { c.of(next) }); allocs != 0 || a != b {
		t.Errorf("runIDs.of allocates %.0f times a row of the same run (values %v, %v)", allocs, a, b)
	}
}
