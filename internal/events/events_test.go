package events

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/catalogd/catalogd/internal/ingest"
)

func TestCreationsFirst(t *testing.T) {
	ch := func(urn, aspect string, created bool) ingest.AspectChange {
		c := ingest.AspectChange{URN: urn, Aspect: aspect, Value: []byte(`{}`)}
		if !created {
			c.Previous = []byte(`{}`)
		}
		return c
	}
	tests := []struct {
		name    string
		changes []ingest.AspectChange
		want    string
	}{
		{"key after the aspects of its entity", []ingest.AspectChange{
			ch("a", "globalTags", true), ch("b", "globalTags", true), ch("a", "ownership", true), ch("a", "datasetKey", true), ch("b", "datasetKey", true),
		}, "[3 0 4 1 2]"},
		{"key first already", []ingest.AspectChange{ch("a", "datasetKey", true), ch("a", "globalTags", true)}, "[0 1]"},
		{"an updated key is no creation", []ingest.AspectChange{ch("a", "globalTags", false), ch("a", "datasetKey", false)}, "[0 1]"},
		{"keys without lifecycle events stay", []ingest.AspectChange{ch("u", "corpUserInfo", true), ch("u", "corpUserKey", true)}, "[0 1]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint(creationsFirst(tc.changes)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestOffsetIDs(t *testing.T) {
	for _, p := range []Position{{0, 0}, {42, 0}, {42, 7}} {
		got, err := DecodeOffset(EncodeOffset(p))
		if err != nil || got != p {
			t.Errorf("round trip of %v: %v, %v", p, got, err)
		}
	}
	// DataHub's shape: base64 of {"PlatformEvent_v1-0": offset}.
	if got := EncodeOffset(Position{Change: 2}); got != base64.StdEncoding.EncodeToString([]byte(`{"PlatformEvent_v1-0":2}`)) {
		t.Errorf("offset id %s", got)
	}
	for _, bad := range []string{"", "!!", base64.StdEncoding.EncodeToString([]byte(`{"PlatformEvent_v1-0":"x"}`)),
		base64.StdEncoding.EncodeToString([]byte(`{"PlatformEvent_v1-0":1,"other":2}`)), base64.StdEncoding.EncodeToString([]byte(`[]`))} {
		if _, err := DecodeOffset(bad); err == nil {
			t.Errorf("offset id %q accepted", bad)
		}
	}
}
