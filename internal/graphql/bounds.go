package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// Limits of an operation, checked before it is validated: DataHub's depth of
// 50 and complexity of 2000, complexity counted as graphql-java counts it for
// DataHub: every field of the operation and of each fragment it reaches once,
// however often the fragment is spread (graphql-java's traversal enters each
// node of the document once), plus DataHub's own 2 per result for a search
// (input.count above 1) whose results spread searchResultFields. The work an
// operation may cause is bounded by its depth and by MaxSelections.
const (
	MaxDepth      = 50
	MaxComplexity = 2000
	// MaxSelections bounds the fields of an operation with its fragments
	// expanded, which bounds the executor's work per result object (a
	// fragment spreading the next one twice doubles it at each step).
	// DataHub's largest web UI operation, getEntityLineage, has 141,041.
	MaxSelections = 250000
)

// Bounds on a query document, checked before it is parsed or validated:
// the parser recurses once per nesting level and the validator's work grows
// faster than the document, so without them one request of a few megabytes
// overflows the stack or holds a core for minutes.
const (
	// MaxSelectionNesting bounds how deeply selection sets nest in the text:
	// a field and an inline fragment around it for every level of MaxDepth.
	MaxSelectionNesting = 2 * MaxDepth
	// MaxValueNesting bounds how deeply argument lists, list and object
	// values and variable types nest.
	MaxValueNesting = MaxDepth
	// MaxTokens bounds the tokens of a document, as graphql-java's parser
	// (DataHub's) does by default. DataHub's largest web UI operation, with
	// its fragments, has about 4,000.
	MaxTokens = 15000
	// MaxFragments bounds the fragment definitions of a document; the whole
	// DataHub web UI defines about 130.
	MaxFragments = 256
	// MaxValidationWork bounds the validator's work as validationWork
	// estimates it. DataHub's largest web UI operation, with its fragments,
	// comes to about 180,000 and validates in milliseconds; a document at
	// the bound takes a fraction of a second.
	MaxValidationWork = 1000000
)

// bounds rejects, before gqlgen parses and validates a query, documents
// outside the bounds above and operations outside MaxDepth and
// MaxComplexity. The work of each check is linear in the document or bounded
// by its bound. Queries in the cache passed when they were first seen.
type bounds struct {
	cache graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = bounds{}

// ExtensionName implements graphql.HandlerExtension.
func (bounds) ExtensionName() string { return "Bounds" }

// Validate implements graphql.HandlerExtension.
func (bounds) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters implements graphql.OperationParameterMutator.
func (b bounds) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	doc, ok := b.cache.Get(ctx, p.Query)
	if !ok {
		if err := scanNesting(p.Query); err != nil {
			return err
		}
		var err error
		doc, err = parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, MaxTokens)
		if err != nil {
			e := gqlerror.WrapIfUnwrapped(err)
			errcode.Set(e, errcode.ParseFailed)
			return e
		}
		return checkDocument(doc, p.Variables)
	}
	// Complexity depends on the variables (a search's count).
	return checkComplexity(doc, p.Variables)
}

// scanNesting checks, in one pass over the text of a query, that selection
// sets nest at most MaxSelectionNesting deep and values (from an argument
// list's parenthesis inwards) at most MaxValueNesting deep. Brackets in
// comments, strings and block strings do not count. It does not check
// syntax: a query it passes may still fail to parse.
func scanNesting(q string) *gqlerror.Error {
	// stack records, for each open bracket, whether it is a value's.
	stack := make([]bool, 0, 16)
	var selections, values int
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '#':
			i = lineEnd(q, i)
		case '"':
			if strings.HasPrefix(q[i:], `"""`) {
				i = blockStringEnd(q, i)
			} else {
				i = stringEnd(q, i)
			}
		case '{', '[', '(':
			value := c != '{' || values > 0
			stack = append(stack, value)
			if value {
				values++
				if values > MaxValueNesting {
					return nestingError(q, i, "values", MaxValueNesting)
				}
			} else {
				selections++
				if selections > MaxSelectionNesting {
					return nestingError(q, i, "selection sets", MaxSelectionNesting)
				}
			}
		case '}', ']', ')':
			if len(stack) == 0 {
				continue // unbalanced: the parser reports it
			}
			if stack[len(stack)-1] {
				values--
			} else {
				selections--
			}
			stack = stack[:len(stack)-1]
		}
	}
	return nil
}

// lineEnd returns the index of the line break ending the comment starting
// at i, or the end of q.
func lineEnd(q string, i int) int {
	for ; i < len(q); i++ {
		if q[i] == '\n' || q[i] == '\r' {
			return i
		}
	}
	return i
}

// stringEnd returns the index of the quote closing the string starting at
// i, or of the end of its line when it is unterminated.
func stringEnd(q string, i int) int {
	for i++; i < len(q); i++ {
		switch q[i] {
		case '\\':
			i++
		case '"', '\n', '\r':
			return i
		}
	}
	return i
}

// blockStringEnd returns the index of the last quote closing the block
// string starting at i; \""" inside it is an escaped quote triple.
func blockStringEnd(q string, i int) int {
	for i += 3; i < len(q); i++ {
		switch {
		case q[i] == '\\' && strings.HasPrefix(q[i+1:], `"""`):
			i += 3
		case strings.HasPrefix(q[i:], `"""`):
			return i + 2
		}
	}
	return i
}

// nestingError reports the bracket at offset i, which nests what too deep.
func nestingError(q string, i int, what string, limit int) *gqlerror.Error {
	line, col := position(q, i)
	e := gqlerror.ErrorLocf("", line, col, "the query's %s exceed the nesting depth limit of %d", what, limit)
	errcode.Set(e, errcode.ParseFailed)
	return e
}

// position returns the line and column (in characters, from 1) of offset i.
func position(q string, i int) (line, col int) {
	line, start := 1, 0
	for j := 0; j < i; j++ {
		if q[j] == '\n' || (q[j] == '\r' && (j+1 >= len(q) || q[j+1] != '\n')) {
			line, start = line+1, j+1
		}
	}
	return line, utf8.RuneCountInString(q[start:i]) + 1
}

// checkDocument checks a parsed, not yet validated document: its number of
// fragments, that no fragment spreads itself, the depth, expanded size and
// complexity (with the request's variables) of each of its operations, and
// the work of validating it. The validator walks
// every operation and every fragment, entering each fragment they reach once
// per walk, and compares the fields it meets pairwise, so the sum of those
// walks is what bounds its time.
func checkDocument(doc *ast.QueryDocument, vars map[string]any) *gqlerror.Error {
	if len(doc.Fragments) > MaxFragments {
		return withCode(gqlerror.Errorf("the query defines %d fragments, more than the limit of %d", len(doc.Fragments), MaxFragments), codeBadRequest)
	}
	m := newMeasurer(doc)
	for _, f := range doc.Fragments {
		if m.fragment(f.Name); m.cycle != "" {
			e := gqlerror.Errorf("fragment %q is spread within itself", m.cycle)
			errcode.Set(e, errcode.ValidationFailed)
			return e
		}
	}
	for _, op := range doc.Operations {
		s := m.set(op.SelectionSet)
		name := operationName(op)
		if s.depth > MaxDepth {
			return withCode(gqlerror.Errorf("%s has depth %d, which exceeds the limit of %d", name, s.depth, MaxDepth), codeBadRequest)
		}
		if s.fields > MaxSelections {
			return withCode(gqlerror.Errorf("%s selects %d fields with its fragments expanded, more than the limit of %d", name, s.fields, MaxSelections), codeBadRequest)
		}
	}
	if err := checkComplexity(doc, vars); err != nil {
		return err
	}
	if _, ok := validationWork(doc, m.fragments, MaxValidationWork); !ok {
		return withCode(gqlerror.Errorf("the query is too large to validate: its fields, counted once per operation or fragment that reaches them and once per field of the same name beside them, exceed %d", MaxValidationWork), codeBadRequest)
	}
	return nil
}

// operationName names op in error messages.
func operationName(op *ast.OperationDefinition) string {
	if op.Name != "" {
		return fmt.Sprintf("operation %q", op.Name)
	}
	return "operation"
}

// checkComplexity checks the complexity of each operation of doc, as
// DataHub scores it (see MaxComplexity), with the request's variables.
func checkComplexity(doc *ast.QueryDocument, vars map[string]any) *gqlerror.Error {
	fragments := make(map[string]*ast.FragmentDefinition, len(doc.Fragments))
	for _, f := range doc.Fragments {
		fragments[f.Name] = f
	}
	for _, op := range doc.Operations {
		if c := complexity(op, fragments, vars); c > MaxComplexity {
			return withCode(gqlerror.Errorf("%s has complexity %d, which exceeds the limit of %d", operationName(op), c, MaxComplexity), codeBadRequest)
		}
	}
	return nil
}

// complexity scores op as DataHub does: each field node of the operation
// and of every fragment it reaches counts 1 (__typename 0), a fragment
// counting once however often it is spread, and a field whose input.count
// exceeds 1 and whose searchResults' entity spreads searchResultFields adds
// twice that count.
func complexity(op *ast.OperationDefinition, fragments map[string]*ast.FragmentDefinition, vars map[string]any) int {
	entered := map[string]bool{}
	total := 0
	var walk func(set ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, s := range set {
			switch s := s.(type) {
			case *ast.Field:
				if s.Name != "__typename" {
					total++
				}
				total += searchResultsCost(s, vars)
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				if f := fragments[s.Name]; f != nil && !entered[s.Name] {
					entered[s.Name] = true
					walk(f.SelectionSet)
				}
			}
			if total > maxCount {
				return
			}
		}
	}
	walk(op.SelectionSet)
	return total
}

// searchResultsCost is DataHub's extra cost of a search that returns whole
// search results: twice its count when the count exceeds 1 and its
// searchResults' entity spreads searchResultFields (which holds two lineage
// queries).
func searchResultsCost(f *ast.Field, vars map[string]any) int {
	count := 0
	for _, a := range f.Arguments {
		if a.Name != "input" || a.Value == nil {
			continue
		}
		in := valueOf(a.Value, vars)
		m, _ := in.(map[string]any)
		switch c := m["count"].(type) {
		case int64:
			count = int(min(c, maxCount))
		case float64:
			count = int(min(c, maxCount))
		case json.Number:
			n, _ := c.Int64()
			count = int(min(n, maxCount))
		}
	}
	if count <= 1 {
		return 0
	}
	for _, s := range f.SelectionSet {
		r, ok := s.(*ast.Field)
		if !ok || r.Name != "searchResults" {
			continue
		}
		for _, s := range r.SelectionSet {
			e, ok := s.(*ast.Field)
			if !ok || e.Name != "entity" {
				continue
			}
			for _, s := range e.SelectionSet {
				if sp, ok := s.(*ast.FragmentSpread); ok && sp.Name == "searchResultFields" {
					return 2 * count
				}
			}
		}
	}
	return 0
}

// valueOf returns the value of an argument literal, variables resolved.
func valueOf(v *ast.Value, vars map[string]any) any {
	switch v.Kind {
	case ast.Variable:
		return vars[v.Raw]
	case ast.IntValue:
		n, _ := strconv.ParseInt(v.Raw, 10, 64)
		return n
	case ast.ObjectValue:
		m := make(map[string]any, len(v.Children))
		for _, c := range v.Children {
			m[c.Name] = valueOf(c.Value, vars)
		}
		return m
	}
	return nil
}

// size is what a selection set adds to an operation: its fields, fragments
// expanded, and the depth of its deepest field below it.
type size struct{ fields, depth int }

// measurer sizes selection sets, each fragment once however often it is
// spread, so that the work is linear in the document even where the
// expansion is exponential (fragments spreading the next one twice).
type measurer struct {
	fragments map[string]*ast.FragmentDefinition
	sizes     map[string]size
	visiting  map[string]bool
	cycle     string // a fragment found spreading itself
}

func newMeasurer(doc *ast.QueryDocument) *measurer {
	m := &measurer{
		fragments: make(map[string]*ast.FragmentDefinition, len(doc.Fragments)),
		sizes:     make(map[string]size, len(doc.Fragments)),
		visiting:  map[string]bool{},
	}
	for _, f := range doc.Fragments {
		m.fragments[f.Name] = f
	}
	return m
}

// maxCount caps field counts, which can grow exponentially with fragments.
const maxCount = math.MaxInt32

func (m *measurer) set(set ast.SelectionSet) size {
	var out size
	for _, s := range set {
		var n size
		switch s := s.(type) {
		case *ast.Field:
			n = m.set(s.SelectionSet)
			n.fields++
			n.depth++
		case *ast.InlineFragment:
			n = m.set(s.SelectionSet)
		case *ast.FragmentSpread:
			n = m.fragment(s.Name)
		}
		out.fields = min(out.fields+n.fields, maxCount)
		out.depth = max(out.depth, n.depth)
	}
	return out
}

// fragment sizes a fragment by name; an unknown one (which validation
// reports) counts nothing, and so does a spread of a fragment being sized,
// which is recorded as a cycle.
func (m *measurer) fragment(name string) size {
	if s, ok := m.sizes[name]; ok {
		return s
	}
	f := m.fragments[name]
	if f == nil {
		return size{}
	}
	if m.visiting[name] {
		if m.cycle == "" {
			m.cycle = name
		}
		return size{}
	}
	m.visiting[name] = true
	s := m.set(f.SelectionSet)
	delete(m.visiting, name)
	m.sizes[name] = s
	return s
}

// validationWork estimates the validator's work on doc, to stop counting
// past limit: it walks every operation and every fragment, entering each
// fragment they reach once per walk, and in every selection set it meets it
// compares the fields of each response name pairwise, fragments and inline
// fragments included. The estimate is the selections met plus the pairs
// compared. Counting stops past limit, so its own work is bounded by it.
func validationWork(doc *ast.QueryDocument, fragments map[string]*ast.FragmentDefinition, limit int) (int, bool) {
	w := &work{fragments: fragments, names: map[string]map[string]int{}, limit: limit}
	own := make(map[string]int, len(fragments))          // the work of each fragment's own sets
	spreads := make(map[string][]string, len(fragments)) // the fragments each one spreads, at any depth
	for _, f := range doc.Fragments {
		own[f.Name] = w.sets(f.SelectionSet, func(name string) { spreads[f.Name] = append(spreads[f.Name], name) })
	}
	walk := func(from []string) {
		entered := map[string]bool{}
		for len(from) > 0 && w.spent <= limit {
			name := from[len(from)-1]
			from = from[:len(from)-1]
			if entered[name] || fragments[name] == nil {
				continue
			}
			entered[name] = true
			w.spent += own[name]
			from = append(from, spreads[name]...)
		}
	}
	for _, op := range doc.Operations {
		var from []string
		w.spent += w.sets(op.SelectionSet, func(name string) { from = append(from, name) })
		walk(from)
	}
	for _, f := range doc.Fragments {
		walk([]string{f.Name})
	}
	return w.spent, w.spent <= limit
}

// work accumulates validationWork's estimate.
type work struct {
	fragments map[string]*ast.FragmentDefinition
	names     map[string]map[string]int // response names a fragment adds to where it is spread, with their counts
	limit     int
	spent     int // work counted so far, including this count's own map updates
}

// sets returns the work of comparing the fields of set and of every set
// nested in it, fragments excluded, calling spread for each fragment spread.
func (w *work) sets(set ast.SelectionSet, spread func(string)) int {
	if w.spent > w.limit {
		return 0
	}
	counts := map[string]int{}
	w.collect(set, counts)
	n := len(set)
	for _, c := range counts {
		n += c * c
	}
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			if len(s.SelectionSet) > 0 {
				n += w.sets(s.SelectionSet, spread)
			}
		case *ast.InlineFragment:
			n += w.sets(s.SelectionSet, spread)
		case *ast.FragmentSpread:
			spread(s.Name)
		}
	}
	return n
}

// collect counts the response names of the fields set brings together:
// its own, its inline fragments' and its fragments'.
func (w *work) collect(set ast.SelectionSet, counts map[string]int) {
	for _, s := range set {
		if w.spent > w.limit {
			return
		}
		switch s := s.(type) {
		case *ast.Field:
			name := s.Alias
			if name == "" {
				name = s.Name
			}
			counts[name]++
			w.spent++
		case *ast.InlineFragment:
			w.collect(s.SelectionSet, counts)
		case *ast.FragmentSpread:
			for name, c := range w.fragmentNames(s.Name) {
				counts[name] += c
				w.spent++
			}
		}
	}
}

// fragmentNames returns the response names fragment name brings together,
// computed once. Cycles were rejected before.
func (w *work) fragmentNames(name string) map[string]int {
	if counts, ok := w.names[name]; ok {
		return counts
	}
	f := w.fragments[name]
	if f == nil {
		return nil
	}
	counts := map[string]int{}
	w.names[name] = counts // an entry during its own computation stops any cycle
	w.collect(f.SelectionSet, counts)
	return counts
}
