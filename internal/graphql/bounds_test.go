package graphql

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

// nest returns open repeated n times, then inner, then close repeated n times.
func nest(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

func TestScanNesting(t *testing.T) {
	sel, val := MaxSelectionNesting, MaxValueNesting
	tests := []struct {
		name    string
		query   string
		wantErr string // "" when the query passes
		line    int
		column  int
	}{
		{name: "flat", query: `{ me { corpUser { urn } } }`},
		{name: "selections at the limit", query: nest("{a", "", "}", sel)},
		{name: "selections over the limit", query: nest("{a", "", "}", sel+1), wantErr: "selection sets exceed the nesting depth limit of 100", line: 1, column: 2*sel + 1},
		{name: "inline fragments count as selection sets", query: "{" + nest("... on Query {", "__typename", "}", sel) + "}", wantErr: "selection sets"},
		{name: "values at the limit", query: `{ a(x: ` + nest("[", "1", "]", val-1) + `) }`},
		{name: "values over the limit", query: `{ a(x: ` + nest("[", "1", "]", val) + `) }`, wantErr: "values exceed the nesting depth limit of 50", line: 1, column: 7 + val},
		{name: "object values are values", query: `{ a(x: ` + nest("{a:", "1", "}", val) + `) }`, wantErr: "values exceed"},
		{name: "variable types are values", query: `query($x: ` + nest("[", "Int", "]", val) + `) { a }`, wantErr: "values exceed"},
		{name: "brackets in a string", query: `{ a(x: "` + strings.Repeat("{[(", 1000) + `") }`},
		{name: "escaped quote in a string", query: `{ a(x: "\"` + strings.Repeat("{", 1000) + `") }`},
		{name: "brackets in a block string", query: `{ a(x: """` + strings.Repeat("{[\"\n", 1000) + `""") }`},
		{name: "escaped triple quote in a block string", query: `{ a(x: """ \""" ` + strings.Repeat("{", 1000) + ` """) }`},
		{name: "brackets in a comment", query: "{ a # " + strings.Repeat("{", 1000) + "\n}"},
		{name: "a comment ends at a carriage return", query: "{ a # x\r" + nest("{a", "", "}", sel) + "}", wantErr: "selection sets"},
		{name: "an unterminated string ends at its line", query: "{ a(x: \"{{{\n) " + nest("{a", "", "}", sel) + "}", wantErr: "selection sets", line: 2, column: 2*sel + 1},
		{name: "an unterminated block string runs to the end", query: `{ a(x: """` + strings.Repeat("{", 1000)},
		{name: "closing brackets alone", query: strings.Repeat("}])", 1000)},
		{name: "columns count characters", query: "{ é " + nest("{a", "", "}", sel), wantErr: "selection sets", line: 1, column: 2*sel + 3},
		{name: "lines count CRLF once", query: "{\r\n\r\n" + nest("{a", "", "}", sel), wantErr: "selection sets", line: 3, column: 2*sel - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := scanNesting(tt.query)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("scanNesting = %v, want no error", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Message, tt.wantErr) {
				t.Fatalf("scanNesting = %v, want %q", err, tt.wantErr)
			}
			if err.Extensions["code"] != "GRAPHQL_PARSE_FAILED" {
				t.Errorf("extensions = %v, want the parse-failed code", err.Extensions)
			}
			if tt.line > 0 && (len(err.Locations) != 1 || err.Locations[0].Line != tt.line || err.Locations[0].Column != tt.column) {
				t.Errorf("locations = %+v, want %d:%d", err.Locations, tt.line, tt.column)
			}
		})
	}
}

func TestCheckDocument(t *testing.T) {
	fragments := func(n int, body func(i int) string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "fragment F%d on Query { %s } ", i, body(i))
		}
		return b.String()
	}
	tests := []struct {
		name    string
		query   string
		wantErr string
	}{
		{name: "small", query: `query Q { me { corpUser { ...U } } } fragment U on CorpUser { urn }`},
		{name: "deep", query: "{ " + nest("a { ", "b", " }", MaxDepth) + " }", wantErr: "operation has depth 51, which exceeds the limit of 50"},
		{name: "deep through fragments", query: "{ ...F0 } " + fragments(MaxDepth, func(i int) string {
			return fmt.Sprintf("a { ...F%d }", i+1)
		}) + fmt.Sprintf("fragment F%d on Query { b }", MaxDepth), wantErr: "depth 51"},
		{name: "wide", query: "query W { " + strings.Repeat("a ", MaxComplexity) + "b }", wantErr: `operation "W" has complexity 2001, which exceeds the limit of 2000`},
		{name: "the unused operation counts too", query: "query A { a } query B { " + strings.Repeat("a ", MaxComplexity+1) + "}", wantErr: `operation "B" has complexity`},
		{name: "exponential fragments", query: "{ ...F0 } " + fragments(60, func(i int) string {
			return fmt.Sprintf("...F%d ...F%d", i+1, i+1)
		}) + "fragment F60 on Query { a }", wantErr: "selects 2147483647 fields with its fragments expanded, more than the limit of 250000"},
		{name: "a fragment counts once however often it is spread", query: "{ " + strings.Repeat("a { ...F } ", 40) + "} fragment F on Query { " + strings.Repeat("b ", 100) + "}"},
		{name: "fragments add their fields", query: "{ b ...F0 ...F1 } " + fragments(2, func(int) string { return strings.Repeat("a ", 1000) }), wantErr: "has complexity 2001"},
		{name: "fragment cycle", query: "{ ...F0 } " + fragments(100, func(i int) string {
			return fmt.Sprintf("...F%d", (i+1)%100)
		}), wantErr: "is spread within itself"},
		{name: "unused fragment cycle", query: "{ a } fragment X on Query { ...Y } fragment Y on Query { ...X }", wantErr: "is spread within itself"},
		{name: "unknown fragments count nothing", query: "{ ...Nope a }"},
		{name: "fragments at the limit", query: "{ a } " + fragments(MaxFragments, func(int) string { return "a" })},
		{name: "too many fragments", query: "{ a } " + fragments(MaxFragments+1, func(int) string { return "a" }), wantErr: "defines 257 fragments, more than the limit of 256"},
		{name: "same names compared pairwise", query: "{ " + strings.Repeat("a ", 1001) + "}", wantErr: "too large to validate"},
		{name: "fragments walked from every fragment", query: "{ a } " + fragments(60, func(i int) string {
			return fmt.Sprintf("...F%d %s", i+1, strings.Repeat("b ", 30))
		}) + "fragment F60 on Query { a }", wantErr: "too large to validate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, perr := parser.ParseQuery(&ast.Source{Input: tt.query})
			if perr != nil {
				t.Fatalf("parse: %v", perr)
			}
			err := checkDocument(doc, nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("checkDocument = %v, want no error", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Message, tt.wantErr) {
				t.Fatalf("checkDocument = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestBoundsAdmitDataHubUI checks that every operation of DataHub's web UI,
// sent with the fragments it uses as the UI sends it, is within the bounds
// on documents (complexity aside, which is DataHub's own limit).
func TestBoundsAdmitDataHubUI(t *testing.T) {
	for _, o := range uiOperations(t) {
		doc, op := o.Doc, o.Doc.Operations[0]
		var text bytes.Buffer
		formatter.NewFormatter(&text).FormatQueryDocument(doc)
		if err := scanNesting(text.String()); err != nil {
			t.Errorf("%s: %v", op.Name, err)
		}
		if _, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: text.String()}, MaxTokens); err != nil {
			t.Errorf("%s: %v", op.Name, err)
		}
		if len(doc.Fragments) > MaxFragments {
			t.Errorf("%s: %d fragments", op.Name, len(doc.Fragments))
		}
		m := newMeasurer(doc)
		if s := m.set(op.SelectionSet); s.depth > MaxDepth {
			t.Errorf("%s: depth %d", op.Name, s.depth)
		}
		if w, ok := validationWork(doc, m.fragments, MaxValidationWork); !ok {
			t.Errorf("%s: validation work %d", op.Name, w)
		}
		// The UI pages searches by up to 20 hits, which adds to the cost.
		if err := checkDocument(doc, map[string]any{"input": map[string]any{"count": json.Number("20")}}); err != nil {
			t.Errorf("%s: %v", op.Name, err)
		}
	}
}

// TestComplexityOfSearches checks DataHub's extra cost of searches returning
// whole results: twice their count, from a literal or a variable.
func TestComplexityOfSearches(t *testing.T) {
	const q = `query($input: SearchInput!) { a: search(input: $input) { searchResults { entity { ...searchResultFields } } } ` +
		`b: search(input: {count: 5}) { searchResults { entity { ...searchResultFields } } } ` +
		`c: search(input: {count: 1000}) { searchResults { entity { urn } } } } fragment searchResultFields on Entity { urn }`
	doc, perr := parser.ParseQuery(&ast.Source{Input: q})
	if perr != nil {
		t.Fatal(perr)
	}
	fragments := map[string]*ast.FragmentDefinition{"searchResultFields": doc.Fragments[0]}
	// 3 searches, 3 searchResults, 3 entities, 2 urns (the fragment once):
	// 11, plus 2 × 5 for b and 2 × 7 for a.
	if got := complexity(doc.Operations[0], fragments, map[string]any{"input": map[string]any{"count": json.Number("7")}}); got != 11+10+14 {
		t.Errorf("complexity = %d, want %d", got, 11+10+14)
	}
	if err := checkComplexity(doc, map[string]any{"input": map[string]any{"count": json.Number("1000")}}); err == nil || !strings.Contains(err.Message, "complexity 2021") {
		t.Errorf("checkComplexity = %v, want complexity 2021 refused", err)
	}
}
