package auth_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

// storedSecrets returns the rows of auth_secret.
func storedSecrets(t *testing.T, db *store.DB) map[string]string {
	t.Helper()
	rows, err := db.Bun().DB.QueryContext(context.Background(), "SELECT name, value FROM auth_secret")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

// TestSystemSecretHashed checks, on each store, that a generated system
// client secret is kept as a hash only, by which every replica recognises
// it, and that a secret an older version kept in clear is replaced by its
// hash and keeps working.
func TestSystemSecretHashed(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		dsn  func(testing.TB) string
	}{
		{"sqlite", storetest.SQLiteDSN},
		{"postgres", storetest.PostgresDSN},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := c.dsn(t)
			dbA, dbB := storetest.Open(t, dsn), storetest.Open(t, dsn)
			a, secrets, err := auth.New(ctx, dbA, auth.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if !secrets.SystemSecretGenerated || secrets.SystemClientSecret == "" {
				t.Fatalf("first start: %+v, want a generated secret it knows", secrets)
			}
			b, again, err := auth.New(ctx, dbB, auth.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if !again.SystemSecretGenerated || again.SystemClientSecret != "" {
				t.Errorf("second replica: %+v, want a generated secret it cannot know", again)
			}
			basic := "Basic " + secrets.SystemClientID + ":" + secrets.SystemClientSecret
			for name, s := range map[string]*auth.Service{"A": a, "B": b} {
				if got := statusWith(s, basic); got != 200 {
					t.Errorf("system client on replica %s: %d", name, got)
				}
				if got := statusWith(s, basic+"x"); got != 401 {
					t.Errorf("wrong secret on replica %s: %d", name, got)
				}
			}
			for name, v := range storedSecrets(t, dbA) {
				if v == secrets.SystemClientSecret {
					t.Errorf("the database keeps the system client secret in clear as %s", name)
				}
			}

			// An older version's secret in clear.
			if _, err := dbA.Bun().DB.ExecContext(ctx, "DELETE FROM auth_secret WHERE name = 'system-client-secret-sha256'"); err != nil {
				t.Fatal(err)
			}
			if _, err := dbA.Bun().DB.ExecContext(ctx, "INSERT INTO auth_secret (name, value) VALUES ('system-client-secret', 'an-older-secret')"); err != nil {
				t.Fatal(err)
			}
			c, moved, err := auth.New(ctx, dbA, auth.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if moved.SystemClientSecret != "an-older-secret" {
				t.Errorf("upgrade: %+v, want the older secret", moved)
			}
			if got := statusWith(c, "Basic __datahub_system:an-older-secret"); got != 200 {
				t.Errorf("older secret after the upgrade: %d", got)
			}
			for name, v := range storedSecrets(t, dbA) {
				if v == "an-older-secret" {
					t.Errorf("the database still keeps the older secret in clear as %s", name)
				}
			}
		})
	}
}

// TestSigningKeyFile checks that with a key file the generated signing key
// is kept there (mode 0600) and not in the database, that a key an older
// version kept in the database moves there, and that without one (replicas
// on PostgreSQL) it stays in the database and New says so.
func TestSigningKeyFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "keys", "token-signing-key")
	db := storetest.Open(t, storetest.SQLiteDSN(t))
	if _, err := db.Bun().DB.ExecContext(ctx, `CREATE TABLE auth_secret (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bun().DB.ExecContext(ctx, `INSERT INTO auth_secret (name, value) VALUES ('token-signing-key', 'older-key')`); err != nil {
		t.Fatal(err)
	}
	s, secrets, err := auth.New(ctx, db, auth.Config{KeyFile: keyFile, SystemClientSecret: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if string(s.SigningKey()) != "older-key" || secrets.SigningKeyInDatabase {
		t.Errorf("signing key %q (in database: %v), want the older one from its file", s.SigningKey(), secrets.SigningKeyInDatabase)
	}
	b, err := os.ReadFile(keyFile)
	if err != nil || !bytes.Equal(bytes.TrimSpace(b), []byte("older-key")) {
		t.Errorf("key file: %q, %v", b, err)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode: %v, %v", fi.Mode(), err)
	}
	if v, ok := storedSecrets(t, db)["token-signing-key"]; ok {
		t.Errorf("the database still holds the signing key %q", v)
	}
	// The next start reads the file.
	s, _, err = auth.New(ctx, db, auth.Config{KeyFile: keyFile, SystemClientSecret: "x"})
	if err != nil || string(s.SigningKey()) != "older-key" {
		t.Errorf("restart: key %q, %v", s.SigningKey(), err)
	}

	// A new store with a key file: a new key, in the file only.
	db = storetest.Open(t, storetest.SQLiteDSN(t))
	keyFile = filepath.Join(dir, "new-key")
	s, _, err = auth.New(ctx, db, auth.Config{KeyFile: keyFile, SystemClientSecret: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(keyFile); err != nil || string(bytes.TrimSpace(b)) != string(s.SigningKey()) || len(s.SigningKey()) < 32 {
		t.Errorf("key file %q, %v; key in use %q", b, err, s.SigningKey())
	}
	if _, ok := storedSecrets(t, db)["token-signing-key"]; ok {
		t.Error("a new signing key was stored in the database")
	}

	// Without a key file it is kept in the database, which New reports.
	_, secrets, err = auth.New(ctx, storetest.Open(t, storetest.SQLiteDSN(t)), auth.Config{SystemClientSecret: "x"})
	if err != nil || !secrets.SigningKeyInDatabase {
		t.Errorf("without a key file: %+v, %v", secrets, err)
	}
}
