package graphql

import (
	"context"
	"strings"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// This file holds the fields particular to one entity type.

// --- Dataset ---

// DataPlatformInstance resolves the dataPlatformInstance aspect.
func (r *datasetResolver) DataPlatformInstance(ctx context.Context, obj *datasetT) (*model.DataPlatformInstance, error) {
	p, err := aspectOf[models.DataPlatformInstance](ctx, r.loaderOf(ctx), obj.Urn, "dataPlatformInstance")
	if err != nil || p == nil || p.Instance == nil {
		return nil, err
	}
	return &model.DataPlatformInstance{Urn: *p.Instance, Type: model.EntityTypeDataPlatformInstance, Platform: &model.DataPlatform{Urn: p.Platform}, InstanceID: urnPart(*p.Instance, 1)}, nil
}

// Name is the dataset's key name.
func (r *datasetResolver) Name(_ context.Context, obj *datasetT) (string, error) {
	return urnPart(obj.Urn, 1), nil
}

// Origin is the dataset's environment.
func (r *datasetResolver) Origin(_ context.Context, obj *datasetT) (model.FabricType, error) {
	return fabric(urnPart(obj.Urn, 2)), nil
}

func fabric(s string) model.FabricType {
	if f := model.FabricType(strings.ToUpper(s)); f.IsValid() {
		return f
	}
	return model.FabricTypeProd
}

// Description is datasetProperties.description.
func (r *datasetResolver) Description(ctx context.Context, obj *datasetT) (*string, error) {
	p, err := aspectOf[models.DatasetProperties](ctx, r.loaderOf(ctx), obj.Urn, "datasetProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return p.Description, nil
}

// Properties resolves datasetProperties.
func (r *datasetResolver) Properties(ctx context.Context, obj *datasetT) (*model.DatasetProperties, error) {
	p, err := aspectOf[models.DatasetProperties](ctx, r.loaderOf(ctx), obj.Urn, "datasetProperties")
	if err != nil || p == nil {
		return nil, err
	}
	name := deref(p.Name)
	if name == "" {
		name = urnPart(obj.Urn, 1)
	}
	out := &model.DatasetProperties{
		Name: name, QualifiedName: p.QualifiedName, Description: p.Description, Origin: fabric(urnPart(obj.Urn, 2)),
		ExternalURL: p.ExternalUrl, CustomProperties: customProperties(p.CustomProperties, obj.Urn),
	}
	if p.Created != nil {
		out.Created = &p.Created.Time
	}
	if p.LastModified != nil {
		out.LastModified = &p.LastModified.Time
	}
	return out, nil
}

// EditableProperties resolves editableDatasetProperties.
func (r *datasetResolver) EditableProperties(ctx context.Context, obj *datasetT) (*model.DatasetEditableProperties, error) {
	p, err := aspectOf[models.EditableDatasetProperties](ctx, r.loaderOf(ctx), obj.Urn, "editableDatasetProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.DatasetEditableProperties{Name: p.Name, Description: p.Description}, nil
}

// SchemaMetadata resolves schemaMetadata, the latest or the given version.
func (r *datasetResolver) SchemaMetadata(ctx context.Context, obj *datasetT, version *int64) (*model.SchemaMetadata, error) {
	l := r.loaderOf(ctx)
	var s *models.SchemaMetadata
	var err error
	if v := deref(version); v != 0 {
		a, aerr := r.store.AspectVersion(ctx, obj.Urn, "schemaMetadata", v)
		if aerr != nil {
			return nil, notFoundIsNil(aerr)
		}
		s = new(models.SchemaMetadata)
		if err := jsonUnmarshal(a.Value, s); err != nil {
			return nil, err
		}
	} else if s, err = aspectOf[models.SchemaMetadata](ctx, l, obj.Urn, "schemaMetadata"); err != nil || s == nil {
		return nil, err
	}
	out := &model.SchemaMetadata{
		AspectVersion: version, DatasetUrn: ptr(obj.Urn), Name: s.SchemaName, PlatformUrn: s.Platform, Version: s.Version,
		Cluster: s.Cluster, Hash: s.Hash, PrimaryKeys: s.PrimaryKeys, Fields: make([]*model.SchemaField, len(s.Fields)),
	}
	if s.Created != nil {
		out.CreatedAt = &s.Created.Time
	}
	var tags, terms []string
	for i := range s.Fields {
		f := &s.Fields[i]
		mf := &model.SchemaField{
			FieldPath: f.FieldPath, JSONPath: f.JsonPath, Label: f.Label, Nullable: deref(f.Nullable), Description: f.Description,
			Type: fieldType(f.Type), NativeDataType: nonEmpty(f.NativeDataType), Recursive: deref(f.Recursive),
			IsPartOfKey: f.IsPartOfKey, IsPartitioningKey: f.IsPartitioningKey, JSONProps: f.JsonProps,
		}
		if f.GlobalTags != nil {
			mf.GlobalTags = fieldTags(f.GlobalTags, obj.Urn, &tags)
		}
		if f.GlossaryTerms != nil {
			mf.GlossaryTerms = fieldTerms(f.GlossaryTerms, obj.Urn, &terms)
		}
		out.Fields[i] = mf
	}
	l.prime(ctx, append(tags, terms...))
	return out, nil
}

// EditableSchemaMetadata resolves editableSchemaMetadata: the column-level
// descriptions, tags and terms written through the API.
func (r *datasetResolver) EditableSchemaMetadata(ctx context.Context, obj *datasetT) (*model.EditableSchemaMetadata, error) {
	l := r.loaderOf(ctx)
	s, err := aspectOf[models.EditableSchemaMetadata](ctx, l, obj.Urn, "editableSchemaMetadata")
	if err != nil || s == nil {
		return nil, err
	}
	out := &model.EditableSchemaMetadata{EditableSchemaFieldInfo: make([]*model.EditableSchemaFieldInfo, len(s.EditableSchemaFieldInfo))}
	var tags, terms []string
	for i, f := range s.EditableSchemaFieldInfo {
		mf := &model.EditableSchemaFieldInfo{FieldPath: f.FieldPath, Description: f.Description}
		if f.GlobalTags != nil {
			mf.GlobalTags = fieldTags(f.GlobalTags, obj.Urn, &tags)
		}
		if f.GlossaryTerms != nil {
			mf.GlossaryTerms = fieldTerms(f.GlossaryTerms, obj.Urn, &terms)
		}
		out.EditableSchemaFieldInfo[i] = mf
	}
	l.prime(ctx, append(tags, terms...))
	return out, nil
}

func fieldTags(g *models.GlobalTags, urn string, urns *[]string) *model.GlobalTags {
	out := &model.GlobalTags{Tags: make([]*model.TagAssociation, len(g.Tags))}
	for i, t := range g.Tags {
		out.Tags[i] = &model.TagAssociation{Tag: &model.Tag{Urn: t.Tag}, AssociatedUrn: urn, Context: t.Context}
		*urns = append(*urns, t.Tag)
	}
	return out
}

func fieldTerms(g *models.GlossaryTerms, urn string, urns *[]string) *model.GlossaryTerms {
	out := &model.GlossaryTerms{Terms: make([]*model.GlossaryTermAssociation, len(g.Terms))}
	for i, t := range g.Terms {
		out.Terms[i] = &model.GlossaryTermAssociation{Term: &model.GlossaryTerm{Urn: t.Urn}, AssociatedUrn: urn, Context: t.Context}
		*urns = append(*urns, t.Urn)
	}
	return out
}

// fieldType maps the schema field type union to DataHub's GraphQL enum.
func fieldType(t models.SchemaFieldDataType) model.SchemaFieldDataType {
	u := t.Type
	switch {
	case u.BooleanType != nil:
		return model.SchemaFieldDataTypeBoolean
	case u.FixedType != nil:
		return model.SchemaFieldDataTypeFixed
	case u.StringType != nil:
		return model.SchemaFieldDataTypeString
	case u.BytesType != nil:
		return model.SchemaFieldDataTypeBytes
	case u.NumberType != nil:
		return model.SchemaFieldDataTypeNumber
	case u.DateType != nil:
		return model.SchemaFieldDataTypeDate
	case u.TimeType != nil:
		return model.SchemaFieldDataTypeTime
	case u.EnumType != nil:
		return model.SchemaFieldDataTypeEnum
	case u.MapType != nil:
		return model.SchemaFieldDataTypeMap
	case u.ArrayType != nil:
		return model.SchemaFieldDataTypeArray
	case u.UnionType != nil:
		return model.SchemaFieldDataTypeUnion
	case u.RecordType != nil:
		return model.SchemaFieldDataTypeStruct
	}
	return model.SchemaFieldDataTypeNull
}

// --- Chart and Dashboard ---

// Tool is the chart's tool, from its key.
func (r *chartResolver) Tool(_ context.Context, obj *chartT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// ChartID is the chart's id, from its key.
func (r *chartResolver) ChartID(_ context.Context, obj *chartT) (string, error) {
	return urnPart(obj.Urn, 1), nil
}

// Properties resolves chartInfo.
func (r *chartResolver) Properties(ctx context.Context, obj *chartT) (*model.ChartProperties, error) {
	c, err := aspectOf[models.ChartInfo](ctx, r.loaderOf(ctx), obj.Urn, "chartInfo")
	if err != nil || c == nil {
		return nil, err
	}
	out := &model.ChartProperties{
		Name: c.Title, Description: nonEmpty(c.Description), ExternalURL: c.ExternalUrl, LastRefreshed: c.LastRefreshed,
		Created: auditStamp(c.LastModified.Created), LastModified: auditStamp(c.LastModified.LastModified),
		CustomProperties: customProperties(c.CustomProperties, obj.Urn),
	}
	if c.Type != nil {
		out.Type = ptr(string(*c.Type))
	}
	if c.Access != nil {
		out.Access = ptr(string(*c.Access))
	}
	return out, nil
}

// Info is the deprecated name of Properties.
func (r *chartResolver) Info(ctx context.Context, obj *chartT) (*model.ChartProperties, error) {
	return r.Properties(ctx, obj)
}

// EditableProperties resolves editableChartProperties.
func (r *chartResolver) EditableProperties(ctx context.Context, obj *chartT) (*model.ChartEditableProperties, error) {
	p, err := aspectOf[models.EditableChartProperties](ctx, r.loaderOf(ctx), obj.Urn, "editableChartProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.ChartEditableProperties{Description: p.Description}, nil
}

// Tool is the dashboard's tool, from its key.
func (r *dashboardResolver) Tool(_ context.Context, obj *dashboardT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// DashboardID is the dashboard's id, from its key.
func (r *dashboardResolver) DashboardID(_ context.Context, obj *dashboardT) (string, error) {
	return urnPart(obj.Urn, 1), nil
}

// Properties resolves dashboardInfo.
func (r *dashboardResolver) Properties(ctx context.Context, obj *dashboardT) (*model.DashboardProperties, error) {
	d, err := aspectOf[models.DashboardInfo](ctx, r.loaderOf(ctx), obj.Urn, "dashboardInfo")
	if err != nil || d == nil {
		return nil, err
	}
	out := &model.DashboardProperties{
		Name: d.Title, Description: nonEmpty(d.Description), ExternalURL: d.ExternalUrl, LastRefreshed: d.LastRefreshed,
		Created: auditStamp(d.LastModified.Created), LastModified: auditStamp(d.LastModified.LastModified),
		CustomProperties: customProperties(d.CustomProperties, obj.Urn),
	}
	if d.Access != nil {
		out.Access = ptr(string(*d.Access))
	}
	return out, nil
}

// Info is the deprecated name of Properties.
func (r *dashboardResolver) Info(ctx context.Context, obj *dashboardT) (*model.DashboardProperties, error) {
	return r.Properties(ctx, obj)
}

// EditableProperties resolves editableDashboardProperties.
func (r *dashboardResolver) EditableProperties(ctx context.Context, obj *dashboardT) (*model.DashboardEditableProperties, error) {
	p, err := aspectOf[models.EditableDashboardProperties](ctx, r.loaderOf(ctx), obj.Urn, "editableDashboardProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.DashboardEditableProperties{Description: p.Description}, nil
}

// --- DataFlow and DataJob ---

// Orchestrator is the flow's orchestrator, from its key.
func (r *dataFlowResolver) Orchestrator(_ context.Context, obj *dataFlowT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// FlowID is the flow's id, from its key.
func (r *dataFlowResolver) FlowID(_ context.Context, obj *dataFlowT) (string, error) {
	return urnPart(obj.Urn, 1), nil
}

// Cluster is the flow's cluster, from its key.
func (r *dataFlowResolver) Cluster(_ context.Context, obj *dataFlowT) (string, error) {
	return urnPart(obj.Urn, 2), nil
}

// Properties resolves dataFlowInfo.
func (r *dataFlowResolver) Properties(ctx context.Context, obj *dataFlowT) (*model.DataFlowProperties, error) {
	d, err := aspectOf[models.DataFlowInfo](ctx, r.loaderOf(ctx), obj.Urn, "dataFlowInfo")
	if err != nil || d == nil {
		return nil, err
	}
	return &model.DataFlowProperties{Name: d.Name, Description: d.Description, Project: d.Project, ExternalURL: d.ExternalUrl, CustomProperties: customProperties(d.CustomProperties, obj.Urn)}, nil
}

// EditableProperties resolves editableDataFlowProperties.
func (r *dataFlowResolver) EditableProperties(ctx context.Context, obj *dataFlowT) (*model.DataFlowEditableProperties, error) {
	p, err := aspectOf[models.EditableDataFlowProperties](ctx, r.loaderOf(ctx), obj.Urn, "editableDataFlowProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.DataFlowEditableProperties{Description: p.Description}, nil
}

// JobID is the job's id, from its key.
func (r *dataJobResolver) JobID(_ context.Context, obj *dataJobT) (string, error) {
	return urnPart(obj.Urn, 1), nil
}

// DataFlow is the job's flow, from its key.
func (r *dataJobResolver) DataFlow(_ context.Context, obj *dataJobT) (*model.DataFlow, error) {
	if f := urnPart(obj.Urn, 0); f != "" {
		return &model.DataFlow{Urn: f}, nil
	}
	return nil, nil
}

// Properties resolves dataJobInfo.
func (r *dataJobResolver) Properties(ctx context.Context, obj *dataJobT) (*model.DataJobProperties, error) {
	d, err := aspectOf[models.DataJobInfo](ctx, r.loaderOf(ctx), obj.Urn, "dataJobInfo")
	if err != nil || d == nil {
		return nil, err
	}
	return &model.DataJobProperties{Name: d.Name, Description: d.Description, ExternalURL: d.ExternalUrl, CustomProperties: customProperties(d.CustomProperties, obj.Urn)}, nil
}

// EditableProperties resolves editableDataJobProperties.
func (r *dataJobResolver) EditableProperties(ctx context.Context, obj *dataJobT) (*model.DataJobEditableProperties, error) {
	p, err := aspectOf[models.EditableDataJobProperties](ctx, r.loaderOf(ctx), obj.Urn, "editableDataJobProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.DataJobEditableProperties{Description: p.Description}, nil
}

// --- MLModel ---

// Name is the model's key name.
func (r *mlModelResolver) Name(_ context.Context, obj *mlModelT) (string, error) {
	return urnPart(obj.Urn, 1), nil
}

// Origin is the model's environment.
func (r *mlModelResolver) Origin(_ context.Context, obj *mlModelT) (model.FabricType, error) {
	return fabric(urnPart(obj.Urn, 2)), nil
}

// Description is mlModelProperties.description.
func (r *mlModelResolver) Description(ctx context.Context, obj *mlModelT) (*string, error) {
	p, err := aspectOf[models.MLModelProperties](ctx, r.loaderOf(ctx), obj.Urn, "mlModelProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return p.Description, nil
}

// Properties resolves mlModelProperties.
func (r *mlModelResolver) Properties(ctx context.Context, obj *mlModelT) (*model.MLModelProperties, error) {
	p, err := aspectOf[models.MLModelProperties](ctx, r.loaderOf(ctx), obj.Urn, "mlModelProperties")
	if err != nil || p == nil {
		return nil, err
	}
	out := &model.MLModelProperties{Name: p.Name, Description: p.Description, Date: p.Date, Type: p.Type, ExternalURL: p.ExternalUrl, CustomProperties: customProperties(p.CustomProperties, obj.Urn)}
	if p.Version != nil {
		out.Version = p.Version.VersionTag
	}
	return out, nil
}

// EditableProperties resolves editableMlModelProperties.
func (r *mlModelResolver) EditableProperties(ctx context.Context, obj *mlModelT) (*model.MLModelEditableProperties, error) {
	p, err := aspectOf[models.EditableMLModelProperties](ctx, r.loaderOf(ctx), obj.Urn, "editableMlModelProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.MLModelEditableProperties{Description: p.Description}, nil
}

// --- Container and Domain ---

// Properties resolves containerProperties.
func (r *containerResolver) Properties(ctx context.Context, obj *containerT) (*model.ContainerProperties, error) {
	p, err := aspectOf[models.ContainerProperties](ctx, r.loaderOf(ctx), obj.Urn, "containerProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.ContainerProperties{Name: p.Name, Description: p.Description, ExternalURL: p.ExternalUrl, QualifiedName: p.QualifiedName, CustomProperties: customProperties(p.CustomProperties, obj.Urn)}, nil
}

// EditableProperties resolves editableContainerProperties.
func (r *containerResolver) EditableProperties(ctx context.Context, obj *containerT) (*model.ContainerEditableProperties, error) {
	p, err := aspectOf[models.EditableContainerProperties](ctx, r.loaderOf(ctx), obj.Urn, "editableContainerProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.ContainerEditableProperties{Description: p.Description}, nil
}

// ID is the domain's id, from its key.
func (r *domainResolver) ID(_ context.Context, obj *domainT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// Properties resolves domainProperties.
func (r *domainResolver) Properties(ctx context.Context, obj *domainT) (*model.DomainProperties, error) {
	p, err := aspectOf[models.DomainProperties](ctx, r.loaderOf(ctx), obj.Urn, "domainProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.DomainProperties{Name: p.Name, Description: p.Description}, nil
}

// --- Tag ---

// Name is tagProperties.name, else the tag's id.
func (r *tagResolver) Name(ctx context.Context, obj *tagT) (string, error) {
	p, err := aspectOf[models.TagProperties](ctx, r.loaderOf(ctx), obj.Urn, "tagProperties")
	if err != nil {
		return "", err
	}
	if p != nil && p.Name != "" {
		return p.Name, nil
	}
	return urnPart(obj.Urn, 0), nil
}

// Description is tagProperties.description.
func (r *tagResolver) Description(ctx context.Context, obj *tagT) (*string, error) {
	p, err := aspectOf[models.TagProperties](ctx, r.loaderOf(ctx), obj.Urn, "tagProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return p.Description, nil
}

// Properties resolves tagProperties.
func (r *tagResolver) Properties(ctx context.Context, obj *tagT) (*model.TagProperties, error) {
	p, err := aspectOf[models.TagProperties](ctx, r.loaderOf(ctx), obj.Urn, "tagProperties")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.TagProperties{Name: p.Name, Description: p.Description, ColorHex: p.ColorHex}, nil
}

// --- Glossary ---

// Name is the term's id, as DataHub's deprecated GlossaryTerm.name.
func (r *glossaryTermResolver) Name(_ context.Context, obj *glossaryTermT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// HierarchicalName is the term's id.
func (r *glossaryTermResolver) HierarchicalName(_ context.Context, obj *glossaryTermT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// Properties resolves glossaryTermInfo.
func (r *glossaryTermResolver) Properties(ctx context.Context, obj *glossaryTermT) (*model.GlossaryTermProperties, error) {
	t, err := aspectOf[models.GlossaryTermInfo](ctx, r.loaderOf(ctx), obj.Urn, "glossaryTermInfo")
	if err != nil || t == nil {
		return nil, err
	}
	name := deref(t.Name)
	if name == "" {
		name = urnPart(obj.Urn, 0)
	}
	return &model.GlossaryTermProperties{
		Name: name, Description: ptr(t.Definition), Definition: t.Definition, TermSource: t.TermSource,
		SourceRef: t.SourceRef, SourceURL: t.SourceUrl, CustomProperties: customProperties(t.CustomProperties, obj.Urn),
	}, nil
}

// GlossaryTermInfo resolves glossaryTermInfo in its deprecated shape, whose
// description is the definition.
func (r *glossaryTermResolver) GlossaryTermInfo(ctx context.Context, obj *glossaryTermT) (*model.GlossaryTermInfo, error) {
	t, err := aspectOf[models.GlossaryTermInfo](ctx, r.loaderOf(ctx), obj.Urn, "glossaryTermInfo")
	if err != nil || t == nil {
		return nil, err
	}
	name := t.Name
	if deref(name) == "" {
		name = ptr(urnPart(obj.Urn, 0))
	}
	return &model.GlossaryTermInfo{
		ID: t.Id, Name: name, Description: ptr(t.Definition), Definition: t.Definition, TermSource: t.TermSource,
		SourceRef: t.SourceRef, SourceURL: t.SourceUrl, CustomProperties: customProperties(t.CustomProperties, obj.Urn),
	}, nil
}

// ParentNodes walks up the term's parent nodes.
func (r *glossaryTermResolver) ParentNodes(ctx context.Context, obj *glossaryTermT) (*model.ParentNodesResult, error) {
	t, err := aspectOf[models.GlossaryTermInfo](ctx, r.loaderOf(ctx), obj.Urn, "glossaryTermInfo")
	if err != nil {
		return nil, err
	}
	var parent string
	if t != nil {
		parent = deref(t.ParentNode)
	}
	return r.parentNodes(ctx, parent)
}

// Properties resolves glossaryNodeInfo.
func (r *glossaryNodeResolver) Properties(ctx context.Context, obj *glossaryNodeT) (*model.GlossaryNodeProperties, error) {
	n, err := aspectOf[models.GlossaryNodeInfo](ctx, r.loaderOf(ctx), obj.Urn, "glossaryNodeInfo")
	if err != nil || n == nil {
		return nil, err
	}
	name := deref(n.Name)
	if name == "" {
		name = urnPart(obj.Urn, 0)
	}
	return &model.GlossaryNodeProperties{Name: name, Description: ptr(n.Definition), CustomProperties: customProperties(n.CustomProperties, obj.Urn)}, nil
}

// ParentNodes walks up the node's parent nodes.
func (r *glossaryNodeResolver) ParentNodes(ctx context.Context, obj *glossaryNodeT) (*model.ParentNodesResult, error) {
	n, err := aspectOf[models.GlossaryNodeInfo](ctx, r.loaderOf(ctx), obj.Urn, "glossaryNodeInfo")
	if err != nil {
		return nil, err
	}
	var parent string
	if n != nil {
		parent = deref(n.ParentNode)
	}
	return r.parentNodes(ctx, parent)
}

// parentNodes lists parent and its ancestors, nearest first; a cycle ends
// the walk.
func (r *Resolver) parentNodes(ctx context.Context, parent string) (*model.ParentNodesResult, error) {
	out := &model.ParentNodesResult{Nodes: []*model.GlossaryNode{}}
	seen := map[string]bool{}
	for parent != "" && !seen[parent] {
		seen[parent] = true
		out.Nodes = append(out.Nodes, &model.GlossaryNode{Urn: parent})
		n, err := aspectOf[models.GlossaryNodeInfo](ctx, r.loaderOf(ctx), parent, "glossaryNodeInfo")
		if err != nil {
			return nil, err
		}
		if n == nil {
			break
		}
		parent = deref(n.ParentNode)
	}
	out.Count = len(out.Nodes)
	return out, nil
}

// --- DataPlatform ---

// Name is the platform's key name.
func (r *dataPlatformResolver) Name(_ context.Context, obj *dataPlatformT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// DisplayName is dataPlatformInfo.displayName.
func (r *dataPlatformResolver) DisplayName(ctx context.Context, obj *dataPlatformT) (*string, error) {
	p, err := aspectOf[models.DataPlatformInfo](ctx, r.loaderOf(ctx), obj.Urn, "dataPlatformInfo")
	if err != nil || p == nil {
		return nil, err
	}
	return p.DisplayName, nil
}

// Properties resolves dataPlatformInfo.
func (r *dataPlatformResolver) Properties(ctx context.Context, obj *dataPlatformT) (*model.DataPlatformProperties, error) {
	p, err := aspectOf[models.DataPlatformInfo](ctx, r.loaderOf(ctx), obj.Urn, "dataPlatformInfo")
	if err != nil || p == nil {
		return nil, err
	}
	return &model.DataPlatformProperties{Type: string(p.Type), DisplayName: p.DisplayName, DatasetNameDelimiter: p.DatasetNameDelimiter, LogoURL: p.LogoUrl}, nil
}

// --- CorpUser and CorpGroup ---

// Username is the user's id.
func (r *corpUserResolver) Username(_ context.Context, obj *corpUserT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// Info resolves corpUserInfo in its deprecated shape.
func (r *corpUserResolver) Info(ctx context.Context, obj *corpUserT) (*model.CorpUserInfo, error) {
	u, err := aspectOf[models.CorpUserInfo](ctx, r.loaderOf(ctx), obj.Urn, "corpUserInfo")
	if err != nil || u == nil {
		return nil, err
	}
	return &model.CorpUserInfo{
		Active: u.Active, DisplayName: u.DisplayName, Title: u.Title, Email: u.Email, ManagerUrn: u.ManagerUrn,
		DepartmentID: u.DepartmentId, DepartmentName: u.DepartmentName, FirstName: u.FirstName, LastName: u.LastName,
		FullName: u.FullName, CountryCode: u.CountryCode, CustomProperties: customProperties(u.CustomProperties, obj.Urn),
	}, nil
}

// Properties resolves corpUserInfo.
func (r *corpUserResolver) Properties(ctx context.Context, obj *corpUserT) (*model.CorpUserProperties, error) {
	u, err := aspectOf[models.CorpUserInfo](ctx, r.loaderOf(ctx), obj.Urn, "corpUserInfo")
	if err != nil || u == nil {
		return nil, err
	}
	return &model.CorpUserProperties{
		Active: u.Active, DisplayName: u.DisplayName, Title: u.Title, Email: u.Email, DepartmentName: u.DepartmentName,
		FirstName: u.FirstName, LastName: u.LastName, FullName: u.FullName, CountryCode: u.CountryCode,
		CustomProperties: customProperties(u.CustomProperties, obj.Urn),
	}, nil
}

// EditableProperties resolves corpUserEditableInfo.
func (r *corpUserResolver) EditableProperties(ctx context.Context, obj *corpUserT) (*model.CorpUserEditableProperties, error) {
	u, err := aspectOf[models.CorpUserEditableInfo](ctx, r.loaderOf(ctx), obj.Urn, "corpUserEditableInfo")
	if err != nil || u == nil {
		return nil, err
	}
	return &model.CorpUserEditableProperties{
		DisplayName: u.DisplayName, Title: u.Title, AboutMe: u.AboutMe, Teams: u.Teams, Skills: u.Skills,
		PictureLink: u.PictureLink, Slack: u.Slack, Phone: u.Phone, Email: u.Email,
	}, nil
}

// Status resolves corpUserStatus.
func (r *corpUserResolver) Status(ctx context.Context, obj *corpUserT) (*model.CorpUserStatus, error) {
	s, err := aspectOf[models.CorpUserStatus](ctx, r.loaderOf(ctx), obj.Urn, "corpUserStatus")
	if err != nil || s == nil {
		return nil, err
	}
	st := model.CorpUserStatus(strings.ToUpper(s.Status))
	if !st.IsValid() {
		return nil, nil
	}
	return &st, nil
}

// IsNativeUser reports whether the user logs in with a password stored
// here, as DataHub computes it from the corpUserCredentials aspect: null
// when the user has none. The read APIs never see that aspect, so the auth
// service answers.
func (r *corpUserResolver) IsNativeUser(ctx context.Context, obj *corpUserT) (*bool, error) {
	return r.loaderOf(ctx).isNative(ctx, obj.Urn)
}

// Name is the group's id.
func (r *corpGroupResolver) Name(_ context.Context, obj *corpGroupT) (string, error) {
	return urnPart(obj.Urn, 0), nil
}

// Properties resolves corpGroupInfo.
func (r *corpGroupResolver) Properties(ctx context.Context, obj *corpGroupT) (*model.CorpGroupProperties, error) {
	g, err := aspectOf[models.CorpGroupInfo](ctx, r.loaderOf(ctx), obj.Urn, "corpGroupInfo")
	if err != nil || g == nil {
		return nil, err
	}
	return &model.CorpGroupProperties{DisplayName: g.DisplayName, Description: g.Description, Email: g.Email, Slack: g.Slack}, nil
}

// EditableProperties resolves corpGroupEditableInfo.
func (r *corpGroupResolver) EditableProperties(ctx context.Context, obj *corpGroupT) (*model.CorpGroupEditableProperties, error) {
	g, err := aspectOf[models.CorpGroupEditableInfo](ctx, r.loaderOf(ctx), obj.Urn, "corpGroupEditableInfo")
	if err != nil || g == nil {
		return nil, err
	}
	return &model.CorpGroupEditableProperties{Description: g.Description, Slack: g.Slack, Email: g.Email, PictureLink: g.PictureLink}, nil
}

// Info resolves corpGroupInfo in its deprecated shape.
func (r *corpGroupResolver) Info(ctx context.Context, obj *corpGroupT) (*model.CorpGroupInfo, error) {
	l := r.loaderOf(ctx)
	g, err := aspectOf[models.CorpGroupInfo](ctx, l, obj.Urn, "corpGroupInfo")
	if err != nil || g == nil {
		return nil, err
	}
	users := func(urns []string) []*model.CorpUser {
		out := make([]*model.CorpUser, len(urns))
		for i, u := range urns {
			out[i] = &model.CorpUser{Urn: u}
		}
		return out
	}
	l.prime(ctx, append(append([]string(nil), g.Admins...), g.Members...))
	return &model.CorpGroupInfo{DisplayName: g.DisplayName, Description: g.Description, Email: g.Email, Admins: users(g.Admins), Members: users(g.Members), Groups: g.Groups}, nil
}
