package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
)

func upsert(entity, urn, aspect string, v any) catalog.Proposal {
	b, _ := json.Marshal(v)
	return catalog.Proposal{EntityType: entity, EntityURN: urn, AspectName: aspect, ChangeType: catalog.Upsert, Value: b}
}

// TestDefaultPolicies checks DataHub's defaults: every user may view, only
// owners (and the root user) may edit, only the root user administers.
func TestDefaultPolicies(t *testing.T) {
	svc, ing := setup(t)
	ctx := context.Background()
	const reader = "urn:li:corpuser:reader"
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,owned,PROD)"
	res := auth.Resource{Type: "dataset", URN: ds}
	check := func(actor string, r auth.Resource, priv string, want bool) {
		t.Helper()
		got, err := svc.Allowed(ctx, actor, r, priv)
		if err != nil || got != want {
			t.Errorf("Allowed(%s, %v, %s) = %v, %v; want %v", actor, r, priv, got, err, want)
		}
	}
	check(reader, res, auth.PrivViewEntity, true)
	check(reader, res, auth.PrivEditEntity, false)
	check(reader, auth.Resource{}, auth.PrivManagePolicies, false)
	check(auth.RootUser, auth.Resource{}, auth.PrivManagePolicies, true)
	check(auth.RootUser, res, auth.PrivEditEntity, true)

	// A reader's write is refused before anything is written...
	_, err := ing.Ingest(ctx, reader, []catalog.Proposal{upsert("dataset", ds, "status", map[string]any{"removed": false})})
	if catalog.KindOf(err) != catalog.Forbidden {
		t.Fatalf("reader write: %v", err)
	}
	// ...until the root user makes them an owner.
	if _, err := ing.Ingest(ctx, auth.RootUser, []catalog.Proposal{upsert("dataset", ds, "ownership",
		map[string]any{"owners": []any{map[string]any{"owner": reader, "type": "DATAOWNER"}}})}); err != nil {
		t.Fatal(err)
	}
	if _, err := ing.Ingest(ctx, reader, []catalog.Proposal{upsert("dataset", ds, "status", map[string]any{"removed": false})}); err != nil {
		t.Fatalf("owner write: %v", err)
	}
	// Owning an entity grants nothing over policies or credentials.
	_, err = ing.Ingest(ctx, reader, []catalog.Proposal{upsert("corpuser", reader, "corpUserCredentials", map[string]any{"salt": "x", "hashedPassword": "y"})})
	if catalog.KindOf(err) != catalog.Forbidden {
		t.Fatalf("credential write by reader: %v", err)
	}
}

// TestRevokeAtOnce checks that a revoked personal token stops working with
// the next request, though it was cached.
func TestRevokeAtOnce(t *testing.T) {
	svc, _ := setup(t)
	ctx := context.Background()
	const user = "urn:li:corpuser:someone"
	tok, meta, err := svc.CreateAccessToken(ctx, user, user, "mine", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	list, total, err := svc.ListAccessTokens(ctx, user, "", 0, 10)
	if err != nil || total != 1 || list[0].ID != meta.ID {
		t.Fatalf("list: %v %d %v", list, total, err)
	}
	h := func() int {
		w := httptest.NewRecorder()
		svc.Middleware(auth.MiddlewareConfig{Enabled: true, WriteError: func(w2 http.ResponseWriter, _ *http.Request, err error) {
			w2.WriteHeader(401)
		}}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, authRequest(tok))
		return w.Code
	}
	if s := h(); s != 200 {
		t.Fatalf("fresh token: %d", s)
	}
	if err := svc.RevokeAccessToken(ctx, "urn:li:corpuser:other", meta.ID); catalog.KindOf(err) != catalog.Forbidden {
		t.Fatalf("revoke by a stranger: %v", err)
	}
	if err := svc.RevokeAccessToken(ctx, user, meta.ID); err != nil {
		t.Fatal(err)
	}
	if s := h(); s != 401 {
		t.Fatalf("revoked token: %d", s)
	}
}

func authRequest(token string) *http.Request {
	r := httptest.NewRequest("GET", "/entitiesV2/urn%3Ali%3Acorpuser%3Ax", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}
