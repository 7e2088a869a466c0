package graphql

import (
	"context"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// Business attributes are reusable column definitions (businessAttributeInfo)
// that schema fields point at with their businessAttributes aspect.

// schemaTypeMembers are the SchemaFieldDataType union members of the
// GraphQL enum, the reverse of schemaFieldTypes.
var schemaTypeMembers = func() map[model.SchemaFieldDataType]string {
	out := map[model.SchemaFieldDataType]string{}
	for k, v := range schemaFieldTypes {
		out[v] = "com.linkedin.schema." + k
	}
	return out
}()

func schemaType(t model.SchemaFieldDataType) map[string]any {
	return map[string]any{"type": map[string]any{schemaTypeMembers[t]: map[string]any{}}}
}

// CreateBusinessAttribute creates a business attribute with a unique name,
// owned by its creator.
func (r *mutationResolver) CreateBusinessAttribute(ctx context.Context, in model.CreateBusinessAttributeInput) (*model.BusinessAttribute, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, invalidf("A business attribute needs a name")
	}
	if err := r.businessAttributeNameFree(ctx, in.Name, ""); err != nil {
		return nil, err
	}
	urn, err := r.create(ctx, "businessAttribute", "Business Attribute", nilIfEmpty(in.ID), func(urn string, p *proposals) {
		st := stamp(ctx)
		info := map[string]any{"fieldPath": in.Name, "name": in.Name, "created": st, "lastModified": st}
		if in.Description != nil {
			info["description"] = *in.Description
		}
		if in.Type != nil {
			info["type"] = schemaType(*in.Type)
		}
		p.add(urn, "businessAttributeInfo", info)
		p.add(urn, "ownership", creatorOwnership(ctx))
	})
	if err != nil {
		return nil, err
	}
	return &model.BusinessAttribute{Urn: *urn}, nil
}

// businessAttributeNameFree fails with CONFLICT when another business
// attribute than self has the name.
func (r *Resolver) businessAttributeNameFree(ctx context.Context, name, self string) error {
	svc, err := r.searchService()
	if err != nil {
		return err
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: []string{"businessAttribute"}, Input: "*", Count: 10,
		Filter: &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{{Field: "name", Values: []string{name}, Condition: "IEQUAL"}}}}}})
	if err != nil {
		return err
	}
	for _, h := range res.Hits {
		if h.URN != self {
			return catalog.Errorf(catalog.Conflict, "%q already exists as Business Attribute. Please pick a unique name.", name)
		}
	}
	return nil
}

// UpdateBusinessAttribute changes the name, description or type of a
// business attribute.
func (r *mutationResolver) UpdateBusinessAttribute(ctx context.Context, urn string, in model.UpdateBusinessAttributeInput) (*model.BusinessAttribute, error) {
	if ok, err := r.existsAs(ctx, urn, "businessAttribute"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("This urn does not exist: %s", urn)
	}
	if in.Name != nil {
		if strings.TrimSpace(*in.Name) == "" {
			return nil, invalidf("A business attribute needs a name")
		}
		if err := r.businessAttributeNameFree(ctx, *in.Name, urn); err != nil {
			return nil, err
		}
	}
	err := r.editAspect(ctx, urn, "businessAttributeInfo", nil, func(m map[string]any) {
		if in.Name != nil {
			m["name"], m["fieldPath"] = *in.Name, *in.Name
		}
		if in.Description != nil {
			m["description"] = *in.Description
		}
		if in.Type != nil {
			m["type"] = schemaType(*in.Type)
		}
		m["lastModified"] = stamp(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &model.BusinessAttribute{Urn: urn}, nil
}

// DeleteBusinessAttribute deletes a business attribute.
func (r *mutationResolver) DeleteBusinessAttribute(ctx context.Context, urn string) (*bool, error) {
	if ok, err := r.existsAs(ctx, urn, "businessAttribute"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("This urn does not exist: %s", urn)
	}
	return r.remove(ctx, urn, "businessAttribute")
}

// AddBusinessAttribute sets the business attribute of schema fields.
func (r *mutationResolver) AddBusinessAttribute(ctx context.Context, in model.AddBusinessAttributeInput) (*bool, error) {
	return r.setBusinessAttribute(ctx, in, true)
}

// RemoveBusinessAttribute takes the business attribute off schema fields.
func (r *mutationResolver) RemoveBusinessAttribute(ctx context.Context, in model.AddBusinessAttributeInput) (*bool, error) {
	return r.setBusinessAttribute(ctx, in, false)
}

func (r *Resolver) setBusinessAttribute(ctx context.Context, in model.AddBusinessAttributeInput, add bool) (*bool, error) {
	if ok, err := r.existsAs(ctx, in.BusinessAttributeUrn, "businessAttribute"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("This urn does not exist: %s", in.BusinessAttributeUrn)
	}
	var resources []string
	for _, ref := range in.ResourceUrn {
		if _, err := catalog.ParseURN(ref.ResourceUrn); err != nil {
			return nil, err
		}
		resources = append(resources, ref.ResourceUrn)
	}
	ctx, err := r.delegate(ctx, "edit the business attribute of the field", resources, "EDIT_DATASET_COL_BUSINESS_ATTRIBUTE_PRIVILEGE")
	if err != nil {
		return nil, err
	}
	var props []catalog.Proposal
	for _, res := range resources {
		props = append(props, edited(res, "businessAttributes", func(m *map[string]any, found bool) bool {
			if *m == nil {
				*m = map[string]any{}
			}
			cur, _ := (*m)["businessAttribute"].(map[string]any)
			if !add {
				if !found || cur == nil || cur["businessAttributeUrn"] != in.BusinessAttributeUrn {
					return false
				}
				delete(*m, "businessAttribute")
				return true
			}
			(*m)["businessAttribute"] = map[string]any{"businessAttributeUrn": in.BusinessAttributeUrn}
			return true
		}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// ListBusinessAttributes lists the business attributes matching a text.
func (r *queryResolver) ListBusinessAttributes(ctx context.Context, in model.ListBusinessAttributesInput) (*model.ListBusinessAttributesResult, error) {
	urns, s, total, err := r.list(ctx, "businessAttribute", in.Query, in.Start, in.Count)
	if err != nil {
		return nil, err
	}
	out := &model.ListBusinessAttributesResult{Start: s, Count: len(urns), Total: total, BusinessAttributes: []*model.BusinessAttribute{}}
	for _, u := range urns {
		out.BusinessAttributes = append(out.BusinessAttributes, &model.BusinessAttribute{Urn: u})
	}
	return out, nil
}
