// Package schemagen reads the schema-first metadata model under schemas/
// (entities.yaml, aspects/*.json, types/*.json), checks it and emits the typed
// Go models (gen/models) and the registry tables (gen/registry).
//
// The format contract is schemas/README.md.
package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Schema is one JSON Schema node in the subset described by schemas/README.md.
type Schema struct {
	Ref                  string          `json:"$ref"`
	Type                 string          `json:"type"`
	Title                string          `json:"title"`
	Description          string          `json:"description"`
	Properties           Props           `json:"properties"`
	Required             []string        `json:"required"`
	AdditionalProperties json.RawMessage `json:"additionalProperties"`
	Items                *Schema         `json:"items"`
	Enum                 []any           `json:"enum"`
	Format               string          `json:"format"`
	Deprecated           bool            `json:"deprecated"`
	Default              json.RawMessage `json:"default"`
	XAspect              *XAspect        `json:"x-aspect"`
	XWireName            string          `json:"x-wire-name"`
	XUnion               bool            `json:"x-union"`
	XURNEntity           string          `json:"x-urn-entity"`
	XSearchable          json.RawMessage `json:"x-searchable"`
	XRelationship        json.RawMessage `json:"x-relationship"`

	// derived by parse
	addl      *Schema // map value schema when additionalProperties is a schema
	addlFalse bool    // additionalProperties: false
}

// XAspect is the x-aspect annotation of an aspect root.
type XAspect struct {
	Name       string `json:"name"`
	Timeseries bool   `json:"timeseries"`
}

// Props is an ordered "properties" object.
type Props struct {
	Names []string
	M     map[string]*Schema
}

// UnmarshalJSON keeps the properties in file order.
func (p *Props) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("properties must be an object")
	}
	p.M = map[string]*Schema{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name := t.(string)
		var s Schema
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("property %q: %w", name, err)
		}
		if _, dup := p.M[name]; dup {
			return fmt.Errorf("duplicate property %q", name)
		}
		p.Names = append(p.Names, name)
		p.M[name] = &s
	}
	_, err = dec.Token()
	return err
}

// prepare derives addl/addlFalse on s and its children.
func (s *Schema) prepare() error {
	if len(s.AdditionalProperties) > 0 {
		raw := bytes.TrimSpace(s.AdditionalProperties)
		switch string(raw) {
		case "false":
			s.addlFalse = true
		case "true":
		default:
			var a Schema
			if err := json.Unmarshal(raw, &a); err != nil {
				return fmt.Errorf("additionalProperties: %w", err)
			}
			s.addl = &a
		}
	}
	for _, n := range s.Properties.Names {
		if err := s.Properties.M[n].prepare(); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	if s.Items != nil {
		if err := s.Items.prepare(); err != nil {
			return fmt.Errorf("items: %w", err)
		}
	}
	if s.addl != nil {
		if err := s.addl.prepare(); err != nil {
			return fmt.Errorf("additionalProperties: %w", err)
		}
	}
	return nil
}

// isMap reports whether s is a Pegasus map (string keys, value schema).
func (s *Schema) isMap() bool {
	return s.Ref == "" && s.Type == "object" && !s.XUnion && len(s.Properties.Names) == 0 && s.addl != nil
}

// known JSON Schema keywords of the subset (anything else is reported).
var knownKeywords = map[string]bool{
	"$schema": true, "$id": true, "$ref": true, "$comment": true, "type": true, "title": true, "description": true,
	"properties": true, "required": true, "additionalProperties": true, "items": true, "enum": true,
	"format": true, "default": true, "deprecated": true, "examples": true,
	"minProperties": true, "maxProperties": true,
	"x-aspect": true, "x-wire-name": true, "x-union": true, "x-searchable": true, "x-relationship": true,
	"x-urn-entity": true,
}

// searchableJSON is one x-searchable entry as written in a schema file.
type searchableJSON struct {
	Path                         string   `json:"path"`
	FieldName                    string   `json:"fieldName"`
	FieldType                    string   `json:"fieldType"`
	QueryByDefault               bool     `json:"queryByDefault"`
	EnableAutocomplete           bool     `json:"enableAutocomplete"`
	AddToFilters                 bool     `json:"addToFilters"`
	AddHasValuesToFilters        bool     `json:"addHasValuesToFilters"`
	IncludeSystemModifiedAt      bool     `json:"includeSystemModifiedAt"`
	IncludeQueryEmptyAggregation bool     `json:"includeQueryEmptyAggregation"`
	BoostScore                   *float64 `json:"boostScore"`
	FilterNameOverride           string   `json:"filterNameOverride"`
	HasValuesFieldName           string   `json:"hasValuesFieldName"`
	NumValuesFieldName           string   `json:"numValuesFieldName"`
	SystemModifiedAtFieldName    string   `json:"systemModifiedAtFieldName"`
	FieldNameAliases             []string `json:"fieldNameAliases"`
	KeyPath                      string   `json:"keyPath"`
	ValuePath                    string   `json:"valuePath"`
}

// relationshipJSON is one x-relationship entry as written in a schema file.
type relationshipJSON struct {
	Path         string   `json:"path"`
	Name         string   `json:"name"`
	EntityTypes  []string `json:"entityTypes"`
	IsLineage    bool     `json:"isLineage"`
	IsUpstream   *bool    `json:"isUpstream"`
	CreatedOn    string   `json:"createdOn"`
	CreatedActor string   `json:"createdActor"`
	UpdatedOn    string   `json:"updatedOn"`
	UpdatedActor string   `json:"updatedActor"`
	Properties   string   `json:"properties"`
	Via          string   `json:"via"`
}

// entitiesYAML is schemas/entities.yaml.
type entitiesYAML struct {
	Entities []entityYAML `yaml:"entities"`
}

type entityYAML struct {
	Name            string   `yaml:"name"`
	Doc             string   `yaml:"doc"`
	Category        string   `yaml:"category"`
	KeyAspect       string   `yaml:"keyAspect"`
	KeyFields       []string `yaml:"keyFields"`
	PlatformField   string   `yaml:"platformField"`
	Snapshot        string   `yaml:"snapshot"`
	SnapshotAspects []string `yaml:"snapshotAspects"`
	Aspects         []string `yaml:"aspects"`
}
