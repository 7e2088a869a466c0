package graphql

import (
	"context"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

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
