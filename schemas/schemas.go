// Package schemas holds the JSON Schemas of the metadata model (see README.md).
// Run `go generate ./...` to regenerate gen/models and gen/registry from them.
package schemas

//go:generate go run ../cmd/schemagen -schemas . -out ../gen -openapi ../openapi
