package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogd/catalogd/client"
)

func newClient(t testing.TB, opts ...client.Option) (*client.Client, string) {
	t.Helper()
	u, stop := startServer()
	t.Cleanup(stop)
	c, err := client.New(u, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, u
}

func aspectJSON(t *testing.T, e *client.ReadOnlyEntity, name string, v any) {
	t.Helper()
	ok, err := e.DecodeAspect(name, v)
	if err != nil || !ok {
		t.Fatalf("aspect %s of %s: present %v, %v", name, e.URN(), ok, err)
	}
}

type tagsValue struct {
	Tags []struct {
		Tag string `json:"tag"`
	} `json:"tags"`
}

func TestUpdateNeedsExistingEntity(t *testing.T) {
	c, _ := newClient(t)
	ctx := context.Background()
	ds := client.NewDataset("hive", "db.orders", "PROD")

	err := c.Update(ctx, client.NewDataset("hive", "db.orders", "PROD").AddTag("pii"))
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("Update of an absent entity: %v, want ErrNotFound", err)
	}
	if ok, _ := c.Exists(ctx, ds.URN()); ok {
		t.Fatal("the failed Update created the entity")
	}
	if err := c.Upsert(ctx, ds.SetAspect("datasetProperties", map[string]any{"name": "orders"})); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, client.NewDataset("hive", "db.orders", "PROD").AddTag("pii")); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctx, ds.URN())
	if err != nil {
		t.Fatal(err)
	}
	var tags tagsValue
	aspectJSON(t, got, "globalTags", &tags)
	if len(tags.Tags) != 1 || tags.Tags[0].Tag != "urn:li:tag:pii" {
		t.Fatalf("globalTags = %+v", tags)
	}
	if err := c.Update(ctx, client.NewDataset("hive", "db.orders", "PROD").SetAspect("status", map[string]any{"removed": false})); err == nil {
		t.Fatal("Update with a full aspect succeeded")
	}
}

// TestConcurrentUpdates adds a different tag from each of many goroutines;
// none may be lost.
func TestConcurrentUpdates(t *testing.T) {
	c, _ := newClient(t)
	ctx := context.Background()
	ds := client.NewDataset("hive", "db.busy", "PROD")
	if err := c.Upsert(ctx, ds.SetAspect("datasetProperties", map[string]any{"name": "busy"})); err != nil {
		t.Fatal(err)
	}
	const n = 30
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := client.NewDataset("hive", "db.busy", "PROD").AddTag(fmt.Sprintf("t%02d", i)).AddOwner(fmt.Sprintf("user%02d", i), client.TechnicalOwner)
			errs <- c.Update(ctx, e)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Get(ctx, ds.URN())
	if err != nil {
		t.Fatal(err)
	}
	var tags tagsValue
	aspectJSON(t, got, "globalTags", &tags)
	var owners struct{ Owners []any }
	aspectJSON(t, got, "ownership", &owners)
	if len(tags.Tags) != n || len(owners.Owners) != n {
		t.Fatalf("%d tags and %d owners after %d concurrent updates", len(tags.Tags), len(owners.Owners), n)
	}
}

// TestReadOnlyEntity checks that a fetched entity offers no way to change it
// and that its mutable copy is independent.
func TestReadOnlyEntity(t *testing.T) {
	c, _ := newClient(t)
	ctx := context.Background()
	if err := c.Upsert(ctx, client.NewTag("pii", "Personal data")); err != nil {
		t.Fatal(err)
	}
	ro, err := c.Get(ctx, "urn:li:tag:pii")
	if err != nil {
		t.Fatal(err)
	}
	roType := reflect.TypeOf(ro)
	for i := 0; i < reflect.TypeOf(&client.Entity{}).NumMethod(); i++ {
		name := reflect.TypeOf(&client.Entity{}).Method(i).Name
		if strings.HasPrefix(name, "Add") || strings.HasPrefix(name, "Set") || strings.HasPrefix(name, "Remove") || name == "Patch" {
			if _, ok := roType.MethodByName(name); ok {
				t.Errorf("ReadOnlyEntity has the mutator %s", name)
			}
		}
	}
	// The returned bytes are copies: scribbling on them changes nothing.
	v, _ := ro.Aspect("tagProperties")
	copy(v, "XXXXXXXX")
	if again, _ := ro.Aspect("tagProperties"); strings.HasPrefix(string(again), "XXXX") {
		t.Fatal("Aspect exposed the entity's own bytes")
	}

	m := ro.Mutable()
	m.SetAspect("tagProperties", map[string]any{"name": "pii", "description": "changed"})
	before, _ := ro.Aspect("tagProperties")
	if strings.Contains(string(before), "changed") {
		t.Fatal("changing the mutable copy changed the fetched entity")
	}
	if err := c.Upsert(ctx, m); err != nil {
		t.Fatal(err)
	}
	after, _ := c.Get(ctx, "urn:li:tag:pii")
	var props struct{ Description string }
	aspectJSON(t, after, "tagProperties", &props)
	if props.Description != "changed" {
		t.Fatalf("description = %q after upserting the mutable copy", props.Description)
	}
}

// TestReingestKeepsHumanEdits re-ingests a dataset's schema after people
// tagged and described a column: the edits live in editableSchemaMetadata,
// which ingestion never writes.
func TestReingestKeepsHumanEdits(t *testing.T) {
	c, _ := newClient(t)
	ctx := context.Background()
	schema := func(desc string) map[string]any {
		return map[string]any{
			"schemaName": "orders", "platform": "urn:li:dataPlatform:hive", "version": 0, "hash": "",
			"platformSchema": map[string]any{"com.linkedin.schema.OtherSchema": map[string]any{"rawSchema": ""}},
			"fields": []any{map[string]any{"fieldPath": "customer/email", "nativeDataType": "string", "description": desc,
				"type": map[string]any{"type": map[string]any{"com.linkedin.schema.StringType": map[string]any{}}}}},
		}
	}
	ingestOnce := func(desc string) {
		t.Helper()
		if err := c.Upsert(ctx, client.NewDataset("hive", "db.orders", "PROD").SetAspect("schemaMetadata", schema(desc))); err != nil {
			t.Fatal(err)
		}
	}
	ingestOnce("from ingestion")
	edit := client.NewDataset("hive", "db.orders", "PROD").
		AddColumnTag("customer/email", "pii").
		SetColumnDescription("customer/email", "The customer's e-mail").
		SetDescription("Orders, one row per order")
	if err := c.Update(ctx, edit); err != nil {
		t.Fatal(err)
	}
	ingestOnce("from ingestion, run 2")

	got, err := c.Get(ctx, edit.URN())
	if err != nil {
		t.Fatal(err)
	}
	var esm struct {
		EditableSchemaFieldInfo []struct {
			FieldPath   string
			Description string
			GlobalTags  tagsValue
		}
	}
	aspectJSON(t, got, "editableSchemaMetadata", &esm)
	if len(esm.EditableSchemaFieldInfo) != 1 {
		t.Fatalf("editableSchemaMetadata = %+v", esm)
	}
	f := esm.EditableSchemaFieldInfo[0]
	if f.FieldPath != "customer/email" || f.Description != "The customer's e-mail" || len(f.GlobalTags.Tags) != 1 {
		t.Fatalf("column edits lost: %+v", f)
	}
	var sm struct {
		Fields []struct{ Description string }
	}
	aspectJSON(t, got, "schemaMetadata", &sm)
	if sm.Fields[0].Description != "from ingestion, run 2" {
		t.Fatalf("schemaMetadata not re-ingested: %+v", sm)
	}
}

// flaky fronts the real server with a proxy that answers the first n
// requests with status.
func flaky(t *testing.T, target string, n int32, status int) (string, *atomic.Int32) {
	t.Helper()
	u, _ := url.Parse(target)
	proxy := httputil.NewSingleHostReverseProxy(u)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= n {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(map[string]any{"status": status, "message": "try later"})
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &calls
}

func TestRetries(t *testing.T) {
	_, real := newClient(t)
	tests := []struct {
		name      string
		failures  int32
		status    int
		attempts  int
		wantErr   bool
		wantCalls int32
	}{
		{"429 then success", 2, http.StatusTooManyRequests, 5, false, 3},
		{"503 then success", 1, http.StatusServiceUnavailable, 5, false, 2},
		{"503 beyond the attempts", 10, http.StatusServiceUnavailable, 3, true, 3},
		{"400 is not retried", 10, http.StatusBadRequest, 5, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, calls := flaky(t, real, tt.failures, tt.status)
			c, err := client.New(u, client.WithRetry(tt.attempts, time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			em := c.NewEmitter(10)
			p, _ := client.UpsertProposal("urn:li:tag:retry", "tagProperties", map[string]any{"name": "retry"})
			if err := em.Emit(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			err = em.Flush(context.Background())
			if (err != nil) != tt.wantErr {
				t.Fatalf("Flush: %v, want error %v", err, tt.wantErr)
			}
			var se *client.StatusError
			if tt.wantErr && (!errors.As(err, &se) || se.Status != tt.status) {
				t.Fatalf("error %v is not a StatusError %d", err, tt.status)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Fatalf("%d requests, want %d", got, tt.wantCalls)
			}
		})
	}

	t.Run("context cancellation stops retrying", func(t *testing.T) {
		u, _ := flaky(t, real, 1<<30, http.StatusServiceUnavailable)
		c, _ := client.New(u, client.WithRetry(1000, 20*time.Millisecond))
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		p, _ := client.UpsertProposal("urn:li:tag:retry", "tagProperties", map[string]any{"name": "retry"})
		start := time.Now()
		err := c.Send(ctx, []client.Proposal{p})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Send: %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("Send returned %v after the deadline", d)
		}
	})
}

func TestProposals(t *testing.T) {
	tests := []struct {
		name   string
		entity *client.Entity
		want   []string // aspectName changeType value
	}{
		{"tag with slash escaped", client.NewDataset("s3", "bucket/key", "PROD").AddTag("a/b"),
			[]string{`globalTags PATCH [{"op":"add","path":"/tags/urn:li:tag:a~1b","value":{"tag":"urn:li:tag:a/b"}}]`}},
		{"owner and term grouped per aspect", client.NewDataset("hive", "t", "").AddOwner("alice", client.DataOwner).AddTerm("Revenue").RemoveOwner("urn:li:corpGroup:eng"),
			[]string{
				`ownership PATCH [{"op":"add","path":"/owners/urn:li:corpuser:alice/DATAOWNER","value":{"owner":"urn:li:corpuser:alice","type":"DATAOWNER"}},{"op":"remove","path":"/owners/urn:li:corpGroup:eng"}]`,
				`glossaryTerms PATCH [{"op":"add","path":"/terms/urn:li:glossaryTerm:Revenue","value":{"urn":"urn:li:glossaryTerm:Revenue"}}]`,
			}},
		{"full aspect first", client.NewTag("pii", "").SetAspect("status", map[string]bool{"removed": false}),
			[]string{`tagProperties UPSERT {"name":"pii"}`, `status UPSERT {"removed":false}`}},
		{"domain", client.NewChart("looker", "1", "Sales").SetDomain("sales"),
			[]string{`chartInfo UPSERT {"description":"","lastModified":{"created":{"actor":"urn:li:corpuser:unknown","time":0},"lastModified":{"actor":"urn:li:corpuser:unknown","time":0}},"title":"Sales"}`,
				`domains PATCH [{"op":"add","path":"/domains","value":["urn:li:domain:sales"]}]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			props, err := tt.entity.Proposals(true)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range props {
				got = append(got, p.AspectName+" "+p.ChangeType+" "+p.Aspect.Value)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	if _, err := client.NewTag("x", "").SetDescription("d").Proposals(true); err == nil {
		t.Error("SetDescription on a tag: no error")
	}
}
