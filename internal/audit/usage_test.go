package audit

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/catalogd/catalogd/internal/store"
)

// TestUsage checks the usage reads behind the recommendations: per actor,
// per event type (and source), by latest use or by count.
func TestUsage(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, err := New(ctx, db, []byte("key"))
	if err != nil {
		t.Fatal(err)
	}
	const ann, bob = "urn:li:corpuser:ann", "urn:li:corpuser:bob"
	evs := []Event{
		{Type: EntityViewEventType, Actor: ann, EntityURN: "a", Timestamp: 1},
		{Type: EntityViewEventType, Actor: ann, EntityURN: "a", Timestamp: 2},
		{Type: EntityViewEventType, Actor: ann, EntityURN: "b", Timestamp: 3},
		{Type: EntityViewEventType, Actor: bob, EntityURN: "c", Timestamp: 4},
		{Type: EntityViewEventType, Actor: bob, EntityURN: "a", Timestamp: 5},
		{Type: UpdateAspectEvent, Actor: ann, EntityURN: "d", Timestamp: 6, Request: Request{Source: SourceGraphQL}},
		{Type: UpdateAspectEvent, Actor: ann, EntityURN: "e", Timestamp: 7, Request: Request{Source: SourceRestli}},
		{Type: SearchResultsViewEventType, Actor: ann, Query: "orders", Timestamp: 8},
		{Type: SearchResultsViewEventType, Actor: ann, Timestamp: 9},
		{Type: SearchResultsViewEventType, Actor: ann, Query: "users", Timestamp: 10},
		{Type: SearchResultsViewEventType, Actor: ann, Query: "orders", Timestamp: 11},
		{Type: SearchResultsViewEventType, Actor: bob, Query: "bob's", Timestamp: 12},
	}
	if err := r.Record(ctx, evs...); err != nil {
		t.Fatal(err)
	}
	keys := func(es []UsageEntry, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprintf("%s:%d", e.Key, e.Count))
		}
		return fmt.Sprint(out)
	}
	views := []string{EntityViewEventType}
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"ann's recent views", keys(r.RecentEntities(ctx, UsageQuery{Actor: ann, Types: views, Limit: 10})), "[b:1 a:2]"},
		{"bob's recent views", keys(r.RecentEntities(ctx, UsageQuery{Actor: bob, Types: views, Limit: 10})), "[a:1 c:1]"},
		{"most viewed", keys(r.PopularEntities(ctx, UsageQuery{Types: views, Limit: 10})), "[a:3 c:1 b:1]"},
		{"limit", keys(r.PopularEntities(ctx, UsageQuery{Types: views, Limit: 1})), "[a:3]"},
		{"edits through GraphQL", keys(r.RecentEntities(ctx, UsageQuery{Actor: ann, Types: []string{UpdateAspectEvent},
			Sources: map[string]string{UpdateAspectEvent: SourceGraphQL}, Limit: 10})), "[d:1]"},
		{"ann's searches", keys(r.RecentSearches(ctx, UsageQuery{Actor: ann, Types: []string{SearchResultsViewEventType}, Limit: 10})), "[orders:2 users:1]"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}
	if _, err := r.RecentEntities(ctx, UsageQuery{Types: views}); err == nil {
		t.Errorf("a usage read without a limit succeeded")
	}
}
