package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	generated "github.com/catalogd/catalogd/gen/graphql"
)

// graphqlShows checks, for one entity, that every field of its GraphQL type
// annotated with an aspect (@aspect, and below it the fields of the types
// showing parts of aspects, read at their name or @from path) shows what
// entitiesV2 returns of that aspect. It queries each such field through
// entity(urn) with every field below it a few levels deep, and returns how
// many stored values it compared.
type graphqlShows struct {
	schema *ast.Schema
	byName map[string]*ast.Definition // registry entity type → GraphQL type
}

func newGraphqlShows() *graphqlShows {
	s := generated.NewExecutableSchema(generated.Config{}).Schema()
	g := &graphqlShows{schema: s, byName: map[string]*ast.Definition{}}
	for _, d := range s.Types {
		if dir := d.Directives.ForName("entity"); dir != nil {
			if from := dir.Arguments.ForName("fromUrn"); from != nil && from.Value.Raw == "false" {
				continue
			}
			g.byName[dir.Arguments.ForName("name").Value.Raw] = d
		}
	}
	return g
}

// selectionDepth bounds how deep below an aspect field the check selects.
const selectionDepth = 4

// generatedField reports whether a field reads its value (rather than being
// computed, unset or unsupported) and takes no arguments.
func generatedField(f *ast.FieldDefinition) bool {
	return len(f.Arguments) == 0 && f.Directives.ForName("computed") == nil &&
		f.Directives.ForName("unsupported") == nil && f.Directives.ForName("unset") == nil
}

func (g *graphqlShows) isEntity(name string) bool {
	d := g.schema.Types[name]
	return d != nil && d.Directives.ForName("entity") != nil
}

// selection returns the selection set of a field of type t, "" for scalars.
func (g *graphqlShows) selection(t *ast.Type, depth int) string {
	d := g.schema.Types[t.Name()]
	switch d.Kind {
	case ast.Scalar, ast.Enum:
		return ""
	case ast.Interface, ast.Union:
		var b strings.Builder
		b.WriteString("{ __typename")
		for _, p := range g.schema.PossibleTypes[d.Name] {
			if g.isEntity(p.Name) {
				fmt.Fprintf(&b, " ... on %s { urn }", p.Name)
			}
		}
		return b.String() + " }"
	}
	if g.isEntity(d.Name) {
		return "{ urn }"
	}
	var parts []string
	for _, f := range d.Fields {
		if !generatedField(f) {
			continue
		}
		sub := g.selection(f.Type, depth+1)
		if sub != "" && depth >= selectionDepth {
			continue
		}
		parts = append(parts, f.Name+" "+sub)
	}
	if len(parts) == 0 {
		return "{ __typename }"
	}
	return "{ " + strings.Join(parts, " ") + " }"
}

// check queries the aspect fields of urn's GraphQL type and compares them
// with stored (entitiesV2's aspects: name → envelope).
func (g *graphqlShows) check(t *testing.T, srv *testServer, entity, urn string, stored map[string]any) int {
	t.Helper()
	d := g.byName[entity]
	if d == nil {
		return 0
	}
	value := func(aspect string) any {
		env, _ := stored[aspect].(map[string]any)
		return env["value"]
	}
	keyAspect := ""
	for name := range stored {
		if strings.HasSuffix(name, "Key") && strings.EqualFold(strings.TrimSuffix(name, "Key"), entity) {
			keyAspect = name
		}
	}
	n := 0
	shown := map[string]bool{}
	for _, f := range d.Fields {
		dir := f.Directives.ForName("aspect")
		if dir == nil {
			continue
		}
		aspect := dir.Arguments.ForName("name").Value.Raw
		shown[aspect] = true
		q := fmt.Sprintf("query($urn: String!) { entity(urn: $urn) { ... on %s { %s %s } } }", d.Name, f.Name, g.selection(f.Type, 1))
		r := srv.gql(t, q, map[string]any{"urn": urn})
		if len(r.Errors) > 0 {
			t.Errorf("%s %s.%s: %v", urn, d.Name, f.Name, r.Errors[0])
			continue
		}
		got, _ := pick(r.Data, []string{"entity", f.Name})
		v := value(aspect)
		if p := dir.Arguments.ForName("path"); p != nil {
			v = g.read(v, p.Value.Raw, value(keyAspect))
		}
		n += g.compare(t, urn+" "+d.Name+"."+f.Name, f.Type, got, v, value(keyAspect))
	}
	// The aspects no field shows are read whole through aspects.
	var rest []string
	for name := range stored {
		if !shown[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	if len(rest) == 0 {
		return n
	}
	if d.Fields.ForName("aspects") == nil {
		t.Errorf("%s: %s shows no field of %v and has no aspects field", urn, d.Name, rest)
		return n
	}
	q := fmt.Sprintf("query($urn: String!, $names: [String!]) { entity(urn: $urn) { ... on %s { aspects(input: {aspectNames: $names}) { aspectName payload } } } }", d.Name)
	r := srv.gql(t, q, map[string]any{"urn": urn, "names": rest})
	if len(r.Errors) > 0 {
		t.Errorf("%s %s.aspects: %v", urn, d.Name, r.Errors[0])
		return n
	}
	got, _ := pick(r.Data, []string{"entity", "aspects"})
	list, _ := got.([]any)
	if len(list) != len(rest) {
		t.Errorf("%s %s.aspects shows %d of %v", urn, d.Name, len(list), rest)
	}
	for _, x := range list {
		m, _ := x.(map[string]any)
		name, _ := m["aspectName"].(string)
		var payload any
		if s, ok := m["payload"].(string); !ok || json.Unmarshal([]byte(s), &payload) != nil {
			t.Errorf("%s %s.aspects %s: payload %v", urn, d.Name, name, m["payload"])
			continue
		}
		if asJSON(payload) != asJSON(value(name)) {
			t.Errorf("%s %s.aspects %s: payload %s, stored %s", urn, d.Name, name, asJSON(payload), asJSON(value(name)))
			continue
		}
		n++
	}
	return n
}

// read reads a path as the generated fields do: alternatives separated by
// |, member names, indexes, "*" and "#"; "$key/..." reads the key aspect;
// other $ paths are the server's and read as absent.
func (g *graphqlShows) read(v any, path string, key any) any {
	for _, alt := range strings.Split(path, "|") {
		segs := strings.Split(strings.Trim(alt, "/"), "/")
		cur := v
		if strings.HasPrefix(segs[0], "$") {
			if segs[0] != "$key" {
				return nil
			}
			cur, segs = key, segs[1:]
		}
		if got := readPath(cur, segs); got != nil {
			return got
		}
	}
	return nil
}

func readPath(v any, segs []string) any {
	for i, s := range segs {
		switch x := v.(type) {
		case map[string]any:
			if s == "." {
				continue
			}
			v = x[s]
		case []any:
			switch s {
			case "*":
				out := []any{}
				for _, e := range x {
					if y := readPath(e, segs[i+1:]); y != nil {
						out = append(out, y)
					}
				}
				return out
			case "#":
				return json.Number(strconv.Itoa(len(x)))
			}
			idx, err := strconv.Atoi(s)
			if err != nil || idx >= len(x) {
				return nil
			}
			v = x[idx]
		default:
			if s != "." {
				return nil
			}
		}
	}
	return v
}

// entries is a stored list, or a map's entries as {key, value} sorted by
// key, as the generated fields read them.
func entries(v any) []any {
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

// compare checks a shown value against the stored one and returns how many
// stored scalars it compared.
func (g *graphqlShows) compare(t *testing.T, where string, typ *ast.Type, got, stored any, key any) int {
	t.Helper()
	if stored == nil {
		return 0
	}
	if typ.Elem != nil {
		want := entries(stored)
		gl, _ := got.([]any)
		if len(gl) != len(want) {
			t.Errorf("%s: shows %d elements, stored %d: %s vs %s", where, len(gl), len(want), asJSON(got), asJSON(stored))
			return 0
		}
		n := 0
		for i := range want {
			n += g.compare(t, fmt.Sprintf("%s[%d]", where, i), typ.Elem, gl[i], want[i], key)
		}
		return n
	}
	d := g.schema.Types[typ.Name()]
	switch {
	case d.Kind == ast.Enum && d.EnumValues.ForName(fmt.Sprint(stored)) == nil:
		// A free string the enum has no symbol for reads as null.
		if got != nil {
			t.Errorf("%s: shows %s for stored %s, which %s has no symbol for", where, asJSON(got), asJSON(stored), d.Name)
			return 0
		}
		return 1
	case d.Kind == ast.Scalar || d.Kind == ast.Enum:
		switch stored.(type) {
		case map[string]any, []any: // shown as its JSON text
			b, _ := json.Marshal(stored)
			stored = string(b)
		}
		if fmt.Sprint(got) != fmt.Sprint(stored) {
			t.Errorf("%s: shows %s, stored %s", where, asJSON(got), asJSON(stored))
			return 0
		}
		return 1
	case d.Kind == ast.Interface || d.Kind == ast.Union || g.isEntity(d.Name):
		m, _ := got.(map[string]any)
		if s, ok := stored.(string); ok && m["urn"] != s {
			t.Errorf("%s: shows %s, stored %s", where, asJSON(got), asJSON(stored))
			return 0
		}
		return 1
	}
	m, _ := got.(map[string]any)
	if m == nil {
		t.Errorf("%s: shows null, stored %s", where, asJSON(stored))
		return 0
	}
	n := 0
	for _, f := range d.Fields {
		if !generatedField(f) {
			continue
		}
		if _, selected := m[f.Name]; !selected {
			continue
		}
		path := f.Name
		if dir := f.Directives.ForName("from"); dir != nil {
			path = dir.Arguments.ForName("path").Value.Raw
		}
		n += g.compare(t, where+"."+f.Name, f.Type, m[f.Name], g.read(stored, path, key), key)
	}
	return n
}
