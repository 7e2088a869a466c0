package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
)

// The aspect holding an asset's structured property values, and the
// aspects of a property its values are checked against.
const (
	structuredPropertiesAspect = "structuredProperties"
	propertyDefinitionAspect   = "propertyDefinition"
	statusAspect               = "status"
)

// propertyState is what the checks of a property's values read of it.
type propertyState struct {
	def     *models.StructuredPropertyDefinition // nil when it has none
	removed bool                                 // soft-deleted
}

// checkStructuredProperties checks canon, the new structuredProperties
// aspect of urn (an entity of type entity) replacing prev (nil when there
// is none), as DataHub's validator of that aspect does: each property is
// assigned once, exists and is not soft-deleted, applies to the entity's
// type, takes one value unless its cardinality is MULTIPLE, and each value
// has the property's value type and is one of its allowed values when it
// lists them; the values of an immutable property, once set, neither
// change nor go. Definitions are read as the request sees them: written
// earlier in it, or stored.
func (a *applier) checkStructuredProperties(ctx context.Context, urn, entity string, canon, prev []byte) error {
	var sp, old models.StructuredProperties
	if err := json.Unmarshal(canon, &sp); err != nil {
		return catalog.Errorf(catalog.Invalid, "structuredProperties: %v", err)
	}
	if prev != nil {
		if err := json.Unmarshal(prev, &old); err != nil {
			return fmt.Errorf("decode stored structuredProperties of %s: %w", urn, err)
		}
	}
	seen := make(map[string]bool, len(sp.Properties))
	var urns []string
	for _, p := range sp.Properties {
		u, err := catalog.ParseURN(p.PropertyUrn)
		if err != nil {
			return catalog.Errorf(catalog.Invalid, "structured property %q: %v", p.PropertyUrn, err)
		}
		if u.EntityType() != "structuredProperty" {
			return catalog.Errorf(catalog.Invalid, "%s is not a structured property URN", p.PropertyUrn)
		}
		if seen[p.PropertyUrn] {
			return catalog.Errorf(catalog.Invalid, "structured property %s is assigned more than once", p.PropertyUrn)
		}
		seen[p.PropertyUrn] = true
		urns = append(urns, p.PropertyUrn)
	}
	for _, p := range old.Properties {
		if !seen[p.PropertyUrn] {
			seen[p.PropertyUrn] = true
			urns = append(urns, p.PropertyUrn)
		}
	}
	props, err := a.properties(ctx, urns)
	if err != nil {
		return err
	}
	for _, p := range sp.Properties {
		if err := checkPropertyValues(entity, p, props[p.PropertyUrn]); err != nil {
			return err
		}
	}
	for _, was := range old.Properties {
		st := props[was.PropertyUrn]
		if st == nil || st.def == nil || st.def.Immutable == nil || !*st.def.Immutable {
			continue
		}
		i := slices.IndexFunc(sp.Properties, func(p models.StructuredPropertyValueAssignment) bool { return p.PropertyUrn == was.PropertyUrn })
		switch {
		case i < 0:
			return catalog.Errorf(catalog.Invalid, "structured property %s is immutable: its values cannot be removed", was.PropertyUrn)
		case !slices.EqualFunc(sp.Properties[i].Values, was.Values, sameValue):
			return catalog.Errorf(catalog.Invalid, "structured property %s is immutable: its values cannot change", was.PropertyUrn)
		}
	}
	return nil
}

func sameValue(a, b models.StructuredPropertyValueAssignmentValuesItem) bool {
	return samePrimitive(models.PropertyValueValue{String: a.String, Double: a.Double}, b)
}

// properties reads the definition and status of each of urns: from the
// request's state for the URNs it holds, else from the transaction, once
// per request.
func (a *applier) properties(ctx context.Context, urns []string) (map[string]*propertyState, error) {
	out := make(map[string]*propertyState, len(urns))
	var missing []string
	for _, u := range urns {
		if slots, ok := a.state[u]; ok {
			st, err := propertyFrom(u, func(name string) []byte {
				if s := slots[name]; s != nil && s.exists {
					return s.cur.Value
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			out[u] = st
			continue
		}
		if st, ok := a.props[u]; ok {
			out[u] = st
			continue
		}
		missing = append(missing, u)
	}
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := a.tx.LatestAspects(ctx, missing, []string{propertyDefinitionAspect, statusAspect})
	if err != nil {
		return nil, err
	}
	if a.props == nil {
		a.props = make(map[string]*propertyState)
	}
	for _, u := range missing {
		st, err := propertyFrom(u, func(name string) []byte {
			for _, r := range rows[u] {
				if r.Name == name {
					return r.Value
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		a.props[u], out[u] = st, st
	}
	return out, nil
}

// propertyFrom decodes the state of property urn from its aspects, which
// value returns (nil when absent).
func propertyFrom(urn string, value func(name string) []byte) (*propertyState, error) {
	st := &propertyState{}
	if b := value(propertyDefinitionAspect); b != nil {
		st.def = &models.StructuredPropertyDefinition{}
		if err := json.Unmarshal(b, st.def); err != nil {
			return nil, fmt.Errorf("decode stored %s of %s: %w", propertyDefinitionAspect, urn, err)
		}
	}
	if b := value(statusAspect); b != nil {
		var s struct{ Removed bool }
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("decode stored %s of %s: %w", statusAspect, urn, err)
		}
		st.removed = s.Removed
	}
	return st, nil
}

// checkPropertyValues checks one property's assignment on an asset of type
// entity.
func checkPropertyValues(entity string, p models.StructuredPropertyValueAssignment, st *propertyState) error {
	prop := p.PropertyUrn
	switch {
	case st == nil || st.def == nil:
		return catalog.Errorf(catalog.Invalid, "structured property %s does not exist", prop)
	case st.removed:
		return catalog.Errorf(catalog.Invalid, "structured property %s is soft-deleted: its values cannot be applied", prop)
	}
	def := st.def
	if !slices.ContainsFunc(def.EntityTypes, func(t string) bool { return strings.EqualFold(typeID(t), entity) }) {
		return catalog.Errorf(catalog.Invalid, "structured property %s does not apply to entity type %s", prop, entity)
	}
	if len(p.Values) > 1 && (def.Cardinality == nil || *def.Cardinality != models.PropertyCardinalityMultiple) {
		return catalog.Errorf(catalog.Invalid, "structured property %s takes a single value, %d given", prop, len(p.Values))
	}
	typ := strings.ToLower(typeID(def.ValueType))
	for _, v := range p.Values {
		if err := checkPropertyValue(typ, def, v); err != nil {
			return catalog.WithOp("structured property "+prop, err)
		}
		if len(def.AllowedValues) > 0 && !slices.ContainsFunc(def.AllowedValues, func(a models.PropertyValue) bool { return samePrimitive(a.Value, v) }) {
			return catalog.Errorf(catalog.Invalid, "value %s is not one of the allowed values of structured property %s", primitiveString(v), prop)
		}
	}
	return nil
}

// checkPropertyValue checks that v is a value of the logical type typ.
func checkPropertyValue(typ string, def *models.StructuredPropertyDefinition, v models.StructuredPropertyValueAssignmentValuesItem) error {
	switch typ {
	case "string", "rich_text", "date", "urn":
		if v.String == nil {
			return catalog.Errorf(catalog.Invalid, "takes %s values, got %s", typ, primitiveString(v))
		}
		return checkTypedString(typ, *v.String, def.TypeQualifier["allowedTypes"])
	case "number":
		// A string holding a number is one, as in DataHub.
		if v.String != nil {
			if _, err := strconv.ParseFloat(*v.String, 64); err != nil {
				return catalog.Errorf(catalog.Invalid, "takes number values, got the string %q", *v.String)
			}
		}
		return nil
	}
	return catalog.Errorf(catalog.Invalid, "has value type %s, whose values cannot be checked", def.ValueType)
}

// checkTypedString checks a string value of a date or URN property.
func checkTypedString(typ, s string, allowedTypes []string) error {
	switch typ {
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return catalog.Errorf(catalog.Invalid, "%q is not a date (YYYY-MM-DD)", s)
		}
	case "urn":
		u, err := catalog.ParseURN(s)
		if err != nil {
			return catalog.Errorf(catalog.Invalid, "%q is not a URN", s)
		}
		if len(allowedTypes) > 0 && !slices.ContainsFunc(allowedTypes, func(t string) bool { return strings.EqualFold(typeID(t), u.EntityType()) }) {
			return catalog.Errorf(catalog.Invalid, "%s is not of an allowed entity type (%s)", s, strings.Join(allowedTypes, ", "))
		}
	}
	return nil
}

// typeID is the name a data type or entity type URN
// (urn:li:entityType:datahub.dataset) gives its type: "dataset".
func typeID(urn string) string {
	id := urn
	if u, err := catalog.ParseURN(urn); err == nil {
		id = u.ID()
	}
	return strings.TrimPrefix(id, "datahub.")
}

func samePrimitive(a models.PropertyValueValue, b models.StructuredPropertyValueAssignmentValuesItem) bool {
	switch {
	case a.String != nil && b.String != nil:
		return *a.String == *b.String
	case a.Double != nil && b.Double != nil:
		return *a.Double == *b.Double
	}
	return false
}

func primitiveString(v models.StructuredPropertyValueAssignmentValuesItem) string {
	if v.String != nil {
		return strconv.Quote(*v.String)
	}
	if v.Double != nil {
		return strconv.FormatFloat(*v.Double, 'f', -1, 64)
	}
	return "(none)"
}
