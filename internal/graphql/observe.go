package graphql

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// Outcomes of an operation, as Config.ObserveOperation reports them.
const (
	OutcomeOK       = "ok"       // it ran without errors
	OutcomeError    = "error"    // it ran and reported errors
	OutcomeRejected = "rejected" // it did not run: syntax, validation, limits
)

// observer is the executor extension that reports every answered operation
// to Config.ObserveOperation.
type observer struct {
	observe func(name, outcome string, d time.Duration)
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
	graphql.ResponseInterceptor
} = observer{}

// ranKey marks, in an operation's stats, that the operation ran.
const ranKey = "catalogd.ran"

// ExtensionName implements graphql.HandlerExtension.
func (observer) ExtensionName() string { return "Observer" }

// Validate implements graphql.HandlerExtension.
func (observer) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptOperation implements graphql.OperationInterceptor; it is called
// only for operations that run.
func (observer) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	graphql.GetOperationContext(ctx).Stats.SetExtension(ranKey, true)
	return next(ctx)
}

// InterceptResponse implements graphql.ResponseInterceptor; it is called
// for every response, of operations that ran and of rejected ones.
func (o observer) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || !graphql.HasOperationContext(ctx) {
		return resp
	}
	op := graphql.GetOperationContext(ctx)
	name := op.OperationName
	if name == "" && op.Operation != nil {
		name = op.Operation.Name
	}
	outcome := OutcomeRejected
	if op.Stats.GetExtension(ranKey) != nil {
		outcome = OutcomeOK
		if len(resp.Errors) > 0 {
			outcome = OutcomeError
		}
	}
	start := op.Stats.OperationStart
	if start.IsZero() {
		start = op.Stats.Read.End
	}
	o.observe(name, outcome, time.Since(start))
	return resp
}
