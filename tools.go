//go:build tools

// Package tools tracks build-time tool dependencies in go.mod.
package tools

import (
	_ "github.com/99designs/gqlgen"
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
)
