package ingestion

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/store"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func openService(t *testing.T, now func() time.Time) (*Service, *ingest.Service) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ing := ingest.New(registry.Default(), db)
	return New(Config{Store: db, Ingest: ing, Executor: "test", Now: now}), ing
}

func putSource(t *testing.T, ing *ingest.Service, urn string, info map[string]any) {
	t.Helper()
	b, _ := json.Marshal(info)
	if _, err := ing.Ingest(context.Background(), catalog.SystemActor, []catalog.Proposal{{EntityType: sourceEntity, EntityURN: urn,
		AspectName: sourceAspect, ChangeType: catalog.Upsert, Value: b, ContentType: "application/json"}}); err != nil {
		t.Fatal(err)
	}
}

// TestSchedule checks that scheduled sources get one run per slot of their
// cron schedule, in its time zone, however many executors (or restarts)
// look at the same slots, and that sources for other executors, without a
// schedule or with a bad one get none.
func TestSchedule(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 3, 1, 10, 3, 0, 0, time.UTC)}
	svc, ing := openService(t, clk.now)
	config := map[string]any{"recipe": `{"source":{"type":"mysql"}}`, "executorId": "default"}
	const (
		every10 = "urn:li:dataHubIngestionSource:every10"
		hourly  = "urn:li:dataHubIngestionSource:paris"
	)
	putSource(t, ing, every10, map[string]any{"name": "a", "type": "mysql", "config": config,
		"schedule": map[string]any{"interval": "*/10 * * * *", "timezone": "UTC"}})
	// 11:30 in Paris (UTC+1 in March) is 10:30 UTC.
	putSource(t, ing, hourly, map[string]any{"name": "b", "type": "mysql", "config": config,
		"schedule": map[string]any{"interval": "30 11 * * *", "timezone": "Europe/Paris"}})
	putSource(t, ing, "urn:li:dataHubIngestionSource:manual", map[string]any{"name": "c", "type": "mysql", "config": config})
	putSource(t, ing, "urn:li:dataHubIngestionSource:remote", map[string]any{"name": "d", "type": "mysql",
		"config":   map[string]any{"recipe": "{}", "executorId": "remote"},
		"schedule": map[string]any{"interval": "* * * * *", "timezone": "UTC"}})
	putSource(t, ing, "urn:li:dataHubIngestionSource:bad", map[string]any{"name": "e", "type": "mysql", "config": config,
		"schedule": map[string]any{"interval": "every day", "timezone": "UTC"}})

	start := clk.now()
	first := NewExecutor(svc, ExecutorConfig{Command: []string{"true"}, Schedules: true})
	first.scheduled = start
	clk.set(time.Date(2026, 3, 1, 10, 31, 0, 0, time.UTC))
	if err := first.schedule(ctx); err != nil {
		t.Fatal(err)
	}
	// Another executor (a restart) over the same slots adds nothing.
	second := NewExecutor(svc, ExecutorConfig{Command: []string{"true"}, Schedules: true})
	second.scheduled = start
	if err := second.schedule(ctx); err != nil {
		t.Fatal(err)
	}
	count := func(source string) int {
		t.Helper()
		runs, err := svc.Runs(ctx, source)
		if err != nil {
			t.Fatal(err)
		}
		return len(runs)
	}
	for _, tt := range []struct {
		source string
		want   int
	}{
		{every10, 3}, // 10:10, 10:20, 10:30
		{hourly, 1},
		{"urn:li:dataHubIngestionSource:manual", 0},
		{"urn:li:dataHubIngestionSource:remote", 0},
		{"urn:li:dataHubIngestionSource:bad", 0},
	} {
		if got := count(tt.source); got != tt.want {
			t.Errorf("%s: %d runs, want %d", tt.source, got, tt.want)
		}
	}
	clk.set(time.Date(2026, 3, 1, 10, 45, 0, 0, time.UTC))
	if err := first.schedule(ctx); err != nil {
		t.Fatal(err)
	}
	if got := count(every10); got != 4 {
		t.Errorf("every10 after 10:40: %d runs, want 4", got)
	}
	runs, err := svc.Runs(ctx, hourly)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs of %s: %v %v", hourly, runs, err)
	}
	m, err := svc.cfg.Store.LatestAspects(ctx, []string{runs[0].URN}, []string{inputAspect})
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Task   string `json:"task"`
		Source struct {
			Type string `json:"type"`
		} `json:"source"`
		Actor string `json:"actorUrn"`
	}
	if err := json.Unmarshal(m[runs[0].URN][0].Value, &in); err != nil {
		t.Fatal(err)
	}
	if in.Task != TaskRunIngest || in.Source.Type != SourceScheduled || in.Actor != catalog.SystemActor {
		t.Errorf("scheduled request input = %+v", in)
	}
}
