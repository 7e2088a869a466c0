package graphqlgen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
	"github.com/99designs/gqlgen/codegen/templates"
	"github.com/99designs/gqlgen/plugin"

	"github.com/catalogd/catalogd/internal/schemagen"
)

// FieldsFile is the file the plugin writes in the model package.
const FieldsFile = "fields_gen.go"

// RootsFile is the file the plugin writes in the executor's package: the
// root fields marked @unsupported.
const RootsFile = "unsupported_gen.go"

// Plugin generates the fields of the types showing stored metadata. Run it
// before gqlgen's model generator (api.PrependPlugin), which then leaves
// those types to it.
type Plugin struct {
	schemas *schemagen.Model
	model   *model
	types   []string // GraphQL types bound to the generated Go types
}

var (
	_ plugin.ConfigMutator = (*Plugin)(nil)
	_ plugin.CodeGenerator = (*Plugin)(nil)
)

// New returns the plugin, which checks the generated fields against the
// metadata model schemas.
func New(schemas *schemagen.Model) *Plugin { return &Plugin{schemas: schemas} }

// Name implements plugin.Plugin.
func (p *Plugin) Name() string { return "catalogd-graphqlgen" }

// Clean removes the files the plugin wrote in an earlier run, which would
// not compile while gqlgen rewrites the types they use.
func Clean(cfg *config.Config) error {
	for _, f := range []string{filepath.Join(filepath.Dir(cfg.Model.Filename), FieldsFile), filepath.Join(filepath.Dir(cfg.Exec.Filename), RootsFile)} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// MutateConfig implements plugin.ConfigMutator: it writes the generated
// types and binds them, so that gqlgen's model generator skips them and
// binds their fields to the generated methods.
func (p *Plugin) MutateConfig(cfg *config.Config) error {
	m, err := analyze(cfg.Schema)
	if err != nil {
		return err
	}
	if m.check(p.schemas); len(m.errs) > 0 {
		return m.err()
	}
	src, err := m.emit(cfg.Model.Package)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Model.Dir(), FieldsFile), src, 0o644); err != nil {
		return err
	}
	p.model = m
	for _, e := range m.entities {
		p.types = append(p.types, e.def.Name)
	}
	p.types = append(p.types, m.nodes...)
	for _, t := range p.types {
		cfg.Models.Add(t, cfg.Model.ImportPath()+"."+goName(t))
	}
	// The model package was loaded before the file was written.
	cfg.ReloadAllPackages()
	return nil
}

// GenerateCode implements plugin.CodeGenerator: it checks that gqlgen bound
// every field of the generated types to its generated method, and writes
// the root fields marked @unsupported.
func (p *Plugin) GenerateCode(data *codegen.Data) error {
	generated := map[string]bool{}
	for _, t := range p.types {
		generated[t] = true
	}
	var unbound []string
	var roots []*codegen.Object
	for _, o := range data.Objects {
		if o.Root {
			roots = append(roots, o)
			continue
		}
		if !generated[o.Name] {
			continue
		}
		for _, f := range o.Fields {
			if f.IsResolver {
				unbound = append(unbound, o.Name+"."+f.Name)
			}
		}
	}
	if len(unbound) > 0 {
		sort.Strings(unbound)
		return fmt.Errorf("generated fields gqlgen could not bind (see its log above):\n  %s", strings.Join(unbound, "\n  "))
	}
	for _, o := range roots {
		for _, f := range o.Fields {
			if f.FieldDefinition.Directives.ForName(dirLookup) == nil {
				continue
			}
			where := o.Name + "." + f.Name
			if e := p.model.byName[f.FieldDefinition.Type.Name()]; e == nil || !e.fromURN || f.FieldDefinition.Type.Elem != nil {
				return fmt.Errorf("%s: @lookup returns an entity type", where)
			}
			if len(f.Args) != 1 || f.Args[0].Name != "urn" {
				return fmt.Errorf("%s: @lookup takes one argument, urn", where)
			}
		}
	}
	return templates.Render(templates.Options{
		PackageName:     data.Config.Exec.Package,
		Filename:        filepath.Join(data.Config.Exec.Dir(), RootsFile),
		GeneratedHeader: true,
		Packages:        data.Config.Packages,
		Template:        rootsTemplate,
		Data:            roots,
		Funcs: map[string]any{
			"unsupported": func(f *codegen.Field) bool {
				return f.FieldDefinition.Directives.ForName(dirUnsupported) != nil
			},
			"lookup": func(f *codegen.Field) string {
				if f.FieldDefinition.Directives.ForName(dirLookup) == nil {
					return ""
				}
				return p.model.byName[f.FieldDefinition.Type.Name()].name
			},
			"result": resultType,
			"hasLookups": func(o *codegen.Object) bool {
				for _, f := range o.Fields {
					if f.FieldDefinition.Directives.ForName(dirLookup) != nil {
						return true
					}
				}
				return false
			},
			"modelPkg": func() string { return data.Config.Model.ImportPath() },
		},
	})
}

// resultType returns the result type of a resolver declaration
// "(params) (T, error)".
func resultType(decl string) string {
	i := strings.LastIndex(decl, ") (")
	if i < 0 {
		return "any"
	}
	return strings.TrimSuffix(strings.TrimSuffix(decl[i+3:], ")"), ", error")
}

const rootsTemplate = `
{{ reserveImport "context" }}
{{ $model := lookupImport modelPkg }}
{{- range $obj := . }}{{ if hasLookups $obj }}
// {{ $obj.Name }}Lookups answers the fields of {{ $obj.Name }} that look an entity up by
// URN (marked @lookup): the entity when Exists reports it stored, else null.
// The resolver of {{ $obj.Name }} embeds it.
type {{ $obj.Name }}Lookups struct {
	// Exists reports whether urn names a stored entity of the registry's
	// entity type entity.
	Exists func(ctx context.Context, urn, entity string) (bool, error)
}
{{ range $f := $obj.Fields }}{{ with lookup $f }}
// {{ $f.GoFieldName }} looks up a {{ . }} by URN.
func (l {{ $obj.Name }}Lookups) {{ $f.GoFieldName }}{{ $f.ShortResolverDeclaration }} {
	ok, err := l.Exists(ctx, urn, "{{ . }}")
	if err != nil || !ok {
		return nil, err
	}
	return &{{ $model }}.{{ $f.TypeReference.Definition.Name | goModelName }}{Urn: urn}, nil
}
{{ end }}{{ end }}
{{- end }}{{ end }}
{{- range $obj := . }}
// {{ $obj.Name }}Unsupported answers the fields of {{ $obj.Name }} that catalogd does
// not serve (marked @unsupported) with an error saying so. The resolver of
// {{ $obj.Name }} embeds it.
type {{ $obj.Name }}Unsupported struct{}
{{ range $f := $obj.Fields }}{{ if unsupported $f }}
// {{ $f.GoFieldName }} is not served by catalogd.
func ({{ $obj.Name }}Unsupported) {{ $f.GoFieldName }}{{ $f.ShortResolverDeclaration }} {
	var zero {{ result $f.ShortResolverDeclaration }}
	return zero, {{ $model }}.Unsupported("{{ $obj.Name }}.{{ $f.Name }}")
}
{{ end }}{{ end }}
{{- end }}
`
