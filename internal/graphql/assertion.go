package graphql

import (
	"context"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// UpsertCustomAssertion writes an assertion that a platform outside the
// catalog evaluates, as DataHub does: its assertionInfo (type CUSTOM,
// source EXTERNAL) and its platform, replacing what the assertion held.
// The right needed is to edit the assertions of the entity it asserts on.
func (r *mutationResolver) UpsertCustomAssertion(ctx context.Context, urn *string, in model.UpsertCustomAssertionInput) (*model.Assertion, error) {
	target := deref(urn)
	if target == "" {
		target = catalog.NewURN("assertion", uuid.NewString())
	} else if _, err := catalog.ParseURN(target); err != nil {
		return nil, err
	} else if urnType(target) != "assertion" {
		return nil, invalidf("%s is not an assertion URN", target)
	}
	if ok, err := r.existsAnyType(ctx, in.EntityUrn); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("Failed to upsert Custom Assertion: entity %s does not exist", in.EntityUrn)
	}
	platform := ""
	switch {
	case in.Platform != nil && deref(in.Platform.Urn) != "":
		platform = *in.Platform.Urn
		if _, err := catalog.ParseURN(platform); err != nil {
			return nil, err
		} else if urnType(platform) != "dataPlatform" {
			return nil, invalidf("%s is not a data platform URN", platform)
		}
	case in.Platform != nil && deref(in.Platform.Name) != "":
		platform = catalog.NewURN("dataPlatform", *in.Platform.Name)
	default:
		return nil, invalidf("Failed to upsert Custom Assertion. Platform Name or Platform Urn must be specified.")
	}
	custom := &models.CustomAssertionInfo{Type: in.Type, Entity: in.EntityUrn, Logic: in.Logic}
	if f := deref(in.FieldPath); f != "" {
		custom.Field = ptr(catalog.NewURN("schemaField", in.EntityUrn, f))
	}
	info := models.AssertionInfo{Type: models.AssertionTypeCustom, Description: ptr(in.Description), ExternalUrl: in.ExternalURL,
		Source: &models.AssertionSource{Type: models.AssertionSourceTypeExternal}, CustomAssertion: custom}
	ctx, err := r.delegate(ctx, "edit the assertions of the resource", []string{in.EntityUrn}, "EDIT_ENTITY_ASSERTIONS")
	if err != nil {
		return nil, err
	}
	var p proposals
	p.add(target, "assertionInfo", info)
	p.add(target, "dataPlatformInstance", models.DataPlatformInstance{Platform: platform})
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return &model.Assertion{Urn: target}, nil
}

// DeleteAssertion deletes an assertion with its run events. Deleting one
// that does not exist succeeds, as in DataHub; the right needed is to edit
// the assertions of the assets it asserts on.
func (r *mutationResolver) DeleteAssertion(ctx context.Context, urn string) (*bool, error) {
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	if urnType(urn) != "assertion" {
		return nil, invalidf("%s is not an assertion URN", urn)
	}
	if ok, err := r.loaderOf(ctx).exists(ctx, urn); err != nil {
		return nil, err
	} else if !ok {
		return yes, nil
	}
	edges, _, err := r.store.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Outgoing, Relationships: []string{"Asserts"}, Count: maxRelated})
	if err != nil {
		return nil, err
	}
	var assets []string
	for _, e := range edges {
		if urnType(e.Destination) != "schemaField" {
			assets = append(assets, e.Destination)
		}
	}
	ctx, err = r.delegate(ctx, "delete the assertions of the resource", uniq(assets), "EDIT_ENTITY_ASSERTIONS")
	if err != nil {
		return nil, err
	}
	return r.remove(ctx, urn, "assertion")
}

// AssertionPlatform is the platform of an assertion's dataPlatformInstance,
// urn:li:dataPlatform:unknown without one, as DataHub answers.
func (r *computed) AssertionPlatform(ctx context.Context, obj model.Entity) (*model.DataPlatform, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, obj.EntityURN(), "dataPlatformInstance")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	if p := jsonString(m, "platform"); p != "" {
		return &model.DataPlatform{Urn: p}, nil
	}
	return &model.DataPlatform{Urn: catalog.NewURN("dataPlatform", "unknown")}, nil
}
