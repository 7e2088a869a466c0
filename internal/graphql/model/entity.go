// Package model holds the Go types the GraphQL executor binds to. Entity
// types carry only their URN, and the types that show aspects only the
// stored JSON value: their fields are methods generated from the schema's
// annotations (fields_gen.go, see internal/graphqlgen) that read aspects per
// request, in batches, through the request's Source, so that a query reads
// only the aspects it asks for. models_gen.go is written by gqlgen.
package model

// Entity is any GraphQL type implementing the Entity interface.
type Entity interface {
	IsEntity()
	// EntityURN returns the URN of the entity.
	EntityURN() string
}

// EntityWithRelationships is an entity type that takes part in lineage.
type EntityWithRelationships interface {
	Entity
	IsEntityWithRelationships()
}
