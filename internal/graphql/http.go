package graphql

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	generated "github.com/catalogd/catalogd/gen/graphql"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// DefaultMaxBody bounds a GraphQL request body when Config.MaxBody is 0.
const DefaultMaxBody = 8 << 20

// Content types of GraphQL over HTTP.
const (
	contentJSON            = "application/json"
	contentGraphQLResponse = "application/graphql-response+json"
)

// Handler serves POST /api/graphql. It is safe for concurrent use.
type Handler struct {
	exec     *executor.Executor
	resolver *Resolver
	actor    func(*http.Request) string
	maxBody  int64
}

// New returns the GraphQL HTTP handler.
func New(c Config) *Handler {
	r := newResolver(c)
	es := generated.NewExecutableSchema(generated.Config{Resolvers: r})
	exec := executor.New(es)
	cache := lru.New[*ast.QueryDocument](1000)
	exec.SetQueryCache(cache)
	exec.SetParserTokenLimit(MaxTokens)
	exec.Use(extension.Introspection{})
	exec.Use(&extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)})
	// After the persisted query extension, which may fill the query in.
	exec.Use(bounds{cache: cache})
	exec.SetErrorPresenter(presentError)
	exec.SetRecoverFunc(recoverPanic)
	if c.ObserveOperation != nil {
		exec.Use(observer{observe: c.ObserveOperation})
	}
	h := &Handler{exec: exec, actor: c.Actor, maxBody: c.MaxBody}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBody
	}
	h.resolver = r
	return h
}

// request is the body of a GraphQL request, kept raw so that each member's
// JSON type can be checked.
type request struct {
	Query         json.RawMessage `json:"query"`
	Variables     json.RawMessage `json:"variables"`
	OperationName json.RawMessage `json:"operationName"`
	Extensions    json.RawMessage `json:"extensions"`
}

// ServeHTTP implements DataHub's GraphQL transport: POST only (405
// otherwise); a body that is not a JSON request object is answered 400 with
// an empty body; every other request gets 200 with {data, errors?,
// extensions: {}}. A client that asks for application/graphql-response+json
// (the GraphQL-over-HTTP media type, which DataHub's clients never send) gets
// that media type and 400 for requests that fail before execution, as the
// GraphQL-over-HTTP specification requires.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: use POST", http.StatusMethodNotAllowed)
		return
	}
	start := graphql.Now()
	media := responseType(r.Header.Get("Accept"))
	if media == "" {
		http.Error(w, "not acceptable: use application/json or application/graphql-response+json", http.StatusNotAcceptable)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	params, ok := parseRequest(body)
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	ctx := graphql.StartOperationTrace(r.Context())
	actor := ""
	if h.actor != nil {
		actor = h.actor(r)
	}
	ctx = WithActor(ctx, actor)
	l := newLoader(h.resolver.store, h.resolver.reg, h.resolver.nativeUsers())
	ctx = withLoader(ctx, l)
	ctx = model.WithRuntime(ctx, model.Runtime{Source: l, Computed: &computed{h.resolver}})

	w.Header().Set("Content-Type", media+"; charset=utf-8")
	opCtx, errs := h.exec.CreateOperationContext(ctx, params)
	if errs != nil {
		javaWording(params.Query, errs)
		for _, e := range errs {
			requestError(e)
		}
		if media == contentGraphQLResponse {
			w.WriteHeader(http.StatusBadRequest)
		}
		resp := h.exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), errs)
		writeResponse(w, resp, false)
		return
	}
	responses, ctx := h.exec.DispatchOperation(ctx, opCtx)
	writeResponse(w, responses(ctx), true)
}

// requestError gives an error found before execution (syntax, validation,
// limits) DataHub's extensions: code 400 BAD_REQUEST, with graphql-java's
// classification in place of gqlgen's own code.
func requestError(e *gqlerror.Error) {
	switch e.Extensions["code"] {
	case errcode.ParseFailed:
		e.Extensions["classification"] = "InvalidSyntax"
	case errcode.ValidationFailed:
		e.Extensions["classification"] = "ValidationError"
	}
	withCode(e, codeBadRequest)
}

// responseType picks the response media type from the Accept header:
// application/json unless the client accepts only the GraphQL response type
// or prefers it; "" when the client accepts neither.
func responseType(accept string) string {
	if strings.TrimSpace(accept) == "" {
		return contentJSON
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case contentGraphQLResponse:
			return contentGraphQLResponse
		case contentJSON, "*/*", "application/*":
			return contentJSON
		}
	}
	return ""
}

// parseRequest decodes a request body, checking each member's JSON type:
// query a string (it may be absent for a persisted query), variables and
// extensions objects, operationName a string; null counts as absent.
func parseRequest(body []byte) (*graphql.RawParams, bool) {
	var req request
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&req); err != nil || d.More() {
		return nil, false
	}
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return nil, false
	}
	p := &graphql.RawParams{}
	if !decodeMember(req.Query, &p.Query) || !decodeMember(req.OperationName, &p.OperationName) ||
		!decodeMember(req.Variables, &p.Variables) || !decodeMember(req.Extensions, &p.Extensions) {
		return nil, false
	}
	if p.Query == "" && p.Extensions["persistedQuery"] == nil {
		return nil, false
	}
	return p, true
}

// decodeMember decodes one member unless it is absent or null.
func decodeMember[T any](raw json.RawMessage, v *T) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v) == nil
}

// writeResponse writes {data, errors?, extensions: {}} as DataHub does
// (executionResult.toSpecification() with empty extensions). data is left out
// when the operation never ran.
func writeResponse(w http.ResponseWriter, resp *graphql.Response, executed bool) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	if executed {
		buf.WriteString(`"data":`)
		if len(resp.Data) == 0 {
			buf.WriteString("null")
		} else {
			buf.Write(resp.Data)
		}
		buf.WriteByte(',')
	}
	if len(resp.Errors) > 0 {
		b, err := json.Marshal(resp.Errors)
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		buf.WriteString(`"errors":`)
		buf.Write(b)
		buf.WriteByte(',')
	}
	buf.WriteString(`"extensions":{}}`)
	_, _ = w.Write(buf.Bytes())
}
