package meili

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// kind is how a field's values are stored and compared.
type kind uint8

const (
	kindString kind = iota // TEXT, KEYWORD, URN, BROWSE_PATH, MAP_ARRAY, ...
	kindNumber             // COUNT, DOUBLE, DATETIME
	kindBool               // BOOLEAN
)

func kindOf(fieldType string) kind {
	switch strings.ToUpper(fieldType) {
	case "COUNT", "DOUBLE", "DATETIME":
		return kindNumber
	case "BOOLEAN":
		return kindBool
	}
	return kindString
}

// field is one search field as the engine sees it.
type field struct {
	catalog.SearchField
	kind kind
	// builtin marks the pseudo-fields urn, entityType, _entityType and
	// removed, whose values come from the Document itself.
	builtin bool
	// prefix and key are set for a keyed field, prefix.key (see keyed).
	prefix, key string
}

// tAttr is the attribute of f's values as they are (see textAttr).
func (f *field) tAttr() string {
	if f.prefix != "" {
		return keyedAttr(f.prefix) + ".t_" + encodeName(f.key)
	}
	return textAttr(f.Name)
}

// xAttr is the attribute of f's exact-encoded values (see exactAttr).
func (f *field) xAttr() string {
	if f.prefix != "" {
		return keyedAttr(f.prefix) + ".x_" + encodeName(f.key)
	}
	return exactAttr(f.Name)
}

// schema is the engine's view of the search fields.
type schema struct {
	fields map[string]*field
	names  []string // sorted, for deterministic settings
	// keyed are the families of keyed fields by prefix: a document
	// field prefix.key, for any key, is one of them (structured property
	// values, a field per property).
	keyed map[string]catalog.SearchField
}

// lookup returns the field name names: a declared one, or one of a keyed
// family; nil when neither.
func (s *schema) lookup(name string) *field {
	if f := s.fields[name]; f != nil {
		return f
	}
	prefix, key, ok := strings.Cut(name, ".")
	if !ok || key == "" {
		return nil
	}
	fam, ok := s.keyed[prefix]
	if !ok {
		return nil
	}
	// Values of keyed fields are strings or numbers, so they are stored
	// as strings are, numbers kept as numbers for ranges.
	fam.Name = name
	return &field{SearchField: fam, kind: kindString, prefix: prefix, key: key}
}

// Pseudo-fields that filters and facets may name although no aspect declares
// them: DataHub filters on "urn", "removed" and "_entityType".
var builtinFields = []catalog.SearchField{
	{Name: "urn", Type: "URN"},
	{Name: "entityType", Type: "KEYWORD", Filter: true},
	{Name: "_entityType", Type: "KEYWORD", Filter: true},
	{Name: "removed", Type: "BOOLEAN"},
}

func newSchema(fields, keyed []catalog.SearchField) *schema {
	s := &schema{fields: map[string]*field{}, keyed: map[string]catalog.SearchField{}}
	for _, f := range keyed {
		s.keyed[f.Name] = f
	}
	for _, f := range fields {
		if f.Name == "" {
			continue
		}
		if old, ok := s.fields[f.Name]; ok {
			// The registry merges fields already; be lenient with duplicates
			// by keeping the strongest settings.
			old.Boost = math.Max(old.Boost, f.Boost)
			old.QueryByDefault = old.QueryByDefault || f.QueryByDefault
			old.Autocomplete = old.Autocomplete || f.Autocomplete
			old.Filter = old.Filter || f.Filter
			continue
		}
		s.fields[f.Name] = &field{SearchField: f, kind: kindOf(f.Type)}
	}
	for _, f := range builtinFields {
		if old, ok := s.fields[f.Name]; ok {
			// A declared field of that name is still filled from the
			// Document, which is authoritative for these.
			old.builtin = true
			continue
		}
		s.fields[f.Name] = &field{SearchField: f, kind: kindOf(f.Type), builtin: true}
	}
	for name := range s.fields {
		s.names = append(s.names, name)
	}
	sort.Strings(s.names)
	return s
}

// expr is a Meilisearch filter expression with constant folding: the engine
// needs "always true" and "always false" for criteria on unknown fields and
// for relaxed substring criteria, and Meilisearch has no literal for either.
type expr struct {
	s            string
	isTrue, none bool // none: always false
}

var (
	exprTrue  = expr{isTrue: true}
	exprFalse = expr{none: true}
)

// falseFilter is a Meilisearch expression that no document matches: every
// document has a URN.
const falseFilter = attrURN + " NOT EXISTS"

func (e expr) String() string {
	switch {
	case e.isTrue:
		return ""
	case e.none:
		return falseFilter
	}
	return e.s
}

func not(e expr) expr {
	switch {
	case e.isTrue:
		return exprFalse
	case e.none:
		return exprTrue
	}
	return expr{s: "NOT (" + e.s + ")"}
}

func and(es ...expr) expr {
	var parts []string
	for _, e := range es {
		if e.none {
			return exprFalse
		}
		if !e.isTrue {
			parts = append(parts, e.s)
		}
	}
	return join(parts, " AND ", exprTrue)
}

func or(es ...expr) expr {
	var parts []string
	for _, e := range es {
		if e.isTrue {
			return exprTrue
		}
		if !e.none {
			parts = append(parts, e.s)
		}
	}
	return join(parts, " OR ", exprFalse)
}

func join(parts []string, op string, empty expr) expr {
	switch len(parts) {
	case 0:
		return empty
	case 1:
		return expr{s: parts[0]}
	}
	return expr{s: "(" + strings.Join(parts, ")"+op+"(") + ")"}
}

// quote returns s as a double-quoted Meilisearch filter value. Meilisearch's
// filter parser first turns \" into " and then unescapes backslash sequences
// (crates/filter-parser/src/value.rs), so both '\' and '"' are escaped.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		if r == '\\' || r == '"' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// formatNumber renders a number in its shortest decimal form ("3", "1.5"),
// never with an exponent, which Meilisearch's filter parser would not read
// as a number.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// parseNumber reads a filter value as a finite number.
func parseNumber(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
		err = fmt.Errorf("%q is not a finite number", s)
	}
	return f, err
}

// eqIn renders "attr = v" or "attr IN [v1, v2]" for rendered values.
func eqIn(attr string, vals []string) expr {
	switch len(vals) {
	case 0:
		return exprFalse
	case 1:
		return expr{s: attr + " = " + vals[0]}
	}
	return expr{s: attr + " IN [" + strings.Join(vals, ", ") + "]"}
}

// Condition names.
const (
	condEqual     = "EQUAL"
	condIEqual    = "IEQUAL"
	condContain   = "CONTAIN"
	condStartWith = "START_WITH"
	condEndWith   = "END_WITH"
	condGT        = "GREATER_THAN"
	condGTE       = "GREATER_THAN_OR_EQUAL_TO"
	condLT        = "LESS_THAN"
	condLTE       = "LESS_THAN_OR_EQUAL_TO"
	condIn        = "IN"
	condExists    = "EXISTS"
	condIsNull    = "IS_NULL"
)

var rangeOps = map[string]string{condGT: ">", condGTE: ">=", condLT: "<", condLTE: "<="}

// condition normalizes a criterion's condition; DataHub defaults to EQUAL.
func condition(c catalog.Criterion) string {
	if c.Condition == "" {
		return condEqual
	}
	return strings.ToUpper(c.Condition)
}

func isSubstring(cond string) bool {
	return cond == condContain || cond == condStartWith || cond == condEndWith
}

// validate rejects what no engine can answer: unknown conditions and
// non-numeric bounds of range conditions.
func validate(f catalog.Filter) error {
	for _, group := range f.Or {
		for _, c := range group {
			cond := condition(c)
			switch cond {
			case condEqual, condIEqual, condContain, condStartWith, condEndWith, condIn, condExists, condIsNull:
			case condGT, condGTE, condLT, condLTE:
				// Ranges compare against Values[0] only (the port's semantics).
				if len(c.Values) == 0 {
					return catalog.Errorf(catalog.Invalid, "filter on %q: %s needs a value", c.Field, cond)
				}
				if _, err := parseNumber(c.Values[0]); err != nil {
					return catalog.Errorf(catalog.Invalid, "filter on %q: %s needs a number, got %q", c.Field, cond, c.Values[0])
				}
			default:
				return catalog.Errorf(catalog.Invalid, "filter on %q: unknown condition %q", c.Field, c.Condition)
			}
		}
	}
	return nil
}

// namesField reports whether any criterion of f is on the given field.
func namesField(f catalog.Filter, name string) bool {
	for _, group := range f.Or {
		for _, c := range group {
			if c.Field == name {
				return true
			}
		}
	}
	return false
}

// needsPostFilter reports whether f has a substring condition, which
// Meilisearch cannot express and the engine evaluates in Go.
func needsPostFilter(f catalog.Filter) bool {
	for _, group := range f.Or {
		for _, c := range group {
			if isSubstring(condition(c)) {
				return true
			}
		}
	}
	return false
}

// translate renders f (already validated) as a Meilisearch filter. Substring
// criteria are relaxed to a necessary condition (the field exists; nothing
// when negated), so the result selects a superset of the matching documents
// whenever needsPostFilter(f); eval then decides exactly.
func (s *schema) translate(f catalog.Filter) expr {
	if len(f.Or) == 0 {
		return exprTrue
	}
	groups := make([]expr, 0, len(f.Or))
	for _, group := range f.Or {
		terms := make([]expr, 0, len(group))
		for _, c := range group {
			terms = append(terms, s.criterion(c))
		}
		groups = append(groups, and(terms...))
	}
	return or(groups...)
}

func (s *schema) criterion(c catalog.Criterion) expr {
	cond := condition(c)
	f := s.lookup(c.Field)
	if isSubstring(cond) {
		if c.Negated || f == nil {
			if f == nil && !c.Negated {
				return exprFalse
			}
			return exprTrue
		}
		return expr{s: f.tAttr() + " EXISTS"}
	}
	var e expr
	if f == nil {
		// No document has an undeclared field: equality and ranges never
		// hold, IS_NULL always does.
		e = exprFalse
		if cond == condIsNull {
			e = exprTrue
		}
	} else {
		e = s.positive(f, cond, c.Values)
	}
	if c.Negated {
		return not(e)
	}
	return e
}

// positive renders a non-substring condition on a declared field.
func (s *schema) positive(f *field, cond string, values []string) expr {
	t := f.tAttr()
	switch cond {
	case condExists:
		return expr{s: t + " EXISTS"}
	case condIsNull:
		return expr{s: t + " NOT EXISTS"}
	case condGT, condGTE, condLT, condLTE:
		n, _ := parseNumber(values[0]) // validated
		return expr{s: t + " " + rangeOps[cond] + " " + formatNumber(n)}
	}
	// EQUAL, IN, IEQUAL.
	var vals []string
	switch f.kind {
	case kindNumber:
		for _, v := range values {
			if n, err := parseNumber(v); err == nil {
				vals = append(vals, formatNumber(n))
			}
		}
		return eqIn(t, vals)
	case kindBool:
		for _, v := range values {
			if b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v))); err == nil {
				vals = append(vals, strconv.FormatBool(b))
			}
		}
		return eqIn(t, vals)
	}
	if cond == condIEqual {
		// Meilisearch's '=' on strings is case-insensitive: exactly IEQUAL.
		for _, v := range values {
			vals = append(vals, quote(v))
		}
		return eqIn(t, vals)
	}
	for _, v := range values {
		vals = append(vals, quote(encodeExact(v)))
	}
	return eqIn(f.xAttr(), vals)
}

// filterAttrs lists the t_ attributes eval needs to decide f.
func (s *schema) filterAttrs(f catalog.Filter) []string {
	seen := map[string]bool{}
	var out []string
	for _, group := range f.Or {
		for _, c := range group {
			if f := s.lookup(c.Field); f != nil && !seen[c.Field] {
				seen[c.Field] = true
				out = append(out, f.retrieved())
			}
		}
	}
	return out
}

// retrieved is the attribute a hit must carry for f's values: a keyed
// field's whole family, whose nested values hitValues reads.
func (f *field) retrieved() string {
	if f.prefix != "" {
		return keyedAttr(f.prefix)
	}
	return textAttr(f.Name)
}

// eval decides f on a document's values (field name → values as decoded
// from JSON: string, float64 or bool). It mirrors translate for the
// conditions Meilisearch evaluates, so that a post-filtered query and a
// native one agree, and decides the substring conditions.
func (s *schema) eval(f catalog.Filter, values func(field string) []any) bool {
	if len(f.Or) == 0 {
		return true
	}
	for _, group := range f.Or {
		ok := true
		for _, c := range group {
			if !s.evalCriterion(c, values) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (s *schema) evalCriterion(c catalog.Criterion, values func(string) []any) bool {
	f := s.lookup(c.Field)
	var have []any
	if f != nil {
		have = values(c.Field)
	}
	return s.holds(f, condition(c), c.Values, have) != c.Negated
}

func (s *schema) holds(f *field, cond string, want []string, have []any) bool {
	switch cond {
	case condExists:
		return len(have) > 0
	case condIsNull:
		return len(have) == 0
	}
	if f == nil {
		return false
	}
	if _, ok := rangeOps[cond]; ok {
		want = want[:1] // validated: ranges compare against Values[0]
	}
	for _, h := range have {
		for _, w := range want {
			if valueHolds(f.kind, cond, w, h) {
				return true
			}
		}
	}
	return false
}

func valueHolds(k kind, cond, want string, have any) bool {
	switch cond {
	case condGT, condGTE, condLT, condLTE:
		h, ok := have.(float64)
		if !ok {
			return false // Meilisearch compares numbers only
		}
		w, _ := parseNumber(want)
		switch cond {
		case condGT:
			return h > w
		case condGTE:
			return h >= w
		case condLT:
			return h < w
		}
		return h <= w
	case condContain, condStartWith, condEndWith:
		// Substring tests ignore case (the port's semantics).
		hs, want := strings.ToLower(valueString(have)), strings.ToLower(want)
		switch cond {
		case condContain:
			return strings.Contains(hs, want)
		case condStartWith:
			return strings.HasPrefix(hs, want)
		}
		return strings.HasSuffix(hs, want)
	}
	// EQUAL, IN, IEQUAL.
	switch k {
	case kindNumber:
		h, ok := have.(float64)
		w, err := parseNumber(want)
		return ok && err == nil && h == w
	case kindBool:
		h, ok := have.(bool)
		w, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(want)))
		return ok && err == nil && h == w
	}
	hs := valueString(have)
	if cond == condIEqual {
		return normalize(hs) == normalize(want)
	}
	return hs == want
}

// normalize approximates Meilisearch's facet normalization (trim, NFKD,
// lower-case) without the Unicode decomposition.
func normalize(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func valueString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return formatNumber(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}
