package catalog

// EntitySpec describes one entity type of the metadata model: its name as it
// appears in URNs, its key aspect and the aspects it may carry. The generated
// registry (gen/registry) holds one EntitySpec per entity in schemas/entities.yaml.
type EntitySpec struct {
	// Name is the entity name used in URNs and in the entity parameters of the APIs, e.g. "dataset".
	Name string
	// Category is "core" or "internal" (empty when the model leaves it unset).
	Category string
	// KeyAspect names the aspect whose fields make up the URN.
	KeyAspect string
	// KeyFields are the key aspect's fields in URN tuple order.
	KeyFields []string
	// Aspects lists the non-key aspects the entity may carry, in registry order.
	Aspects []string
	// Snapshot is the fully qualified legacy snapshot record name
	// (com.linkedin.metadata.snapshot.<X>Snapshot); empty when the entity cannot travel as an MCE.
	Snapshot string
	// SnapshotAspects lists the aspects that a legacy snapshot of this entity may carry.
	SnapshotAspects []string
	// PlatformField names the key field from which the default dataPlatformInstance is derived
	// (a platform URN, or a bare platform name that is wrapped as urn:li:dataPlatform:<name>).
	PlatformField string
}

// AspectSpec describes one aspect: its names, whether it is a timeseries
// aspect, its JSON Schema and the resolved search and relationship annotations.
type AspectSpec struct {
	// Name is the aspect name used on the wire in proposals and V2 reads, e.g. "ownership".
	Name string
	// WireName is the fully qualified Pegasus record name used in snapshots and
	// aspect unions, e.g. "com.linkedin.common.Ownership".
	WireName string
	// Timeseries aspects are stored as time-stamped values and never versioned.
	Timeseries bool
	// Schema is the aspect's JSON Schema with every $ref bundled under $defs.
	Schema string
	// Searchable lists the search index fields the aspect contributes.
	Searchable []SearchableSpec
	// Relationships lists the graph edges the aspect's URN-valued fields create.
	Relationships []RelationshipSpec
}

// SearchableSpec is one resolved x-searchable annotation: the value(s) found at
// Path in the aspect become the search document field FieldName.
type SearchableSpec struct {
	// Path is a slash-separated JSON path from the aspect root; "*" stands for every array element.
	Path                         string
	FieldName                    string
	FieldType                    string // TEXT, TEXT_PARTIAL, WORD_GRAM, KEYWORD, URN, URN_PARTIAL, BOOLEAN, COUNT, DATETIME, DOUBLE, BROWSE_PATH, BROWSE_PATH_V2, MAP_ARRAY, OBJECT
	QueryByDefault               bool
	EnableAutocomplete           bool
	AddToFilters                 bool
	AddHasValuesToFilters        bool
	BoostScore                   float64
	FilterNameOverride           string
	HasValuesFieldName           string
	NumValuesFieldName           string
	IncludeSystemModifiedAt      bool
	SystemModifiedAtFieldName    string
	IncludeQueryEmptyAggregation bool
	FieldNameAliases             []string
	// KeyPath, when set, makes one field per element found at Path rather
	// than one field: the element's value at KeyPath (the id of a URN)
	// names the field FieldName.<key>, dots in the key written as
	// underscores, and holds the element's values at ValuePath, a
	// one-member union unwrapped. DataHub indexes structured property
	// values this way, a field per property.
	KeyPath   string
	ValuePath string
}

// RelationshipSpec is one resolved x-relationship annotation: every URN found
// at Path in the aspect is the destination of an edge named Name whose source
// is the entity that owns the aspect.
type RelationshipSpec struct {
	Path        string
	Name        string
	EntityTypes []string
	IsLineage   bool
	IsUpstream  bool
	// Optional paths into the aspect (relative to the aspect root) holding edge metadata.
	CreatedOn    string
	CreatedActor string
	UpdatedOn    string
	UpdatedActor string
	Properties   string
	Via          string
}
