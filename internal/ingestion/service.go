// Package ingestion is DataHub's managed ingestion: the secrets recipes
// refer to, kept encrypted; the execution requests that run an ingestion
// source's recipe; and the executor that claims those requests, runs the
// configured command (DataHub's CLI by default) as a subprocess and records
// its outcome, and the scheduler that requests the runs of sources with a
// cron schedule.
//
// Everything is stored as DataHub stores it (dataHubSecret,
// dataHubExecutionRequest entities and their aspects), written through the
// ingest pipeline, so versions, the search index, the audit trail and the
// change events follow as for any other write. A secret's value is kept only
// encrypted (AES-256-GCM, with a key the store does not hold), and no read
// API serves the aspect that holds it.
package ingestion

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/google/uuid"
)

// Entity, aspect and value names DataHub uses.
const (
	secretEntity   = "dataHubSecret"
	secretPrefix   = "urn:li:dataHubSecret:"
	secretAspect   = "dataHubSecretValue"
	requestEntity  = "dataHubExecutionRequest"
	requestPrefix  = "urn:li:dataHubExecutionRequest:"
	inputAspect    = "dataHubExecutionRequestInput"
	resultAspect   = "dataHubExecutionRequestResult"
	signalAspect   = "dataHubExecutionRequestSignal"
	sourceEntity   = "dataHubIngestionSource"
	sourceAspect   = "dataHubIngestionSourceInfo"
	sourceRelation = "ingestionSource"

	// TaskRunIngest and TaskTestConnection are the tasks a request asks for.
	TaskRunIngest      = "RUN_INGEST"
	TaskTestConnection = "TEST_CONNECTION"
	// The kinds of request source.
	SourceManual         = "MANUAL_INGESTION_SOURCE"
	SourceScheduled      = "SCHEDULED_INGESTION_SOURCE"
	SourceTestConnection = "MANUAL_TEST_CONNECTION"
	// DefaultExecutorID is the executor id of requests the embedded
	// executor runs, as DataHub names its built-in executor.
	DefaultExecutorID = "default"
	// killSignal asks for a run to be stopped.
	killSignal = "KILL"
)

// The statuses of a run's result, as DataHub's UI shows them.
const (
	StatusRunning   = "RUNNING"
	StatusSuccess   = "SUCCESS"
	StatusFailure   = "FAILURE"
	StatusCancelled = "CANCELLED"
	StatusTimeout   = "TIMEOUT"
)

// Config configures a Service.
type Config struct {
	// Store reads everything, secret aspects included; only this package
	// and the executor read secret values from it.
	Store  catalog.Reader
	Ingest *ingest.Service
	// Auth checks the caller's privileges; nil lets everyone (the mode
	// without authentication).
	Auth *auth.Service
	// Cipher encrypts secret values; nil refuses to manage secrets, with
	// NoCipherReason as the explanation.
	Cipher         *Cipher
	NoCipherReason string
	// Executor, when set, says what runs the requests; empty refuses to
	// create runs, with NoExecutorReason as the explanation.
	Executor         string
	NoExecutorReason string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Service manages secrets and execution requests. It is safe for
// concurrent use.
type Service struct {
	cfg  Config
	now  func() time.Time
	wake chan struct{}
}

// New returns the Service of cfg.
func New(cfg Config) *Service {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Service{cfg: cfg, now: now, wake: make(chan struct{}, 1)}
}

// Woken receives when a request was created in this process, so that an
// executor need not wait for its next poll.
func (s *Service) Woken() <-chan struct{} { return s.wake }

func (s *Service) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) require(ctx context.Context, actor, what, priv string) error {
	if s.cfg.Auth == nil {
		return nil
	}
	return s.cfg.Auth.Require(ctx, actor, auth.Resource{}, what, priv)
}

// secretName is what a secret may be called: recipes refer to it as
// ${NAME}, so it must read as one variable name.
var secretName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// SecretInfo is what is shown of a secret: never its value.
type SecretInfo struct {
	URN, Name, Description string
	Created                int64
}

type secretValue struct {
	Name        string              `json:"name"`
	Value       string              `json:"value"`
	Description string              `json:"description,omitempty"`
	Created     *catalog.AuditStamp `json:"created,omitempty"`
}

func (s *Service) cipher() (*Cipher, error) {
	if s.cfg.Cipher == nil {
		reason := s.cfg.NoCipherReason
		if reason == "" {
			reason = "no secret encryption key is configured"
		}
		return nil, catalog.Errorf(catalog.Unavailable, "secrets cannot be stored: %s", reason)
	}
	return s.cfg.Cipher, nil
}

// CreateSecret stores a new secret named name (its URN is derived from the
// name, as DataHub does, so names are unique) and returns its URN.
func (s *Service) CreateSecret(ctx context.Context, actor, name, value, description string) (string, error) {
	if err := s.require(ctx, actor, "manage secrets", auth.PrivManageSecrets); err != nil {
		return "", err
	}
	if !secretName.MatchString(name) {
		return "", catalog.Errorf(catalog.Invalid, "secret name %q must start with a letter or _ and hold only letters, digits and _ (recipes refer to it as ${%s})", name, name)
	}
	c, err := s.cipher()
	if err != nil {
		return "", err
	}
	urn := catalog.NewURN(secretEntity, name)
	exists, err := s.has(ctx, urn, secretAspect)
	if err != nil {
		return "", err
	}
	if exists {
		return "", catalog.Errorf(catalog.Conflict, "a secret named %q already exists", name)
	}
	v := secretValue{Name: name, Value: c.Encrypt(urn, value), Description: description,
		Created: &catalog.AuditStamp{Time: s.now().UnixMilli(), Actor: actor}}
	p, err := s.proposal(secretEntity, urn, secretAspect, v)
	if err != nil {
		return "", err
	}
	// Created only if absent, so that two creations at once do not both
	// succeed with one value lost.
	var lost bool
	p.Edit = func(cur json.RawMessage) (json.RawMessage, error) {
		lost = cur != nil
		if lost {
			return nil, nil
		}
		return p.Value, nil
	}
	if _, err := s.cfg.Ingest.Ingest(ctx, actor, []catalog.Proposal{p}); err != nil {
		return "", err
	}
	if lost {
		return "", catalog.Errorf(catalog.Conflict, "a secret named %q already exists", name)
	}
	return urn, nil
}

// UpdateSecret replaces the value, name and description of the secret urn.
func (s *Service) UpdateSecret(ctx context.Context, actor, urn, name, value, description string) error {
	if err := s.require(ctx, actor, "manage secrets", auth.PrivManageSecrets); err != nil {
		return err
	}
	if err := checkType(urn, secretEntity); err != nil {
		return err
	}
	// Recipes and the executor find a secret by the name its URN holds.
	if u, _ := catalog.ParseURN(urn); name != u.ID() {
		return catalog.Errorf(catalog.Invalid, "secret %s cannot be renamed to %q: recipes refer to it by its name", urn, name)
	}
	c, err := s.cipher()
	if err != nil {
		return err
	}
	enc := c.Encrypt(urn, value)
	p, err := s.proposal(secretEntity, urn, secretAspect, nil)
	if err != nil {
		return err
	}
	var missing bool
	p.Edit = func(cur json.RawMessage) (json.RawMessage, error) {
		missing = cur == nil
		if missing {
			return nil, nil
		}
		var old secretValue
		if err := json.Unmarshal(cur, &old); err != nil {
			return nil, fmt.Errorf("decode %s of %s: %w", secretAspect, urn, err)
		}
		return json.Marshal(secretValue{Name: name, Value: enc, Description: description, Created: old.Created})
	}
	if _, err := s.cfg.Ingest.Ingest(ctx, actor, []catalog.Proposal{p}); err != nil {
		return err
	}
	if missing {
		return catalog.Errorf(catalog.NotFound, "secret %s does not exist", urn)
	}
	return nil
}

// DeleteSecret deletes the secret urn, every version of its value with it.
func (s *Service) DeleteSecret(ctx context.Context, actor, urn string) error {
	if err := s.require(ctx, actor, "manage secrets", auth.PrivManageSecrets); err != nil {
		return err
	}
	return s.deleteEntity(ctx, actor, urn, secretEntity)
}

// DeleteSource deletes the ingestion source urn; its runs are kept, as in
// DataHub.
func (s *Service) DeleteSource(ctx context.Context, actor, urn string) error {
	if err := s.require(ctx, actor, "manage ingestion sources", auth.PrivManageIngestion); err != nil {
		return err
	}
	return s.deleteEntity(ctx, actor, urn, sourceEntity)
}

func (s *Service) deleteEntity(ctx context.Context, actor, urn, entity string) error {
	if err := checkType(urn, entity); err != nil {
		return err
	}
	u, _ := catalog.ParseURN(urn)
	_, _, err := s.cfg.Ingest.DeleteEntity(ctx, actor, u)
	return err
}

// ListSecrets returns the secrets whose name contains query (all for ""
// or "*"), the latest created first, and how many there are.
func (s *Service) ListSecrets(ctx context.Context, actor, query string, start, count int) ([]SecretInfo, int, error) {
	if err := s.require(ctx, actor, "manage secrets", auth.PrivManageSecrets); err != nil {
		return nil, 0, err
	}
	rows, err := s.scan(ctx, secretPrefix, secretAspect)
	if err != nil {
		return nil, 0, err
	}
	q := strings.ToLower(strings.TrimSpace(query))
	var all []SecretInfo
	for _, r := range rows {
		var v secretValue
		if err := json.Unmarshal(r.Value, &v); err != nil {
			return nil, 0, fmt.Errorf("decode %s of %s: %w", secretAspect, r.URN, err)
		}
		if q != "" && q != "*" && !strings.Contains(strings.ToLower(v.Name), q) {
			continue
		}
		info := SecretInfo{URN: r.URN, Name: v.Name, Description: v.Description}
		if v.Created != nil {
			info.Created = v.Created.Time
		}
		all = append(all, info)
	}
	slices.SortStableFunc(all, func(a, b SecretInfo) int {
		if c := cmp.Compare(b.Created, a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.URN, b.URN)
	})
	return window(all, start, count), len(all), nil
}

// secretValues returns the decrypted value of every secret named in names
// that exists. Only the executor calls it, to fill a recipe in: no API
// serves secret values (DataHub's getSecretValues exists for its remote
// executors, which catalogd does not have; serving it would let anyone
// with a token and the privilege read every credential in clear).
func (s *Service) secretValues(ctx context.Context, names []string) (map[string]string, error) {
	out := map[string]string{}
	if len(names) == 0 {
		return out, nil
	}
	urns := make([]string, 0, len(names))
	for _, n := range names {
		urns = append(urns, catalog.NewURN(secretEntity, n))
	}
	m, err := s.cfg.Store.LatestAspects(ctx, urns, []string{secretAspect})
	if err != nil {
		return nil, fmt.Errorf("read secrets: %w", err)
	}
	for _, urn := range urns {
		for _, a := range m[urn] {
			var v secretValue
			if err := json.Unmarshal(a.Value, &v); err != nil {
				return nil, fmt.Errorf("decode %s of %s: %w", secretAspect, urn, err)
			}
			c, err := s.cipher()
			if err != nil {
				return nil, err
			}
			plain, err := c.Decrypt(urn, v.Value)
			if err != nil {
				return nil, fmt.Errorf("secret %s: %w", v.Name, err)
			}
			out[strings.TrimPrefix(urn, secretPrefix)] = plain
		}
	}
	return out, nil
}

// CreateRun requests a run of the ingestion source urn by actor, as the
// UI's "Run" does, and returns the request's URN.
func (s *Service) CreateRun(ctx context.Context, actor, sourceURN string) (string, error) {
	if err := s.require(ctx, actor, "manage ingestion sources", auth.PrivManageIngestion); err != nil {
		return "", err
	}
	if err := s.executorAvailable(); err != nil {
		return "", err
	}
	return s.createRun(ctx, actor, sourceURN, SourceManual, uuid.NewString())
}

func (s *Service) executorAvailable() error {
	if s.cfg.Executor != "" {
		return nil
	}
	reason := s.cfg.NoExecutorReason
	if reason == "" {
		reason = "no ingestion executor is configured"
	}
	return catalog.Errorf(catalog.Unavailable, "%s", reason)
}

type sourceInfo struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Schedule *struct {
		Interval string `json:"interval"`
		Timezone string `json:"timezone"`
	} `json:"schedule"`
	Config struct {
		Recipe     string            `json:"recipe"`
		Version    *string           `json:"version"`
		ExecutorID string            `json:"executorId"`
		DebugMode  *bool             `json:"debugMode"`
		ExtraArgs  map[string]string `json:"extraArgs"`
	} `json:"config"`
}

// source reads the ingestion source urn, nil when there is none.
func (s *Service) source(ctx context.Context, urn string) (*sourceInfo, error) {
	if err := checkType(urn, sourceEntity); err != nil {
		return nil, err
	}
	m, err := s.cfg.Store.LatestAspects(ctx, []string{urn}, []string{sourceAspect})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", urn, err)
	}
	for _, a := range m[urn] {
		var v sourceInfo
		if err := json.Unmarshal(a.Value, &v); err != nil {
			return nil, fmt.Errorf("decode %s of %s: %w", sourceAspect, urn, err)
		}
		return &v, nil
	}
	return nil, nil
}

// createRun writes the request id for a run of sourceURN. The write is
// made only when no request id exists, so that a scheduled slot whose id
// is derived from its time is requested once whoever gets there first.
func (s *Service) createRun(ctx context.Context, actor, sourceURN, kind, id string) (string, error) {
	src, err := s.source(ctx, sourceURN)
	if err != nil {
		return "", err
	}
	if src == nil {
		return "", catalog.Errorf(catalog.Invalid, "failed to find ingestion source with urn %s", sourceURN)
	}
	if strings.TrimSpace(src.Config.Recipe) == "" {
		return "", catalog.Errorf(catalog.Invalid, "ingestion source %s has no recipe", sourceURN)
	}
	urn := catalog.NewURN(requestEntity, id)
	recipe, err := withFields(src.Config.Recipe, map[string]string{"run_id": urn}, map[string]string{"pipeline_name": sourceURN})
	if err != nil {
		return "", err
	}
	args := map[string]string{}
	for k, v := range src.Config.ExtraArgs {
		args[k] = v
	}
	args["recipe"] = recipe
	if src.Config.Version != nil && *src.Config.Version != "" {
		args["version"] = *src.Config.Version
	}
	args["debug_mode"] = "false"
	if src.Config.DebugMode != nil && *src.Config.DebugMode {
		args["debug_mode"] = "true"
	}
	executor := src.Config.ExecutorID
	if executor == "" {
		executor = DefaultExecutorID
	}
	input := map[string]any{
		"task":        TaskRunIngest,
		"args":        args,
		"executorId":  executor,
		"source":      map[string]any{"type": kind, "ingestionSource": sourceURN},
		"requestedAt": s.now().UnixMilli(),
		"actorUrn":    actor,
	}
	if err := s.writeRequest(ctx, actor, urn, input); err != nil {
		return "", err
	}
	return urn, nil
}

// CreateTestConnection requests a test of recipe's connection, as the
// UI's "Test Connection" does, and returns the request's URN.
func (s *Service) CreateTestConnection(ctx context.Context, actor, recipe, version string) (string, error) {
	if err := s.require(ctx, actor, "manage ingestion sources", auth.PrivManageIngestion); err != nil {
		return "", err
	}
	if err := s.executorAvailable(); err != nil {
		return "", err
	}
	urn := catalog.NewURN(requestEntity, uuid.NewString())
	recipe, err := withFields(recipe, nil, map[string]string{"pipeline_name": urn})
	if err != nil {
		return "", err
	}
	args := map[string]string{"recipe": recipe}
	if version != "" {
		args["version"] = version
	}
	input := map[string]any{
		"task":        TaskTestConnection,
		"args":        args,
		"executorId":  DefaultExecutorID,
		"source":      map[string]any{"type": SourceTestConnection},
		"requestedAt": s.now().UnixMilli(),
		"actorUrn":    actor,
	}
	if err := s.writeRequest(ctx, actor, urn, input); err != nil {
		return "", err
	}
	return urn, nil
}

func (s *Service) writeRequest(ctx context.Context, actor, urn string, input map[string]any) error {
	p, err := s.proposal(requestEntity, urn, inputAspect, input)
	if err != nil {
		return err
	}
	p.Edit = func(cur json.RawMessage) (json.RawMessage, error) {
		if cur != nil {
			return nil, nil
		}
		return p.Value, nil
	}
	if _, err := s.cfg.Ingest.Ingest(ctx, actor, []catalog.Proposal{p}); err != nil {
		return err
	}
	s.notify()
	return nil
}

// Cancel asks the executor to stop the run requestURN of sourceURN (the
// KILL signal DataHub's executors obey). A run not started yet never
// starts; one that has ended is left as it is.
func (s *Service) Cancel(ctx context.Context, actor, sourceURN, requestURN string) error {
	if err := s.require(ctx, actor, "manage ingestion sources", auth.PrivManageIngestion); err != nil {
		return err
	}
	src, err := s.source(ctx, sourceURN)
	if err != nil {
		return err
	}
	if src == nil {
		return catalog.Errorf(catalog.Invalid, "failed to find ingestion source with urn %s", sourceURN)
	}
	if err := checkType(requestURN, requestEntity); err != nil {
		return err
	}
	exists, err := s.has(ctx, requestURN, inputAspect)
	if err != nil {
		return err
	}
	if !exists {
		return catalog.Errorf(catalog.NotFound, "execution request %s does not exist", requestURN)
	}
	executor := src.Config.ExecutorID
	if executor == "" {
		executor = DefaultExecutorID
	}
	p, err := s.proposal(requestEntity, requestURN, signalAspect, map[string]any{
		"signal": killSignal, "executorId": executor,
		"createdAt": catalog.AuditStamp{Time: s.now().UnixMilli(), Actor: actor},
	})
	if err != nil {
		return err
	}
	if _, err := s.cfg.Ingest.Ingest(ctx, actor, []catalog.Proposal{p}); err != nil {
		return err
	}
	s.notify()
	return nil
}

// Run is one execution request as listed: its URN, when it was requested
// and its result's status ("" before it starts).
type Run struct {
	URN         string
	Source      string
	RequestedAt int64
	Status      string
}

// Runs lists the execution requests of the ingestion source sourceURN (all
// of them when ""), the latest requested first.
func (s *Service) Runs(ctx context.Context, sourceURN string) ([]Run, error) {
	var urns []string
	if sourceURN != "" {
		const page = 1000
		for start := 0; ; start += page {
			edges, _, err := s.cfg.Store.Edges(ctx, catalog.EdgeQuery{URN: sourceURN, Direction: catalog.Incoming,
				Relationships: []string{sourceRelation}, Start: start, Count: page})
			if err != nil {
				return nil, fmt.Errorf("read the runs of %s: %w", sourceURN, err)
			}
			for _, e := range edges {
				if strings.HasPrefix(e.Source, requestPrefix) {
					urns = append(urns, e.Source)
				}
			}
			if len(edges) < page {
				break
			}
		}
	} else {
		rows, err := s.scanKeys(ctx, requestPrefix, inputAspect)
		if err != nil {
			return nil, err
		}
		urns = rows
	}
	return s.runsOf(ctx, urns)
}

func (s *Service) runsOf(ctx context.Context, urns []string) ([]Run, error) {
	var out []Run
	const batch = 500
	for i := 0; i < len(urns); i += batch {
		part := urns[i:min(i+batch, len(urns))]
		m, err := s.cfg.Store.LatestAspects(ctx, part, []string{inputAspect, resultAspect})
		if err != nil {
			return nil, fmt.Errorf("read runs: %w", err)
		}
		for _, u := range part {
			r := Run{URN: u}
			found := false
			for _, a := range m[u] {
				switch a.Name {
				case inputAspect:
					var in struct {
						RequestedAt int64 `json:"requestedAt"`
						Source      struct {
							IngestionSource string `json:"ingestionSource"`
						} `json:"source"`
					}
					if err := json.Unmarshal(a.Value, &in); err != nil {
						return nil, fmt.Errorf("decode %s of %s: %w", inputAspect, u, err)
					}
					r.RequestedAt, r.Source, found = in.RequestedAt, in.Source.IngestionSource, true
				case resultAspect:
					var res struct {
						Status string `json:"status"`
					}
					if err := json.Unmarshal(a.Value, &res); err != nil {
						return nil, fmt.Errorf("decode %s of %s: %w", resultAspect, u, err)
					}
					r.Status = res.Status
				}
			}
			if found {
				out = append(out, r)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Run) int {
		if a.RequestedAt != b.RequestedAt {
			if a.RequestedAt > b.RequestedAt {
				return -1
			}
			return 1
		}
		return strings.Compare(b.URN, a.URN)
	})
	return out, nil
}

// SystemSources returns the URNs of the ingestion sources whose source type
// is SYSTEM (those the platform made, not a user).
func (s *Service) SystemSources(ctx context.Context) (map[string]bool, error) {
	rows, err := s.scan(ctx, "urn:li:dataHubIngestionSource:", sourceAspect)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range rows {
		var v struct {
			Source struct {
				Type string `json:"type"`
			} `json:"source"`
		}
		if json.Unmarshal(r.Value, &v) == nil && v.Source.Type == "SYSTEM" {
			out[r.URN] = true
		}
	}
	return out, nil
}

func (s *Service) has(ctx context.Context, urn, aspect string) (bool, error) {
	m, err := s.cfg.Store.LatestAspects(ctx, []string{urn}, []string{aspect})
	if err != nil {
		return false, fmt.Errorf("read %s: %w", urn, err)
	}
	return len(m[urn]) > 0, nil
}

// scan returns the latest aspect rows of every entity whose URN starts with
// prefix.
func (s *Service) scan(ctx context.Context, prefix, aspect string) ([]catalog.Aspect, error) {
	var out []catalog.Aspect
	after := ""
	for {
		rows, err := s.cfg.Store.ScanLatest(ctx, catalog.ScanQuery{URNLike: prefix + "%", Aspect: aspect, After: after, Limit: 1000})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", aspect, err)
		}
		out = append(out, rows...)
		if len(rows) < 1000 {
			return out, nil
		}
		after = rows[len(rows)-1].URN
	}
}

func (s *Service) scanKeys(ctx context.Context, prefix, aspect string) ([]string, error) {
	var out []string
	after := ""
	for {
		rows, err := s.cfg.Store.ScanLatest(ctx, catalog.ScanQuery{URNLike: prefix + "%", Aspect: aspect, After: after, KeysOnly: true, Limit: 1000})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", aspect, err)
		}
		for _, r := range rows {
			out = append(out, r.URN)
		}
		if len(rows) < 1000 {
			return out, nil
		}
		after = rows[len(rows)-1].URN
	}
}

func (s *Service) proposal(entity, urn, aspect string, v any) (catalog.Proposal, error) {
	p := catalog.Proposal{EntityType: entity, EntityURN: urn, AspectName: aspect, ChangeType: catalog.Upsert, ContentType: "application/json"}
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return p, fmt.Errorf("encode %s: %w", aspect, err)
		}
		p.Value = b
	}
	return p, nil
}

// checkType fails with Invalid unless urn is a URN of entity.
func checkType(urn, entity string) error {
	u, err := catalog.ParseURN(urn)
	if err != nil || u.EntityType() != entity {
		return catalog.Errorf(catalog.Invalid, "%q is not a %s URN", urn, entity)
	}
	return nil
}

// withFields sets the top-level fields set of the JSON recipe, and those of
// ifAbsent where the recipe has none (or an empty one), as DataHub does
// with run_id and pipeline_name.
func withFields(recipe string, set, ifAbsent map[string]string) (string, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(recipe), &m); err != nil || m == nil {
		return "", catalog.Errorf(catalog.Invalid, "the recipe is not a JSON object")
	}
	for k, v := range set {
		m[k] = v
	}
	for k, v := range ifAbsent {
		if cur, ok := m[k]; !ok || cur == nil || cur == "" {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode recipe: %w", err)
	}
	return string(b), nil
}

func window[E any](s []E, start, count int) []E {
	if start < 0 {
		start = 0
	}
	if start >= len(s) || count <= 0 {
		return nil
	}
	return s[start:min(start+count, len(s))]
}
