package timeline

import (
	"reflect"
	"sort"
	"strings"
)

// The descriptions below are part of DataHub's wire format: clients show
// them as they come.

func tagURN(v any) string  { return strOr(v, "tag") }
func termURN(v any) string { return strOr(v, "urn") }

// tagDiffs compares two globalTags values, for urn.
func tagDiffs(from, to any, urn string) []ChangeEvent {
	var out []ChangeEvent
	event := func(op Operation, t any, format string) {
		tag := tagURN(t)
		out = append(out, ChangeEvent{
			EntityURN: urn, Category: Tag, Operation: op, Modifier: tag, SemVer: Minor,
			Params:      []Param{{"tagUrn", tag}},
			Description: describe(format, urnID(tag), urn),
		})
	}
	mergeSorted(sortedBy(list(from, "tags"), tagURN), sortedBy(list(to, "tags"), tagURN), tagURN, nil,
		func(t any) { event(Remove, t, "Tag '%s' removed from entity '%s'.") },
		func(t any) { event(Add, t, "Tag '%s' added to entity '%s'.") })
	return out
}

func globalTagsChanges(urn string, from, to any) []ChangeEvent { return tagDiffs(from, to, urn) }

// termDiffs compares two glossaryTerms values, for urn.
func termDiffs(from, to any, urn string) []ChangeEvent {
	var out []ChangeEvent
	event := func(op Operation, t any, format string) {
		term := termURN(t)
		out = append(out, ChangeEvent{
			EntityURN: urn, Category: GlossaryTerm, Operation: op, Modifier: term, SemVer: Minor,
			Params:      []Param{{"termUrn", term}},
			Description: describe(format, urnID(term), urn),
		})
	}
	mergeSorted(sortedBy(list(from, "terms"), termURN), sortedBy(list(to, "terms"), termURN), termURN, nil,
		func(t any) { event(Remove, t, "Term '%s' removed from entity '%s'.") },
		func(t any) { event(Add, t, "Term '%s' added to entity '%s'.") })
	return out
}

func glossaryTermsChanges(urn string, from, to any) []ChangeEvent { return termDiffs(from, to, urn) }

// fieldEvents turns entity-level tag or term events of a schema field into
// field events: the field path and parent added to their parameters.
func fieldEvents(events []ChangeEvent, fieldPath, parent string) []ChangeEvent {
	for i := range events {
		e := &events[i]
		e.Params = append([]Param{{"fieldPath", fieldPath}, {"parentUrn", parent}}, e.Params...)
	}
	return events
}

func ownerURN(v any) string { return strOr(v, "owner") }

func ownershipChanges(urn string, from, to any) []ChangeEvent {
	var out []ChangeEvent
	params := func(o any) []Param {
		ps := []Param{{"ownerUrn", ownerURN(o)}, {"ownerType", strOr(o, "type")}}
		if t, ok := str(o, "typeUrn"); ok {
			ps = append(ps, Param{"ownerTypeUrn", t})
		}
		return ps
	}
	event := func(op Operation, o any, format string) {
		out = append(out, ChangeEvent{
			EntityURN: urn, Category: Owner, Operation: op, Modifier: ownerURN(o), SemVer: Minor, Params: params(o),
			Description: describe(format, urnID(ownerURN(o)), strOr(o, "type"), urn),
		})
	}
	mergeSorted(sortedBy(list(from, "owners"), ownerURN), sortedBy(list(to, "owners"), ownerURN), ownerURN,
		func(b, t any) {
			if strOr(b, "type") == strOr(t, "type") {
				return
			}
			out = append(out, ChangeEvent{
				EntityURN: urn, Category: Owner, Operation: Modify, Modifier: strOr(t, "type"), SemVer: Patch, Params: params(t),
				Description: describe("'%s''s ownership type changed from '%s' to '%s' for '%s'.",
					urnID(ownerURN(b)), strOr(b, "type"), strOr(t, "type"), urn),
			})
		},
		func(o any) { event(Remove, o, "'%s' removed as a `%s` of '%s'.") },
		func(o any) { event(Add, o, "'%s' added as a `%s` of '%s'.") })
	return out
}

func memoryURL(v any) string { return strOr(v, "url") }

func institutionalMemoryChanges(urn string, from, to any) []ChangeEvent {
	var out []ChangeEvent
	event := func(op Operation, e any, format string) {
		out = append(out, ChangeEvent{
			EntityURN: urn, Category: Documentation, Operation: op, Modifier: memoryURL(e), SemVer: Minor,
			Description: describe(format, memoryURL(e), urn, strOr(e, "description")),
		})
	}
	mergeSorted(sortedBy(list(from, "elements"), memoryURL), sortedBy(list(to, "elements"), memoryURL), memoryURL,
		func(b, t any) {
			if strOr(b, "description") == strOr(t, "description") {
				return
			}
			out = append(out, ChangeEvent{
				EntityURN: urn, Category: Documentation, Operation: Modify, Modifier: memoryURL(b), SemVer: Patch,
				Description: describe("Documentation of Institutional Memory '%s' of  '%s' has been changed from '%s' to '%s'.",
					memoryURL(b), urn, strOr(b, "description"), strOr(t, "description")),
			})
		},
		func(e any) {
			event(Remove, e, "Institutional Memory '%s' with documentation of '%s' has been removed: '%s'")
		},
		func(e any) {
			event(Add, e, "Institutional Memory '%s' with documentation of '%s' has been added: '%s'")
		})
	return out
}

// textChange is the documentation event of a text member that was added,
// removed or changed, or nil. withParam adds the text as the "description"
// parameter.
func textChange(urn string, from, to any, member string, withParam bool) []ChangeEvent {
	before, hadBefore := str(from, member)
	after, hasAfter := str(to, member)
	e := ChangeEvent{EntityURN: urn, Category: Documentation, SemVer: Minor}
	switch {
	case !hadBefore && hasAfter:
		e.Operation = Add
		e.Description = describe("Documentation for '%s' has been added: '%s'.", urn, after)
	case hadBefore && !hasAfter:
		e.Operation = Remove
		e.Description = describe("Documentation for '%s' has been removed: '%s'.", urn, before)
		after = before
	case hadBefore && before != after:
		e.Operation = Modify
		e.Description = describe("Documentation of '%s' has been changed from '%s' to '%s'.", urn, before, after)
	default:
		return nil
	}
	if withParam {
		e.Params = []Param{{"description", after}}
	}
	return []ChangeEvent{e}
}

func descriptionChanges(member string) generator {
	return func(urn string, from, to any) []ChangeEvent { return textChange(urn, from, to, member, true) }
}

func definitionChanges(urn string, from, to any) []ChangeEvent {
	return textChange(urn, from, to, "definition", false)
}

func firstDomain(v any) string {
	l := list(v, "domains")
	if len(l) == 0 {
		return ""
	}
	s, _ := l[0].(string)
	return s
}

func domainChanges(urn string, from, to any) []ChangeEvent {
	before, after := firstDomain(from), firstDomain(to)
	event := func(op Operation, d string) ChangeEvent {
		return ChangeEvent{EntityURN: urn, Category: Domain, Operation: op, Modifier: d, Params: []Param{{"domainUrn", d}}}
	}
	switch {
	case before == "" && after != "":
		return []ChangeEvent{event(Add, after)}
	case before != "" && after == "":
		return []ChangeEvent{event(Remove, before)}
	case before != after:
		return []ChangeEvent{event(Remove, before), event(Add, after)}
	}
	return nil
}

// statusChanges reports every write of status, as DataHub does: a soft
// delete when it says removed, a reinstatement otherwise.
func statusChanges(urn string, _, to any) []ChangeEvent {
	op := Reinstate
	if boolean(to, "removed") {
		op = SoftDelete
	}
	return []ChangeEvent{{EntityURN: urn, Category: Lifecycle, Operation: op}}
}

func deprecationChanges(urn string, from, to any) []ChangeEvent {
	was, is := boolean(from, "deprecated"), boolean(to, "deprecated")
	if was == is {
		return nil
	}
	status := "ACTIVE"
	if is {
		status = "DEPRECATED"
	}
	return []ChangeEvent{{EntityURN: urn, Category: Deprecation, Operation: Modify, Params: []Param{{"status", status}}}}
}

// SchemaFieldURN is the URN of the field at fieldPath of the dataset urn,
// with the characters URN tuples reserve percent-encoded.
func SchemaFieldURN(urn, fieldPath string) string {
	if strings.ContainsAny(fieldPath, "(),") {
		fieldPath = fieldPathEscaper.Replace(fieldPath)
	}
	return "urn:li:schemaField:(" + urn + "," + fieldPath + ")"
}

var fieldPathEscaper = strings.NewReplacer("(", "%28", ")", "%29", ",", "%2C")

// simplePath is a field path without the v2 path's type annotations, as
// DataHub's downgrade of field paths gives it.
func simplePath(path string) string {
	rest, ok := strings.CutPrefix(path, "[version=2.0]")
	if !ok {
		return path
	}
	var parts []string
	for _, p := range strings.Split(rest, ".") {
		if p == "" || (strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]")) {
			continue
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ".")
}

func fieldPath(v any) string { return strOr(v, "fieldPath") }

// schemaFieldEvent is a TECHNICAL_SCHEMA event of one field.
func schemaFieldEvent(urn string, op Operation, sv SemVerChange, path string, nullable bool, modification string, description Text) ChangeEvent {
	f := SchemaFieldURN(urn, path)
	return ChangeEvent{
		EntityURN: urn, Category: TechnicalSchema, Operation: op, Modifier: f, SemVer: sv,
		Params:      []Param{{"fieldPath", path}, {"fieldUrn", f}, {"nullable", nullable}, {"modificationCategory", modification}},
		Description: description,
	}
}

const (
	incompatible = "A backwards incompatible change due to"
	compatible   = "A forwards & backwards compatible change due to "
)

// fieldPropertyChanges are the documentation, tag and term events of one
// field of a schemaMetadata (base or target nil when the field is new or
// gone).
func fieldPropertyChanges(urn string, base, target any) []ChangeEvent {
	field := target
	if field == nil {
		field = base
	}
	path := fieldPath(field)
	furn := SchemaFieldURN(urn, path)
	var out []ChangeEvent
	before, hadBefore := str(base, "description")
	after, hasAfter := str(target, "description")
	switch {
	case !hadBefore && hasAfter:
		out = append(out, ChangeEvent{EntityURN: furn, Category: Documentation, Operation: Add, SemVer: Minor,
			Params:      []Param{{"description", after}},
			Description: describe("The description '%s' for the field '%s' has been added.", after, path)})
	case hadBefore && !hasAfter:
		out = append(out, ChangeEvent{EntityURN: furn, Category: Documentation, Operation: Remove, SemVer: Minor,
			Params:      []Param{{"description", before}},
			Description: describe("The description '%s' for the field '%s' has been removed.", before, fieldPath(base))})
	case hadBefore && before != after:
		out = append(out, ChangeEvent{EntityURN: furn, Category: Documentation, Operation: Modify, SemVer: Patch,
			Params:      []Param{{"description", after}},
			Description: describe("The description for the field '%s' has been changed from '%s' to '%s'.", fieldPath(base), before, after)})
	}
	out = append(out, fieldEvents(tagDiffs(obj(base)["globalTags"], obj(target)["globalTags"], furn), path, urn)...)
	out = append(out, fieldEvents(termDiffs(obj(base)["glossaryTerms"], obj(target)["glossaryTerms"], furn), path, urn)...)
	return out
}

func nativeType(v any) string { return strOr(v, "nativeDataType") }

// renamed reports whether field b could be field a under another name: the
// same native type, parent and description.
func renamed(a, b any) bool {
	if nativeType(a) != nativeType(b) {
		return false
	}
	pa, pb := fieldPath(a), fieldPath(b)
	ia, ib := strings.LastIndexByte(pa, '.'), strings.LastIndexByte(pb, '.')
	switch {
	case ia > 0 && ib > 0:
		if pa[:ia] != pb[:ib] {
			return false
		}
	case ia >= 0 || ib >= 0:
		// Only fields that both have no parent count as siblings.
		return false
	}
	da, hasA := str(a, "description")
	db, hasB := str(b, "description")
	return hasA == hasB && da == db
}

func contains(set []any, v any) bool {
	for _, e := range set {
		if reflect.DeepEqual(e, v) {
			return true
		}
	}
	return false
}

// findRenamed returns the first field of others that field could have been
// renamed to (or from): compatible, not matched already, and not equal to
// a field still to come on field's own side.
func findRenamed(field any, ownSide, others, matched []any) any {
	for _, o := range others {
		if renamed(field, o) && !contains(matched, o) && !contains(ownSide, o) {
			return o
		}
	}
	return nil
}

func schemaMetadataChanges(urn string, from, to any) []ChangeEvent {
	base := sortedBy(list(from, "fields"), fieldPath)
	target := sortedBy(list(to, "fields"), fieldPath)
	var out []ChangeEvent
	add := func(f any) {
		p := fieldPath(f)
		out = append(out, schemaFieldEvent(urn, Add, Minor, p, boolean(f, "nullable"), "OTHER",
			describe(compatible+"the newly added field '%s'.", simplePath(p))))
		out = append(out, fieldPropertyChanges(urn, nil, f)...)
	}
	remove := func(f any) {
		p := fieldPath(f)
		out = append(out, schemaFieldEvent(urn, Remove, Major, p, boolean(f, "nullable"), "OTHER",
			describe(incompatible+" removal of field: '%s'.", simplePath(p))))
		out = append(out, fieldPropertyChanges(urn, f, nil)...)
	}
	rename := func(b, t any) {
		out = append(out, schemaFieldEvent(urn, Modify, Minor, fieldPath(b), boolean(b, "nullable"), "RENAME",
			describe(compatible+"renaming of the field '%s to %s'.", simplePath(fieldPath(b)), simplePath(fieldPath(t)))))
		out = append(out, fieldPropertyChanges(urn, b, t)...)
	}
	var matched []any // fields taken as renamed
	i, j := 0, 0
	for i < len(base) && j < len(target) {
		b, t := base[i], target[j]
		switch {
		case contains(matched, b):
			i++
		case contains(matched, t):
			j++
		case fieldPath(b) == fieldPath(t):
			if nativeType(b) != nativeType(t) {
				out = append(out, schemaFieldEvent(urn, Modify, Major, fieldPath(b), boolean(b, "nullable"), "TYPE_CHANGE",
					describe(incompatible+" native datatype of the field '%s' changed from '%s' to '%s'.",
						simplePath(fieldPath(t)), nativeType(b), nativeType(t))))
			}
			out = append(out, fieldPropertyChanges(urn, b, t)...)
			i++
			j++
		case fieldPath(b) < fieldPath(t):
			// Removed, or renamed to a later target field.
			if r := findRenamed(b, base[i:], target[j:], matched); r != nil {
				rename(b, r)
				matched = append(matched, r)
			} else {
				remove(b)
			}
			i++
		default:
			// Added, or renamed from a later base field.
			if r := findRenamed(t, target[j:], base[i:], matched); r != nil {
				rename(r, t)
				matched = append(matched, r)
			} else {
				add(t)
			}
			j++
		}
	}
	for ; i < len(base); i++ {
		if !contains(matched, base[i]) {
			remove(base[i])
		}
	}
	for ; j < len(target); j++ {
		if !contains(matched, target[j]) {
			add(target[j])
		}
	}
	out = append(out, primaryKeyChanges(urn, from, to)...)
	return out
}

func primaryKeyChanges(urn string, from, to any) []ChangeEvent {
	keys := func(v any) map[string]bool {
		m := map[string]bool{}
		for _, k := range list(v, "primaryKeys") {
			if s, ok := k.(string); ok {
				m[s] = true
			}
		}
		return m
	}
	before, after := keys(from), keys(to)
	var out []ChangeEvent
	diff := func(a, b map[string]bool, format string) {
		var ks []string
		for k := range a {
			if !b[k] {
				ks = append(ks, k)
			}
		}
		sort.Strings(ks)
		for _, k := range ks {
			f := SchemaFieldURN(urn, k)
			out = append(out, ChangeEvent{
				EntityURN: urn, Category: TechnicalSchema, Operation: Modify, Modifier: f, SemVer: Major,
				Params:      []Param{{"fieldPath", k}, {"fieldUrn", f}, {"nullable", false}, {"modificationCategory", "OTHER"}},
				Description: describe(format, k),
			})
		}
	}
	diff(before, after, incompatible+" removal of the primary key field '%s'")
	diff(after, before, incompatible+" addition of the primary key field '%s'")
	return out
}

func editableFieldPath(v any) string { return strOr(v, "fieldPath") }

func editableSchemaMetadataChanges(urn string, from, to any) []ChangeEvent {
	base := sortedBy(list(from, "editableSchemaFieldInfo"), editableFieldPath)
	target := sortedBy(list(to, "editableSchemaFieldInfo"), editableFieldPath)
	// DataHub reports documentation changes of every field first, then
	// tags, then terms.
	var docs, tags, terms []ChangeEvent
	one := func(b, t any) {
		field := t
		if field == nil {
			field = b
		}
		path := editableFieldPath(field)
		furn := SchemaFieldURN(urn, path)
		before, hadBefore := str(b, "description")
		after, hasAfter := str(t, "description")
		e := ChangeEvent{EntityURN: furn, Category: Documentation, Modifier: path}
		switch {
		case !hadBefore && hasAfter:
			e.Operation, e.SemVer, e.Params = Add, Minor, []Param{{"description", after}}
			e.Description = describe("Documentation for the field '%s' of '%s' has been added: '%s'", path, furn, after)
			docs = append(docs, e)
		case hadBefore && !hasAfter:
			e.Operation, e.SemVer, e.Params = Remove, Minor, []Param{{"description", before}}
			e.Description = describe("Documentation for the field '%s' of '%s' has been removed: '%s'", path, furn, before)
			docs = append(docs, e)
		case hadBefore && before != after:
			e.Operation, e.SemVer, e.Params = Modify, Patch, []Param{{"description", after}}
			e.Description = describe("Documentation for the field '%s' of '%s' has been updated from '%s' to '%s'.", path, furn, before, after)
			docs = append(docs, e)
		}
		// DataHub gives the field's URN as the parent of field-level
		// edits of editable schema metadata.
		tags = append(tags, fieldEvents(tagDiffs(obj(b)["globalTags"], obj(t)["globalTags"], furn), path, furn)...)
		terms = append(terms, fieldEvents(termDiffs(obj(b)["glossaryTerms"], obj(t)["glossaryTerms"], furn), path, furn)...)
	}
	mergeSorted(base, target, editableFieldPath, one, func(b any) { one(b, nil) }, func(t any) { one(nil, t) })
	return append(append(docs, tags...), terms...)
}

// runEventChanges reports a process run that started or completed (a
// timeseries value, so usually without a value before it), with its
// attempt and result. Who ran it (the run's parent job or flow) is in
// another aspect: RunParams adds it.
func runEventChanges(urn string, from, to any) []ChangeEvent {
	status, _ := str(to, "status")
	if before, _ := str(from, "status"); status == "" || status == before {
		return nil
	}
	op := Started
	if status == "COMPLETE" {
		op = Completed
	}
	e := ChangeEvent{EntityURN: urn, Category: Run, Operation: op}
	if n, ok := obj(to)["attempt"]; ok {
		e.Params = append(e.Params, Param{"attempt", n})
	}
	if r, ok := str(obj(to)["result"], "type"); ok {
		e.Params = append(e.Params, Param{"runResult", r})
	}
	return []ChangeEvent{e}
}

// RunParams adds to a RUN event the parameters DataHub takes from the
// run's dataProcessInstanceRelationships: its parent instance, and the
// job or flow it is a run of.
func RunParams(e *ChangeEvent, relationships any) {
	if p, ok := str(relationships, "parentInstance"); ok {
		e.Params = append(e.Params, Param{"parentInstanceUrn", p})
	}
	if p, ok := str(relationships, "parentTemplate"); ok {
		switch {
		case strings.HasPrefix(p, "urn:li:dataFlow:"):
			e.Params = append(e.Params, Param{"dataFlowUrn", p})
		case strings.HasPrefix(p, "urn:li:dataJob:"):
			e.Params = append(e.Params, Param{"dataJobUrn", p})
		}
	}
}
