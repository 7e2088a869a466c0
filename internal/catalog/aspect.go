package catalog

import "encoding/json"

// ChangeType says what a proposal does to its aspect.
type ChangeType string

// The change types of a proposal, as DataHub names them.
const (
	Upsert       ChangeType = "UPSERT"
	Create       ChangeType = "CREATE"        // fails when the aspect exists
	CreateEntity ChangeType = "CREATE_ENTITY" // fails when the entity exists
	Update       ChangeType = "UPDATE"        // like UPSERT
	Delete       ChangeType = "DELETE"
	Patch        ChangeType = "PATCH"
	Restate      ChangeType = "RESTATE"
)

// AuditStamp records who did something and when (epoch milliseconds).
type AuditStamp struct {
	Time  int64  `json:"time"`
	Actor string `json:"actor"`
}

// SystemActor is the actor of writes the service makes on its own behalf.
const SystemActor = "urn:li:corpuser:__datahub_system"

// Proposal is one change to one aspect of one entity: the unit every writer
// (REST, GraphQL, the CLI loader, the Go client) hands to the ingest pipeline.
type Proposal struct {
	EntityType string
	// EntityURN identifies the entity; when empty, EntityKey (the key aspect's
	// value) is used to build it.
	EntityURN  string
	EntityKey  json.RawMessage
	ChangeType ChangeType
	AspectName string
	// Value is the aspect as JSON (for PATCH, a JSON Patch document).
	Value       json.RawMessage
	ContentType string
	// SystemMetadata is the proposal's system metadata object, nil when absent.
	SystemMetadata map[string]any
	// Headers are the proposal's headers (DataHub's MCP headers). Those
	// named by HeaderIfVersionMatch, HeaderIfModifiedSince and
	// HeaderIfUnmodifiedSince make the write conditional on the aspect's
	// current state.
	Headers map[string]string
	// Edit, set only by in-process callers of an UPSERT, computes the new
	// value (JSON) from the aspect's current one (nil when absent) inside
	// the write transaction, so that a read-modify-write cannot undo a
	// concurrent write; Value is then ignored. A nil result writes nothing.
	// It may run more than once when the transaction is retried.
	Edit func(current json.RawMessage) (json.RawMessage, error)
	// KeepReferences, on a DELETE of an entity's key aspect, leaves the
	// aspects of other entities that name the entity as they are; by
	// default the write takes the entity out of them.
	KeepReferences bool
}

// The conditional-write headers of a proposal: the write fails with
// Precondition unless the aspect's current version is the one named (-1
// for none), or it was last written after (If-Modified-Since) or not after
// (If-Unmodified-Since) the instant given (RFC 3339).
const (
	HeaderIfVersionMatch    = "If-Version-Match"
	HeaderIfModifiedSince   = "If-Modified-Since"
	HeaderIfUnmodifiedSince = "If-Unmodified-Since"
)

// Aspect is one stored version of one aspect of one entity.
type Aspect struct {
	URN     string
	Name    string
	Version int64 // 0 is the latest; history is kept at 1..N, oldest first
	// Value is the aspect as canonical JSON.
	Value          json.RawMessage
	SystemMetadata json.RawMessage
	Created        AuditStamp
}

// TimeseriesValue is one time-stamped value of a timeseries aspect.
type TimeseriesValue struct {
	URN             string
	Entity          string
	Aspect          string
	TimestampMillis int64
	Partition       string // partitionSpec.partition, "" for none
	MessageID       string
	Value           json.RawMessage
	SystemMetadata  json.RawMessage
}

// Edge is one relationship from the entity owning an aspect to another entity.
type Edge struct {
	Source       string
	Relationship string
	Destination  string
	SourceAspect string
	Created      AuditStamp
	Properties   json.RawMessage // nil when the relationship carries none
}

// EdgeMeta is what a relationship annotation records of one edge, kept as
// the edge's Properties: the times and actors the source stated (zero when
// it stated none), its free-form properties, and the entity it came via.
type EdgeMeta struct {
	CreatedOn    int64             `json:"createdOn,omitempty"`
	CreatedActor string            `json:"createdActor,omitempty"`
	UpdatedOn    int64             `json:"updatedOn,omitempty"`
	UpdatedActor string            `json:"updatedActor,omitempty"`
	Properties   map[string]string `json:"properties,omitempty"`
	Via          string            `json:"via,omitempty"`
}

// IsZero reports whether m records nothing.
func (m EdgeMeta) IsZero() bool {
	return m.CreatedOn == 0 && m.CreatedActor == "" && m.UpdatedOn == 0 && m.UpdatedActor == "" && len(m.Properties) == 0 && m.Via == ""
}

// Meta decodes the edge's Properties; an edge without any has a zero
// EdgeMeta.
func (e Edge) Meta() EdgeMeta {
	var m EdgeMeta
	if len(e.Properties) > 0 {
		_ = json.Unmarshal(e.Properties, &m)
	}
	return m
}
