package graphql

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// Suggestions for misspelt queries work like DataHub's term suggester on
// entity names: for the first word of a query that finds nothing, the
// words of entity names that begin with the same letter and are at most two
// edits away, closest first, then most frequent.

const (
	suggestMinWordLength = 4
	suggestMaxEdits      = 2
	suggestSize          = 5
	// suggestCandidates bounds the names read for candidate words.
	suggestCandidates = 1000
)

// suggestions proposes corrections of the first word of query over the
// names of the entity types searched.
func (r *Resolver) suggestions(ctx context.Context, ents []string, query string) ([]*model.SearchSuggestion, error) {
	out := []*model.SearchSuggestion{}
	words := nameWords(query)
	if len(words) == 0 || len([]rune(words[0])) < suggestMinWordLength {
		return out, nil
	}
	word := words[0]
	svc, err := r.searchService()
	if err != nil {
		return nil, err
	}
	first := string([]rune(word)[:1])
	names, err := svc.Autocomplete(ctx, search.AutocompleteParams{Entities: ents, Query: first, Limit: suggestCandidates})
	if err != nil {
		return nil, err
	}
	freq := map[string]int{}
	for _, n := range names {
		seen := map[string]bool{}
		for _, w := range nameWords(n.Text) {
			if !seen[w] {
				seen[w] = true
				freq[w]++
			}
		}
	}
	if freq[word] > 0 {
		return out, nil // the word is there: nothing to correct
	}
	type cand struct {
		text  string
		score float64
		freq  int
	}
	var cands []cand
	wr := []rune(word)
	for w, n := range freq {
		cr := []rune(w)
		if cr[0] != wr[0] || len(cr) < suggestMinWordLength {
			continue
		}
		d := editDistance(wr, cr)
		if d > suggestMaxEdits {
			continue
		}
		cands = append(cands, cand{w, 1 - float64(d)/float64(min(len(wr), len(cr))), n})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		if cands[i].freq != cands[j].freq {
			return cands[i].freq > cands[j].freq
		}
		return cands[i].text < cands[j].text
	})
	for _, c := range cands[:min(len(cands), suggestSize)] {
		out = append(out, &model.SearchSuggestion{Text: c.text, Score: ptr(c.score), Frequency: ptr(c.freq)})
	}
	return out, nil
}

// nameWords splits text into lower-cased words of letters and digits.
func nameWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and transpositions of neighbours.
func editDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
