package graphql

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/graphql/model"
)

// propertyValue converts one member of DataHub's PropertyValue union
// ({"string": s} or {"double": n}).
func propertyValue(v any) model.PropertyValue {
	m, _ := v.(map[string]any)
	if s, ok := m["string"].(string); ok {
		return &model.StringValue{StringValue: s}
	}
	if n, ok := m["double"]; ok {
		f, _ := n.(json.Number).Float64()
		return &model.NumberValue{NumberValue: f}
	}
	return nil
}

// AllowedValueValue is the allowed value of a structured property.
func (r *computed) AllowedValueValue(_ context.Context, obj *model.AllowedValue) (model.PropertyValue, error) {
	return propertyValue(member(obj, "value")), nil
}

// StructuredPropertiesEntryValues are the values of a structured property
// assignment.
func (r *computed) StructuredPropertiesEntryValues(_ context.Context, obj *model.StructuredPropertiesEntry) ([]model.PropertyValue, error) {
	list, _ := member(obj, "values").([]any)
	out := make([]model.PropertyValue, 0, len(list))
	for _, v := range list {
		if pv := propertyValue(v); pv != nil {
			out = append(out, pv)
		}
	}
	return out, nil
}

// StructuredPropertiesEntryValueEntities are the entities the URN values of
// a structured property assignment name.
func (r *computed) StructuredPropertiesEntryValueEntities(ctx context.Context, obj *model.StructuredPropertiesEntry) ([]model.Entity, error) {
	list, _ := member(obj, "values").([]any)
	out := []model.Entity{}
	for _, v := range list {
		m, _ := v.(map[string]any)
		s, _ := m["string"].(string)
		if e := model.EntityOf(s); e != nil {
			r.loaderOf(ctx).Want(s)
			out = append(out, e)
		}
	}
	return out, nil
}

// Aspects lists the entity's stored aspects as JSON, those named when names
// are given. No aspect of catalogd's registry is rendered automatically, so
// autoRenderOnly lists none.
func (r *computed) Aspects(ctx context.Context, obj model.Entity, in *model.AspectParams) ([]*model.RawAspect, error) {
	if in != nil && deref(in.AutoRenderOnly) {
		return []*model.RawAspect{}, nil
	}
	e, err := r.loaderOf(ctx).get(ctx, obj.EntityURN())
	if err != nil {
		return nil, err
	}
	var want map[string]bool
	if in != nil && len(in.AspectNames) > 0 {
		want = map[string]bool{}
		for _, n := range in.AspectNames {
			want[n] = true
		}
	}
	names := make([]string, 0, len(e.aspects))
	for n := range e.aspects {
		if want == nil || want[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]*model.RawAspect, len(names))
	for i, n := range names {
		out[i] = &model.RawAspect{AspectName: n, Payload: ptr(string(e.aspects[n].Value))}
	}
	return out, nil
}

// keywordSuffix is what persisted view filters may add to field names.
const keywordSuffix = ".keyword"

// DataHubViewDefinitionFilter shows a view's stored filter as DataHub's
// views are edited: one conjunction as AND of its criteria, else an OR of
// single-criterion conjunctions (an OR of larger ones reads as no filters,
// as in DataHub).
func (r *computed) DataHubViewDefinitionFilter(_ context.Context, obj *model.DataHubViewDefinition) (*model.DataHubViewFilter, error) {
	f, _ := member(obj, "filter").(map[string]any)
	ors, _ := f["or"].([]any)
	criteria := func(v any) []any {
		m, _ := v.(map[string]any)
		a, _ := m["and"].([]any)
		return a
	}
	out := &model.DataHubViewFilter{Operator: model.LogicalOperatorOr, Filters: []*model.FacetFilter{}}
	if len(ors) == 1 {
		out.Operator = model.LogicalOperatorAnd
		for _, c := range criteria(ors[0]) {
			out.Filters = append(out.Filters, facetFilter(c))
		}
		return out, nil
	}
	for _, o := range ors {
		if len(criteria(o)) > 1 {
			return &model.DataHubViewFilter{Operator: model.LogicalOperatorOr, Filters: []*model.FacetFilter{}}, nil
		}
	}
	for _, o := range ors {
		if cs := criteria(o); len(cs) == 1 {
			out.Filters = append(out.Filters, facetFilter(cs[0]))
		}
	}
	return out, nil
}

func facetFilter(v any) *model.FacetFilter {
	m, _ := v.(map[string]any)
	out := &model.FacetFilter{Field: strings.TrimSuffix(jsonString(m, "field"), keywordSuffix), Values: []string{}}
	vals, _ := m["values"].([]any)
	for _, x := range vals {
		if s, ok := x.(string); ok {
			out.Values = append(out.Values, s)
		}
	}
	if c := model.FilterOperator(jsonString(m, "condition")); c.IsValid() {
		out.Condition = &c
	}
	if n, ok := m["negated"].(bool); ok {
		out.Negated = &n
	}
	return out
}

// dataTypes maps DataHub's standard data type URNs to the enum.
var dataTypes = map[string]model.StdDataType{
	"urn:li:dataType:datahub.string": model.StdDataTypeString, "urn:li:dataType:datahub.number": model.StdDataTypeNumber,
	"urn:li:dataType:datahub.urn": model.StdDataTypeUrn, "urn:li:dataType:datahub.rich_text": model.StdDataTypeRichText,
	"urn:li:dataType:datahub.date": model.StdDataTypeDate,
}

// DataTypeInfoType is the standard type a data type URN names, OTHER for
// others.
func (r *computed) DataTypeInfoType(_ context.Context, obj *model.DataTypeInfo) (model.StdDataType, error) {
	_, s := model.ValueOf(obj)
	if t, ok := dataTypes[s.URN()]; ok {
		return t, nil
	}
	return model.StdDataTypeOther, nil
}

// EntityTypeInfoType is the entity type an entity type URN
// (urn:li:entityType:datahub.<name>) names.
func (r *computed) EntityTypeInfoType(_ context.Context, obj *model.EntityTypeInfo) (model.EntityType, error) {
	_, s := model.ValueOf(obj)
	name := strings.TrimPrefix(urnPart(s.URN(), 0), "datahub.")
	if t, ok := model.EntityTypes[name]; ok {
		return t, nil
	}
	return model.EntityTypeOther, nil
}

// PostLastModified is the post's last modification time.
func (r *computed) PostLastModified(ctx context.Context, obj model.Entity) (*model.AuditStamp, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, obj.EntityURN(), "postInfo")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return model.NewAuditStamp(map[string]any{"time": m["lastModified"]}, model.NewScope(obj.EntityURN(), r.loaderOf(ctx), 0)), nil
}

// QuerySubjectDataset is the subject of a query when it is a dataset.
func (r *computed) QuerySubjectDataset(ctx context.Context, obj *model.QuerySubject) (*model.Dataset, error) {
	u, _ := member(obj, "entity").(string)
	if urnType(u) != "dataset" {
		return nil, nil
	}
	r.loaderOf(ctx).Want(u)
	return &model.Dataset{Urn: u}, nil
}

// QuerySubjectSchemaField is the subject of a query when it is a field.
func (r *computed) QuerySubjectSchemaField(ctx context.Context, obj *model.QuerySubject) (*model.SchemaFieldEntity, error) {
	u, _ := member(obj, "entity").(string)
	if urnType(u) != "schemaField" {
		return nil, nil
	}
	r.loaderOf(ctx).Want(u)
	return &model.SchemaFieldEntity{Urn: u}, nil
}

// ExecutionRequestSource is the ingestion source an execution request ran.
func (r *computed) ExecutionRequestSource(ctx context.Context, obj model.Entity) (*model.IngestionSource, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, obj.EntityURN(), "dataHubExecutionRequestInput")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	u := jsonString(m, "source", "ingestionSource")
	if u == "" {
		return nil, nil
	}
	return r.ingestionSource(ctx, u)
}

// calendarMillis are the lengths of DataHub's calendar intervals.
var calendarMillis = map[string]int64{
	"SECOND": 1000, "MINUTE": 60 * 1000, "HOUR": 3600 * 1000, "DAY": 24 * 3600 * 1000, "WEEK": 7 * 24 * 3600 * 1000,
	"MONTH": 30 * 24 * 3600 * 1000, "QUARTER": 90 * 24 * 3600 * 1000, "YEAR": 365 * 24 * 3600 * 1000,
}

// TimeWindowDurationMillis is the window's length in milliseconds.
func (r *computed) TimeWindowDurationMillis(_ context.Context, obj *model.TimeWindow) (int64, error) {
	l, _ := member(obj, "length").(map[string]any)
	n, ok := jsonInt(l["multiple"])
	if !ok {
		n = 1
	}
	return n * calendarMillis[jsonString(l, "unit")], nil
}

// DataHubViewDefinitionEntityTypes are the entity types a view shows: the
// stored entity type names as EntityType symbols, those without one left
// out.
func (r *computed) DataHubViewDefinitionEntityTypes(_ context.Context, obj *model.DataHubViewDefinition) ([]model.EntityType, error) {
	names, _ := member(obj, "entityTypes").([]any)
	out := []model.EntityType{}
	for _, n := range names {
		s, _ := n.(string)
		if t, ok := model.EntityTypes[s]; ok {
			out = append(out, t)
		} else if t := model.EntityType(s); t.IsValid() {
			out = append(out, t)
		}
	}
	return out, nil
}
