package graphql

import (
	"context"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// UpsertDataContract writes the data contract of an asset: the one it has
// (found by its ContractFor edge) or a new one. The right needed is to edit
// the asset's data contract.
func (r *mutationResolver) UpsertDataContract(ctx context.Context, _ *string, in model.UpsertDataContractInput) (*model.DataContract, error) {
	if ok, err := r.existsAnyType(ctx, in.EntityUrn); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("Provided entity with urn %s does not exist!", in.EntityUrn)
	}
	props := models.DataContractProperties{Entity: in.EntityUrn}
	check := func(assertion string) error {
		if ok, err := r.existsAs(ctx, assertion, "assertion"); err != nil {
			return err
		} else if !ok {
			return invalidf("Provided assertion with urn %s does not exist!", assertion)
		}
		return nil
	}
	for _, f := range in.Freshness {
		if err := check(f.AssertionUrn); err != nil {
			return nil, err
		}
		props.Freshness = append(props.Freshness, models.FreshnessContract{Assertion: f.AssertionUrn})
	}
	for _, s := range in.Schema {
		if err := check(s.AssertionUrn); err != nil {
			return nil, err
		}
		props.Schema = append(props.Schema, models.SchemaContract{Assertion: s.AssertionUrn})
	}
	for _, q := range in.DataQuality {
		if err := check(q.AssertionUrn); err != nil {
			return nil, err
		}
		props.DataQuality = append(props.DataQuality, models.DataQualityContract{Assertion: q.AssertionUrn})
	}
	state := models.DataContractState(model.DataContractStateActive)
	if in.State != nil {
		state = models.DataContractState(*in.State)
	}
	ctx, err := r.delegate(ctx, "edit the data contract of the resource", []string{in.EntityUrn}, "EDIT_ENTITY_DATA_CONTRACT")
	if err != nil {
		return nil, err
	}
	existing, err := r.incoming(ctx, in.EntityUrn, "ContractFor")
	if err != nil {
		return nil, err
	}
	var urn string
	switch {
	case len(existing) > 0:
		urn = existing[0]
	case deref(in.ID) != "":
		urn = catalog.NewURN("dataContract", *in.ID)
	default:
		urn = catalog.NewURN("dataContract", uuid.NewString())
	}
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	var p proposals
	p.add(urn, "dataContractProperties", props)
	p.add(urn, "dataContractStatus", models.DataContractStatus{State: state})
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return &model.DataContract{Urn: urn}, nil
}
