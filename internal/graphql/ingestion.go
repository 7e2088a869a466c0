package graphql

import (
	"context"
	"strings"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/ingestion"
)

// ingestionService is the managed-ingestion service, an error without one.
func (r *Resolver) ingestionService() (*ingestion.Service, error) {
	if r.ingestion == nil {
		return nil, catalog.Errorf(catalog.Unavailable, "managed ingestion is not configured")
	}
	return r.ingestion, nil
}

func (r *queryResolver) ListSecrets(ctx context.Context, in model.ListSecretsInput) (*model.ListSecretsResult, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	start, count := page(in.Start, in.Count, 20)
	found, total, err := svc.ListSecrets(ctx, actorOf(ctx), deref(in.Query), start, count)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Secret, 0, len(found))
	for _, s := range found {
		sec := &model.Secret{Urn: s.URN, Name: s.Name}
		if s.Description != "" {
			sec.Description = &s.Description
		}
		out = append(out, sec)
	}
	n := len(out)
	return &model.ListSecretsResult{Start: &start, Count: &n, Total: &total, Secrets: out}, nil
}

func (r *mutationResolver) CreateSecret(ctx context.Context, in model.CreateSecretInput) (*string, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	urn, err := svc.CreateSecret(ctx, actorOf(ctx), in.Name, in.Value, deref(in.Description))
	if err != nil {
		return nil, err
	}
	return &urn, nil
}

func (r *mutationResolver) UpdateSecret(ctx context.Context, in model.UpdateSecretInput) (*string, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	if err := svc.UpdateSecret(ctx, actorOf(ctx), in.Urn, in.Name, in.Value, deref(in.Description)); err != nil {
		return nil, err
	}
	return &in.Urn, nil
}

func (r *mutationResolver) DeleteSecret(ctx context.Context, urn string) (*string, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	if err := svc.DeleteSecret(ctx, actorOf(ctx), urn); err != nil {
		return nil, err
	}
	return &urn, nil
}

func (r *mutationResolver) DeleteIngestionSource(ctx context.Context, urn string) (*string, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	if err := svc.DeleteSource(ctx, actorOf(ctx), urn); err != nil {
		return nil, err
	}
	return &urn, nil
}

func (r *mutationResolver) CreateIngestionExecutionRequest(ctx context.Context, in model.CreateIngestionExecutionRequestInput) (*string, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	urn, err := svc.CreateRun(ctx, actorOf(ctx), in.IngestionSourceUrn)
	if err != nil {
		return nil, err
	}
	return &urn, nil
}

func (r *mutationResolver) CancelIngestionExecutionRequest(ctx context.Context, in model.CancelIngestionExecutionRequestInput) (*string, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	if err := svc.Cancel(ctx, actorOf(ctx), in.IngestionSourceUrn, in.ExecutionRequestUrn); err != nil {
		return nil, err
	}
	return &in.ExecutionRequestUrn, nil
}

// RollbackIngestion rolls back the ingestion run in.RunID as DataHub's UI
// asks for it: for a manager of ingestion, the entities the run created
// hard-deleted and the aspects it changed restored. The UI sends the id of
// an execution request, whose run id is the request's URN: a run id that
// names no run but is such an id rolls back that request's run. It
// answers "true".
func (r *mutationResolver) RollbackIngestion(ctx context.Context, in model.RollbackIngestionInput) (*string, error) {
	if err := r.requireIngestion(ctx); err != nil {
		return nil, err
	}
	runID := in.RunID
	if !strings.HasPrefix(runID, "urn:") {
		// The UI names an execution request by its id; a managed run's
		// recipe has the request's URN as its run_id, as in DataHub.
		req := catalog.NewURN("dataHubExecutionRequest", runID)
		rows, err := r.store.RunAspects(ctx, catalog.RunAspectQuery{RunID: runID, IncludeSoftDeleted: true, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			runID = req
		}
	}
	if _, err := r.ingest.Rollback(ctx, actorOf(ctx), ingest.Rollback{RunID: runID, HardDelete: true}); err != nil {
		return nil, err
	}
	ok := "true"
	return &ok, nil
}

func (r *mutationResolver) CreateTestConnectionRequest(ctx context.Context, in model.CreateTestConnectionRequestInput) (*string, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	urn, err := svc.CreateTestConnection(ctx, actorOf(ctx), in.Recipe, deref(in.Version))
	if err != nil {
		return nil, err
	}
	return &urn, nil
}

// ListExecutionRequests lists runs, the latest requested first. The query
// matches a run's URN or its source's; filters name the run's
// ingestionSource or its executionResultStatus; systemSources keeps (true)
// or drops (false) the runs of sources whose source type is SYSTEM.
func (r *queryResolver) ListExecutionRequests(ctx context.Context, in model.ListExecutionRequestsInput) (*model.IngestionSourceExecutionRequests, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	if err := r.requireIngestion(ctx); err != nil {
		return nil, err
	}
	runs, err := svc.Runs(ctx, "")
	if err != nil {
		return nil, err
	}
	if in.Sort != nil && in.Sort.Field != "requestTimeMs" {
		return nil, invalidf("execution requests sort by requestTimeMs only, not %q", in.Sort.Field)
	}
	if in.Sort != nil && in.Sort.SortOrder == model.SortOrderAscending {
		for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
			runs[i], runs[j] = runs[j], runs[i]
		}
	}
	var system map[string]bool
	if in.SystemSources != nil {
		if system, err = svc.SystemSources(ctx); err != nil {
			return nil, err
		}
	}
	q := deref(in.Query)
	var kept []string
	for _, run := range runs {
		if q != "" && q != "*" && !containsFold(run.URN, q) && !containsFold(run.Source, q) {
			continue
		}
		if in.SystemSources != nil && system[run.Source] != *in.SystemSources {
			continue
		}
		ok, err := runMatches(run, in.Filters)
		if err != nil {
			return nil, err
		}
		if ok {
			kept = append(kept, run.URN)
		}
	}
	start, count := page(in.Start, in.Count, 20)
	return r.executionPage(ctx, kept, start, count), nil
}

// runMatches applies the filters the web app sends to a run.
func runMatches(run ingestion.Run, filters []*model.FacetFilterInput) (bool, error) {
	for _, f := range filters {
		if f.Field != "ingestionSource" && f.Field != "executionResultStatus" {
			return false, invalidf("unsupported execution request filter %q", f.Field)
		}
	}
	return facetsMatch(filters, func(field string) string {
		if field == "ingestionSource" {
			return run.Source
		}
		return run.Status
	}), nil
}

func (r *Resolver) requireIngestion(ctx context.Context) error {
	if r.auth == nil {
		return nil
	}
	return r.auth.Require(ctx, actorOf(ctx), auth.Resource{}, "manage ingestion sources", auth.PrivManageIngestion)
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func (r *Resolver) executionPage(ctx context.Context, urns []string, start, count int) *model.IngestionSourceExecutionRequests {
	page := window(urns, start, count)
	items := make([]*model.ExecutionRequest, 0, len(page))
	for _, u := range page {
		r.loaderOf(ctx).Want(u)
		items = append(items, &model.ExecutionRequest{Urn: u})
	}
	n, total := len(items), len(urns)
	return &model.IngestionSourceExecutionRequests{Start: &start, Count: &n, Total: &total, ExecutionRequests: items}
}

// IngestionSourceExecutions is the source's runs, the latest requested
// first (ten by default, as in DataHub).
func (r *computed) IngestionSourceExecutions(ctx context.Context, obj model.Entity, start, count *int) (*model.IngestionSourceExecutionRequests, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	runs, err := svc.Runs(ctx, obj.EntityURN())
	if err != nil {
		return nil, err
	}
	urns := make([]string, 0, len(runs))
	for _, run := range runs {
		urns = append(urns, run.URN)
	}
	s, c := page(start, count, 10)
	return r.executionPage(ctx, urns, s, c), nil
}

// IngestionSourceLatestSuccessfulExecution is the source's latest run that
// succeeded, null when none has.
func (r *computed) IngestionSourceLatestSuccessfulExecution(ctx context.Context, obj model.Entity) (*model.ExecutionRequest, error) {
	svc, err := r.ingestionService()
	if err != nil {
		return nil, err
	}
	runs, err := svc.Runs(ctx, obj.EntityURN())
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		if run.Status == ingestion.StatusSuccess {
			r.loaderOf(ctx).Want(run.URN)
			return &model.ExecutionRequest{Urn: run.URN}, nil
		}
	}
	return nil, nil
}
