package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/store"
)

// TestEdit covers proposals whose value an in-process caller computes from
// the current one inside the write transaction.
func TestEdit(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := ingest.New(registry.Default(), db)
	const urn = "urn:li:dataset:(urn:li:dataPlatform:hive,edit,PROD)"
	upsert := func(v string) catalog.Proposal {
		return catalog.Proposal{EntityType: "dataset", EntityURN: urn, ChangeType: catalog.Upsert, AspectName: "globalTags", Value: json.RawMessage(v)}
	}
	edit := func(change catalog.ChangeType, fn func(cur json.RawMessage) (json.RawMessage, error)) catalog.Proposal {
		return catalog.Proposal{EntityType: "dataset", EntityURN: urn, ChangeType: change, AspectName: "globalTags", Edit: fn}
	}
	stored := func() string {
		t.Helper()
		a, err := db.AspectVersion(ctx, urn, "globalTags", 0)
		if catalog.KindOf(err) == catalog.NotFound {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(a.Value)
	}
	var seen []string
	record := func(out string) func(json.RawMessage) (json.RawMessage, error) {
		return func(cur json.RawMessage) (json.RawMessage, error) {
			seen = append(seen, string(cur))
			if out == "" {
				return nil, nil
			}
			return json.RawMessage(out), nil
		}
	}

	// Nothing stored and nothing returned: nothing is written, not even the
	// entity's key aspect.
	if _, err := svc.Ingest(ctx, "urn:li:corpuser:x", []catalog.Proposal{edit(catalog.Upsert, record(""))}); err != nil {
		t.Fatal(err)
	}
	if got := stored(); got != "" || len(seen) != 1 || seen[0] != "" {
		t.Fatalf("after an empty edit of nothing: stored %q, edit saw %q", got, seen)
	}
	if rows, err := db.LatestAspects(ctx, []string{urn}, nil); err != nil || len(rows[urn]) != 0 {
		t.Fatalf("an edit that wrote nothing created %v (%v)", rows[urn], err)
	}

	// The edit sees what an earlier proposal of the request wrote.
	seen = nil
	_, err = svc.Ingest(ctx, "urn:li:corpuser:x", []catalog.Proposal{
		upsert(`{"tags":[{"tag":"urn:li:tag:a"}]}`),
		edit(catalog.Upsert, record(`{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"tags":[{"tag":"urn:li:tag:a"}]}`; len(seen) != 1 || seen[0] != want {
		t.Errorf("edit saw %q, want %s", seen, want)
	}
	if got, want := stored(), `{"tags":[{"tag":"urn:li:tag:a"},{"tag":"urn:li:tag:b"}]}`; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}

	// Rejected edits leave the stored value alone.
	before := stored()
	for name, p := range map[string]catalog.Proposal{
		"not an UPSERT":        edit(catalog.Patch, record(`{"tags":[]}`)),
		"value off its schema": edit(catalog.Upsert, record(`{"tags":"none"}`)),
		"edit fails": edit(catalog.Upsert, func(json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("no")
		}),
	} {
		if _, err := svc.Ingest(ctx, "urn:li:corpuser:x", []catalog.Proposal{p}); err == nil {
			t.Errorf("%s: no error", name)
		}
		if got := stored(); got != before {
			t.Errorf("%s: stored %s, want %s unchanged", name, got, before)
		}
	}
}
