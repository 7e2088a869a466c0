package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/catalogd/catalogd/gen/api"
)

// ErrNotFound is returned (wrapped) when an entity does not exist.
var ErrNotFound = errors.New("entity not found")

// StatusError is a non-2xx answer of the server.
type StatusError struct {
	Status  int
	Message string // the server's message, when its body had one
}

func (e *StatusError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("server answered %d %s", e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("server answered %d: %s", e.Status, e.Message)
}

// Retryable reports whether the request may succeed if sent again: the
// statuses DataHub's own emitter retries.
func (e *StatusError) Retryable() bool {
	switch e.Status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Client talks to one catalogd (or DataHub GMS) server. It is safe for
// concurrent use.
type Client struct {
	raw      *api.ClientWithResponses
	attempts int
	backoff  time.Duration
	maxWait  time.Duration
	sleep    func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*config)

type config struct {
	hc       *http.Client
	token    string
	attempts int
	backoff  time.Duration
	maxWait  time.Duration
}

// WithToken sends "Authorization: Bearer <token>" with every request.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithHTTPClient sends requests through hc instead of a client with a 30 s
// timeout (the Python SDK's).
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.hc = hc } }

// WithRetry sets how many times a request is sent at most (1 = no retry) and
// the first wait between attempts, which doubles up to 30 s.
func WithRetry(attempts int, backoff time.Duration) Option {
	return func(c *config) { c.attempts, c.backoff = attempts, backoff }
}

// New returns a client of the server at baseURL, e.g. http://localhost:8080.
func New(baseURL string, opts ...Option) (*Client, error) {
	cfg := config{hc: &http.Client{Timeout: 30 * time.Second}, attempts: 5, backoff: 200 * time.Millisecond, maxWait: 30 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.attempts < 1 {
		cfg.attempts = 1
	}
	raw, err := api.NewClientWithResponses(strings.TrimRight(baseURL, "/"),
		api.WithHTTPClient(cfg.hc),
		api.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			// The headers DataHub's SDK sends on every request.
			r.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
			r.Header.Set("Accept", "application/json")
			if cfg.token != "" {
				r.Header.Set("Authorization", "Bearer "+cfg.token)
			}
			return nil
		}))
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", baseURL, err)
	}
	return &Client{raw: raw, attempts: cfg.attempts, backoff: cfg.backoff, maxWait: cfg.maxWait, sleep: sleepCtx}, nil
}

// Raw returns the low-level client generated from the OpenAPI description,
// for endpoints this package does not wrap.
func (c *Client) Raw() *api.ClientWithResponses { return c.raw }

// Get reads an entity through GET /openapi/v3/entity/<type>/<urn>. The
// result is read-only; see ReadOnlyEntity.Mutable. An entity with nothing
// stored yields an error wrapping ErrNotFound.
func (c *Client) Get(ctx context.Context, urn string) (*ReadOnlyEntity, error) {
	typ, err := entityTypeOf(urn)
	if err != nil {
		return nil, err
	}
	var out *ReadOnlyEntity
	err = c.retry(ctx, func() error {
		resp, err := c.raw.GetEntityV3(ctx, strings.ToLower(typ), urn, nil)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("get %s: %w", urn, ErrNotFound)
		}
		if err := statusError(resp.StatusCode, body); err != nil {
			return err
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(body, &members); err != nil {
			return fmt.Errorf("decode entity %s: %w", urn, err)
		}
		ro := &ReadOnlyEntity{urn: urn, typ: typ, aspects: map[string]json.RawMessage{}}
		for name, m := range members {
			if name == "urn" {
				continue
			}
			var env struct {
				Value json.RawMessage `json:"value"`
			}
			if err := json.Unmarshal(m, &env); err != nil {
				return fmt.Errorf("decode aspect %s of %s: %w", name, urn, err)
			}
			ro.aspects[name] = env.Value
		}
		out = ro
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", urn, err)
	}
	return out, nil
}

// Exists reports whether anything is stored for urn.
func (c *Client) Exists(ctx context.Context, urn string) (bool, error) {
	_, err := c.Get(ctx, urn)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Delete hard-deletes an entity through DELETE /openapi/v3/entity/<type>/<urn>.
func (c *Client) Delete(ctx context.Context, urn string) error {
	typ, err := entityTypeOf(urn)
	if err != nil {
		return err
	}
	return c.retry(ctx, func() error {
		resp, err := c.raw.DeleteEntityV3(ctx, strings.ToLower(typ), urn, nil)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return statusError(resp.StatusCode, body)
	})
}

// Upsert writes e's full aspects, then its patches, as one atomic request.
func (c *Client) Upsert(ctx context.Context, e *Entity) error {
	props, err := e.proposals(true)
	if err != nil {
		return err
	}
	if err := c.Send(ctx, props); err != nil {
		return fmt.Errorf("upsert %s: %w", e.urn, err)
	}
	return nil
}

// Update writes only e's patches, and fails with an error wrapping
// ErrNotFound when the entity does not exist (a patch alone would create
// it). e must carry no full aspects: those need Upsert.
func (c *Client) Update(ctx context.Context, e *Entity) error {
	if len(e.aspects) > 0 {
		return fmt.Errorf("update %s: entity has full aspects (%s); use Upsert", e.urn, strings.Join(e.order, ", "))
	}
	props, err := e.proposals(false)
	if err != nil {
		return err
	}
	ok, err := c.Exists(ctx, e.urn)
	if err != nil {
		return fmt.Errorf("update %s: %w", e.urn, err)
	}
	if !ok {
		return fmt.Errorf("update %s: %w", e.urn, ErrNotFound)
	}
	if err := c.Send(ctx, props); err != nil {
		return fmt.Errorf("update %s: %w", e.urn, err)
	}
	return nil
}

// Send posts props as one ingestProposalBatch request (applied all or
// nothing), retrying on 429 and 5xx.
func (c *Client) Send(ctx context.Context, props []Proposal) error {
	if len(props) == 0 {
		return nil
	}
	body, err := json.Marshal(map[string]any{"proposals": props, "async": "false"})
	if err != nil {
		return fmt.Errorf("encode proposals: %w", err)
	}
	params := &api.AspectsActionParams{Action: "ingestProposalBatch"}
	return c.retry(ctx, func() error {
		resp, err := c.raw.AspectsActionWithBody(ctx, params, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return statusError(resp.StatusCode, b)
	})
}

// retry runs fn until it succeeds, fails for good, runs out of attempts or
// ctx ends. Transport errors are retried like 5xx answers: the request may
// not have reached the server.
func (c *Client) retry(ctx context.Context, fn func() error) error {
	wait := c.backoff
	var err error
	for attempt := 1; ; attempt++ {
		if err = fn(); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var se *StatusError
		retryable := errors.As(err, &se) && se.Retryable()
		if se == nil && !errors.Is(err, ErrNotFound) && !isDecodeError(err) {
			retryable = true
		}
		if !retryable || attempt >= c.attempts {
			return err
		}
		if err := c.sleep(ctx, wait); err != nil {
			return err
		}
		wait = min(wait*2, c.maxWait)
	}
}

func isDecodeError(err error) bool {
	return strings.HasPrefix(err.Error(), "decode ")
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// statusError turns a non-2xx answer into a *StatusError carrying the
// server's message (rest.li error bodies have one, OpenAPI ones an error).
func statusError(status int, body []byte) error {
	if status >= 200 && status < 300 {
		return nil
	}
	var eb struct {
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(body, &eb)
	if eb.Error != "" && eb.Message == "" {
		eb.Message = eb.Error
	} else if eb.Error != "" && eb.Error != eb.Message {
		eb.Message = eb.Error + ": " + eb.Message
	}
	if eb.Message == "" && len(body) > 0 && len(body) < 512 && !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		eb.Message = strings.TrimSpace(string(body))
	}
	return &StatusError{Status: status, Message: eb.Message}
}

// entityTypeOf is the entity type of a URN: urn:li:<type>:<id>.
func entityTypeOf(urn string) (string, error) {
	rest, ok := strings.CutPrefix(urn, "urn:li:")
	if !ok {
		return "", fmt.Errorf("%q is not a URN (urn:li:<type>:<id>)", urn)
	}
	typ, _, ok := strings.Cut(rest, ":")
	if !ok || typ == "" {
		return "", fmt.Errorf("%q is not a URN (urn:li:<type>:<id>)", urn)
	}
	return typ, nil
}
