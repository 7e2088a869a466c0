package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/registry"
)

// browsePathV2Delimiter joins the ids of a browsePathsV2 path into one value,
// as DataHub does.
const browsePathV2Delimiter = "␟"

// Builder turns the latest aspects of an entity into its search document. It
// is safe for concurrent use.
type Builder struct {
	reg   *registry.Registry
	specs map[string][]compiledSpec // aspect name → searchable specs
	// timeseries lists, per entity type, the timeseries aspects whose
	// searchable fields belong in its documents.
	timeseries map[string][]string
}

type compiledSpec struct {
	catalog.SearchableSpec
	path            registry.Path
	keyPath, values registry.Path // of a field per element (KeyPath set)
}

// NewBuilder compiles the searchable specs of reg.
func NewBuilder(reg *registry.Registry) *Builder {
	b := &Builder{reg: reg, specs: map[string][]compiledSpec{}, timeseries: map[string][]string{}}
	for _, a := range reg.Aspects() {
		for _, sp := range a.Searchable {
			b.specs[a.Name] = append(b.specs[a.Name], compiledSpec{sp, registry.CompilePath(sp.Path), registry.CompilePath(sp.KeyPath), registry.CompilePath(sp.ValuePath)})
		}
	}
	for _, e := range reg.Entities() {
		for _, name := range e.Aspects {
			if a := reg.Aspect(name); a != nil && a.Timeseries && len(a.Searchable) > 0 {
				b.timeseries[e.Name] = append(b.timeseries[e.Name], name)
			}
		}
	}
	return b
}

// TimeseriesAspects returns the timeseries aspects of entity that feed its
// document.
func (b *Builder) TimeseriesAspects(entity string) []string { return b.timeseries[entity] }

// EntityOf returns the registry name of the entity type of urn, "" when the
// URN is malformed or its type unknown.
func (b *Builder) EntityOf(urn string) string {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return ""
	}
	if e := b.reg.Entity(u.EntityType()); e != nil {
		return e.Name
	}
	return ""
}

// Build returns the document of urn from its latest aspects and the latest
// value of its timeseries aspects. ok is false when there is nothing to
// index (no aspect, or an unknown entity type): the document must then be
// deleted.
func (b *Builder) Build(urn string, aspects []catalog.Aspect, series []catalog.TimeseriesValue) (doc catalog.Document, ok bool, err error) {
	latest := make([]ingest.LatestAspect, len(aspects))
	for i, a := range aspects {
		latest[i].Aspect = a
	}
	return b.BuildLatest(urn, latest, series)
}

// BuildLatest is Build for aspects whose decoded values the caller may
// already hold (a write that just decoded them), which it does not decode
// again. The document is the one Build makes of the same aspects.
func (b *Builder) BuildLatest(urn string, aspects []ingest.LatestAspect, series []catalog.TimeseriesValue) (doc catalog.Document, ok bool, err error) {
	entity := b.EntityOf(urn)
	if entity == "" || len(aspects) == 0 {
		return catalog.Document{}, false, nil
	}
	doc = catalog.Document{URN: urn, EntityType: entity, Fields: map[string][]any{FieldURN: {urn}}}
	// Aspects apply in name order so that a field written by two aspects
	// (platform by datasetKey and dataPlatformInstance) is deterministic.
	sorted := append([]ingest.LatestAspect(nil), aspects...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, a := range sorted {
		if err := b.apply(&doc, a.Name, a.Value, a.Decoded); err != nil {
			return catalog.Document{}, false, fmt.Errorf("index %s of %s: %w", a.Name, urn, err)
		}
	}
	for _, ts := range series {
		if err := b.apply(&doc, ts.Aspect, ts.Value, nil); err != nil {
			return catalog.Document{}, false, fmt.Errorf("index %s of %s: %w", ts.Aspect, urn, err)
		}
	}
	return doc, true, nil
}

// apply adds what one aspect contributes to doc; v is raw decoded, or nil.
func (b *Builder) apply(doc *catalog.Document, aspect string, raw json.RawMessage, v any) error {
	specs := b.specs[aspect]
	if len(specs) == 0 && aspect != "status" && aspect != "browsePaths" {
		return nil
	}
	if v == nil {
		var ok bool
		if v, ok = fastjson.Decode(raw); !ok {
			d := json.NewDecoder(bytes.NewReader(raw))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				return err
			}
		}
	}
	switch aspect {
	case "status":
		if m, ok := v.(map[string]any); ok {
			doc.Removed, _ = m["removed"].(bool)
		}
	case "browsePaths":
		doc.BrowsePaths = doc.BrowsePaths[:0]
		for _, p := range registry.Extract(v, "/paths/*") {
			if s, ok := p.(string); ok {
				doc.BrowsePaths = append(doc.BrowsePaths, NormalizePath(s))
			}
		}
	}
	for _, sp := range specs {
		if sp.KeyPath != "" {
			keyedFields(doc, sp, v)
			continue
		}
		raw := sp.path.Extract(v)
		vals := convert(sp.FieldType, raw)
		if sp.FieldType == "BROWSE_PATH_V2" && len(vals) > 0 {
			parts := make([]string, len(vals))
			for i, x := range vals {
				parts[i] = fmt.Sprint(x)
			}
			vals = []any{browsePathV2Delimiter + strings.Join(parts, browsePathV2Delimiter)}
		}
		if sp.FieldName == FieldRemoved {
			continue // Document.Removed carries it
		}
		if len(vals) > 0 {
			doc.Fields[sp.FieldName] = vals
		} else {
			delete(doc.Fields, sp.FieldName)
		}
		if sp.HasValuesFieldName != "" {
			doc.Fields[sp.HasValuesFieldName] = []any{hasValues(sp.FieldType, raw, vals)}
		}
		if sp.NumValuesFieldName != "" {
			doc.Fields[sp.NumValuesFieldName] = []any{float64(len(vals))}
		}
	}
	return nil
}

// keyedFields adds the fields of a spec with a KeyPath: one per element
// at its path, named after the element's key.
func keyedFields(doc *catalog.Document, sp compiledSpec, v any) {
	for _, el := range sp.path.Extract(v) {
		keys := sp.keyPath.Extract(el)
		if len(keys) != 1 {
			continue
		}
		key, _ := keys[0].(string)
		if u, err := catalog.ParseURN(key); err == nil {
			key = u.ID()
		}
		if key == "" {
			continue
		}
		var vals []any
		for _, x := range sp.values.Extract(el) {
			if m, ok := x.(map[string]any); ok && len(m) == 1 {
				for _, member := range m {
					x = member
				}
			}
			switch n := x.(type) {
			case json.Number:
				if f, err := n.Float64(); err == nil {
					vals = append(vals, f)
				}
			case float64, string:
				vals = append(vals, n)
			}
		}
		if len(vals) > 0 {
			doc.Fields[KeyedFieldName(sp.FieldName, key)] = vals
		}
	}
}

// KeyedFieldName is the document field of one key of a keyed field:
// prefix.key with the key's dots written as underscores, as DataHub names
// the index fields of structured properties.
func KeyedFieldName(prefix, key string) string {
	return prefix + "." + strings.ReplaceAll(key, ".", "_")
}

// hasValues mirrors DataHub: a BOOLEAN leaf gives its value, a string leaf
// true when the first value is not empty, anything else true when a value
// was found.
func hasValues(fieldType string, raw []any, vals []any) bool {
	if len(raw) == 0 {
		return false
	}
	switch x := raw[0].(type) {
	case bool:
		return x
	case string:
		return x != ""
	}
	return len(vals) > 0
}

// convert turns extracted JSON values into document values of a field type:
// float64 for numeric types, bool for BOOLEAN, strings otherwise; arrays are
// flattened and maps become "key=value" strings.
func convert(fieldType string, raw []any) []any {
	var out []any
	var add func(v any)
	add = func(v any) {
		switch x := v.(type) {
		case nil:
		case []any:
			for _, e := range x {
				add(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				switch ev := x[k].(type) {
				case []any:
					for _, e := range ev {
						out = append(out, k+"="+scalarString(e))
					}
				default:
					out = append(out, k+"="+scalarString(ev))
				}
			}
		default:
			if c, ok := typed(fieldType, x); ok {
				out = append(out, c)
			}
		}
	}
	for _, v := range raw {
		add(v)
	}
	return out
}

func typed(fieldType string, v any) (any, bool) {
	switch fieldType {
	case "COUNT", "DATETIME", "DOUBLE":
		switch x := v.(type) {
		case json.Number:
			f, err := x.Float64()
			return f, err == nil
		case float64:
			return x, true
		case string:
			f, err := strconv.ParseFloat(x, 64)
			return f, err == nil
		}
		return nil, false
	case "BOOLEAN":
		switch x := v.(type) {
		case bool:
			return x, true
		case string:
			b, err := strconv.ParseBool(x)
			return b, err == nil
		}
		return nil, false
	}
	if x, ok := v.(string); ok {
		return v, x != "" // v as it is: boxing x again would allocate
	}
	s := scalarString(v)
	return s, s != ""
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// ValueString is the canonical string form of a document value, the form
// filters compare against: numbers in shortest decimal form, booleans as
// "true"/"false".
func ValueString(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return scalarString(v)
}

// NormalizePath gives a browse path one leading slash and no trailing one;
// the root is "".
func NormalizePath(p string) string {
	p = strings.Trim(strings.TrimSpace(p), "/")
	if p == "" {
		return ""
	}
	return "/" + p
}
