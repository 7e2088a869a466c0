package schemagen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Model is the loaded and checked metadata model.
type Model struct {
	Dir      string
	Entities []entityYAML     // sorted by name
	Aspects  map[string]*File // by aspect name
	Types    map[string]*File // by fully qualified name
	Warnings []string         // problems that do not stop generation
	Errors   []string         // problems that do
	strict   bool             // missing aspects are errors

	bundleCache map[string]*bundled
	fqnIndex    map[string]*File
}

// File is one aspect or type schema file.
type File struct {
	Path          string // path relative to the schemas directory
	Name          string // aspect name (aspects) or fully qualified name (types)
	FQN           string // x-wire-name (aspects) or Name (types)
	IsAspect      bool
	Timeseries    bool
	S             *Schema
	Raw           map[string]any // the file decoded generically (numbers as json.Number)
	Searchable    []catalog.SearchableSpec
	Relationships []catalog.RelationshipSpec
}

// Options controls Load.
type Options struct {
	// Strict makes a missing aspect or a missing entities.yaml an error instead of a warning.
	Strict bool
}

// Load reads and checks the model under dir. It returns an error only when
// dir cannot be read at all; problems in the files are listed in
// Model.Errors and Model.Warnings.
func Load(dir string, opt Options) (*Model, error) {
	m := &Model{Dir: dir, Aspects: map[string]*File{}, Types: map[string]*File{}, strict: opt.Strict}
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	m.loadEntities()
	for _, sub := range []string{"aspects", "types"} {
		names, err := listJSON(filepath.Join(dir, sub))
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			m.loadFile(sub, n)
		}
	}
	m.check()
	sort.Strings(m.Warnings)
	sort.Strings(m.Errors)
	return m, nil
}

func listJSON(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m *Model) errorf(format string, args ...any) {
	m.Errors = append(m.Errors, fmt.Sprintf(format, args...))
}

func (m *Model) warnf(format string, args ...any) {
	m.Warnings = append(m.Warnings, fmt.Sprintf(format, args...))
}

// missingf reports something that is a warning unless the model is loaded strictly.
func (m *Model) missingf(format string, args ...any) {
	if m.strict {
		m.errorf(format, args...)
	} else {
		m.warnf(format, args...)
	}
}

func (m *Model) loadEntities() {
	p := filepath.Join(m.Dir, "entities.yaml")
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		m.missingf("entities.yaml: missing (no entities generated)")
		return
	}
	if err != nil {
		m.errorf("entities.yaml: %v", err)
		return
	}
	var doc entitiesYAML
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		m.errorf("entities.yaml: %v", err)
		return
	}
	seen := map[string]bool{}
	for i, e := range doc.Entities {
		if e.Name == "" {
			m.errorf("entities.yaml: entity #%d has no name", i)
			continue
		}
		if seen[strings.ToLower(e.Name)] {
			m.errorf("entities.yaml: duplicate entity %q", e.Name)
			continue
		}
		seen[strings.ToLower(e.Name)] = true
		m.Entities = append(m.Entities, e)
	}
	sort.Slice(m.Entities, func(i, j int) bool { return m.Entities[i].Name < m.Entities[j].Name })
}

func (m *Model) loadFile(sub, name string) {
	rel := path.Join(sub, name)
	b, err := os.ReadFile(filepath.Join(m.Dir, sub, name))
	if err != nil {
		m.errorf("%s: %v", rel, err)
		return
	}
	f := &File{Path: rel, Name: strings.TrimSuffix(name, ".json"), IsAspect: sub == "aspects"}
	var s Schema
	if err := json.Unmarshal(b, &s); err != nil {
		m.errorf("%s: %s", rel, jsonErr(b, err))
		return
	}
	if err := s.prepare(); err != nil {
		m.errorf("%s: %v", rel, err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&f.Raw); err != nil {
		m.errorf("%s: %v", rel, err)
		return
	}
	f.S = &s
	if f.IsAspect {
		f.FQN = s.XWireName
		if s.XAspect == nil {
			m.errorf("%s: missing x-aspect", rel)
		} else {
			if s.XAspect.Name != f.Name {
				m.errorf("%s: x-aspect.name %q does not match the file name", rel, s.XAspect.Name)
			}
			f.Timeseries = s.XAspect.Timeseries
		}
		if s.XWireName == "" {
			m.warnf("%s: missing x-wire-name", rel)
		}
		if s.Type != "object" || s.Ref != "" {
			m.errorf("%s: an aspect must be an object schema", rel)
		}
		m.Aspects[f.Name] = f
	} else {
		f.FQN = f.Name
		if s.XWireName != "" && s.XWireName != f.Name {
			m.errorf("%s: x-wire-name %q does not match the file name", rel, s.XWireName)
		}
		if s.XAspect != nil {
			m.errorf("%s: x-aspect is only allowed on aspect files", rel)
		}
		m.Types[f.Name] = f
	}
}

// jsonErr adds a line number to a JSON syntax error.
func jsonErr(b []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(b[:se.Offset], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line := 1 + bytes.Count(b[:te.Offset], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, err)
	}
	return err.Error()
}

// resolveRef finds the file a $ref points at.
func (m *Model) resolveRef(ref string) (*File, error) {
	if strings.HasPrefix(ref, "#/$defs/") {
		fqn := strings.TrimPrefix(ref, "#/$defs/")
		if f := m.Types[fqn]; f != nil {
			return f, nil
		}
		return nil, fmt.Errorf("unresolved $ref %q", ref)
	}
	if strings.Contains(ref, "#") {
		return nil, fmt.Errorf("unsupported $ref %q (fragments are not allowed)", ref)
	}
	if !strings.HasSuffix(ref, ".json") {
		return nil, fmt.Errorf("unsupported $ref %q (must name a .json file)", ref)
	}
	base := strings.TrimSuffix(path.Base(ref), ".json")
	dir := path.Base(path.Dir(ref))
	if dir == "aspects" {
		if f := m.Aspects[base]; f != nil {
			if f.FQN == "" {
				return nil, fmt.Errorf("$ref %q: the aspect has no x-wire-name", ref)
			}
			return f, nil
		}
		return nil, fmt.Errorf("unresolved $ref %q", ref)
	}
	if f := m.Types[base]; f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("unresolved $ref %q", ref)
}

// deref follows $refs (typeref chains included) to a non-ref schema.
func (m *Model) deref(s *Schema) (*Schema, *File, error) {
	var f *File
	for i := 0; s.Ref != ""; i++ {
		if i > 32 {
			return nil, nil, fmt.Errorf("$ref cycle at %q", s.Ref)
		}
		t, err := m.resolveRef(s.Ref)
		if err != nil {
			return nil, nil, err
		}
		f, s = t, t.S
	}
	return s, f, nil
}

func (m *Model) allFiles() []*File {
	var fs []*File
	for _, f := range m.Aspects {
		fs = append(fs, f)
	}
	for _, f := range m.Types {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
	return fs
}

// SortedAspects returns the aspect files sorted by name.
func (m *Model) SortedAspects() []*File {
	var out []*File
	for _, f := range m.Aspects {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (m *Model) check() {
	for _, f := range m.allFiles() {
		m.checkKeywords(f.Path, "", f.Raw)
		m.checkSchema(f.Path, "", f.S)
		if f.IsAspect {
			m.parseAnnotations(f)
		} else if len(f.S.XSearchable) > 0 || len(f.S.XRelationship) > 0 {
			m.errorf("%s: x-searchable/x-relationship are only allowed on aspect roots", f.Path)
		}
	}
	// wire names must be unique among aspects
	wire := map[string]string{}
	for _, f := range m.SortedAspects() {
		if f.FQN == "" {
			continue
		}
		if other, ok := wire[f.FQN]; ok {
			m.errorf("%s: x-wire-name %q is also used by aspect %q", f.Path, f.FQN, other)
		}
		wire[f.FQN] = f.Name
	}
	for _, e := range m.Entities {
		where := "entities.yaml: entity " + e.Name
		switch e.Category {
		case "", "core", "internal", "omitted":
		default:
			m.errorf("%s: unknown category %q", where, e.Category)
		}
		if e.KeyAspect == "" {
			m.errorf("%s: missing keyAspect", where)
		} else if ka := m.Aspects[e.KeyAspect]; ka == nil {
			m.missingf("%s: key aspect %q has no schema (aspects/%s.json)", where, e.KeyAspect, e.KeyAspect)
		} else {
			for _, kf := range e.KeyFields {
				if ka.S.Properties.M[kf] == nil {
					m.errorf("%s: key field %q is not a field of %s", where, kf, e.KeyAspect)
				}
			}
			if e.PlatformField != "" && ka.S.Properties.M[e.PlatformField] == nil {
				m.errorf("%s: platformField %q is not a field of %s", where, e.PlatformField, e.KeyAspect)
			}
		}
		if len(e.KeyFields) == 0 {
			m.errorf("%s: missing keyFields", where)
		}
		seen := map[string]bool{}
		for _, a := range e.Aspects {
			if seen[a] {
				m.warnf("%s: aspect %q listed twice", where, a)
			}
			seen[a] = true
			if m.Aspects[a] == nil {
				m.missingf("%s: aspect %q has no schema (aspects/%s.json)", where, a, a)
			}
		}
		for _, a := range e.SnapshotAspects {
			if m.Aspects[a] == nil && !seen[a] && a != e.KeyAspect {
				m.missingf("%s: snapshot aspect %q has no schema (aspects/%s.json)", where, a, a)
			}
		}
		if len(e.SnapshotAspects) > 0 && e.Snapshot == "" {
			m.errorf("%s: snapshotAspects without snapshot", where)
		}
	}
}

// checkKeywords reports keywords outside the supported subset.
func (m *Model) checkKeywords(file, ptr string, raw map[string]any) {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := raw[k]
		if !knownKeywords[k] {
			m.warnf("%s: %s: unsupported keyword %q (ignored)", file, orRoot(ptr), k)
			continue
		}
		switch k {
		case "properties":
			if pm, ok := v.(map[string]any); ok {
				names := make([]string, 0, len(pm))
				for n := range pm {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					if c, ok := pm[n].(map[string]any); ok {
						m.checkKeywords(file, ptr+"/properties/"+n, c)
					}
				}
			}
		case "items", "additionalProperties":
			if c, ok := v.(map[string]any); ok {
				m.checkKeywords(file, ptr+"/"+k, c)
			}
		}
	}
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

var validTypes = map[string]bool{"object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true}

// checkSchema checks one schema node and its children.
func (m *Model) checkSchema(file, ptr string, s *Schema) {
	at := file + ": " + orRoot(ptr)
	if s.Ref != "" {
		if _, err := m.resolveRef(s.Ref); err != nil {
			m.errorf("%s: %v", at, err)
		}
		if s.Type != "" || len(s.Properties.Names) > 0 || s.Items != nil {
			m.errorf("%s: $ref must not be combined with type/properties/items", at)
		}
		return
	}
	if s.Type == "" {
		m.warnf("%s: no type (any value accepted)", at)
	} else if !validTypes[s.Type] {
		m.errorf("%s: unsupported type %q", at, s.Type)
	}
	switch s.Format {
	case "":
	case "int32", "int64":
		if s.Type != "integer" {
			m.errorf("%s: format %q needs type integer", at, s.Format)
		}
	case "float", "double":
		if s.Type != "number" {
			m.errorf("%s: format %q needs type number", at, s.Format)
		}
	case "urn":
		if s.Type != "string" {
			m.errorf("%s: format %q needs type string", at, s.Format)
		}
	default:
		m.warnf("%s: unknown format %q (ignored)", at, s.Format)
	}
	if s.XURNEntity != "" && s.Format != "urn" {
		m.errorf("%s: x-urn-entity needs format urn", at)
	}
	if strings.ContainsAny(s.XURNEntity, ":(),/ ") {
		m.errorf("%s: x-urn-entity %q is not an entity type", at, s.XURNEntity)
	}
	if len(s.Enum) > 0 {
		if s.Type != "string" {
			m.errorf("%s: enum needs type string", at)
		}
		for _, v := range s.Enum {
			if _, ok := v.(string); !ok {
				m.errorf("%s: enum value %v is not a string", at, v)
			}
		}
	}
	if s.Type != "object" && (len(s.Properties.Names) > 0 || s.XUnion || len(s.AdditionalProperties) > 0) {
		m.errorf("%s: properties/additionalProperties/x-union need type object", at)
	}
	if s.Type == "array" && s.Items == nil {
		m.errorf("%s: array without items", at)
	}
	if s.Type != "array" && s.Items != nil {
		m.errorf("%s: items needs type array", at)
	}
	if s.Type == "object" {
		if s.XUnion && len(s.Properties.Names) == 0 {
			m.errorf("%s: union without members", at)
		}
		if len(s.Properties.Names) > 0 && s.addl != nil {
			m.errorf("%s: a record cannot also be a map (properties and an additionalProperties schema)", at)
		}
		if len(s.Properties.Names) > 0 && !s.addlFalse {
			m.warnf("%s: record without additionalProperties: false (treated as false)", at)
		}
		for _, r := range s.Required {
			if s.Properties.M[r] == nil {
				m.errorf("%s: required field %q is not a property", at, r)
			}
		}
		if s.XUnion && len(s.Required) > 0 {
			m.errorf("%s: a union has no required members", at)
		}
	}
	for _, n := range s.Properties.Names {
		m.checkSchema(file, ptr+"/properties/"+n, s.Properties.M[n])
	}
	if s.Items != nil {
		m.checkSchema(file, ptr+"/items", s.Items)
	}
	if s.addl != nil {
		m.checkSchema(file, ptr+"/additionalProperties", s.addl)
	}
}

// parseAnnotations decodes and checks x-searchable and x-relationship.
func (m *Model) parseAnnotations(f *File) {
	if len(f.S.XSearchable) > 0 {
		var raws []json.RawMessage
		if err := json.Unmarshal(f.S.XSearchable, &raws); err != nil {
			m.errorf("%s: x-searchable: %v", f.Path, err)
		}
		for i, r := range raws {
			var sj searchableJSON
			dec := json.NewDecoder(bytes.NewReader(r))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&sj); err != nil {
				m.errorf("%s: x-searchable[%d]: %v", f.Path, i, err)
				continue
			}
			where := fmt.Sprintf("%s: x-searchable[%d] (%s)", f.Path, i, sj.Path)
			if sj.FieldName == "" || sj.FieldType == "" {
				m.errorf("%s: fieldName and fieldType are required", where)
			}
			if !searchTypes[sj.FieldType] && sj.FieldType != "" {
				m.errorf("%s: unknown fieldType %q", where, sj.FieldType)
			}
			m.checkPath(f, where, "path", sj.Path)
			spec := catalog.SearchableSpec{
				Path: sj.Path, FieldName: sj.FieldName, FieldType: sj.FieldType,
				QueryByDefault: sj.QueryByDefault, EnableAutocomplete: sj.EnableAutocomplete,
				AddToFilters: sj.AddToFilters, AddHasValuesToFilters: sj.AddHasValuesToFilters,
				BoostScore: 1.0, FilterNameOverride: sj.FilterNameOverride,
				HasValuesFieldName: sj.HasValuesFieldName, NumValuesFieldName: sj.NumValuesFieldName,
				IncludeSystemModifiedAt: sj.IncludeSystemModifiedAt, SystemModifiedAtFieldName: sj.SystemModifiedAtFieldName,
				IncludeQueryEmptyAggregation: sj.IncludeQueryEmptyAggregation, FieldNameAliases: sj.FieldNameAliases,
				KeyPath: sj.KeyPath, ValuePath: sj.ValuePath,
			}
			if (sj.KeyPath == "") != (sj.ValuePath == "") {
				m.errorf("%s: keyPath and valuePath go together", where)
			} else if sj.KeyPath != "" {
				m.checkPath(f, where, "keyPath", sj.Path+"/"+sj.KeyPath)
				m.checkPath(f, where, "valuePath", sj.Path+"/"+sj.ValuePath)
			}
			if sj.BoostScore != nil {
				spec.BoostScore = *sj.BoostScore
			}
			f.Searchable = append(f.Searchable, spec)
		}
	}
	if len(f.S.XRelationship) > 0 {
		var raws []json.RawMessage
		if err := json.Unmarshal(f.S.XRelationship, &raws); err != nil {
			m.errorf("%s: x-relationship: %v", f.Path, err)
		}
		for i, r := range raws {
			var rj relationshipJSON
			dec := json.NewDecoder(bytes.NewReader(r))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&rj); err != nil {
				m.errorf("%s: x-relationship[%d]: %v", f.Path, i, err)
				continue
			}
			where := fmt.Sprintf("%s: x-relationship[%d] (%s)", f.Path, i, rj.Path)
			if rj.Name == "" || len(rj.EntityTypes) == 0 {
				m.errorf("%s: name and entityTypes are required", where)
			}
			m.checkPath(f, where, "path", rj.Path)
			for _, p := range []struct{ k, v string }{
				{"createdOn", rj.CreatedOn}, {"createdActor", rj.CreatedActor}, {"updatedOn", rj.UpdatedOn},
				{"updatedActor", rj.UpdatedActor}, {"properties", rj.Properties}, {"via", rj.Via},
			} {
				if p.v != "" {
					m.checkPath(f, where, p.k, p.v)
				}
			}
			spec := catalog.RelationshipSpec{
				Path: rj.Path, Name: rj.Name, EntityTypes: rj.EntityTypes, IsLineage: rj.IsLineage, IsUpstream: true,
				CreatedOn: rj.CreatedOn, CreatedActor: rj.CreatedActor, UpdatedOn: rj.UpdatedOn,
				UpdatedActor: rj.UpdatedActor, Properties: rj.Properties, Via: rj.Via,
			}
			if rj.IsUpstream != nil {
				spec.IsUpstream = *rj.IsUpstream
			}
			f.Relationships = append(f.Relationships, spec)
		}
	}
}

var searchTypes = map[string]bool{
	"TEXT": true, "TEXT_PARTIAL": true, "WORD_GRAM": true, "KEYWORD": true, "URN": true, "URN_PARTIAL": true,
	"BOOLEAN": true, "COUNT": true, "DATETIME": true, "DOUBLE": true, "BROWSE_PATH": true, "BROWSE_PATH_V2": true,
	"MAP_ARRAY": true, "OBJECT": true,
}

// checkPath reports a spec path that does not exist in the aspect's schema.
func (m *Model) checkPath(f *File, where, key, p string) {
	if err := m.walkPath(f.S, p); err != nil {
		m.errorf("%s: %s %q: %v", where, key, p, err)
	}
}

func (m *Model) walkPath(s *Schema, p string) error {
	if !strings.HasPrefix(p, "/") || p == "/" {
		return fmt.Errorf("must be a slash path from the aspect root")
	}
	for _, seg := range strings.Split(p[1:], "/") {
		d, _, err := m.deref(s)
		if err != nil {
			return err
		}
		switch {
		case seg == "*" && d.Type == "array":
			s = d.Items
		case seg == "*" && d.isMap():
			s = d.addl
		case d.Type == "object" && d.Properties.M[seg] != nil:
			s = d.Properties.M[seg]
		case d.isMap():
			s = d.addl
		case d.Type == "array":
			return fmt.Errorf("segment %q: an array needs *", seg)
		default:
			return fmt.Errorf("segment %q does not exist", seg)
		}
	}
	_, _, err := m.deref(s)
	return err
}
