//go:build cgo && sqlite_fts5

package store

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// TestExecDirect runs statements of a write transaction through the write
// connection's one-call binding (directExec, and execDirect for arguments
// database/sql converts first) and reads back what each kind of value
// became, as the driver would have bound it; a failing statement still
// reports the driver's error.
func TestExecDirect(t *testing.T) {
	if stmtHandleOffset == 0 {
		t.Fatal("sqlite3.SQLiteStmt has no statement handle field: every statement binds through the driver")
	}
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "exec.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Bun().ExecContext(ctx, "CREATE TABLE direct (k TEXT PRIMARY KEY, a, b, c, d, e, f, g)"); err != nil {
		t.Fatal(err)
	}
	const insert = "INSERT INTO direct (k, a, b, c, d, e, f, g) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
	rows := []struct {
		args []any
		want string // typeof and quote() of a..g
	}{
		{[]any{"k1", "", []byte(nil), []byte{}, int64(-7), 2.5, true, nil},
			"text:'' null:NULL blob:X'' integer:-7 real:2.5 integer:1 null:NULL"},
		{[]any{"k2", "a\x00b", []byte{0, 1, 2}, "é€😀", int64(math.MaxInt64), math.Inf(-1), false, strings.Repeat("x", 70000)[:3]},
			"text:'a' blob:X'000102' text:'é€😀' integer:9223372036854775807 real:-9.0e+999 integer:0 text:'xxx'"},
		// Types database/sql converts first (to int64, float64, string and
		// NULL), which therefore take the prepared statement's path.
		{[]any{"k3", "", int32(-5), float32(1.5), sql.NullString{String: "n", Valid: true}, sql.NullInt64{}, uint8(7), 3},
			"text:'' integer:-5 real:1.5 text:'n' null:NULL integer:7 integer:3"},
	}
	err = db.Update(ctx, func(tx catalog.Tx) error {
		for _, r := range rows {
			res, err := tx.(*Tx).ExecContext(ctx, insert, r.args...)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Errorf("insert %v: %d rows affected, want 1", r.args[0], n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		var got, text string
		var n int
		err := db.Bun().QueryRowContext(ctx, `SELECT typeof(a)||':'||quote(a)||' '||typeof(b)||':'||quote(b)||' '||typeof(c)||':'||quote(c)||' '||
typeof(d)||':'||quote(d)||' '||typeof(e)||':'||quote(e)||' '||typeof(f)||':'||quote(f)||' '||typeof(g)||':'||quote(g), length(CAST(a AS BLOB)), CAST(a AS BLOB) FROM direct WHERE k = ?`, r.args[0]).Scan(&got, &n, &text)
		if err != nil {
			t.Fatal(err)
		}
		if got != r.want {
			t.Errorf("row %v:\n got %s\nwant %s", r.args[0], got, r.want)
		}
		// quote() stops at a NUL; the stored text must not.
		if want := r.args[1].(string); n != len(want) || text != want {
			t.Errorf("row %v: text %q (%d bytes), want %q", r.args[0], text, n, want)
		}
	}
	err = db.Update(ctx, func(tx catalog.Tx) error {
		_, err := tx.(*Tx).ExecContext(ctx, insert, "k1", 1, 2, 3, 4, 5, 6, 7)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "UNIQUE constraint failed: direct.k") {
		t.Fatalf("duplicate key: err = %v, want the driver's UNIQUE constraint error", err)
	}
	if code, ok := sqliteCode(err); !ok || code&0xff != 19 {
		t.Errorf("duplicate key: result code %d (found: %v), want SQLITE_CONSTRAINT (19) in the low byte", code, ok)
	}
}
