package audit

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/uptrace/bun"
)

// migrations is the audit log's schema. The index matches the search order
// exactly (timestamp descending, then type, actor, id), so a page is an
// index range scan that stops after size+1 rows, whatever the table's size.
// id has no unique index of its own: ids are 64 random bits, and a unique
// index on random values costs an insert at a random place per event — it
// made audited writes a third slower.
var migrations = []store.Migration{{
	Version: 1,
	Name:    "audit_event",
	Up: func(ctx context.Context, tx bun.Tx, _ string) error {
		for _, s := range []string{
			`CREATE TABLE IF NOT EXISTS audit_event (
	id TEXT NOT NULL,
	timestamp_ms BIGINT NOT NULL,
	event_type TEXT NOT NULL,
	actor_urn TEXT NOT NULL,
	entity_urn TEXT NOT NULL DEFAULT '',
	entity_type TEXT NOT NULL DEFAULT '',
	aspect_name TEXT NOT NULL DEFAULT '',
	login_source TEXT NOT NULL DEFAULT '',
	source_ip TEXT NOT NULL DEFAULT '',
	event_source TEXT NOT NULL DEFAULT '',
	user_agent TEXT NOT NULL DEFAULT '',
	trace_id TEXT NOT NULL DEFAULT ''
)`,
			`CREATE INDEX IF NOT EXISTS audit_event_scroll ON audit_event (timestamp_ms DESC, event_type, actor_urn, id)`,
		} {
			if _, err := tx.Tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	},
}, {
	// Analytics events of the web app carry what the recommendations read:
	// the query of a search, and the indexes answer them by user and type.
	Version: 2,
	Name:    "audit_event search query and usage index",
	Up: func(ctx context.Context, tx bun.Tx, _ string) error {
		for _, s := range []string{
			`ALTER TABLE audit_event ADD COLUMN search_query TEXT NOT NULL DEFAULT ''`,
			`CREATE INDEX IF NOT EXISTS audit_event_usage ON audit_event (event_type, actor_urn, timestamp_ms)`,
		} {
			if _, err := tx.Tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	},
}}

// Recorder writes and searches the audit log. It is safe for concurrent use.
type Recorder struct {
	store    catalog.Store
	db       *bun.DB
	postgres bool
	stmts    sync.Map // rows → INSERT statement
	key      []byte   // MAC key of scroll ids
	now      func() time.Time
}

// New migrates the audit schema in db and returns a Recorder. key signs
// scroll ids; replicas sharing a database must share it.
func New(ctx context.Context, db *store.DB, key []byte) (*Recorder, error) {
	if err := db.Migrate(ctx, "audit", migrations); err != nil {
		return nil, fmt.Errorf("migrate audit log: %w", err)
	}
	return &Recorder{store: db, db: db.Bun(), postgres: db.Dialect() == store.Postgres, key: key, now: time.Now}, nil
}

var _ ingest.Auditor = (*Recorder)(nil)

// RecordChanges implements ingest.Auditor: one event per aspect change, in
// the write transaction tx.
func (r *Recorder) RecordChanges(ctx context.Context, tx catalog.Tx, actor string, at int64, changes []ingest.Change) error {
	if len(changes) == 0 {
		return nil
	}
	req := RequestFrom(ctx)
	evs := make([]Event, len(changes))
	for i, c := range changes {
		evs[i] = Event{
			Type: TypeOf(c.Aspect, c.Deleted), Timestamp: at, Actor: actor,
			EntityURN: c.URN, EntityType: c.EntityType, Aspect: c.Aspect,
		}
		if req != nil {
			evs[i].Request = *req
		}
	}
	return r.insert(ctx, tx, evs)
}

// Record writes events that describe no stored change (logins, restores) in
// a transaction of their own. Request metadata missing from an event is
// taken from ctx, the timestamp from the clock.
func (r *Recorder) Record(ctx context.Context, evs ...Event) error {
	req := RequestFrom(ctx)
	now := r.now().UnixMilli()
	for i := range evs {
		if evs[i].Timestamp == 0 {
			evs[i].Timestamp = now
		}
		if req != nil && evs[i].Request == (Request{}) {
			evs[i].Request = *req
		}
	}
	return r.store.Update(ctx, func(tx catalog.Tx) error { return r.insert(ctx, tx, evs) })
}

// insertColumns is the number of columns insert binds per event.
const insertColumns = 13

func (r *Recorder) insert(ctx context.Context, tx catalog.Tx, evs []Event) error {
	exec, ok := tx.(interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	})
	if !ok {
		bt, ok := tx.(interface{ Bun() bun.Tx })
		if !ok {
			return fmt.Errorf("record audit events: transaction %T has no SQL handle", tx)
		}
		exec = bt.Bun().Tx
	}
	// Plain multi-row INSERTs through database/sql: bun's builder costs more
	// than the rows on large ingest batches. Chunks of power-of-two rows, at
	// most 256, stay well below SQLite's and PostgreSQL's bind-parameter
	// limits and keep to a few statement texts, which the store keeps
	// prepared.
	args := make([]any, 0, min(len(evs), maxChunk)*insertColumns)
	for len(evs) > 0 {
		n := maxChunk
		for n > len(evs) {
			n /= 2
		}
		args = args[:0]
		for i := range n {
			e := &evs[i]
			if e.ID == "" {
				e.ID = newID()
			}
			args = append(args, e.ID, e.Timestamp, e.Type, e.Actor, e.EntityURN, e.EntityType, e.Aspect,
				e.LoginSource, e.SourceIP, e.Source, e.UserAgent, e.TraceID, e.Query)
		}
		if _, err := exec.ExecContext(ctx, r.insertStatement(n), args...); err != nil {
			return &catalog.Error{Kind: catalog.Internal, Op: "record audit events", Err: err}
		}
		evs = evs[n:]
	}
	return nil
}

// maxChunk is the most rows one INSERT of audit events takes.
const maxChunk = 256

// insertStatement returns the INSERT of n events, built once per n.
func (r *Recorder) insertStatement(n int) string {
	if s, ok := r.stmts.Load(n); ok {
		return s.(string)
	}
	var b strings.Builder
	b.WriteString("INSERT INTO audit_event (id, timestamp_ms, event_type, actor_urn, entity_urn, entity_type, aspect_name, login_source, source_ip, event_source, user_agent, trace_id, search_query) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range insertColumns {
			if c > 0 {
				b.WriteByte(',')
			}
			r.placeholder(&b, i*insertColumns+c+1)
		}
		b.WriteByte(')')
	}
	s := b.String()
	r.stmts.Store(n, s)
	return s
}

func (r *Recorder) placeholder(b *strings.Builder, n int) {
	if r.postgres {
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
		return
	}
	b.WriteByte('?')
}

// newID returns a random event id. Ids only break ties in the sort key, so
// 64 random bits are plenty; hex keeps them comparable as text on both
// databases.
func newID() string {
	const digits = "0123456789abcdef"
	var b [16]byte
	x := rand.Uint64()
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = digits[x&15]
		x >>= 4
	}
	return string(b[:])
}

// scanEvents reads rows of the search query.
func scanEvents(rows *sql.Rows) ([]Event, error) {
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.ID, &e.Timestamp, &e.Type, &e.Actor, &e.EntityURN, &e.EntityType, &e.Aspect,
			&e.LoginSource, &e.SourceIP, &e.Source, &e.UserAgent, &e.TraceID, &e.Query); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
