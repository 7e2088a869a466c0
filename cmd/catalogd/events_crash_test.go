package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestEventStreamCrash kills the real binary with SIGKILL while concurrent
// writers commit batches and a consumer polls the event stream, restarts
// it on the same data, and lets the consumer go on from its last offset.
// Every acknowledged batch must reach the consumer exactly once and whole,
// batches refused (rolled back) never, each writer's batches in the order
// they committed, and the updates all writers make to one shared dataset in
// the order that left its final value.
func TestEventStreamCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			args := append([]string{"serve", "--auth=false", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, st.args...)
			cmd, base := startBinary(t, bin, args)
			client := &http.Client{Timeout: 30 * time.Second}
			c := &crashConsumer{client: client, base: base}
			if err := c.pollOnce(0); err != nil {
				t.Fatal(err)
			}
			consumerDone := make(chan struct{})
			stopConsumer := make(chan struct{})
			go func() {
				defer close(consumerDone)
				for {
					select {
					case <-stopConsumer:
						return
					default:
					}
					if err := c.pollOnce(1); err != nil {
						time.Sleep(50 * time.Millisecond) // the server is down
					}
				}
			}()

			const writers, perBatch = 4, 10
			var mu sync.Mutex
			acked := map[string]bool{} // "w<w>b<b>"
			sent := map[string]bool{}
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for b := 0; ; b++ {
						rollback := b%5 == 4
						body := eventBatch(w, b, perBatch, rollback)
						id := fmt.Sprintf("w%db%d", w, b)
						mu.Lock()
						sent[id] = true
						mu.Unlock()
						resp, err := client.Post(base+"/aspects?action=ingestProposalBatch", "application/json", bytes.NewReader(body))
						if err != nil {
							return // the server is gone
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						switch {
						case rollback && resp.StatusCode != 400:
							t.Errorf("batch %s with a bad proposal: status %d", id, resp.StatusCode)
						case !rollback && resp.StatusCode == 200:
							mu.Lock()
							acked[id] = true
							mu.Unlock()
						case !rollback:
							return // the server is going down
						}
					}
				}(w)
			}
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				mu.Lock()
				n := len(acked)
				mu.Unlock()
				if n >= 40 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			wg.Wait()
			if len(acked) == 0 {
				t.Fatal("no batch was acknowledged before the kill")
			}

			_, base = startBinary(t, bin, args)
			c.setBase(base)
			// The consumer goes on from its last offset until the stream
			// has nothing more.
			for quiet := 0; quiet < 3; {
				n := c.received()
				time.Sleep(1500 * time.Millisecond)
				if c.received() == n && c.polledSince(base) {
					quiet++
				} else {
					quiet = 0
				}
			}
			close(stopConsumer)
			<-consumerDone

			srv := &testServer{URL: base, Client: client}
			var final struct {
				Aspect map[string]struct {
					Description string `json:"description"`
				} `json:"aspect"`
			}
			if err := json.Unmarshal(srv.mustDo(t, 200, "GET", "/aspects/"+pathEscape(sharedURN)+"?aspect=editableDatasetProperties", nil), &final); err != nil {
				t.Fatal(err)
			}
			checkCrashEvents(t, c.events, acked, sent, perBatch, final.Aspect["com.linkedin.dataset.EditableDatasetProperties"].Description)
		})
	}
}

const sharedURN = "urn:li:dataset:(urn:li:dataPlatform:hive,events_shared,PROD)"

// eventBatch returns a batch of writer w: perBatch new datasets tagged for
// the writer, and an update of the shared dataset's description to
// "w<w>b<b>". A rollback batch ends with a bad proposal, so that the
// server refuses all of it.
func eventBatch(w, b, perBatch int, rollback bool) []byte {
	name := "evw"
	if rollback {
		name = "evroll"
	}
	var props []any
	for i := 0; i < perBatch; i++ {
		urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,%s%db%d_e%d,PROD)", name, w, b, i)
		props = append(props, proposal(urn, "globalTags", map[string]any{"tags": []any{map[string]any{"tag": fmt.Sprintf("urn:li:tag:w%d", w)}}}))
	}
	props = append(props, proposal(sharedURN, "editableDatasetProperties", map[string]any{"description": fmt.Sprintf("w%db%d", w, b)}))
	if rollback {
		props = append(props, proposal(sharedURN, "globalTags", map[string]any{"tags": "not a list"}))
	}
	body, _ := json.Marshal(map[string]any{"proposals": props})
	return body
}

// crashConsumer polls the stream with its last offset, across restarts.
type crashConsumer struct {
	client *http.Client
	mu     sync.Mutex
	base   string
	offset string
	events []ece
	// lastBase is the server of the last successful poll.
	lastBase string
}

func (c *crashConsumer) setBase(b string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.base = b
}

func (c *crashConsumer) received() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.events)
}

func (c *crashConsumer) polledSince(base string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastBase == base
}

// pollOnce polls once, waiting up to timeout seconds, and keeps the events
// and the new offset.
func (c *crashConsumer) pollOnce(timeout int) error {
	c.mu.Lock()
	base, offset := c.base, c.offset
	c.mu.Unlock()
	q := fmt.Sprintf("topic=PlatformEvent_v1&limit=300&pollTimeoutSeconds=%d", timeout)
	if offset != "" {
		q += "&offsetId=" + url.QueryEscape(offset)
	}
	resp, err := c.client.Get(base + "/openapi/v1/events/poll?" + q)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("poll: %d %s", resp.StatusCode, b)
	}
	var r struct {
		OffsetID string `json:"offsetId"`
		Events   []struct {
			Value string `json:"value"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	var evs []ece
	for _, e := range r.Events {
		var pe struct {
			Payload struct {
				Value string `json:"value"`
			} `json:"payload"`
		}
		var ev ece
		if err := json.Unmarshal([]byte(e.Value), &pe); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(pe.Payload.Value), &ev); err != nil {
			return err
		}
		evs = append(evs, ev)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.base == base {
		c.offset = r.OffsetID
		c.events = append(c.events, evs...)
		c.lastBase = base
	}
	return nil
}

// checkCrashEvents checks what the consumer received against what the
// writers were told.
func checkCrashEvents(t *testing.T, evs []ece, acked, sent map[string]bool, perBatch int, finalDescription string) {
	t.Helper()
	perDataset := map[string][]string{} // URN → its events
	batchOf := func(urn string) string {
		// urn:li:dataset:(urn:li:dataPlatform:hive,evw<w>b<b>_e<i>,PROD)
		name := strings.Split(strings.Split(urn, ",")[1], "_e")[0]
		return strings.TrimPrefix(name, "ev")
	}
	var docs []string             // descriptions of the shared dataset, in stream order
	lastBatch := map[string]int{} // writer → last batch number seen
	runs := map[string]int{}      // batch → runs of consecutive events
	prev := ""
	for _, e := range evs {
		id := ""
		switch {
		case e.EntityURN == sharedURN:
			if e.Category == "DOCUMENTATION" {
				d, _ := e.Parameters["description"].(string)
				docs = append(docs, d)
				id = d
			}
		case strings.Contains(e.EntityURN, ",evroll"):
			t.Errorf("event of a refused batch: %s", e.short())
			continue
		case strings.Contains(e.EntityURN, ",evw"):
			perDataset[e.EntityURN] = append(perDataset[e.EntityURN], e.Category+" "+e.Operation+" "+e.Modifier)
			id = batchOf(e.EntityURN)
		}
		if id == "" {
			continue
		}
		if id != prev {
			runs[id]++
			prev = id
		}
		var w, b int
		fmt.Sscanf(id, "w%db%d", &w, &b)
		key := fmt.Sprint(w)
		if last, ok := lastBatch[key]; ok && b < last {
			t.Errorf("writer %d: batch %d after batch %d", w, b, last)
		}
		lastBatch[key] = b
	}
	seenDocs := map[string]int{}
	for _, d := range docs {
		seenDocs[d]++
	}
	batches := map[string]int{} // batch → datasets delivered
	for urn, got := range perDataset {
		w := strings.Split(strings.Split(urn, ",")[1], "b")[0][len("evw"):]
		want := []string{"LIFECYCLE CREATE ", "TAG ADD urn:li:tag:w" + w}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: events %q, want %q once each", urn, got, want)
		}
		batches[batchOf(urn)]++
	}
	for id := range sent {
		n := batches[id]
		if acked[id] && (n != perBatch || seenDocs[id] != 1) {
			t.Errorf("acknowledged batch %s: %d of %d datasets, its description update %d times", id, n, perBatch, seenDocs[id])
		}
		if !acked[id] && n != 0 && (n != perBatch || seenDocs[id] != 1) {
			t.Errorf("batch %s committed in part: %d of %d datasets, description update %d times", id, n, perBatch, seenDocs[id])
		}
		if runs[id] > 1 {
			t.Errorf("the events of batch %s are not contiguous (%d runs)", id, runs[id])
		}
	}
	if len(docs) == 0 || docs[len(docs)-1] != finalDescription {
		t.Errorf("last description update in the stream %q, the shared dataset holds %q", docs[len(docs)-1:], finalDescription)
	}
	t.Logf("%d events: %d acknowledged batches and %d committed without acknowledgement, each delivered once and whole",
		len(evs), len(acked), len(batches)-len(acked))
}
