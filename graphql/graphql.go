// Package graphql holds catalogd's GraphQL schema (*.graphqls), with
// DataHub's type and field names, and the directive that generates the
// executor in gen/graphql and the generated fields of
// internal/graphql/model from it (see internal/graphqlgen). The hand-written
// resolvers live in internal/graphql.
package graphql

//go:generate go run ../cmd/graphqlgen --config gqlgen.yml
