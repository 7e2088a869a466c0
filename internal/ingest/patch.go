package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/catalogd/catalogd/internal/catalog"
)

// PatchContentType is the content type of a PATCH proposal's aspect value: a
// JSON Patch document (RFC 6902).
const PatchContentType = "application/json-patch+json"

// This file applies DataHub-style JSON Patch documents to stored aspects.
//
// Plain RFC 6902 addresses array elements by index, which is useless for
// concurrent writers: two clients adding a tag would both write /tags/3.
// DataHub therefore addresses the elements of arrays of records by key, e.g.
// /tags/urn:li:tag:x or /owners/<owner urn>/<ownership type>. DataHub writes
// one Java template per aspect naming those keys; catalogd derives them from
// the aspect's JSON Schema instead, so that a new aspect needs no code:
//
//   - An array whose items are records is keyed. Its primary key is the first
//     required field of the item schema that is a URN string (format urn);
//     failing that, the first required string field. This yields
//     upstreams→dataset, tags→tag, terms→urn, owners→owner,
//     editableSchemaFieldInfo→fieldPath, *Edges→destinationUrn.
//   - The other required string (or enum) fields are secondary keys. A path
//     segment after a key is read as a field name when the item schema has a
//     field of that name, and otherwise as the value of the next secondary
//     key. So /owners/<owner>/DATAOWNER selects the owner entry of that type,
//     /owners/<owner> selects every entry of that owner, and
//     /upstreams/<dataset>/type is the type field of one upstream.
//   - An array of strings is keyed by the strings themselves (/paths/<path>).
//   - Where the key is a URN, a segment that is not one is an array index,
//     so /tags/0 is the first tag, as in RFC 6902.
//   - Any other array is addressed by index as in RFC 6902: a non-negative
//     integer without leading zeros, at most the array's length for "add"
//     (which inserts) and below it otherwise, into an array that exists;
//     "-" appends to every kind of array.
//   - Map fields (additionalProperties) and record fields are addressed by
//     name as in RFC 6902.
//
// A segment is a JSON Pointer reference token (RFC 6901), so "~1" stands for
// "/" and "~0" for "~" (URNs may contain slashes); any other "~" is an error.
//
// "add" creates missing intermediate records, maps, arrays and keyed items,
// as DataHub's templates do, and a missing aspect starts from its default,
// as DataHub's templates (getDefault) build it: every required array, map
// and plain string empty, every required record built the same way,
// optional fields with a default in the schema set to it, and audit stamps
// among them set to the time and actor of the write (glossaryTerms.auditStamp,
// dashboardInfo.lastModified, for instance). Keyed items
// that "add" creates get their key fields from the path. "remove",
// "replace" and "test" need their target to exist; a failed "test" or a
// missing target fails the whole request and nothing is written.
//
// fineGrainedLineages (upstreamLineage) is the one array with no key: its
// records have several upstreams and downstreams. DataHub patches it through
// the view /fineGrainedLineages/<transformOperation>/<downstream>/<query
// or NONE>/<upstream> → {confidenceScore}, and so does catalogd (see
// fineGrainedView), because the dbt and SQL-parsing connectors send exactly
// these paths.

// patchOp is one operation of a JSON Patch document.
type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  *string         `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`

	segs  []string // Path split and unescaped
	from  []string
	value any
}

// parsePatch decodes and checks a JSON Patch document without looking at any
// stored state, so that a malformed patch fails before the transaction.
func parsePatch(raw []byte) ([]patchOp, error) {
	var ops []patchOp
	d := json.NewDecoder(bytes.NewReader(raw))
	if err := d.Decode(&ops); err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "PATCH value is not a JSON Patch array: %v", err)
	}
	if len(ops) == 0 {
		return nil, catalog.Errorf(catalog.Invalid, "PATCH value is an empty JSON Patch document")
	}
	for i := range ops {
		op := &ops[i]
		var err error
		if op.segs, err = parsePointer(op.Path); err != nil {
			return nil, catalog.Errorf(catalog.Invalid, "patch operation %d: %v", i, err)
		}
		switch op.Op {
		case "add", "replace", "test":
			if len(op.Value) == 0 {
				return nil, catalog.Errorf(catalog.Invalid, "patch operation %d (%s %s): value is required", i, op.Op, op.Path)
			}
			if op.value, err = decodeJSON(op.Value); err != nil {
				return nil, catalog.Errorf(catalog.Invalid, "patch operation %d (%s %s): value: %v", i, op.Op, op.Path, err)
			}
		case "remove":
		case "move", "copy":
			if op.From == nil {
				return nil, catalog.Errorf(catalog.Invalid, "patch operation %d (%s %s): from is required", i, op.Op, op.Path)
			}
			if op.from, err = parsePointer(*op.From); err != nil {
				return nil, catalog.Errorf(catalog.Invalid, "patch operation %d: from: %v", i, err)
			}
			if op.Op == "move" && len(op.from) < len(op.segs) && slices.Equal(op.from, op.segs[:len(op.from)]) {
				return nil, catalog.Errorf(catalog.Invalid, "patch operation %d: cannot move %s into itself (%s)", i, *op.From, op.Path)
			}
		default:
			return nil, catalog.Errorf(catalog.Invalid, "patch operation %d: unknown op %q (want add, remove, replace, test, move or copy)", i, op.Op)
		}
		if len(op.segs) == 0 && op.Op != "test" && op.Op != "replace" {
			return nil, catalog.Errorf(catalog.Invalid, "patch operation %d: %s on the whole aspect is not supported", i, op.Op)
		}
	}
	return ops, nil
}

// parsePointer splits a JSON Pointer (RFC 6901) into unescaped segments.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("path %q does not start with /", p)
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		if !strings.Contains(s, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(s); j++ {
			if s[j] != '~' {
				b.WriteByte(s[j])
				continue
			}
			if j+1 == len(s) || (s[j+1] != '0' && s[j+1] != '1') {
				return nil, fmt.Errorf("path %q: \"~\" must be followed by 0 or 1 (RFC 6901)", p)
			}
			b.WriteByte("~/"[s[j+1]-'0'])
			j++
		}
		segs[i] = b.String()
	}
	return segs, nil
}

// patcher applies one patch document to one aspect value.
type patcher struct {
	schema *schemaDoc
	stamp  map[string]any // the audit stamp of the write, for defaults
}

// applyPatch returns cur (nil when the aspect is absent) with ops applied.
// cur is modified in place; callers pass a private copy.
func (pt *patcher) applyPatch(cur any, ops []patchOp) (any, error) {
	root := pt.schema.root()
	if cur == nil {
		cur = pt.defaultValue(root)
		if cur == nil {
			cur = map[string]any{}
		}
	}
	view := false
	for i := range ops {
		if len(ops[i].segs) > 1 && ops[i].segs[0] == fineGrainedField && pt.schema.prop(root, fineGrainedField) != nil {
			view = true
		}
	}
	if view {
		if m, ok := cur.(map[string]any); ok {
			if fg, ok := m[fineGrainedField].([]any); ok || m[fineGrainedField] == nil {
				m[fineGrainedField] = fineGrainedToView(fg)
			}
		}
	}
	for i := range ops {
		op := &ops[i]
		if err := pt.one(&cur, root, op); err != nil {
			return nil, catalog.WithOp(fmt.Sprintf("patch operation %d (%s %s)", i, op.Op, op.Path), err)
		}
	}
	if view {
		if m, ok := cur.(map[string]any); ok {
			if v, ok := m[fineGrainedField].(*omap); ok {
				m[fineGrainedField] = fineGrainedFromView(v)
			}
		}
	}
	return cur, nil
}

func (pt *patcher) one(doc *any, root *schemaNode, op *patchOp) error {
	switch op.Op {
	case "add":
		return pt.edit(doc, root, op.segs, true, func(old any, exists bool, keyed bool) (any, bool, error) {
			return deepCopy(op.value), false, nil
		}, "add")
	case "replace":
		if len(op.segs) == 0 {
			*doc = deepCopy(op.value)
			return nil
		}
		return pt.edit(doc, root, op.segs, false, func(old any, exists bool, keyed bool) (any, bool, error) {
			if !exists {
				return nil, false, catalog.Errorf(catalog.Conflict, "no value at path")
			}
			return deepCopy(op.value), false, nil
		}, "replace")
	case "remove":
		return pt.edit(doc, root, op.segs, false, func(old any, exists bool, keyed bool) (any, bool, error) {
			if !exists {
				return nil, false, catalog.Errorf(catalog.Conflict, "no value at path")
			}
			return nil, true, nil
		}, "remove")
	case "test":
		got, ok := pt.get(*doc, root, op.segs)
		if !ok {
			return catalog.Errorf(catalog.Conflict, "test failed: no value at path")
		}
		if !jsonEqual(got, op.value) {
			return catalog.Errorf(catalog.Conflict, "test failed: value differs")
		}
		return nil
	case "copy", "move":
		v, ok := pt.get(*doc, root, op.from)
		if !ok {
			return catalog.Errorf(catalog.Conflict, "no value at from path %s", *op.From)
		}
		v = deepCopy(v)
		if op.Op == "move" {
			if err := pt.edit(doc, root, op.from, false, func(any, bool, bool) (any, bool, error) { return nil, true, nil }, "remove"); err != nil {
				return err
			}
		}
		return pt.edit(doc, root, op.segs, true, func(any, bool, bool) (any, bool, error) { return v, false, nil }, "add")
	}
	return catalog.Errorf(catalog.Invalid, "unknown op %q", op.Op)
}

// leafFunc computes the new value at a patch target from the old one; remove
// deletes the target instead.
type leafFunc func(old any, exists bool, keyed bool) (v any, remove bool, err error)

// edit walks segs from *v, creating missing containers when create is set,
// and calls leaf on the target(s). kind is the operation, which decides
// whether a missing array element is inserted (add) or an error.
func (pt *patcher) edit(v *any, sc *schemaNode, segs []string, create bool, leaf leafFunc, kind string) error {
	seg, rest := segs[0], segs[1:]
	created := false
	if *v == nil {
		if !create {
			return catalog.Errorf(catalog.Conflict, "path not found at %q", seg)
		}
		*v = pt.newContainer(sc, seg)
		created = true
	}
	switch c := (*v).(type) {
	case map[string]any:
		child, ok := c[seg]
		csc := pt.schema.prop(sc, seg)
		if len(rest) == 0 {
			nv, rm, err := leaf(child, ok, false)
			if err != nil {
				return err
			}
			if rm {
				delete(c, seg)
			} else {
				c[seg] = nv
			}
			return nil
		}
		if !ok && !create {
			return catalog.Errorf(catalog.Conflict, "path not found at %q", seg)
		}
		if err := pt.edit(&child, csc, rest, create, leaf, kind); err != nil {
			return err
		}
		c[seg] = child
		return nil
	case *omap:
		child, ok := c.get(seg)
		if len(rest) == 0 {
			nv, rm, err := leaf(child, ok, false)
			if err != nil {
				return err
			}
			if rm {
				c.del(seg)
			} else {
				c.set(seg, nv)
			}
			return nil
		}
		if !ok {
			if !create {
				return catalog.Errorf(catalog.Conflict, "path not found at %q", seg)
			}
			child = newOmap()
		}
		if err := pt.edit(&child, nil, rest, create, leaf, kind); err != nil {
			return err
		}
		c.set(seg, child)
		return nil
	case []any:
		arr, err := pt.editArray(c, pt.schema.items(sc), seg, rest, create, created, leaf, kind)
		if err != nil {
			return err
		}
		*v = arr
		return nil
	}
	return catalog.Errorf(catalog.Conflict, "path goes through a %s at %q", jsonKind(*v), seg)
}

// editArray edits the element(s) of arr that seg addresses; created says
// that the array did not exist before this operation made it.
func (pt *patcher) editArray(arr []any, item *schemaNode, seg string, rest []string, create, created bool, leaf leafFunc, kind string) ([]any, error) {
	if seg == "-" {
		if len(rest) != 0 || kind != "add" {
			return nil, catalog.Errorf(catalog.Invalid, `"-" may only end the path of an add`)
		}
		nv, _, err := leaf(nil, false, false)
		if err != nil {
			return nil, err
		}
		return append(arr, nv), nil
	}
	keys := pt.schema.keyFields(item)
	byKey := len(keys) > 0 || pt.schema.isString(item)
	if byKey && pt.schema.keyIsURN(item, keys) && !strings.HasPrefix(seg, "urn:") {
		byKey = false
	}
	switch {
	case byKey && len(keys) > 0:
		return pt.editKeyed(arr, item, keys, seg, rest, create, leaf, kind)
	case byKey:
		// An array of strings is a set keyed by its values.
		idx := -1
		for i, e := range arr {
			if s, ok := e.(string); ok && s == seg {
				idx = i
				break
			}
		}
		if len(rest) != 0 {
			return nil, catalog.Errorf(catalog.Conflict, "path goes through the string %q", seg)
		}
		var old any
		if idx >= 0 {
			old = arr[idx]
		}
		nv, rm, err := leaf(old, idx >= 0, true)
		if err != nil {
			return nil, err
		}
		switch {
		case rm:
			return append(arr[:idx:idx], arr[idx+1:]...), nil
		case idx >= 0:
			arr[idx] = nv
		default:
			arr = append(arr, nv)
		}
		return arr, nil
	}
	i, ok := arrayIndex(seg)
	switch {
	case !ok:
		return nil, catalog.Errorf(catalog.Invalid, "%q is not an array index (a non-negative integer without leading zeros, or - to append)", seg)
	case created:
		return nil, catalog.Errorf(catalog.Invalid, "array index %d into an array that does not exist", i)
	case i > len(arr) || (i == len(arr) && (kind != "add" || len(rest) > 0)):
		return nil, catalog.Errorf(catalog.Invalid, "array index %d is out of bounds: the array has %d elements", i, len(arr))
	}
	if len(rest) > 0 {
		child := arr[i]
		if err := pt.edit(&child, item, rest, create, leaf, kind); err != nil {
			return nil, err
		}
		arr[i] = child
		return arr, nil
	}
	var old any
	if i < len(arr) {
		old = arr[i]
	}
	nv, rm, err := leaf(old, i < len(arr), false)
	if err != nil {
		return nil, err
	}
	switch {
	case rm:
		return append(arr[:i:i], arr[i+1:]...), nil
	case kind == "add":
		// RFC 6902: add inserts before the element at the index.
		arr = append(arr, nil)
		copy(arr[i+1:], arr[i:])
		arr[i] = nv
	default:
		arr[i] = nv
	}
	return arr, nil
}

// editKeyed edits an array of records addressed by key (see the rules above).
func (pt *patcher) editKeyed(arr []any, item *schemaNode, keys []string, seg string, rest []string, create bool, leaf leafFunc, kind string) ([]any, error) {
	match := map[string]string{keys[0]: seg}
	used := 1
	for len(rest) > 0 && used < len(keys) && pt.schema.prop(item, rest[0]) == nil {
		match[keys[used]] = rest[0]
		rest = rest[1:]
		used++
	}
	var hits []int
	for i, e := range arr {
		if m, ok := e.(map[string]any); ok && matches(m, match) {
			hits = append(hits, i)
		}
	}
	if len(rest) == 0 {
		var old any
		if len(hits) > 0 {
			old = arr[hits[0]]
		}
		nv, rm, err := leaf(old, len(hits) > 0, true)
		if err != nil {
			return nil, err
		}
		if !rm {
			// The path names the key; a value without it gets it, as
			// DataHub re-injects keys that live only in the path.
			if m, ok := nv.(map[string]any); ok {
				for k, v := range match {
					if _, ok := m[k]; !ok {
						m[k] = v
					}
				}
			}
		}
		out := arr[:0:0]
		placed := false
		for i, e := range arr {
			if slices.Contains(hits, i) {
				if !rm && !placed {
					out = append(out, nv)
					placed = true
				}
				continue
			}
			out = append(out, e)
		}
		if !rm && !placed {
			out = append(out, nv)
		}
		return out, nil
	}
	if len(hits) == 0 {
		if !create {
			return nil, catalog.Errorf(catalog.Conflict, "no element with %s", describeMatch(keys, match))
		}
		m, _ := pt.defaultValue(item).(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for k, v := range match {
			m[k] = v
		}
		arr = append(arr, m)
		hits = []int{len(arr) - 1}
	}
	for _, i := range hits {
		child := arr[i]
		if err := pt.edit(&child, item, rest, create, leaf, kind); err != nil {
			return nil, err
		}
		arr[i] = child
	}
	return arr, nil
}

// get returns the value at segs, following the same addressing as edit.
func (pt *patcher) get(v any, sc *schemaNode, segs []string) (any, bool) {
	if len(segs) == 0 {
		return v, true
	}
	var found any
	ok := false
	cp := deepCopy(v)
	err := pt.edit(&cp, sc, append([]string{}, segs...), false, func(old any, exists bool, _ bool) (any, bool, error) {
		found, ok = old, exists
		if !exists {
			return nil, false, catalog.Errorf(catalog.Conflict, "absent")
		}
		return old, false, nil
	}, "get")
	return found, ok && err == nil
}

func (pt *patcher) newContainer(sc *schemaNode, next string) any {
	switch {
	case pt.schema.isArray(sc):
		return []any{}
	case sc != nil:
		if d := pt.defaultValue(sc); d != nil {
			return d
		}
		return map[string]any{}
	case next == "-":
		return []any{}
	}
	return map[string]any{}
}

// defaultValue builds the value a missing record starts from, as DataHub's
// patch templates do, without inventing data: required arrays and maps
// empty, required plain strings empty (DashboardInfo's title and
// description), required records built the same way, and optional fields
// with a default in the schema (the Pegasus default: DatasetProperties'
// customProperties {} and tags []) set to it; audit stamps among them
// (ChangeAuditStamps' created and lastModified) are stamped with the
// write. It returns nil for anything else.
func (pt *patcher) defaultValue(sc *schemaNode) any {
	switch {
	case sc == nil:
		return nil
	case pt.schema.isArray(sc):
		return []any{}
	case pt.schema.isAuditStamp(sc):
		return deepCopy(pt.stamp)
	case pt.schema.isMap(sc):
		return map[string]any{}
	case pt.schema.isObject(sc):
		m := map[string]any{}
		required := pt.schema.required(sc)
		for _, name := range required {
			p := pt.schema.prop(sc, name)
			if pt.schema.isPlainString(p) {
				m[name] = ""
			} else if d := pt.defaultValue(p); d != nil {
				m[name] = d
			}
		}
		for name, d := range pt.schema.defaults(sc) {
			if _, set := m[name]; set || slices.Contains(required, name) {
				continue
			}
			if pt.schema.isAuditStamp(pt.schema.prop(sc, name)) {
				// As DataHub's templates stamp the audit stamps of a
				// new aspect (EditableSchemaMetadata's created, say).
				m[name] = deepCopy(pt.stamp)
			} else {
				m[name] = deepCopy(d)
			}
		}
		return m
	}
	return nil
}

func matches(m map[string]any, match map[string]string) bool {
	for k, v := range match {
		if s, ok := m[k].(string); !ok || s != v {
			return false
		}
	}
	return true
}

func describeMatch(keys []string, match map[string]string) string {
	var parts []string
	for _, k := range keys {
		if v, ok := match[k]; ok {
			parts = append(parts, k+" "+strconv.Quote(v))
		}
	}
	return strings.Join(parts, " and ")
}

// arrayIndex reads an RFC 6901 array index: "0" or digits without a leading
// zero, within int range.
func arrayIndex(seg string) (int, bool) {
	if seg == "" || len(seg) > 1 && seg[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] < '0' || seg[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(seg)
	return i, err == nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number, float64, int64, int:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

// jsonEqual compares two decoded JSON values; numbers compare by value.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, err1 := x.Float64()
		fy, err2 := y.Float64()
		return err1 == nil && err2 == nil && fx == fy
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	case *omap:
		o := newOmap()
		for _, k := range x.keys {
			o.set(k, deepCopy(x.m[k]))
		}
		return o
	}
	return v
}

// omap is a JSON object that keeps insertion order, so that the arrays
// rebuilt from the fineGrainedLineages view keep their order.
type omap struct {
	keys []string
	m    map[string]any
}

func newOmap() *omap { return &omap{m: map[string]any{}} }

func (o *omap) get(k string) (any, bool) { v, ok := o.m[k]; return v, ok }

func (o *omap) set(k string, v any) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

func (o *omap) del(k string) {
	if _, ok := o.m[k]; !ok {
		return
	}
	delete(o.m, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

const fineGrainedField = "fineGrainedLineages"

// fineGrainedToView turns upstreamLineage.fineGrainedLineages into DataHub's
// patch view transformOperation → downstream → query → upstream →
// {confidenceScore, upstreamType, downstreamType}. Records with other than
// one downstream cannot be addressed and are kept aside unchanged.
func fineGrainedToView(arr []any) *omap {
	view := newOmap()
	for _, e := range arr {
		rec, ok := e.(map[string]any)
		if !ok {
			continue
		}
		downs, _ := rec["downstreams"].([]any)
		if len(downs) != 1 {
			view.set(unaddressableKey(view), rec)
			continue
		}
		down, _ := downs[0].(string)
		op := strOr(rec["transformOperation"], "NONE")
		query := strOr(rec["query"], "NONE")
		leafVal := map[string]any{"confidenceScore": orDefault(rec["confidenceScore"], json.Number("1.0"))}
		if t, ok := rec["upstreamType"]; ok {
			leafVal["upstreamType"] = t
		}
		if t, ok := rec["downstreamType"]; ok {
			leafVal["downstreamType"] = t
		}
		opNode := child(view, op)
		qNode := child(child(opNode, down), query)
		ups, _ := rec["upstreams"].([]any)
		for _, u := range ups {
			if s, ok := u.(string); ok {
				qNode.set(s, deepCopy(leafVal))
			}
		}
	}
	return view
}

const unaddressablePrefix = "\x00unaddressable"

func unaddressableKey(o *omap) string { return unaddressablePrefix + strconv.Itoa(len(o.keys)) }

func child(o *omap, k string) *omap {
	if c, ok := o.m[k].(*omap); ok {
		return c
	}
	c := newOmap()
	o.set(k, c)
	return c
}

// fineGrainedFromView rebuilds the array: one record per (operation,
// downstream, query) with its upstreams, the lowest confidence score, and the
// FIELD_SET → FIELD types DataHub assumes when none is given.
func fineGrainedFromView(view *omap) []any {
	out := []any{}
	for _, op := range view.keys {
		if strings.HasPrefix(op, unaddressablePrefix) {
			out = append(out, view.m[op])
			continue
		}
		downs, ok := view.m[op].(*omap)
		if !ok {
			continue
		}
		for _, down := range downs.keys {
			queries, ok := downs.m[down].(*omap)
			if !ok {
				continue
			}
			for _, q := range queries.keys {
				ups, ok := asOmap(queries.m[q])
				if !ok || len(ups.keys) == 0 {
					continue
				}
				rec := map[string]any{
					"downstreams":        []any{down},
					"transformOperation": op,
					"upstreamType":       "FIELD_SET",
					"downstreamType":     "FIELD",
				}
				var score json.Number = "1.0"
				minScore := 1.0
				upstreams := make([]any, 0, len(ups.keys))
				for _, u := range ups.keys {
					upstreams = append(upstreams, u)
					lv, _ := asMap(ups.m[u])
					if n, ok := lv["confidenceScore"].(json.Number); ok {
						if f, err := n.Float64(); err == nil && f <= minScore {
							minScore, score = f, n
						}
					}
					if t, ok := lv["upstreamType"]; ok {
						rec["upstreamType"] = t
					}
					if t, ok := lv["downstreamType"]; ok {
						rec["downstreamType"] = t
					}
				}
				rec["upstreams"] = upstreams
				rec["confidenceScore"] = score
				if q != "NONE" && q != "" {
					rec["query"] = q
				}
				out = append(out, rec)
			}
		}
	}
	return out
}

func asOmap(v any) (*omap, bool) {
	switch x := v.(type) {
	case *omap:
		return x, true
	case map[string]any:
		// A patch value may set a whole level as a plain object.
		o := newOmap()
		for k, e := range x {
			o.set(k, e)
		}
		return o, true
	}
	return nil, false
}

func asMap(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case *omap:
		return x.m, true
	}
	return nil, false
}

func strOr(v any, def string) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	return def
}

func orDefault(v, def any) any {
	if v == nil {
		return def
	}
	return v
}

// schemaDoc is an aspect's bundled JSON Schema, read just enough to find the
// keys of arrays and the defaults of records.
type schemaDoc struct {
	rootNode *schemaNode
	defs     map[string]any
}

// schemaNode is one schema object of the document.
type schemaNode struct{ m map[string]any }

func parseSchema(src string) (*schemaDoc, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(src), &m); err != nil {
		return nil, fmt.Errorf("parse aspect schema: %w", err)
	}
	defs, _ := m["$defs"].(map[string]any)
	return &schemaDoc{rootNode: &schemaNode{m: m}, defs: defs}, nil
}

func (d *schemaDoc) root() *schemaNode { return d.resolve(d.rootNode) }

// resolve follows $ref chains into $defs.
func (d *schemaDoc) resolve(n *schemaNode) *schemaNode {
	for i := 0; n != nil && i < 16; i++ {
		ref, _ := n.m["$ref"].(string)
		if ref == "" {
			return n
		}
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, ok := d.defs[name].(map[string]any)
		if !ok {
			return nil
		}
		n = &schemaNode{m: def}
	}
	return n
}

func (d *schemaDoc) sub(n *schemaNode, key string) *schemaNode {
	if n == nil {
		return nil
	}
	m, ok := n.m[key].(map[string]any)
	if !ok {
		return nil
	}
	return d.resolve(&schemaNode{m: m})
}

// prop is the schema of field name of a record, or of the values of a map.
func (d *schemaDoc) prop(n *schemaNode, name string) *schemaNode {
	if n == nil {
		return nil
	}
	if props, ok := n.m["properties"].(map[string]any); ok {
		if p, ok := props[name].(map[string]any); ok {
			return d.resolve(&schemaNode{m: p})
		}
	}
	return d.sub(n, "additionalProperties")
}

func (d *schemaDoc) items(n *schemaNode) *schemaNode { return d.sub(n, "items") }

func (d *schemaDoc) typ(n *schemaNode) string {
	if n == nil {
		return ""
	}
	t, _ := n.m["type"].(string)
	return t
}

func (d *schemaDoc) isArray(n *schemaNode) bool { return d.typ(n) == "array" }
func (d *schemaDoc) isString(n *schemaNode) bool {
	if n == nil {
		return false
	}
	_, enum := n.m["enum"]
	return d.typ(n) == "string" || enum
}

// isPlainString reports a string that is no enum symbol and has no format
// (a URN, say), so that the empty string is a valid value of it.
func (d *schemaDoc) isPlainString(n *schemaNode) bool {
	if n == nil || d.typ(n) != "string" {
		return false
	}
	_, enum := n.m["enum"]
	_, format := n.m["format"]
	return !enum && !format
}

// defaults returns the fields of a record that have a default in the
// schema, with it; a null default is none.
func (d *schemaDoc) defaults(n *schemaNode) map[string]any {
	props, _ := n.m["properties"].(map[string]any)
	out := map[string]any{}
	for name, p := range props {
		pm, _ := p.(map[string]any)
		if v, ok := pm["default"]; ok && v != nil {
			out[name] = v
		}
	}
	return out
}

func (d *schemaDoc) isObject(n *schemaNode) bool {
	_, ok := n.m["properties"]
	return d.typ(n) == "object" && ok
}
func (d *schemaDoc) isMap(n *schemaNode) bool {
	_, props := n.m["properties"]
	_, addl := n.m["additionalProperties"].(map[string]any)
	return d.typ(n) == "object" && !props && addl
}

func (d *schemaDoc) required(n *schemaNode) []string {
	var out []string
	if n == nil {
		return nil
	}
	req, _ := n.m["required"].([]any)
	for _, r := range req {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// isAuditStamp reports a record whose required fields are exactly an
// integer time and a string actor, which a write can fill in itself.
func (d *schemaDoc) isAuditStamp(n *schemaNode) bool {
	if n == nil || !d.isObject(n) {
		return false
	}
	req := d.required(n)
	if len(req) != 2 {
		return false
	}
	has := map[string]bool{}
	for _, r := range req {
		has[r] = true
	}
	return has["time"] && has["actor"] && d.typ(d.prop(n, "time")) == "integer" && d.isString(d.prop(n, "actor"))
}

// keyFields lists the key fields of an array item schema: the primary key
// first, then the secondary keys (see the rules at the top of this file). It
// is empty when the item is not a record with a required string field.
func (d *schemaDoc) keyFields(item *schemaNode) []string {
	if item == nil || !d.isObject(item) {
		return nil
	}
	req := d.required(item)
	primary := ""
	for _, r := range req {
		p := d.prop(item, r)
		if d.typ(p) == "string" && p.m["format"] == "urn" {
			primary = r
			break
		}
	}
	if primary == "" {
		for _, r := range req {
			if d.typ(d.prop(item, r)) == "string" {
				primary = r
				break
			}
		}
	}
	if primary == "" {
		return nil
	}
	keys := []string{primary}
	for _, r := range req {
		if r != primary && d.isString(d.prop(item, r)) {
			keys = append(keys, r)
		}
	}
	return keys
}

// keyIsURN reports that the elements of an array with the given item schema
// and key fields are identified by a URN: the primary key of records, or
// the strings themselves.
func (d *schemaDoc) keyIsURN(item *schemaNode, keys []string) bool {
	if len(keys) > 0 {
		item = d.prop(item, keys[0])
	}
	return item != nil && item.m["format"] == "urn"
}

// schemaCache holds parsed aspect schemas by aspect name.
type schemaCache struct{ m sync.Map }

func (c *schemaCache) get(spec *catalog.AspectSpec) (*schemaDoc, error) {
	if v, ok := c.m.Load(spec.Name); ok {
		return v.(*schemaDoc), nil
	}
	d, err := parseSchema(spec.Schema)
	if err != nil {
		return nil, fmt.Errorf("aspect %s: %w", spec.Name, err)
	}
	c.m.Store(spec.Name, d)
	return d, nil
}
