package catalog

import "context"

// Document is the flat search view of one entity, built from the
// x-searchable annotations of its latest aspects (timeseries included). Every
// engine indexes the same documents.
type Document struct {
	URN        string
	EntityType string
	// Removed mirrors status.removed: soft-deleted entities are hidden from
	// search, browse and autocomplete unless a filter names "removed".
	Removed bool
	// Fields maps a search field name to its values: strings for TEXT,
	// KEYWORD, URN and BROWSE_PATH kinds, float64 for COUNT, DOUBLE and
	// DATETIME, bool for BOOLEAN. Maps arrive as "key=value" strings.
	Fields map[string][]any
	// BrowsePaths are the entity's browse paths, e.g. "/prod/kafka/topic".
	BrowsePaths []string
}

// Criterion is one condition of a search filter. Condition is one of
// EQUAL, IEQUAL, CONTAIN, START_WITH, END_WITH, GREATER_THAN,
// GREATER_THAN_OR_EQUAL_TO, LESS_THAN, LESS_THAN_OR_EQUAL_TO, IN, EXISTS,
// IS_NULL. A criterion holds when any of Values matches (for EQUAL and IN).
type Criterion struct {
	Field     string
	Values    []string
	Condition string
	Negated   bool
}

// Filter is a disjunction of conjunctions: the document matches when every
// criterion of at least one group holds. An empty Filter matches everything.
type Filter struct {
	Or [][]Criterion
}

// SearchQuery asks for entities matching free text and a filter.
type SearchQuery struct {
	// EntityTypes restricts the search; empty means every entity type.
	EntityTypes []string
	// Text is free text; "" and "*" match every document.
	Text   string
	Filter Filter
	// Facets lists the fields whose value counts are wanted.
	Facets []string
	Start  int
	Count  int
	// EntityCounts asks for the number of hits of each entity type
	// (SearchResult.EntityCounts), which the type facet of a search over
	// several types needs: counted with the hits, it costs nothing more.
	EntityCounts bool
}

// SearchHit is one matching entity with the fields its text matched.
type SearchHit struct {
	URN           string
	EntityType    string
	Score         float64
	MatchedFields []MatchedField
}

// MatchedField names a document field and the value that matched the query.
type MatchedField struct {
	Name  string
	Value string
}

// SearchResult is one page of hits with the total and the facet counts.
type SearchResult struct {
	// Total is the number of hits; engines may cap it at 10,000, as DataHub
	// (Elasticsearch's default total-hits tracking) does.
	Total int
	Hits  []SearchHit
	// Facets counts, per field, the hits holding each value; engines may
	// leave out values longer than 256 bytes (Elasticsearch's ignore_above).
	// Filters always see every value.
	Facets map[string]map[string]int // field → value → count
	// EntityCounts, when the query asked and the engine counted every hit
	// (Total below its cap), is the number of hits of each entity type
	// that has some; nil when it did not count them.
	EntityCounts map[string]int
}

// AutocompleteQuery asks for completions of a prefix.
type AutocompleteQuery struct {
	EntityTypes []string
	Query       string
	// Field restricts suggestions to one field; empty means every
	// enableAutocomplete field.
	Field  string
	Filter Filter
	Limit  int
}

// Suggestion is one completion and the entity it came from.
type Suggestion struct {
	Text string
	URN  string
}

// BrowseQuery asks for the children of a browse path.
type BrowseQuery struct {
	EntityType string
	Path       string // "/" or "" is the root
	Filter     Filter
	Start      int
	Limit      int
}

// BrowseGroup is a child path segment with the number of entities below it.
type BrowseGroup struct {
	Name  string
	Count int
}

// BrowseResult lists groups then entities directly at the path; paging
// spans both. Groups are ordered by name, entities by URN.
type BrowseResult struct {
	Groups      []BrowseGroup // the page's groups
	URNs        []string      // the page's entities
	NumGroups   int           // all groups at the path
	NumEntities int           // all entities directly at the path
	// Total counts the distinct entities with a browse path strictly below
	// the path, i.e. the members of its groups. DataHub reports it as
	// metadata.totalNumEntities (0 at a leaf, whatever sits at it).
	Total int
}

// SearchIndex is a search engine holding Documents. Implementations are safe
// for concurrent use. Query methods see every write committed before the call
// for in-store engines; external engines catch up asynchronously (they may
// implement Flush(ctx) error to wait until every accepted write is visible).
// Errors are *Error values: Invalid for a bad query (unknown condition,
// non-numeric value for a range condition), Unavailable when the engine
// cannot be reached.
//
// Soft delete is the engine's job, so that every caller gets it: Search and
// Autocomplete leave out documents with Removed set unless a criterion of the
// filter names the field "removed" (which then matches Removed as the
// BOOLEAN values "true"/"false"); Browse always leaves them out.
//
// Filter semantics every engine implements: a criterion on a field holds
// when any value of the document's field satisfies the condition against any
// of Values (EQUAL, IN: equal to one of them; IEQUAL: equal ignoring case;
// CONTAIN, START_WITH, END_WITH: substring tests ignoring case; the four
// range conditions compare numerically against Values[0] and are Invalid
// when it is not a number; EXISTS: the field has a value; IS_NULL: it has
// none). Negated inverts the criterion. An empty Condition means EQUAL.
// Strings compare as stored; BOOLEAN values as "true"/"false"; numbers in
// their shortest decimal form ("3", "1.5"). The field "urn" holds the URN.
//
// Free text is split by the search package's analyzer; a document matches
// when every query word is a prefix of some word of one of its QueryByDefault
// fields. Ranking weighs each field by its Boost.
type SearchIndex interface {
	// Upsert replaces the documents with the same URNs.
	Upsert(ctx context.Context, docs []Document) error
	// Delete removes documents; unknown URNs are ignored.
	Delete(ctx context.Context, urns []string) error
	Search(ctx context.Context, q SearchQuery) (SearchResult, error)
	Autocomplete(ctx context.Context, q AutocompleteQuery) ([]Suggestion, error)
	Browse(ctx context.Context, q BrowseQuery) (BrowseResult, error)
}

// SearchField describes one document field as the registry's x-searchable
// annotations define it, merged over every aspect that writes it. Engines are
// built with the full list so that they know how to index and rank each field.
type SearchField struct {
	Name string
	// Type is the x-searchable fieldType (TEXT, TEXT_PARTIAL, WORD_GRAM,
	// KEYWORD, URN, URN_PARTIAL, BOOLEAN, COUNT, DATETIME, DOUBLE,
	// BROWSE_PATH, BROWSE_PATH_V2, MAP_ARRAY, OBJECT).
	Type string
	// Boost weighs matches in this field when ranking free-text results.
	Boost float64
	// QueryByDefault fields are searched by free text.
	QueryByDefault bool
	// Autocomplete fields feed autocomplete suggestions.
	Autocomplete bool
	// Filter fields get facet counts.
	Filter bool
}
