package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// OpenAPI builds the part of catalogd's OpenAPI document that follows from
// the model: the OpenAPI v3 entity paths of every entity type and aspect
// and their component schemas, shaped as DataHub's OpenAPIV3Generator
// shapes them (/openapi/v3/entity/<type>, .../batchGet, .../{urn},
// .../{urn}/<aspect>, /openapi/v3/entity/scroll; components
// <Aspect>AspectRequest_v3, <Entity>EntityResponse_v3, ...), with the status
// codes catalogd answers. Every aspect and type schema becomes a component
// named by the record's short name (its fully qualified name where the
// short one is taken). taken lists the component names of the hand-written
// document, which the generated part refers to (OpenAPIErrorResponse,
// UrnPath, SystemMetadata, AuditStamp) and never redefines. The result is a
// JSON document holding "tags", "paths" and "components", to be merged into
// the hand-written one.
func (m *Model) OpenAPI(taken map[string]bool) ([]byte, error) {
	ents, _, err := m.Specs()
	if err != nil {
		return nil, err
	}
	g := &oaGen{m: m, names: map[string]string{}, used: map[string]string{}}
	for k := range taken {
		g.used[k] = "\x00hand-written"
	}
	// Component names are handed out in FQN order, so that they are stable.
	var fqns []string
	for fqn := range m.Types {
		fqns = append(fqns, fqn)
	}
	for _, f := range m.Aspects {
		if f.FQN != "" && m.Types[f.FQN] == nil {
			fqns = append(fqns, f.FQN)
		}
	}
	sort.Strings(fqns)
	for _, fqn := range fqns {
		g.name(fqn)
	}
	schemas := map[string]any{}
	for _, fqn := range fqns {
		f := m.byFQN(fqn)
		s, err := g.schema(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		schemas[g.names[fqn]] = s
	}
	params := map[string]any{}
	resps := sharedResponses()
	paths := map[string]any{}
	var tags []any
	var entityNames, aspectNames []string
	keyAspects := map[string]bool{}
	for _, e := range ents {
		entityNames = append(entityNames, e.Name)
		keyAspects[e.KeyAspect] = true
	}
	for _, f := range m.SortedAspects() {
		if f.FQN == "" {
			return nil, fmt.Errorf("%s: an aspect needs an x-wire-name to be named in the OpenAPI document", f.Path)
		}
		n := g.names[f.FQN]
		schemas[n+"AspectRequest_v3"] = obj(map[string]any{
			"value":          ref(n),
			"systemMetadata": nullableRef("SystemMetadata", "System metadata of the write."),
			"headers":        headersSchema(),
		}, "value")
		resp := obj(map[string]any{
			"value":          ref(n),
			"systemMetadata": ref("SystemMetadata"),
			"auditStamp":     ref("AuditStamp"),
		}, "value")
		resp["additionalProperties"] = false
		resp["description"] = "The " + f.Name + " aspect: its value, and with systemMetadata=true its system metadata and the audit stamp of its write."
		schemas[n+"AspectResponse_v3"] = resp
		resps[n+"Aspect_v3"] = okResponse("The aspect.", ref(n+"AspectResponse_v3"))
		if !f.Timeseries {
			aspectNames = append(aspectNames, f.Name)
		}
	}
	allAspects := map[string]any{"urn": str("The entity's URN.")}
	for _, e := range ents {
		up := upperFirst(e.Name)
		tag := e.Name + " Entity"
		tags = append(tags, map[string]any{"name": tag, "description": "OpenAPI v3 reads and writes of " + e.Name + " entities and their aspects."})
		aspects := append([]string{e.KeyAspect}, e.Aspects...)
		sort.Strings(aspects)
		req := map[string]any{"urn": str("The entity's URN.")}
		resp := map[string]any{"urn": str("The entity's URN.")}
		batch := map[string]any{"urn": str("The entity's URN.")}
		patch := map[string]any{"urn": str("The entity's URN.")}
		for _, a := range aspects {
			n := g.names[m.Aspects[a].FQN]
			req[a] = ref(n + "AspectRequest_v3")
			resp[a] = ref(n + "AspectResponse_v3")
			allAspects[a] = ref(n + "AspectResponse_v3")
			batch[a] = ref("BatchGetRequestBody")
			patch[a] = ref("AspectPatchRequest_v3")
		}
		schemas[up+"EntityRequest_v3"] = closed(obj(req, "urn"), up+" entity: its URN and aspects to write.")
		schemas[up+"EntityResponse_v3"] = closed(obj(resp, "urn"), up+" entity: its URN and aspects.")
		schemas["BatchGet"+up+"EntityRequest_v3"] = closed(obj(batch, "urn"), up+" entity to read: its URN and the aspects to read (all when none is named).")
		schemas[up+"EntityRequestPatch_v3"] = closed(obj(patch, "urn"), up+" entity: its URN and JSON Patches of its aspects.")
		schemas["Scroll"+up+"EntityResponse_v3"] = scrollSchema(up + "EntityResponse_v3")
		resps[up+"Entity_v3"] = okResponse("The entity.", ref(up+"EntityResponse_v3"))
		resps[up+"Entities_v3"] = okResponse("The entities.", arrayOf(up+"EntityResponse_v3"))
		params[up+"Aspects_v3"] = map[string]any{
			"name": "aspects", "in": "query", "explode": true, "required": false,
			"description": "Aspects to include (all when none is named); repeated, or comma-separated.",
			"schema":      map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": toAny(aspects)}},
		}
		lower := strings.ToLower(e.Name)
		base := "/openapi/v3/entity/" + lower
		paths[base] = g.listPath(e.Name, up, tag)
		paths[base+"/batchGet"] = g.batchGetPath(e.Name, up, tag)
		paths[base+"/{urn}"] = g.entityPath(e.Name, up, tag)
		for _, a := range aspects {
			f := m.Aspects[a]
			paths[base+"/{urn}/"+strings.ToLower(a)] = g.aspectPath(e.Name, up, a, g.names[f.FQN], f.Timeseries, tag)
		}
	}
	schemas["EntitiesEntityResponse_v3"] = closed(obj(allAspects, "urn"), "An entity of any type: its URN and aspects.")
	schemas["ScrollEntitiesEntityResponse_v3"] = scrollSchema("EntitiesEntityResponse_v3")
	sort.Strings(aspectNames)
	var exampleAspects []string
	for _, a := range aspectNames {
		if !keyAspects[a] && !strings.HasPrefix(a, "dataHub") {
			exampleAspects = append(exampleAspects, a)
		}
	}
	schemas["EntitiesEntityRequest_v3"] = map[string]any{
		"type":        "object",
		"description": "The entity types to scroll (all when absent) and the aspects to read of them: none when absent, all when empty.",
		"properties": map[string]any{
			"entities": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": toAny(entityNames)}},
			"aspects":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": toAny(aspectNames)}},
		},
		"example": map[string]any{"entities": []any{"dataset"}, "aspects": toAny(exampleAspects[:min(3, len(exampleAspects))])},
	}
	schemas["AspectPatch"] = aspectPatchSchema()
	schemas["AspectPatchRequest_v3"] = obj(map[string]any{
		"value":          ref("AspectPatch"),
		"systemMetadata": nullableRef("SystemMetadata", "System metadata of the write."),
		"headers":        headersSchema(),
	}, "value")
	schemas["BatchGetRequestBody"] = map[string]any{
		"type": "object", "nullable": true, "description": "An aspect to read.",
		"properties": map[string]any{"headers": headersSchema()},
	}
	schemas["SortOrder"] = map[string]any{"type": "string", "enum": []any{"ASCENDING", "DESCENDING"}}
	for k, v := range scrollParameters() {
		params[k] = v
	}
	for k, v := range sharedParameters() {
		params[k] = v
	}
	paths["/openapi/v3/entity/scroll"] = g.scrollAcrossPath()
	tags = append(tags, map[string]any{"name": "Generic Entities", "description": "OpenAPI v3 scroll across entity types."})
	for k := range schemas {
		if taken[k] {
			return nil, fmt.Errorf("generated component schema %s is also defined by hand", k)
		}
	}
	doc := map[string]any{
		"tags":  tags,
		"paths": paths,
		"components": map[string]any{"schemas": schemas, "parameters": params, "responses": resps,
			"requestBodies": map[string]any{"AspectPatch_v3": reqBody("A JSON Patch; a missing aspect starts from its default.", ref("AspectPatch"))}},
	}
	return encodeLines(doc)
}

// encodeLines encodes the document with one line per path, component or
// tag, so that a change of the model shows as a change of the lines of what
// it touched, at a fraction of the size of indented JSON.
func encodeLines(doc map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	compact := func(v any) error {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		return nil
	}
	members := func(m map[string]any, indent string) error {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			buf.WriteString(indent)
			if err := compact(k); err != nil {
				return err
			}
			buf.WriteString(": ")
			if err := compact(m[k]); err != nil {
				return err
			}
			if i < len(keys)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		return nil
	}
	buf.WriteString("{\n \"tags\": [\n")
	tags := doc["tags"].([]any)
	for i, t := range tags {
		buf.WriteString("  ")
		if err := compact(t); err != nil {
			return nil, err
		}
		if i < len(tags)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString(" ],\n \"paths\": {\n")
	if err := members(doc["paths"].(map[string]any), "  "); err != nil {
		return nil, err
	}
	buf.WriteString(" },\n \"components\": {\n")
	comps := doc["components"].(map[string]any)
	kinds := []string{"parameters", "requestBodies", "responses", "schemas"}
	for i, kind := range kinds {
		buf.WriteString("  \"" + kind + "\": {\n")
		if err := members(comps[kind].(map[string]any), "   "); err != nil {
			return nil, err
		}
		buf.WriteString("  }")
		if i < len(kinds)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString(" }\n}\n")
	return buf.Bytes(), nil
}

// oaGen holds the component names handed out.
type oaGen struct {
	m     *Model
	names map[string]string // FQN → component name
	used  map[string]string // component name → FQN
}

// name hands out the component name of a record or enum: its short name,
// or its fully qualified name where another has the short one.
func (g *oaGen) name(fqn string) string {
	if n, ok := g.names[fqn]; ok {
		return n
	}
	n := fqn[strings.LastIndexByte(fqn, '.')+1:]
	if owner, ok := g.used[n]; ok && owner != fqn {
		n = fqn
	}
	g.names[fqn], g.used[n] = n, fqn
	return n
}

// schema turns a schema file into an OpenAPI component: $refs point at
// components, and the model's annotations that say nothing about the shape
// of a value are left out.
func (g *oaGen) schema(f *File) (any, error) {
	var walk func(v any) (any, error)
	walk = func(v any) (any, error) {
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, c := range x {
				switch k {
				case "$ref":
					s, _ := c.(string)
					t, err := g.m.resolveRef(s)
					if err != nil {
						return nil, err
					}
					out[k] = "#/components/schemas/" + g.name(t.FQN)
				case "$schema", "$id", "$defs", "x-aspect", "x-searchable", "x-relationship":
				case "default", "enum", "examples":
					out[k] = c
				default:
					w, err := walk(c)
					if err != nil {
						return nil, err
					}
					out[k] = w
				}
			}
			// A $ref with siblings is its target alone in OpenAPI 3.0:
			// wrapped in an allOf, the siblings (a description) are kept.
			if r, ok := out["$ref"]; ok && len(out) > 1 {
				delete(out, "$ref")
				out["allOf"] = []any{map[string]any{"$ref": r}}
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
	return walk(f.Raw)
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func nullableRef(name, desc string) map[string]any {
	return map[string]any{"nullable": true, "description": desc, "allOf": []any{ref(name)}}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func obj(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = toAny(required)
	}
	return o
}

func closed(o map[string]any, desc string) map[string]any {
	o["additionalProperties"] = false
	o["description"] = desc
	return o
}

func headersSchema() map[string]any {
	return map[string]any{
		"type": "object", "nullable": true, "additionalProperties": map[string]any{"type": "string"},
		"description": "Headers of the write. DataHub's conditional writes: If-Version-Match (the aspect's current version, -1 for none), If-Modified-Since and If-Unmodified-Since (RFC 3339 instants); a condition that does not hold answers 412 and writes nothing.",
	}
}

func scrollSchema(entity string) map[string]any {
	return obj(map[string]any{
		"scrollId": str("Pass it back to read the next page; absent after the last page."),
		"entities": map[string]any{"type": "array", "items": ref(entity)},
	}, "entities")
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func upperFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func aspectPatchSchema() map[string]any {
	op := obj(map[string]any{
		"op":    map[string]any{"type": "string", "enum": []any{"add", "remove", "replace", "move", "copy", "test"}},
		"path":  map[string]any{"type": "string", "description": "JSON Pointer to the target; arrays of records are addressed by key (/tags/urn:li:tag:x)."},
		"from":  map[string]any{"type": "string", "description": "JSON Pointer of the source of move and copy."},
		"value": map[string]any{"description": "The value of add, replace and test."},
	}, "op", "path")
	op["additionalProperties"] = false
	return map[string]any{
		"type":        "object",
		"description": "A JSON Patch of an aspect (RFC 6902, with DataHub's keyed addressing of arrays).",
		"required":    []any{"patch"},
		"properties": map[string]any{
			"patch": map[string]any{"type": "array", "items": op},
			"arrayPrimaryKeys": map[string]any{
				"type": "object", "description": "Accepted for compatibility: catalogd derives the keys of arrays from the aspect's schema.",
				"additionalProperties": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			},
			"forceGenericPatch": map[string]any{"type": "boolean", "default": false, "description": "Accepted for compatibility."},
		},
	}
}

// The parameters, responses and request bodies of the generated operations.

func qparam(name, desc string, schema map[string]any) map[string]any {
	return map[string]any{"name": name, "in": "query", "description": desc, "schema": schema}
}

func boolSchema(def bool) map[string]any { return map[string]any{"type": "boolean", "default": def} }

func pref(name string) map[string]any {
	return map[string]any{"$ref": "#/components/parameters/" + name}
}

func scrollParameters() map[string]any {
	return map[string]any{
		"ScrollId_v3": qparam("scrollId", "The scrollId of the previous page.", map[string]any{"type": "string"}),
		"SortBy_v3": map[string]any{
			"name": "sortCriteria", "in": "query", "explode": true, "description": "Sort fields; urn, the only one.",
			"schema": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"urn"}}},
		},
		"SortOrder_v3": qparam("sortOrder", "Sort direction.", map[string]any{"type": "string", "enum": []any{"ASCENDING", "DESCENDING"}, "default": "ASCENDING"}),
		"PaginationCount_v3": qparam("count", "Entities per page; more than 10000 reads 10000.",
			map[string]any{"type": "integer", "format": "int32", "minimum": 0, "default": 10}),
		"ScrollQuery_v3": qparam("query", "Search query: * (every entity, read from the store by key) or a search (free text, or field:value), answered from the search engine's first 10000 matches.",
			map[string]any{"type": "string", "default": "*"}),
	}
}

// sharedParameters are the query parameters most operations share.
func sharedParameters() map[string]any {
	return map[string]any{
		"SystemMetadata_v3":    qparam("systemMetadata", "Include each aspect's systemMetadata and auditStamp.", boolSchema(false)),
		"IncludeSoftDelete_v3": qparam("includeSoftDelete", "Count soft-deleted entities as existing.", boolSchema(false)),
		"AsyncAspect_v3":       qparam("async", "Answer 202 instead of 200 (catalogd always writes before it answers).", boolSchema(false)),
		"AsyncEntities_v3": qparam("async", "DataHub writes asynchronously unless false; catalogd always writes before it answers, and answers 202 unless async=false.",
			boolSchema(true)),
		"CreateIfNotExists_v3":       qparam("createIfNotExists", "Fail when the aspect exists (CREATE); false writes it whatever is stored (UPSERT).", boolSchema(true)),
		"CreateIfEntityNotExists_v3": qparam("createIfEntityNotExists", "Fail when the entity exists (CREATE_ENTITY).", boolSchema(false)),
		"CreateEntityIfNotExists_v3": qparam("createEntityIfNotExists", "As createIfEntityNotExists.", boolSchema(false)),
		"AspectVersion_v3": qparam("version", "A version of the aspect: 0 the latest, N the N-th (the one after the newest kept in history is the latest).",
			map[string]any{"type": "integer", "format": "int64", "minimum": 0, "default": 0}),
		"TimeseriesVersion_v3": qparam("version", "0 the newest value, otherwise the newest at or before this time (epoch milliseconds).",
			map[string]any{"type": "integer", "format": "int64", "minimum": 0, "default": 0}),
	}
}

// sharedResponses are the bodiless answers most operations share.
func sharedResponses() map[string]any {
	return map[string]any{
		"Exists_v3":    map[string]any{"description": "It exists."},
		"NotExists_v3": map[string]any{"description": "It does not exist."},
		"Deleted_v3":   map[string]any{"description": "Deleted, or there was nothing to delete (empty body)."},
	}
}

func rref(name string) map[string]any {
	return map[string]any{"$ref": "#/components/responses/" + name}
}

func scrollParams() []any {
	return []any{
		pref("SystemMetadata_v3"),
		qparam("includeSoftDelete", "Include soft-deleted entities.", boolSchema(false)),
		qparam("skipCache", "Accepted for compatibility.", boolSchema(false)),
		qparam("pitKeepAlive", "Accepted for compatibility.", map[string]any{"type": "string", "default": "5m"}),
		qparam("sort", "Deprecated single sort field; urn, the only one.", map[string]any{"type": "string", "enum": []any{"urn"}}),
		pref("PaginationCount_v3"), pref("ScrollId_v3"), pref("SortBy_v3"), pref("SortOrder_v3"), pref("ScrollQuery_v3"),
	}
}

func jsonContent(schema map[string]any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

func arrayOf(name string) map[string]any { return map[string]any{"type": "array", "items": ref(name)} }

func okResponse(desc string, schema map[string]any) map[string]any {
	return map[string]any{"description": desc, "content": jsonContent(schema)}
}

var errorResponse = map[string]any{"$ref": "#/components/responses/OpenAPIErrorResponse"}

// responses completes the answers of an operation with its errors.
func responses(rs map[string]any) map[string]any {
	rs["default"] = errorResponse
	return rs
}

func op(id, summary, tag string, params []any, body map[string]any, rs map[string]any) map[string]any {
	o := map[string]any{"operationId": id, "summary": summary, "description": summary, "tags": []any{tag}, "responses": responses(rs)}
	if len(params) > 0 {
		o["parameters"] = params
	}
	if body != nil {
		o["requestBody"] = body
	}
	return o
}

func reqBody(desc string, schema map[string]any) map[string]any {
	return map[string]any{"description": desc, "required": true, "content": jsonContent(schema)}
}

func (g *oaGen) listPath(name, up, tag string) map[string]any {
	get := op("scroll"+up+"_v3", "Scroll "+name+" entities.", tag, append(scrollParams(), pref(up+"Aspects_v3")), nil, map[string]any{
		"200": okResponse("A page of entities in URN order.", ref("Scroll"+up+"EntityResponse_v3")),
	})
	get["description"] = "One page of the " + name + " entities, in URN order, with the aspects asked for (all by default). Soft-deleted entities are left out unless includeSoftDelete=true."
	writeParams := []any{pref("AsyncEntities_v3"), pref("SystemMetadata_v3")}
	createParams := append(append([]any(nil), writeParams...),
		qparam("createIfNotExists", "Fail when an aspect exists (CREATE).", boolSchema(false)),
		pref("CreateEntityIfNotExists_v3"), pref("CreateIfEntityNotExists_v3"),
	)
	post := op("create"+up+"_v3", "Create or update "+name+" entities.", tag, createParams, reqBody("The entities to write, in one transaction.", arrayOf(up+"EntityRequest_v3")), map[string]any{
		"200": rref(up + "Entities_v3"), "202": rref(up + "Entities_v3"),
	})
	post["description"] = "Answers the aspects written, and every aspect of a new entity: 200 with async=false, else 202."
	patch := op("patch"+up+"_v3", "Patch "+name+" entities.", tag, writeParams, reqBody("JSON Patches of aspects of entities, in one transaction.", arrayOf(up+"EntityRequestPatch_v3")), map[string]any{
		"200": rref(up + "Entities_v3"), "202": map[string]any{"description": "Patched (empty body)."},
	})
	patch["description"] = "Answers, with async=false, the aspects patched and every aspect of a new entity; else 202 without a body."

	return map[string]any{"get": get, "post": post, "patch": patch}
}

func (g *oaGen) batchGetPath(name, up, tag string) map[string]any {
	return map[string]any{"post": op("batchGet"+up+"_v3", "Read a batch of "+name+" entities.", tag,
		[]any{pref("SystemMetadata_v3")},
		reqBody("The entities and the aspects to read of each (all when none is named).", arrayOf("BatchGet"+up+"EntityRequest_v3")),
		map[string]any{"200": rref(up + "Entities_v3")})}
}

func (g *oaGen) entityPath(name, up, tag string) map[string]any {
	notFound := map[string]any{"$ref": "#/components/responses/OpenAPIErrorResponse"}
	return map[string]any{
		"parameters": []any{pref("UrnPath")},
		"get": op("get"+up+"_v3", "Read a "+name+" entity.", tag, []any{pref("SystemMetadata_v3"), pref(up + "Aspects_v3")}, nil, map[string]any{
			"200": rref(up + "Entity_v3"), "404": notFound,
		}),
		"head": op("head"+up+"_v3", "Whether a "+name+" entity exists.", tag, []any{pref("IncludeSoftDelete_v3")}, nil, map[string]any{
			"204": rref("Exists_v3"), "404": rref("NotExists_v3"),
		}),
		"delete": op("delete"+up+"_v3", "Delete a "+name+" entity.", tag, []any{
			qparam("clear", "Delete every aspect but the key aspect.", boolSchema(false)),
			pref(up + "Aspects_v3"),
		}, nil, map[string]any{"200": rref("Deleted_v3")}),
	}
}

var patchBody = map[string]any{"$ref": "#/components/requestBodies/AspectPatch_v3"}

func (g *oaGen) aspectPath(name, up, aspect, comp string, timeseries bool, tag string) map[string]any {
	version := pref("AspectVersion_v3")
	if timeseries {
		version = pref("TimeseriesVersion_v3")
	}
	notFound := map[string]any{"$ref": "#/components/responses/OpenAPIErrorResponse"}
	sm := pref("SystemMetadata_v3")
	what := aspect + " of a " + name
	id := up + upperFirst(aspect) + "_v3"
	deleteSummary := "Delete the " + what + "."
	if timeseries {
		deleteSummary = "Delete the latest value of the " + what + " (every value stamped with its timestampMillis)."
	}
	return map[string]any{
		"parameters": []any{pref("UrnPath")},
		"get": op("get"+id, "Read the "+what+".", tag, []any{sm, version}, nil, map[string]any{
			"200": rref(comp + "Aspect_v3"), "404": notFound,
		}),
		"head": op("head"+id, "Whether a "+name+" has "+aspect+".", tag, []any{pref("IncludeSoftDelete_v3")}, nil, map[string]any{
			"204": rref("Exists_v3"), "404": rref("NotExists_v3"),
		}),
		"delete": op("delete"+id, deleteSummary, tag, nil, nil, map[string]any{"200": rref("Deleted_v3")}),
		"post": op("create"+id, "Write the "+what+".", tag, []any{
			pref("AsyncAspect_v3"), sm, pref("CreateIfNotExists_v3"), pref("CreateIfEntityNotExists_v3"), pref("CreateEntityIfNotExists_v3"),
		}, reqBody("The aspect.", ref(comp+"AspectRequest_v3")), map[string]any{
			"200": rref(up + "Entity_v3"), "202": rref(up + "Entity_v3"),
		}),
		"patch": op("patch"+id, "Patch the "+what+".", tag, []any{sm}, patchBody, map[string]any{"200": rref(up + "Entity_v3")}),
	}
}

func (g *oaGen) scrollAcrossPath() map[string]any {
	post := op("scrollEntities_v3", "Scroll entities of several types.", "Generic Entities", scrollParams(),
		map[string]any{
			"description": "The entity types (all when absent) and the aspects to read: none when aspects is absent, all when it is empty.",
			"required":    false, "content": jsonContent(ref("EntitiesEntityRequest_v3")),
		},
		map[string]any{"200": okResponse("A page of entities in URN order.", ref("ScrollEntitiesEntityResponse_v3"))})
	post["description"] = "One page of the entities of the types asked for, in URN order. Soft-deleted entities are left out unless includeSoftDelete=true."
	return map[string]any{"post": post}
}
