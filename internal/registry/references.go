package registry

import (
	"strconv"

	"github.com/catalogd/catalogd/internal/catalog"
)

// RemoveReference takes the URN ref out of value, a decoded value of the
// named aspect, at a relationship path ("/owners/*/owner"), as DataHub does
// when the entity ref names is deleted:
//
//   - at the end of the path, an optional field holding ref is removed, and
//     ref is removed from an array of URNs;
//   - a required field holding ref takes the record holding it with it: an
//     array element (the whole owner entry for /owners/*/owner), or an
//     optional field holding the record, or the aspect itself when the
//     record is the aspect or its only content.
//
// value is changed in place: callers pass a copy they own. changed reports
// that ref was found and removed; drop that the aspect must be deleted
// instead, as nothing valid is left of it. A reference whose removal would
// leave a required field missing from a record that holds other fields is
// not removed: err says so and value is then unusable.
func (r *Registry) RemoveReference(aspect string, value any, path, ref string) (out any, changed, drop bool, err error) {
	e := r.aspectByName[aspect]
	if e == nil {
		return value, false, false, catalog.Errorf(catalog.Invalid, "unknown aspect %q", aspect)
	}
	root, err := e.compiled()
	if err != nil {
		return value, false, false, err
	}
	out, changed, gone, perr := removeRef(root, value, CompilePath(path), ref)
	if perr != nil {
		return value, false, false, catalog.Errorf(catalog.Invalid, "%s: %s", aspect, perr.Error())
	}
	if gone {
		return nil, true, true, nil
	}
	return out, changed, false, nil
}

// removeRef removes ref from v, whose schema is n, at path. gone says that
// v itself must go (DataHub's null): it is a record whose required field
// held ref.
func removeRef(n *node, v any, path Path, ref string) (out any, changed, gone bool, err *pathError) {
	if len(path) == 0 {
		return v, false, false, nil
	}
	seg, rest := path[0], path[1:]
	switch x := v.(type) {
	case []any:
		if seg != "*" {
			return v, false, false, nil
		}
		items := (*node)(nil)
		if n != nil {
			items = n.items
		}
		kept := x[:0:0]
		for i, c := range x {
			if len(rest) == 0 {
				if s, ok := c.(string); ok && s == ref {
					changed = true
					continue
				}
				kept = append(kept, c)
				continue
			}
			o, ch, g, err := removeRef(items, c, rest, ref)
			if err != nil {
				return v, false, false, err.push(strconv.Itoa(i))
			}
			changed = changed || ch
			if !g {
				kept = append(kept, o)
			}
		}
		if !changed {
			return v, false, false, nil
		}
		return kept, true, false, nil
	case map[string]any:
		if n != nil && n.kind == kMap {
			// DataHub's paths never go through a map's values.
			return v, false, false, nil
		}
		c, ok := x[seg]
		if !ok {
			return v, false, false, nil
		}
		var child *node
		required := false
		if n != nil {
			p := n.props[seg]
			child = p.n
			// A union member is its union's only content: without
			// it the union is no value at all.
			required = p.req || n.kind == kUnion
		}
		if len(rest) == 0 {
			if s, ok := c.(string); !ok || s != ref {
				return v, false, false, nil
			}
			if !required {
				delete(x, seg)
				return x, true, false, nil
			}
			return nil, true, true, nil
		}
		o, ch, g, err := removeRef(child, c, rest, ref)
		if err != nil {
			return v, false, false, err.push(seg)
		}
		switch {
		case !ch:
			return v, false, false, nil
		case !g:
			x[seg] = o
			return x, true, false, nil
		case !required:
			delete(x, seg)
			return x, true, false, nil
		case len(x) == 1:
			return nil, true, true, nil
		}
		return v, false, false, errf("removing %s would leave required field %q missing", ref, seg)
	}
	return v, false, false, nil
}
