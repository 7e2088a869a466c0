package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/contract"
)

// testServer is the real program started in-process on a random port.
type testServer struct {
	URL    string
	Client *http.Client
	stderr *syncBuffer
	stdout *syncBuffer // what the server printed
	// stop shuts the server down and waits for it to return (which the
	// test's end does too).
	stop func()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServer runs "catalogd serve" with the given extra args until the test
// ends. The store is a fresh SQLite file unless args name another.
// Authentication is off (--auth=false) unless args say otherwise; the auth
// tests start servers with it on.
func startServer(t testing.TB, args ...string) *testServer {
	t.Helper()
	return startServerEnv(t, nil, args...)
}

// startServerEnv is startServer with environment variables.
func startServerEnv(t testing.TB, env map[string]string, args ...string) *testServer {
	t.Helper()
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--auth") }) {
		args = append([]string{"--auth=false"}, args...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &syncBuffer{}
	all := append([]string{"catalogd", "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, args...)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, all, func(k string) string { return env[k] }, pw, stderr)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	addr := make(chan string, 1)
	stdout := &syncBuffer{}
	go func() {
		for lines.Scan() {
			fmt.Fprintln(stdout, lines.Text())
			if rest, ok := strings.CutPrefix(lines.Text(), "catalogd listening on "); ok {
				addr <- rest
			}
		}
	}()
	var url string
	select {
	case url = <-addr:
	case err := <-done:
		t.Fatalf("server exited before listening: %v\n%s", err, stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not start\n%s", stderr)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("server exited with %v", err)
			}
		})
	}
	t.Cleanup(stop)
	// Every response the tests receive is checked against openapi/openapi.yaml.
	v, err := contract.Load()
	if err != nil {
		t.Fatalf("load OpenAPI contract: %v", err)
	}
	client := &http.Client{Timeout: 60 * time.Second, Transport: v.Transport(t, http.DefaultTransport)}
	return &testServer{URL: url, Client: client, stderr: stderr, stdout: stdout, stop: stop}
}

// do sends a request with the headers DataHub's Python SDK always sets and
// returns the status and body.
func (s *testServer) do(t testing.TB, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, ok := body.([]byte)
		if !ok {
			var err error
			if b, err = json.Marshal(body); err != nil {
				t.Fatal(err)
			}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// mustDo is do that fails the test on a status other than want.
func (s *testServer) mustDo(t testing.TB, want int, method, path string, body any) []byte {
	t.Helper()
	status, b := s.do(t, method, path, body)
	if status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, b)
	}
	return b
}

// samplesDir locates DataHub's sample files, skipping the test without them.
func samplesDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "datahub-samples")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("DataHub samples not found at %s: %v", dir, err)
	}
	return dir
}

func decode(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return m
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// newRequest builds a request with an optional rest.li protocol header.
func newRequest(method, url, protocol string) (*http.Request, error) {
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		return nil, err
	}
	if protocol != "" {
		r.Header.Set("X-RestLi-Protocol-Version", protocol)
	}
	return r, nil
}
