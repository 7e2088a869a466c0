package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/store"
)

// ingestBatch is how many proposals go into one transaction or request;
// DataHub's SDK uses the same batch size.
const ingestBatch = 200

// record is one entry of a metadata file.
type record struct {
	file  string
	index int
	raw   json.RawMessage
}

func (r record) String() string { return fmt.Sprintf("%s record %d", r.file, r.index) }

// check refuses a record that is not valid UTF-8, as the server refuses such
// a request: decoding it would silently put U+FFFD in place of the bad bytes.
func (r record) check() error {
	if !utf8.Valid(r.raw) {
		return catalog.Errorf(catalog.Invalid, "record is not valid UTF-8")
	}
	return nil
}

// sink writes records somewhere: the local store or a running server.
type sink interface {
	// write applies recs as one unit and returns how many aspects they held.
	write(ctx context.Context, recs []record) (int, error)
}

func runIngest(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs, getenv)
	server := fs.String("server", getenv("DATAHUB_GMS_URL"), "URL of a running server to send the records to (env DATAHUB_GMS_URL); default: write the local store")
	token := fs.String("token", getenv("DATAHUB_GMS_TOKEN"), "access token for --server (env DATAHUB_GMS_TOKEN)")
	searchSpec := fs.String("search", envOr(getenv, "CATALOGD_SEARCH", "store"), "without --server: the search engine the server uses, as serve's --search, so that the local write indexes for it (env CATALOGD_SEARCH)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: catalogd ingest [flags] FILE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no files given")
	}
	var recs []record
	for _, f := range fs.Args() {
		rs, err := readRecords(f)
		if err != nil {
			return err
		}
		recs = append(recs, rs...)
	}

	reg := registry.Default()
	var out sink
	if *server != "" {
		out = &remoteSink{reg: reg, base: strings.TrimRight(*server, "/"), token: *token, client: &http.Client{Timeout: 60 * time.Second}}
	} else {
		db, err := sf.open(ctx)
		if err != nil {
			return err
		}
		defer db.Close()
		svc, err := localIngest(ctx, &sf, *searchSpec, getenv, db, reg, stdout)
		if err != nil {
			return err
		}
		out = &localSink{reg: reg, svc: svc}
		// Audit events name the command as their client.
		ctx = audit.WithRequest(ctx, &audit.Request{UserAgent: "catalogd ingest"})
	}

	bar := newProgress(stderr, "records", *quiet)
	var (
		aspects  int
		failures []string
		start    = time.Now()
	)
	for i := 0; i < len(recs); {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Fill a chunk up to ingestBatch records; each record holds at least one proposal.
		j := min(i+ingestBatch, len(recs))
		chunk := recs[i:j]
		n, err := out.write(ctx, chunk)
		if err != nil && catalog.KindOf(err) != catalog.Invalid && !isClientError(err) {
			return err
		}
		if err != nil {
			// Find the bad records: apply the chunk one record at a time.
			n = 0
			for _, rec := range chunk {
				m, err := out.write(ctx, []record{rec})
				if err != nil {
					if catalog.KindOf(err) != catalog.Invalid && !isClientError(err) {
						return err
					}
					failures = append(failures, fmt.Sprintf("%s: %v", rec, err))
					continue
				}
				n += m
			}
		}
		aspects += n
		i = j
		bar.set(i, len(recs))
	}
	bar.done()
	fmt.Fprintf(stdout, "ingested %d records, %d aspects in %s; %d failures\n", len(recs), aspects, time.Since(start).Round(time.Millisecond), len(failures))
	for _, f := range failures {
		fmt.Fprintln(stdout, "  failed:", f)
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d of %d records failed", len(failures), len(recs))
	}
	return nil
}

// readRecords reads a DataHub metadata file: a JSON array of records or a
// single record.
func readRecords(path string) ([]record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	var raws []json.RawMessage
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &raws); err != nil {
			return nil, fmt.Errorf("%s: not a JSON array of records: %v", path, err)
		}
	} else {
		raws = []json.RawMessage{b}
	}
	out := make([]record, len(raws))
	for i, r := range raws {
		out[i] = record{file: path, index: i, raw: r}
	}
	return out, nil
}

// localIngest is the write path of the server for a local load: the same
// search indexing (the in-store index, or the outbox a server drains into
// Meilisearch) and the same audit log, in the same transactions, so that a
// server started on the store afterwards finds it indexed and audited.
// Writes run as the system actor: whoever can open the store needs no
// policy's leave.
func localIngest(ctx context.Context, sf *storeFlags, searchSpec string, getenv func(string) string, db *store.DB, reg *registry.Registry, stdout io.Writer) (*ingest.Service, error) {
	// Meilisearch is fed from the outbox by the server, which need not be
	// running now; the in-store engine is written here, as serve opens it.
	var idx ingest.Indexer
	if isMeilisearch(searchSpec) {
		if err := db.OpenOutbox(ctx); err != nil {
			return nil, fmt.Errorf("open search outbox: %w", err)
		}
		idx = &search.OutboxIndexer{}
	} else {
		ss, err := openSearch(ctx, searchSpec, getenv, db, reg)
		if err != nil {
			return nil, err
		}
		idx = ss.indexer
	}
	// Auth is opened only for the secrets the audit log's scroll ids are
	// keyed with; writes are not checked.
	_, rec, err := openAuth(ctx, sf, db, getenv, false, stdout)
	if err != nil {
		return nil, err
	}
	_, recordEvents, err := openEvents(ctx, db)
	if err != nil {
		return nil, err
	}
	return ingest.New(reg, db, ingest.WithIndexer(idx), ingest.WithAuditor(rec), recordEvents), nil
}

type localSink struct {
	reg *registry.Registry
	svc *ingest.Service
}

func (s *localSink) write(ctx context.Context, recs []record) (int, error) {
	var props []catalog.Proposal
	for _, r := range recs {
		if err := r.check(); err != nil {
			return 0, err
		}
		ps, err := ingest.DecodeRecord(s.reg, r.raw)
		if err != nil {
			return 0, err
		}
		props = append(props, ps...)
	}
	if _, err := s.svc.Ingest(ctx, catalog.SystemActor, props); err != nil {
		return 0, err
	}
	return len(props), nil
}

// remoteSink sends records the way DataHub's Python emitter does: snapshots
// to /entities?action=ingest, proposals to /aspects?action=ingestProposalBatch
// with each aspect serialised into aspect.value. Records apply in file order:
// consecutive proposals share a batch, which is sent before the next snapshot.
type remoteSink struct {
	reg    *registry.Registry
	base   string
	token  string
	client *http.Client
}

// clientError is a 4xx answer from the server: the record is bad, not the link.
type clientError struct {
	status int
	msg    string
}

func (e *clientError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.msg) }

func isClientError(err error) bool {
	var ce *clientError
	return errors.As(err, &ce)
}

func (s *remoteSink) write(ctx context.Context, recs []record) (int, error) {
	var proposals []json.RawMessage
	n := 0
	flush := func() error {
		if len(proposals) == 0 {
			return nil
		}
		if err := s.post(ctx, "/aspects?action=ingestProposalBatch", map[string]any{"proposals": proposals, "async": "false"}); err != nil {
			return err
		}
		n += len(proposals)
		proposals = proposals[:0]
		return nil
	}
	for _, r := range recs {
		if err := r.check(); err != nil {
			return n, err
		}
		var probe struct {
			ProposedSnapshot json.RawMessage `json:"proposedSnapshot"`
			SystemMetadata   json.RawMessage `json:"systemMetadata"`
		}
		if err := json.Unmarshal(r.raw, &probe); err != nil {
			return n, catalog.Errorf(catalog.Invalid, "malformed record: %v", err)
		}
		if len(probe.ProposedSnapshot) == 0 {
			p, err := valueForm(r.raw)
			if err != nil {
				return n, err
			}
			proposals = append(proposals, p)
			continue
		}
		props, err := ingest.DecodeSnapshot(s.reg, probe.ProposedSnapshot, nil)
		if err != nil {
			return n, err
		}
		if err := flush(); err != nil {
			return n, err
		}
		body := map[string]any{"entity": map[string]any{"value": probe.ProposedSnapshot}}
		if len(probe.SystemMetadata) > 0 && string(probe.SystemMetadata) != "null" {
			body["systemMetadata"] = probe.SystemMetadata
		}
		if err := s.post(ctx, "/entities?action=ingest", body); err != nil {
			return n, err
		}
		n += len(props)
	}
	return n, flush()
}

// valueForm rewrites an MCP whose aspect is inlined as "json" into the rest.li
// form with the aspect serialised into "value", and drops null members.
func valueForm(raw json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "malformed proposal: %v", err)
	}
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	for _, field := range []string{"aspect", "entityKeyAspect"} {
		if a, ok := m[field]; ok {
			var ga map[string]json.RawMessage
			if err := json.Unmarshal(a, &ga); err == nil {
				if j, ok := ga["json"]; ok {
					s, _ := json.Marshal(string(j))
					ga = map[string]json.RawMessage{"value": s, "contentType": json.RawMessage(`"application/json"`)}
					m[field], _ = json.Marshal(ga)
				}
			}
		}
	}
	return json.Marshal(m)
}

func (s *remoteSink) post(ctx context.Context, path string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var eb struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(msg, &eb) == nil && eb.Message != "" {
		msg = []byte(eb.Message)
	}
	if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return &clientError{status: resp.StatusCode, msg: string(msg)}
	}
	return fmt.Errorf("POST %s: HTTP %d: %s", path, resp.StatusCode, msg)
}

// progress draws a one-line progress bar on w: "[=====     ] 50% 500/1000
// records 1.2s", or a running count when the total is unknown (< 0).
type progress struct {
	w           io.Writer
	unit        string
	off         bool
	start, last time.Time
	n, total    int
}

func newProgress(w io.Writer, unit string, off bool) *progress {
	return &progress{w: w, unit: unit, off: off, start: time.Now()}
}

// set records progress, redrawing at most ten times a second.
func (p *progress) set(n, total int) {
	p.n, p.total = n, total
	if p.off || (time.Since(p.last) < 100*time.Millisecond && n != total) {
		return
	}
	p.last = time.Now()
	took := time.Since(p.start).Round(100 * time.Millisecond)
	if total < 0 {
		fmt.Fprintf(p.w, "\r%d %s %s", n, p.unit, took)
		return
	}
	const width = 30
	filled := min(width, n*width/max(total, 1))
	fmt.Fprintf(p.w, "\r[%s%s] %3d%% %d/%d %s %s", strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
		n*100/max(total, 1), n, total, p.unit, took)
}

// done draws the final state and ends the line.
func (p *progress) done() {
	if !p.off {
		p.last = time.Time{}
		p.set(p.n, p.total)
		fmt.Fprintln(p.w)
	}
}
