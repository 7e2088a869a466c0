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
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
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
	if _, err := svc.EnsureUser(ctx, auth.RootUser, user); err != nil {
		t.Fatal(err)
	}
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

// TestTokensEndEverywhere checks that a token stops working with the next
// request on every replica once it is revoked, or its user suspended,
// soft-deleted or hard-deleted, though every replica had it cached: two
// services on one database stand for two replicas (two processes on one
// SQLite file, two servers on one PostgreSQL schema).
func TestTokensEndEverywhere(t *testing.T) {
	for _, c := range []struct {
		name string
		dsn  func(testing.TB) string
	}{
		{"sqlite", storetest.SQLiteDSN},
		{"postgres", storetest.PostgresDSN},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := c.dsn(t)
			testTokensEndEverywhere(t, storetest.Open(t, dsn), storetest.Open(t, dsn))
		})
	}
}

func testTokensEndEverywhere(t *testing.T, dbA, dbB *store.DB) {
	ctx := context.Background()
	a, ingA := setupOn(t, dbA)
	b, _ := setupOn(t, dbB)
	const user = "urn:li:corpuser:leaver"
	if _, err := a.EnsureUser(ctx, auth.RootUser, user); err != nil {
		t.Fatal(err)
	}
	personal, meta, err := a.CreateAccessToken(ctx, user, user, "mine", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	session, err := a.IssueToken(ctx, auth.RootUser, user, auth.Session, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetPassword(ctx, auth.RootUser, "leaver", "leaver-password"); err != nil {
		t.Fatal(err)
	}
	login, err := b.Login(ctx, "leaver", "leaver-password", auth.Client{Address: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{"personal": personal, "stateless session": session, "login session": login.AccessToken}
	expect := func(step string, want map[string]int) {
		t.Helper()
		for _, svc := range []struct {
			name string
			s    *auth.Service
		}{{"A", a}, {"B", b}} {
			for name, tok := range tokens {
				if got := status(svc.s, tok); got != want[name] {
					t.Errorf("%s: %s token on replica %s answered %d, want %d", step, name, svc.name, got, want[name])
				}
			}
		}
	}
	write := func(p catalog.Proposal) {
		t.Helper()
		if _, err := ingA.Ingest(ctx, auth.RootUser, []catalog.Proposal{p}); err != nil {
			t.Fatal(err)
		}
	}
	userStatus := func(s string) catalog.Proposal {
		return upsert("corpuser", user, "corpUserStatus", map[string]any{"status": s,
			"lastModified": map[string]any{"time": time.Now().UnixMilli(), "actor": auth.RootUser}})
	}
	all := map[string]int{"personal": 200, "stateless session": 200, "login session": 200}
	expect("fresh", all) // and cached on both

	write(userStatus("SUSPENDED"))
	expect("suspended", map[string]int{"personal": 403, "stateless session": 403, "login session": 403})
	write(userStatus("ACTIVE"))
	expect("reactivated", all)

	write(upsert("corpuser", user, "status", map[string]any{"removed": true}))
	expect("soft-deleted", map[string]int{"personal": 403, "stateless session": 403, "login session": 403})
	write(upsert("corpuser", user, "status", map[string]any{"removed": false}))
	expect("restored", all)

	if err := a.RevokeAccessToken(ctx, user, meta.ID); err != nil {
		t.Fatal(err)
	}
	expect("personal token revoked", map[string]int{"personal": 401, "stateless session": 200, "login session": 200})

	write(catalog.Proposal{EntityType: "corpuser", EntityURN: user, AspectName: "corpUserKey", ChangeType: catalog.Delete})
	expect("hard-deleted", map[string]int{"personal": 401, "stateless session": 403, "login session": 403})
}

// status is the status a request with token gets through s's middleware.
func status(s *auth.Service, token string) int {
	return statusWith(s, "Bearer "+token)
}

// statusWith is the status a request with the Authorization header h gets
// through s's middleware.
func statusWith(s *auth.Service, h string) int {
	r := authRequest("")
	r.Header.Set("Authorization", h)
	w := httptest.NewRecorder()
	s.Middleware(auth.MiddlewareConfig{Enabled: true, WriteError: func(w http.ResponseWriter, _ *http.Request, err error) {
		switch catalog.KindOf(err) {
		case catalog.Unauthorized:
			w.WriteHeader(401)
		case catalog.Forbidden:
			w.WriteHeader(403)
		default:
			w.WriteHeader(500)
		}
	}}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
	return w.Code
}
