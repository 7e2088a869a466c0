package graphql

import (
	"context"
	"slices"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// Data products hold their assets in dataProductProperties.assets (edges
// DataProductContains); an asset belongs to one data product at a time.
// Applications are the other way round: an asset names its application in
// its applications aspect.

// CreateDataProduct creates a data product in a domain, owned by its
// creator.
func (r *mutationResolver) CreateDataProduct(ctx context.Context, in model.CreateDataProductInput) (*model.DataProduct, error) {
	if ok, err := r.existsAs(ctx, in.DomainUrn, "domain"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("The Domain provided dos not exist")
	}
	urn, err := r.create(ctx, "dataProduct", "Data product", nilIfEmpty(in.ID), func(urn string, p *proposals) {
		p.add(urn, "dataProductProperties", models.DataProductProperties{Name: ptr(in.Properties.Name), Description: in.Properties.Description})
		p.add(urn, "domains", models.Domains{Domains: []string{in.DomainUrn}})
		p.add(urn, "ownership", creatorOwnership(ctx))
	})
	if err != nil {
		return nil, err
	}
	return &model.DataProduct{Urn: *urn}, nil
}

// existsAs reports whether urn is a stored entity of the given type; a
// malformed URN is an error.
func (r *Resolver) existsAs(ctx context.Context, urn, entity string) (bool, error) {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return false, err
	}
	if u.EntityType() != entity {
		return false, nil
	}
	return r.loaderOf(ctx).exists(ctx, urn)
}

// UpdateDataProduct changes the name or description of a data product.
func (r *mutationResolver) UpdateDataProduct(ctx context.Context, urn string, in model.UpdateDataProductInput) (*model.DataProduct, error) {
	if ok, err := r.existsAs(ctx, urn, "dataProduct"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("Failed to update DataProduct. DataProduct with urn %s does not exist.", urn)
	}
	err := r.write(ctx, edited(urn, "dataProductProperties", func(p *models.DataProductProperties, _ bool) bool {
		if in.Name != nil {
			p.Name = in.Name
		}
		if in.Description != nil {
			p.Description = in.Description
		}
		return true
	}))
	if err != nil {
		return nil, err
	}
	return &model.DataProduct{Urn: urn}, nil
}

// DeleteDataProduct deletes a data product; its assets are left as they
// are.
func (r *mutationResolver) DeleteDataProduct(ctx context.Context, urn string) (*bool, error) {
	if ok, err := r.existsAs(ctx, urn, "dataProduct"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("Cannot delete the Data Product %s: it does not exist", urn)
	}
	return r.remove(ctx, urn, "dataProduct")
}

// BatchSetDataProduct adds assets to a data product, taking them out of
// any other data product they were in; without a data product it takes
// them out of theirs.
func (r *mutationResolver) BatchSetDataProduct(ctx context.Context, in model.BatchSetDataProductInput) (*bool, error) {
	for _, res := range in.ResourceUrns {
		if ok, err := r.existsAnyType(ctx, res); err != nil {
			return nil, err
		} else if !ok {
			return nil, invalidf("Failed to batch set Data Product, %s in resources does not exist", res)
		}
	}
	product := deref(in.DataProductUrn)
	if product != "" {
		if ok, err := r.existsAs(ctx, product, "dataProduct"); err != nil {
			return nil, err
		} else if !ok {
			return nil, invalidf("Failed to batch set Data Product, Data Product urn %s does not exist", product)
		}
	}
	// The data products that hold each asset now, to take it out of.
	holders := map[string][]string{}
	for _, res := range in.ResourceUrns {
		srcs, err := r.incoming(ctx, res, "DataProductContains")
		if err != nil {
			return nil, err
		}
		for _, dp := range srcs {
			if dp != product {
				holders[dp] = append(holders[dp], res)
			}
		}
	}
	var props []catalog.Proposal
	for dp, assets := range holders {
		props = append(props, edited(dp, "dataProductProperties", func(p *models.DataProductProperties, found bool) bool {
			n := len(p.Assets)
			p.Assets = slices.DeleteFunc(p.Assets, func(a models.DataProductAssociation) bool { return slices.Contains(assets, a.DestinationUrn) })
			return found && len(p.Assets) != n
		}))
	}
	if product != "" {
		st := stamp(ctx)
		props = append(props, edited(product, "dataProductProperties", func(p *models.DataProductProperties, _ bool) bool {
			changed := false
			for _, res := range in.ResourceUrns {
				if !slices.ContainsFunc(p.Assets, func(a models.DataProductAssociation) bool { return a.DestinationUrn == res }) {
					p.Assets = append(p.Assets, models.DataProductAssociation{DestinationUrn: res, Created: &st, LastModified: &st})
					changed = true
				}
			}
			return changed
		}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// existsAnyType reports whether a well-formed urn is stored.
func (r *Resolver) existsAnyType(ctx context.Context, urn string) (bool, error) {
	if _, err := catalog.ParseURN(urn); err != nil {
		return false, err
	}
	return r.loaderOf(ctx).exists(ctx, urn)
}

// CreateApplication creates an application, in a domain when one is
// given, owned by its creator.
func (r *mutationResolver) CreateApplication(ctx context.Context, in model.CreateApplicationInput) (*model.Application, error) {
	if d := deref(in.DomainUrn); d != "" {
		if ok, err := r.existsAs(ctx, d, "domain"); err != nil {
			return nil, err
		} else if !ok {
			return nil, invalidf("The Domain provided dos not exist")
		}
	}
	urn, err := r.create(ctx, "application", "Application", nilIfEmpty(in.ID), func(urn string, p *proposals) {
		p.add(urn, "applicationProperties", models.ApplicationProperties{Name: ptr(in.Properties.Name), Description: in.Properties.Description})
		if d := deref(in.DomainUrn); d != "" {
			p.add(urn, "domains", models.Domains{Domains: []string{d}})
		}
		p.add(urn, "ownership", creatorOwnership(ctx))
	})
	if err != nil {
		return nil, err
	}
	return &model.Application{Urn: *urn}, nil
}

// UpdateApplication changes the name or description of an application.
func (r *mutationResolver) UpdateApplication(ctx context.Context, urn string, in model.UpdateApplicationInput) (*model.Application, error) {
	if ok, err := r.existsAs(ctx, urn, "application"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("Failed to update Application. Application with urn %s does not exist.", urn)
	}
	err := r.write(ctx, edited(urn, "applicationProperties", func(p *models.ApplicationProperties, _ bool) bool {
		if in.Name != nil {
			p.Name = in.Name
		}
		if in.Description != nil {
			p.Description = in.Description
		}
		return true
	}))
	if err != nil {
		return nil, err
	}
	return &model.Application{Urn: urn}, nil
}

// DeleteApplication deletes an application and takes its assets out of
// it.
func (r *mutationResolver) DeleteApplication(ctx context.Context, urn string) (*bool, error) {
	if ok, err := r.existsAs(ctx, urn, "application"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("Application %s does not exist", urn)
	}
	assets, err := r.incoming(ctx, urn, "AssociatedWith")
	if err != nil {
		return nil, err
	}
	if _, err := r.remove(ctx, urn, "application"); err != nil {
		return nil, err
	}
	var props []catalog.Proposal
	for _, a := range assets {
		props = append(props, edited(a, "applications", func(v *models.Applications, found bool) bool {
			n := len(v.Applications)
			v.Applications = slices.DeleteFunc(v.Applications, func(s string) bool { return s == urn })
			return found && n != len(v.Applications)
		}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// BatchSetApplication makes an application the one of each asset, or,
// without one, leaves the assets without an application.
func (r *mutationResolver) BatchSetApplication(ctx context.Context, in model.BatchSetApplicationInput) (*bool, error) {
	for _, res := range in.ResourceUrns {
		if ok, err := r.existsAnyType(ctx, res); err != nil {
			return nil, err
		} else if !ok {
			return nil, invalidf("Failed to batch set Application, %s in resources does not exist", res)
		}
	}
	app := deref(in.ApplicationUrn)
	if app != "" {
		if ok, err := r.existsAs(ctx, app, "application"); err != nil {
			return nil, err
		} else if !ok {
			return nil, invalidf("Failed to batch set Application, Application urn %s does not exist", app)
		}
	}
	var p proposals
	for _, res := range in.ResourceUrns {
		v := models.Applications{Applications: []string{}}
		if app != "" {
			v.Applications = []string{app}
		}
		p.add(res, "applications", v)
	}
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return yes, nil
}
