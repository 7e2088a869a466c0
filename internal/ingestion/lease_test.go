package ingestion

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// TestSharedExecutorsLease checks two executors sharing one store (as
// replicas on PostgreSQL do): a run one of them has in progress is never
// failed by the other, while a run left RUNNING by a process that stopped
// is failed once it has recorded no progress for the lease.
func TestSharedExecutorsLease(t *testing.T) {
	svc, ing := openService(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	const src = "urn:li:dataHubIngestionSource:shared"
	putSource(t, ing, src, map[string]any{"name": "s", "type": "mysql",
		"config": map[string]any{"recipe": `{"source":{"type":"mysql"}}`, "executorId": "default"}})
	cfg := ExecutorConfig{Command: []string{"sh", "-c", "sleep 2; echo done"}, Lease: 800 * time.Millisecond, Poll: 50 * time.Millisecond}
	var wg sync.WaitGroup
	for range 2 {
		ex := NewExecutor(svc, cfg)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex.Run(ctx)
		}()
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	live, err := svc.CreateRun(ctx, catalog.SystemActor, src)
	if err != nil {
		t.Fatal(err)
	}
	abandoned := "urn:li:dataHubExecutionRequest:abandoned"
	for _, p := range []struct {
		aspect string
		value  any
	}{
		{inputAspect, map[string]any{"task": TaskRunIngest, "args": map[string]any{}, "executorId": "default",
			"source": map[string]any{"type": SourceManual, "ingestionSource": src}, "requestedAt": 1}},
		{resultAspect, map[string]any{"status": StatusRunning, "startTimeMs": time.Now().UnixMilli()}},
	} {
		prop, _ := svc.proposal(requestEntity, abandoned, p.aspect, p.value)
		if _, err := ing.Ingest(ctx, catalog.SystemActor, []catalog.Proposal{prop}); err != nil {
			t.Fatal(err)
		}
	}
	status := func(urn string) (string, string) {
		t.Helper()
		m, err := svc.cfg.Store.LatestAspects(ctx, []string{urn}, []string{resultAspect})
		if err != nil {
			t.Fatal(err)
		}
		var r result
		for _, a := range m[urn] {
			_ = json.Unmarshal(a.Value, &r)
		}
		return r.Status, r.Report
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s1, _ := status(live)
		s2, _ := status(abandoned)
		if (s1 != StatusRunning && s1 != "") && s2 != StatusRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20s: live run %q, abandoned run %q", s1, s2)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s, report := status(live); s != StatusSuccess || !strings.Contains(report, "done") {
		t.Errorf("the run in progress (2s, lease 0.8s): %s %q", s, report)
	}
	if s, report := status(abandoned); s != StatusFailure || !strings.Contains(report, "catalogd stopped while this run was in progress") {
		t.Errorf("the abandoned run: %s %q", s, report)
	}
}
