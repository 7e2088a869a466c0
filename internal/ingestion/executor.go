package ingestion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/google/uuid"
)

// ExecutorConfig configures an Executor.
type ExecutorConfig struct {
	// Command is the command run for a request, one argument a string:
	// {recipe} becomes the path of the recipe file and {report} that of a
	// file the command may write its JSON report to. A test of a
	// connection appends --test-source-connection.
	Command []string
	// ID is the executor id of the requests it runs (DefaultExecutorID
	// when empty); requests for other executors are left to them.
	ID string
	// Timeout bounds a run (TIMEOUT); 0 leaves it unbounded.
	Timeout time.Duration
	// Poll is how often the store is checked for new requests and
	// cancellations (a second when 0).
	Poll time.Duration
	// Concurrency is how many runs may go at once (2 when 0).
	Concurrency int
	// MaxReport bounds the output kept as a run's report, in bytes (1 MiB
	// when 0): its last bytes are kept, as the end tells how a run went.
	MaxReport int
	// Env is the subprocess's environment (this process's, less its
	// credentials, when nil).
	Env []string
	// Schedules turns on the scheduler: sources with a cron schedule get
	// their runs requested on time.
	Schedules bool
	// Exclusive says this executor is the only one on its store (the
	// embedded store): the runs it finds RUNNING at start are failed at
	// once. Otherwise a run is failed once it has recorded no progress for
	// Lease (two minutes when 0); runs record progress at least every
	// quarter of it.
	Exclusive bool
	Lease     time.Duration
	// Token, when set, issues the access token a run's command is given
	// (DATAHUB_GMS_TOKEN) to write to this server as the run's requester
	// (the system for scheduled runs), valid for ttl.
	Token func(ctx context.Context, actor string, ttl time.Duration) (string, error)
}

// Executor claims pending execution requests, runs them as subprocesses and
// records their results. Restarting loses no request and runs none twice: a
// request is claimed by writing its RUNNING result only when it has none
// (so executors of several replicas may share a store), and a run a
// stopped process left RUNNING is marked failed (see Recover).
type Executor struct {
	svc *Service
	cfg ExecutorConfig

	mu      sync.Mutex
	running map[string]context.CancelCauseFunc
	wg      sync.WaitGroup

	crons     map[string]*Cron // by schedule "interval\x00timezone"
	scheduled time.Time        // slots up to this time were requested
	swept     time.Time        // when abandoned runs were last looked for
}

var (
	errCancelled = errors.New("cancelled")
	errStopping  = errors.New("catalogd is stopping")
)

// NewExecutor returns the executor of the requests svc creates.
func NewExecutor(svc *Service, cfg ExecutorConfig) *Executor {
	if cfg.ID == "" {
		cfg.ID = DefaultExecutorID
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 2
	}
	if cfg.MaxReport <= 0 {
		cfg.MaxReport = 1 << 20
	}
	if cfg.Env == nil {
		cfg.Env = SafeEnv(os.Environ())
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 2 * time.Minute
	}
	return &Executor{svc: svc, cfg: cfg, running: map[string]context.CancelCauseFunc{}, crons: map[string]*Cron{}}
}

// credentialEnv are the variables of catalogd's environment a recipe's
// command is not given: they hold the server's own credentials.
var credentialEnv = []string{
	"SECRET_SERVICE_ENCRYPTION_KEY", "DATAHUB_TOKEN_SERVICE_SIGNING_KEY", "CATALOGD_TOKEN_SIGNING_KEY",
	"DATAHUB_SYSTEM_CLIENT_SECRET", "CATALOGD_ROOT_PASSWORD", "AUTH_OIDC_CLIENT_SECRET", "CATALOGD_MEILISEARCH_KEY",
	"CATALOGD_STORE",
}

// SafeEnv returns env without catalogd's credentials.
func SafeEnv(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(credentialEnv, k)
	})
}

// Recover marks the runs of this executor that a stopped process left
// RUNNING as failed: nothing runs them any more. An exclusive executor
// fails every such run at once; others fail those that have recorded no
// progress for a lease (as Run goes on doing), since another process may
// be running the rest.
func (e *Executor) Recover(ctx context.Context) error {
	if e.cfg.Exclusive {
		return e.failAbandoned(ctx, e.svc.now().Add(time.Hour))
	}
	return e.failAbandoned(ctx, e.svc.now().Add(-e.cfg.Lease))
}

// failAbandoned marks as failed the RUNNING runs of this executor that this
// process does not run and whose result was last written before before.
func (e *Executor) failAbandoned(ctx context.Context, before time.Time) error {
	rows, err := e.svc.scan(ctx, requestPrefix, resultAspect)
	if err != nil {
		return err
	}
	for _, r := range rows {
		var res result
		if err := json.Unmarshal(r.Value, &res); err != nil || res.Status != StatusRunning || r.Created.Time >= before.UnixMilli() {
			continue
		}
		e.mu.Lock()
		_, mine := e.running[r.URN]
		e.mu.Unlock()
		if mine {
			continue
		}
		in, err := e.input(ctx, r.URN)
		if err != nil || in == nil || in.ExecutorID != e.cfg.ID {
			continue
		}
		res.Status = StatusFailure
		res.Report += "\ncatalogd stopped while this run was in progress: it did not finish.\n"
		if res.StartTimeMs > 0 {
			res.DurationMs = max(e.svc.now().UnixMilli()-res.StartTimeMs, 0)
		}
		// Only over the value read: a live executor's progress wins.
		seen := r.Value
		p, err := e.svc.proposal(requestEntity, r.URN, resultAspect, res)
		if err != nil {
			return err
		}
		failed := false
		p.Edit = func(cur json.RawMessage) (json.RawMessage, error) {
			failed = sameJSON(cur, seen)
			if !failed {
				return nil, nil
			}
			return p.Value, nil
		}
		if _, err := e.svc.cfg.Ingest.Ingest(ctx, catalog.SystemActor, []catalog.Proposal{p}); err != nil {
			return err
		}
		if failed {
			slog.Warn("an ingestion run was in progress when catalogd stopped; marked failed", "request", r.URN)
		}
	}
	return nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// Run claims and runs requests, and requests scheduled runs, until ctx is
// done; it then stops the runs in progress, records them as failed and
// returns.
func (e *Executor) Run(ctx context.Context) {
	e.scheduled = e.svc.now()
	tick := time.NewTicker(e.cfg.Poll)
	defer tick.Stop()
	for {
		e.step(ctx)
		select {
		case <-ctx.Done():
			e.mu.Lock()
			for _, cancel := range e.running {
				cancel(errStopping)
			}
			e.mu.Unlock()
			e.wg.Wait()
			return
		case <-tick.C:
		case <-e.svc.Woken():
		}
	}
}

func (e *Executor) step(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	if err := e.checkSignals(ctx); err != nil && ctx.Err() == nil {
		slog.Error("ingestion executor: read cancellations", "err", err)
	}
	if e.cfg.Schedules {
		if err := e.schedule(ctx); err != nil && ctx.Err() == nil {
			slog.Error("ingestion executor: request scheduled runs", "err", err)
		}
	}
	if err := e.claim(ctx); err != nil && ctx.Err() == nil {
		slog.Error("ingestion executor: claim requests", "err", err)
	}
	if now := e.svc.now(); !e.cfg.Exclusive && now.Sub(e.swept) >= e.cfg.Lease/4 {
		e.swept = now
		if err := e.failAbandoned(ctx, now.Add(-e.cfg.Lease)); err != nil && ctx.Err() == nil {
			slog.Error("ingestion executor: fail abandoned runs", "err", err)
		}
	}
}

// checkSignals cancels the runs in progress that were asked to stop.
func (e *Executor) checkSignals(ctx context.Context) error {
	e.mu.Lock()
	urns := make([]string, 0, len(e.running))
	for u := range e.running {
		urns = append(urns, u)
	}
	e.mu.Unlock()
	if len(urns) == 0 {
		return nil
	}
	m, err := e.svc.cfg.Store.LatestAspects(ctx, urns, []string{signalAspect})
	if err != nil {
		return err
	}
	for u, as := range m {
		for _, a := range as {
			if killed(a.Value) {
				e.mu.Lock()
				if cancel := e.running[u]; cancel != nil {
					cancel(errCancelled)
				}
				e.mu.Unlock()
			}
		}
	}
	return nil
}

func killed(signal json.RawMessage) bool {
	var v struct {
		Signal string `json:"signal"`
	}
	return json.Unmarshal(signal, &v) == nil && v.Signal == killSignal
}

type input struct {
	Task        string            `json:"task"`
	Args        map[string]string `json:"args"`
	ExecutorID  string            `json:"executorId"`
	RequestedAt int64             `json:"requestedAt"`
	ActorURN    string            `json:"actorUrn"`
}

type result struct {
	Status           string         `json:"status"`
	Report           string         `json:"report,omitempty"`
	StructuredReport map[string]any `json:"structuredReport,omitempty"`
	StartTimeMs      int64          `json:"startTimeMs,omitempty"`
	DurationMs       int64          `json:"durationMs,omitempty"`
}

func (e *Executor) input(ctx context.Context, urn string) (*input, error) {
	m, err := e.svc.cfg.Store.LatestAspects(ctx, []string{urn}, []string{inputAspect})
	if err != nil {
		return nil, err
	}
	for _, a := range m[urn] {
		var in input
		if err := json.Unmarshal(a.Value, &in); err != nil {
			return nil, fmt.Errorf("decode %s of %s: %w", inputAspect, urn, err)
		}
		return &in, nil
	}
	return nil, nil
}

// claim starts the oldest pending requests of this executor while there is
// room.
func (e *Executor) claim(ctx context.Context) error {
	e.mu.Lock()
	free := e.cfg.Concurrency - len(e.running)
	e.mu.Unlock()
	if free <= 0 {
		return nil
	}
	inputs, err := e.svc.scanKeys(ctx, requestPrefix, inputAspect)
	if err != nil {
		return err
	}
	results, err := e.svc.scanKeys(ctx, requestPrefix, resultAspect)
	if err != nil {
		return err
	}
	done := make(map[string]bool, len(results))
	for _, u := range results {
		done[u] = true
	}
	var pending []string
	for _, u := range inputs {
		if !done[u] {
			pending = append(pending, u)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	type job struct {
		urn    string
		in     input
		killed bool
	}
	var jobs []job
	for i := 0; i < len(pending); i += 500 {
		part := pending[i:min(i+500, len(pending))]
		m, err := e.svc.cfg.Store.LatestAspects(ctx, part, []string{inputAspect, signalAspect})
		if err != nil {
			return err
		}
		for _, u := range part {
			j := job{urn: u}
			ok := false
			for _, a := range m[u] {
				switch a.Name {
				case inputAspect:
					ok = json.Unmarshal(a.Value, &j.in) == nil
				case signalAspect:
					j.killed = killed(a.Value)
				}
			}
			executor := j.in.ExecutorID
			if executor == "" {
				executor = DefaultExecutorID
			}
			if ok && executor == e.cfg.ID {
				jobs = append(jobs, j)
			}
		}
	}
	slices.SortStableFunc(jobs, func(a, b job) int {
		switch {
		case a.in.RequestedAt < b.in.RequestedAt:
			return -1
		case a.in.RequestedAt > b.in.RequestedAt:
			return 1
		}
		return strings.Compare(a.urn, b.urn)
	})
	for _, j := range jobs {
		if free == 0 {
			break
		}
		e.mu.Lock()
		_, busy := e.running[j.urn]
		e.mu.Unlock()
		if busy {
			continue
		}
		start := e.svc.now().UnixMilli()
		first := result{Status: StatusRunning, StartTimeMs: start}
		if j.killed {
			first = result{Status: StatusCancelled, StartTimeMs: start, Report: "Cancelled before it started.\n"}
		}
		won, err := e.claimOne(ctx, j.urn, first)
		if err != nil {
			return err
		}
		if !won || j.killed {
			continue
		}
		free--
		runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
		e.mu.Lock()
		e.running[j.urn] = cancel
		e.mu.Unlock()
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.execute(runCtx, j.urn, j.in, start)
			e.mu.Lock()
			delete(e.running, j.urn)
			e.mu.Unlock()
			cancel(nil)
			e.svc.notify() // room for the next
		}()
	}
	return nil
}

// claimOne writes first as the result of urn unless it has one, and
// reports whether it did: of several executors, one wins.
func (e *Executor) claimOne(ctx context.Context, urn string, first result) (bool, error) {
	p, err := e.svc.proposal(requestEntity, urn, resultAspect, first)
	if err != nil {
		return false, err
	}
	var won bool
	p.Edit = func(cur json.RawMessage) (json.RawMessage, error) {
		won = cur == nil
		if !won {
			return nil, nil
		}
		return p.Value, nil
	}
	if _, err := e.svc.cfg.Ingest.Ingest(ctx, catalog.SystemActor, []catalog.Proposal{p}); err != nil {
		return false, err
	}
	return won, nil
}

func (e *Executor) writeResult(ctx context.Context, urn string, r result) error {
	p, err := e.svc.proposal(requestEntity, urn, resultAspect, r)
	if err != nil {
		return err
	}
	_, err = e.svc.cfg.Ingest.Ingest(context.WithoutCancel(ctx), catalog.SystemActor, []catalog.Proposal{p})
	return err
}

// execute runs one claimed request and records its outcome.
func (e *Executor) execute(ctx context.Context, urn string, in input, start int64) {
	out := newTail(e.cfg.MaxReport)
	res := result{Status: StatusRunning, StartTimeMs: start}
	finish := func(status string) {
		res.Status = status
		res.Report = out.String()
		res.DurationMs = max(e.svc.now().UnixMilli()-start, 0)
		if err := e.writeResult(ctx, urn, res); err != nil {
			slog.Error("ingestion executor: record result", "request", urn, "err", err)
		}
	}
	dir, err := os.MkdirTemp("", "catalogd-ingest-") // mode 0700
	if err != nil {
		fmt.Fprintf(out, "cannot create a working directory: %v\n", err)
		finish(StatusFailure)
		return
	}
	defer os.RemoveAll(dir)
	recipe, used, err := e.resolveRecipe(ctx, in.Args["recipe"])
	out.mask(used)
	if err != nil {
		fmt.Fprintf(out, "%v\n", err)
		finish(StatusFailure)
		return
	}
	recipePath := filepath.Join(dir, "recipe.json")
	reportPath := filepath.Join(dir, "report.json")
	if err := os.WriteFile(recipePath, []byte(recipe), 0o600); err != nil {
		fmt.Fprintf(out, "cannot write the recipe: %v\n", err)
		finish(StatusFailure)
		return
	}
	args := make([]string, 0, len(e.cfg.Command)+1)
	for _, a := range e.cfg.Command {
		a = strings.ReplaceAll(a, "{recipe}", recipePath)
		args = append(args, strings.ReplaceAll(a, "{report}", reportPath))
	}
	if in.Task == TaskTestConnection {
		args = append(args, "--test-source-connection")
	}
	if e.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, e.cfg.Timeout, context.DeadlineExceeded)
		defer cancel()
	}
	env := e.cfg.Env
	if e.cfg.Token != nil && !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "DATAHUB_GMS_TOKEN=") }) {
		actor := in.ActorURN
		if actor == "" {
			actor = catalog.SystemActor
		}
		ttl := e.cfg.Timeout + time.Hour
		if e.cfg.Timeout <= 0 {
			ttl = 7 * 24 * time.Hour
		}
		token, err := e.cfg.Token(ctx, actor, ttl)
		if err != nil {
			fmt.Fprintf(out, "cannot issue an access token for %s: %v\n", actor, err)
			finish(StatusFailure)
			return
		}
		out.mask([]string{token})
		env = append(slices.Clone(env), "DATAHUB_GMS_TOKEN="+token)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	// Output still held open by a descendant that outlived the process
	// is not waited for long.
	cmd.WaitDelay = 10 * time.Second
	setProcessGroup(cmd)
	slog.Info("ingestion run started", "request", urn, "task", in.Task)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(out, "cannot start %s: %v\n", args[0], err)
		finish(StatusFailure)
		return
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	lastWrite := e.svc.now()
	progress := time.NewTicker(min(2*time.Second, e.cfg.Lease/4))
	defer progress.Stop()
	var werr error
	var killer interface{ Stop() bool }
	stopped := false
	stop := ctx.Done()
loop:
	for {
		select {
		case werr = <-waited:
			break loop
		case <-stop:
			stopped, stop = true, nil
			killer = stopProcess(cmd)
		case <-progress.C:
			// Show the output so far, as DataHub's UI does while a run
			// goes, and at least every quarter lease that the run lives.
			now := e.svc.now()
			if s := out.String(); s != res.Report || now.Sub(lastWrite) >= e.cfg.Lease/4 {
				res.Report = s
				res.DurationMs = max(now.UnixMilli()-start, 0)
				if err := e.writeResult(ctx, urn, res); err != nil {
					slog.Warn("ingestion executor: record progress", "request", urn, "err", err)
				}
				lastWrite = now
			}
		}
	}
	if killer != nil {
		killer.Stop()
	}
	if b, err := os.ReadFile(reportPath); err == nil && len(bytes.TrimSpace(b)) > 0 && json.Valid(b) {
		typ := "CLI_INGEST"
		if in.Task == TaskTestConnection {
			typ = TaskTestConnection
		}
		res.StructuredReport = map[string]any{"type": typ, "serializedValue": string(b), "contentType": "application/json"}
	}
	status := StatusSuccess
	switch cause := context.Cause(ctx); {
	case stopped && errors.Is(cause, errCancelled):
		fmt.Fprintf(out, "\nCancelled.\n")
		status = StatusCancelled
	case stopped && errors.Is(cause, context.DeadlineExceeded):
		fmt.Fprintf(out, "\nTimed out after %s.\n", e.cfg.Timeout)
		status = StatusTimeout
	case stopped:
		fmt.Fprintf(out, "\n%v: the run was stopped.\n", cause)
		status = StatusFailure
	case werr != nil:
		fmt.Fprintf(out, "\n%s failed: %v\n", filepath.Base(args[0]), werr)
		status = StatusFailure
	}
	slog.Info("ingestion run ended", "request", urn, "status", status)
	finish(status)
}

// secretRef is a reference to a secret in a recipe, as DataHub's executor
// resolves them.
var secretRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// resolveRecipe replaces ${NAME} in the recipe's strings with the value of
// the secret NAME. A reference to no secret is left for the command to
// expand from its environment, as DataHub's CLI does.
//
// It also returns the values filled in, which the run's report masks: a
// command that prints its configuration must not show them.
func (e *Executor) resolveRecipe(ctx context.Context, recipe string) (string, []string, error) {
	var names []string
	for _, m := range secretRef.FindAllStringSubmatch(recipe, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		return recipe, nil, nil
	}
	values, err := e.svc.secretValues(ctx, names)
	if err != nil {
		return "", nil, fmt.Errorf("cannot resolve the recipe's secrets: %w", err)
	}
	used := make([]string, 0, len(values))
	for _, v := range values {
		used = append(used, v)
	}
	sub := func(s string) string {
		return secretRef.ReplaceAllStringFunc(s, func(ref string) string {
			if v, ok := values[ref[2:len(ref)-1]]; ok {
				return v
			}
			return ref
		})
	}
	var v any
	if err := json.Unmarshal([]byte(recipe), &v); err != nil {
		return sub(recipe), used, nil
	}
	// Within the JSON strings, so that a value with quotes or newlines
	// stays one string.
	b, err := json.Marshal(substitute(v, sub))
	if err != nil {
		return "", used, fmt.Errorf("encode the recipe: %w", err)
	}
	return string(b), used, nil
}

func substitute(v any, sub func(string) string) any {
	switch x := v.(type) {
	case string:
		return sub(x)
	case map[string]any:
		for k, e := range x {
			x[k] = substitute(e, sub)
		}
	case []any:
		for i, e := range x {
			x[i] = substitute(e, sub)
		}
	}
	return v
}

// schedule requests the runs of scheduled sources whose time has come
// since the last call. A slot's request id is derived from the source and
// the slot's time, so that it is requested once however many processes
// or restarts see it.
func (e *Executor) schedule(ctx context.Context) error {
	now := e.svc.now()
	from := e.scheduled
	if !now.After(from) {
		return nil
	}
	rows, err := e.svc.scan(ctx, "urn:li:dataHubIngestionSource:", sourceAspect)
	if err != nil {
		return err
	}
	for _, r := range rows {
		var src sourceInfo
		if err := json.Unmarshal(r.Value, &src); err != nil || src.Schedule == nil || src.Schedule.Interval == "" {
			continue
		}
		executor := src.Config.ExecutorID
		if executor == "" {
			executor = DefaultExecutorID
		}
		if executor != e.cfg.ID {
			continue
		}
		c, loc, err := e.cron(src.Schedule.Interval, src.Schedule.Timezone)
		if err != nil {
			slog.Warn("ingestion source schedule ignored", "source", r.URN, "err", err)
			continue
		}
		for at := c.Next(from.In(loc)); !at.IsZero() && !at.After(now); at = c.Next(at) {
			id := uuid.NewSHA1(uuid.NameSpaceURL, fmt.Appendf(nil, "%s@%d", r.URN, at.UnixMilli())).String()
			if _, err := e.svc.createRun(ctx, catalog.SystemActor, r.URN, SourceScheduled, id); err != nil {
				slog.Error("ingestion executor: request a scheduled run", "source", r.URN, "err", err)
			}
		}
	}
	e.scheduled = now
	return nil
}

func (e *Executor) cron(interval, tz string) (*Cron, *time.Location, error) {
	loc := time.UTC
	if tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil {
			return nil, nil, fmt.Errorf("unknown time zone %q", tz)
		}
		loc = l
	}
	k := interval + "\x00" + tz
	c := e.crons[k]
	if c == nil {
		var err error
		if c, err = ParseCron(interval); err != nil {
			return nil, nil, err
		}
		e.crons[k] = c
	}
	return c, loc, nil
}

// tail is an io.Writer keeping the last max bytes written, safe for the
// concurrent writes of a process's stdout and stderr.
type tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
	hidden  []string // values shown masked
}

// secretMask is what a secret's value is shown as in a report.
const secretMask = "********"

func (t *tail) mask(values []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, v := range values {
		if v != "" {
			t.hidden = append(t.hidden, v)
		}
	}
	// Longest first, so that a value containing another is masked whole.
	slices.SortFunc(t.hidden, func(a, b string) int { return len(b) - len(a) })
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if t.dropped > 0 {
		// The cut may have left the end of a secret's value at the start.
		for _, v := range t.hidden {
			for k := len(v) - 1; k > 0; k-- {
				if strings.HasPrefix(s, v[len(v)-k:]) {
					s = secretMask + s[k:]
					break
				}
			}
		}
	}
	for _, v := range t.hidden {
		s = strings.ReplaceAll(s, v, secretMask)
	}
	if t.dropped > 0 {
		s = fmt.Sprintf("[%d earlier bytes of output not kept]\n", t.dropped) + s
	}
	return s
}
