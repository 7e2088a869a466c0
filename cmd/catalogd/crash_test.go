package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildCatalogd builds the binary, with this test's build tags (and so its
// SQLite driver), and returns its path.
func buildCatalogd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "catalogd")
	buildArgs := []string{"build", "-o", bin}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				buildArgs = append(buildArgs, "-tags", s.Value)
			}
		}
	}
	build := exec.Command("go", append(buildArgs, ".")...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestSearchCrash kills the real binary with SIGKILL during a sustained batch
// ingest, restarts it on the same data and checks that every batch that was
// acknowledged with 200 is readable and searchable: the index commits with
// the aspects or not at all.
func TestSearchCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildCatalogd(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			args := append([]string{"serve", "--auth=false", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, st.args...)
			cmd, base := startBinary(t, bin, args)

			const writers = 4
			var mu sync.Mutex
			var acked [][]string // URNs of acknowledged batches
			var wg sync.WaitGroup
			stop := make(chan struct{})
			client := &http.Client{Timeout: 30 * time.Second}
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for b := 0; ; b++ {
						select {
						case <-stop:
							return
						default:
						}
						urns, body := crashBatch(w, b, 50)
						resp, err := client.Post(base+"/aspects?action=ingestProposalBatch", "application/json", bytes.NewReader(body))
						if err != nil {
							return // the server is gone
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode == 200 {
							mu.Lock()
							acked = append(acked, urns)
							mu.Unlock()
						}
					}
				}(w)
			}
			// Let the ingest run, then kill -9 mid-way.
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				mu.Lock()
				n := len(acked)
				mu.Unlock()
				if n >= 40 {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			close(stop)
			wg.Wait()
			if len(acked) == 0 {
				t.Fatal("no batch was acknowledged before the kill")
			}

			_, base = startBinary(t, bin, args)
			srv := &testServer{URL: base, Client: client}
			missing := 0
			for _, batch := range acked {
				for _, urn := range batch {
					if status, _ := srv.do(t, "GET", "/entitiesV2/"+pathEscape(urn), nil); status != 200 {
						t.Errorf("acknowledged %s not readable after restart: %d", urn, status)
						missing++
					}
				}
				// Every entity of the batch through the keyword table, the
				// first one through full text.
				name := strings.Split(strings.Split(batch[0], ",")[1], "_e")[0]
				res := srv.search(t, map[string]any{"input": "*", "entity": "dataset", "count": 1000, "filter": filterOf("id", "START_WITH", false, name+"_e")})
				found := map[string]bool{}
				for _, u := range res.Entities {
					found[u] = true
				}
				text := srv.search(t, map[string]any{"input": name + "_e0", "entity": "dataset", "count": 1000})
				if !slices.Contains(text.Entities, batch[0]) {
					t.Errorf("acknowledged %s not found by text after restart", batch[0])
					missing++
				}
				for _, urn := range batch {
					if !found[urn] {
						t.Errorf("acknowledged %s not searchable after restart (filter id START_WITH %s_e)", urn, name)
						missing++
					}
				}
				if missing > 20 {
					t.Fatal("too many missing entities")
				}
			}
			t.Logf("%d acknowledged batches (%d entities) all readable and searchable after kill -9", len(acked), 50*len(acked))
		})
	}
}

// crashBatch returns the URNs and ingestProposalBatch body of n datasets
// named crashw<w>b<b>_e<i>.
func crashBatch(w, b, n int) ([]string, []byte) {
	var urns []string
	var props []any
	for i := 0; i < n; i++ {
		urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,crashw%db%d_e%d,PROD)", w, b, i)
		urns = append(urns, urn)
		props = append(props, map[string]any{
			"entityType": "dataset", "entityUrn": urn, "changeType": "UPSERT", "aspectName": "datasetProperties",
			"aspect": map[string]any{"contentType": "application/json", "value": fmt.Sprintf(`{"description":"crash test entity %d","customProperties":{}}`, i)},
		})
	}
	body, _ := json.Marshal(map[string]any{"proposals": props, "async": "false"})
	return urns, body
}

// startBinary runs the built binary until the test ends and returns its
// base URL.
func startBinary(t *testing.T, bin string, args []string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CATALOGD_LOG_LEVEL=warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "catalogd listening on "); ok {
				addr <- rest
			}
		}
	}()
	select {
	case a := <-addr:
		return cmd, a
	case <-time.After(30 * time.Second):
		t.Fatalf("binary did not start: %s", stderr.String())
	}
	return nil, ""
}
