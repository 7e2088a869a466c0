// Package openapi holds the OpenAPI 3.0 description of catalogd's HTTP interface
// (DataHub GMS compatible). The document is embedded as Spec; models and a typed
// client are generated from it into gen/api.
package openapi

import _ "embed"

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen -config oapi-codegen.yaml openapi.yaml

// Spec is the OpenAPI 3.0.3 document (YAML) describing every HTTP endpoint.
//
//go:embed openapi.yaml
var Spec []byte
