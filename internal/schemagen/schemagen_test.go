package schemagen

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testSchemas = "../registry/testdata/schemas"

func loadOK(t *testing.T, dir string, opt Options) *Model {
	t.Helper()
	m, err := Load(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Errors) > 0 || len(m.Warnings) > 0 {
		t.Fatalf("errors %q warnings %q", m.Errors, m.Warnings)
	}
	return m
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func TestGenerateDeterministic(t *testing.T) {
	out := t.TempDir()
	start := time.Now()
	m := loadOK(t, testSchemas, Options{Strict: true})
	res, err := Generate(m, out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated %d files in %v", len(res.Written), time.Since(start))
	first := readDir(t, out)
	// a stale generated file is removed, a hand-written one is kept
	os.WriteFile(filepath.Join(out, "models", "stale.go"), []byte(Header+"\npackage models\n"), 0o644)
	os.WriteFile(filepath.Join(out, "models", "hand.go"), []byte("package models\n"), 0o644)
	m2 := loadOK(t, testSchemas, Options{Strict: true})
	res2, err := Generate(m2, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Written) != 0 || len(res2.Removed) != 1 {
		t.Errorf("second run wrote %v, removed %v", res2.Written, res2.Removed)
	}
	os.Remove(filepath.Join(out, "models", "hand.go"))
	second := readDir(t, out)
	if len(first) != len(second) {
		t.Fatalf("file sets differ: %d vs %d", len(first), len(second))
	}
	for k, v := range first {
		if second[k] != v {
			t.Errorf("%s differs between runs", k)
		}
		if !strings.HasPrefix(v, Header) {
			t.Errorf("%s lacks the header", k)
		}
	}
	models := strings.Join([]string{first["models/common.go"], first["models/other.go"], first["models/schema.go"], first["models/test.go"], first["models/chart.go"], first["models/dataset.go"]}, "\n")
	for _, want := range []string{
		"type CommonOwner struct",                            // collision resolved by namespace
		"type OtherOwner struct",                             //
		"Owners       []CommonOwner       `json:\"owners\"`", // required slice, no omitempty
		"LastModified *AuditStamp         `json:\"lastModified,omitempty\"`",
		"OwnerTypes   map[string][]string `json:\"ownerTypes,omitempty\"`",
		"FabricTypeProd FabricType = \"PROD\"",
		"OwnershipTypeTechnicalOwner OwnershipType = \"TECHNICAL_OWNER\"",
		"func (Status) AspectName() string { return \"status\" }",
		"Parent   *Node  `json:\"parent,omitempty\"`",
		"Children []Node `json:\"children,omitempty\"`",
		"Version        int64                        `json:\"version\"`",
		"ColumnCount     *int32   `json:\"columnCount,omitempty\"`",
		"SizeInBytes     *float64 `json:\"sizeInBytes,omitempty\"`",
		"String *string `json:\"string,omitempty\"`",
		"case \"com.linkedin.schema.MySqlDDL\":",
		"// Deprecated: kept for compatibility.",
		"// The lifecycle status metadata of an entity.",
	} {
		if !strings.Contains(models, want) {
			t.Errorf("models lack %q", want)
		}
	}
	reg := first["registry/registry.go"]
	for _, want := range []string{
		`{Name: "dataJob", KeyAspect: "dataJobKey", KeyFields: []string{"flow", "jobId"}, Aspects: []string{"status", "ownership"}}`,
		`IsUpstream: true`, `BoostScore: 1.0`, `BoostScore: 0.5`, `Timeseries: true`, `Schema: schemaTreeInfo`,
	} {
		if !strings.Contains(reg, want) {
			t.Errorf("registry lacks %q", want)
		}
	}
}

// TestModelsCompile builds the generated models package (and exercises the
// union JSON round trip) in a scratch module.
func TestModelsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	dir := t.TempDir()
	m := loadOK(t, testSchemas, Options{Strict: true})
	if _, err := Generate(m, dir); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "registry")) // imports an internal package of catalogd
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module scratch\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "models", "roundtrip_test.go"), []byte(`package models

import (
	"encoding/json"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	in := `+"`"+`{"schemaName":"s","platform":"urn:li:dataPlatform:x","version":1,"hash":"","platformSchema":{"com.linkedin.pegasus2avro.schema.MySqlDDL":{"tableSchema":"t"}},"fields":[{"fieldPath":"a","type":{"type":{"com.linkedin.schema.StringType":{}}},"nativeDataType":"n"}]}`+"`"+`
	var sm SchemaMetadata
	if err := json.Unmarshal([]byte(in), &sm); err != nil {
		t.Fatal(err)
	}
	if sm.PlatformSchema.MySqlDDL == nil || sm.Fields[0].Type.Type.StringType == nil {
		t.Fatalf("%+v", sm)
	}
	out, err := json.Marshal(sm)
	if err != nil {
		t.Fatal(err)
	}
	want := `+"`"+`{"schemaName":"s","platform":"urn:li:dataPlatform:x","version":1,"hash":"","platformSchema":{"com.linkedin.schema.MySqlDDL":{"tableSchema":"t"}},"fields":[{"fieldPath":"a","type":{"type":{"com.linkedin.schema.StringType":{}}},"nativeDataType":"n"}]}`+"`"+`
	if string(out) != want {
		t.Fatalf("got %s", out)
	}
	if _, err := json.Marshal(SchemaMetadataPlatformSchema{}); err == nil {
		t.Fatal("empty union marshalled")
	}
	var u SchemaMetadataPlatformSchema
	if err := json.Unmarshal([]byte(`+"`"+`{"x":{}}`+"`"+`), &u); err == nil {
		t.Fatal("unknown member accepted")
	}
	if (Status{}).AspectName() != "status" {
		t.Fatal("AspectName")
	}
}
`), 0o644)
	cmd := exec.Command(gobin, "test", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of generated models: %v\n%s", err, out)
	}
}

func TestBundle(t *testing.T) {
	m := loadOK(t, testSchemas, Options{Strict: true})
	s, err := m.Bundle(m.Aspects["treeInfo"])
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	if len(defs) != 1 || defs["com.linkedin.test.Node"] == nil {
		t.Errorf("defs: %v", defs)
	}
	if !strings.Contains(s, `"$ref":"#/$defs/com.linkedin.test.Node"`) || strings.Contains(s, ".json") || strings.Contains(s, "\n") {
		t.Errorf("bundle: %s", s)
	}
	s2, _ := m.Bundle(m.Aspects["schemaMetadata"])
	for _, fqn := range []string{"com.linkedin.common.AuditStamp", "com.linkedin.schema.SchemaField", "com.linkedin.schema.SchemaFieldDataType", "com.linkedin.schema.StringType", "com.linkedin.common.GlobalTags"} {
		if !strings.Contains(s2, `"`+fqn+`":{`) {
			t.Errorf("schemaMetadata bundle lacks %s", fqn)
		}
	}
}

// writeModel writes a small model to a temp dir; files maps relative paths to contents.
func writeModel(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const okEntities = "entities:\n  - name: thing\n    keyAspect: thingKey\n    keyFields: [id]\n    aspects: [info]\n"
const okKey = `{"type":"object","x-aspect":{"name":"thingKey"},"x-wire-name":"x.ThingKey","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`

func info(body string) string {
	return `{"type":"object","x-aspect":{"name":"info"},"x-wire-name":"x.Info",` + body + `}`
}

func TestChecks(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string
		strict bool
		errs   []string
		warns  []string
	}{
		{"ok", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"a":{"type":"string"}},"additionalProperties":false`)}, true, nil, nil},
		{"missing aspect warns", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey}, false,
			nil, []string{`entity thing: aspect "info" has no schema (aspects/info.json)`}},
		{"missing aspect strict", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey}, true,
			[]string{`entity thing: aspect "info" has no schema`}, nil},
		{"missing entities.yaml", map[string]string{"aspects/thingKey.json": okKey}, false, nil, []string{"entities.yaml: missing"}},
		{"bad yaml key", map[string]string{"entities.yaml": okEntities + "    keyfield: [x]\n", "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{},"additionalProperties":false`)}, true, []string{"entities.yaml:", "keyfield"}, nil},
		{"unresolved ref", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"a":{"$ref":"../types/x.Nope.json"}},"additionalProperties":false`)}, true,
			[]string{`aspects/info.json: /properties/a: unresolved $ref "../types/x.Nope.json"`}, nil},
		{"aspect name mismatch", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": `{"type":"object","x-aspect":{"name":"infos"},"x-wire-name":"x.Info","properties":{},"additionalProperties":false}`}, true,
			[]string{`aspects/info.json: x-aspect.name "infos" does not match the file name`}, nil},
		{"type wire name mismatch", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{},"additionalProperties":false`),
			"types/x.T.json":    `{"type":"object","x-wire-name":"x.U","properties":{},"additionalProperties":false}`}, true,
			[]string{`types/x.T.json: x-wire-name "x.U" does not match the file name`}, nil},
		{"searchable path", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"a":{"type":"array","items":{"type":"string"}}},"additionalProperties":false,
			"x-searchable":[{"path":"/b","fieldName":"b","fieldType":"TEXT"},{"path":"/a","fieldName":"a","fieldType":"KEYWORD"},{"path":"/a/*","fieldName":"a","fieldType":"NOPE"}]`)}, true,
			[]string{`x-searchable[0] (/b): path "/b": segment "b" does not exist`, `unknown fieldType "NOPE"`}, nil},
		{"searchable unknown key", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"a":{"type":"string"}},"additionalProperties":false,
			"x-searchable":[{"path":"/a","fieldName":"a","fieldType":"TEXT","boost":2}]`)}, true,
			[]string{`x-searchable[0]: json: unknown field "boost"`}, nil},
		{"searchable keyed paths", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"p":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}}},"additionalProperties":false,
			"x-searchable":[{"path":"/p/*","fieldName":"p","fieldType":"KEYWORD","keyPath":"k","valuePath":"v/*"},{"path":"/p/*","fieldName":"q","fieldType":"KEYWORD","keyPath":"nope","valuePath":"v/*"},{"path":"/p/*","fieldName":"r","fieldType":"KEYWORD","keyPath":"k"}]`)}, true,
			[]string{`x-searchable[1] (/p/*): keyPath "/p/*/nope": segment "nope" does not exist`, `x-searchable[2] (/p/*): keyPath and valuePath go together`}, nil},
		{"relationship paths", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"u":{"type":"array","items":{"$ref":"../types/x.U.json"}}},"additionalProperties":false,
			"x-relationship":[{"path":"/u/*/dataset","name":"DownstreamOf","entityTypes":["dataset"],"createdOn":"/u/*/created/time","createdActor":"/u/*/created/actor"}]`),
			"types/x.U.json": `{"type":"object","properties":{"dataset":{"type":"string"},"created":{"type":"object","properties":{"time":{"type":"integer"}},"additionalProperties":false}},"additionalProperties":false}`}, true,
			[]string{`x-relationship[0] (/u/*/dataset): createdActor "/u/*/created/actor": segment "actor" does not exist`}, nil},
		{"key field", map[string]string{"entities.yaml": strings.Replace(okEntities, "[id]", "[id, other]", 1), "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{},"additionalProperties":false`)}, true,
			[]string{`entity thing: key field "other" is not a field of thingKey`}, nil},
		{"bad json", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": "{\n\"type\": \"object\",\n\"x-aspect\": {\"name\": \"info\"},\n}"}, true,
			[]string{`aspects/info.json: line 4: invalid character '}'`}, nil},
		{"unknown keyword and required", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"a":{"type":"string","pattern":"x"}},"required":["b"],"additionalProperties":false`)}, true,
			[]string{`required field "b" is not a property`}, []string{`aspects/info.json: /properties/a: unsupported keyword "pattern" (ignored)`}},
		{"typed URN", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"a":{"type":"string","format":"urn","x-urn-entity":"tag"}},"additionalProperties":false`)}, true, nil, nil},
		{"typed URN without format urn", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"a":{"type":"string","x-urn-entity":"tag"},"b":{"type":"string","format":"urn","x-urn-entity":"urn:li:tag"}},"additionalProperties":false`)}, true,
			[]string{`aspects/info.json: /properties/a: x-urn-entity needs format urn`, `/properties/b: x-urn-entity "urn:li:tag" is not an entity type`}, nil},
		{"bad type", map[string]string{"entities.yaml": okEntities, "aspects/thingKey.json": okKey,
			"aspects/info.json": info(`"properties":{"a":{"type":["string","null"]}},"additionalProperties":false`)}, true,
			[]string{`aspects/info.json: line 1: property "a": json: cannot unmarshal array`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeModel(t, c.files)
			m, err := Load(dir, Options{Strict: c.strict})
			if err != nil {
				t.Fatal(err)
			}
			check := func(kind string, got, want []string) {
				all := strings.Join(got, "\n")
				for _, w := range want {
					if !strings.Contains(all, w) {
						t.Errorf("%s lack %q; got:\n%s", kind, w, all)
					}
				}
				if len(want) == 0 && len(got) > 0 {
					t.Errorf("unexpected %s:\n%s", kind, all)
				}
			}
			check("errors", m.Errors, c.errs)
			check("warnings", m.Warnings, c.warns)
			if len(m.Errors) == 0 {
				// whatever loads without errors must generate
				if _, err := Generate(m, t.TempDir()); err != nil {
					t.Errorf("generate: %v", err)
				}
			} else if _, err := Generate(m, t.TempDir()); err == nil {
				t.Error("generate with errors succeeded")
			}
		})
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"fieldPath": "FieldPath", "data-platform_instance": "DataPlatformInstance", "9lives": "X9lives", "": "X", "$key": "Key"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"DATA_OWNER": "DataOwner", "PROD": "Prod", "textField": "TextField", "": "Empty", "a-b": "AB"} {
		if got := camelEnum(in); got != want {
			t.Errorf("camelEnum(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRealSchemasGenerate(t *testing.T) {
	if _, err := os.Stat("../../schemas/entities.yaml"); err != nil {
		t.Skip("no schemas/entities.yaml")
	}
	start := time.Now()
	m, err := Load("../../schemas", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range m.Warnings {
		t.Logf("warning: %s", w)
	}
	for _, e := range m.Errors {
		t.Errorf("error: %s", e)
	}
	if len(m.Errors) > 0 {
		return
	}
	out := t.TempDir()
	if _, err := Generate(m, out); err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("real schemas: %d entities, %d aspects, %d types generated in %v", len(m.Entities), len(m.Aspects), len(m.Types), d)
	// the committed gen/ must be what the generator produces now
	for rel, content := range readDir(t, out) {
		have, err := os.ReadFile(filepath.Join("../../gen", rel))
		if err != nil || !bytes.Equal(have, []byte(content)) {
			t.Logf("gen/%s is stale; run go generate ./schemas", rel)
		}
	}
}
