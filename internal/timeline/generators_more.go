package timeline

// businessAttributeURN is the business attribute of a businessAttributes
// value (a schema field's), "" without one.
func businessAttributeURN(v any) string {
	return strOr(obj(v)["businessAttribute"], "businessAttributeUrn")
}

// businessAttributesChanges reports the business attribute of a schema
// field attached or detached.
func businessAttributesChanges(urn string, from, to any) []ChangeEvent {
	before, after := businessAttributeURN(from), businessAttributeURN(to)
	event := func(op Operation, attr, format string) []ChangeEvent {
		// The field's dataset is the first part of its URN.
		dataset := urn
		if u, ok := parseSchemaFieldURN(urn); ok {
			dataset = u
		}
		return []ChangeEvent{{
			EntityURN: urn, Category: BusinessAttribute, Operation: op, Modifier: attr, SemVer: Minor,
			Params:      []Param{{"parentUrn", urn}, {"businessAttributeUrn", attr}, {"datasetUrn", dataset}},
			Description: describe(format, urnID(attr), urn),
		}}
	}
	switch {
	case before != "" && after == "":
		return event(Remove, before, "BusinessAttribute '%s' removed from entity '%s'.")
	case before == "" && after != "":
		return event(Add, after, "BusinessAttribute '%s' added to entity '%s'.")
	}
	return nil
}

// parseSchemaFieldURN returns the parent of a schema field URN.
func parseSchemaFieldURN(s string) (string, bool) {
	const prefix = "urn:li:schemaField:("
	if len(s) < len(prefix)+2 || s[:len(prefix)] != prefix || s[len(s)-1] != ')' {
		return "", false
	}
	inner := s[len(prefix) : len(s)-1]
	depth := 0
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				return inner[:i], true
			}
		}
	}
	return "", false
}

// businessAttributeInfoChanges reports the documentation, glossary terms
// and tags of a business attribute changing.
func businessAttributeInfoChanges(urn string, from, to any) []ChangeEvent {
	var out []ChangeEvent
	before, hadBefore := str(from, "description")
	after, hasAfter := str(to, "description")
	path := strOr(to, "fieldPath")
	e := ChangeEvent{EntityURN: urn, Category: Documentation, SemVer: Minor}
	switch {
	case !hadBefore && hasAfter:
		e.Operation, e.Modifier = Add, path
		e.Description = describe("Documentation for the businessAttribute '%s' has been added: '%s'", path, after)
	case hadBefore && !hasAfter:
		path = strOr(from, "fieldPath")
		e.Operation, e.Modifier = Remove, path
		e.Description = describe("Documentation for the businessAttribute '%s' has been removed: '%s'", path, before)
	case hadBefore && before != after:
		e.Operation, e.Modifier = Modify, path
		e.Description = describe("Documentation for the businessAttribute '%s' has been updated from '%s' to '%s'.", path, before, after)
	}
	if e.Operation != "" {
		out = append(out, e)
	}
	out = append(out, termDiffs(obj(from)["glossaryTerms"], obj(to)["glossaryTerms"], urn)...)
	return append(out, tagDiffs(obj(from)["globalTags"], obj(to)["globalTags"], urn)...)
}

// assertionRunChanges reports an assertion run completing: DataHub's
// assertion RUN event, with the run's id, the entity asserted on and the
// result.
func assertionRunChanges(urn string, from, to any) []ChangeEvent {
	status, _ := str(to, "status")
	if before, _ := str(from, "status"); status != "COMPLETE" || before == "COMPLETE" {
		return nil
	}
	// DataHub lists these parameters in key order.
	params := []Param{{"asserteeUrn", strOr(to, "asserteeUrn")}}
	if r, ok := str(obj(to)["result"], "type"); ok {
		params = append(params, Param{"assertionResult", r})
	}
	params = append(params, Param{"runId", strOr(to, "runId")}, Param{"runResult", status})
	return []ChangeEvent{{EntityURN: urn, Category: Run, Operation: Completed, Params: params}}
}
