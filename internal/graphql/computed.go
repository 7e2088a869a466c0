package graphql

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// computed implements the fields the schema marks @computed: those that need
// logic rather than a stored value (existence, relationships, lineage,
// derived paths, privileges, timeseries reads). Each method serves the field
// of that name on every type that declares it.
type computed struct{ *Resolver }

var _ model.Computed = (*computed)(nil)

// Exists reports whether anything is stored for the entity.
func (r *computed) Exists(ctx context.Context, obj model.Entity) (*bool, error) {
	ok, err := r.loaderOf(ctx).exists(ctx, obj.EntityURN())
	if err != nil {
		return nil, err
	}
	return &ok, nil
}

// defaultRunID is the run id DataHub gives writes that name none.
const defaultRunID = "no-run-id-provided"

// LastIngested is, as DataHub computes it, the latest lastObserved of the
// entity's aspects written by an ingestion run (a run id other than the
// default), null when there is none.
func (r *computed) LastIngested(ctx context.Context, obj model.Entity) (*int64, error) {
	e, err := r.loaderOf(ctx).get(ctx, obj.EntityURN())
	if err != nil {
		return nil, err
	}
	var last *int64
	for _, a := range e.aspects {
		var sm struct {
			LastObserved *int64 `json:"lastObserved"`
			RunID        string `json:"runId"`
			LastRunID    string `json:"lastRunId"`
		}
		if len(a.SystemMetadata) == 0 || json.Unmarshal(a.SystemMetadata, &sm) != nil || sm.LastObserved == nil {
			continue
		}
		run := sm.LastRunID
		if run == "" || run == defaultRunID {
			run = sm.RunID
		}
		if run == "" || run == defaultRunID {
			continue
		}
		if last == nil || *sm.LastObserved > *last {
			last = sm.LastObserved
		}
	}
	return last, nil
}

// Platform is the platform of entities whose key names a tool rather than a
// platform URN (charts, dashboards, flows; jobs through their flow), as
// DataHub derives it.
func (r *computed) Platform(_ context.Context, obj model.Entity) (*model.DataPlatform, error) {
	return &model.DataPlatform{Urn: platformFromURN(obj.EntityURN())}, nil
}

// platformFromURN derives the platform of an entity from its key: datasets
// and ML models name the platform URN, charts, dashboards and flows the tool,
// jobs their flow.
func platformFromURN(urn string) string {
	switch urnType(urn) {
	case "dataset", "mlModel", "mlModelGroup", "mlFeatureTable":
		return urnPart(urn, 0)
	case "chart", "dashboard", "dataFlow":
		return catalog.NewURN("dataPlatform", urnPart(urn, 0))
	case "dataJob":
		return platformFromURN(urnPart(urn, 0))
	}
	return catalog.NewURN("dataPlatform", "unknown")
}

// Relationships resolves the edges of the entity in one direction.
func (r *computed) Relationships(ctx context.Context, obj model.Entity, in model.RelationshipsInput) (*model.EntityRelationshipsResult, error) {
	dir := catalog.Outgoing
	if in.Direction == model.RelationshipDirectionIncoming {
		dir = catalog.Incoming
	}
	start, count := page(in.Start, in.Count, 100)
	edges, total, err := r.store.Edges(ctx, catalog.EdgeQuery{URN: obj.EntityURN(), Direction: dir, Relationships: in.Types, Start: start, Count: count})
	if err != nil {
		return nil, err
	}
	out := &model.EntityRelationshipsResult{Start: &start, Total: &total, Relationships: make([]*model.EntityRelationship, 0, len(edges))}
	var urns []string
	for _, e := range edges {
		other := e.Destination
		if dir == catalog.Incoming {
			other = e.Source
		}
		ent := model.EntityOf(other)
		if ent == nil {
			continue
		}
		urns = append(urns, other)
		out.Relationships = append(out.Relationships, &model.EntityRelationship{
			Type: e.Relationship, Direction: in.Direction, Entity: ent, Created: auditStamp(e.Created.Time, e.Created.Actor),
		})
	}
	out.Count = ptr(len(out.Relationships))
	r.loaderOf(ctx).Want(urns...)
	return out, nil
}

// BrowsePaths resolves the browsePaths aspect, each path split at "/".
func (r *computed) BrowsePaths(ctx context.Context, obj model.Entity) ([]*model.BrowsePath, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, obj.EntityURN(), "browsePaths")
	if err != nil || v == nil {
		return nil, err
	}
	paths, _ := v.(map[string]any)["paths"].([]any)
	out := make([]*model.BrowsePath, 0, len(paths))
	for _, p := range paths {
		if s, ok := p.(string); ok {
			out = append(out, &model.BrowsePath{Path: splitPath(s)})
		}
	}
	return out, nil
}

// defaultFolder is the browse path entry DataHub gives entities it has no
// better path for.
const defaultFolder = "Default"

// BrowsePathV2 resolves the browsePathsV2 aspect; when none is stored it
// derives the path DataHub would have written by default: the chain of
// containers (highest first) of datasets, charts and dashboards, else a
// dataset's name split at its platform's delimiter (without the last part),
// a job's flow, or the Default folder.
func (r *computed) BrowsePathV2(ctx context.Context, obj model.Entity) (*model.BrowsePathV2, error) {
	urn := obj.EntityURN()
	l := r.loaderOf(ctx)
	v, err := l.Aspect(ctx, urn, "browsePathsV2")
	if err != nil {
		return nil, err
	}
	out := &model.BrowsePathV2{Path: []*model.BrowsePathEntry{}}
	entry := func(name, ref string) {
		e := &model.BrowsePathEntry{Name: name}
		if ref != "" {
			e.Entity = model.EntityOf(ref)
			l.Want(ref)
		}
		out.Path = append(out.Path, e)
	}
	if m, ok := v.(map[string]any); ok {
		path, _ := m["path"].([]any)
		for _, p := range path {
			pm, _ := p.(map[string]any)
			id, _ := pm["id"].(string)
			ref, _ := pm["urn"].(string)
			entry(id, ref)
		}
		return out, nil
	}
	switch urnType(urn) {
	case "dataset", "chart", "dashboard":
		chain, err := r.containerChain(ctx, urn)
		if err != nil {
			return nil, err
		}
		for i := len(chain) - 1; i >= 0; i-- {
			entry(chain[i], chain[i])
		}
		if len(out.Path) > 0 || urnType(urn) != "dataset" {
			break
		}
		delim, err := r.nameDelimiter(ctx, urnPart(urn, 0))
		if err != nil {
			return nil, err
		}
		if name := urnPart(urn, 1); strings.Contains(name, delim) {
			var parts []string
			for _, p := range strings.Split(name, delim) {
				if p != "" {
					parts = append(parts, p)
				}
			}
			for _, p := range parts[:max(len(parts)-1, 0)] {
				entry(p, "")
			}
		}
	case "dataJob":
		flow := urnPart(urn, 0)
		entry(flow, flow)
	}
	if len(out.Path) == 0 {
		entry(defaultFolder, "")
	}
	return out, nil
}

// nameDelimiter is the dataset name delimiter of platform, "." by default.
func (r *Resolver) nameDelimiter(ctx context.Context, platform string) (string, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, platform, "dataPlatformInfo")
	if err != nil {
		return "", err
	}
	if m, ok := v.(map[string]any); ok {
		if d, ok := m["datasetNameDelimiter"].(string); ok && d != "" {
			return d, nil
		}
	}
	return ".", nil
}

// containerChain returns the containers above urn, nearest first; a cycle
// ends the walk.
func (r *Resolver) containerChain(ctx context.Context, urn string) ([]string, error) {
	l := r.loaderOf(ctx)
	var chain []string
	seen := map[string]bool{urn: true}
	for {
		v, err := l.Aspect(ctx, urn, "container")
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		parent, _ := m["container"].(string)
		if parent == "" || seen[parent] {
			return chain, nil
		}
		seen[parent] = true
		chain = append(chain, parent)
		urn = parent
	}
}

// ParentContainers lists the containers above the entity, nearest first.
func (r *computed) ParentContainers(ctx context.Context, obj model.Entity) (*model.ParentContainersResult, error) {
	chain, err := r.containerChain(ctx, obj.EntityURN())
	if err != nil {
		return nil, err
	}
	out := &model.ParentContainersResult{Count: len(chain), Containers: make([]*model.Container, len(chain))}
	for i, c := range chain {
		out.Containers[i] = &model.Container{Urn: c}
	}
	return out, nil
}

// parentChain follows the parent URN that path names in aspect from urn
// upwards, nearest first; a cycle ends the walk.
func (r *Resolver) parentChain(ctx context.Context, urn, aspect, field string) ([]string, error) {
	l := r.loaderOf(ctx)
	var chain []string
	seen := map[string]bool{urn: true}
	for {
		v, err := l.Aspect(ctx, urn, aspect)
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		parent, _ := m[field].(string)
		if parent == "" || seen[parent] {
			return chain, nil
		}
		seen[parent] = true
		chain = append(chain, parent)
		l.Want(parent)
		urn = parent
	}
}

// ParentDomains lists the domains above a domain, nearest first.
func (r *computed) ParentDomains(ctx context.Context, obj model.Entity) (*model.ParentDomainsResult, error) {
	chain, err := r.parentChain(ctx, obj.EntityURN(), "domainProperties", "parentDomain")
	if err != nil {
		return nil, err
	}
	out := &model.ParentDomainsResult{Count: len(chain), Domains: make([]model.Entity, len(chain))}
	for i, d := range chain {
		out.Domains[i] = &model.Domain{Urn: d}
	}
	return out, nil
}

// ParentNodes lists the glossary nodes above a term or node, nearest first.
func (r *computed) ParentNodes(ctx context.Context, obj model.Entity) (*model.ParentNodesResult, error) {
	urn := obj.EntityURN()
	aspect := "glossaryNodeInfo"
	if urnType(urn) == "glossaryTerm" {
		aspect = "glossaryTermInfo"
	}
	// The first step reads the entity's own info aspect, the rest nodes'.
	first, err := r.parentChain(ctx, urn, aspect, "parentNode")
	if err != nil {
		return nil, err
	}
	chain := first
	if len(first) > 0 && aspect == "glossaryTermInfo" {
		chain = first[:1]
		rest, err := r.parentChain(ctx, first[0], "glossaryNodeInfo", "parentNode")
		if err != nil {
			return nil, err
		}
		for _, n := range rest {
			if n != urn {
				chain = append(chain, n)
			}
		}
	}
	out := &model.ParentNodesResult{Count: len(chain), Nodes: make([]*model.GlossaryNode, len(chain))}
	for i, n := range chain {
		out.Nodes[i] = &model.GlossaryNode{Urn: n}
	}
	return out, nil
}

// GlossaryTermName is the last part of the term's hierarchical name, as
// DataHub names terms.
func (r *computed) GlossaryTermName(_ context.Context, obj model.Entity) (string, error) {
	return termName(urnPart(obj.EntityURN(), 0)), nil
}

func termName(hierarchical string) string {
	if i := strings.LastIndexByte(hierarchical, '.'); i >= 0 {
		return hierarchical[i+1:]
	}
	return hierarchical
}

// GlossaryTermPropertiesName is glossaryTermInfo.name, else the term's name.
func (r *computed) GlossaryTermPropertiesName(_ context.Context, obj *model.GlossaryTermProperties) (string, error) {
	return infoName(obj), nil
}

// GlossaryTermInfoName is glossaryTermInfo.name, else the term's name.
func (r *computed) GlossaryTermInfoName(_ context.Context, obj *model.GlossaryTermInfo) (*string, error) {
	return ptr(infoName(obj)), nil
}

func infoName(n model.Node) string {
	v, s := model.ValueOf(n)
	if m, ok := v.(map[string]any); ok {
		if name, ok := m["name"].(string); ok && name != "" {
			return name
		}
	}
	return termName(urnPart(s.URN(), 0))
}

// IsNativeUser reports whether the user logs in with a password stored
// here, as DataHub computes it from the corpUserCredentials aspect: null
// when the user has none. The read APIs never see that aspect, so the auth
// service answers.
func (r *computed) IsNativeUser(ctx context.Context, obj model.Entity) (*bool, error) {
	return r.loaderOf(ctx).isNative(ctx, obj.EntityURN())
}

// OwnerOwnershipType is the owner's ownership type entity; a legacy owner
// (a type and no type URN) gets DataHub's system ownership type for its
// type, urn:li:ownershipType:__system__<type>.
func (r *computed) OwnerOwnershipType(ctx context.Context, obj *model.Owner) (*model.OwnershipTypeEntity, error) {
	v, _ := model.ValueOf(obj)
	m, _ := v.(map[string]any)
	u, _ := m["typeUrn"].(string)
	if u == "" {
		t, _ := m["type"].(string)
		if t == "" {
			return nil, nil
		}
		u = "urn:li:ownershipType:__system__" + strings.ToLower(t)
	}
	r.loaderOf(ctx).Want(u)
	return &model.OwnershipTypeEntity{Urn: u}, nil
}

// SchemaMetadata resolves schemaMetadata, the latest or the given version.
func (r *computed) SchemaMetadata(ctx context.Context, obj model.Entity, version *int64) (*model.SchemaMetadata, error) {
	urn := obj.EntityURN()
	l := r.loaderOf(ctx)
	if v := deref(version); v != 0 {
		a, err := r.store.AspectVersion(ctx, urn, "schemaMetadata", v)
		if err != nil {
			return nil, notFoundIsNil(err)
		}
		val, err := decodeJSON(a.Value)
		if err != nil {
			return nil, err
		}
		return model.NewSchemaMetadata(val, model.NewScope(urn, l, v)), nil
	}
	val, err := l.Aspect(ctx, urn, "schemaMetadata")
	if err != nil || val == nil {
		return nil, err
	}
	return model.NewSchemaMetadata(val, model.NewScope(urn, l, 0)), nil
}

// decodeJSON decodes a stored JSON value as the loader does.
func decodeJSON(b []byte) (any, error) {
	if v, ok := fastjson.Decode(b); ok {
		return v, nil
	}
	var v any
	if err := jsonUnmarshalNumber(b, &v); err != nil {
		return nil, catalog.WithOp("decode stored aspect", err)
	}
	return v, nil
}

// schemaFieldTypes maps the members of DataHub's schema field type union to
// the GraphQL enum.
var schemaFieldTypes = map[string]model.SchemaFieldDataType{
	"BooleanType": model.SchemaFieldDataTypeBoolean, "FixedType": model.SchemaFieldDataTypeFixed,
	"StringType": model.SchemaFieldDataTypeString, "BytesType": model.SchemaFieldDataTypeBytes,
	"NumberType": model.SchemaFieldDataTypeNumber, "DateType": model.SchemaFieldDataTypeDate,
	"TimeType": model.SchemaFieldDataTypeTime, "EnumType": model.SchemaFieldDataTypeEnum,
	"NullType": model.SchemaFieldDataTypeNull, "MapType": model.SchemaFieldDataTypeMap,
	"ArrayType": model.SchemaFieldDataTypeArray, "UnionType": model.SchemaFieldDataTypeUnion,
	"RecordType": model.SchemaFieldDataTypeStruct,
}

// fieldType reads the member of the type union at type/type of a schema
// field value.
func fieldType(n model.Node) model.SchemaFieldDataType {
	v, _ := model.ValueOf(n)
	m, _ := v.(map[string]any)
	t, _ := m["type"].(map[string]any)
	u, _ := t["type"].(map[string]any)
	for k := range u {
		if ft, ok := schemaFieldTypes[k[strings.LastIndexByte(k, '.')+1:]]; ok {
			return ft
		}
	}
	return model.SchemaFieldDataTypeNull
}

// SchemaFieldType is the field's type.
func (r *computed) SchemaFieldType(_ context.Context, obj *model.SchemaField) (model.SchemaFieldDataType, error) {
	return fieldType(obj), nil
}

// SchemaAssertionFieldType is the field's type.
func (r *computed) SchemaAssertionFieldType(_ context.Context, obj *model.SchemaAssertionField) (model.SchemaFieldDataType, error) {
	return fieldType(obj), nil
}

// BusinessAttributeInfoType is the attribute's type.
func (r *computed) BusinessAttributeInfoType(_ context.Context, obj *model.BusinessAttributeInfo) (*model.SchemaFieldDataType, error) {
	v, _ := model.ValueOf(obj)
	if m, ok := v.(map[string]any); !ok || m["type"] == nil {
		return nil, nil
	}
	return ptr(fieldType(obj)), nil
}

// SchemaFieldSchemaFieldEntity is the schemaField entity of the field.
func (r *computed) SchemaFieldSchemaFieldEntity(ctx context.Context, obj *model.SchemaField) (*model.SchemaFieldEntity, error) {
	v, s := model.ValueOf(obj)
	m, _ := v.(map[string]any)
	path, _ := m["fieldPath"].(string)
	if path == "" {
		return nil, nil
	}
	u := catalog.NewURN("schemaField", s.URN(), path)
	r.loaderOf(ctx).Want(u)
	return &model.SchemaFieldEntity{Urn: u}, nil
}

// SchemaMetadataPlatformSchema maps the platform schema union: the members
// holding one document to a TableSchema, the key-value one to a
// KeyValueSchema.
func (r *computed) SchemaMetadataPlatformSchema(_ context.Context, obj *model.SchemaMetadata) (model.PlatformSchema, error) {
	v, _ := model.ValueOf(obj)
	m, _ := v.(map[string]any)
	u, _ := m["platformSchema"].(map[string]any)
	for k, x := range u {
		doc, _ := x.(map[string]any)
		switch k[strings.LastIndexByte(k, '.')+1:] {
		case "KafkaSchema":
			key, _ := doc["keySchema"].(string)
			val, _ := doc["documentSchema"].(string)
			if key != "" {
				return &model.KeyValueSchema{KeySchema: key, ValueSchema: val}, nil
			}
			return &model.TableSchema{Schema: val}, nil
		case "MySqlDDL":
			s, _ := doc["tableSchema"].(string)
			return &model.TableSchema{Schema: s}, nil
		case "Schemaless":
			return nil, nil
		default:
			for _, f := range []string{"rawSchema", "schema", "tableSchema", "documentSchema", "fields"} {
				if s, ok := doc[f].(string); ok {
					return &model.TableSchema{Schema: s}, nil
				}
			}
		}
	}
	return nil, nil
}

// schemaFieldRef splits a schemaField URN into the entity it belongs to and
// the field's path, nil for other URNs. withURN keeps the whole URN as the
// reference's urn, as DataHub's assertion fields do.
func schemaFieldRef(u string, withURN bool) *model.SchemaFieldRef {
	if urnType(u) != "schemaField" {
		return nil
	}
	parts := urnParts(u)
	if len(parts) != 2 {
		return nil
	}
	ref := &model.SchemaFieldRef{Urn: parts[0], Path: parts[1]}
	if withURN {
		ref.Urn = u
	}
	return ref
}

func schemaFieldRefs(v any, withURN bool) []*model.SchemaFieldRef {
	list, _ := v.([]any)
	out := make([]*model.SchemaFieldRef, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			if ref := schemaFieldRef(s, withURN); ref != nil {
				out = append(out, ref)
			}
		}
	}
	return out
}

func member(n model.Node, name string) any {
	v, _ := model.ValueOf(n)
	m, _ := v.(map[string]any)
	return m[name]
}

// FineGrainedLineageUpstreams are the upstream fields of a fine-grained
// lineage.
func (r *computed) FineGrainedLineageUpstreams(_ context.Context, obj *model.FineGrainedLineage) ([]*model.SchemaFieldRef, error) {
	return schemaFieldRefs(member(obj, "upstreams"), false), nil
}

// FineGrainedLineageDownstreams are the downstream fields of a fine-grained
// lineage.
func (r *computed) FineGrainedLineageDownstreams(_ context.Context, obj *model.FineGrainedLineage) ([]*model.SchemaFieldRef, error) {
	return schemaFieldRefs(member(obj, "downstreams"), false), nil
}

// DatasetAssertionInfoFields are the fields a dataset assertion checks.
func (r *computed) DatasetAssertionInfoFields(_ context.Context, obj *model.DatasetAssertionInfo) ([]*model.SchemaFieldRef, error) {
	return schemaFieldRefs(member(obj, "fields"), true), nil
}

// CustomAssertionInfoField is the field a custom assertion checks.
func (r *computed) CustomAssertionInfoField(_ context.Context, obj *model.CustomAssertionInfo) (*model.SchemaFieldRef, error) {
	s, _ := member(obj, "field").(string)
	return schemaFieldRef(s, true), nil
}
