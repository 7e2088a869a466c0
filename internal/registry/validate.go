package registry

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

type kind uint8

const (
	kAny kind = iota
	kObject
	kMap
	kUnion
	kArray
	kString
	kInteger
	kNumber
	kBoolean
)

func (k kind) String() string {
	switch k {
	case kObject:
		return "object"
	case kMap:
		return "object"
	case kUnion:
		return "union"
	case kArray:
		return "array"
	case kString:
		return "string"
	case kInteger:
		return "integer"
	case kNumber:
		return "number"
	case kBoolean:
		return "boolean"
	}
	return "any"
}

// node is a compiled schema.
type node struct {
	kind     kind
	int32    bool                // kInteger: format int32
	urn      bool                // kString: format urn
	urnType  string              // kString: x-urn-entity, the entity type a URN must name
	props    map[string]prop     // kObject fields, kUnion members
	required []string            // kObject
	items    *node               // kArray items, kMap values
	enum     map[string]struct{} // kString enum
	wire     string              // x-wire-name of a named record or enum
	title    string
}

// prop is a field of a record or a member of a union.
type prop struct {
	n   *node
	req bool
}

// CompileAll compiles every aspect schema now instead of on first use and
// returns the first problem found.
func (r *Registry) CompileAll() error {
	for i := range r.aspects {
		if _, err := r.aspectByName[r.aspects[i].Name].compiled(); err != nil {
			return err
		}
	}
	return nil
}

func (e *aspectEntry) compiled() (*node, error) {
	e.once.Do(func() {
		e.root, e.err = compileSchema(e.spec.Schema)
		if e.err != nil {
			e.err = &catalog.Error{Kind: catalog.Internal, Op: "compile schema of aspect " + e.spec.Name, Err: e.err}
		}
	})
	return e.root, e.err
}

func compileSchema(src string) (*node, error) {
	if src == "" {
		return &node{kind: kAny}, nil
	}
	var root map[string]any
	if err := json.Unmarshal([]byte(src), &root); err != nil {
		return nil, err
	}
	defs, _ := root["$defs"].(map[string]any)
	c := &compiler{defs: defs, named: map[string]*node{}}
	return c.compile(root, "#")
}

type compiler struct {
	defs  map[string]any
	named map[string]*node
}

func (c *compiler) compile(s map[string]any, at string) (*node, error) {
	if ref, ok := s["$ref"].(string); ok {
		fqn, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return nil, fmt.Errorf("%s: unsupported $ref %q", at, ref)
		}
		if n := c.named[fqn]; n != nil {
			return n, nil
		}
		def, ok := c.defs[fqn].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: unresolved $ref %q", at, ref)
		}
		n := &node{}
		c.named[fqn] = n // placeholder for recursive types
		d, err := c.compile(def, "#/$defs/"+fqn)
		if err != nil {
			return nil, err
		}
		*n = *d
		if n.wire == "" {
			n.wire = fqn
		}
		return n, nil
	}
	n := &node{}
	n.wire, _ = s["x-wire-name"].(string)
	n.title, _ = s["title"].(string)
	typ, _ := s["type"].(string)
	format, _ := s["format"].(string)
	switch typ {
	case "":
		n.kind = kAny
	case "object":
		props, _ := s["properties"].(map[string]any)
		union, _ := s["x-union"].(bool)
		addl, addlSchema := s["additionalProperties"].(map[string]any)
		switch {
		case union:
			n.kind = kUnion
		case addlSchema && len(props) == 0:
			n.kind = kMap
			items, err := c.compile(addl, at+"/additionalProperties")
			if err != nil {
				return nil, err
			}
			n.items = items
			return n, nil
		default:
			n.kind = kObject
		}
		n.props = make(map[string]prop, len(props))
		for name, ps := range props {
			pm, ok := ps.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/properties/%s: not a schema", at, name)
			}
			p, err := c.compile(pm, at+"/properties/"+name)
			if err != nil {
				return nil, err
			}
			n.props[name] = prop{n: p}
		}
		if req, ok := s["required"].([]any); ok && n.kind == kObject {
			for _, r := range req {
				if rs, ok := r.(string); ok && !n.props[rs].req && n.props[rs].n != nil {
					n.props[rs] = prop{n: n.props[rs].n, req: true}
					n.required = append(n.required, rs)
				}
			}
		}
	case "array":
		n.kind = kArray
		items, _ := s["items"].(map[string]any)
		if items == nil {
			n.items = &node{kind: kAny}
		} else {
			it, err := c.compile(items, at+"/items")
			if err != nil {
				return nil, err
			}
			n.items = it
		}
	case "string":
		n.kind = kString
		n.urn = format == "urn"
		n.urnType, _ = s["x-urn-entity"].(string)
		if enum, ok := s["enum"].([]any); ok {
			n.enum = make(map[string]struct{}, len(enum))
			for _, v := range enum {
				if vs, ok := v.(string); ok {
					n.enum[vs] = struct{}{}
				}
			}
		}
	case "integer":
		n.kind = kInteger
		n.int32 = format == "int32"
	case "number":
		n.kind = kNumber
	case "boolean":
		n.kind = kBoolean
	default:
		return nil, fmt.Errorf("%s: unsupported type %q", at, typ)
	}
	return n, nil
}

// Normalize validates value (decoded with json.Decoder.UseNumber) against the
// aspect's schema and returns it normalised: JSON nulls are dropped, union
// member keys lose "pegasus2avro.", Avro union wrappers ({"string": ...},
// {"array": [...]}, {"<record FQN>": {...}}) are unwrapped where the schema
// expects a plain value, and bare primitives are wrapped into unions that
// have the matching primitive member; the Avro form of unions with aliases
// ({"fieldDiscriminator": "<member>", "<member>": value, ...}) becomes
// {"<member>": value}. Maps and slices of value are modified
// in place. Errors are *catalog.Error of kind Invalid naming the JSON path,
// e.g. `ownership: /owners/0: missing required field "owner"`.
func (r *Registry) Normalize(aspectName string, value any) (any, error) {
	e := r.aspectByName[aspectName]
	if e == nil {
		return nil, catalog.Errorf(catalog.Invalid, "unknown aspect %q", aspectName)
	}
	root, err := e.compiled()
	if err != nil {
		return nil, err
	}
	out, _, perr := normalize(root, value)
	if perr != nil {
		return nil, catalog.Errorf(catalog.Invalid, "%s: %s", aspectName, perr.Error())
	}
	return out, nil
}

// pathError is a validation problem; rev holds the path segments innermost first.
type pathError struct {
	rev []string
	msg string
}

func (e *pathError) Error() string {
	if len(e.rev) == 0 {
		return e.msg
	}
	var b strings.Builder
	for i := len(e.rev) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(e.rev[i])
	}
	b.WriteString(": ")
	b.WriteString(e.msg)
	return b.String()
}

func (e *pathError) push(seg string) *pathError {
	if strings.ContainsAny(seg, "~/") {
		seg = strings.NewReplacer("~", "~0", "/", "~1").Replace(seg)
	}
	e.rev = append(e.rev, seg)
	return e
}

func errf(format string, args ...any) *pathError {
	return &pathError{msg: fmt.Sprintf(format, args...)}
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number, float64, float32, int, int64, int32:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

func typeErr(n *node, v any) *pathError {
	want := n.kind.String()
	if n.kind == kUnion {
		want = "union (one of " + memberList(n) + ")"
	}
	return errf("expected %s, got %s", want, jsonKind(v))
}

func memberList(n *node) string {
	keys := make([]string, 0, len(n.props))
	for k := range n.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// avroPrimitive lists the Avro type names used as union wrapper keys.
var avroPrimitive = map[string]bool{
	"string": true, "int": true, "long": true, "float": true, "double": true, "boolean": true,
	"bytes": true, "array": true, "map": true,
}

// unwrap removes an Avro union wrapper around a value the schema expects plain.
func unwrap(n *node, m map[string]any) (any, bool) {
	for k, c := range m {
		switch n.kind {
		case kObject:
			if _, ok := n.props[k]; ok {
				return m, false
			}
			inner, ok := c.(map[string]any)
			if !ok {
				return m, false
			}
			if n.wire != "" && (k == n.wire || StripAvroNamespace(k) == n.wire) {
				return inner, true
			}
			if n.wire == "" && n.title != "" && strings.Contains(k, ".") && k[strings.LastIndexByte(k, '.')+1:] == n.title {
				return inner, true
			}
		case kMap:
			if k != "map" {
				return m, false
			}
			if inner, ok := c.(map[string]any); ok {
				switch n.items.kind {
				case kObject, kMap, kUnion, kAny:
					return m, false
				}
				return inner, true
			}
		case kString:
			if avroPrimitive[k] || (n.wire != "" && StripAvroNamespace(k) == n.wire) {
				return c, true
			}
		case kArray, kInteger, kNumber, kBoolean:
			if avroPrimitive[k] {
				return c, true
			}
		}
	}
	return m, false
}

// normalize walks v alongside n. changed reports that the returned value is
// not v itself (so the parent must store it).
func normalize(n *node, v any) (out any, changed bool, err *pathError) {
	if v == nil {
		return nil, false, typeErr(n, v)
	}
	if n.kind != kUnion && n.kind != kAny {
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			v, changed = unwrap(n, m)
		}
	}
	switch n.kind {
	case kAny:
		return v, changed, nil
	case kObject:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, typeErr(n, v)
		}
		if err := normObject(n, m, false); err != nil {
			return nil, false, err
		}
		return m, changed, nil
	case kMap:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, typeErr(n, v)
		}
		for k, c := range m {
			if c == nil {
				delete(m, k)
				continue
			}
			nc, ch, err := normalize(n.items, c)
			if err != nil {
				return nil, false, err.push(k)
			}
			if ch {
				m[k] = nc
			}
		}
		return m, changed, nil
	case kArray:
		a, ok := v.([]any)
		if !ok {
			return nil, false, typeErr(n, v)
		}
		j := 0
		for i, c := range a {
			if c == nil {
				continue
			}
			nc, _, err := normalize(n.items, c)
			if err != nil {
				return nil, false, err.push(strconv.Itoa(i))
			}
			a[j] = nc
			j++
		}
		if j != len(a) {
			clear(a[j:])
			return a[:j], true, nil
		}
		return a, changed, nil
	case kUnion:
		return normUnion(n, v)
	case kString:
		s, ok := v.(string)
		if !ok {
			return nil, false, typeErr(n, v)
		}
		if n.enum != nil {
			if _, ok := n.enum[s]; !ok {
				return nil, false, errf("%q is not one of the allowed values", s)
			}
		}
		if n.urn {
			if err := checkURNValue(n, s); err != nil {
				return nil, false, err
			}
		}
		return v, changed, nil
	case kInteger:
		return normInteger(n, v, changed)
	case kNumber:
		switch x := v.(type) {
		case json.Number:
			if _, err := strconv.ParseFloat(string(x), 64); err != nil {
				return nil, false, errf("invalid number %q", string(x))
			}
		case float64, float32, int, int64, int32:
		default:
			return nil, false, typeErr(n, v)
		}
		return v, changed, nil
	case kBoolean:
		if _, ok := v.(bool); !ok {
			return nil, false, typeErr(n, v)
		}
		return v, changed, nil
	}
	return v, changed, nil
}

// checkURNValue checks a URN-typed string. A URN of DataHub's namespace gets
// the checks of an entity URN, and must name the entity type the schema
// gives (x-urn-entity) when it gives one, as DataHub's typed URNs (TagUrn,
// CorpuserUrn, ...) must; a field typed with DataHub's generic Urn also
// takes URNs of other namespaces, as DataHub's does.
func checkURNValue(n *node, s string) *pathError {
	if !strings.HasPrefix(s, "urn:") {
		return errf("%s is not a URN", catalog.QuoteURN(s))
	}
	if n.urnType == "" && !strings.HasPrefix(s, "urn:li:") {
		return nil
	}
	u, err := catalog.ParseURN(s)
	if err != nil {
		return errf("%s", err.Error())
	}
	if n.urnType != "" && !strings.EqualFold(u.EntityType(), n.urnType) {
		return errf("%s is not a %s URN", catalog.QuoteURN(s), n.urnType)
	}
	return nil
}

func normInteger(n *node, v any, changed bool) (any, bool, *pathError) {
	var i int64
	switch x := v.(type) {
	case json.Number:
		var err error
		i, err = strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(x), 64)
			if ferr != nil || f != math.Trunc(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
				if ferr == nil && f == math.Trunc(f) {
					return nil, false, errf("%s does not fit in a 64-bit integer", string(x))
				}
				return nil, false, errf("expected integer, got %s", string(x))
			}
			i = int64(f)
			v, changed = json.Number(strconv.FormatInt(i, 10)), true
		}
	case float64:
		if x != math.Trunc(x) || x < -9.223372036854775808e18 || x >= 9.223372036854775808e18 {
			return nil, false, errf("expected integer, got %v", x)
		}
		i = int64(x)
	case int:
		i = int64(x)
	case int64:
		i = x
	case int32:
		i = int64(x)
	default:
		return nil, false, typeErr(n, v)
	}
	if n.int32 && (i < math.MinInt32 || i > math.MaxInt32) {
		return nil, false, errf("%d does not fit in a 32-bit integer", i)
	}
	return v, changed, nil
}

func normObject(n *node, m map[string]any, sorted bool) *pathError {
	seen := 0 // required fields present
	if sorted {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := normField(n, m, k, m[k], &seen); err != nil {
				return err
			}
		}
	} else {
		for k, c := range m {
			if err := normField(n, m, k, c, &seen); err != nil {
				// report the first problem in key order, whatever the map order
				return normObject(n, m, true)
			}
		}
	}
	if seen < len(n.required) {
		for _, r := range n.required {
			if _, ok := m[r]; !ok {
				return errf("missing required field %q", r)
			}
		}
	}
	return nil
}

func normField(n *node, m map[string]any, k string, c any, seen *int) *pathError {
	if c == nil {
		delete(m, k)
		return nil
	}
	p, ok := n.props[k]
	if !ok {
		return errf("unknown field %q", k)
	}
	if p.req {
		*seen++
	}
	nc, ch, err := normalize(p.n, c)
	if err != nil {
		return err.push(k)
	}
	if ch {
		m[k] = nc
	}
	return nil
}

func normUnion(n *node, v any) (any, bool, *pathError) {
	m, ok := v.(map[string]any)
	if !ok {
		key := primitiveMember(n, v)
		if key == "" {
			return nil, false, typeErr(n, v)
		}
		nc, _, err := normalize(n.props[key].n, v)
		if err != nil {
			return nil, false, err.push(key)
		}
		return map[string]any{key: nc}, true, nil
	}
	if d, ok := m["fieldDiscriminator"].(string); ok {
		// Avro form of a Pegasus union with aliases: a record holding the
		// discriminator and one optional field per member.
		if _, ok := n.props["fieldDiscriminator"]; !ok {
			key := StripAvroNamespace(d)
			mem := n.props[key].n
			if mem == nil {
				return nil, false, errf("unknown union member %q (expected one of %s)", d, memberList(n))
			}
			c, ok := m[d]
			if !ok || c == nil {
				return nil, false, errf("fieldDiscriminator names %q but its value is missing", d)
			}
			nc, _, err := normalize(mem, c)
			if err != nil {
				return nil, false, err.push(key)
			}
			return map[string]any{key: nc}, true, nil
		}
	}
	for k, c := range m {
		if c == nil {
			delete(m, k)
		}
	}
	if len(m) != 1 {
		return nil, false, errf("a union needs exactly one member (one of %s), got %d", memberList(n), len(m))
	}
	var k string
	var c any
	for k, c = range m {
	}
	key := StripAvroNamespace(k)
	mem := n.props[key].n
	if mem == nil {
		return nil, false, errf("unknown union member %q (expected one of %s)", k, memberList(n))
	}
	nc, ch, err := normalize(mem, c)
	if err != nil {
		return nil, false, err.push(key)
	}
	if key != k {
		delete(m, k)
		m[key] = nc
	} else if ch {
		m[k] = nc
	}
	return m, false, nil
}

// primitiveMember picks the union member a bare primitive belongs to.
func primitiveMember(n *node, v any) string {
	var cands []string
	switch x := v.(type) {
	case string:
		cands = []string{"string", "bytes"}
	case bool:
		cands = []string{"boolean"}
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			cands = []string{"long", "int", "double", "float"}
		} else {
			cands = []string{"double", "float"}
		}
	case float64:
		if x == math.Trunc(x) {
			cands = []string{"long", "int", "double", "float"}
		} else {
			cands = []string{"double", "float"}
		}
	case int, int64, int32:
		cands = []string{"long", "int", "double", "float"}
	case []any:
		cands = []string{"array"}
	}
	for _, c := range cands {
		if _, ok := n.props[c]; ok {
			return c
		}
	}
	return ""
}
