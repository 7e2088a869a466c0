package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// dialServer opens a raw TCP connection to the server, closed when the
// test ends.
func dialServer(t *testing.T, srv *testServer) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readUntilClosed reads from c until the server closes the connection,
// returning what it sent; closed is false when c was still open after
// within (the server holds the connection).
func readUntilClosed(t *testing.T, c net.Conn, within time.Duration) (got string, closed bool, took time.Duration) {
	t.Helper()
	start := time.Now()
	if err := c.SetReadDeadline(start.Add(within)); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	took = time.Since(start)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return string(b), false, took
	}
	// EOF, or a reset when the server closes with unread bytes.
	return string(b), true, took
}

// statusOf is the status code of the first response in raw, 0 when none.
func statusOf(raw string) int {
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// ingestBody is a proposal ingest body padded to length bytes.
func ingestBody(length int) string {
	proposal := fmt.Sprintf(`{"proposal":%s}`, jsonString(mcp("dataset", walkDataset, "status", map[string]any{"removed": false})))
	return proposal + strings.Repeat(" ", max(0, length-len(proposal)))
}

// ingestHead is the head of a proposal ingest declaring a body of length
// bytes.
func ingestHead(authorization string, length int) string {
	head := "POST /aspects?action=ingestProposal HTTP/1.1\r\nHost: catalogd\r\nContent-Type: application/json\r\n" +
		"X-RestLi-Protocol-Version: 2.0.0\r\n"
	if authorization != "" {
		head += "Authorization: " + authorization + "\r\n"
	}
	return head + fmt.Sprintf("Content-Length: %d\r\n\r\n", length)
}

// TestSlowRequestsTimeOut holds connections the ways a slow or hostile
// client does and checks that the server closes each one once its timeout
// has passed, while a body that takes longer than --body-timeout in all but
// keeps arriving at the minimum rate is served.
func TestSlowRequestsTimeOut(t *testing.T) {
	srv := startServer(t, "--read-header-timeout", "1s", "--body-timeout", "1s", "--body-min-rate", "1000",
		"--write-timeout", "1s", "--idle-timeout", "1s")
	t.Run("headers never finished", func(t *testing.T) {
		c := dialServer(t, srv)
		if _, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: catalogd\r\n"); err != nil {
			t.Fatal(err)
		}
		if _, closed, took := readUntilClosed(t, c, 10*time.Second); !closed {
			t.Errorf("connection with unfinished headers still open after %s", took)
		}
	})
	t.Run("body stalls", func(t *testing.T) {
		c := dialServer(t, srv)
		head, body := ingestHead("", 4000), ingestBody(4000)
		if _, err := io.WriteString(c, head+body[:100]); err != nil {
			t.Fatal(err)
		}
		got, closed, took := readUntilClosed(t, c, 10*time.Second)
		if !closed {
			t.Fatalf("connection with a stalled body still open after %s", took)
		}
		if took < 900*time.Millisecond {
			t.Errorf("closed after %s, before the body timeout of 1s", took)
		}
		if st := statusOf(got); st != http.StatusBadRequest || !strings.Contains(got, "too slowly") {
			t.Errorf("stalled body answered %d, want 400 saying it arrived too slowly:\n%s", st, got)
		}
	})
	t.Run("body trickles", func(t *testing.T) {
		// A byte every 100 ms keeps each read under --body-timeout but
		// stays far below 1000 bytes per second.
		c := dialServer(t, srv)
		head, body := ingestHead("", 4000), ingestBody(4000)
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		sent := 0
		for ; sent < 100; sent++ {
			if _, err := io.WriteString(c, body[sent:sent+1]); err != nil {
				break // the server closed the connection
			}
			time.Sleep(100 * time.Millisecond)
		}
		got, closed, _ := readUntilClosed(t, c, 10*time.Second)
		if !closed || sent == 100 {
			t.Fatalf("trickling body held the connection for %s (%d bytes sent, closed %v)", time.Since(start), sent, closed)
		}
		if st := statusOf(got); st != http.StatusBadRequest {
			t.Errorf("trickling body answered %d, want 400:\n%s", st, got)
		}
	})
	t.Run("slow body at the minimum rate", func(t *testing.T) {
		// 4000 bytes at 2000 per second: twice the body timeout in all.
		c := dialServer(t, srv)
		head, body := ingestHead("", 4000), ingestBody(4000)
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(body); i += 200 {
			if _, err := io.WriteString(c, body[i:i+200]); err != nil {
				t.Fatalf("server closed the connection after %d bytes: %v", i, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("no response to a body sent at the minimum rate: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("body sent at the minimum rate: %d %s", resp.StatusCode, b)
		}
	})
	t.Run("responses never read", func(t *testing.T) {
		// Pipelined requests for the 1.3 MB GraphiQL bundle: far more
		// than the socket buffers hold, so the server's writes block.
		const n = 40
		c := dialServer(t, srv)
		req := "GET /api/graphiql/assets/graphiql.js HTTP/1.1\r\nHost: catalogd\r\n\r\n"
		if _, err := io.WriteString(c, strings.Repeat(req, n)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		got, closed, took := readUntilClosed(t, c, 20*time.Second)
		if !closed {
			t.Fatalf("connection whose responses are never read still open %s after reading resumed", took)
		}
		if strings.Count(got, "HTTP/1.1 200") == n {
			t.Errorf("all %d responses were delivered to a client that stopped reading for 3s (%d bytes)", n, len(got))
		}
	})
	t.Run("idle keep-alive connection", func(t *testing.T) {
		c := dialServer(t, srv)
		if _, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: catalogd\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("GET /health: %d, close %v: want 200 and a kept-alive connection", resp.StatusCode, resp.Close)
		}
		if err := c.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := br.ReadByte(); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("idle connection still open after %s", time.Since(start))
		}
	})
}

// TestUnauthenticatedBodyNotRead checks that a request without valid
// credentials is refused before its body is read: it is answered 401 at once
// although the body it declares never comes, well before the body timeout,
// and its connection is then closed: at once for a body too large to drain,
// at the body timeout at the latest for one net/http would drain.
func TestUnauthenticatedBodyNotRead(t *testing.T) {
	srv := startAuthServer(t, "--body-timeout", "3s")
	for _, tc := range []struct {
		name          string
		authorization string
		length        int
	}{
		{"no credentials, small body", "", 1000},
		{"no credentials, huge body", "", 1 << 30},
		{"bad token, small body", "Bearer not-a-token", 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := dialServer(t, srv.testServer)
			if _, err := io.WriteString(c, ingestHead(tc.authorization, tc.length)); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := c.SetReadDeadline(start.Add(2500 * time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer within %s while the body was awaited: %v", time.Since(start), err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
				t.Fatalf("answered %d (close %v), want 401 closing the connection: %s", resp.StatusCode, resp.Close, b)
			}
			if err := c.SetReadDeadline(start.Add(10 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if _, err := br.ReadByte(); errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("connection still open %s after the 401", time.Since(start))
			}
		})
	}
}

// TestTimeoutsSpareLongRequests checks that the timeouts bound waiting for a
// client, not the request: a handler that works for longer than every
// timeout after reading its body keeps its context and gets its answer to
// the client, and a response that takes longer than the write timeout to
// stream, but keeps going, arrives whole.
func TestTimeoutsSpareLongRequests(t *testing.T) {
	timeouts := &httpTimeouts{readHeader: time.Second, body: 500 * time.Millisecond, bodyMinRate: 1000,
		write: 500 * time.Millisecond, idle: time.Second}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /work", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-r.Context().Done():
			http.Error(w, "context ended while working: "+context.Cause(r.Context()).Error(), http.StatusInternalServerError)
			return
		case <-time.After(1500 * time.Millisecond):
		}
		fmt.Fprintf(w, "worked on %d bytes", len(b))
	})
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		chunk := strings.Repeat("x", 64<<10)
		for i := 0; i < 6; i++ {
			_, _ = io.WriteString(w, chunk)
			_ = http.NewResponseController(w).Flush()
			time.Sleep(300 * time.Millisecond)
		}
	})
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = timeouts.server(mux)
	srv.Start()
	t.Cleanup(srv.Close)

	resp, err := http.Post(srv.URL+"/work", "text/plain", strings.NewReader(strings.Repeat("y", 5000)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "worked on 5000 bytes" {
		t.Errorf("long handler: %d %s", resp.StatusCode, b)
	}

	resp, err = http.Get(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != 6*64<<10 {
		t.Errorf("streamed response: %d bytes, %v", n, err)
	}
}
