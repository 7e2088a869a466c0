package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// httpTimeouts bound how long a client may hold a connection without making
// progress: sending its headers, sending its body, taking the response, or
// idling between requests.
//
// A body is timed by its progress rather than by one deadline for the whole
// request: a 32 MiB ingest batch on a slow link may legitimately take many
// minutes, while a client that trickles a few bytes now and then must not
// hold its connection (and a file handle) for that long. So every read of a
// body must return within bodyTimeout, and the body as a whole must keep up
// bodyMinRate after a first bodyTimeout of grace. Responses are timed the
// same way, per write, so that long-running requests (an index restore, a
// large GraphQL query) are not cut while a client that stops reading is.
//
// net/http's own ReadTimeout and WriteTimeout are left unset: they are one
// deadline per request, and a ReadTimeout that passes while a handler still
// runs cancels the handler's context (the server's background read of the
// connection fails).
type httpTimeouts struct {
	readHeader  time.Duration
	body        time.Duration
	bodyMinRate int64 // bytes per second; 0 for none
	write       time.Duration
	idle        time.Duration
	err         error // a bad environment variable, reported after parsing
}

// Defaults of the timeouts.
const (
	defaultReadHeaderTimeout = 10 * time.Second
	defaultBodyTimeout       = 30 * time.Second
	// 16 KiB/s (128 kbit/s) lets a 32 MiB batch take up to 34 minutes.
	defaultBodyMinRate  = 16 << 10
	defaultWriteTimeout = 60 * time.Second
	defaultIdleTimeout  = 2 * time.Minute
)

func (t *httpTimeouts) register(fs *flag.FlagSet, getenv func(string) string) {
	t.durationVar(fs, getenv, &t.readHeader, "read-header-timeout", "CATALOGD_READ_HEADER_TIMEOUT", defaultReadHeaderTimeout,
		"longest wait for a request's headers; 0 for none")
	t.durationVar(fs, getenv, &t.body, "body-timeout", "CATALOGD_BODY_TIMEOUT", defaultBodyTimeout,
		"longest wait for the next bytes of a request body; 0 for none")
	rate := int64(defaultBodyMinRate)
	if v := getenv("CATALOGD_BODY_MIN_RATE"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			t.err = errors.Join(t.err, fmt.Errorf("bad CATALOGD_BODY_MIN_RATE %q: want a number of bytes per second", v))
		} else {
			rate = n
		}
	}
	fs.Int64Var(&t.bodyMinRate, "body-min-rate", rate,
		"bytes per second a request body must average once its first --body-timeout has passed; 0 for no minimum (env CATALOGD_BODY_MIN_RATE)")
	t.durationVar(fs, getenv, &t.write, "write-timeout", "CATALOGD_WRITE_TIMEOUT", defaultWriteTimeout,
		"longest wait for a client to take the next 64 KiB of a response; 0 for none")
	t.durationVar(fs, getenv, &t.idle, "idle-timeout", "CATALOGD_IDLE_TIMEOUT", defaultIdleTimeout,
		"how long an idle keep-alive connection is kept open; 0 for no limit")
}

// durationVar registers a duration flag whose default comes from env.
func (t *httpTimeouts) durationVar(fs *flag.FlagSet, getenv func(string) string, p *time.Duration, name, env string, def time.Duration, usage string) {
	if v := getenv(env); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			t.err = errors.Join(t.err, fmt.Errorf("bad %s %q: want a duration such as 30s", env, v))
		} else {
			def = d
		}
	}
	fs.DurationVar(p, name, def, usage+" (env "+env+")")
}

// server returns an HTTP server for h with the timeouts.
func (t *httpTimeouts) server(h http.Handler) *http.Server {
	return &http.Server{Handler: t.handler(h), ReadHeaderTimeout: t.readHeader, IdleTimeout: t.idle}
}

// handler sets the body and write deadlines of each request on its
// connection. It must wrap the server's ResponseWriter directly.
func (t *httpTimeouts) handler(next http.Handler) http.Handler {
	if t.body <= 0 && t.write <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if t.body > 0 && r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			b := &deadlineBody{body: r.Body, rc: rc, t: t, start: time.Now()}
			// Set before the handler runs: a handler that never reads the
			// body leaves net/http to drain it, under this deadline.
			if err := b.extend(); err == nil {
				// A copy: the server's request keeps its own body, which
				// it inspects after the handler to decide what to drain.
				r = r.WithContext(r.Context())
				r.Body = b
			}
		}
		if t.write > 0 {
			w = &deadlineWriter{ResponseWriter: w, rc: rc, timeout: t.write}
		}
		next.ServeHTTP(w, r)
		if t.write > 0 {
			// For what net/http writes once the handler returns.
			_ = rc.SetWriteDeadline(time.Now().Add(t.write))
		}
	})
}

// deadlineBody is a request body whose every read runs under the
// connection's read deadline that the timeouts allow at that point.
type deadlineBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	t     *httpTimeouts
	start time.Time
	n     int64 // bytes read so far
	done  bool
}

// extend sets the read deadline for the next read: bodyTimeout from now,
// but no later than the minimum rate allows for the bytes read so far.
func (b *deadlineBody) extend() error {
	d := time.Now().Add(b.t.body)
	if b.t.bodyMinRate > 0 {
		owed := b.start.Add(b.t.body + time.Duration(float64(b.n)/float64(b.t.bodyMinRate)*float64(time.Second)))
		if owed.Before(d) {
			d = owed
		}
	}
	return b.rc.SetReadDeadline(d)
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if b.done {
		return b.body.Read(p)
	}
	if err := b.extend(); err != nil {
		return 0, err
	}
	n, err := b.body.Read(p)
	b.n += int64(n)
	if err == io.EOF {
		// Once the body is read, net/http clears the deadline and watches
		// the connection for the client going away: a deadline set then
		// would end that watch with an error that cancels the handler's
		// context.
		b.done = true
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = slowBody(b.t)
	}
	return n, err
}

func (b *deadlineBody) Close() error { return b.body.Close() }

// slowBody is the error of a body that did not arrive in time.
func slowBody(t *httpTimeouts) error {
	if t.bodyMinRate > 0 {
		return catalog.Errorf(catalog.Invalid, "request body arrived too slowly: the server waits %s for its next bytes and needs at least %d bytes per second", t.body, t.bodyMinRate)
	}
	return catalog.Errorf(catalog.Invalid, "request body arrived too slowly: the server waits %s for its next bytes", t.body)
}

// writeChunk is the most of a response written under one write deadline.
const writeChunk = 64 << 10

// deadlineWriter gives each write of a response the write timeout.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *deadlineWriter) WriteHeader(code int) {
	w.extend()
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	// Large writes go in chunks, each with its own deadline, so that the
	// timeout bounds the wait for a client to take writeChunk bytes, not
	// a whole response.
	written := 0
	for len(p) > 0 {
		n := min(len(p), writeChunk)
		w.extend()
		k, err := w.ResponseWriter.Write(p[:n])
		written += k
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
