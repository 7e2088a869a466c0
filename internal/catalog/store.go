package catalog

import "context"

// Store is the primary store: versioned aspects, timeseries values and the
// edges derived from them. Implementations are safe for concurrent use by
// multiple goroutines. Errors are *Error values: NotFound for a missing aspect,
// Unavailable when the database cannot be reached, Internal otherwise.
type Store interface {
	Reader
	// Update runs fn in one read-write transaction. If fn returns an error or
	// the commit fails, nothing fn wrote is kept. fn must not retain tx.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Close releases the store's resources.
	Close() error
}

// Reader reads committed state. Each call sees one consistent snapshot.
type Reader interface {
	// LatestAspects returns the version-0 rows of the given URNs, keyed by URN.
	// When names is non-empty only those aspects are returned. URNs with no
	// stored aspect are absent from the map.
	LatestAspects(ctx context.Context, urns []string, names []string) (map[string][]Aspect, error)
	// AspectVersion returns one version of one aspect: 0 the latest, N > 0 the
	// N-th historical version, N < 0 relative to the newest historical version
	// (-1 is max). NotFound when absent.
	AspectVersion(ctx context.Context, urn, name string, version int64) (Aspect, error)
	// Timeseries returns the values of a timeseries aspect of urn with
	// timestamps in [q.Start, q.End] (0 = unbounded), newest first, at most q.Limit.
	Timeseries(ctx context.Context, q TimeseriesQuery) ([]TimeseriesValue, error)
	// LatestTimeseries returns, for each of urns and each of aspects that
	// has values, the value with the newest timestamp, in one read. Their
	// SystemMetadata is not read.
	LatestTimeseries(ctx context.Context, urns, aspects []string) ([]TimeseriesValue, error)
	// Edges returns the edges touching urn in the given direction, restricted to
	// the relationship names given (all when empty), ordered stably, with the
	// total count before paging.
	Edges(ctx context.Context, q EdgeQuery) ([]Edge, int, error)
	// ScanLatest returns version-0 rows in (urn, aspect) order, for index
	// restores and listings of one entity type.
	ScanLatest(ctx context.Context, q ScanQuery) ([]Aspect, error)
	// CountScan returns the number of rows ScanLatest returns for q
	// without its Offset and Limit.
	CountScan(ctx context.Context, q ScanQuery) (int, error)
	// Runs summarises the ingestion runs named by the system metadata
	// (runId) of latest aspects: for each run, how many latest aspects it
	// wrote last and when the newest of them was written, the most recent
	// run first, paged by q.Offset and q.Limit. Aspects without a run id
	// count for no run.
	Runs(ctx context.Context, q RunQuery) ([]RunSummary, error)
	// RunAspects returns the latest aspects whose system metadata names the
	// run q.RunID, in (urn, aspect) order, paged by q.Offset and q.Limit;
	// none when no latest aspect does.
	RunAspects(ctx context.Context, q RunAspectQuery) ([]Aspect, error)
}

// Tx is a read-write transaction. Reads through a Tx see its own writes.
type Tx interface {
	Reader
	// Current returns, for each URN with stored aspects, the latest value of
	// each aspect together with the highest version number stored for it.
	Current(ctx context.Context, urns []string) (map[string]map[string]Current, error)
	// PutAspects writes new latest values. For a write with History > 0 the
	// previous latest row (w.Previous) is first kept as version History.
	PutAspects(ctx context.Context, writes []AspectWrite) error
	// DeleteAspect removes every version of one aspect and its edges.
	DeleteAspect(ctx context.Context, urn, name string) (int, error)
	// DeleteEntity removes every aspect version, timeseries value and outgoing
	// edge of urn, returning the number of aspect rows and timeseries rows removed.
	DeleteEntity(ctx context.Context, urn string) (rows, timeseriesRows int, err error)
	// DeleteTimeseries removes the values of a timeseries aspect of urn
	// stamped timestampMillis, returning how many were removed.
	DeleteTimeseries(ctx context.Context, urn, aspect string, timestampMillis int64) (int, error)
	// RevertAspect undoes what the run runID wrote to one aspect of urn,
	// as a rollback of the run does: when the latest version was written
	// by runID, it and the newer history versions also written by runID
	// go, and the newest earlier version written by another run becomes
	// the latest again (its history row removed). When no such version
	// exists the aspect is removed with every version and its edges,
	// unless keepLast is set, in which case nothing changes. The restored
	// aspect's edges are the caller's to rewrite (ReplaceEdges). An aspect
	// that is absent or whose latest version another run wrote is left as
	// it is and reported with Reverted false.
	RevertAspect(ctx context.Context, urn, name, runID string, keepLast bool) (Revert, error)
	// DeleteRunTimeseries removes the timeseries values whose system
	// metadata names the run runID, returning the URNs they belonged to
	// (sorted) and how many were removed.
	DeleteRunTimeseries(ctx context.Context, runID string) (urns []string, n int, err error)
	// PutTimeseries upserts timeseries values on (urn, aspect, timestamp, partition, messageId).
	PutTimeseries(ctx context.Context, values []TimeseriesValue) error
	// ReplaceEdges replaces, for each set, all edges whose source is set.URN
	// and whose source aspect is set.Aspect with set.Edges. Sets must not
	// repeat a (URN, aspect) pair.
	ReplaceEdges(ctx context.Context, sets []EdgeSet) error
}

// RunQuery pages the runs Reader.Runs lists. Limit <= 0 means no limit.
type RunQuery struct {
	Offset, Limit int
	// IncludeSoftDeleted keeps runs all of whose aspects belong to
	// entities that are soft-deleted (status removed); they are left out
	// otherwise.
	IncludeSoftDeleted bool
}

// RunSummary is one ingestion run as Reader.Runs reports it.
type RunSummary struct {
	RunID string
	// Rows is the number of latest aspects the run wrote last.
	Rows int64
	// Timestamp is when the newest of them was written (epoch ms).
	Timestamp int64
}

// RunAspectQuery selects the latest aspects of one run. Limit <= 0 means
// no limit.
type RunAspectQuery struct {
	RunID string
	// IncludeSoftDeleted keeps the aspects of soft-deleted entities
	// (status removed), which are left out otherwise.
	IncludeSoftDeleted bool
	Offset, Limit      int
}

// Revert reports what Tx.RevertAspect did.
type Revert struct {
	// Reverted says that the latest version was the run's: the other
	// fields describe what became of it.
	Reverted bool
	// Previous is the latest row before the revert.
	Previous Aspect
	// Restored says that an earlier version is the latest row again;
	// Current is that row (version 0) and MaxVersion the highest history
	// version left.
	Restored   bool
	Current    Aspect
	MaxVersion int64
	// Removed says that the aspect is gone, with every version and its
	// edges. Reverted without Restored or Removed means keepLast held the
	// aspect back.
	Removed bool
}

// Current is the stored latest state of one aspect.
type Current struct {
	Aspect           // the version-0 row
	MaxVersion int64 // highest history version stored, 0 when there is none
}

// AspectWrite is one new latest value for PutAspects.
type AspectWrite struct {
	Aspect          // Version is ignored: the row written is version 0
	History  int64  // when > 0, keep Previous as this version first
	Previous Aspect // the row being replaced (used when History > 0)
}

// EdgeSet is the complete set of edges derived from one aspect of one entity.
type EdgeSet struct {
	URN, Aspect string
	Edges       []Edge
	// Fresh says that the aspect was not stored before the transaction, so
	// no edges of it are either: a new entity's edges are written without
	// reading or deleting old ones.
	Fresh bool
}

// TimeseriesQuery selects values of one timeseries aspect of one entity.
type TimeseriesQuery struct {
	URN, Aspect string
	Start, End  int64 // epoch ms, inclusive; 0 means unbounded
	Partition   string
	Limit       int
}

// Direction of an edge lookup relative to the URN asked about.
type Direction string

// Edge directions: OUTGOING edges have the URN as source, INCOMING as destination.
const (
	Outgoing Direction = "OUTGOING"
	Incoming Direction = "INCOMING"
)

// EdgeQuery selects edges touching one URN or, with URN empty, every edge
// of the relationships named (then at least one, and Direction is ignored).
type EdgeQuery struct {
	URN           string
	Direction     Direction
	Relationships []string
	Start, Count  int
}

// ScanQuery selects latest aspect rows for index restores and listings.
type ScanQuery struct {
	URN     string // exact URN, or
	URNLike string // SQL LIKE pattern
	Aspect  string
	// After, when not empty, keeps the URNs that sort after it (before it
	// when Descending): paging by key, whose pages cost the same however
	// deep into the listing they are.
	After string
	// Descending orders the rows by URN (and aspect) from the last.
	Descending bool
	// KeysOnly reads only the URN and aspect name of each row, which the
	// store's index holds: listings of URNs need nothing else.
	KeysOnly bool
	Offset   int
	Limit    int
}
