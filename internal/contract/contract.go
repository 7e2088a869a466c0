// Package contract checks HTTP traffic against catalogd's OpenAPI document
// (openapi/openapi.yaml). It is test support: handlers' tests wrap their
// http.Client transport with (*Validator).Transport so that every response is
// validated against the wire contract, or call ValidateResponse directly.
//
// Rest.li actions share one OpenAPI operation per path (POST /aspects,
// POST /entities, ...). For those the operation's `x-restli-actions` extension
// maps the `action` query parameter to the exact request and response
// component schemas, and 2xx bodies are validated against the action's own
// schema (an action without a response schema must answer with an empty body).
package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/catalogd/catalogd/openapi"
)

// ActionsExtension is the operation extension that maps rest.li action names
// to component schema names: {action: {request: Name, response: Name}}.
const ActionsExtension = "x-restli-actions"

// Action describes one rest.li action of an operation.
type Action struct {
	Name string
	// Request and Response are component schema names; Response is empty
	// when the action answers 200 with an empty body.
	Request  string
	Response string

	request  *openapi3.Schema
	response *openapi3.Schema
}

// Validator validates requests and responses against the OpenAPI document.
// It is safe for concurrent use.
type Validator struct {
	doc     *openapi3.T
	router  routers.Router
	actions map[*openapi3.Operation]map[string]*Action
}

var registerDecoders sync.Once

// Load returns the Validator of the document (openapi.Document): parsed,
// checked and routed once, then shared, since it is safe for concurrent use
// and the document is fixed.
func Load() (*Validator, error) { return load() }

var load = sync.OnceValues(func() (*Validator, error) {
	registerDecoders.Do(func() {
		// kin-openapi has no decoder for HTML pages (/api/graphiql, /restli/docs).
		if openapi3filter.RegisteredBodyDecoder("text/html") == nil {
			openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
		}
	})
	spec, err := openapi.Document()
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("contract: load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("contract: invalid OpenAPI document: %w", err)
	}
	// Match routes on any host (tests run against httptest servers).
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("contract: build router: %w", err)
	}
	v := &Validator{doc: doc, router: router, actions: map[*openapi3.Operation]map[string]*Action{}}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			acts, err := parseActions(doc, op)
			if err != nil {
				return nil, fmt.Errorf("contract: %s %s: %w", method, path, err)
			}
			if acts != nil {
				v.actions[op] = acts
			}
		}
	}
	return v, nil
})

// MustLoad is Load that panics on error.
func MustLoad() *Validator {
	v, err := Load()
	if err != nil {
		panic(err)
	}
	return v
}

// Doc returns the parsed OpenAPI document (servers removed). Do not modify it.
func (v *Validator) Doc() *openapi3.T { return v.doc }

// Actions returns the rest.li actions of the operation serving method+path
// (path as in the document, e.g. "/aspects"), sorted by name; nil if the
// operation has none.
func (v *Validator) Actions(method, path string) []Action {
	item := v.doc.Paths.Value(path)
	if item == nil {
		return nil
	}
	op := item.GetOperation(strings.ToUpper(method))
	if op == nil {
		return nil
	}
	var out []Action
	for _, a := range v.actions[op] {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func parseActions(doc *openapi3.T, op *openapi3.Operation) (map[string]*Action, error) {
	raw, ok := op.Extensions[ActionsExtension]
	if !ok {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object, got %T", ActionsExtension, raw)
	}
	schemaOf := func(name string) (*openapi3.Schema, error) {
		ref := doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			return nil, fmt.Errorf("%s: unknown component schema %q", ActionsExtension, name)
		}
		return ref.Value, nil
	}
	acts := map[string]*Action{}
	for name, spec := range m {
		fields, ok := spec.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s.%s: want an object, got %T", ActionsExtension, name, spec)
		}
		a := &Action{Name: name}
		a.Request, _ = fields["request"].(string)
		a.Response, _ = fields["response"].(string)
		var err error
		if a.Request == "" {
			return nil, fmt.Errorf("%s.%s: missing request schema", ActionsExtension, name)
		}
		if a.request, err = schemaOf(a.Request); err != nil {
			return nil, err
		}
		if a.Response != "" {
			if a.response, err = schemaOf(a.Response); err != nil {
				return nil, err
			}
		}
		acts[name] = a
	}
	// The `action` query parameter enum must list exactly the mapped actions.
	var enum []string
	for _, p := range op.Parameters {
		if p.Value != nil && p.Value.In == openapi3.ParameterInQuery && p.Value.Name == "action" && p.Value.Schema != nil {
			for _, e := range p.Value.Schema.Value.Enum {
				s, _ := e.(string)
				enum = append(enum, s)
			}
		}
	}
	var names []string
	for n := range acts {
		names = append(names, n)
	}
	slices.Sort(enum)
	slices.Sort(names)
	if !slices.Equal(enum, names) {
		return nil, fmt.Errorf("action query enum %v does not match %s %v", enum, ActionsExtension, names)
	}
	return acts, nil
}

// match finds the operation (and rest.li action, if any) serving req.
func (v *Validator) match(req *http.Request) (*routers.Route, map[string]string, *Action, string, error) {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return nil, nil, nil, "", fmt.Errorf("contract: no operation for %s %s: %v", req.Method, req.URL.EscapedPath(), err)
	}
	name := fmt.Sprintf("%s %s (%s)", req.Method, route.Path, route.Operation.OperationID)
	acts := v.actions[route.Operation]
	if acts == nil {
		return route, params, nil, name, nil
	}
	action := req.URL.Query().Get("action")
	a := acts[action]
	if a == nil {
		return route, params, nil, name, &unknownActionError{name: name, action: action}
	}
	return route, params, a, fmt.Sprintf("%s %s?action=%s (%s)", req.Method, route.Path, action, route.Operation.OperationID), nil
}

// unknownActionError reports a rest.li action the document does not declare.
type unknownActionError struct{ name, action string }

func (e *unknownActionError) Error() string {
	return fmt.Sprintf("contract: %s: unknown rest.li action %q", e.name, e.action)
}

// ValidateResponse checks that a response with the given status, header and
// body is what the document promises for req: the route (method, escaped
// path, and for rest.li actions the `action` query parameter) must exist, the
// status must be declared, and the body must match the declared schema. The
// error names the operation and the JSON pointer of each mismatch.
func (v *Validator) ValidateResponse(req *http.Request, status int, header http.Header, body []byte) error {
	route, params, action, name, err := v.match(req)
	var unknown *unknownActionError
	if errors.As(err, &unknown) && status >= 400 {
		// Rejecting an unknown action is part of the contract: the error
		// body is checked against the operation's error responses below.
		err = nil
	}
	if err != nil {
		return err
	}
	if header == nil {
		header = http.Header{}
	}
	if action != nil && status >= 200 && status < 300 {
		if route.Operation.Responses.Status(status) == nil {
			return fmt.Errorf("contract: %s: status %d is not declared", name, status)
		}
		return validateActionBody(name, fmt.Sprintf("status %d: response", status), action.Response, action.response, header, body)
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      route,
		},
		Status:  status,
		Header:  header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("contract: %s: status %d: %s", name, status, describe(err))
	}
	return nil
}

// ValidateRequest checks a request (with its body) against the document:
// route, parameters, and body (for rest.li actions, against the action's
// request schema). Authentication is not checked.
func (v *Validator) ValidateRequest(req *http.Request, body []byte) error {
	route, params, action, name, err := v.match(req)
	if err != nil {
		return err
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	input := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: params,
		Route:      route,
		Options: &openapi3filter.Options{
			MultiError:         true,
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			ExcludeRequestBody: action != nil,
		},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
		return fmt.Errorf("contract: %s: request: %s", name, describe(err))
	}
	if action != nil {
		return validateActionBody(name, "request", action.Request, action.request, req.Header, body)
	}
	return nil
}

func validateActionBody(name, what, schemaName string, schema *openapi3.Schema, header http.Header, body []byte) error {
	if schema == nil {
		if len(bytes.TrimSpace(body)) != 0 {
			return fmt.Errorf("contract: %s: %s body must be empty, got %d bytes: %.200s", name, what, len(body), body)
		}
		return nil
	}
	if ct := header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return fmt.Errorf("contract: %s: %s Content-Type %q is not JSON", name, what, ct)
		}
	} else if what != "request" {
		return fmt.Errorf("contract: %s: %s has no Content-Type (want application/json)", name, what)
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("contract: %s: %s body is not JSON: %v: %.200s", name, what, err, body)
	}
	opts := []openapi3.SchemaValidationOption{openapi3.MultiErrors()}
	if what != "request" {
		opts = append(opts, openapi3.VisitAsResponse())
	} else {
		opts = append(opts, openapi3.VisitAsRequest())
	}
	if err := schema.VisitJSON(value, opts...); err != nil {
		return fmt.Errorf("contract: %s: %s body doesn't match schema #/components/schemas/%s: %s", name, what, schemaName, describe(err))
	}
	return nil
}

// describe renders a kin-openapi error tree as "at /json/pointer: reason"
// lines.
func describe(err error) string {
	var lines []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			lines = append(lines, s)
		}
	}
	var walk func(prefix string, err error)
	walk = func(prefix string, err error) {
		var se *openapi3.SchemaError
		var re *openapi3filter.ResponseError
		var rqe *openapi3filter.RequestError
		switch {
		case isMulti(err):
			for _, e := range err.(openapi3.MultiError) {
				walk(prefix, e)
			}
		case errors.As(err, &re) && re.Err != nil:
			walk(joinReason(prefix, re.Reason), re.Err)
		case errors.As(err, &rqe) && rqe.Err != nil:
			p := prefix
			if rqe.Parameter != nil {
				p = joinReason(p, fmt.Sprintf("parameter %q (%s)", rqe.Parameter.Name, rqe.Parameter.In))
			} else if rqe.RequestBody != nil {
				p = joinReason(p, "request body")
			}
			walk(joinReason(p, rqe.Reason), rqe.Err)
		case errors.As(err, &se):
			// Prefer the more specific nested errors (allOf/anyOf/oneOf members).
			if se.Origin != nil {
				var sub openapi3.MultiError
				var subSE *openapi3.SchemaError
				if errors.As(se.Origin, &sub) || errors.As(se.Origin, &subSE) {
					walk(prefix, se.Origin)
					return
				}
			}
			line := fmt.Sprintf("at /%s: %s", strings.Join(se.JSONPointer(), "/"), se.Reason)
			if prefix != "" {
				line = prefix + ": " + line
			}
			add(line)
		default:
			if prefix != "" {
				add(prefix + ": " + err.Error())
			} else {
				add(err.Error())
			}
		}
	}
	walk("", err)
	if len(lines) == 1 {
		return lines[0]
	}
	return "\n\t- " + strings.Join(lines, "\n\t- ")
}

func isMulti(err error) bool {
	_, ok := err.(openapi3.MultiError)
	return ok
}

func joinReason(prefix, reason string) string {
	switch {
	case reason == "":
		return prefix
	case prefix == "":
		return reason
	}
	return prefix + ": " + reason
}

// Transport returns an http.RoundTripper that passes requests to base (nil =
// http.DefaultTransport) and validates every response with ValidateResponse;
// a mismatch fails the test with t.Errorf. The response body is buffered and
// restored, so callers read it as usual. HEAD responses are not validated.
func (v *Validator) Transport(t testing.TB, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{v: v, t: t, base: base}
}

type transport struct {
	v    *Validator
	t    testing.TB
	base http.RoundTripper
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := tr.base.RoundTrip(req)
	if err != nil || resp == nil || req.Method == http.MethodHead {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		tr.t.Errorf("contract: %s %s: reading response body: %v", req.Method, req.URL, rerr)
		return resp, nil
	}
	if verr := tr.v.ValidateResponse(req, resp.StatusCode, resp.Header, body); verr != nil {
		tr.t.Errorf("%v\n\tresponse body: %.500s", verr, body)
	}
	return resp, nil
}
