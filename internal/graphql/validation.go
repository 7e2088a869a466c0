package graphql

import (
	"regexp"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// DataHub's clients (the Python SDK, the terraform provider, the web app)
// tell "this server has no such operation or type" from other failures by
// the words of DataHub's GraphQL engine, graphql-java:
//
//	Validation error (FieldUndefined@[corpUser/foo]) : Field 'foo' in type 'CorpUser' is undefined
//	Validation error (UnknownType) : Unknown type 'FooInput'
//
// The part in brackets is the path of field names (not aliases) from the
// operation down to the place of the error, or from a fragment definition,
// whose name comes first; it is left out with its "@" where there is none
// (a variable's type). The
// validator gqlgen uses words these errors its own way; javaWording rewrites
// the two kinds clients look for and leaves every other error as it is.

var (
	undefinedFieldMsg = regexp.MustCompile(`^Cannot query field "([^"]+)" on type "([^"]+)"\.`)
	unknownTypeMsg    = regexp.MustCompile(`^Unknown type "([^"]+)"\.`)
)

// javaWording rewrites the FieldsOnCorrectType and KnownTypeNames errors of
// the validation of query in graphql-java's words.
func javaWording(query string, errs gqlerror.List) {
	var paths map[ast.Position][]string
	pathAt := func(e *gqlerror.Error) string {
		if len(e.Locations) == 0 {
			return ""
		}
		if paths == nil {
			paths = fieldPaths(query)
		}
		p, ok := paths[ast.Position{Line: e.Locations[0].Line, Column: e.Locations[0].Column}]
		if !ok || len(p) == 0 {
			return ""
		}
		return "@[" + strings.Join(p, "/") + "]"
	}
	for _, e := range errs {
		switch e.Rule {
		case "FieldsOnCorrectType":
			if m := undefinedFieldMsg.FindStringSubmatch(e.Message); m != nil {
				e.Message = "Validation error (FieldUndefined" + pathAt(e) + ") : Field '" + m[1] + "' in type '" + m[2] + "' is undefined"
			}
		case "KnownTypeNames":
			if m := unknownTypeMsg.FindStringSubmatch(e.Message); m != nil {
				e.Message = "Validation error (UnknownType" + pathAt(e) + ") : Unknown type '" + m[1] + "'"
			}
		}
	}
}

// fieldPaths maps the position of every field, inline fragment and fragment
// definition of query to its path: the names of the fields from the top of
// its operation down to it, the field itself included, after the name of
// the fragment definition it is in.
func fieldPaths(query string) map[ast.Position][]string {
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		return map[ast.Position][]string{}
	}
	out := map[ast.Position][]string{}
	var walk func(set ast.SelectionSet, path []string)
	walk = func(set ast.SelectionSet, path []string) {
		for _, s := range set {
			switch s := s.(type) {
			case *ast.Field:
				p := append(append([]string(nil), path...), s.Name)
				if s.Position != nil {
					out[key(s.Position)] = p
				}
				walk(s.SelectionSet, p)
			case *ast.InlineFragment:
				if s.Position != nil {
					out[key(s.Position)] = path
				}
				walk(s.SelectionSet, path)
			}
		}
	}
	for _, op := range doc.Operations {
		walk(op.SelectionSet, nil)
	}
	// graphql-java names a fragment definition in the paths inside it.
	for _, f := range doc.Fragments {
		if f.Position != nil {
			out[key(f.Position)] = []string{f.Name}
		}
		walk(f.SelectionSet, []string{f.Name})
	}
	return out
}

func key(p *ast.Position) ast.Position { return ast.Position{Line: p.Line, Column: p.Column} }
