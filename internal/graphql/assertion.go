package graphql

import (
	"context"
	"strconv"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// UpsertCustomAssertion writes an assertion that a platform outside the
// catalog evaluates, as DataHub does: its assertionInfo (type CUSTOM,
// source EXTERNAL) and its platform, replacing what the assertion held.
// The right needed is to edit the assertions of the entity it asserts on
// (and, when it replaces one, of those the assertion asserted on).
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
	// Replacing an assertion takes the right on what it asserted on too,
	// or a right on one asset would rewrite the assertions of any other.
	assets, err := r.assertees(ctx, target)
	if err != nil {
		return nil, err
	}
	ctx, err = r.delegate(ctx, "edit the assertions of the resource", uniq(append(assets, in.EntityUrn)), "EDIT_ENTITY_ASSERTIONS")
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
	assets, err := r.assertees(ctx, urn)
	if err != nil {
		return nil, err
	}
	ctx, err = r.delegate(ctx, "delete the assertions of the resource", assets, "EDIT_ENTITY_ASSERTIONS")
	if err != nil {
		return nil, err
	}
	return r.remove(ctx, urn, "assertion")
}

// assertees are the assets (not their fields) an assertion asserts on.
func (r *Resolver) assertees(ctx context.Context, urn string) ([]string, error) {
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
	return uniq(assets), nil
}

// ReportAssertionResult records a run of an assertion evaluated outside
// the catalog, at the time given or now, as DataHub does: the run id is
// the time, the assertee the asset the assertion asserts on.
func (r *mutationResolver) ReportAssertionResult(ctx context.Context, urn string, in model.AssertionResultInput) (bool, error) {
	if _, err := catalog.ParseURN(urn); err != nil {
		return false, err
	}
	if urnType(urn) != "assertion" {
		return false, invalidf("%s is not an assertion URN", urn)
	}
	assets, err := r.assertees(ctx, urn)
	if err != nil {
		return false, err
	}
	if len(assets) == 0 {
		return false, invalidf("Failed to report Assertion Run Event. Assertion with urn %s does not exist or is not associated with any entity.", urn)
	}
	ctx, err = r.delegate(ctx, "edit the assertions of the resource", assets[:1], "EDIT_ENTITY_ASSERTIONS")
	if err != nil {
		return false, err
	}
	at := now()
	if in.TimestampMillis != nil {
		at = *in.TimestampMillis
	}
	result := &models.AssertionResult{Type: models.AssertionResultType(in.Type), ExternalUrl: in.ExternalURL}
	if in.Type == model.AssertionResultTypeError && in.Error != nil {
		result.Error = &models.AssertionResultError{Type: models.AssertionResultErrorType(in.Error.Type), Properties: map[string]string{"message": in.Error.Message}}
	}
	if len(in.Properties) > 0 {
		result.NativeResults = map[string]string{}
		for _, p := range in.Properties {
			result.NativeResults[p.Key] = deref(p.Value)
		}
	}
	event := models.AssertionRunEvent{TimestampMillis: at, RunId: strconv.FormatInt(at, 10), AssertionUrn: urn, AsserteeUrn: assets[0],
		Status: models.AssertionRunStatusComplete, Result: result}
	p, err := proposal(urn, "assertionRunEvent", event)
	if err != nil {
		return false, err
	}
	if err := r.write(ctx, p); err != nil {
		return false, err
	}
	return true, nil
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
