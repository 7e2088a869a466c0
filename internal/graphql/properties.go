package graphql

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// Structured properties: definitions (the structuredProperty entity, whose
// propertyDefinition and structuredPropertySettings aspects the mutations
// below write) and their values on assets (the structuredProperties aspect
// of the asset), which the search document indexes as one field per
// property.

// invalidSettings is DataHub's message for a hidden property shown somewhere.
const invalidSettings = "Cannot have property isHidden = true while other display location settings are also true."

// CreateStructuredProperty creates a structured property definition.
func (r *mutationResolver) CreateStructuredProperty(ctx context.Context, in model.CreateStructuredPropertyInput) (*model.StructuredPropertyEntity, error) {
	id := uuid.NewString()
	switch {
	case in.ID != nil && in.QualifiedName != nil && *in.ID != *in.QualifiedName:
		return nil, invalidf("Qualified name and the ID of a structured property must match")
	case in.QualifiedName != nil:
		id = *in.QualifiedName
	case in.ID != nil:
		id = *in.ID
	}
	if id == "" || strings.ContainsAny(id, " \t") {
		return nil, invalidf("Fully qualified structured property name cannot contain spaces")
	}
	urn := catalog.NewURN("structuredProperty", id)
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	if err := checkPropertyTypes(in.ValueType, in.EntityTypes, in.TypeQualifier); err != nil {
		return nil, err
	}
	if ok, err := r.loaderOf(ctx).exists(ctx, urn); err != nil {
		return nil, err
	} else if ok {
		return nil, invalidf("A structured property already exists with this urn")
	}
	st := stamp(ctx)
	def := models.StructuredPropertyDefinition{
		QualifiedName: id, DisplayName: in.DisplayName, Description: in.Description, Immutable: in.Immutable,
		ValueType: in.ValueType, EntityTypes: uniq(in.EntityTypes), Created: &st, LastModified: &st,
	}
	if in.TypeQualifier != nil && in.TypeQualifier.AllowedTypes != nil {
		def.TypeQualifier = map[string][]string{"allowedTypes": uniq(in.TypeQualifier.AllowedTypes)}
	}
	allowed, err := allowedValues(nil, in.AllowedValues)
	if err != nil {
		return nil, err
	}
	def.AllowedValues = allowed
	if in.Cardinality != nil {
		c := models.PropertyCardinality(*in.Cardinality)
		def.Cardinality = &c
	}
	var p proposals
	p.add(urn, "propertyDefinition", def)
	if in.Settings != nil {
		s := applySettings(models.StructuredPropertySettings{}, in.Settings)
		s.LastModified = &st
		if err := checkSettings(s); err != nil {
			return nil, err
		}
		p.add(urn, "structuredPropertySettings", s)
	}
	if p.err != nil {
		return nil, p.err
	}
	p.list[0].ChangeType = catalog.CreateEntity
	if err := r.write(ctx, p.list...); err != nil {
		if catalog.KindOf(err) == catalog.Conflict {
			return nil, invalidf("A structured property already exists with this urn")
		}
		return nil, err
	}
	return &model.StructuredPropertyEntity{Urn: urn}, nil
}

// UpdateStructuredProperty changes a definition the ways DataHub allows:
// new display name, description or immutability, more allowed values,
// entity types and allowed value types, single to multiple cardinality, and
// settings.
func (r *mutationResolver) UpdateStructuredProperty(ctx context.Context, in model.UpdateStructuredPropertyInput) (*model.StructuredPropertyEntity, error) {
	if err := r.mustExist(ctx, in.Urn, "structuredProperty"); err != nil {
		return nil, err
	}
	cur, err := r.loaderOf(ctx).Aspect(ctx, in.Urn, "propertyDefinition")
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, invalidf("Attempting to update a structured property with no definition aspect.")
	}
	var newTypes []string
	if in.TypeQualifier != nil {
		newTypes = in.TypeQualifier.NewAllowedTypes
	}
	for _, t := range append(slices.Clone(in.NewEntityTypes), newTypes...) {
		if !strings.HasPrefix(t, "urn:li:entityType:") {
			return nil, invalidf("%q is not an entity type URN (urn:li:entityType:datahub.<name>)", t)
		}
	}
	// A bad settings input fails the whole update before anything is
	// written.
	if in.Settings != nil {
		cur, err := r.loaderOf(ctx).Aspect(ctx, in.Urn, "structuredPropertySettings")
		if err != nil {
			return nil, err
		}
		var s models.StructuredPropertySettings
		if err := remarshal(orEmptyMap(cur), &s); err != nil {
			return nil, err
		}
		if err := checkSettings(applySettings(s, in.Settings)); err != nil {
			return nil, err
		}
	}
	var failed error
	var props []catalog.Proposal
	if in.DisplayName != nil || in.Description != nil || in.Immutable != nil || in.TypeQualifier != nil ||
		in.NewAllowedValues != nil || deref(in.SetCardinalityAsMultiple) || in.NewEntityTypes != nil {
		props = append(props, edited(in.Urn, "propertyDefinition", func(d *models.StructuredPropertyDefinition, found bool) bool {
			if !found {
				failed = invalidf("Attempting to update a structured property with no definition aspect.")
				return false
			}
			if in.DisplayName != nil {
				d.DisplayName = in.DisplayName
			}
			if in.Description != nil {
				d.Description = in.Description
			}
			if in.Immutable != nil {
				d.Immutable = in.Immutable
			}
			if in.TypeQualifier != nil && in.TypeQualifier.NewAllowedTypes != nil {
				if d.TypeQualifier == nil {
					d.TypeQualifier = map[string][]string{}
				}
				d.TypeQualifier["allowedTypes"] = uniq(append(d.TypeQualifier["allowedTypes"], in.TypeQualifier.NewAllowedTypes...))
			}
			if in.NewAllowedValues != nil {
				d.AllowedValues, failed = allowedValues(d.AllowedValues, in.NewAllowedValues)
			}
			if deref(in.SetCardinalityAsMultiple) {
				c := models.PropertyCardinalityMultiple
				d.Cardinality = &c
			}
			d.EntityTypes = uniq(append(d.EntityTypes, in.NewEntityTypes...))
			st := stamp(ctx)
			d.LastModified = &st
			return failed == nil
		}))
	}
	if in.Settings != nil {
		props = append(props, edited(in.Urn, "structuredPropertySettings", func(s *models.StructuredPropertySettings, _ bool) bool {
			next := applySettings(*s, in.Settings)
			if err := checkSettings(next); err != nil {
				failed = err // changed by another writer since the check above
				return false
			}
			if !sameSettings(*s, next) {
				st := stamp(ctx)
				next.LastModified = &st
			}
			*s = next
			return true
		}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	if failed != nil {
		return nil, failed
	}
	return &model.StructuredPropertyEntity{Urn: in.Urn}, nil
}

// DeleteStructuredProperty deletes a definition and, as every delete of
// a property does, its values on every asset.
func (r *mutationResolver) DeleteStructuredProperty(ctx context.Context, in model.DeleteStructuredPropertyInput) (bool, error) {
	if _, err := r.remove(ctx, in.Urn, "structuredProperty"); err != nil {
		return false, err
	}
	return true, nil
}

// withoutProperties removes the values of properties from an asset.
func withoutProperties(asset string, properties []string) catalog.Proposal {
	return edited(asset, "structuredProperties", func(v *models.StructuredProperties, found bool) bool {
		n := len(v.Properties)
		v.Properties = slices.DeleteFunc(v.Properties, func(a models.StructuredPropertyValueAssignment) bool {
			return slices.Contains(properties, a.PropertyUrn)
		})
		return found && len(v.Properties) != n
	})
}

// UpsertStructuredProperties sets the values of structured properties on
// an asset, checking each against its property's definition.
func (r *mutationResolver) UpsertStructuredProperties(ctx context.Context, in model.UpsertStructuredPropertiesInput) (*model.StructuredProperties, error) {
	asset, err := catalog.ParseURN(in.AssetUrn)
	if err != nil {
		return nil, err
	}
	// Schema fields need not exist before they get values.
	if asset.EntityType() != "schemaField" {
		if ok, err := r.loaderOf(ctx).exists(ctx, in.AssetUrn); err != nil {
			return nil, err
		} else if !ok {
			return nil, invalidf("Asset with provided urn %s does not exist", in.AssetUrn)
		}
	}
	values := map[string][]models.StructuredPropertyValueAssignmentValuesItem{}
	order := []string{}
	for _, p := range in.StructuredPropertyInputParams {
		vals, err := propertyValues(p)
		if err != nil {
			return nil, err
		}
		if _, ok := values[p.StructuredPropertyUrn]; !ok {
			order = append(order, p.StructuredPropertyUrn)
		}
		values[p.StructuredPropertyUrn] = vals
	}
	st := stamp(ctx)
	err = r.write(ctx, edited(in.AssetUrn, "structuredProperties", func(v *models.StructuredProperties, _ bool) bool {
		if v.Properties == nil {
			v.Properties = []models.StructuredPropertyValueAssignment{}
		}
		done := map[string]bool{}
		for i, a := range v.Properties {
			if vals, ok := values[a.PropertyUrn]; ok {
				v.Properties[i].Values, v.Properties[i].LastModified = vals, &st
				done[a.PropertyUrn] = true
			}
		}
		for _, u := range order {
			if !done[u] {
				v.Properties = append(v.Properties, models.StructuredPropertyValueAssignment{PropertyUrn: u, Values: values[u], Created: &st, LastModified: &st})
			}
		}
		return true
	}))
	if err != nil {
		return nil, err
	}
	return r.structuredProperties(ctx, in.AssetUrn)
}

// RemoveStructuredProperties removes the values of structured properties
// from an asset.
func (r *mutationResolver) RemoveStructuredProperties(ctx context.Context, in model.RemoveStructuredPropertiesInput) (*model.StructuredProperties, error) {
	if ok, err := r.loaderOf(ctx).exists(ctx, in.AssetUrn); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("Asset with provided urn %s does not exist", in.AssetUrn)
	}
	if err := r.write(ctx, withoutProperties(in.AssetUrn, in.StructuredPropertyUrns)); err != nil {
		return nil, err
	}
	return r.structuredProperties(ctx, in.AssetUrn)
}

// structuredProperties answers the asset's structuredProperties aspect as
// it is now.
func (r *Resolver) structuredProperties(ctx context.Context, asset string) (*model.StructuredProperties, error) {
	l := r.loaderOf(ctx)
	l.forget(asset)
	v, err := l.Aspect(ctx, asset, "structuredProperties")
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = map[string]any{"properties": []any{}}
	}
	return model.NewStructuredProperties(v, model.NewScope(asset, l, 0)), nil
}

// propertyValues turns the input values of a property into stored ones.
// The write path checks them against the property's definition.
func propertyValues(p *model.StructuredPropertyInputParams) ([]models.StructuredPropertyValueAssignmentValuesItem, error) {
	out := make([]models.StructuredPropertyValueAssignmentValuesItem, 0, len(p.Values))
	for _, in := range p.Values {
		switch {
		case in.StringValue != nil && in.NumberValue != nil:
			return nil, invalidf("A value of %s is either stringValue or numberValue, not both", p.StructuredPropertyUrn)
		case in.StringValue == nil && in.NumberValue == nil:
			return nil, invalidf("A value of %s needs stringValue or numberValue", p.StructuredPropertyUrn)
		}
		out = append(out, models.StructuredPropertyValueAssignmentValuesItem{String: in.StringValue, Double: in.NumberValue})
	}
	return out, nil
}

// checkPropertyTypes checks the type URNs of a new definition.
func checkPropertyTypes(valueType string, entityTypes []string, q *model.TypeQualifierInput) error {
	if !strings.HasPrefix(valueType, "urn:li:dataType:") {
		return invalidf("valueType %q is not a data type URN (urn:li:dataType:datahub.<type>)", valueType)
	}
	if len(entityTypes) == 0 {
		return invalidf("entityTypes must name at least one entity type")
	}
	types := slices.Clone(entityTypes)
	if q != nil {
		types = append(types, q.AllowedTypes...)
	}
	for _, t := range types {
		if !strings.HasPrefix(t, "urn:li:entityType:") {
			return invalidf("%q is not an entity type URN (urn:li:entityType:datahub.<name>)", t)
		}
	}
	return nil
}

// samePrimitive reports whether two primitive values are equal.
func samePrimitive(a, b models.PropertyValueValue) bool {
	switch {
	case a.String != nil && b.String != nil:
		return *a.String == *b.String
	case a.Double != nil && b.Double != nil:
		return *a.Double == *b.Double
	}
	return false
}

// allowedValues appends new allowed values to cur, each once.
func allowedValues(cur []models.PropertyValue, in []*model.AllowedValueInput) ([]models.PropertyValue, error) {
	for _, a := range in {
		if (a.StringValue == nil) == (a.NumberValue == nil) {
			return nil, invalidf("an allowed value has exactly one of stringValue and numberValue")
		}
		v := models.PropertyValue{Value: models.PropertyValueValue{String: a.StringValue, Double: a.NumberValue}, Description: a.Description}
		if i := slices.IndexFunc(cur, func(c models.PropertyValue) bool { return samePrimitive(c.Value, v.Value) }); i >= 0 {
			if a.Description != nil {
				cur[i].Description = a.Description
			}
			continue
		}
		cur = append(cur, v)
	}
	return cur, nil
}

func applySettings(s models.StructuredPropertySettings, in *model.StructuredPropertySettingsInput) models.StructuredPropertySettings {
	set := func(dst **bool, v *bool) {
		if v != nil {
			*dst = ptr(*v)
		}
	}
	set(&s.IsHidden, in.IsHidden)
	set(&s.ShowInSearchFilters, in.ShowInSearchFilters)
	set(&s.ShowInAssetSummary, in.ShowInAssetSummary)
	set(&s.ShowAsAssetBadge, in.ShowAsAssetBadge)
	set(&s.ShowInColumnsTable, in.ShowInColumnsTable)
	return s
}

func checkSettings(s models.StructuredPropertySettings) error {
	if deref(s.IsHidden) && (deref(s.ShowInSearchFilters) || deref(s.ShowInAssetSummary) || deref(s.ShowAsAssetBadge) || deref(s.ShowInColumnsTable)) {
		return invalidf(invalidSettings)
	}
	return nil
}

func sameSettings(a, b models.StructuredPropertySettings) bool {
	return deref(a.IsHidden) == deref(b.IsHidden) && deref(a.ShowInSearchFilters) == deref(b.ShowInSearchFilters) &&
		deref(a.ShowInAssetSummary) == deref(b.ShowInAssetSummary) && deref(a.ShowAsAssetBadge) == deref(b.ShowAsAssetBadge) &&
		deref(a.ShowInColumnsTable) == deref(b.ShowInColumnsTable)
}

// uniq returns s without repeats, in first-seen order.
func uniq(s []string) []string {
	out := make([]string, 0, len(s))
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// remarshal decodes a loaded aspect value (generic JSON) into a typed one.
func remarshal(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return jsonUnmarshal(b, out)
}

// orEmptyMap is v, or an empty JSON object when v is nil.
func orEmptyMap(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}
