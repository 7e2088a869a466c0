package graphql

import (
	"context"
	"encoding/json"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// Metadata tests: definitions (testInfo) managed with MANAGE_TESTS; the
// results an evaluator writes on assets (testResults) are shown on them.

// testInfo builds a test's info, checking its definition is JSON.
func testInfo(name, category string, description *string, def *model.TestDefinitionInput) (models.TestInfo, error) {
	if name == "" || category == "" {
		return models.TestInfo{}, invalidf("A test needs a name and a category")
	}
	d := models.TestDefinition{Type: "JSON"}
	if def != nil && def.JSON != nil {
		if !json.Valid([]byte(*def.JSON)) {
			return models.TestInfo{}, invalidf("Failed to validate test definition: it is not JSON")
		}
		d.Json = def.JSON
	}
	return models.TestInfo{Name: name, Category: category, Description: description, Definition: d}, nil
}

// CreateTest creates a metadata test and returns its URN.
func (r *mutationResolver) CreateTest(ctx context.Context, in model.CreateTestInput) (*string, error) {
	info, err := testInfo(in.Name, in.Category, in.Description, in.Definition)
	if err != nil {
		return nil, err
	}
	return r.create(ctx, "test", "Test", nilIfEmpty(in.ID), func(urn string, p *proposals) {
		p.add(urn, "testInfo", info)
	})
}

// UpdateTest replaces the name, category, description and definition of a
// metadata test.
func (r *mutationResolver) UpdateTest(ctx context.Context, urn string, in model.UpdateTestInput) (*string, error) {
	if ok, err := r.existsAs(ctx, urn, "test"); err != nil {
		return nil, err
	} else if !ok {
		return nil, invalidf("Test %s does not exist", urn)
	}
	info, err := testInfo(in.Name, in.Category, in.Description, in.Definition)
	if err != nil {
		return nil, err
	}
	p, err := proposal(urn, "testInfo", info)
	if err != nil {
		return nil, err
	}
	if err := r.write(ctx, p); err != nil {
		return nil, err
	}
	return &urn, nil
}

// DeleteTest deletes a metadata test; results already written on assets
// stay until the next evaluation, as in DataHub.
func (r *mutationResolver) DeleteTest(ctx context.Context, urn string) (*bool, error) {
	return r.remove(ctx, urn, "test")
}

// ListTests lists the metadata tests matching a text.
func (r *queryResolver) ListTests(ctx context.Context, in model.ListTestsInput) (*model.ListTestsResult, error) {
	urns, s, total, err := r.list(ctx, "test", in.Query, in.Start, in.Count)
	if err != nil {
		return nil, err
	}
	out := &model.ListTestsResult{Start: s, Count: len(urns), Total: total, Tests: []*model.Test{}}
	for _, u := range urns {
		out.Tests = append(out.Tests, &model.Test{Urn: u})
	}
	return out, nil
}
