// Package catalogtest holds the contract suites that every implementation of
// a catalog port must pass, so that the SQLite and PostgreSQL stores (and any
// later one) are held to exactly the same behaviour.
package catalogtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

const actor = "urn:li:corpuser:tester"

func stamp(ms int64) catalog.AuditStamp { return catalog.AuditStamp{Time: ms, Actor: actor} }

func aspect(urn, name, value string, ms int64) catalog.Aspect {
	return catalog.Aspect{URN: urn, Name: name, Value: json.RawMessage(value),
		SystemMetadata: json.RawMessage(`{"runId":"test"}`), Created: stamp(ms)}
}

// RunStoreTests runs the catalog.Store contract against stores made by open.
// open is called once per subtest and must return an empty store; the caller
// owns closing it (typically with t.Cleanup).
func RunStoreTests(t *testing.T, open func(t *testing.T) catalog.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s catalog.Store)
	}{
		{"LatestAspects", testLatestAspects},
		{"Versions", testVersions},
		{"Current", testCurrent},
		{"DuplicateWritesInBatch", testDuplicateWrites},
		{"HistoryConflict", testHistoryConflict},
		{"InvalidWrites", testInvalidWrites},
		{"Atomicity", testAtomicity},
		{"ReadYourWrites", testReadYourWrites},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"ConcurrentFailures", testConcurrentFailures},
		{"LargeBatch", testLargeBatch},
		{"Timeseries", testTimeseries},
		{"Edges", testEdges},
		{"DeleteAspect", testDeleteAspect},
		{"DeleteEntity", testDeleteEntity},
		{"ScanLatest", testScanLatest},
		{"Cancelled", testCancelled},
		{"Runs", testRuns},
		{"RevertAspect", testRevertAspect},
		{"DeleteRunTimeseries", testDeleteRunTimeseries},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

func update(t *testing.T, s catalog.Store, fn func(tx catalog.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func put(t *testing.T, s catalog.Store, writes ...catalog.AspectWrite) {
	t.Helper()
	update(t, s, func(tx catalog.Tx) error { return tx.PutAspects(context.Background(), writes) })
}

// putVersioned writes value as the new latest aspect the way the ingest
// pipeline does: read the current state, keep it as the next history version.
func putVersioned(ctx context.Context, tx catalog.Tx, a catalog.Aspect) error {
	cur, err := tx.Current(ctx, []string{a.URN})
	if err != nil {
		return err
	}
	w := catalog.AspectWrite{Aspect: a}
	if c, ok := cur[a.URN][a.Name]; ok {
		w.History = c.MaxVersion + 1
		w.Previous = c.Aspect
	}
	return tx.PutAspects(ctx, []catalog.AspectWrite{w})
}

func equalJSON(t *testing.T, what string, got, want json.RawMessage) {
	t.Helper()
	if string(got) != string(want) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func checkAspect(t *testing.T, got, want catalog.Aspect) {
	t.Helper()
	if got.URN != want.URN || got.Name != want.Name || got.Version != want.Version || got.Created != want.Created {
		t.Errorf("aspect = %s/%s v%d %+v, want %s/%s v%d %+v", got.URN, got.Name, got.Version, got.Created,
			want.URN, want.Name, want.Version, want.Created)
	}
	equalJSON(t, "value of "+want.Name, got.Value, want.Value)
	equalJSON(t, "system metadata of "+want.Name, got.SystemMetadata, want.SystemMetadata)
}

func testLatestAspects(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	a := "urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)"
	b := "urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)"
	noSys := aspect(b, "status", `{"removed":false}`, 3)
	noSys.SystemMetadata = nil
	put(t, s,
		catalog.AspectWrite{Aspect: aspect(a, "status", `{"removed":false}`, 1)},
		catalog.AspectWrite{Aspect: aspect(a, "datasetProperties", `{"name":"a"}`, 2)},
		catalog.AspectWrite{Aspect: noSys},
	)
	for _, tt := range []struct {
		name  string
		urns  []string
		names []string
		want  map[string][]string // urn -> aspect names in order
	}{
		{"none", nil, nil, map[string][]string{}},
		{"one", []string{a}, nil, map[string][]string{a: {"datasetProperties", "status"}}},
		{"many", []string{a, b, "urn:li:dataset:missing"}, nil, map[string][]string{a: {"datasetProperties", "status"}, b: {"status"}}},
		{"one name", []string{a, b}, []string{"status"}, map[string][]string{a: {"status"}, b: {"status"}}},
		{"names", []string{a, b}, []string{"status", "datasetProperties", "ownership"}, map[string][]string{a: {"datasetProperties", "status"}, b: {"status"}}},
		{"absent name", []string{a}, []string{"ownership"}, map[string][]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.LatestAspects(ctx, tt.urns, tt.names)
			if err != nil {
				t.Fatal(err)
			}
			gotNames := map[string][]string{}
			for urn, as := range got {
				for _, x := range as {
					if x.URN != urn || x.Version != 0 {
						t.Errorf("row %s/%s v%d under key %s", x.URN, x.Name, x.Version, urn)
					}
					gotNames[urn] = append(gotNames[urn], x.Name)
				}
			}
			if fmt.Sprint(gotNames) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", gotNames, tt.want)
			}
		})
	}
	got, err := s.LatestAspects(ctx, []string{b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkAspect(t, got[b][0], noSys)
	if got[b][0].SystemMetadata != nil {
		t.Errorf("absent system metadata read back as %q, want nil", got[b][0].SystemMetadata)
	}
}

func testVersions(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn := "urn:li:corpuser:versions"
	values := []string{`{"v":1}`, `{"v":2}`, `{"v":3}`, `{"v":4}`}
	for i, v := range values {
		update(t, s, func(tx catalog.Tx) error { return putVersioned(ctx, tx, aspect(urn, "corpUserInfo", v, int64(i+1))) })
	}
	// Latest is the last write; history 1..3 holds the earlier values, oldest first.
	want := map[int64]string{0: values[3], 1: values[0], 2: values[1], 3: values[2], -1: values[2], -2: values[1], -3: values[0]}
	for version, value := range want {
		t.Run(fmt.Sprint("version ", version), func(t *testing.T) {
			got, err := s.AspectVersion(ctx, urn, "corpUserInfo", version)
			if err != nil {
				t.Fatal(err)
			}
			equalJSON(t, "value", got.Value, json.RawMessage(value))
			if version >= 0 && got.Version != version {
				t.Errorf("Version = %d, want %d", got.Version, version)
			}
		})
	}
	for _, tt := range []struct {
		urn, name string
		version   int64
	}{
		{urn, "corpUserInfo", 4},
		{urn, "corpUserInfo", -5},
		{urn, "status", 0},
		{urn, "status", -1},
		{"urn:li:corpuser:nobody", "corpUserInfo", 0},
	} {
		t.Run(fmt.Sprintf("absent %s %s %d", tt.urn, tt.name, tt.version), func(t *testing.T) {
			_, err := s.AspectVersion(ctx, tt.urn, tt.name, tt.version)
			if catalog.KindOf(err) != catalog.NotFound {
				t.Fatalf("err = %v (kind %v), want NotFound", err, catalog.KindOf(err))
			}
			for _, part := range []string{tt.urn, tt.name, fmt.Sprint(tt.version)} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not name %q", err, part)
				}
			}
		})
	}
	// History rows keep their own audit stamps.
	h, err := s.AspectVersion(ctx, urn, "corpUserInfo", 1)
	if err != nil {
		t.Fatal(err)
	}
	checkAspect(t, h, catalog.Aspect{URN: urn, Name: "corpUserInfo", Version: 1, Value: json.RawMessage(values[0]),
		SystemMetadata: json.RawMessage(`{"runId":"test"}`), Created: stamp(1)})
	// Without history, -1 resolves to maxVersion(0) - 1 + 1 = 0: the latest row.
	put(t, s, catalog.AspectWrite{Aspect: aspect(urn, "status", `{"removed":true}`, 9)})
	got, err := s.AspectVersion(ctx, urn, "status", -1)
	if err != nil {
		t.Fatal(err)
	}
	equalJSON(t, "status -1", got.Value, json.RawMessage(`{"removed":true}`))
}

func testCurrent(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	a, b := "urn:li:corpuser:a", "urn:li:corpuser:b"
	put(t, s, catalog.AspectWrite{Aspect: aspect(a, "corpUserInfo", `{"v":1}`, 1)},
		catalog.AspectWrite{Aspect: aspect(b, "status", `{"removed":false}`, 1)})
	update(t, s, func(tx catalog.Tx) error {
		if err := putVersioned(ctx, tx, aspect(a, "corpUserInfo", `{"v":2}`, 2)); err != nil {
			return err
		}
		return putVersioned(ctx, tx, aspect(a, "corpUserInfo", `{"v":3}`, 3))
	})
	update(t, s, func(tx catalog.Tx) error {
		cur, err := tx.Current(ctx, []string{a, b, "urn:li:corpuser:none"})
		if err != nil {
			return err
		}
		if len(cur) != 2 {
			t.Errorf("Current returned %d URNs, want 2: %v", len(cur), cur)
		}
		c := cur[a]["corpUserInfo"]
		if c.MaxVersion != 2 || string(c.Value) != `{"v":3}` || c.Version != 0 || c.Created != stamp(3) {
			t.Errorf("current of a = v%d max %d %s %+v, want v0 max 2 {\"v\":3}", c.Version, c.MaxVersion, c.Value, c.Created)
		}
		if c := cur[b]["status"]; c.MaxVersion != 0 || string(c.Value) != `{"removed":false}` {
			t.Errorf("current of b = max %d %s", c.MaxVersion, c.Value)
		}
		empty, err := tx.Current(ctx, nil)
		if err != nil || len(empty) != 0 {
			t.Errorf("Current(nil) = %v, %v", empty, err)
		}
		return nil
	})
}

func testDuplicateWrites(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn := "urn:li:corpuser:dup"
	first := aspect(urn, "corpUserInfo", `{"v":1}`, 1)
	put(t, s, catalog.AspectWrite{Aspect: first})
	// Two writes of one aspect in one batch chain like two sequential writes.
	second := aspect(urn, "corpUserInfo", `{"v":2}`, 2)
	third := aspect(urn, "corpUserInfo", `{"v":3}`, 3)
	put(t, s, catalog.AspectWrite{Aspect: second, History: 1, Previous: first},
		catalog.AspectWrite{Aspect: third, History: 2, Previous: second})
	for v, want := range map[int64]string{0: `{"v":3}`, 1: `{"v":1}`, 2: `{"v":2}`} {
		got, err := s.AspectVersion(ctx, urn, "corpUserInfo", v)
		if err != nil {
			t.Fatal(err)
		}
		equalJSON(t, fmt.Sprint("version ", v), got.Value, json.RawMessage(want))
	}
}

func testHistoryConflict(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn := "urn:li:corpuser:conflict"
	first := aspect(urn, "corpUserInfo", `{"v":1}`, 1)
	put(t, s, catalog.AspectWrite{Aspect: first})
	put(t, s, catalog.AspectWrite{Aspect: aspect(urn, "corpUserInfo", `{"v":2}`, 2), History: 1, Previous: first})
	err := s.Update(ctx, func(tx catalog.Tx) error {
		return tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: aspect(urn, "corpUserInfo", `{"v":3}`, 3), History: 1, Previous: first}})
	})
	if catalog.KindOf(err) != catalog.Conflict {
		t.Fatalf("rewriting history version 1: err = %v (kind %v), want Conflict", err, catalog.KindOf(err))
	}
	got, err := s.AspectVersion(ctx, urn, "corpUserInfo", 0)
	if err != nil {
		t.Fatal(err)
	}
	equalJSON(t, "latest after conflict", got.Value, json.RawMessage(`{"v":2}`))
}

func testInvalidWrites(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	for name, fn := range map[string]func(tx catalog.Tx) error{
		"aspect without value": func(tx catalog.Tx) error {
			return tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: catalog.Aspect{URN: "urn:li:corpuser:x", Name: "status"}}})
		},
		"aspect without urn": func(tx catalog.Tx) error {
			return tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: aspect("", "status", `{}`, 1)}})
		},
		"edge of another aspect": func(tx catalog.Tx) error {
			return tx.ReplaceEdges(ctx, oneSet("urn:li:corpuser:x", "status", []catalog.Edge{{Source: "urn:li:corpuser:y", Relationship: "R", Destination: "urn:li:corpuser:z"}}))
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := s.Update(ctx, fn); catalog.KindOf(err) != catalog.Invalid {
				t.Errorf("err = %v (kind %v), want Invalid", err, catalog.KindOf(err))
			}
		})
	}
	_, _, err := s.Edges(ctx, catalog.EdgeQuery{URN: "urn:li:corpuser:x", Direction: "SIDEWAYS"})
	if catalog.KindOf(err) != catalog.Invalid {
		t.Errorf("bad direction: err = %v, want Invalid", err)
	}
}

func testAtomicity(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn := "urn:li:dataset:atomic"
	keep := aspect(urn, "status", `{"removed":false}`, 1)
	put(t, s, catalog.AspectWrite{Aspect: keep})
	failure := errors.New("boom")
	err := s.Update(ctx, func(tx catalog.Tx) error {
		if err := tx.PutAspects(ctx, []catalog.AspectWrite{
			{Aspect: aspect(urn, "status", `{"removed":true}`, 2), History: 1, Previous: keep},
			{Aspect: aspect(urn, "datasetProperties", `{}`, 2)},
		}); err != nil {
			return err
		}
		if err := tx.PutTimeseries(ctx, []catalog.TimeseriesValue{{URN: urn, Entity: "dataset", Aspect: "datasetProfile", TimestampMillis: 5, Value: json.RawMessage(`{}`)}}); err != nil {
			return err
		}
		if err := tx.ReplaceEdges(ctx, oneSet(urn, "upstreamLineage", []catalog.Edge{{Relationship: "DownstreamOf", Destination: "urn:li:dataset:up", Created: stamp(2)}})); err != nil {
			return err
		}
		return failure
	})
	if !errors.Is(err, failure) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	got, err := s.LatestAspects(ctx, []string{urn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[urn]) != 1 {
		t.Fatalf("after rollback %d aspects, want 1", len(got[urn]))
	}
	checkAspect(t, got[urn][0], keep)
	if _, err := s.AspectVersion(ctx, urn, "status", 1); catalog.KindOf(err) != catalog.NotFound {
		t.Errorf("history row survived rollback: %v", err)
	}
	if ts, _ := s.Timeseries(ctx, catalog.TimeseriesQuery{URN: urn, Aspect: "datasetProfile"}); len(ts) != 0 {
		t.Errorf("timeseries survived rollback: %v", ts)
	}
	if edges, n, _ := s.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Outgoing}); len(edges) != 0 || n != 0 {
		t.Errorf("edges survived rollback: %v", edges)
	}

	// A panic in fn also rolls back, and the store stays usable.
	func() {
		defer func() { _ = recover() }()
		_ = s.Update(ctx, func(tx catalog.Tx) error {
			_ = tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: aspect(urn, "ownership", `{}`, 3)}})
			panic("boom")
		})
	}()
	if got, _ := s.LatestAspects(ctx, []string{urn}, []string{"ownership"}); len(got) != 0 {
		t.Errorf("write survived a panic: %v", got)
	}
	put(t, s, catalog.AspectWrite{Aspect: aspect(urn, "ownership", `{}`, 3)})
}

func testReadYourWrites(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn := "urn:li:dataset:ryw"
	update(t, s, func(tx catalog.Tx) error {
		if err := tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: aspect(urn, "status", `{"removed":false}`, 1)}}); err != nil {
			return err
		}
		if err := tx.ReplaceEdges(ctx, oneSet(urn, "upstreamLineage", []catalog.Edge{{Relationship: "DownstreamOf", Destination: "urn:li:dataset:up"}})); err != nil {
			return err
		}
		got, err := tx.LatestAspects(ctx, []string{urn}, nil)
		if err != nil {
			return err
		}
		if len(got[urn]) != 1 {
			t.Errorf("tx does not see its aspect write: %v", got)
		}
		if _, err := tx.AspectVersion(ctx, urn, "status", 0); err != nil {
			t.Errorf("AspectVersion in tx: %v", err)
		}
		edges, n, err := tx.Edges(ctx, catalog.EdgeQuery{URN: "urn:li:dataset:up", Direction: catalog.Incoming, Count: 10})
		if err != nil || n != 1 || len(edges) != 1 {
			t.Errorf("tx does not see its edges: %v %d %v", edges, n, err)
		}
		scan, err := tx.ScanLatest(ctx, catalog.ScanQuery{URN: urn})
		if err != nil || len(scan) != 1 {
			t.Errorf("ScanLatest in tx = %v, %v", scan, err)
		}
		return nil
	})
}

func testConcurrentUpdates(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	const workers, each = 16, 8
	urn := "urn:li:dataset:contended"
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				// A read-modify-write counter: any lost update shows as a
				// final count below workers*each.
				errs <- s.Update(ctx, func(tx catalog.Tx) error {
					cur, err := tx.Current(ctx, []string{urn, fmt.Sprintf("urn:li:dataset:own%d", w)})
					if err != nil {
						return err
					}
					n := 0
					c, ok := cur[urn]["counter"]
					if ok {
						var v struct{ N int }
						if err := json.Unmarshal(c.Value, &v); err != nil {
							return err
						}
						n = v.N
					}
					write := catalog.AspectWrite{Aspect: aspect(urn, "counter", fmt.Sprintf(`{"N":%d}`, n+1), int64(n+1))}
					if ok {
						write.History, write.Previous = c.MaxVersion+1, c.Aspect
					}
					own := catalog.AspectWrite{Aspect: aspect(fmt.Sprintf("urn:li:dataset:own%d", w), "status", fmt.Sprintf(`{"i":%d}`, i), 1)}
					return tx.PutAspects(ctx, []catalog.AspectWrite{write, own})
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Update: %v", err)
		}
	}
	latest, err := s.AspectVersion(ctx, urn, "counter", 0)
	if err != nil {
		t.Fatal(err)
	}
	equalJSON(t, "counter", latest.Value, json.RawMessage(fmt.Sprintf(`{"N":%d}`, workers*each)))
	newest, err := s.AspectVersion(ctx, urn, "counter", -1)
	if err != nil {
		t.Fatal(err)
	}
	if newest.Version != workers*each-1 {
		t.Errorf("newest history version = %d, want %d", newest.Version, workers*each-1)
	}
	// History is in write order: version k holds count k.
	for _, v := range []int64{1, workers * each / 2, workers*each - 1} {
		got, err := s.AspectVersion(ctx, urn, "counter", v)
		if err != nil {
			t.Fatal(err)
		}
		equalJSON(t, fmt.Sprint("history ", v), got.Value, json.RawMessage(fmt.Sprintf(`{"N":%d}`, v)))
	}
}

// testConcurrentFailures runs Updates at once of which some fail or panic:
// each failure is its own caller's, and neither undoes nor fails the others.
func testConcurrentFailures(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	const writers = 48
	errFailed := errors.New("refused")
	urn := func(i int) string { return fmt.Sprintf("urn:li:dataset:w%d", i) }
	type result struct {
		err      error
		panicked any
	}
	results := make([]result, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { results[i].panicked = recover() }()
			results[i].err = s.Update(ctx, func(tx catalog.Tx) error {
				if err := tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: aspect(urn(i), "status", fmt.Sprintf(`{"i":%d}`, i), 1)}}); err != nil {
					return err
				}
				switch i % 4 {
				case 1:
					return fmt.Errorf("writer %d: %w", i, errFailed)
				case 2:
					panic(fmt.Sprintf("writer %d", i))
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for i, r := range results {
		got, err := s.LatestAspects(ctx, []string{urn(i)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 4 {
		case 1:
			if !errors.Is(r.err, errFailed) || !strings.Contains(r.err.Error(), fmt.Sprintf("writer %d:", i)) {
				t.Errorf("writer %d: Update = %v, want its own error", i, r.err)
			}
		case 2:
			if r.panicked != fmt.Sprintf("writer %d", i) {
				t.Errorf("writer %d: recovered %v, want its own panic", i, r.panicked)
			}
		default:
			if r.err != nil || r.panicked != nil {
				t.Errorf("writer %d: Update = %v, panic %v", i, r.err, r.panicked)
			}
			if len(got[urn(i)]) != 1 {
				t.Errorf("writer %d: its write is missing: %v", i, got)
			}
			continue
		}
		if len(got) != 0 {
			t.Errorf("writer %d failed but its write was kept: %v", i, got)
		}
	}
}

func testLargeBatch(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	// More rows than fit one statement under SQLite's parameter limit, and
	// more URNs than any IN-list chunk.
	const n = 6000
	urns := make([]string, n)
	writes := make([]catalog.AspectWrite, n)
	for i := range writes {
		urns[i] = fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,db.t%05d,PROD)", i)
		writes[i] = catalog.AspectWrite{Aspect: aspect(urns[i], "status", `{"removed":false}`, 1)}
	}
	put(t, s, writes...)
	update(t, s, func(tx catalog.Tx) error {
		cur, err := tx.Current(ctx, urns)
		if err != nil {
			return err
		}
		if len(cur) != n {
			t.Errorf("Current found %d URNs, want %d", len(cur), n)
		}
		for i := range writes {
			c := cur[urns[i]]["status"]
			writes[i] = catalog.AspectWrite{Aspect: aspect(urns[i], "status", `{"removed":true}`, 2), History: c.MaxVersion + 1, Previous: c.Aspect}
		}
		if err := tx.PutAspects(ctx, writes); err != nil {
			return err
		}
		ts := make([]catalog.TimeseriesValue, n)
		for i := range ts {
			ts[i] = catalog.TimeseriesValue{URN: urns[0], Entity: "dataset", Aspect: "datasetProfile", TimestampMillis: int64(i), Value: json.RawMessage(`{}`)}
		}
		if err := tx.PutTimeseries(ctx, ts); err != nil {
			return err
		}
		edges := make([]catalog.Edge, n)
		for i := range edges {
			edges[i] = catalog.Edge{Relationship: "DownstreamOf", Destination: urns[i]}
		}
		return tx.ReplaceEdges(ctx, oneSet(urns[0], "upstreamLineage", edges))
	})
	got, err := s.LatestAspects(ctx, urns, []string{"status"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("LatestAspects found %d URNs, want %d", len(got), n)
	}
	for _, u := range urns {
		if as := got[u]; len(as) != 1 || string(as[0].Value) != `{"removed":true}` {
			t.Fatalf("latest of %s = %v", u, as)
		}
	}
	h, err := s.AspectVersion(ctx, urns[n-1], "status", 1)
	if err != nil {
		t.Fatal(err)
	}
	equalJSON(t, "history", h.Value, json.RawMessage(`{"removed":false}`))
	if ts, err := s.Timeseries(ctx, catalog.TimeseriesQuery{URN: urns[0], Aspect: "datasetProfile"}); err != nil || len(ts) != n {
		t.Errorf("Timeseries = %d values, %v; want %d", len(ts), err, n)
	}
	if _, total, err := s.Edges(ctx, catalog.EdgeQuery{URN: urns[0], Direction: catalog.Outgoing, Count: 10}); err != nil || total != n {
		t.Errorf("Edges total = %d, %v; want %d", total, err, n)
	}
}

func testTimeseries(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn := "urn:li:dataset:ts"
	v := func(ts int64, partition, msg, value string) catalog.TimeseriesValue {
		return catalog.TimeseriesValue{URN: urn, Entity: "dataset", Aspect: "datasetProfile", TimestampMillis: ts,
			Partition: partition, MessageID: msg, Value: json.RawMessage(value), SystemMetadata: json.RawMessage(`{"runId":"r"}`)}
	}
	update(t, s, func(tx catalog.Tx) error {
		return tx.PutTimeseries(ctx, []catalog.TimeseriesValue{
			v(100, "", "", `{"rows":1}`),
			v(200, "", "", `{"rows":2}`),
			v(300, "", "", `{"rows":3}`),
			v(300, "p1", "", `{"rows":31}`),
			v(400, "p1", "", `{"rows":4}`),
			v(400, "p1", "m2", `{"rows":42}`),
			// Another aspect and another entity stay out of the results.
			{URN: urn, Entity: "dataset", Aspect: "operation", TimestampMillis: 250, Value: json.RawMessage(`{}`)},
			{URN: "urn:li:dataset:other", Entity: "dataset", Aspect: "datasetProfile", TimestampMillis: 250, Value: json.RawMessage(`{}`)},
		})
	})
	// Upsert on the unique key: same (ts, partition, message) replaces; a
	// duplicate within one call keeps the last.
	update(t, s, func(tx catalog.Tx) error {
		return tx.PutTimeseries(ctx, []catalog.TimeseriesValue{v(200, "", "", `{"rows":20}`), v(200, "", "", `{"rows":22}`)})
	})
	type row struct {
		ts        int64
		partition string
		value     string
	}
	for _, tt := range []struct {
		name string
		q    catalog.TimeseriesQuery
		want []row
	}{
		{"all newest first", catalog.TimeseriesQuery{}, []row{{400, "p1", `{"rows":42}`}, {400, "p1", `{"rows":4}`}, {300, "p1", `{"rows":31}`}, {300, "", `{"rows":3}`}, {200, "", `{"rows":22}`}, {100, "", `{"rows":1}`}}},
		{"limit", catalog.TimeseriesQuery{Limit: 2}, []row{{400, "p1", `{"rows":42}`}, {400, "p1", `{"rows":4}`}}},
		{"range inclusive", catalog.TimeseriesQuery{Start: 200, End: 300}, []row{{300, "p1", `{"rows":31}`}, {300, "", `{"rows":3}`}, {200, "", `{"rows":22}`}}},
		{"start only", catalog.TimeseriesQuery{Start: 350}, []row{{400, "p1", `{"rows":42}`}, {400, "p1", `{"rows":4}`}}},
		{"end only", catalog.TimeseriesQuery{End: 150}, []row{{100, "", `{"rows":1}`}}},
		{"partition", catalog.TimeseriesQuery{Partition: "p1", Limit: 10}, []row{{400, "p1", `{"rows":42}`}, {400, "p1", `{"rows":4}`}, {300, "p1", `{"rows":31}`}}},
		{"empty range", catalog.TimeseriesQuery{Start: 500}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			q.URN, q.Aspect = urn, "datasetProfile"
			got, err := s.Timeseries(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var rows []row
			for _, g := range got {
				if g.URN != urn || g.Aspect != "datasetProfile" || g.Entity != "dataset" || string(g.SystemMetadata) != `{"runId":"r"}` {
					t.Errorf("unexpected value %+v", g)
				}
				rows = append(rows, row{g.TimestampMillis, g.Partition, string(g.Value)})
			}
			if fmt.Sprint(rows) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", rows, tt.want)
			}
		})
	}
}

func testEdges(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	a, b, c, d := "urn:li:dataset:a", "urn:li:dataset:b", "urn:li:dataset:c", "urn:li:dataset:d"
	owner := "urn:li:corpuser:owner"
	update(t, s, func(tx catalog.Tx) error {
		if err := tx.ReplaceEdges(ctx, oneSet(a, "upstreamLineage", []catalog.Edge{
			{Source: a, SourceAspect: "upstreamLineage", Relationship: "DownstreamOf", Destination: c, Created: stamp(1), Properties: json.RawMessage(`{"type":"TRANSFORMED"}`)},
			{Relationship: "DownstreamOf", Destination: b, Created: stamp(1)},
			{Relationship: "DownstreamOf", Destination: b, Created: stamp(1)}, // duplicate: kept once
		})); err != nil {
			return err
		}
		if err := tx.ReplaceEdges(ctx, oneSet(a, "ownership", []catalog.Edge{{Relationship: "OwnedBy", Destination: owner, Created: stamp(1)}})); err != nil {
			return err
		}
		if err := tx.ReplaceEdges(ctx, oneSet(d, "upstreamLineage", []catalog.Edge{{Relationship: "DownstreamOf", Destination: c, Created: stamp(1)}})); err != nil {
			return err
		}
		return tx.ReplaceEdges(ctx, oneSet(b, "ownership", []catalog.Edge{{Relationship: "OwnedBy", Destination: owner, Created: stamp(1)}}))
	})
	type e struct{ src, rel, dst, aspect string }
	query := func(q catalog.EdgeQuery) ([]e, int) {
		t.Helper()
		edges, total, err := s.Edges(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []e
		for _, x := range edges {
			out = append(out, e{x.Source, x.Relationship, x.Destination, x.SourceAspect})
		}
		return out, total
	}
	for _, tt := range []struct {
		name  string
		q     catalog.EdgeQuery
		want  []e
		total int
	}{
		{"outgoing", catalog.EdgeQuery{URN: a, Direction: catalog.Outgoing},
			[]e{{a, "DownstreamOf", b, "upstreamLineage"}, {a, "DownstreamOf", c, "upstreamLineage"}, {a, "OwnedBy", owner, "ownership"}}, 3},
		{"outgoing filtered", catalog.EdgeQuery{URN: a, Direction: catalog.Outgoing, Relationships: []string{"OwnedBy"}},
			[]e{{a, "OwnedBy", owner, "ownership"}}, 1},
		{"outgoing several relationships", catalog.EdgeQuery{URN: a, Direction: catalog.Outgoing, Relationships: []string{"OwnedBy", "DownstreamOf", "Other"}},
			[]e{{a, "DownstreamOf", b, "upstreamLineage"}, {a, "DownstreamOf", c, "upstreamLineage"}, {a, "OwnedBy", owner, "ownership"}}, 3},
		{"incoming", catalog.EdgeQuery{URN: c, Direction: catalog.Incoming},
			[]e{{a, "DownstreamOf", c, "upstreamLineage"}, {d, "DownstreamOf", c, "upstreamLineage"}}, 2},
		{"incoming filtered out", catalog.EdgeQuery{URN: c, Direction: catalog.Incoming, Relationships: []string{"OwnedBy"}}, nil, 0},
		{"first page", catalog.EdgeQuery{URN: a, Direction: catalog.Outgoing, Count: 2},
			[]e{{a, "DownstreamOf", b, "upstreamLineage"}, {a, "DownstreamOf", c, "upstreamLineage"}}, 3},
		{"second page", catalog.EdgeQuery{URN: a, Direction: catalog.Outgoing, Start: 2, Count: 2},
			[]e{{a, "OwnedBy", owner, "ownership"}}, 3},
		{"past the end", catalog.EdgeQuery{URN: a, Direction: catalog.Outgoing, Start: 5, Count: 2}, nil, 3},
		{"start without count", catalog.EdgeQuery{URN: owner, Direction: catalog.Incoming, Start: 1},
			[]e{{b, "OwnedBy", owner, "ownership"}}, 2},
		{"none", catalog.EdgeQuery{URN: "urn:li:dataset:zzz", Direction: catalog.Incoming, Count: 10}, nil, 0},
		{"every edge of a relationship", catalog.EdgeQuery{Relationships: []string{"OwnedBy"}},
			[]e{{a, "OwnedBy", owner, "ownership"}, {b, "OwnedBy", owner, "ownership"}}, 2},
		{"every edge of relationships, paged", catalog.EdgeQuery{Relationships: []string{"OwnedBy", "DownstreamOf"}, Start: 1, Count: 3},
			[]e{{a, "DownstreamOf", c, "upstreamLineage"}, {d, "DownstreamOf", c, "upstreamLineage"}, {a, "OwnedBy", owner, "ownership"}}, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, total := query(tt.q)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || total != tt.total {
				t.Errorf("got %v (total %d), want %v (total %d)", got, total, tt.want, tt.total)
			}
		})
	}
	if _, _, err := s.Edges(ctx, catalog.EdgeQuery{}); catalog.KindOf(err) != catalog.Invalid {
		t.Errorf("edges of every URN and relationship: %v, want an Invalid error", err)
	}
	edges, _, err := s.Edges(ctx, catalog.EdgeQuery{URN: c, Direction: catalog.Incoming, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	if x := edges[0]; string(x.Properties) != `{"type":"TRANSFORMED"}` || x.Created != stamp(1) {
		t.Errorf("edge read back as %+v", x)
	}
	if edges, _, _ := s.Edges(ctx, catalog.EdgeQuery{URN: owner, Direction: catalog.Incoming, Count: 1}); edges[0].Properties != nil {
		t.Errorf("absent properties read back as %q", edges[0].Properties)
	}

	// Replacing touches only the edges of that source aspect.
	update(t, s, func(tx catalog.Tx) error {
		return tx.ReplaceEdges(ctx, oneSet(a, "upstreamLineage", []catalog.Edge{{Relationship: "DownstreamOf", Destination: d, Created: stamp(2)}}))
	})
	if got, total := query(catalog.EdgeQuery{URN: a, Direction: catalog.Outgoing}); total != 2 ||
		fmt.Sprint(got) != fmt.Sprint([]e{{a, "DownstreamOf", d, "upstreamLineage"}, {a, "OwnedBy", owner, "ownership"}}) {
		t.Errorf("after replace: %v", got)
	}
	// Replacing with nothing deletes.
	update(t, s, func(tx catalog.Tx) error { return tx.ReplaceEdges(ctx, oneSet(a, "ownership", nil)) })
	if _, total := query(catalog.EdgeQuery{URN: owner, Direction: catalog.Incoming}); total != 1 {
		t.Errorf("after clearing ownership of a, owner has %d incoming edges, want 1", total)
	}
	// Fresh sets (of aspects not stored before) are written alongside sets
	// that replace stored edges.
	e5 := "urn:li:dataset:e"
	update(t, s, func(tx catalog.Tx) error {
		return tx.ReplaceEdges(ctx, []catalog.EdgeSet{
			{URN: e5, Aspect: "upstreamLineage", Edges: []catalog.Edge{{Relationship: "DownstreamOf", Destination: c}}, Fresh: true},
			{URN: a, Aspect: "upstreamLineage", Edges: []catalog.Edge{{Relationship: "DownstreamOf", Destination: b}}},
			{URN: e5, Aspect: "ownership", Edges: []catalog.Edge{{Relationship: "OwnedBy", Destination: owner}}, Fresh: true},
		})
	})
	if got, _ := query(catalog.EdgeQuery{URN: a, Direction: catalog.Outgoing}); fmt.Sprint(got) != fmt.Sprint([]e{{a, "DownstreamOf", b, "upstreamLineage"}}) {
		t.Errorf("after replacing next to fresh sets, a's edges are %v", got)
	}
	if got, _ := query(catalog.EdgeQuery{URN: e5, Direction: catalog.Outgoing}); fmt.Sprint(got) != fmt.Sprint([]e{{e5, "DownstreamOf", c, "upstreamLineage"}, {e5, "OwnedBy", owner, "ownership"}}) {
		t.Errorf("fresh sets wrote %v", got)
	}
	// An edge kept under the same key takes the new stamp and properties,
	// and replacing an aspect's edges with the same ones changes nothing.
	for _, props := range []json.RawMessage{json.RawMessage(`{"type":"VIEW"}`), nil, nil} {
		update(t, s, func(tx catalog.Tx) error {
			return tx.ReplaceEdges(ctx, oneSet(e5, "upstreamLineage", []catalog.Edge{
				{Relationship: "DownstreamOf", Destination: c, Created: stamp(7), Properties: props},
				{Relationship: "DownstreamOf", Destination: d, Created: stamp(7)},
			}))
		})
		got, _, err := s.Edges(ctx, catalog.EdgeQuery{URN: e5, Direction: catalog.Outgoing, Relationships: []string{"DownstreamOf"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Destination != c || got[0].Created != stamp(7) || string(got[0].Properties) != string(props) || got[1].Destination != d {
			t.Errorf("after replacing with properties %s: %+v", props, got)
		}
	}
}

func testDeleteAspect(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn := "urn:li:dataset:da"
	for i := 1; i <= 3; i++ {
		update(t, s, func(tx catalog.Tx) error {
			return putVersioned(ctx, tx, aspect(urn, "upstreamLineage", fmt.Sprintf(`{"i":%d}`, i), int64(i)))
		})
	}
	put(t, s, catalog.AspectWrite{Aspect: aspect(urn, "status", `{}`, 1)})
	update(t, s, func(tx catalog.Tx) error {
		if err := tx.ReplaceEdges(ctx, oneSet(urn, "upstreamLineage", []catalog.Edge{{Relationship: "DownstreamOf", Destination: "urn:li:dataset:up"}})); err != nil {
			return err
		}
		return tx.ReplaceEdges(ctx, oneSet(urn, "ownership", []catalog.Edge{{Relationship: "OwnedBy", Destination: "urn:li:corpuser:o"}}))
	})
	var n int
	update(t, s, func(tx catalog.Tx) (err error) {
		n, err = tx.DeleteAspect(ctx, urn, "upstreamLineage")
		return err
	})
	if n != 3 {
		t.Errorf("DeleteAspect removed %d rows, want 3 (latest + 2 history)", n)
	}
	for _, v := range []int64{0, 1, 2, -1} {
		if _, err := s.AspectVersion(ctx, urn, "upstreamLineage", v); catalog.KindOf(err) != catalog.NotFound {
			t.Errorf("version %d after delete: %v", v, err)
		}
	}
	if got, _ := s.LatestAspects(ctx, []string{urn}, nil); len(got[urn]) != 1 || got[urn][0].Name != "status" {
		t.Errorf("other aspects after DeleteAspect: %v", got)
	}
	edges, _, err := s.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Outgoing})
	if err != nil || len(edges) != 1 || edges[0].SourceAspect != "ownership" {
		t.Errorf("edges after DeleteAspect = %v, %v; want only the ownership edge", edges, err)
	}
	update(t, s, func(tx catalog.Tx) (err error) {
		n, err = tx.DeleteAspect(ctx, urn, "upstreamLineage")
		return err
	})
	if n != 0 {
		t.Errorf("deleting an absent aspect removed %d rows", n)
	}
}

func testDeleteEntity(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn, other := "urn:li:dataset:gone", "urn:li:dataset:stays"
	for i := 1; i <= 2; i++ {
		update(t, s, func(tx catalog.Tx) error {
			return putVersioned(ctx, tx, aspect(urn, "datasetProperties", fmt.Sprintf(`{"i":%d}`, i), int64(i)))
		})
	}
	put(t, s, catalog.AspectWrite{Aspect: aspect(urn, "status", `{}`, 1)}, catalog.AspectWrite{Aspect: aspect(other, "status", `{}`, 1)})
	update(t, s, func(tx catalog.Tx) error {
		if err := tx.PutTimeseries(ctx, []catalog.TimeseriesValue{
			{URN: urn, Entity: "dataset", Aspect: "datasetProfile", TimestampMillis: 1, Value: json.RawMessage(`{}`)},
			{URN: urn, Entity: "dataset", Aspect: "datasetProfile", TimestampMillis: 2, Value: json.RawMessage(`{}`)},
			{URN: other, Entity: "dataset", Aspect: "datasetProfile", TimestampMillis: 1, Value: json.RawMessage(`{}`)},
		}); err != nil {
			return err
		}
		if err := tx.ReplaceEdges(ctx, oneSet(urn, "upstreamLineage", []catalog.Edge{{Relationship: "DownstreamOf", Destination: other}})); err != nil {
			return err
		}
		return tx.ReplaceEdges(ctx, oneSet(other, "upstreamLineage", []catalog.Edge{{Relationship: "DownstreamOf", Destination: urn}}))
	})
	var rows, tsRows int
	update(t, s, func(tx catalog.Tx) (err error) {
		rows, tsRows, err = tx.DeleteEntity(ctx, urn)
		return err
	})
	if rows != 3 || tsRows != 2 {
		t.Errorf("DeleteEntity = %d rows, %d timeseries rows; want 3, 2", rows, tsRows)
	}
	if got, _ := s.LatestAspects(ctx, []string{urn, other}, nil); len(got[urn]) != 0 || len(got[other]) != 1 {
		t.Errorf("aspects after DeleteEntity: %v", got)
	}
	if _, err := s.AspectVersion(ctx, urn, "datasetProperties", 1); catalog.KindOf(err) != catalog.NotFound {
		t.Errorf("history after DeleteEntity: %v", err)
	}
	if ts, _ := s.Timeseries(ctx, catalog.TimeseriesQuery{URN: urn, Aspect: "datasetProfile"}); len(ts) != 0 {
		t.Errorf("timeseries after DeleteEntity: %v", ts)
	}
	if ts, _ := s.Timeseries(ctx, catalog.TimeseriesQuery{URN: other, Aspect: "datasetProfile"}); len(ts) != 1 {
		t.Errorf("other entity's timeseries after DeleteEntity: %v", ts)
	}
	if _, n, _ := s.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Outgoing}); n != 0 {
		t.Errorf("%d outgoing edges after DeleteEntity", n)
	}
	// Edges owned by other entities' aspects are theirs to rewrite.
	if _, n, _ := s.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Incoming}); n != 1 {
		t.Errorf("%d incoming edges after DeleteEntity, want 1", n)
	}
}

func testScanLatest(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	var writes []catalog.AspectWrite
	for _, u := range []string{"urn:li:dataset:b", "urn:li:dataset:a", "urn:li:corpuser:x", "urn:li:dataset:c_1", "urn:li:dataset:cx1"} {
		writes = append(writes, catalog.AspectWrite{Aspect: aspect(u, "status", `{}`, 1)},
			catalog.AspectWrite{Aspect: aspect(u, "browsePaths", `{}`, 1)})
	}
	put(t, s, writes...)
	// History rows never appear.
	update(t, s, func(tx catalog.Tx) error {
		return putVersioned(ctx, tx, aspect("urn:li:dataset:a", "status", `{"removed":true}`, 2))
	})
	for _, tt := range []struct {
		name string
		q    catalog.ScanQuery
		want string
	}{
		{"all", catalog.ScanQuery{}, "urn:li:corpuser:x/browsePaths urn:li:corpuser:x/status urn:li:dataset:a/browsePaths urn:li:dataset:a/status " +
			"urn:li:dataset:b/browsePaths urn:li:dataset:b/status urn:li:dataset:c_1/browsePaths urn:li:dataset:c_1/status urn:li:dataset:cx1/browsePaths urn:li:dataset:cx1/status"},
		{"urn", catalog.ScanQuery{URN: "urn:li:dataset:a"}, "urn:li:dataset:a/browsePaths urn:li:dataset:a/status"},
		{"like", catalog.ScanQuery{URNLike: "urn:li:corpuser:%"}, "urn:li:corpuser:x/browsePaths urn:li:corpuser:x/status"},
		{"like is case-sensitive", catalog.ScanQuery{URNLike: "URN:LI:%"}, ""},
		{"like escape", catalog.ScanQuery{URNLike: `urn:li:dataset:c\_%`, Aspect: "status"}, "urn:li:dataset:c_1/status"},
		{"aspect", catalog.ScanQuery{Aspect: "status", URNLike: "urn:li:dataset:%"},
			"urn:li:dataset:a/status urn:li:dataset:b/status urn:li:dataset:c_1/status urn:li:dataset:cx1/status"},
		{"limit", catalog.ScanQuery{Aspect: "status", Limit: 2}, "urn:li:corpuser:x/status urn:li:dataset:a/status"},
		{"offset", catalog.ScanQuery{Aspect: "status", Offset: 2, Limit: 2}, "urn:li:dataset:b/status urn:li:dataset:c_1/status"},
		{"offset without limit", catalog.ScanQuery{Aspect: "status", Offset: 4}, "urn:li:dataset:cx1/status"},
		{"none", catalog.ScanQuery{Aspect: "ownership"}, ""},
		{"after", catalog.ScanQuery{URNLike: "urn:li:dataset:%", Aspect: "status", After: "urn:li:dataset:b", Limit: 1}, "urn:li:dataset:c_1/status"},
		{"after the last", catalog.ScanQuery{URNLike: "urn:li:dataset:%", Aspect: "status", After: "urn:li:dataset:cx1"}, ""},
		{"descending", catalog.ScanQuery{URNLike: "urn:li:dataset:%", Descending: true, Limit: 3}, "urn:li:dataset:cx1/status urn:li:dataset:cx1/browsePaths urn:li:dataset:c_1/status"},
		{"descending after", catalog.ScanQuery{URNLike: "urn:li:dataset:%", Aspect: "status", After: "urn:li:dataset:c_1", Descending: true}, "urn:li:dataset:b/status urn:li:dataset:a/status"},
		{"after, escaped prefix", catalog.ScanQuery{URNLike: `urn:li:dataset:c\_%`, Aspect: "status", After: "urn:li:dataset:a"}, "urn:li:dataset:c_1/status"},
		{"after, pattern that is no prefix", catalog.ScanQuery{URNLike: "urn:li:%:x", Aspect: "status", After: "urn:li:a"}, "urn:li:corpuser:x/status"},
		{"keys only", catalog.ScanQuery{URNLike: "urn:li:dataset:%", Aspect: "status", After: "urn:li:dataset:b", KeysOnly: true}, "urn:li:dataset:c_1/status urn:li:dataset:cx1/status"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ScanLatest(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			all := tt.q
			all.Offset, all.Limit = 0, 0
			every, err := s.ScanLatest(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := s.CountScan(ctx, tt.q); err != nil || n != len(every) {
				t.Errorf("CountScan = %d, %v; want %d", n, err, len(every))
			}
			var names []string
			for _, a := range got {
				if a.Version != 0 {
					t.Errorf("history row %s/%s v%d", a.URN, a.Name, a.Version)
				}
				if (a.Value == nil) != tt.q.KeysOnly {
					t.Errorf("%s/%s read with value %q", a.URN, a.Name, a.Value)
				}
				names = append(names, a.URN+"/"+a.Name)
			}
			if g := strings.Join(names, " "); g != tt.want {
				t.Errorf("got %s\nwant %s", g, tt.want)
			}
		})
	}
	got, err := s.ScanLatest(ctx, catalog.ScanQuery{URN: "urn:li:dataset:a", Aspect: "status"})
	if err != nil || len(got) != 1 || string(got[0].Value) != `{"removed":true}` {
		t.Errorf("scan of updated aspect = %v, %v", got, err)
	}
}

func testCancelled(t *testing.T, s catalog.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.LatestAspects(ctx, []string{"urn:li:dataset:a"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("LatestAspects with cancelled context: %v", err)
	}
	err := s.Update(ctx, func(tx catalog.Tx) error {
		return tx.PutAspects(ctx, []catalog.AspectWrite{{Aspect: aspect("urn:li:dataset:a", "status", `{}`, 1)}})
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update with cancelled context: %v", err)
	}
}

// oneSet wraps the edges of one aspect of one entity for Tx.ReplaceEdges.
func oneSet(urn, aspect string, edges []catalog.Edge) []catalog.EdgeSet {
	return []catalog.EdgeSet{{URN: urn, Aspect: aspect, Edges: edges}}
}

// ofRun is an aspect written by run at time ms.
func ofRun(urn, name, value, run string, ms int64) catalog.Aspect {
	a := aspect(urn, name, value, ms)
	a.SystemMetadata = json.RawMessage(fmt.Sprintf(`{"lastObserved":%d,"properties":{"runId":"nested"},"runId":%q}`, ms, run))
	return a
}

func testRuns(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	a, b, c := "urn:li:dataset:ra", "urn:li:dataset:rb", "urn:li:dataset:rc"
	update(t, s, func(tx catalog.Tx) error {
		for _, x := range []catalog.Aspect{
			ofRun(a, "datasetKey", `{}`, "first", 10), ofRun(a, "datasetProperties", `{"name":"a"}`, "first", 10),
			ofRun(b, "datasetKey", `{}`, "first", 11), ofRun(b, "status", `{"removed":true}`, "first", 11),
			ofRun(c, "datasetKey", `{}`, "second", 20),
			{URN: c, Name: "ownership", Value: json.RawMessage(`{}`), Created: stamp(5)}, // no system metadata: no run
		} {
			if err := putVersioned(ctx, tx, x); err != nil {
				return err
			}
		}
		// a's properties rewritten by the second run: the first keeps
		// only its key as the latest row of a.
		return putVersioned(ctx, tx, ofRun(a, "datasetProperties", `{"name":"a2"}`, "second", 21))
	})
	runs, err := s.Runs(ctx, catalog.RunQuery{IncludeSoftDeleted: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []catalog.RunSummary{{RunID: "second", Rows: 2, Timestamp: 21}, {RunID: "first", Rows: 3, Timestamp: 11}}
	if fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("Runs = %v, want %v", runs, want)
	}
	if runs, err := s.Runs(ctx, catalog.RunQuery{Offset: 1, Limit: 1}); err != nil || fmt.Sprint(runs) != fmt.Sprint(want[1:]) {
		t.Errorf("Runs page 2 = %v, %v; want %v", runs, err, want[1:])
	}
	keys := func(as []catalog.Aspect) string {
		var out []string
		for _, x := range as {
			out = append(out, x.URN+"/"+x.Name)
		}
		return strings.Join(out, " ")
	}
	for _, tt := range []struct {
		q    catalog.RunAspectQuery
		want string
	}{
		{catalog.RunAspectQuery{RunID: "first", IncludeSoftDeleted: true}, a + "/datasetKey " + b + "/datasetKey " + b + "/status"},
		{catalog.RunAspectQuery{RunID: "first"}, a + "/datasetKey"}, // b is soft-deleted
		{catalog.RunAspectQuery{RunID: "second", Offset: 1, Limit: 5}, c + "/datasetKey"},
		{catalog.RunAspectQuery{RunID: "nested"}, ""},
		{catalog.RunAspectQuery{RunID: "unknown"}, ""},
	} {
		got, err := s.RunAspects(ctx, tt.q)
		if err != nil || keys(got) != tt.want {
			t.Errorf("RunAspects(%+v) = %q, %v; want %q", tt.q, keys(got), err, tt.want)
		}
	}
	got, _ := s.RunAspects(ctx, catalog.RunAspectQuery{RunID: "second", Limit: 1})
	if len(got) != 1 {
		t.Fatalf("RunAspects second: %v", got)
	}
	checkAspect(t, got[0], ofRun(a, "datasetProperties", `{"name":"a2"}`, "second", 21))
	// Runs all of whose rows belong to soft-deleted entities are hidden:
	// with a soft-deleted too, only the second run, which wrote c, shows.
	update(t, s, func(tx catalog.Tx) error {
		return putVersioned(ctx, tx, ofRun(a, "status", `{"removed":true}`, "third", 30))
	})
	runs, err = s.Runs(ctx, catalog.RunQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].RunID != "second" {
		t.Errorf("Runs without soft-deleted = %v, want the second run only", runs)
	}
}

func testRevertAspect(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	urn := "urn:li:dataset:rev"
	dest := func(v string) []catalog.Edge {
		return []catalog.Edge{{Relationship: "DownstreamOf", Destination: "urn:li:dataset:" + v, Created: stamp(1)}}
	}
	// upstreamLineage: v1 run a, v2 run b, v3 run b (latest).
	for i, run := range []string{"a", "b", "b"} {
		update(t, s, func(tx catalog.Tx) error {
			if err := putVersioned(ctx, tx, ofRun(urn, "upstreamLineage", fmt.Sprintf(`{"i":%d}`, i+1), run, int64(i+1))); err != nil {
				return err
			}
			return tx.ReplaceEdges(ctx, oneSet(urn, "upstreamLineage", dest(fmt.Sprint(i+1))))
		})
	}
	update(t, s, func(tx catalog.Tx) error {
		if err := putVersioned(ctx, tx, ofRun(urn, "datasetKey", `{}`, "b", 1)); err != nil {
			return err
		}
		if err := putVersioned(ctx, tx, ofRun(urn, "globalTags", `{"t":1}`, "b", 1)); err != nil {
			return err
		}
		return tx.ReplaceEdges(ctx, oneSet(urn, "globalTags", []catalog.Edge{{Relationship: "TaggedWith", Destination: "urn:li:tag:t"}}))
	})
	revert := func(name, run string, keepLast bool) catalog.Revert {
		t.Helper()
		var r catalog.Revert
		update(t, s, func(tx catalog.Tx) (err error) {
			r, err = tx.RevertAspect(ctx, urn, name, run, keepLast)
			return err
		})
		return r
	}
	if r := revert("upstreamLineage", "a", false); r.Reverted {
		t.Errorf("reverting run a, which did not write the latest version: %+v", r)
	}
	if r := revert("absent", "b", false); r.Reverted {
		t.Errorf("reverting an absent aspect: %+v", r)
	}
	r := revert("upstreamLineage", "b", false)
	if !r.Reverted || !r.Restored || r.Removed || r.MaxVersion != 0 {
		t.Errorf("revert of run b = %+v, want restored with no history left", r)
	}
	checkAspect(t, r.Previous, ofRun(urn, "upstreamLineage", `{"i":3}`, "b", 3))
	checkAspect(t, r.Current, ofRun(urn, "upstreamLineage", `{"i":1}`, "a", 1))
	got, err := s.AspectVersion(ctx, urn, "upstreamLineage", 0)
	if err != nil {
		t.Fatal(err)
	}
	checkAspect(t, got, ofRun(urn, "upstreamLineage", `{"i":1}`, "a", 1))
	for _, v := range []int64{1, 2} {
		if _, err := s.AspectVersion(ctx, urn, "upstreamLineage", v); catalog.KindOf(err) != catalog.NotFound {
			t.Errorf("history version %d after revert: %v, want not found", v, err)
		}
	}
	// The restored row is indexed under its own run.
	if as, _ := s.RunAspects(ctx, catalog.RunAspectQuery{RunID: "a"}); len(as) != 1 || as[0].Name != "upstreamLineage" {
		t.Errorf("run a after revert = %v, want its upstreamLineage", as)
	}
	// The restored aspect's edges are the caller's; they stay as they were.
	if edges, _, _ := s.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Outgoing, Relationships: []string{"DownstreamOf"}}); len(edges) != 1 {
		t.Errorf("edges of the restored aspect = %v, want them untouched", edges)
	}

	if r := revert("datasetKey", "b", true); !r.Reverted || r.Restored || r.Removed {
		t.Errorf("revert of the key with keepLast = %+v, want reverted, neither restored nor removed", r)
	}
	if _, err := s.AspectVersion(ctx, urn, "datasetKey", 0); err != nil {
		t.Errorf("key after a revert with keepLast: %v", err)
	}
	if r := revert("globalTags", "b", false); !r.Reverted || !r.Removed {
		t.Errorf("revert of an aspect only run b wrote = %+v, want removed", r)
	}
	if _, err := s.AspectVersion(ctx, urn, "globalTags", 0); catalog.KindOf(err) != catalog.NotFound {
		t.Errorf("globalTags after revert: %v, want not found", err)
	}
	if edges, _, _ := s.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Outgoing, Relationships: []string{"TaggedWith"}}); len(edges) != 0 {
		t.Errorf("edges of the removed aspect = %v, want none", edges)
	}
	if as, _ := s.RunAspects(ctx, catalog.RunAspectQuery{RunID: "b"}); len(as) != 1 || as[0].Name != "datasetKey" {
		t.Errorf("run b after the reverts = %v, want its key only", as)
	}
}

func testDeleteRunTimeseries(t *testing.T, s catalog.Store) {
	ctx := context.Background()
	x, y := "urn:li:dataset:tsx", "urn:li:dataset:tsy"
	value := func(urn string, ts int64, run string) catalog.TimeseriesValue {
		return catalog.TimeseriesValue{URN: urn, Entity: "dataset", Aspect: "datasetProfile", TimestampMillis: ts,
			Value: json.RawMessage(fmt.Sprintf(`{"timestampMillis":%d}`, ts)), SystemMetadata: ofRun(urn, "datasetProfile", `{}`, run, ts).SystemMetadata}
	}
	update(t, s, func(tx catalog.Tx) error {
		return tx.PutTimeseries(ctx, []catalog.TimeseriesValue{value(y, 1, "a"), value(x, 1, "a"), value(x, 2, "b"), value(y, 3, "a")})
	})
	// Rewritten by run b: the value is b's now.
	update(t, s, func(tx catalog.Tx) error { return tx.PutTimeseries(ctx, []catalog.TimeseriesValue{value(y, 3, "b")}) })
	var urns []string
	var n int
	update(t, s, func(tx catalog.Tx) (err error) {
		urns, n, err = tx.DeleteRunTimeseries(ctx, "a")
		return err
	})
	if n != 2 || fmt.Sprint(urns) != fmt.Sprint([]string{x, y}) {
		t.Errorf("DeleteRunTimeseries(a) = %v, %d; want [%s %s], 2", urns, n, x, y)
	}
	for _, tt := range []struct {
		urn  string
		want []int64
	}{{x, []int64{2}}, {y, []int64{3}}} {
		got, err := s.Timeseries(ctx, catalog.TimeseriesQuery{URN: tt.urn, Aspect: "datasetProfile"})
		var ts []int64
		for _, v := range got {
			ts = append(ts, v.TimestampMillis)
		}
		if err != nil || fmt.Sprint(ts) != fmt.Sprint(tt.want) {
			t.Errorf("values of %s left = %v, %v; want %v (run b's)", tt.urn, ts, err, tt.want)
		}
	}
	update(t, s, func(tx catalog.Tx) (err error) {
		urns, n, err = tx.DeleteRunTimeseries(ctx, "a")
		return err
	})
	if n != 0 || len(urns) != 0 {
		t.Errorf("DeleteRunTimeseries(a) again = %v, %d; want nothing", urns, n)
	}
}
