package contract

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

// UIOperation is one GraphQL operation of DataHub's web UI as the UI sends
// it: the operation with every fragment it spreads, directly or not.
type UIOperation struct {
	Name string // the operation's name
	File string // the file defining it
	Doc  *ast.QueryDocument
}

// Text is the operation's document as the UI sends it.
func (o UIOperation) Text() string {
	var b bytes.Buffer
	formatter.NewFormatter(&b).FormatQueryDocument(o.Doc)
	return b.String()
}

// UIOperations reads the GraphQL documents of DataHub's web UI in dir (the
// *.graphql files of ../shared/datahub-ui). Every operation definition
// counts (two operations are defined in two files each); fragments are
// shared by name across files, as the UI's build shares them.
func UIOperations(dir string) ([]UIOperation, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.graphql"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.graphql files in %s", dir)
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
			return nil, err
		}
		d, perr := parser.ParseQuery(&ast.Source{Name: f, Input: string(b)})
		if perr != nil {
			return nil, fmt.Errorf("%s: %w", f, perr)
		}
		for _, fr := range d.Fragments {
			fragments[fr.Name] = fr
		}
		for _, op := range d.Operations {
			ops = append(ops, located{op, filepath.Base(f)})
		}
	}
	out := make([]UIOperation, 0, len(ops))
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
		out = append(out, UIOperation{Name: o.op.Name, File: o.file, Doc: doc})
	}
	return out, nil
}
