package graphqlgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/catalogd/catalogd/internal/schemagen"
)

// base is what every test schema has: the annotations (the project's own
// declarations) and the types they refer to.
func base(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "graphql", "directives.graphqls"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + `
scalar Long
enum EntityType { TAG CORP_USER }
interface Entity { urn: String! type: EntityType! }
type Query { tag(urn: String!): Tag }
`
}

// generate analyzes, checks against the project's metadata model and emits
// the schema sdl, returning the emitted source or the error.
func generate(t *testing.T, model *schemagen.Model, sdl string) (string, error) {
	t.Helper()
	s, err := validator.LoadSchema(validator.Prelude, &ast.Source{Name: "test.graphqls", Input: base(t) + sdl})
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	m, aerr := analyze(s)
	if aerr != nil {
		return "", aerr
	}
	if m.check(model); len(m.errs) > 0 {
		return "", m.err()
	}
	src, eerr := m.emit("model")
	return string(src), eerr
}

func TestGenerate(t *testing.T) {
	model, err := schemagen.Load(filepath.Join("..", "..", "schemas"), schemagen.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	const tag = `type Tag implements Entity @entity(name: "tag", type: TAG) {
  urn: String!
  type: EntityType!
  name: String! @aspect(name: "tagKey", path: "name")
  properties: TagProperties @aspect(name: "tagProperties")
  status: Status @aspect(name: "status")
  %s
}
type Status { removed: Boolean! }
`
	tests := []struct {
		name      string
		sdl       string
		want      []string // in the emitted source
		wantError string
	}{
		{name: "aspects, paths, defaults and references",
			sdl: strings.Replace(tag, "%s", `owners: [CorpUser!] @aspect(name: "ownership", path: "owners/*/owner")`, 1) + `
type TagProperties { name: String! @from(path: "name|$key/name") description: String color: String @from(path: "colorHex") }
type CorpUser implements Entity @entity(name: "corpuser", type: CORP_USER) { urn: String! type: EntityType! }`,
			want: []string{
				`func (obj *Tag) Properties(ctx context.Context) (*TagProperties, error) {`,
				`v, s, err := aspect(ctx, obj.Urn, "tagProperties")`,
				`return str(obj.n.first([]string{"name"}, []string{"$key", "name"})), nil`,
				`return strPtr(obj.n.get("colorHex")), nil`,
				// The schema's default of status.removed, when it is absent.
				`return boolean(orDefault(obj.n.get("removed"), false)), nil`,
				`return refs[*CorpUser](node{v, s}.get("owners", "*", "owner"), s, asCorpUser), nil`,
				`case "corpuser":`, `case "tag":`,
			}},
		{name: "an unannotated field of an entity type", sdl: strings.Replace(tag, "%s", "color: String", 1) + `type TagProperties { name: String! }`,
			wantError: "Tag.color: a field of an entity type needs @aspect, @computed, @unset or @unsupported"},
		{name: "a path the aspect does not have", sdl: strings.Replace(tag, "%s", "", 1) + `type TagProperties { nope: String }`,
			wantError: `TagProperties.nope: reads nope in TagProperties: "nope" is not a member of TagProperties`},
		{name: "an aspect of another entity type", sdl: strings.Replace(tag, "%s", `info: TagProperties @aspect(name: "datasetProperties")`, 1) + `type TagProperties { name: String }`,
			wantError: `Tag.info: "datasetProperties" is not an aspect of tag`},
		{name: "a type the stored value cannot convert to", sdl: strings.Replace(tag, "%s", "", 1) + `type TagProperties { colorHex: Long }`,
			wantError: "TagProperties.colorHex: a Long read from a JSON string"},
		{name: "computed fields of one name with different types", sdl: strings.Replace(tag, "%s", `exists: Boolean @computed`, 1) +
			`type TagProperties { name: String exists: String @computed(fn: "Exists") }`,
			wantError: "computed Exists(obj *TagProperties) *string differs from Tag.exists's (obj Entity) *bool"},
		{name: "a field with arguments read from an aspect", sdl: strings.Replace(tag, "%s", `info(version: Long): TagProperties @aspect(name: "tagProperties")`, 1) + `type TagProperties { name: String }`,
			wantError: "Tag.info: a field with arguments cannot be @aspect (use @computed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := generate(t, model, tt.sdl)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error = %v, want %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(src, w) {
					t.Errorf("generated source lacks %q:\n%s", w, src)
				}
			}
		})
	}
}
