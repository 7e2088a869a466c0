package model

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// This file is the runtime of the generated fields (fields_gen.go): how they
// read aspects and convert stored JSON to GraphQL values. The generator
// (internal/graphqlgen) writes one method per field; each is a call of the
// helpers here with the field's path and type.

// Source is where generated fields read aspects, for one request. It is
// safe for concurrent use.
type Source interface {
	// Aspect returns the latest value of the aspect name of urn, decoded
	// as encoding/json with UseNumber decodes into an any, or nil when none
	// is stored. Key aspects are made from the URN. The value is shared:
	// callers must not modify it.
	Aspect(ctx context.Context, urn, name string) (any, error)
	// Key returns the key aspect of urn made from the URN, nil when urn is
	// malformed.
	Key(urn string) map[string]any
	// Want records URNs a value refers to, so that the entities are read
	// together, in one batch, when the first of them is.
	Want(urns ...string)
}

// Runtime is what generated fields need from the server for one request.
type Runtime struct {
	Source Source
	// Computed implements the generated interface Computed: the fields
	// marked @computed in the schema.
	Computed any
}

type runtimeKey struct{}

// WithRuntime returns ctx carrying rt, for the generated fields.
func WithRuntime(ctx context.Context, rt Runtime) context.Context {
	return context.WithValue(ctx, runtimeKey{}, rt)
}

// runtimeOf returns the runtime of ctx. Without one (a resolver called
// outside a request) the fields fail.
func runtimeOf(ctx context.Context) (Runtime, error) {
	rt, ok := ctx.Value(runtimeKey{}).(Runtime)
	if !ok || rt.Source == nil || rt.Computed == nil {
		return Runtime{}, catalog.Errorf(catalog.Internal, "graphql: no runtime in the request context")
	}
	return rt, nil
}

// Unsupported is the error of a field catalogd does not serve (marked
// @unsupported in the schema): the request is valid, but asks for
// something this server does not do.
func Unsupported(field string) error {
	return catalog.Errorf(catalog.Invalid, "%s is not supported by catalogd", field)
}

// Scope is where a value shown by a generated type comes from: the entity
// whose aspect holds it, and the source to read the entities it refers to.
type Scope struct {
	urn     string
	src     Source
	version int64 // of the aspect: 0 the latest
	system  any   // the value's system metadata, when known
}

// NewScope returns the scope of values of an aspect of urn, of its latest
// version, or of version when it is not 0.
func NewScope(urn string, src Source, version int64) *Scope {
	return &Scope{urn: urn, src: src, version: version}
}

// WithSystem returns a copy of s whose values have the system metadata
// system (decoded JSON), which paths read as $system.
func (s *Scope) WithSystem(system any) *Scope {
	c := *s
	c.system = system
	return &c
}

// URN returns the URN of the entity whose aspect holds the value.
func (s *Scope) URN() string { return s.urn }

func (s *Scope) want(urn string) {
	if urn != "" && s.src != nil {
		s.src.Want(urn)
	}
}

// key returns the entity's key aspect (see Source.Key).
func (s *Scope) key() map[string]any {
	if s.src == nil {
		return nil
	}
	return s.src.Key(s.urn)
}

// node is the value of a generated type: a JSON value of a stored aspect
// (usually an object) and its scope. Generated types hold it unexported, so
// that none of its methods binds to a GraphQL field.
type node struct {
	v any
	s *Scope
}

// Node is implemented by every generated type that shows part of an aspect.
type Node interface{ value() node }

// ValueOf returns the JSON value a generated type shows and its scope, for
// the computed fields that read it.
func ValueOf(n Node) (any, *Scope) {
	v := n.value()
	return v.v, v.s
}

// aspect reads the aspect name of urn at path (nil when absent) and returns
// it with its scope, which is there even when the aspect is not.
func aspect(ctx context.Context, urn, name string, path ...string) (any, *Scope, error) {
	rt, err := runtimeOf(ctx)
	if err != nil {
		return nil, nil, err
	}
	v, err := rt.Source.Aspect(ctx, urn, name)
	if err != nil {
		return nil, nil, err
	}
	return at(v, path), &Scope{urn: urn, src: rt.Source}, nil
}

// get returns the value at path below n (nil when absent). The path's
// segments are member names, array indexes, "*" (every element of an
// array, giving the array of what the rest of the path reads in each), "#"
// (the length of an array, 0 when absent) or "." (the value itself);
// "$urn" is the entity's URN, "$version" the version of the aspect, "$key"
// its key aspect and "$system" its system metadata (in first position
// only).
func (n node) get(path ...string) any {
	if len(path) > 0 && n.s != nil {
		switch path[0] {
		case "$urn":
			return n.s.urn
		case "$version":
			return json.Number(strconv.FormatInt(n.s.version, 10))
		case "$system":
			return at(n.s.system, path[1:])
		case "$key":
			return at(n.s.key(), path[1:])
		}
	}
	return at(n.v, path)
}

// first returns the first non-nil of the values at paths.
func (n node) first(paths ...[]string) any {
	for _, p := range paths {
		if v := n.get(p...); v != nil {
			return v
		}
	}
	return nil
}

func at(v any, path []string) any {
	for i, p := range path {
		if p == "." {
			continue
		}
		if p == "#" {
			a, _ := v.([]any)
			return json.Number(strconv.Itoa(len(a)))
		}
		if p == "*" {
			a, ok := v.([]any)
			if !ok {
				return nil
			}
			out := make([]any, 0, len(a))
			for _, x := range a {
				if y := at(x, path[i+1:]); y != nil {
					out = append(out, y)
				}
			}
			return out
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	if m, ok := v.(map[string]any); ok && m == nil {
		return nil
	}
	return v
}

// orEmpty returns v, or an empty object when v is absent: a non-null
// object field that is absent reads as the record's defaults.
func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

var errNoComputed = catalog.Errorf(catalog.Internal, "graphql: the runtime's Computed does not implement the generated interface")

// orDefault returns v, or the schema's default d when v is absent.
func orDefault(v, d any) any {
	if v == nil {
		return d
	}
	return v
}

// number is a JSON number as the stored values hold numbers.
func number(s string) json.Number { return json.Number(s) }

// items returns the elements of a JSON array; a JSON object (a Pegasus map)
// gives one {"key", "value"} object per member, sorted by key, so that maps
// read as lists of entries with stable order.
func items(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = map[string]any{"key": k, "value": x[k]}
		}
		return out
	}
	return nil
}

// toString converts a JSON scalar to a string: numbers and booleans as
// their JSON text; objects and arrays as JSON.
func toString(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case json.Number:
		return string(x), true
	case bool:
		return strconv.FormatBool(x), true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, true
		}
		if f, err := x.Float64(); err == nil {
			return int64(f), true
		}
	case float64:
		return int64(x), true
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f, true
		}
	case float64:
		return x, true
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

func toBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		b, err := strconv.ParseBool(x)
		return b, err == nil
	}
	return false, false
}

// The conversions of the generated fields: one per GraphQL scalar, the
// plain form for non-null fields (the zero value when absent, as DataHub's
// record defaults give) and the pointer form for nullable ones (nil when
// absent).

func str(v any) string        { s, _ := toString(v); return s }
func long(v any) int64        { n, _ := toInt64(v); return n }
func integer(v any) int       { n, _ := toInt64(v); return int(n) }
func float(v any) float64     { f, _ := toFloat(v); return f }
func boolean(v any) bool      { b, _ := toBool(v); return b }
func strPtr(v any) *string    { return ptrOf(toString(v)) }
func longPtr(v any) *int64    { return ptrOf(toInt64(v)) }
func floatPtr(v any) *float64 { return ptrOf(toFloat(v)) }
func boolPtr(v any) *bool     { return ptrOf(toBool(v)) }

func intPtr(v any) *int {
	n, ok := toInt64(v)
	if !ok {
		return nil
	}
	i := int(n)
	return &i
}

func ptrOf[T any](v T, ok bool) *T {
	if !ok {
		return nil
	}
	return &v
}

// enum is an enum type gqlgen generates.
type enum interface {
	~string
	IsValid() bool
}

// enumOf converts a stored symbol to E: absent gives !ok, a symbol E does
// not have an error naming the field.
func enumOf[E enum](v any, field string) (e E, ok bool, err error) {
	s, ok := toString(v)
	if !ok {
		return e, false, nil
	}
	e = E(s)
	if !e.IsValid() {
		return e, false, catalog.Errorf(catalog.Internal, "%s: stored value %q is not one of the enum's symbols", field, s)
	}
	return e, true, nil
}

// enumVal is enumOf for a non-null field: absent is an error.
func enumVal[E enum](v any, field string) (E, error) {
	e, ok, err := enumOf[E](v, field)
	if err == nil && !ok {
		err = catalog.Errorf(catalog.Internal, "%s: no value stored", field)
	}
	return e, err
}

// enumPtr is enumOf for a nullable field: a symbol E does not have reads
// as null, as the aspects whose schema types the field as a free string
// (corpUserStatus.status) may hold any.
func enumPtr[E enum](v any, field string) (*E, error) {
	e, ok, err := enumOf[E](v, field)
	if err != nil || !ok {
		return nil, nil
	}
	return &e, nil
}

func strList(v any) []string {
	it := items(v)
	if it == nil {
		return nil
	}
	out := make([]string, 0, len(it))
	for _, x := range it {
		if s, ok := toString(x); ok {
			out = append(out, s)
		}
	}
	return out
}

func strPtrList(v any) []*string {
	it := items(v)
	if it == nil {
		return nil
	}
	out := make([]*string, 0, len(it))
	for _, x := range it {
		if s, ok := toString(x); ok {
			out = append(out, &s)
		}
	}
	return out
}

func longList(v any) []int64 {
	it := items(v)
	if it == nil {
		return nil
	}
	out := make([]int64, 0, len(it))
	for _, x := range it {
		if n, ok := toInt64(x); ok {
			out = append(out, n)
		}
	}
	return out
}

func intList(v any) []int {
	it := items(v)
	if it == nil {
		return nil
	}
	out := make([]int, 0, len(it))
	for _, x := range it {
		if n, ok := toInt64(x); ok {
			out = append(out, int(n))
		}
	}
	return out
}

func floatList(v any) []float64 {
	it := items(v)
	if it == nil {
		return nil
	}
	out := make([]float64, 0, len(it))
	for _, x := range it {
		if f, ok := toFloat(x); ok {
			out = append(out, f)
		}
	}
	return out
}

func boolList(v any) []bool {
	it := items(v)
	if it == nil {
		return nil
	}
	out := make([]bool, 0, len(it))
	for _, x := range it {
		if b, ok := toBool(x); ok {
			out = append(out, b)
		}
	}
	return out
}

func enumList[E enum](v any, field string) ([]E, error) {
	it := items(v)
	if it == nil {
		return nil, nil
	}
	out := make([]E, 0, len(it))
	for _, x := range it {
		e, ok, err := enumOf[E](x, field)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// objects converts the elements of a JSON array (or the entries of a map)
// with mk, leaving out those that are not objects.
func objects[T any](v any, s *Scope, mk func(any, *Scope) *T) []*T {
	it := items(v)
	if it == nil {
		return nil
	}
	out := make([]*T, 0, len(it))
	for _, x := range it {
		if o := mk(x, s); o != nil {
			out = append(out, o)
		}
	}
	return out
}

// nonNil returns s, or an empty slice for a non-null list that is absent.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ref returns the entity of type T a stored URN names, nil when there is
// none or it names another type, and records it as wanted.
func ref[T any](v any, s *Scope, entity func(string) Entity) T {
	var zero T
	u, ok := v.(string)
	if !ok || u == "" {
		return zero
	}
	e := entity(u)
	if e == nil {
		return zero
	}
	t, ok := e.(T)
	if !ok {
		return zero
	}
	s.want(u)
	return t
}

// refs is ref for every URN of a JSON array.
func refs[T any](v any, s *Scope, entity func(string) Entity) []T {
	it := items(v)
	if it == nil {
		return nil
	}
	out := make([]T, 0, len(it))
	var zero T
	for _, x := range it {
		if t := ref[T](x, s, entity); any(t) != any(zero) {
			out = append(out, t)
		}
	}
	return out
}

// EntityName returns the entity type named in a URN ("" when malformed).
func EntityName(urn string) string {
	rest, ok := strings.CutPrefix(urn, "urn:li:")
	if !ok {
		return ""
	}
	t, _, _ := strings.Cut(rest, ":")
	return t
}
