package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/store"
)

// systemSecretFile is where a generated system client secret is kept for
// the operator, in the data directory, readable by the owner only.
const systemSecretFile = "system-client-secret"

// openAuth opens the auth service and the audit log on db from the
// environment DataHub's deployments use.
func openAuth(ctx context.Context, sf *storeFlags, db *store.DB, getenv func(string) string, enabled bool, stdout io.Writer) (*auth.Service, *audit.Recorder, error) {
	svc, secrets, err := auth.New(ctx, db, auth.Config{
		SigningKey:         envOr(getenv, "DATAHUB_TOKEN_SERVICE_SIGNING_KEY", getenv("CATALOGD_TOKEN_SIGNING_KEY")),
		SystemClientID:     getenv("DATAHUB_SYSTEM_CLIENT_ID"),
		SystemClientSecret: getenv("DATAHUB_SYSTEM_CLIENT_SECRET"),
		RootPassword:       getenv("CATALOGD_ROOT_PASSWORD"),
		RestAuthorization:  getenv("REST_API_AUTHORIZATION_ENABLED") != "false",
		Disabled:           !enabled,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("open auth: %w", err)
	}
	if secrets.SystemSecretGenerated && stdout != nil {
		path := filepath.Join(sf.dataDir, systemSecretFile)
		if _, err := os.Stat(path); os.IsNotExist(err) {
			if err := os.MkdirAll(sf.dataDir, 0o755); err != nil {
				return nil, nil, fmt.Errorf("create data directory: %w", err)
			}
			if err := os.WriteFile(path, []byte(secrets.SystemClientID+":"+secrets.SystemClientSecret+"\n"), 0o600); err != nil {
				return nil, nil, fmt.Errorf("keep system client secret: %w", err)
			}
			fmt.Fprintf(stdout, "system client credentials (Authorization: Basic <id>:<secret>) generated and kept in %s\n", path)
		}
	}
	// The scroll-id key is derived, so that it rotates with the signing key
	// and a scroll id never doubles as anything signed with the key itself.
	mac := hmac.New(sha256.New, svc.SigningKey())
	mac.Write([]byte("catalogd audit scroll id"))
	rec, err := audit.New(ctx, db, mac.Sum(nil))
	if err != nil {
		return nil, nil, err
	}
	return svc, rec, nil
}

// bootstrapAuth seeds the root user and default policies, printing a
// generated root password once so that a newcomer can log in.
func bootstrapAuth(ctx context.Context, svc *auth.Service, ing *ingest.Service, rec *audit.Recorder, stdout io.Writer) error {
	pw, err := svc.Bootstrap(ctx, ing, rec)
	if err != nil {
		return fmt.Errorf("bootstrap auth: %w", err)
	}
	if pw != "" {
		fmt.Fprintf(stdout, "root user created: username datahub, password %s\n(shown once; set CATALOGD_ROOT_PASSWORD to choose another)\n", pw)
	}
	return nil
}
