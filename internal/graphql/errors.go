package graphql

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/99designs/gqlgen/graphql"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// The DataHub error codes (DataHubGraphQLErrorCode) and the one place a
// catalog.Kind becomes one of them.
const (
	codeBadRequest   = 400
	codeUnauthorized = 403
	codeNotFound     = 404
	codeConflict     = 409
	codeServerError  = 500
	codeUnavailable  = 503
)

var codeTypes = map[int]string{
	codeBadRequest:   "BAD_REQUEST",
	codeUnauthorized: "UNAUTHORIZED",
	codeNotFound:     "NOT_FOUND",
	codeConflict:     "CONFLICT",
	codeServerError:  "SERVER_ERROR",
	codeUnavailable:  "SERVICE_UNAVAILABLE",
}

// codeOf maps an error kind to a DataHub GraphQL error code.
func codeOf(k catalog.Kind) int {
	switch k {
	case catalog.Invalid, catalog.TooLarge:
		return codeBadRequest
	case catalog.Unauthorized, catalog.Forbidden:
		return codeUnauthorized
	case catalog.NotFound:
		return codeNotFound
	case catalog.Conflict, catalog.Precondition:
		return codeConflict
	case catalog.Unavailable:
		return codeUnavailable
	}
	return codeServerError
}

// Messages DataHub uses for failures whose details must not leak.
const (
	msgServerError  = "An unknown error occurred."
	msgUnauthorized = "Unauthorized to perform this action. Please contact your DataHub administrator."
)

// withCode sets DataHub's {code, type} extensions on e.
func withCode(e *gqlerror.Error, code int) *gqlerror.Error {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = code
	e.Extensions["type"] = codeTypes[code]
	return e
}

// presentError turns a resolver error into a GraphQL error entry. Internal
// errors are logged and shown as DataHub shows them, without details.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	var ce *catalog.Error
	var gqlErr *gqlerror.Error
	if !errors.As(err, &ce) && errors.As(err, &gqlErr) {
		// The executor's own errors (argument coercion, limits) are about
		// the request; keep their message.
		e := graphql.DefaultErrorPresenter(ctx, err)
		if _, ok := e.Extensions["type"]; !ok {
			withCode(e, codeBadRequest)
		}
		return e
	}
	e := graphql.DefaultErrorPresenter(ctx, err)
	kind := catalog.KindOf(err)
	switch kind {
	case catalog.Internal:
		if !errors.Is(err, context.Canceled) {
			slog.Error("graphql resolver failed", "path", e.Path.String(), "err", err)
		}
		e.Message = msgServerError
	case catalog.Unauthorized, catalog.Forbidden:
		e.Message = msgUnauthorized
	default:
		e.Message = userMessage(err)
	}
	return withCode(e, codeOf(kind))
}

// userMessage is the message of a classified error, with the operations
// that wrap it (e.g. which proposal of a write failed).
func userMessage(err error) string { return catalog.Message(err) }

// recoverPanic turns a resolver panic into an internal error.
func recoverPanic(_ context.Context, p any) error {
	slog.Error("graphql resolver panicked", "panic", p)
	return errors.New("panic in resolver")
}

// invalidf returns a BAD_REQUEST error with a formatted message.
func invalidf(format string, args ...any) error {
	return catalog.Errorf(catalog.Invalid, format, args...)
}

// notFoundIsNil maps a NotFound error to a nil result.
func notFoundIsNil(err error) error {
	if catalog.KindOf(err) == catalog.NotFound {
		return nil
	}
	return err
}

func jsonUnmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return catalog.WithOp("decode stored aspect", err)
	}
	return nil
}
