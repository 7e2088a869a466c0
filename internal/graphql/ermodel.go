package graphql

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// erModelRelationshipID is the id DataHub gives the relationship named name
// between two datasets: the MD5 of a JSON object of the three (keys in
// alphabetical order, the smaller URN as "Destination"), as its Python
// emitter's datahub_guid makes it, so that both make the same URN. The
// object is built as text, unescaped, exactly as DataHub builds it.
func erModelRelationshipID(name, source, destination string) string {
	low, high := source, destination
	if strings.Compare(source, destination) > 0 {
		low, high = destination, source
	}
	key := `{"Destination":"` + low + `","ERModelRelationName":"` + name + `","Source":"` + high + `"}`
	sum := md5.Sum([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateERModelRelationship creates (or, for the same name and datasets,
// rewrites) the relationship between two datasets. As in DataHub the
// caller needs EDIT_ENTITY or CREATE_ER_MODEL_RELATIONSHIP on both.
func (r *mutationResolver) CreateERModelRelationship(ctx context.Context, in model.ERModelRelationshipUpdateInput) (*model.ERModelRelationship, error) {
	p := in.Properties
	if p == nil {
		return nil, invalidf("Failed to create erModelRelationship: properties (name, source and destination) are required")
	}
	if err := r.checkERModelProperties(ctx, p); err != nil {
		return nil, err
	}
	urn := catalog.NewURN("erModelRelationship", erModelRelationshipID(p.Name, p.Source, p.Destination))
	ctx, err := r.delegate(ctx, "create erModelRelationship", []string{p.Source, p.Destination}, "CREATE_ER_MODEL_RELATIONSHIP")
	if err != nil {
		return nil, err
	}
	if err := r.write(ctx, erModelProposals(ctx, urn, in)...); err != nil {
		return nil, err
	}
	return &model.ERModelRelationship{Urn: urn}, nil
}

// UpdateERModelRelationship replaces the properties and the editable
// properties the input gives. Editing only the editable ones takes
// EDIT_ENTITY_DOCS (or EDIT_ENTITY), as in DataHub.
func (r *mutationResolver) UpdateERModelRelationship(ctx context.Context, urn string, in model.ERModelRelationshipUpdateInput) (*bool, error) {
	if err := r.mustExist(ctx, urn, "erModelRelationship"); err != nil {
		return nil, err
	}
	if in.Properties != nil {
		if err := r.checkERModelProperties(ctx, in.Properties); err != nil {
			return nil, err
		}
	} else if in.EditableProperties != nil {
		var err error
		if ctx, err = r.delegate(ctx, "update erModelRelationship", []string{urn}, "EDIT_ENTITY_DOCS"); err != nil {
			return nil, err
		}
	}
	if err := r.write(ctx, erModelProposals(ctx, urn, in)...); err != nil {
		return nil, err
	}
	return yes, nil
}

func (r *Resolver) checkERModelProperties(ctx context.Context, p *model.ERModelRelationshipPropertiesInput) error {
	if strings.TrimSpace(p.Name) == "" {
		return invalidf("an erModelRelationship needs a name")
	}
	for _, u := range []string{p.Source, p.Destination} {
		if err := r.mustExist(ctx, u, "dataset"); err != nil {
			return err
		}
	}
	for i, m := range p.RelationshipFieldmappings {
		if m == nil || deref(m.SourceField) == "" || deref(m.DestinationField) == "" {
			return invalidf("relationshipFieldmappings[%d] needs a sourceField and a destinationField", i)
		}
	}
	if p.CreatedBy != nil && !deref(p.Created) {
		if _, err := catalog.ParseURN(*p.CreatedBy); err != nil {
			return err
		}
	}
	return nil
}

// erModelProposals are the aspects DataHub's input mapper writes: the
// properties (the field mappings, their cardinality and the stamps only
// when mappings are given) and the editable properties (name and
// description when not blank).
func erModelProposals(ctx context.Context, urn string, in model.ERModelRelationshipUpdateInput) []catalog.Proposal {
	var ps proposals
	if p := in.Properties; p != nil {
		v := map[string]any{"name": p.Name, "source": p.Source, "destination": p.Destination, "relationshipFieldMappings": []any{}}
		if p.RelationshipFieldmappings != nil {
			st := stamp(ctx)
			if len(p.RelationshipFieldmappings) > 0 {
				maps := make([]any, 0, len(p.RelationshipFieldmappings))
				for _, m := range p.RelationshipFieldmappings {
					maps = append(maps, map[string]any{"sourceField": deref(m.SourceField), "destinationField": deref(m.DestinationField)})
				}
				v["relationshipFieldMappings"] = maps
				v["cardinality"] = cardinalityOf(p.RelationshipFieldmappings)
			}
			if deref(p.Created) {
				v["created"] = st
			} else if p.CreatedBy != nil && deref(p.CreatedAt) != 0 {
				v["created"] = map[string]any{"time": *p.CreatedAt, "actor": *p.CreatedBy}
			}
			v["lastModified"] = st
		}
		ps.add(urn, "erModelRelationshipProperties", v)
	}
	if e := in.EditableProperties; e != nil {
		v := map[string]any{}
		if strings.TrimSpace(deref(e.Name)) != "" {
			v["name"] = *e.Name
		}
		if strings.TrimSpace(e.Description) != "" {
			v["description"] = e.Description
		}
		ps.add(urn, "editableERModelRelationshipProperties", v)
	}
	return ps.list
}

// cardinalityOf says whether each side's fields repeat in the mappings: a
// side whose fields are all distinct is the "one" side.
func cardinalityOf(ms []*model.RelationshipFieldMappingInput) string {
	src, dst := map[string]bool{}, map[string]bool{}
	for _, m := range ms {
		src[deref(m.SourceField)] = true
		dst[deref(m.DestinationField)] = true
	}
	srcOne, dstOne := len(src) == len(ms), len(dst) == len(ms)
	switch {
	case srcOne && dstOne:
		return "ONE_ONE"
	case srcOne:
		return "N_ONE"
	case dstOne:
		return "ONE_N"
	}
	return "N_N"
}
