package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// bundled is a type schema with its $refs rewritten, and the FQNs it refers to.
type bundled struct {
	doc  map[string]any
	refs []string
}

// Bundle returns the aspect's schema as compact JSON with every referenced
// type bundled under "$defs" keyed by FQN and every $ref rewritten to
// "#/$defs/<FQN>". Recursive types are bundled once.
func (m *Model) Bundle(f *File) (string, error) {
	root, refs, err := m.rewrite(f.Raw, true)
	if err != nil {
		return "", fmt.Errorf("%s: %w", f.Path, err)
	}
	defs := map[string]any{}
	queue := refs
	for len(queue) > 0 {
		fqn := queue[0]
		queue = queue[1:]
		if _, done := defs[fqn]; done {
			continue
		}
		b, err := m.bundledType(fqn)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.Path, err)
		}
		defs[fqn] = b.doc
		queue = append(queue, b.refs...)
	}
	rm := root.(map[string]any)
	if len(defs) > 0 {
		rm["$defs"] = defs
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rm); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

func (m *Model) bundledType(fqn string) (*bundled, error) {
	if m.bundleCache == nil {
		m.bundleCache = map[string]*bundled{}
	}
	if b := m.bundleCache[fqn]; b != nil {
		return b, nil
	}
	f := m.byFQN(fqn)
	if f == nil {
		return nil, fmt.Errorf("unresolved type %q", fqn)
	}
	doc, refs, err := m.rewrite(f.Raw, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	dm := doc.(map[string]any)
	for _, k := range []string{"$schema", "$id", "x-aspect", "x-searchable", "x-relationship"} {
		delete(dm, k)
	}
	b := &bundled{doc: dm, refs: refs}
	m.bundleCache[fqn] = b
	return b, nil
}

// byFQN finds the type file (or, failing that, the aspect file) of a fully qualified name.
func (m *Model) byFQN(fqn string) *File {
	if f := m.Types[fqn]; f != nil {
		return f
	}
	if m.fqnIndex == nil {
		m.fqnIndex = map[string]*File{}
		for _, f := range m.SortedAspects() {
			if f.FQN != "" && m.fqnIndex[f.FQN] == nil {
				m.fqnIndex[f.FQN] = f
			}
		}
	}
	return m.fqnIndex[fqn]
}

// rewrite deep-copies a generic schema, rewriting $refs; it returns the sorted FQNs referred to.
func (m *Model) rewrite(v any, root bool) (any, []string, error) {
	set := map[string]bool{}
	var walk func(v any) (any, error)
	walk = func(v any) (any, error) {
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, c := range x {
				switch k {
				case "$ref":
					ref, _ := c.(string)
					t, err := m.resolveRef(ref)
					if err != nil {
						return nil, err
					}
					set[t.FQN] = true
					out[k] = "#/$defs/" + t.FQN
				case "default", "examples", "enum", "x-searchable", "x-relationship", "x-aspect":
					out[k] = c
				case "$defs":
					// not part of the contract; dropped
				default:
					w, err := walk(c)
					if err != nil {
						return nil, err
					}
					out[k] = w
				}
			}
			return out, nil
		case []any:
			out := make([]any, len(x))
			for i, c := range x {
				w, err := walk(c)
				if err != nil {
					return nil, err
				}
				out[i] = w
			}
			return out, nil
		}
		return v, nil
	}
	out, err := walk(v)
	if err != nil {
		return nil, nil, err
	}
	refs := make([]string, 0, len(set))
	for k := range set {
		refs = append(refs, k)
	}
	sort.Strings(refs)
	return out, refs, nil
}
