package graphqlgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogd/catalogd/internal/schemagen"
)

// checker holds the generated fields to the aspect schemas: every aspect an
// @aspect names must be one of the entity's, and every path a generated
// field reads must exist in the aspect's JSON Schema with a type the field's
// GraphQL type can be converted from. A type shown at several places is
// checked at each.
type checker struct {
	m         *model
	s         *schemagen.Model
	seen      map[string]bool // node type + schema already checked
	conflicts map[string]bool // fields whose defaults disagree
}

// check checks m against the metadata model s.
func (m *model) check(s *schemagen.Model) {
	c := &checker{m: m, s: s, seen: map[string]bool{}, conflicts: map[string]bool{}}
	defer func() {
		for f := range c.conflicts {
			delete(m.defaults, f)
		}
	}()
	aspectsOf := map[string]map[string]bool{}
	keyOf := map[string]string{}
	for _, e := range s.Entities {
		as := map[string]bool{e.KeyAspect: true}
		for _, a := range e.Aspects {
			as[a] = true
		}
		aspectsOf[e.Name] = as
		keyOf[e.Name] = e.KeyAspect
	}
	for _, d := range m.schema.Types {
		dir := d.Directives.ForName(dirAspect)
		if d.Kind != ast.Object || dir == nil {
			continue
		}
		file := s.Aspects[argString(dir, "name")]
		if file == nil {
			m.errorf("%s: @aspect names no aspect", d.Name)
			continue
		}
		sch, err := s.Deref(file.S)
		if err != nil {
			m.errorf("%s: %v", d.Name, err)
			continue
		}
		c.node(d, sch)
	}
	for _, e := range m.entities {
		as, known := aspectsOf[e.name]
		for _, f := range e.def.Fields {
			dir := f.Directives.ForName(dirAspect)
			if dir == nil {
				continue
			}
			where := e.def.Name + "." + f.Name
			name := argString(dir, "name")
			if !known {
				m.errorf("%s: @entity %q is not an entity type of the registry, so it has no aspects", where, e.name)
				continue
			}
			if !as[name] {
				m.errorf("%s: %q is not an aspect of %s", where, name, e.name)
				continue
			}
			file := s.Aspects[name]
			if file == nil {
				m.errorf("%s: aspect %q has no schema", where, name)
				continue
			}
			p := argString(dir, "path")
			if p == "" {
				c.value(where, f.Type, file.S)
				continue
			}
			for _, alt := range parsePath(p) {
				if len(alt) > 0 && strings.HasPrefix(alt[0], "$") {
					continue // the entity's, not the aspect's
				}
				sch, err := c.walk(file.S, alt)
				if err != nil {
					m.errorf("%s: @aspect path %q: %v", where, p, err)
					continue
				}
				c.value(where, f.Type, sch)
			}
		}
	}
}

// walk returns the schema at path below s. After a "*" it is the schema of
// an array of what the rest of the path reads.
func (c *checker) walk(s *schemagen.Schema, path []string) (*schemagen.Schema, error) {
	for i, seg := range path {
		if seg == "." {
			continue
		}
		d, err := c.s.Deref(s)
		if err != nil {
			return nil, err
		}
		switch {
		case d.Type == "array" && seg == "#" && i == len(path)-1:
			return &schemagen.Schema{Type: "integer"}, nil
		case d.Type == "array" && d.Items != nil && seg == "*":
			el, err := c.walk(d.Items, path[i+1:])
			if err != nil {
				return nil, err
			}
			return &schemagen.Schema{Type: "array", Items: el}, nil
		case d.Type == "array" && d.Items != nil && isIndex(seg):
			s = d.Items
		case d.Type == "object" && d.Properties.M[seg] != nil:
			s = d.Properties.M[seg]
		case d.MapValue() != nil:
			s = d.MapValue()
		default:
			return nil, fmt.Errorf("%q is not a member of %s", seg, describe(d))
		}
	}
	return s, nil
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func describe(s *schemagen.Schema) string {
	if s.Title != "" {
		return s.Title
	}
	if s.Type != "" {
		return "a JSON " + s.Type
	}
	return "the value"
}

// value checks that a field of GraphQL type t can be read from values of
// schema s.
func (c *checker) value(where string, t *ast.Type, s *schemagen.Schema) {
	d, err := c.s.Deref(s)
	if err != nil {
		c.m.errorf("%s: %v", where, err)
		return
	}
	if t.Elem != nil {
		switch {
		case d.Type == "array" && d.Items != nil:
			c.value(where, t.Elem, d.Items)
		case d.MapValue() != nil:
			c.entries(where, t.Elem, d.MapValue())
		default:
			c.m.errorf("%s: a list read from %s, which is neither an array nor a map", where, describe(d))
		}
		return
	}
	name := t.Name()
	def := c.m.schema.Types[name]
	switch def.Kind {
	case ast.Scalar:
		ok := false
		switch name {
		case "String", "ID":
			ok = d.Type == "string" || d.Type == "integer" || d.Type == "number" || d.Type == "boolean"
		case "Long", "Int":
			ok = d.Type == "integer"
		case "Float":
			ok = d.Type == "number" || d.Type == "integer"
		case "Boolean":
			ok = d.Type == "boolean"
		}
		if !ok {
			c.m.errorf("%s: a %s read from %s", where, name, describe(d))
		}
	case ast.Enum:
		if d.Type != "string" {
			c.m.errorf("%s: enum %s read from %s", where, name, describe(d))
			return
		}
		for _, sym := range d.Enum {
			if s, ok := sym.(string); ok && def.EnumValues.ForName(s) == nil {
				c.m.errorf("%s: stored symbol %s is not a value of enum %s", where, s, name)
			}
		}
	case ast.Object, ast.Interface, ast.Union:
		if c.m.byName[name] != nil || def.Kind != ast.Object {
			if d.Type != "string" {
				c.m.errorf("%s: entity %s read from %s, which is not a URN", where, name, describe(d))
			}
			return
		}
		c.node(def, d)
	}
}

// recordDefault records the default of a field read from schema s: a
// scalar default, the same wherever the field's type is shown.
func (c *checker) recordDefault(field string, s *schemagen.Schema) {
	d := strings.TrimSpace(string(s.Default))
	if d == "" || d[0] == '{' || d[0] == '[' || d == "null" {
		d = ""
	}
	if prev, ok := c.m.defaults[field]; ok && prev != d {
		c.conflicts[field] = true
	}
	c.m.defaults[field] = d
}

// entries checks a list of element type t read from a map with values of
// schema val: each entry is a {key, value} object.
func (c *checker) entries(where string, t *ast.Type, val *schemagen.Schema) {
	def := c.m.schema.Types[t.Name()]
	if t.Elem != nil || def == nil || !c.m.isNode[def.Name] {
		c.m.errorf("%s: a map is read as a list of objects showing its entries", where)
		return
	}
	entry := &schemagen.Schema{Type: "object", Title: "a map entry", Properties: schemagen.Props{
		Names: []string{"key", "value"},
		M:     map[string]*schemagen.Schema{"key": {Type: "string"}, "value": val},
	}}
	c.node(def, entry)
}

// node checks the generated fields of def against object schema s.
func (c *checker) node(def *ast.Definition, s *schemagen.Schema) {
	id := fmt.Sprintf("%s@%p", def.Name, s)
	if c.seen[id] {
		return
	}
	c.seen[id] = true
	for _, f := range def.Fields {
		if !generated(f) {
			continue
		}
		where := def.Name + "." + f.Name
		path := [][]string{{f.Name}}
		if dir := f.Directives.ForName(dirFrom); dir != nil {
			path = parsePath(argString(dir, "path"))
		}
		for _, p := range path {
			if len(p) > 0 && strings.HasPrefix(p[0], "$") {
				continue // the entity's, not the aspect's
			}
			at, err := c.walk(s, p)
			if err != nil {
				c.m.errorf("%s: reads %s in %s: %v", where, strings.Join(p, "/"), describe(s), err)
				continue
			}
			c.value(where, f.Type, at)
			if len(path) == 1 {
				c.recordDefault(where, at)
			}
		}
	}
}
