package auth

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/catalogd/catalogd/internal/store"
	"github.com/uptrace/bun"
)

// migrations are the auth tables: generated secrets, and auth_revocation,
// which is no longer written nor read (every request reads a token's state
// from the store instead) but is kept while older replicas of a rolling
// upgrade may still write it.
var migrations = []store.Migration{{
	Version: 1,
	Name:    "auth_secret, auth_revocation",
	Up: func(ctx context.Context, tx bun.Tx, _ string) error {
		for _, s := range []string{
			`CREATE TABLE IF NOT EXISTS auth_secret (
	name TEXT NOT NULL PRIMARY KEY,
	value TEXT NOT NULL
)`,
			`CREATE TABLE IF NOT EXISTS auth_revocation (
	token_hash TEXT NOT NULL PRIMARY KEY,
	revoked_on BIGINT NOT NULL
)`,
			`CREATE INDEX IF NOT EXISTS auth_revocation_time ON auth_revocation (revoked_on)`,
		} {
			if _, err := tx.Tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	},
}}

// randomSecret returns n random bytes, base64url-encoded.
func randomSecret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return base64.RawURLEncoding.EncodeToString(b)
}

// secret returns the stored secret name, creating it with a fresh random
// value when absent. created reports whether this call created it. When
// several replicas start at once, exactly one value wins and all read it.
func (s *Service) secret(ctx context.Context, name string, n int) (value string, created bool, err error) {
	db := s.bun.DB // database/sql directly: bun would format the placeholders itself
	fresh := randomSecret(n)
	res, err := db.ExecContext(ctx, s.rebind("INSERT INTO auth_secret (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING"), name, fresh)
	if err != nil {
		return "", false, fmt.Errorf("store secret %s: %w", name, err)
	}
	if k, _ := res.RowsAffected(); k == 1 {
		return fresh, true, nil
	}
	if err := db.QueryRowContext(ctx, s.rebind("SELECT value FROM auth_secret WHERE name = ?"), name).Scan(&value); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return "", false, fmt.Errorf("secret %s vanished", name)
		}
		return "", false, fmt.Errorf("read secret %s: %w", name, err)
	}
	return value, false, nil
}

// rebind turns ? placeholders into PostgreSQL's $n.
func (s *Service) rebind(q string) string {
	if !s.postgres {
		return q
	}
	out := make([]byte, 0, len(q)+8)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			out = append(out, fmt.Sprintf("$%d", n)...)
			continue
		}
		out = append(out, q[i])
	}
	return string(out)
}
