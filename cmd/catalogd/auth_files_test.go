//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/store"
	"github.com/golang-jwt/jwt/v5"
)

// checkPrivate checks that path is readable by its owner only.
func checkPrivate(t testing.TB, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s has mode %v, want %v", path, got, want)
	}
}

// checkNotInDatabase checks that no file of the SQLite database in dir
// holds any of the secrets.
func checkNotInDatabase(t testing.TB, dir string, secrets map[string]string) {
	t.Helper()
	for _, f := range []string{"catalogd.db", "catalogd.db-wal", "catalogd.db-shm"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for name, secret := range secrets {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the %s", f, name)
			}
		}
	}
}

// TestAuthSecretsPrivate checks a zero-setup start: the data directory is
// 0700, the database, the generated signing key and system client secret
// 0600, and the database holds neither secret, so that a copy of it does
// not let anyone sign tokens or call as the system.
func TestAuthSecretsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "data")
	srv := startServerEnv(t, nil, "--auth=true", "--data-dir", dir)
	s := &authServer{testServer: srv, dataDir: dir}
	system, err := readFileString(filepath.Join(dir, systemSecretFile))
	if err != nil {
		t.Fatal(err)
	}
	key, err := readFileString(filepath.Join(dir, signingKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	system, key = strings.TrimSpace(system), strings.TrimSpace(key)
	// They are the ones in use.
	if st, b := s.call(t, "Basic "+system, "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:datahub"), nil); st != 200 {
		t.Fatalf("system client: %d %s", st, b)
	}
	tok := signedWith(t, key, "datahub")
	if st, b := s.call(t, bearer(tok), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:datahub"), nil); st != 200 {
		t.Fatalf("token signed with the key file's key: %d %s", st, b)
	}
	checkPrivate(t, dir, 0o700)
	for _, f := range []string{"catalogd.db", "catalogd.db-wal", "catalogd.db-shm", systemSecretFile, signingKeyFile} {
		checkPrivate(t, filepath.Join(dir, f), 0o600)
	}
	_, secret, _ := strings.Cut(system, ":")
	checkNotInDatabase(t, dir, map[string]string{"signing key": key, "system client secret": secret})
}

// TestAuthSecretsMoveOut checks the start on a store an older version left:
// files 0644 with the signing key and the system client secret in clear in
// the database. The files become 0600, the key moves to its file and the
// secret is replaced by its hash, and tokens signed before and the system
// client's credentials keep working.
func TestAuthSecretsMoveOut(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "data")
	const key, secret = "an-old-generated-signing-key-0123456789", "an-old-generated-system-secret-0123"
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "catalogd.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE auth_secret (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL)`,
		`INSERT INTO auth_secret VALUES ('token-signing-key', '` + key + `'), ('token-salt', 'salt'), ('system-client-secret', '` + secret + `')`,
	} {
		if _, err := db.Bun().DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, systemSecretFile), []byte("__datahub_system:"+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"catalogd.db", systemSecretFile} {
		if err := os.Chmod(filepath.Join(dir, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A token signed before the upgrade.
	before := signedWith(t, key, "datahub")

	srv := startServerEnv(t, map[string]string{"CATALOGD_ROOT_PASSWORD": testRootPassword}, "--auth=true", "--data-dir", dir)
	s := &authServer{testServer: srv, dataDir: dir}
	if st, b := s.call(t, bearer(before), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:datahub"), nil); st != 200 {
		t.Errorf("token signed before the upgrade: %d %s", st, b)
	}
	if st, b := s.call(t, "Basic __datahub_system:"+secret, "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:datahub"), nil); st != 200 {
		t.Errorf("system client: %d %s", st, b)
	}
	if got, err := readFileString(filepath.Join(dir, signingKeyFile)); err != nil || strings.TrimSpace(got) != key {
		t.Errorf("key file holds %q, %v; want the key the database held", got, err)
	}
	for _, f := range []string{"catalogd.db", "catalogd.db-wal", "catalogd.db-shm", systemSecretFile, signingKeyFile} {
		checkPrivate(t, filepath.Join(dir, f), 0o600)
	}
	checkNotInDatabase(t, dir, map[string]string{"signing key": key, "system client secret": secret})
}

// signedWith mints a session token of user signed with key.
func signedWith(t testing.TB, key, user string) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"actorType": "USER", "actorId": user, "type": "SESSION",
		"version": "1", "sub": user, "iss": "datahub-metadata-service", "exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
