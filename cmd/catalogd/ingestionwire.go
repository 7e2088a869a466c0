package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/ingestion"
	"github.com/catalogd/catalogd/internal/store"
)

// secretKeyFile is where the embedded store keeps a generated secret
// encryption key: beside the database file rather than in it, so that a
// copy of the database alone does not give the secrets away.
const secretKeyFile = "secret-encryption-key"

// defaultIngestCommand is DataHub's CLI, run when it is on the PATH.
var defaultIngestCommand = []string{"datahub", "ingest", "-c", "{recipe}", "--report-to", "{report}"}

// ingestionFlags configure managed ingestion.
type ingestionFlags struct {
	command     string
	timeout     time.Duration
	concurrency int
	lease       time.Duration
}

func (f *ingestionFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&f.command, "ingest-command", getenv("CATALOGD_INGEST_COMMAND"),
		"command that runs an ingestion recipe, arguments separated by spaces; {recipe} is the recipe file, {report} a file for its JSON report; "+
			"default `datahub ingest -c {recipe} --report-to {report}` when datahub is on the PATH; none: no executor (env CATALOGD_INGEST_COMMAND)")
	fs.DurationVar(&f.timeout, "ingest-timeout", envDuration(getenv, "CATALOGD_INGEST_TIMEOUT", 24*time.Hour),
		"longest an ingestion run may take before it is stopped as TIMEOUT (env CATALOGD_INGEST_TIMEOUT)")
	fs.IntVar(&f.concurrency, "ingest-concurrency", 2, "how many ingestion runs may go at once")
	fs.DurationVar(&f.lease, "ingest-lease", envDuration(getenv, "CATALOGD_INGEST_LEASE", 2*time.Minute),
		"on PostgreSQL, how long a run may record no progress before it is taken for abandoned by a stopped replica and marked failed (env CATALOGD_INGEST_LEASE)")
}

// commandLine is the executor's command, nil when there is none, and why.
func (f *ingestionFlags) commandLine() ([]string, string, error) {
	c := strings.TrimSpace(f.command)
	switch c {
	case "none":
		return nil, "no ingestion executor is configured (--ingest-command none): runs cannot be executed by this server", nil
	case "":
		p, err := exec.LookPath(defaultIngestCommand[0])
		if err != nil {
			return nil, "no ingestion executor is configured: DataHub's CLI (datahub) is not on catalogd's PATH; " +
				"install it or start catalogd with --ingest-command (CATALOGD_INGEST_COMMAND)", nil
		}
		return append([]string{p}, defaultIngestCommand[1:]...), "", nil
	}
	args := strings.Fields(c)
	if _, err := exec.LookPath(args[0]); err != nil {
		return nil, "", fmt.Errorf("--ingest-command: %w", err)
	}
	return args, "", nil
}

// openIngestion opens the managed-ingestion service and, when a command
// is configured, its executor (not yet running).
func openIngestion(ctx context.Context, f *ingestionFlags, db *store.DB, ing *ingest.Service, authSvc *auth.Service,
	getenv func(string) string, base string) (*ingestion.Service, *ingestion.Executor, error) {
	cfg := ingestion.Config{Store: db, Ingest: ing, Auth: authSvc}
	key := getenv("SECRET_SERVICE_ENCRYPTION_KEY")
	switch {
	case key != "":
	case db.Path() != "":
		k, err := auth.KeyFile(filepath.Join(filepath.Dir(db.Path()), secretKeyFile), 32)
		if err != nil {
			return nil, nil, fmt.Errorf("secret encryption key: %w", err)
		}
		key = k
	default:
		cfg.NoCipherReason = "SECRET_SERVICE_ENCRYPTION_KEY is not set (on PostgreSQL the key is never kept in the database; set the same key on every replica)"
		slog.Warn("secrets cannot be stored: set SECRET_SERVICE_ENCRYPTION_KEY on every replica to encrypt them")
	}
	if key != "" {
		c, err := ingestion.NewCipher(key)
		if err != nil {
			return nil, nil, fmt.Errorf("secret encryption key: %w", err)
		}
		cfg.Cipher = c
	}
	command, why, err := f.commandLine()
	if err != nil {
		return nil, nil, err
	}
	if command == nil {
		cfg.NoExecutorReason = why
		slog.Info("ingestion runs are disabled", "reason", why)
		return ingestion.New(cfg), nil, nil
	}
	cfg.Executor = strings.Join(command, " ")
	svc := ingestion.New(cfg)
	env := ingestion.SafeEnv(os.Environ())
	if getenv("DATAHUB_GMS_URL") == "" {
		// Recipes without a sink send to this server, as in DataHub.
		env = append(env, "DATAHUB_GMS_URL="+base)
	}
	ex := ingestion.NewExecutor(svc, ingestion.ExecutorConfig{
		Command: command, Timeout: f.timeout, Concurrency: f.concurrency, Env: env, Schedules: true,
		// Only one process serves an embedded store.
		Exclusive: db.Dialect() == store.SQLite, Lease: f.lease,
		// The run writes as its requester, as DataHub's executor does
		// with the credentials it is given.
		Token: func(ctx context.Context, actor string, ttl time.Duration) (string, error) {
			return authSvc.IssueToken(ctx, catalog.SystemActor, actor, auth.Session, ttl)
		},
	})
	if err := ex.Recover(ctx); err != nil {
		return nil, nil, fmt.Errorf("recover ingestion runs: %w", err)
	}
	slog.Info("ingestion executor ready", "command", cfg.Executor)
	return svc, ex, nil
}
