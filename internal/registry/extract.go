package registry

import (
	"sort"
	"strings"
)

// Path is a compiled spec path (see CompilePath).
type Path []string

// CompilePath splits a slash path from the aspect root ("/owners/*/owner")
// into its segments; "*" stands for every array element (or every map value).
func CompilePath(p string) Path {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return Path{}
	}
	return Path(strings.Split(p, "/"))
}

// Extract returns every value found at path in a (normalised) aspect value:
// "*" visits every element of an array (or every value of a map, in key
// order); a path through a missing field or a value of the wrong shape yields
// nothing. An array reached without "*" is returned as one value.
func Extract(value any, path string) []any {
	return CompilePath(path).Extract(value)
}

// Extract is Extract with a compiled path.
func (p Path) Extract(value any) []any {
	var out []any
	p.walk(value, &out)
	return out
}

func (p Path) walk(v any, out *[]any) {
	if v == nil {
		return
	}
	if len(p) == 0 {
		*out = append(*out, v)
		return
	}
	seg, rest := p[0], p[1:]
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x[seg]; ok {
			rest.walk(c, out)
			return
		}
		if seg == "*" {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				rest.walk(x[k], out)
			}
		}
	case []any:
		if seg == "*" {
			for _, c := range x {
				rest.walk(c, out)
			}
		}
	}
}
