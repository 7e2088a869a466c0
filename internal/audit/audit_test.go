package audit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
)

func TestTypeOf(t *testing.T) {
	for _, c := range []struct {
		aspect  string
		deleted bool
		want    string
	}{
		{"dataHubAccessTokenKey", false, CreateAccessTokenEvent},
		{"dataHubAccessTokenKey", true, RevokeAccessTokenEvent},
		{"dataHubPolicyKey", false, CreatePolicyEvent},
		{"dataHubPolicyInfo", false, UpdatePolicyEvent},
		{"dataHubPolicyKey", true, DeletePolicyEvent},
		{"dataHubIngestionSourceKey", false, CreateIngestionSourceEvent},
		{"dataHubIngestionSourceInfo", false, UpdateIngestionSourceEvent},
		{"corpUserKey", false, CreateUserEvent},
		{"corpUserCredentials", false, UpdateUserEvent},
		{"roleMembership", false, UpdateUserEvent},
		{"globalTags", false, UpdateAspectEvent},
		{"globalTags", true, DeleteEntityEvent},
		{"datasetKey", true, DeleteEntityEvent},
	} {
		if got := TypeOf(c.aspect, c.deleted); got != c.want {
			t.Errorf("TypeOf(%s, %v) = %s, want %s", c.aspect, c.deleted, got, c.want)
		}
	}
}

// TestScrollExpires checks that a scroll id stops working after its
// lifetime, and that one issued before still works within it.
func TestScrollExpires(t *testing.T) {
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
	now := time.Now()
	r.now = func() time.Time { return now }
	for i := 0; i < 3; i++ {
		if err := r.Record(ctx, Event{Type: LogInEvent, Actor: "urn:li:corpuser:x", Timestamp: now.UnixMilli() - int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	q := Query{Start: now.Add(-time.Hour).UnixMilli(), End: now.UnixMilli() + 1, Size: 1}
	p, err := r.Search(ctx, q)
	if err != nil || p.Next == "" || p.Total != 3 {
		t.Fatalf("first page: %+v, %v", p, err)
	}
	q.ScrollID = p.Next
	if _, err := r.Search(ctx, q); err != nil {
		t.Fatalf("fresh scroll id: %v", err)
	}
	now = now.Add(scrollLifetime + time.Second)
	q.End = now.UnixMilli()
	_, err = r.Search(ctx, q)
	if catalog.KindOf(err) != catalog.Invalid || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("stale scroll id: %v", err)
	}
	// A different key (another deployment) does not accept it either.
	r2, _ := New(ctx, db, []byte("other"))
	r2.now = r.now
	if _, err := r2.Search(ctx, Query{Start: q.Start, End: q.End, Size: 1, ScrollID: p.Next}); catalog.KindOf(err) != catalog.Invalid {
		t.Fatalf("scroll id from another key: %v", err)
	}
}

// TestNewID checks the ids' form, which sorts as text on both databases the
// same way: sixteen lowercase hex digits, leading zeros kept.
func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newID()
		if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
			t.Fatalf("newID() = %q, want 16 lowercase hex digits", id)
		}
		seen[id] = true
	}
	if len(seen) < 1000 {
		t.Errorf("newID gave %d distinct ids in 1000 calls", len(seen))
	}
}
