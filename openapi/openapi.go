// Package openapi holds the OpenAPI 3.0 description of catalogd's HTTP interface
// (DataHub GMS compatible): the hand-written openapi.yaml, and entities.gen.json,
// the OpenAPI v3 paths and schemas of every entity type and aspect, generated
// from schemas/ by `make generate`. Models and a typed client are generated from
// openapi.yaml into gen/api.
package openapi

import (
	"encoding/json"
	"fmt"
	"sync"

	_ "embed"

	"gopkg.in/yaml.v3"
)

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen -config oapi-codegen.yaml openapi.yaml

// Spec is the hand-written OpenAPI 3.0.3 document (YAML): every endpoint,
// the OpenAPI v3 entity endpoints for any entity type and aspect name.
//
//go:embed openapi.yaml
var Spec []byte

// Entities is the generated part (JSON): DataHub's per-entity-type OpenAPI v3
// paths and the component schemas of every aspect, to be merged into Spec.
//
//go:embed entities.gen.json
var Entities []byte

// Document returns the whole document as JSON: Spec with the paths, tags and
// components of Entities merged in. It is built once.
var Document = sync.OnceValues(func() ([]byte, error) { return Merge(Spec, Entities) })

// Merge merges the generated document gen (JSON) into the hand-written one
// (YAML) and returns the result as JSON. A path or component defined in both
// is an error.
func Merge(spec, gen []byte) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var add map[string]any
	if err := json.Unmarshal(gen, &add); err != nil {
		return nil, fmt.Errorf("entities.gen.json: %w", err)
	}
	if err := mergeMap(doc, add, "paths"); err != nil {
		return nil, err
	}
	comps, _ := doc["components"].(map[string]any)
	if comps == nil {
		comps = map[string]any{}
		doc["components"] = comps
	}
	addComps, _ := add["components"].(map[string]any)
	for kind := range addComps {
		if err := mergeMap(comps, addComps, kind); err != nil {
			return nil, fmt.Errorf("components: %w", err)
		}
	}
	if tags, ok := add["tags"].([]any); ok {
		existing, _ := doc["tags"].([]any)
		doc["tags"] = append(existing, tags...)
	}
	return json.Marshal(doc)
}

// mergeMap adds the members of add[key] to doc[key].
func mergeMap(doc, add map[string]any, key string) error {
	from, _ := add[key].(map[string]any)
	if len(from) == 0 {
		return nil
	}
	into, _ := doc[key].(map[string]any)
	if into == nil {
		into = map[string]any{}
		doc[key] = into
	}
	for k, v := range from {
		if _, dup := into[k]; dup {
			return fmt.Errorf("%s %q is both written by hand and generated", key, k)
		}
		into[k] = v
	}
	return nil
}
