package graphql

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	generated "github.com/catalogd/catalogd/gen/graphql"
)

// uiOperation is one operation of DataHub's web UI as the UI sends it: the
// operation with every fragment it spreads, directly or not.
type uiOperation struct {
	name string // the operation's name
	file string // the file defining it
	doc  *ast.QueryDocument
}

// uiOperations reads DataHub's web UI documents from ../shared/datahub-ui,
// skipping the test when they are absent. Every operation definition counts
// (two operations are defined in two files each); fragments are shared by
// name across files, as the UI's build shares them.
func uiOperations(t *testing.T) []uiOperation {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "shared", "datahub-ui", "*.graphql"))
	if err != nil || len(files) == 0 {
		t.Skip("DataHub's web UI documents not found in ../shared/datahub-ui")
	}
	sort.Strings(files)
	fragments := map[string]*ast.FragmentDefinition{}
	type located struct {
		op   *ast.OperationDefinition
		file string
	}
	var ops []located
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, perr := parser.ParseQuery(&ast.Source{Name: f, Input: string(b)})
		if perr != nil {
			t.Fatalf("%s: %v", f, perr)
		}
		for _, fr := range d.Fragments {
			fragments[fr.Name] = fr
		}
		for _, op := range d.Operations {
			ops = append(ops, located{op, filepath.Base(f)})
		}
	}
	out := make([]uiOperation, 0, len(ops))
	for _, o := range ops {
		doc := &ast.QueryDocument{Operations: ast.OperationList{o.op}}
		used := map[string]bool{}
		var add func(set ast.SelectionSet)
		add = func(set ast.SelectionSet) {
			for _, s := range set {
				switch s := s.(type) {
				case *ast.Field:
					add(s.SelectionSet)
				case *ast.InlineFragment:
					add(s.SelectionSet)
				case *ast.FragmentSpread:
					if f := fragments[s.Name]; f != nil && !used[s.Name] {
						used[s.Name] = true
						doc.Fragments = append(doc.Fragments, f)
						add(f.SelectionSet)
					}
				}
			}
		}
		add(o.op.SelectionSet)
		out = append(out, uiOperation{name: o.op.Name, file: o.file, doc: doc})
	}
	return out
}

// TestUIOperationsValidate validates every operation of DataHub's web UI,
// with the fragments it spreads, against the schema the server serves: an
// operation that does not validate is rejected whole, and the page that sends
// it shows nothing.
func TestUIOperationsValidate(t *testing.T) {
	ops := uiOperations(t)
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	var failed []string
	for _, op := range ops {
		if errs := validator.Validate(schema, op.doc); len(errs) > 0 {
			failed = append(failed, op.file+": "+op.name+": "+errs[0].Message)
		}
	}
	if len(failed) > 0 {
		t.Errorf("%d of %d UI operations valid; %d fail:\n%s", len(ops)-len(failed), len(ops), len(failed), strings.Join(failed, "\n"))
	}
}
