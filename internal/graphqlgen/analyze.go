// Package graphqlgen is the gqlgen plugin that generates catalogd's GraphQL
// fields from the schema's annotations, so that a field showing stored
// metadata is a schema edit, not Go code. It reads these directives of
// graphql/directives.graphqls:
//
//   - @entity(name, type, fromUrn) on an object: the type shows entities of
//     the registry's type name; its Go type holds only the URN, and the
//     generated EntityOf maps a URN to it (unless fromUrn is false: another
//     view of an entity type shown by another type).
//   - @aspect(name, path) on a field of an entity type: the field shows the
//     entity's aspect name, or the value at path inside it. On an object
//     type: the type shows values of the aspect (timeseries values, which
//     computed fields read).
//   - @from(path) on a field of a type that shows part of an aspect (a type
//     reached from an @aspect field): the field reads path ("a/b"; "x|y" for
//     the first present; "$urn" the entity's URN; "$key/f" a field of its
//     key) instead of its own name.
//   - @computed(fn) on a field: the field calls the method fn (by default
//     the field's name, prefixed with the type's for types that are not
//     entities) of the generated Computed interface, which the server
//     implements by hand: logic such as search, lineage or privileges.
//   - @unset on a field: DataHub declares the field but never fills it; it
//     is always null.
//   - @unsupported on a field: the field answers an error saying catalogd
//     does not serve it.
//   - @lookup on a root field taking a urn: the field answers the entity
//     the URN names when one is stored, else null.
//
// Every field of an entity type, and of a type showing part of an aspect,
// must be generated: by an annotation, or, on the latter, by its name.
// Conversions follow the field's GraphQL type: scalars and enums from JSON
// scalars, object types from JSON objects, entity types (and interfaces and
// unions of them) from URNs, lists from arrays or from maps (one
// {key, value} object per entry).
package graphqlgen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/99designs/gqlgen/codegen/templates"
	"github.com/vektah/gqlparser/v2/ast"
)

// Directive names.
const (
	dirEntity      = "entity"
	dirAspect      = "aspect"
	dirFrom        = "from"
	dirComputed    = "computed"
	dirUnsupported = "unsupported"
	dirUnset       = "unset"
	dirLookup      = "lookup"
)

// model is the analysis of a schema: which types the generator writes and
// how each of their fields is resolved.
type model struct {
	schema   *ast.Schema
	entities []*entity          // in name order
	byName   map[string]*entity // GraphQL type name → entity
	nodes    []string           // types showing part of an aspect, in name order
	isNode   map[string]bool
	hooks    map[string]*hook // Computed method name → signature
	// defaults are the schema defaults of fields of types showing part of
	// an aspect ("Type.field" → JSON), read when the value is absent; a
	// field whose places disagree has none.
	defaults map[string]string
	errs     []string
}

type entity struct {
	def     *ast.Definition
	name    string // the registry's entity type name, as in URNs
	typ     string // the EntityType symbol
	fromURN bool   // EntityOf gives this type for URNs of the entity type
}

// hook is one method of the Computed interface.
type hook struct {
	name   string
	params string // after ctx: "obj Entity, input RelationshipsInput"
	result string // Go result type
	first  string // the field that declared it first, for error messages
}

func (m *model) errorf(format string, args ...any) {
	m.errs = append(m.errs, fmt.Sprintf(format, args...))
}

// analyze classifies the types of s and checks the annotations.
func analyze(s *ast.Schema) (*model, error) {
	m := &model{schema: s, byName: map[string]*entity{}, isNode: map[string]bool{}, hooks: map[string]*hook{}, defaults: map[string]string{}}
	names := make([]string, 0, len(s.Types))
	for n := range s.Types {
		names = append(names, n)
	}
	sort.Strings(names)
	byEntity := map[string]string{}
	for _, n := range names {
		d := s.Types[n]
		dir := d.Directives.ForName(dirEntity)
		if dir == nil {
			continue
		}
		if d.Kind != ast.Object {
			m.errorf("%s: @entity on a %s", n, d.Kind)
			continue
		}
		e := &entity{def: d, name: argString(dir, "name"), typ: argString(dir, "type"), fromURN: argString(dir, "fromUrn") != "false"}
		if prev, ok := byEntity[e.name]; ok && e.fromURN {
			m.errorf("%s: entity type %q is already shown by %s", n, e.name, prev)
			continue
		}
		if e.fromURN {
			byEntity[e.name] = n
		}
		m.entities = append(m.entities, e)
		m.byName[n] = e
	}
	// Types showing part of an aspect: those reached from @aspect fields
	// through generated fields.
	var work []string
	reach := func(from string, t *ast.Type) {
		d := s.Types[t.Name()]
		if d == nil || d.Kind != ast.Object || m.byName[d.Name] != nil || m.isNode[d.Name] {
			return
		}
		if d.Name == s.Query.Name || (s.Mutation != nil && d.Name == s.Mutation.Name) {
			m.errorf("%s: a root type cannot show an aspect", from)
			return
		}
		m.isNode[d.Name] = true
		work = append(work, d.Name)
	}
	for _, e := range m.entities {
		for _, f := range e.def.Fields {
			if f.Directives.ForName(dirAspect) != nil {
				reach(e.def.Name+"."+f.Name, f.Type)
			}
		}
	}
	for _, n := range names {
		if d := s.Types[n]; d.Kind == ast.Object && d.Directives.ForName(dirAspect) != nil {
			if m.byName[n] != nil {
				m.errorf("%s: an entity type cannot show an aspect", n)
				continue
			}
			reach(n, &ast.Type{NamedType: n})
		}
	}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		for _, f := range s.Types[n].Fields {
			if generated(f) {
				reach(n+"."+f.Name, f.Type)
			}
		}
	}
	for n := range m.isNode {
		m.nodes = append(m.nodes, n)
	}
	sort.Strings(m.nodes)
	if len(m.errs) > 0 {
		return nil, m.err()
	}
	return m, nil
}

func (m *model) err() error {
	return fmt.Errorf("graphql schema annotations:\n  %s", strings.Join(m.errs, "\n  "))
}

// generated reports whether a field of a type showing an aspect reads it
// (rather than being computed, unset or unsupported).
func generated(f *ast.FieldDefinition) bool {
	return f.Directives.ForName(dirComputed) == nil && f.Directives.ForName(dirUnsupported) == nil && f.Directives.ForName(dirUnset) == nil
}

// argString returns the string value of a directive argument, "" if absent.
func argString(d *ast.Directive, name string) string {
	a := d.Arguments.ForName(name)
	if a == nil || a.Value == nil {
		return ""
	}
	return a.Value.Raw
}

// goName is the Go name gqlgen gives a GraphQL type.
func goName(name string) string { return templates.ToGoModelName(name) }

// goField is the Go name gqlgen looks for when binding a field.
func goField(name string) string { return templates.ToGo(name) }

var scalars = map[string]string{"String": "string", "ID": "string", "Boolean": "bool", "Int": "int", "Float": "float64", "Long": "int64"}

// kindOf returns the kind of the named type t.
func (m *model) kindOf(name string) ast.DefinitionKind {
	if d := m.schema.Types[name]; d != nil {
		return d.Kind
	}
	return ""
}

// goType is the Go type gqlgen binds a field of GraphQL type t to.
func (m *model) goType(t *ast.Type) (string, error) {
	if t.Elem != nil {
		el, err := m.goType(t.Elem)
		if err != nil {
			return "", err
		}
		return "[]" + el, nil
	}
	name := t.Name()
	switch m.kindOf(name) {
	case ast.Scalar:
		g, ok := scalars[name]
		if !ok {
			return "", fmt.Errorf("scalar %s has no Go type", name)
		}
		if t.NonNull {
			return g, nil
		}
		return "*" + g, nil
	case ast.Enum:
		if t.NonNull {
			return goName(name), nil
		}
		return "*" + goName(name), nil
	case ast.Object, ast.InputObject:
		return "*" + goName(name), nil
	case ast.Interface, ast.Union:
		return goName(name), nil
	}
	return "", fmt.Errorf("unknown type %s", name)
}

// argType is the Go type gqlgen passes an argument of GraphQL type t as.
func (m *model) argType(t *ast.Type) (string, error) {
	if t.Elem != nil {
		el := t.Elem
		if el.Elem == nil && m.kindOf(el.Name()) == ast.InputObject {
			return "[]*" + goName(el.Name()), nil
		}
		g, err := m.argType(el)
		if err != nil {
			return "", err
		}
		return "[]" + g, nil
	}
	name := t.Name()
	if m.kindOf(name) == ast.InputObject {
		if t.NonNull {
			return goName(name), nil
		}
		return "*" + goName(name), nil
	}
	return m.goType(t)
}

// zero is the zero value of the Go type of t, for error returns.
func (m *model) zero(t *ast.Type) string {
	if t.Elem != nil || !t.NonNull {
		return "nil"
	}
	switch m.kindOf(t.Name()) {
	case ast.Scalar:
		switch scalars[t.Name()] {
		case "string":
			return `""`
		case "bool":
			return "false"
		}
		return "0"
	case ast.Enum:
		return `""`
	}
	return "nil"
}

// allEntities reports whether the interface or union name has only entity
// types as possible types, so that its values can be read from URNs.
func (m *model) allEntities(name string) bool {
	pt := m.schema.PossibleTypes[name]
	if len(pt) == 0 {
		return false
	}
	for _, d := range pt {
		if d.Kind == ast.Object && m.byName[d.Name] == nil {
			return false
		}
	}
	return true
}

// parsePath splits a @from path into its alternatives, each a list of
// member names.
func parsePath(p string) [][]string {
	var out [][]string
	for _, alt := range strings.Split(p, "|") {
		alt = strings.Trim(strings.TrimSpace(alt), "/")
		if alt == "" {
			out = append(out, nil)
			continue
		}
		out = append(out, strings.Split(alt, "/"))
	}
	return out
}

// goKeywords are the Go keywords a GraphQL argument may be named.
var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true, "defer": true,
	"else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true, "if": true,
	"import": true, "interface": true, "map": true, "package": true, "range": true, "return": true,
	"select": true, "struct": true, "switch": true, "type": true, "var": true,
}

// paramName is the Go parameter of an argument: its name, capitalised when
// it is a Go keyword (gqlgen matches parameters to arguments ignoring case).
func paramName(arg string) string {
	if goKeywords[arg] {
		return strings.ToUpper(arg[:1]) + arg[1:]
	}
	return arg
}
