package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Proposal is one metadata change proposal (MCP) in the wire form of
// ingestProposal: the aspect travels as a JSON string in aspect.value.
type Proposal struct {
	EntityType string        `json:"entityType"`
	EntityURN  string        `json:"entityUrn"`
	ChangeType string        `json:"changeType"`
	AspectName string        `json:"aspectName"`
	Aspect     GenericAspect `json:"aspect"`
}

// GenericAspect is a serialized aspect value or JSON Patch document.
type GenericAspect struct {
	Value       string `json:"value"`
	ContentType string `json:"contentType"`
}

// PatchOp is one JSON Patch (RFC 6902) operation. Paths address array items
// by key, as the server documents: /tags/<tag urn>, /owners/<owner>/<type>.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// PatchContentType is the content type of PATCH proposals.
const PatchContentType = "application/json-patch+json"

// UpsertProposal returns an UPSERT proposal writing value as the aspect.
func UpsertProposal(urn, aspect string, value any) (Proposal, error) {
	typ, err := entityTypeOf(urn)
	if err != nil {
		return Proposal{}, err
	}
	b, err := json.Marshal(value)
	if err != nil {
		return Proposal{}, fmt.Errorf("encode %s of %s: %w", aspect, urn, err)
	}
	return Proposal{EntityType: typ, EntityURN: urn, ChangeType: "UPSERT", AspectName: aspect,
		Aspect: GenericAspect{Value: string(b), ContentType: "application/json"}}, nil
}

// PatchProposal returns a PATCH proposal applying ops to the aspect.
func PatchProposal(urn, aspect string, ops ...PatchOp) (Proposal, error) {
	typ, err := entityTypeOf(urn)
	if err != nil {
		return Proposal{}, err
	}
	b, err := json.Marshal(ops)
	if err != nil {
		return Proposal{}, fmt.Errorf("encode patch of %s of %s: %w", aspect, urn, err)
	}
	return Proposal{EntityType: typ, EntityURN: urn, ChangeType: "PATCH", AspectName: aspect,
		Aspect: GenericAspect{Value: string(b), ContentType: PatchContentType}}, nil
}

// Segment escapes s for use as one segment of a patch path (RFC 6901): URNs
// may contain "/".
func Segment(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// OwnershipType is the type of an owner, as DataHub names them.
type OwnershipType string

// The common ownership types.
const (
	TechnicalOwner OwnershipType = "TECHNICAL_OWNER"
	BusinessOwner  OwnershipType = "BUSINESS_OWNER"
	DataSteward    OwnershipType = "DATA_STEWARD"
	DataOwner      OwnershipType = "DATAOWNER"
)

// Entity is an entity being written: full aspects (system aspects, as
// ingestion writes them) plus incremental changes recorded as patches
// against editable aspects. Methods return e so that calls chain; a misuse
// is recorded and reported by Client.Upsert or Client.Update. An Entity is
// not safe for concurrent use.
type Entity struct {
	urn, typ string
	aspects  map[string]any // full aspects to write, by name
	order    []string       // aspect names in the order they were set
	patches  []aspectPatch
	base     map[string]json.RawMessage // the fetched values a mutable copy started from
	err      error
}

type aspectPatch struct {
	aspect string
	ops    []PatchOp
}

// NewEntity returns an Entity for any URN; the constructors below are
// shortcuts for the common entity types.
func NewEntity(urn string) *Entity {
	typ, err := entityTypeOf(urn)
	return &Entity{urn: urn, typ: typ, aspects: map[string]any{}, err: err}
}

// NewDataset returns a dataset, urn:li:dataset:(urn:li:dataPlatform:<platform>,<name>,<env>).
func NewDataset(platform, name, env string) *Entity {
	if env == "" {
		env = "PROD"
	}
	return NewEntity(fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:%s,%s,%s)", platform, name, env))
}

// noStamp is the audit stamp DataHub writes when the time is unknown.
var noStamp = map[string]any{"time": 0, "actor": "urn:li:corpuser:unknown"}

// NewChart returns a chart of a BI tool with its chartInfo.
func NewChart(tool, id, title string) *Entity {
	e := NewEntity(fmt.Sprintf("urn:li:chart:(%s,%s)", tool, id))
	return e.SetAspect("chartInfo", map[string]any{"title": title, "description": "",
		"lastModified": map[string]any{"created": noStamp, "lastModified": noStamp}})
}

// NewDashboard returns a dashboard of a BI tool with its dashboardInfo.
func NewDashboard(tool, id, title string) *Entity {
	e := NewEntity(fmt.Sprintf("urn:li:dashboard:(%s,%s)", tool, id))
	return e.SetAspect("dashboardInfo", map[string]any{"title": title, "description": "",
		"lastModified": map[string]any{"created": noStamp, "lastModified": noStamp}})
}

// NewUser returns an active user with its corpUserInfo.
func NewUser(username, displayName, email string) *Entity {
	info := map[string]any{"active": true}
	if displayName != "" {
		info["displayName"] = displayName
	}
	if email != "" {
		info["email"] = email
	}
	return NewEntity("urn:li:corpuser:"+username).SetAspect("corpUserInfo", info)
}

// NewGroup returns a group with its corpGroupInfo.
func NewGroup(name, displayName string) *Entity {
	info := map[string]any{"admins": []any{}, "members": []any{}, "groups": []any{}}
	if displayName != "" {
		info["displayName"] = displayName
	}
	return NewEntity("urn:li:corpGroup:"+name).SetAspect("corpGroupInfo", info)
}

// NewTag returns a tag with its tagProperties.
func NewTag(name, description string) *Entity {
	props := map[string]any{"name": name}
	if description != "" {
		props["description"] = description
	}
	return NewEntity("urn:li:tag:"+name).SetAspect("tagProperties", props)
}

// NewGlossaryTerm returns a glossary term with its glossaryTermInfo.
func NewGlossaryTerm(id, name, definition string) *Entity {
	return NewEntity("urn:li:glossaryTerm:"+id).SetAspect("glossaryTermInfo",
		map[string]any{"name": name, "definition": definition, "termSource": "INTERNAL"})
}

// URN returns the entity's URN.
func (e *Entity) URN() string { return e.urn }

// Type returns the entity type, as it appears in the URN.
func (e *Entity) Type() string { return e.typ }

// SetAspect sets a full aspect value (any value encoding/json can encode),
// written by Upsert. It replaces the stored aspect as a whole, so it is for
// system aspects, the ones ingestion owns.
func (e *Entity) SetAspect(name string, value any) *Entity {
	if _, ok := e.aspects[name]; !ok {
		e.order = append(e.order, name)
	}
	e.aspects[name] = value
	return e
}

// Patch records raw patch operations on an aspect.
func (e *Entity) Patch(aspect string, ops ...PatchOp) *Entity {
	if len(ops) > 0 {
		e.patches = append(e.patches, aspectPatch{aspect: aspect, ops: ops})
	}
	return e
}

// AddTag attaches a tag (globalTags).
func (e *Entity) AddTag(tag string) *Entity {
	tag = tagURN(tag)
	return e.Patch("globalTags", PatchOp{Op: "add", Path: "/tags/" + Segment(tag), Value: map[string]any{"tag": tag}})
}

// RemoveTag detaches a tag. The request fails if the tag is not attached.
func (e *Entity) RemoveTag(tag string) *Entity {
	return e.Patch("globalTags", PatchOp{Op: "remove", Path: "/tags/" + Segment(tagURN(tag))})
}

// AddTerm attaches a glossary term (glossaryTerms).
func (e *Entity) AddTerm(term string) *Entity {
	term = prefixed(term, "urn:li:glossaryTerm:")
	return e.Patch("glossaryTerms", PatchOp{Op: "add", Path: "/terms/" + Segment(term), Value: map[string]any{"urn": term}})
}

// RemoveTerm detaches a glossary term.
func (e *Entity) RemoveTerm(term string) *Entity {
	return e.Patch("glossaryTerms", PatchOp{Op: "remove", Path: "/terms/" + Segment(prefixed(term, "urn:li:glossaryTerm:"))})
}

// AddOwner adds an owner (a user or group URN; a bare name is a user) of a type.
func (e *Entity) AddOwner(owner string, typ OwnershipType) *Entity {
	owner = prefixed(owner, "urn:li:corpuser:")
	return e.Patch("ownership", PatchOp{Op: "add", Path: "/owners/" + Segment(owner) + "/" + Segment(string(typ)),
		Value: map[string]any{"owner": owner, "type": string(typ)}})
}

// RemoveOwner removes an owner, whatever its ownership types.
func (e *Entity) RemoveOwner(owner string) *Entity {
	return e.Patch("ownership", PatchOp{Op: "remove", Path: "/owners/" + Segment(prefixed(owner, "urn:li:corpuser:"))})
}

// SetDomain puts the entity in one domain, replacing any other.
func (e *Entity) SetDomain(domain string) *Entity {
	return e.Patch("domains", PatchOp{Op: "add", Path: "/domains", Value: []string{prefixed(domain, "urn:li:domain:")}})
}

// RemoveDomain takes the entity out of a domain.
func (e *Entity) RemoveDomain(domain string) *Entity {
	return e.Patch("domains", PatchOp{Op: "remove", Path: "/domains/" + Segment(prefixed(domain, "urn:li:domain:"))})
}

// editableProperties names the aspect people write descriptions to.
var editableProperties = map[string]string{
	"dataset":   "editableDatasetProperties",
	"chart":     "editableChartProperties",
	"dashboard": "editableDashboardProperties",
	"container": "editableContainerProperties",
	"dataFlow":  "editableDataFlowProperties",
	"dataJob":   "editableDataJobProperties",
}

// SetDescription sets the description people see, in the entity's editable
// properties aspect, which ingestion never overwrites.
func (e *Entity) SetDescription(description string) *Entity {
	aspect, ok := editableProperties[e.typ]
	if !ok {
		e.fail(fmt.Errorf("%s entities have no editable description", e.typ))
		return e
	}
	return e.Patch(aspect, PatchOp{Op: "add", Path: "/description", Value: description})
}

// AddColumnTag attaches a tag to a column of a dataset (editableSchemaMetadata).
func (e *Entity) AddColumnTag(fieldPath, tag string) *Entity {
	tag = tagURN(tag)
	return e.Patch("editableSchemaMetadata", PatchOp{Op: "add",
		Path: "/editableSchemaFieldInfo/" + Segment(fieldPath) + "/globalTags/tags/" + Segment(tag), Value: map[string]any{"tag": tag}})
}

// RemoveColumnTag detaches a tag from a column.
func (e *Entity) RemoveColumnTag(fieldPath, tag string) *Entity {
	return e.Patch("editableSchemaMetadata", PatchOp{Op: "remove",
		Path: "/editableSchemaFieldInfo/" + Segment(fieldPath) + "/globalTags/tags/" + Segment(tagURN(tag))})
}

// SetColumnDescription sets the description people see for a column.
func (e *Entity) SetColumnDescription(fieldPath, description string) *Entity {
	return e.Patch("editableSchemaMetadata", PatchOp{Op: "add",
		Path: "/editableSchemaFieldInfo/" + Segment(fieldPath) + "/description", Value: description})
}

// Aspect returns the value of an aspect as this entity knows it: set with
// SetAspect, or fetched when e is a mutable copy. Pending patches are not
// applied. The result is a copy.
func (e *Entity) Aspect(name string) (json.RawMessage, bool) {
	if v, ok := e.aspects[name]; ok {
		b, err := json.Marshal(v)
		return b, err == nil
	}
	v, ok := e.base[name]
	return slices.Clone(v), ok
}

// Proposals returns the proposals Upsert (full true) or Update (full false)
// would send.
func (e *Entity) Proposals(full bool) ([]Proposal, error) { return e.proposals(full) }

func (e *Entity) proposals(full bool) ([]Proposal, error) {
	if e.err != nil {
		return nil, fmt.Errorf("entity %s: %w", e.urn, e.err)
	}
	var out []Proposal
	if full {
		for _, name := range e.order {
			p, err := UpsertProposal(e.urn, name, e.aspects[name])
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	// One proposal per aspect, operations in call order: fewer rows and one
	// version per aspect instead of one per change.
	var names []string
	byAspect := map[string][]PatchOp{}
	for _, p := range e.patches {
		if _, ok := byAspect[p.aspect]; !ok {
			names = append(names, p.aspect)
		}
		byAspect[p.aspect] = append(byAspect[p.aspect], p.ops...)
	}
	for _, name := range names {
		p, err := PatchProposal(e.urn, name, byAspect[name]...)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("entity %s: nothing to write", e.urn)
	}
	return out, nil
}

func (e *Entity) fail(err error) {
	e.err = errors.Join(e.err, err)
}

// ReadOnlyEntity is an entity as fetched from the server. It has no methods
// that change it; Mutable returns a copy that can be changed and sent.
type ReadOnlyEntity struct {
	urn, typ string
	aspects  map[string]json.RawMessage
}

// URN returns the entity's URN.
func (r *ReadOnlyEntity) URN() string { return r.urn }

// Type returns the entity type, as it appears in the URN.
func (r *ReadOnlyEntity) Type() string { return r.typ }

// AspectNames lists the aspects stored for the entity, sorted.
func (r *ReadOnlyEntity) AspectNames() []string { return slices.Sorted(maps.Keys(r.aspects)) }

// Aspect returns a copy of the stored value of an aspect.
func (r *ReadOnlyEntity) Aspect(name string) (json.RawMessage, bool) {
	v, ok := r.aspects[name]
	return slices.Clone(v), ok
}

// DecodeAspect decodes the stored value of an aspect into v; it reports
// false when the aspect is absent.
func (r *ReadOnlyEntity) DecodeAspect(name string, v any) (bool, error) {
	b, ok := r.aspects[name]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("decode %s of %s: %w", name, r.urn, err)
	}
	return true, nil
}

// Mutable returns an Entity for the same URN that starts from the fetched
// values (see Entity.Aspect) and has no pending change. Changing it leaves r
// as it is.
func (r *ReadOnlyEntity) Mutable() *Entity {
	e := NewEntity(r.urn)
	e.base = make(map[string]json.RawMessage, len(r.aspects))
	for k, v := range r.aspects {
		e.base[k] = slices.Clone(v)
	}
	return e
}

func tagURN(tag string) string { return prefixed(tag, "urn:li:tag:") }

func prefixed(s, prefix string) string {
	if strings.HasPrefix(s, "urn:") {
		return s
	}
	return prefix + s
}
