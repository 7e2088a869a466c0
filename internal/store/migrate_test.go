package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/store/storetest"
)

// TestEdgeMigration puts edges into the layout before store migration 3
// (a rowid table with both direction indexes), reopens the store and
// checks that the re-keyed table answers both directions as before and that
// writes replace edges as they did.
func TestEdgeMigration(t *testing.T) {
	dsns := map[string]func(testing.TB) string{"sqlite": storetest.SQLiteDSN, "postgres": storetest.PostgresDSN}
	for name, dsnOf := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := dsnOf(t)
			db := storetest.Open(t, dsn)
			const a, b, c = "urn:li:dataset:a", "urn:li:dataset:b", "urn:li:dataset:c"
			stamp := catalog.AuditStamp{Time: 1700000000000, Actor: "urn:li:corpuser:x"}
			sets := []catalog.EdgeSet{
				{URN: a, Aspect: "upstreamLineage", Edges: []catalog.Edge{
					{Relationship: "DownstreamOf", Destination: c, Created: stamp},
					{Relationship: "DownstreamOf", Destination: b, Created: stamp, Properties: []byte(`{"via":"x"}`)},
				}},
				{URN: a, Aspect: "globalTags", Edges: []catalog.Edge{{Relationship: "TaggedWith", Destination: "urn:li:tag:t", Created: stamp}}},
				{URN: b, Aspect: "upstreamLineage", Edges: []catalog.Edge{{Relationship: "DownstreamOf", Destination: c, Created: stamp}}},
			}
			if err := db.Update(ctx, func(tx catalog.Tx) error { return tx.ReplaceEdges(ctx, sets) }); err != nil {
				t.Fatal(err)
			}
			queries := []catalog.EdgeQuery{
				{URN: a, Direction: catalog.Outgoing},
				{URN: a, Direction: catalog.Outgoing, Relationships: []string{"DownstreamOf"}, Start: 1, Count: 1},
				{URN: c, Direction: catalog.Incoming},
				{URN: "urn:li:tag:t", Direction: catalog.Incoming, Relationships: []string{"TaggedWith"}},
			}
			read := func(db *store.DB) [][]catalog.Edge {
				t.Helper()
				var out [][]catalog.Edge
				for _, q := range queries {
					edges, total, err := db.Edges(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, append(edges, catalog.Edge{Relationship: "total", Created: catalog.AuditStamp{Time: int64(total)}}))
				}
				return out
			}
			before := read(db)
			if len(before[0]) != 4 || len(before[2]) != 3 {
				t.Fatalf("edges before migration = %v, want 3 outgoing of %s and 2 incoming of %s", before, a, c)
			}

			// Back to the layout migration 1 created.
			var stmts []string
			if name == "postgres" {
				stmts = []string{
					"ALTER TABLE edge DROP CONSTRAINT edge_pkey",
					"ALTER TABLE edge ADD PRIMARY KEY (source_urn, source_aspect, relationship, destination_urn)",
					"CREATE INDEX edge_outgoing ON edge (source_urn, relationship, destination_urn, source_aspect)",
				}
			} else {
				stmts = []string{
					`CREATE TABLE edge_old (source_urn TEXT NOT NULL, relationship TEXT NOT NULL, destination_urn TEXT NOT NULL,
	source_aspect TEXT NOT NULL, created_on BIGINT NOT NULL, created_actor TEXT NOT NULL, properties TEXT,
	PRIMARY KEY (source_urn, source_aspect, relationship, destination_urn))`,
					"INSERT INTO edge_old SELECT * FROM edge",
					"DROP TABLE edge",
					"ALTER TABLE edge_old RENAME TO edge",
					"CREATE INDEX edge_incoming ON edge (destination_urn, relationship, source_urn, source_aspect)",
					"CREATE INDEX edge_outgoing ON edge (source_urn, relationship, destination_urn, source_aspect)",
				}
			}
			stmts = append(stmts, "DELETE FROM catalogd_migration WHERE component = 'store' AND version = 3")
			for _, stmt := range stmts {
				if _, err := db.Bun().ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			db.Close()

			db = storetest.Open(t, dsn)
			if after := read(db); !reflect.DeepEqual(after, before) {
				t.Errorf("edges after migration = %v\nwant %v", after, before)
			}
			var outgoing int
			q := "SELECT COUNT(*) FROM sqlite_master WHERE name = 'edge_outgoing'"
			if name == "postgres" {
				q = "SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'edge_outgoing' AND schemaname = current_schema()"
			}
			if err := db.Bun().QueryRowContext(ctx, q).Scan(&outgoing); err != nil {
				t.Fatal(err)
			}
			if outgoing != 0 {
				t.Error("edge_outgoing index still exists after migration 3")
			}
			// Replacing an aspect's edges still finds the old ones by key.
			repl := []catalog.EdgeSet{{URN: a, Aspect: "upstreamLineage", Edges: []catalog.Edge{{Relationship: "DownstreamOf", Destination: b, Created: stamp}}}}
			if err := db.Update(ctx, func(tx catalog.Tx) error { return tx.ReplaceEdges(ctx, repl) }); err != nil {
				t.Fatal(err)
			}
			edges, total, err := db.Edges(ctx, catalog.EdgeQuery{URN: c, Direction: catalog.Incoming})
			if err != nil {
				t.Fatal(err)
			}
			if total != 1 || len(edges) != 1 || edges[0].Source != b {
				t.Errorf("incoming edges of %s after replacing %s's lineage = %v (total %d), want only %s's", c, a, edges, total, b)
			}
		})
	}
}

// TestRunIndexMigration stores aspects in the layout before store migration
// 4 (no run_id column), reopens the store and checks that the run index
// holds the run id of every version, including history rows, and that
// system metadata without a usable runId (none, not a string, not JSON)
// counts for no run.
func TestRunIndexMigration(t *testing.T) {
	dsns := map[string]func(testing.TB) string{"sqlite": storetest.SQLiteDSN, "postgres": storetest.PostgresDSN}
	for name, dsnOf := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dsn := dsnOf(t)
			db := storetest.Open(t, dsn)
			for _, stmt := range []string{
				"DROP INDEX metadata_aspect_v2_run",
				"ALTER TABLE metadata_aspect_v2 DROP COLUMN run_id",
				"DROP INDEX timeseries_aspect_run",
				"ALTER TABLE timeseries_aspect DROP COLUMN run_id",
				"DELETE FROM catalogd_migration WHERE component = 'store' AND version = 4",
			} {
				if _, err := db.Bun().ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			const urn = "urn:li:dataset:m"
			rows := []struct {
				aspect  string
				version int64
				sys     any
			}{
				{"datasetProperties", 0, `{"lastObserved":5,"runId":"r2"}`},
				{"datasetProperties", 1, `{"properties":{"runId":"nested"},"runId":"r1"}`},
				{"datasetKey", 0, `{"runId":"r1"}`},
				{"status", 0, `{"runId":7}`},
				{"ownership", 0, `not json`},
				{"globalTags", 0, nil},
				{"upstreamLineage", 0, `[1]`},
			}
			for _, r := range rows {
				q := "INSERT INTO metadata_aspect_v2 (urn, aspect, version, metadata, systemmetadata, createdon, createdby) VALUES (?, ?, ?, '{}', ?, 1, 'urn:li:corpuser:x')"
				if name == "postgres" {
					q = "INSERT INTO metadata_aspect_v2 (urn, aspect, version, metadata, systemmetadata, createdon, createdby) VALUES ($1, $2, $3, '{}', $4, 1, 'urn:li:corpuser:x')"
				}
				if _, err := db.Bun().DB.ExecContext(ctx, q, urn, r.aspect, r.version, r.sys); err != nil {
					t.Fatal(err)
				}
			}
			q := `INSERT INTO timeseries_aspect (urn, entity, aspect, timestamp_ms, value, systemmetadata) VALUES ('` + urn + `', 'dataset', 'datasetProfile', 1, '{}', '{"runId":"r1"}')`
			if _, err := db.Bun().DB.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
			db.Close()

			db = storetest.Open(t, dsn)
			var tsURNs []string
			var tsRows int
			if err := db.Update(ctx, func(tx catalog.Tx) (err error) {
				tsURNs, tsRows, err = tx.DeleteRunTimeseries(ctx, "r1")
				return err
			}); err != nil || tsRows != 1 || len(tsURNs) != 1 {
				t.Errorf("timeseries of r1 after migration: %v, %d, %v; want the one value", tsURNs, tsRows, err)
			}
			runs, err := db.Runs(ctx, catalog.RunQuery{IncludeSoftDeleted: true})
			if err != nil {
				t.Fatal(err)
			}
			want := []catalog.RunSummary{{RunID: "r1", Rows: 1, Timestamp: 1}, {RunID: "r2", Rows: 1, Timestamp: 1}}
			if !reflect.DeepEqual(runs, want) {
				t.Errorf("runs after migration = %v, want %v", runs, want)
			}
			// The history row's run id is there for a rollback of r2 to find.
			var r catalog.Revert
			if err := db.Update(ctx, func(tx catalog.Tx) (err error) {
				r, err = tx.RevertAspect(ctx, urn, "datasetProperties", "r2", false)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if !r.Restored || string(r.Current.SystemMetadata) != rows[1].sys {
				t.Errorf("revert of r2 after migration = %+v, want version 1 restored", r)
			}
		})
	}
}
