package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

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

// Rows of auth_secret.
const (
	// secretSigningKey is the generated signing key, kept here only where
	// the service has no KeyFile (replicas on PostgreSQL share it so).
	secretSigningKey = "token-signing-key"
	// secretTokenSalt salts the hashes stored tokens are keyed by. It is
	// not a secret that protects anything: a token cannot be recovered
	// from its hash, salt or not, for it carries a 256-bit signature.
	secretTokenSalt = "token-salt"
	// secretSystemHash is the SHA-256 of a generated system client secret.
	secretSystemHash = "system-client-secret-sha256"
	// secretSystemClear is where older versions kept that secret in clear.
	secretSystemClear = "system-client-secret"
)

// randomSecret returns n random bytes, base64url-encoded.
func randomSecret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashSecret is what is kept of the system client's secret. The secret is
// only ever compared, so its hash serves as well and does not give it away;
// a generated secret has 192 random bits, which no guessing can cover, so a
// fast hash is enough.
func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// secret returns the stored secret name, creating it with a fresh random
// value when absent. created reports whether this call created it. When
// several replicas start at once, exactly one value wins and all read it.
func (s *Service) secret(ctx context.Context, name string, n int) (value string, created bool, err error) {
	return s.storeOnce(ctx, name, randomSecret(n))
}

// storeOnce stores value as the secret name unless one is stored already,
// and returns the one stored.
func (s *Service) storeOnce(ctx context.Context, name, fresh string) (value string, created bool, err error) {
	db := s.bun.DB // database/sql directly: bun would format the placeholders itself
	res, err := db.ExecContext(ctx, s.rebind("INSERT INTO auth_secret (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING"), name, fresh)
	if err != nil {
		return "", false, fmt.Errorf("store secret %s: %w", name, err)
	}
	if k, _ := res.RowsAffected(); k == 1 {
		return fresh, true, nil
	}
	value, ok, err := s.stored(ctx, name)
	if err != nil {
		return "", false, err
	}
	if !ok {
		return "", false, fmt.Errorf("secret %s vanished", name)
	}
	return value, false, nil
}

// stored reads the secret name, reporting whether there is one.
func (s *Service) stored(ctx context.Context, name string) (string, bool, error) {
	var value string
	err := s.bun.DB.QueryRowContext(ctx, s.rebind("SELECT value FROM auth_secret WHERE name = ?"), name).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read secret %s: %w", name, err)
	}
	return value, true, nil
}

// systemSecret returns the hash of the generated system client secret, and
// the secret itself when this call generated it or found it in clear.
func (s *Service) systemSecret(ctx context.Context) (hash []byte, known string, err error) {
	clear, ok, err := s.stored(ctx, secretSystemClear)
	if err != nil {
		return nil, "", err
	}
	fresh := clear
	if !ok {
		fresh = randomSecret(24)
	}
	h, created, err := s.storeOnce(ctx, secretSystemHash, hex.EncodeToString(hashSecret(fresh)))
	if err != nil {
		return nil, "", err
	}
	if hash, err = hex.DecodeString(h); err != nil {
		return nil, "", fmt.Errorf("decode secret %s: %w", secretSystemHash, err)
	}
	if ok {
		if err := s.forget(ctx, secretSystemClear); err != nil {
			return nil, "", err
		}
		return hash, clear, nil
	}
	if created {
		return hash, fresh, nil
	}
	return hash, "", nil
}

// keyFile returns the secret kept in the file path, creating the file when
// absent: with the value an older version kept in the database as the
// secret row (which is then erased from it, so that tokens signed before
// keep working and the database stops giving the key away), or with n
// fresh random bytes.
func (s *Service) keyFile(ctx context.Context, path, row string, n int) (string, error) {
	old, inDB, err := s.stored(ctx, row)
	if err != nil {
		return "", err
	}
	value := old
	if !inDB {
		value = randomSecret(n)
	}
	// Whoever creates the file first wins; the others read its value.
	key, err := createOnce(path, value)
	if err != nil {
		return "", fmt.Errorf("keep %s in %s: %w", row, path, err)
	}
	if inDB {
		if key != old {
			slog.Warn("the database holds a signing key other than the key file's; the key file's is used and the database's erased",
				"file", path)
		}
		if err := s.forget(ctx, row); err != nil {
			return "", err
		}
	}
	return key, nil
}

// createOnce creates the file path with value (mode 0600) unless it exists,
// and returns the value the file holds. It is atomic: a concurrent starter
// (a server and "catalogd token create", say) sees either no file or the
// whole of one.
func createOnce(path, value string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		if err := ownerOnly(path); err != nil {
			return "", err
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return "", fmt.Errorf("%s is empty", path)
		}
		return v, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*") // mode 0600
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(value + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	// A hard link is created whole or not at all, and never over a file.
	if err := os.Link(f.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return createOnce(path, value)
		}
		return "", err
	}
	return value, nil
}

// ownerOnly removes group and other permissions from the file path.
func ownerOnly(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return os.Chmod(path, perm&^0o077)
	}
	return nil
}

// forget deletes the secret name so that no copy of the database holds it:
// SQLite overwrites the deleted bytes (secure_delete, for this statement's
// connection only) and the WAL is copied back and emptied, so neither file
// keeps the old page; PostgreSQL's VACUUM drops the dead row version,
// where it can (a failure leaves it to autovacuum).
func (s *Service) forget(ctx context.Context, name string) error {
	del := s.rebind("DELETE FROM auth_secret WHERE name = ?")
	if s.postgres {
		if _, err := s.bun.DB.ExecContext(ctx, del, name); err != nil {
			return fmt.Errorf("erase secret %s: %w", name, err)
		}
		_, _ = s.bun.DB.ExecContext(ctx, "VACUUM auth_secret")
		return nil
	}
	conn, err := s.bun.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("erase secret %s: %w", name, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		return fmt.Errorf("erase secret %s: %w", name, err)
	}
	_, err = conn.ExecContext(ctx, del, name)
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA secure_delete = OFF"); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("erase secret %s: %w", name, err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("erase secret %s: checkpoint: %w", name, err)
	}
	return nil
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

// KeyFile returns the key kept in the file path, creating the file (mode
// 0600, atomically) with n fresh random bytes, base64url-encoded, when it
// does not exist.
func KeyFile(path string, n int) (string, error) {
	return createOnce(path, randomSecret(n))
}
