package graphql

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// Queries are saved SQL statements about datasets (queryProperties, and
// querySubjects naming the datasets). Writing one takes the right to edit
// the queries of its datasets, as in DataHub.

// CreateQuery saves a query about one or more datasets.
func (r *mutationResolver) CreateQuery(ctx context.Context, in model.CreateQueryInput) (*model.QueryEntity, error) {
	subjects := querySubjects(in.Subjects, func(s *model.CreateQuerySubjectInput) string { return s.DatasetUrn })
	if len(subjects) == 0 {
		return nil, invalidf("A query needs at least one subject")
	}
	if err := r.checkResources(ctx, subjects); err != nil {
		return nil, err
	}
	ctx, err := r.delegate(ctx, "create a query on the resource", subjects, "EDIT_ENTITY_QUERIES")
	if err != nil {
		return nil, err
	}
	st := stamp(ctx)
	urn := catalog.NewURN("query", uuid.NewString())
	var p proposals
	p.add(urn, "queryProperties", models.QueryProperties{Name: in.Properties.Name, Description: in.Properties.Description,
		Source: models.QuerySourceManual, Statement: queryStatement(in.Properties.Statement), Created: st, LastModified: st})
	p.add(urn, "querySubjects", subjectsAspect(subjects))
	if p.err != nil {
		return nil, p.err
	}
	p.list[0].ChangeType = catalog.CreateEntity
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return &model.QueryEntity{Urn: urn}, nil
}

func querySubjects[T any](in []T, urn func(T) string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		out = append(out, urn(s))
	}
	return uniq(out)
}

func subjectsAspect(urns []string) models.QuerySubjects {
	out := models.QuerySubjects{Subjects: []models.QuerySubject{}}
	for _, u := range urns {
		out.Subjects = append(out.Subjects, models.QuerySubject{Entity: u})
	}
	return out
}

func queryStatement(in *model.QueryStatementInput) models.QueryStatement {
	lang := models.QueryLanguage(in.Language)
	return models.QueryStatement{Value: in.Value, Language: &lang}
}

// storedSubjects returns the subjects of a stored query, NOT_FOUND when
// there is none.
func (r *Resolver) storedSubjects(ctx context.Context, urn string) ([]string, error) {
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	v, err := r.loaderOf(ctx).Aspect(ctx, urn, "querySubjects")
	if err != nil {
		return nil, err
	}
	if v == nil || urnType(urn) != "query" {
		return nil, catalog.Errorf(catalog.NotFound, "Failed to find query with urn %s", urn)
	}
	var s models.QuerySubjects
	if err := remarshal(v, &s); err != nil {
		return nil, err
	}
	return querySubjects(s.Subjects, func(s models.QuerySubject) string { return s.Entity }), nil
}

// UpdateQuery changes a query's name, description, statement or subjects.
func (r *mutationResolver) UpdateQuery(ctx context.Context, urn string, in model.UpdateQueryInput) (*model.QueryEntity, error) {
	old, err := r.storedSubjects(ctx, urn)
	if err != nil {
		return nil, err
	}
	subjects := querySubjects(in.Subjects, func(s *model.UpdateQuerySubjectInput) string { return s.DatasetUrn })
	if in.Subjects != nil && len(subjects) == 0 {
		return nil, invalidf("A query needs at least one subject")
	}
	if err := r.checkResources(ctx, subjects); err != nil {
		return nil, err
	}
	ctx, err = r.delegate(ctx, "update a query on the resource", uniq(append(old, subjects...)), "EDIT_ENTITY_QUERIES")
	if err != nil {
		return nil, err
	}
	st := stamp(ctx)
	props := []catalog.Proposal{edited(urn, "queryProperties", func(p *models.QueryProperties, found bool) bool {
		if in.Properties != nil {
			if in.Properties.Name != nil {
				p.Name = in.Properties.Name
			}
			if in.Properties.Description != nil {
				p.Description = in.Properties.Description
			}
			if in.Properties.Statement != nil {
				p.Statement = queryStatement(in.Properties.Statement)
			}
		}
		if !found {
			p.Source, p.Created = models.QuerySourceManual, st
		}
		p.LastModified = st
		return true
	})}
	if in.Subjects != nil {
		pr, err := proposal(urn, "querySubjects", subjectsAspect(subjects))
		if err != nil {
			return nil, err
		}
		props = append(props, pr)
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return &model.QueryEntity{Urn: urn}, nil
}

// DeleteQuery deletes a query.
func (r *mutationResolver) DeleteQuery(ctx context.Context, urn string) (*bool, error) {
	subjects, err := r.storedSubjects(ctx, urn)
	if err != nil {
		return nil, err
	}
	ctx, err = r.delegate(ctx, "delete a query on the resource", subjects, "EDIT_ENTITY_QUERIES")
	if err != nil {
		return nil, err
	}
	return r.remove(ctx, urn, "query")
}

// maxListed bounds the entities a list sorted in memory reads.
const maxListed = 10000

// ListQueries lists the queries matching a text, source and dataset, the
// latest created first.
func (r *queryResolver) ListQueries(ctx context.Context, in model.ListQueriesInput) (*model.ListQueriesResult, error) {
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	filter := filterOf(nil, in.OrFilters)
	if filter == nil {
		filter = &search.FilterInput{Or: []search.ConjunctionInput{{}}}
	}
	for i := range filter.Or {
		if in.Source != nil {
			filter.Or[i].And = append(filter.Or[i].And, search.CriterionInput{Field: "source", Values: []string{string(*in.Source)}})
		}
		if deref(in.DatasetUrn) != "" {
			filter.Or[i].And = append(filter.Or[i].And, search.CriterionInput{Field: "entities", Values: []string{*in.DatasetUrn}})
		}
	}
	q := deref(in.Query)
	if q == "" {
		q = "*"
	}
	res, err := svc.Search(ctx, search.SearchParams{Entities: []string{"query"}, Input: q, Filter: filter, Count: maxListed})
	if err != nil {
		return nil, err
	}
	urns := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		urns[i] = h.URN
	}
	l := r.loaderOf(ctx)
	l.prime(ctx, urns)
	created := map[string]int64{}
	for _, u := range urns {
		v, err := l.Aspect(ctx, u, "queryProperties")
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		c, _ := m["created"].(map[string]any)
		created[u], _ = jsonInt(c["time"])
	}
	desc := in.SortInput == nil || in.SortInput.SortCriterion.SortOrder != model.SortOrderAscending
	slices.SortStableFunc(urns, func(a, b string) int {
		if desc {
			a, b = b, a
		}
		switch {
		case created[a] < created[b]:
			return -1
		case created[a] > created[b]:
			return 1
		}
		return 0
	})
	s, c := page(in.Start, in.Count, 100)
	out := &model.ListQueriesResult{Start: s, Total: len(urns), Queries: []*model.QueryEntity{}}
	for i := s; i < len(urns) && i < s+c; i++ {
		out.Queries = append(out.Queries, &model.QueryEntity{Urn: urns[i]})
	}
	out.Count = len(out.Queries)
	return out, nil
}
