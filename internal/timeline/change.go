// Package timeline computes DataHub's semantic change events: what changed
// between two versions of an aspect (a tag added, an owner removed, a schema
// field renamed), with DataHub's categories, operations, modifiers,
// parameters and semantic-version weights. The same computation serves the
// entity timeline (Service.Timeline, over the stored aspect versions) and
// the event stream, which records the events of every write as it commits.
//
// The generators are aspect-specific by nature: each knows what a change of
// its aspect means. Values are JSON as the ingest pipeline decodes it
// (objects as map[string]any, numbers as json.Number); nil stands for an
// aspect that does not exist.
package timeline

import (
	"sort"
	"strings"
)

// Category is the kind of a change, as DataHub names it.
type Category string

// DataHub's change categories.
const (
	Documentation     Category = "DOCUMENTATION"
	GlossaryTerm      Category = "GLOSSARY_TERM"
	Owner             Category = "OWNER"
	TechnicalSchema   Category = "TECHNICAL_SCHEMA"
	Tag               Category = "TAG"
	Domain            Category = "DOMAIN"
	Deprecation       Category = "DEPRECATION"
	Lifecycle         Category = "LIFECYCLE"
	Run               Category = "RUN"
	BusinessAttribute Category = "BUSINESS_ATTRIBUTE"
)

// Categories lists every category, in DataHub's order.
var Categories = []Category{Documentation, GlossaryTerm, Owner, TechnicalSchema, Tag, Domain, Deprecation, Lifecycle, Run, BusinessAttribute}

// Operation is what a change did.
type Operation string

// DataHub's change operations.
const (
	Add        Operation = "ADD"
	Modify     Operation = "MODIFY"
	Remove     Operation = "REMOVE"
	Create     Operation = "CREATE"
	HardDelete Operation = "HARD_DELETE"
	SoftDelete Operation = "SOFT_DELETE"
	Reinstate  Operation = "REINSTATE"
	Started    Operation = "STARTED"
	Completed  Operation = "COMPLETED"
)

// SemVerChange is the weight of a change for semantic versioning, ordered
// from none to exceptional.
type SemVerChange int

// The semantic version weights, in increasing order.
const (
	None SemVerChange = iota
	Patch
	Minor
	Major
	Exceptional
)

var semVerNames = [...]string{"NONE", "PATCH", "MINOR", "MAJOR", "EXCEPTIONAL"}

func (s SemVerChange) String() string {
	if s < None || s > Exceptional {
		return "NONE"
	}
	return semVerNames[s]
}

// MarshalText encodes the weight by DataHub's name.
func (s SemVerChange) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Param is one parameter of a change event. Parameters keep the order the
// generator gives them, as DataHub's do.
type Param struct {
	Key   string
	Value any // string or bool
}

// ChangeEvent is one semantic change to an entity (or, for field-level
// documentation and tags, to one of its schema fields).
type ChangeEvent struct {
	EntityURN   string
	Category    Category
	Operation   Operation
	Modifier    string // "" when the change has none
	Params      []Param
	SemVer      SemVerChange
	Description Text // empty when the change has none
}

// Text is a description to be rendered when it is shown: a format whose
// verbs are all %s, and their arguments. Change events are computed for
// every write, and most are never shown with their description.
type Text struct {
	format string
	args   [4]string
}

// describe returns the Text of format (only %s verbs, at most four) and args.
func describe(format string, args ...string) Text {
	t := Text{format: format}
	copy(t.args[:], args)
	return t
}

// String renders the text.
func (t Text) String() string {
	if !strings.Contains(t.format, "%s") {
		return t.format
	}
	var b strings.Builder
	rest, i := t.format, 0
	for {
		before, after, found := strings.Cut(rest, "%s")
		b.WriteString(before)
		if !found {
			return b.String()
		}
		if i < len(t.args) {
			b.WriteString(t.args[i])
		}
		i++
		rest = after
	}
}

// EntityType is the entity type of the event's URN.
func (e *ChangeEvent) EntityType() string {
	rest, ok := strings.CutPrefix(e.EntityURN, "urn:li:")
	if !ok {
		return ""
	}
	t, _, _ := strings.Cut(rest, ":")
	return t
}

// generator computes the change events of one aspect between two values.
type generator func(urn string, from, to any) []ChangeEvent

// generators are the change computations by aspect name.
var generators = map[string]generator{
	"schemaMetadata":              schemaMetadataChanges,
	"editableSchemaMetadata":      editableSchemaMetadataChanges,
	"globalTags":                  globalTagsChanges,
	"glossaryTerms":               glossaryTermsChanges,
	"ownership":                   ownershipChanges,
	"institutionalMemory":         institutionalMemoryChanges,
	"datasetProperties":           descriptionChanges("description"),
	"editableDatasetProperties":   descriptionChanges("description"),
	"glossaryTermInfo":            definitionChanges,
	"domains":                     domainChanges,
	"status":                      statusChanges,
	"deprecation":                 deprecationChanges,
	"dataProcessInstanceRunEvent": runEventChanges,
	"assertionRunEvent":           assertionRunChanges,
	"businessAttributes":          businessAttributesChanges,
	"businessAttributeInfo":       businessAttributeInfoChanges,
}

// keyAspects are the key aspects whose creation and removal are lifecycle
// events of their entity: the entity types DataHub reports them for.
var keyAspects = map[string]bool{
	"datasetKey": true, "dashboardKey": true, "chartKey": true, "containerKey": true, "dataFlowKey": true,
	"dataJobKey": true, "glossaryTermKey": true, "domainKey": true, "tagKey": true, "businessAttributeKey": true,
}

// streamed are the aspects whose changes DataHub publishes as entity change
// events (its change-event hook's list; institutionalMemory and
// glossaryTermInfo only appear in timelines).
var streamed = map[string]bool{
	"globalTags": true, "glossaryTerms": true, "ownership": true, "domains": true,
	"editableSchemaMetadata": true, "schemaMetadata": true, "deprecation": true,
	"datasetProperties": true, "editableDatasetProperties": true, "status": true,
	"dataProcessInstanceRunEvent": true, "assertionRunEvent": true,
	"businessAttributes": true, "businessAttributeInfo": true,
}

// IsKeyAspect reports whether aspect is a key aspect whose creation and
// removal are lifecycle events of its entity.
func IsKeyAspect(aspect string) bool { return keyAspects[aspect] }

// Streamed reports whether changes of aspect are published as entity
// change events.
func Streamed(aspect string) bool { return streamed[aspect] || keyAspects[aspect] }

// Changes returns the change events of one change of aspect of the entity
// urn, from the value from to the value to (nil for an absent aspect).
// Aspects without semantic changes yield none.
func Changes(urn, aspect string, from, to any) []ChangeEvent {
	if keyAspects[aspect] {
		switch {
		case from == nil && to != nil:
			return []ChangeEvent{{EntityURN: urn, Category: Lifecycle, Operation: Create}}
		case from != nil && to == nil:
			return []ChangeEvent{{EntityURN: urn, Category: Lifecycle, Operation: HardDelete}}
		}
		return nil
	}
	g := generators[aspect]
	if g == nil {
		return nil
	}
	return g(urn, from, to)
}

// Helpers over decoded JSON.

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any, key string) []any {
	l, _ := obj(v)[key].([]any)
	return l
}

// str returns a string member, and whether it is present.
func str(v any, key string) (string, bool) {
	s, ok := obj(v)[key].(string)
	return s, ok
}

func strOr(v any, key string) string {
	s, _ := str(v, key)
	return s
}

func boolean(v any, key string) bool {
	b, _ := obj(v)[key].(bool)
	return b
}

// urnID is the part of a URN after its entity type, DataHub's Urn.getId().
func urnID(urn string) string {
	rest, ok := strings.CutPrefix(urn, "urn:")
	if !ok {
		return urn
	}
	// urn:<namespace>:<type>:<id>
	if _, after, ok := strings.Cut(rest, ":"); ok {
		if _, id, ok := strings.Cut(after, ":"); ok {
			return id
		}
	}
	return urn
}

// sortedBy returns the elements of l that are objects, sorted by key(e).
func sortedBy(l []any, key func(any) string) []any {
	out := make([]any, 0, len(l))
	for _, e := range l {
		if obj(e) != nil {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

// mergeSorted walks two lists sorted by key, calling both for elements with
// equal keys, removed for elements only in base and added for those only
// in target, in key order.
func mergeSorted(base, target []any, key func(any) string, both func(b, t any), removed, added func(any)) {
	i, j := 0, 0
	for i < len(base) && j < len(target) {
		kb, kt := key(base[i]), key(target[j])
		switch {
		case kb == kt:
			if both != nil {
				both(base[i], target[j])
			}
			i++
			j++
		case kb < kt:
			removed(base[i])
			i++
		default:
			added(target[j])
			j++
		}
	}
	for ; i < len(base); i++ {
		removed(base[i])
	}
	for ; j < len(target); j++ {
		added(target[j])
	}
}
