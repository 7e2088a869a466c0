// Package graphql holds catalogd's GraphQL schema (*.graphqls), a
// DataHub-compatible subset, and the directive that generates the executor in
// gen/graphql from it. The resolvers live in internal/graphql.
package graphql

//go:generate go run github.com/99designs/gqlgen generate --config gqlgen.yml
