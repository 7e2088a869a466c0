package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
)

// Bound-parameter limits per statement: SQLite's SQLITE_MAX_VARIABLE_NUMBER
// default and PostgreSQL's 16-bit parameter count.
const (
	sqliteMaxParams   = 32766
	postgresMaxParams = 65535
	// maxRowsPerInsert keeps statement texts (and the driver's prepared
	// statement cache, keyed by text) moderate even where the parameter limit
	// would allow more; beyond a few hundred rows the per-statement overhead
	// is already negligible.
	maxRowsPerInsert = 1000
)

// queries knows the dialect's placeholder syntax and caches generated
// generated multi-row statements.
type queries struct {
	pg        bool
	maxParams int
	cache     *sync.Map // stmtKey -> string
}

type stmtKey struct {
	prefix, tuple, suffix string
	n                     int
}

func newQueries(pg bool) queries {
	q := queries{pg: pg, maxParams: sqliteMaxParams, cache: &sync.Map{}}
	if pg {
		q.maxParams = postgresMaxParams
	}
	return q
}

// rebind rewrites '?' placeholders as $1, $2, ... for PostgreSQL. Queries in
// this package are written with '?' and never contain it inside literals.
func (q queries) rebind(s string) string {
	if !q.pg || strings.IndexByte(s, '?') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// rowsPerStatement is how many rows of cols parameters fit one statement.
func (q queries) rowsPerStatement(cols int) int {
	return min(q.maxParams/cols, maxRowsPerInsert)
}

// insert returns prefix + n copies of tuple (e.g. "(?,?,0)") + suffix,
// rebound for the dialect, built once per statement and row count.
func (q queries) insert(prefix, tuple, suffix string, n int) string {
	key := stmtKey{prefix, tuple, suffix, n}
	if s, ok := q.cache.Load(key); ok {
		return s.(string)
	}
	var b strings.Builder
	b.Grow(len(prefix) + n*(len(tuple)+1) + len(suffix))
	b.WriteString(prefix)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(tuple)
	}
	b.WriteString(suffix)
	s := q.rebind(b.String())
	q.cache.Store(key, s)
	return s
}

// inList returns a condition "col IN <list>" that takes the whole list as one
// parameter (from listArg): a text[] on PostgreSQL, a JSON array expanded by
// json_each on SQLite. One parameter means one statement text whatever the
// list's length (so prepared statements are reused) and no parameter limits,
// hence no chunking of long URN lists.
func (q queries) inList(col string) string {
	if q.pg {
		return col + " = ANY(?)"
	}
	return col + " IN (SELECT value FROM json_each(?))"
}

// listArg encodes a list for inList.
func (q queries) listArg(list []string) any {
	if q.pg {
		return list
	}
	b, _ := json.Marshal(list) // cannot fail on []string
	return string(b)
}

// text passes JSON bytes as a string parameter (SQLite would store []byte as
// a BLOB), NULL when nil. It does not copy: the drivers copy the value while
// binding it, before the statement call returns, and the caller's bytes are
// not modified meanwhile.
func text(b []byte) any {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// bulkInsert describes a multi-row INSERT: its table, columns (with their
// PostgreSQL types) and an optional ON CONFLICT clause.
type bulkInsert struct {
	table  string
	cols   []string
	types  []string // "text", "bigint" or "float8", per column
	suffix string
	// skipConflicts drops rows that conflict with existing ones. On
	// SQLite it is INSERT OR IGNORE, which also spares the statement
	// journal that a multi-row INSERT able to fail halfway needs (a copy
	// of every page the statement changes).
	skipConflicts bool
}

// insertRows inserts rows given flat, row after row (len(b.cols) values per
// row; text values as string or nil, integers as int64, float8 values as
// float64 or nil).
//
// SQLite gets multi-row VALUES statements, as many rows each as its
// parameter limit allows. PostgreSQL gets one statement whatever the row
// count, with one array parameter per column expanded by unnest: a constant
// statement text that stays prepared, and far less bind work than thousands
// of scalar parameters.
func (q queries) insertRows(ctx context.Context, x querier, b bulkInsert, flat []any) error {
	n := len(b.cols)
	rows := len(flat) / n
	if rows == 0 {
		return nil
	}
	if q.pg {
		arrays := make([]any, n)
		for c := 0; c < n; c++ {
			switch b.types[c] {
			case "float8":
				col := make([]pgtype.Float8, rows)
				for r := range col {
					if f, ok := flat[r*n+c].(float64); ok {
						col[r] = pgtype.Float8{Float64: f, Valid: true}
					}
				}
				arrays[c] = col
			case "bigint":
				col := make([]int64, rows)
				for r := range col {
					col[r] = flat[r*n+c].(int64)
				}
				arrays[c] = col
			default:
				col := make([]pgtype.Text, rows)
				for r := range col {
					if s, ok := flat[r*n+c].(string); ok {
						col[r] = pgtype.Text{String: s, Valid: true}
					}
				}
				arrays[c] = col
			}
		}
		suffix := b.suffix
		if b.skipConflicts {
			suffix += " ON CONFLICT DO NOTHING"
		}
		stmt, ok := q.cache.Load(b.table + suffix)
		if !ok {
			var sb strings.Builder
			sb.WriteString("INSERT INTO " + b.table + " (" + strings.Join(b.cols, ", ") + ") SELECT * FROM unnest(")
			for c, typ := range b.types {
				if c > 0 {
					sb.WriteString(", ")
				}
				fmt.Fprintf(&sb, "$%d::%s[]", c+1, typ)
			}
			sb.WriteString(")" + suffix)
			stmt = sb.String()
			q.cache.Store(b.table+suffix, stmt)
		}
		_, err := x.ExecContext(ctx, stmt.(string), arrays...)
		return err
	}
	tuple := "(" + strings.Repeat("?,", n-1) + "?)"
	verb := "INSERT INTO "
	if b.skipConflicts {
		verb = "INSERT OR IGNORE INTO "
	}
	prefix := verb + b.table + " (" + strings.Join(b.cols, ", ") + ") VALUES "
	per := q.rowsPerStatement(n)
	for i := 0; i < rows; {
		m := chunkRows(rows-i, per)
		if _, err := x.ExecContext(ctx, q.insert(prefix, tuple, b.suffix, m), flat[i*n:(i+m)*n]...); err != nil {
			return err
		}
		i += m
	}
	return nil
}

// deleteKeys deletes rows of table by primary key, given the values of the
// key columns cols flat, row after row: strings, or int64s, the same type
// down a column.
func deleteKeys(ctx context.Context, tx *Tx, table string, cols []string, flat []any) error {
	k := len(cols)
	n := len(flat) / k
	if n == 0 {
		return nil
	}
	conds := make([]string, k)
	if tx.db.q.pg {
		// One statement whatever the row count: an array per column.
		arrays := make([]any, k)
		casts := make([]string, k)
		names := make([]string, k)
		for c := range cols {
			if _, ok := flat[c].(int64); ok {
				col := make([]int64, n)
				for i := range col {
					col[i] = flat[i*k+c].(int64)
				}
				arrays[c], casts[c] = col, fmt.Sprintf("$%d::bigint[]", c+1)
			} else {
				col := make([]string, n)
				for i := range col {
					col[i] = flat[i*k+c].(string)
				}
				arrays[c], casts[c] = col, fmt.Sprintf("$%d::text[]", c+1)
			}
			names[c] = fmt.Sprintf("k%d", c)
			conds[c] = "x." + cols[c] + " = t." + names[c]
		}
		_, err := tx.q.ExecContext(ctx, "DELETE FROM "+table+" AS x USING unnest("+strings.Join(casts, ", ")+") AS t("+strings.Join(names, ", ")+") WHERE "+strings.Join(conds, " AND "), arrays...)
		return err
	}
	// Row by row through one statement: each is a primary-key seek.
	for c, col := range cols {
		conds[c] = col + " = ?"
	}
	stmt := "DELETE FROM " + table + " WHERE " + strings.Join(conds, " AND ")
	for i := 0; i < n; i++ {
		if _, err := tx.q.ExecContext(ctx, stmt, flat[k*i:k*i+k]...); err != nil {
			return err
		}
	}
	return nil
}

// copyRows adds rows to table through COPY (PostgreSQL), in the
// transaction: a bulk load without a statement per batch to plan and bind.
// Values are as pgx encodes them for the columns' types.
func (tx *Tx) copyRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if tx.conn == nil {
		return fmt.Errorf("copy into %s: not a PostgreSQL transaction", table)
	}
	return tx.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("copy into %s: driver connection %T", table, dc)
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		return err
	})
}
