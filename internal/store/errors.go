package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/jackc/pgx/v5/pgconn"
)

// fail turns a driver error into a *catalog.Error whose Op names what was
// being done, classified once here so that callers above the store only ever
// see catalog kinds. A cancelled or expired context is reported as such (the
// drivers report it in their own ways, e.g. SQLite's "interrupted"), wrapped
// so that errors.Is(err, context.Canceled) holds.
func (db *DB) fail(ctx context.Context, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	op := fmt.Sprintf(format, args...)
	var ce *catalog.Error
	if errors.As(err, &ce) {
		return catalog.WithOp(op, err)
	}
	if ctx.Err() != nil {
		return &catalog.Error{Kind: catalog.Unavailable, Op: op, Err: ctx.Err()}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &catalog.Error{Kind: catalog.Unavailable, Op: op, Err: err}
	}
	kind, msg := classify(err)
	return &catalog.Error{Kind: kind, Op: op, Msg: msg, Err: err}
}

// classify maps driver errors to kinds; msg is a user-safe summary for the
// kinds whose message is shown to users.
func classify(err error) (catalog.Kind, string) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch code := pgErr.Code; {
		case code == "23505": // unique_violation
			return catalog.Conflict, "conflicting write"
		case code == "40001" || code == "40P01": // serialization_failure, deadlock_detected: retry may succeed
			return catalog.Unavailable, "concurrent update, retry"
		case code == "55P03" || code == "57014": // lock_not_available, query_canceled (timeouts)
			return catalog.Unavailable, "database timeout"
		case len(code) == 5 && (code[:2] == "08" || code[:2] == "53" || code[:2] == "57" || code[:2] == "58"):
			// connection exception, insufficient resources, operator intervention, system error
			return catalog.Unavailable, "database unavailable"
		}
		return catalog.Internal, ""
	}
	if code, ok := sqliteCode(err); ok {
		switch code & 0xff { // primary result code; extended codes carry detail in the high bits
		case sqliteConstraint:
			if code == sqliteConstraintPrimaryKey || code == sqliteConstraintUnique {
				return catalog.Conflict, "conflicting write"
			}
		case sqliteBusy, sqliteLocked:
			return catalog.Unavailable, "database is locked"
		case sqliteCantOpen, sqliteIOErr, sqliteFull, sqliteReadOnly:
			return catalog.Unavailable, "database unavailable"
		}
		return catalog.Internal, ""
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || pgconn.Timeout(err) {
		return catalog.Unavailable, "database unavailable"
	}
	return catalog.Internal, ""
}
