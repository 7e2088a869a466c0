package store

import (
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// TestTextWordsOnce checks the text a document's row gives the full-text
// index: each column holds a word once, however often the document has it
// (ranking counts the columns holding a word, not its repeats), and on
// PostgreSQL the tsvector holds each word once, and tagged once more for
// each of the buckets 0 to 3 holding it.
func TestTextWordsOnce(t *testing.T) {
	fields := []catalog.SearchField{
		{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true, Autocomplete: true},
		{Name: "fieldDescriptions", Type: "TEXT", Boost: 0.1, QueryByDefault: true},
	}
	doc := catalog.Document{URN: "urn:li:dataset:x", EntityType: "dataset", Fields: map[string][]any{
		"name":              {"orders_daily", "orders"},
		"fieldDescriptions": {"Column 1 of orders", "Column 2 of orders", "orders"},
	}}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			s := &Search{db: &DB{q: queries{pg: name == "postgres"}}, fields: map[string]catalog.SearchField{}}
			s.samples.n.Store(sampleBlock) // the next document is in block 1, of no sample
			for _, f := range fields {
				s.fields[f.Name] = f
			}
			r := s.row(doc)
			var text []string
			for _, b := range r.text {
				if b != "" {
					text = append(text, strings.TrimSpace(b))
				}
			}
			want := []string{"orders daily", "column 1 of orders 2"}
			wantAC := "orders daily"
			if strings.Join(text, " | ") != strings.Join(want, " | ") || strings.TrimSpace(r.ac) != wantAC {
				t.Errorf("text %q, autocomplete %q; want %q, %q", text, r.ac, want, wantAC)
			}
			if name == "postgres" {
				var lex []string
				for _, l := range r.tsv.Lexemes {
					lex = append(lex, l.Word)
				}
				if want := "!daily !orders 1 2 column daily of orders"; strings.Join(lex, " ") != want {
					t.Errorf("tsvector lexemes %q, want %q", lex, want)
				}
			}
		})
	}
}
