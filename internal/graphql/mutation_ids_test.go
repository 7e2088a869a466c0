package graphql

import (
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/graphql/model"
)

func TestNextSortID(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{in: "AAAAAAAA", want: "AAAAAAAB"},
		{in: "AAAAAAAZ", want: "AAAAAABA"},
		{in: "ABZZZZZZ", want: "ACAAAAAA"},
		{in: "ZZZZZZZZ", want: "AAAAAAAA"},
		{in: "AAAA", err: "is not eight capital letters"},
		{in: "AAAAAAAa", err: "is not eight capital letters"},
		{in: "", err: "is not eight capital letters"},
	} {
		got, err := nextSortID(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("nextSortID(%q) = %q, %v; want an error saying %q", c.in, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("nextSortID(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestCardinalityOf(t *testing.T) {
	m := func(pairs ...string) []*model.RelationshipFieldMappingInput {
		var out []*model.RelationshipFieldMappingInput
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, &model.RelationshipFieldMappingInput{SourceField: ptr(pairs[i]), DestinationField: ptr(pairs[i+1])})
		}
		return out
	}
	for _, c := range []struct {
		name string
		in   []*model.RelationshipFieldMappingInput
		want string
	}{
		{"one field each", m("a", "x"), "ONE_ONE"},
		{"distinct on both sides", m("a", "x", "b", "y"), "ONE_ONE"},
		{"a destination field repeats", m("a", "x", "b", "x"), "N_ONE"},
		{"a source field repeats", m("a", "x", "a", "y"), "ONE_N"},
		{"both repeat", m("a", "x", "a", "x"), "N_N"},
	} {
		if got := cardinalityOf(c.in); got != c.want {
			t.Errorf("%s: cardinality %s, want %s", c.name, got, c.want)
		}
	}
}

func TestERModelRelationshipID(t *testing.T) {
	a, b := "urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)", "urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)"
	// The MD5 of {"Destination":"<a>","ERModelRelationName":"r","Source":"<b>"},
	// computed with md5sum.
	const want = "f858db44ed6d0ad758fd414a5ebee459"
	if got := erModelRelationshipID("r", a, b); got != want {
		t.Errorf("id = %s, want %s", got, want)
	}
	if x, y := erModelRelationshipID("r", a, b), erModelRelationshipID("r", b, a); x != y {
		t.Errorf("the id depends on which dataset is the source: %s and %s", x, y)
	}
	if erModelRelationshipID("r", a, b) == erModelRelationshipID("s", a, b) {
		t.Errorf("two names give the same id")
	}
}
