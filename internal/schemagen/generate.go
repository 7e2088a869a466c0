package schemagen

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Specs returns the registry tables of the model: entities and aspects sorted
// by name. Aspects an entity names that have no schema are left out of its
// spec (Load reported them); its key aspect is kept.
func (m *Model) Specs() ([]catalog.EntitySpec, []catalog.AspectSpec, error) {
	var ents []catalog.EntitySpec
	for _, e := range m.Entities {
		es := catalog.EntitySpec{
			Name: e.Name, Category: e.Category, KeyAspect: e.KeyAspect, KeyFields: e.KeyFields,
			Snapshot: e.Snapshot, PlatformField: e.PlatformField,
		}
		for _, a := range e.Aspects {
			if m.Aspects[a] != nil && a != e.KeyAspect {
				es.Aspects = append(es.Aspects, a)
			}
		}
		for _, a := range e.SnapshotAspects {
			if m.Aspects[a] != nil {
				es.SnapshotAspects = append(es.SnapshotAspects, a)
			}
		}
		ents = append(ents, es)
	}
	var asps []catalog.AspectSpec
	for _, f := range m.SortedAspects() {
		schema, err := m.Bundle(f)
		if err != nil {
			return nil, nil, err
		}
		asps = append(asps, catalog.AspectSpec{
			Name: f.Name, WireName: f.FQN, Timeseries: f.Timeseries, Schema: schema,
			Searchable: f.Searchable, Relationships: f.Relationships,
		})
	}
	return ents, asps, nil
}

// RegistryFiles returns the generated gen/registry files (name -> unformatted source).
func (m *Model) RegistryFiles() (map[string][]byte, error) {
	ents, asps, err := m.Specs()
	if err != nil {
		return nil, err
	}
	var b, sb strings.Builder
	b.WriteString(Header + `
// Package registry holds the entity and aspect tables generated from schemas/.
// internal/registry builds the runtime lookups on top of them.
package registry

import "github.com/catalogd/catalogd/internal/catalog"

// Entities lists every entity of the model, sorted by name.
var Entities = []catalog.EntitySpec{
`)
	for _, e := range ents {
		b.WriteString("\t")
		writeLit(&b, reflect.ValueOf(e), "", false)
		b.WriteString(",\n")
	}
	b.WriteString("}\n\n// Aspects lists every aspect of the model, sorted by name.\nvar Aspects = []catalog.AspectSpec{\n")
	sb.WriteString(Header + "\npackage registry\n\n// The bundled JSON Schema of each aspect.\nconst (\n")
	for _, a := range asps {
		cname := "schema" + camel(a.Name)
		fmt.Fprintf(&sb, "\t%s = %s\n", cname, goString(a.Schema))
		a.Schema = ""
		b.WriteString("\t")
		writeLit(&b, reflect.ValueOf(a), "Schema: "+cname, false)
		b.WriteString(",\n")
	}
	b.WriteString("}\n")
	sb.WriteString(")\n")
	if len(asps) == 0 {
		sb.Reset()
		sb.WriteString(Header + "\npackage registry\n")
	}
	return map[string][]byte{"registry.go": []byte(b.String()), "schemas.go": []byte(sb.String())}, nil
}

// goString quotes s, as a raw string when possible.
func goString(s string) string {
	if !strings.ContainsAny(s, "`\r") && utf8.ValidString(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// writeLit writes a composite literal of v omitting zero fields; extra is
// written as an additional field.
func writeLit(b *strings.Builder, v reflect.Value, extra string, typed bool) {
	switch v.Kind() {
	case reflect.Struct:
		if typed {
			b.WriteString("catalog." + v.Type().Name())
		}
		b.WriteString("{")
		first := true
		sep := func() {
			if !first {
				b.WriteString(", ")
			}
			first = false
		}
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			fv := v.Field(i)
			if fv.IsZero() || (fv.Kind() == reflect.Slice && fv.Len() == 0) {
				continue
			}
			if t.Field(i).Name == "Schema" && extra != "" {
				continue
			}
			sep()
			b.WriteString(t.Field(i).Name + ": ")
			writeLit(b, fv, "", true)
		}
		if extra != "" {
			sep()
			b.WriteString(extra)
		}
		b.WriteString("}")
	case reflect.Slice:
		et := v.Type().Elem()
		if et.Kind() == reflect.Struct {
			b.WriteString("[]catalog." + et.Name() + "{")
		} else {
			b.WriteString("[]" + et.String() + "{")
		}
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeLit(b, v.Index(i), "", false)
		}
		b.WriteString("}")
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Float64, reflect.Float32:
		s := strconv.FormatFloat(v.Float(), 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case reflect.Int, reflect.Int64, reflect.Int32:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	default:
		panic("schemagen: unsupported literal kind " + v.Kind().String())
	}
}

// Result is what Generate did.
type Result struct {
	Written   []string // files written (changed)
	Unchanged int      // files already up to date
	Removed   []string // stale generated files removed
}

// Generate writes gen/models and gen/registry under outDir from a model that
// has no errors.
func Generate(m *Model, outDir string) (*Result, error) {
	if len(m.Errors) > 0 {
		return nil, fmt.Errorf("the model has %d error(s); nothing generated", len(m.Errors))
	}
	models, err := m.GoModels()
	if err != nil {
		return nil, err
	}
	reg, err := m.RegistryFiles()
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, pkg := range []struct {
		dir   string
		files map[string][]byte
	}{{"models", models}, {"registry", reg}} {
		formatted := map[string][]byte{}
		for name, src := range pkg.files {
			out, err := format.Source(src)
			if err != nil {
				return nil, fmt.Errorf("gen/%s/%s: generated code does not parse (a schemagen bug): %v", pkg.dir, name, err)
			}
			formatted[name] = out
		}
		if err := writeDir(filepath.Join(outDir, pkg.dir), formatted, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// writeDir writes files into dir when their content changed and removes stale
// generated .go files.
func writeDir(dir string, files map[string][]byte, res *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		old, err := os.ReadFile(p)
		if err == nil && bytes.Equal(old, files[n]) {
			res.Unchanged++
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
		res.Written = append(res.Written, p)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || files[n] != nil {
			continue
		}
		p := filepath.Join(dir, n)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.HasPrefix(b, []byte(Header)) {
			if err := os.Remove(p); err != nil {
				return err
			}
			res.Removed = append(res.Removed, p)
		}
	}
	return nil
}
