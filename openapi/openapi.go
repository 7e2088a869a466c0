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
// is an error. The generated members are copied as they are, not decoded:
// the document is megabytes of small objects.
func Merge(spec, gen []byte) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var add struct {
		Tags       []json.RawMessage                     `json:"tags"`
		Paths      map[string]json.RawMessage            `json:"paths"`
		Components map[string]map[string]json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(gen, &add); err != nil {
		return nil, fmt.Errorf("entities.gen.json: %w", err)
	}
	if err := mergeInto(doc, "paths", add.Paths); err != nil {
		return nil, err
	}
	comps, _ := doc["components"].(map[string]any)
	if comps == nil {
		comps = map[string]any{}
		doc["components"] = comps
	}
	for kind, members := range add.Components {
		if err := mergeInto(comps, kind, members); err != nil {
			return nil, fmt.Errorf("components: %w", err)
		}
	}
	tags, _ := doc["tags"].([]any)
	for _, t := range add.Tags {
		tags = append(tags, t)
	}
	doc["tags"] = tags
	return json.Marshal(doc)
}

// mergeInto adds members to the object doc[key].
func mergeInto(doc map[string]any, key string, members map[string]json.RawMessage) error {
	if len(members) == 0 {
		return nil
	}
	into, _ := doc[key].(map[string]any)
	if into == nil {
		into = map[string]any{}
		doc[key] = into
	}
	for k, v := range members {
		if _, dup := into[k]; dup {
			return fmt.Errorf("%s %q is both written by hand and generated", key, k)
		}
		into[k] = v
	}
	return nil
}
