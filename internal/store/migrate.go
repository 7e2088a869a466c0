package store

import (
	"context"
	"sort"
	"time"

	"github.com/uptrace/bun"
)

// Migration is one step of a component's schema, applied once, in version
// order, inside a transaction.
type Migration struct {
	Version int64
	Name    string
	// Up applies the step; dialect is "sqlite" or "postgres" for the
	// statements that differ (full-text indexes, say).
	Up func(ctx context.Context, tx bun.Tx, dialect string) error
}

// migrationLockKey is the PostgreSQL advisory lock that serialises schema
// migrations when several replicas start at once ("catalogd" in ASCII).
const migrationLockKey = 0x636174616c6f6764

// Migrate applies those migrations of component that the database has not
// recorded yet. Each component (the store itself, the search index, the audit
// log) keeps its own version sequence in one shared table. It is safe to call
// from several processes at once: PostgreSQL takes an advisory lock, SQLite's
// write lock is taken at BEGIN.
func (db *DB) Migrate(ctx context.Context, component string, migrations []Migration) error {
	ms := append([]Migration(nil), migrations...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })

	btx, release, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer release()
	defer btx.Rollback() //nolint:errcheck // a no-op after Commit
	tx := btx.Tx
	if db.dialect == Postgres {
		// Taken before CREATE TABLE IF NOT EXISTS, which itself races on
		// PostgreSQL (two creators can collide on the catalog's unique index).
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLockKey)); err != nil {
			return db.fail(ctx, err, "lock schema for migration")
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS catalogd_migration (
	component TEXT NOT NULL,
	version BIGINT NOT NULL,
	name TEXT NOT NULL,
	applied_on BIGINT NOT NULL,
	PRIMARY KEY (component, version)
)`); err != nil {
		return db.fail(ctx, err, "create migration table")
	}
	rows, err := tx.QueryContext(ctx, db.q.rebind("SELECT version FROM catalogd_migration WHERE component = ?"), component)
	if err != nil {
		return db.fail(ctx, err, "read applied migrations of %s", component)
	}
	applied := map[int64]bool{}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return db.fail(ctx, err, "read applied migrations of %s", component)
		}
		applied[v] = true
	}
	if err := rows.Close(); err != nil {
		return db.fail(ctx, err, "read applied migrations of %s", component)
	}
	for _, m := range ms {
		if applied[m.Version] {
			continue
		}
		if err := m.Up(ctx, btx, db.dialect); err != nil {
			return db.fail(ctx, err, "migrate %s to version %d (%s)", component, m.Version, m.Name)
		}
		if _, err := tx.ExecContext(ctx,
			db.q.rebind("INSERT INTO catalogd_migration (component, version, name, applied_on) VALUES (?, ?, ?, ?)"),
			component, m.Version, m.Name, time.Now().UnixMilli()); err != nil {
			return db.fail(ctx, err, "record migration %s %d", component, m.Version)
		}
	}
	if err := btx.Commit(); err != nil {
		return db.fail(ctx, err, "commit migrations of %s", component)
	}
	return nil
}

// only makes up a step of dialect's schema alone: on the other it does
// nothing.
func only(dialect string, up func(ctx context.Context, tx bun.Tx, dialect string) error) func(ctx context.Context, tx bun.Tx, dialect string) error {
	return func(ctx context.Context, tx bun.Tx, d string) error {
		if d != dialect {
			return nil
		}
		return up(ctx, tx, d)
	}
}

// execAll returns a migration step running statements in order.
func execAll(stmts ...string) func(ctx context.Context, tx bun.Tx, dialect string) error {
	return func(ctx context.Context, tx bun.Tx, _ string) error {
		for _, s := range stmts {
			// Through the embedded *sql.Tx: bun's formatter would treat '?' in
			// DDL as a placeholder.
			if _, err := tx.Tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}
}

// schemaMigrations is the store's own schema. Types are the portable subset
// (TEXT, BIGINT) so that one set of queries serves both databases; JSON is
// kept as text because it is only ever read back whole.
var schemaMigrations = []Migration{{
	Version: 1,
	Name:    "aspects, timeseries, edges",
	Up: execAll(
		`CREATE TABLE IF NOT EXISTS metadata_aspect_v2 (
	urn TEXT NOT NULL,
	aspect TEXT NOT NULL,
	version BIGINT NOT NULL,
	metadata TEXT NOT NULL,
	systemmetadata TEXT,
	createdon BIGINT NOT NULL,
	createdby TEXT NOT NULL,
	PRIMARY KEY (urn, aspect, version)
)`,
		// The unique key doubles as the index for range reads: its prefix
		// (urn, aspect, timestamp_ms) is scanned backwards for newest-first,
		// so a second (urn, aspect, timestamp_ms DESC) index would only add
		// write cost.
		`CREATE TABLE IF NOT EXISTS timeseries_aspect (
	urn TEXT NOT NULL,
	entity TEXT NOT NULL,
	aspect TEXT NOT NULL,
	timestamp_ms BIGINT NOT NULL,
	"partition" TEXT NOT NULL DEFAULT '',
	message_id TEXT NOT NULL DEFAULT '',
	value TEXT NOT NULL,
	systemmetadata TEXT,
	UNIQUE (urn, aspect, timestamp_ms, "partition", message_id)
)`,
		// Migration 3 re-keys this table; the direction indexes carry the
		// sort columns, so paging needs no sort.
		`CREATE TABLE IF NOT EXISTS edge (
	source_urn TEXT NOT NULL,
	relationship TEXT NOT NULL,
	destination_urn TEXT NOT NULL,
	source_aspect TEXT NOT NULL,
	created_on BIGINT NOT NULL,
	created_actor TEXT NOT NULL,
	properties TEXT,
	PRIMARY KEY (source_urn, source_aspect, relationship, destination_urn)
)`,
		`CREATE INDEX IF NOT EXISTS edge_incoming ON edge (destination_urn, relationship, source_urn, source_aspect)`,
		`CREATE INDEX IF NOT EXISTS edge_outgoing ON edge (source_urn, relationship, destination_urn, source_aspect)`,
	),
}, {
	Version: 2,
	Name:    "lz4 compression of JSON columns on PostgreSQL",
	// Aspect values just over 2 KB (schemaMetadata, say) are compressed on
	// every write; PostgreSQL's default pglz cost a third of PutAspects' time
	// in the benchmark, lz4 a small fraction. Skipped where the server is
	// built without lz4 (and on SQLite, which does not compress).
	Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
		if dialect != Postgres {
			return nil
		}
		var lz4 bool
		if err := tx.Tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_settings
WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))`).Scan(&lz4); err != nil {
			return err
		}
		if !lz4 {
			return nil
		}
		return execAll(
			"ALTER TABLE metadata_aspect_v2 ALTER COLUMN metadata SET COMPRESSION lz4",
			"ALTER TABLE timeseries_aspect ALTER COLUMN value SET COMPRESSION lz4",
		)(ctx, tx, dialect)
	},
}, {
	Version: 3,
	Name:    "edges keyed in outgoing order, without the outgoing index",
	// Every edge was written to four B-trees on SQLite (the rowid table, the
	// primary key, both direction indexes), which made edges the largest
	// share of the pages an ingest batch dirties. Keyed in the outgoing
	// order, the table is itself the outgoing index: ReplaceEdges and
	// DeleteAspect find an aspect's edges under the source URN prefix, and
	// on SQLite the table holds its rows in that key (WITHOUT ROWID).
	Up: func(ctx context.Context, tx bun.Tx, dialect string) error {
		if dialect == Postgres {
			return execAll(
				"ALTER TABLE edge DROP CONSTRAINT edge_pkey",
				"ALTER TABLE edge ADD PRIMARY KEY (source_urn, relationship, destination_urn, source_aspect)",
				"DROP INDEX IF EXISTS edge_outgoing",
			)(ctx, tx, dialect)
		}
		return execAll(
			`CREATE TABLE edge_keyed (
	source_urn TEXT NOT NULL,
	relationship TEXT NOT NULL,
	destination_urn TEXT NOT NULL,
	source_aspect TEXT NOT NULL,
	created_on BIGINT NOT NULL,
	created_actor TEXT NOT NULL,
	properties TEXT,
	PRIMARY KEY (source_urn, relationship, destination_urn, source_aspect)
) WITHOUT ROWID`,
			`INSERT INTO edge_keyed SELECT source_urn, relationship, destination_urn, source_aspect, created_on, created_actor, properties
FROM edge ORDER BY source_urn, relationship, destination_urn, source_aspect`,
			"DROP TABLE edge",
			"ALTER TABLE edge_keyed RENAME TO edge",
			`CREATE INDEX edge_incoming ON edge (destination_urn, relationship, source_urn, source_aspect)`,
		)(ctx, tx, dialect)
	},
}, {
	Version: 4,
	Name:    "run index: run_id of every aspect version",
	Up:      runIndexMigration,
}}
