package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/store"
)

// systemSecretFile is where a generated system client secret is kept for
// the operator, in the data directory, readable by the owner only: the
// database keeps only its hash.
const systemSecretFile = "system-client-secret"

// signingKeyFile is where the embedded store keeps a generated token signing
// key: beside the database file rather than in it, so that a copy of the
// database alone cannot sign tokens.
const signingKeyFile = "token-signing-key"

// openAuth opens the auth service and the audit log on db from the
// environment DataHub's deployments use.
func openAuth(ctx context.Context, sf *storeFlags, db *store.DB, getenv func(string) string, enabled bool, stdout io.Writer) (*auth.Service, *audit.Recorder, error) {
	cookies, err := cookieConfig(getenv)
	if err != nil {
		return nil, nil, err
	}
	cfg := auth.Config{
		Cookies:            cookies,
		SigningKey:         envOr(getenv, "DATAHUB_TOKEN_SERVICE_SIGNING_KEY", getenv("CATALOGD_TOKEN_SIGNING_KEY")),
		SystemClientID:     getenv("DATAHUB_SYSTEM_CLIENT_ID"),
		SystemClientSecret: getenv("DATAHUB_SYSTEM_CLIENT_SECRET"),
		RootPassword:       getenv("CATALOGD_ROOT_PASSWORD"),
		RestAuthorization:  getenv("REST_API_AUTHORIZATION_ENABLED") != "false",
		Disabled:           !enabled,
	}
	if p := db.Path(); p != "" {
		cfg.KeyFile = filepath.Join(filepath.Dir(p), signingKeyFile)
	}
	svc, secrets, err := auth.New(ctx, db, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("open auth: %w", err)
	}
	if secrets.SigningKeyInDatabase {
		slog.Warn("the token signing key was generated and is kept in the database, where the replicas share it: " +
			"anyone with a copy of the database can sign tokens; set DATAHUB_TOKEN_SERVICE_SIGNING_KEY on every replica")
	}
	if err := keepSystemSecret(sf, secrets, stdout); err != nil {
		return nil, nil, err
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

// keepSystemSecret writes a generated system client secret to the data
// directory when this start knows it (the database keeps only its hash) and
// the file is not there yet.
func keepSystemSecret(sf *storeFlags, secrets auth.Secrets, stdout io.Writer) error {
	if !secrets.SystemSecretGenerated {
		return nil
	}
	path := filepath.Join(sf.dataDir, systemSecretFile)
	fi, err := os.Stat(path)
	switch {
	case err == nil:
		// Kept at an earlier start, perhaps by a version that left it looser.
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(path, perm&^0o077); err != nil {
				return fmt.Errorf("make %s private: %w", path, err)
			}
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("keep system client secret: %w", err)
	case secrets.SystemClientSecret == "":
		slog.Warn("the generated system client secret is not in the data directory and the database keeps only its hash: "+
			"set DATAHUB_SYSTEM_CLIENT_SECRET to choose one", "file", path)
		return nil
	}
	if err := os.MkdirAll(sf.dataDir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	if err := os.WriteFile(path, []byte(secrets.SystemClientID+":"+secrets.SystemClientSecret+"\n"), 0o600); err != nil {
		return fmt.Errorf("keep system client secret: %w", err)
	}
	if stdout != nil {
		fmt.Fprintf(stdout, "system client credentials (Authorization: Basic <id>:<secret>) generated and kept in %s\n", path)
	}
	return nil
}

// cookieConfig reads datahub-frontend's settings of the browser session
// cookies.
func cookieConfig(getenv func(string) string) (auth.CookieConfig, error) {
	var c auth.CookieConfig
	if v := getenv("AUTH_SESSION_TTL_HOURS"); v != "" {
		h, err := strconv.Atoi(v)
		if err != nil || h <= 0 {
			return c, fmt.Errorf("AUTH_SESSION_TTL_HOURS must be a positive number of hours, not %q", v)
		}
		c.TTL = time.Duration(h) * time.Hour
	}
	ss, err := auth.ParseSameSite(getenv("AUTH_COOKIE_SAME_SITE"))
	if err != nil {
		return c, fmt.Errorf("AUTH_COOKIE_SAME_SITE: %w", err)
	}
	c.SameSite = ss
	if v := getenv("AUTH_COOKIE_SECURE"); v != "" {
		if c.Secure, err = strconv.ParseBool(v); err != nil {
			return c, fmt.Errorf("AUTH_COOKIE_SECURE must be true or false, not %q", v)
		}
	}
	return c, nil
}
