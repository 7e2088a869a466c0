// Package model holds the Go types the GraphQL executor binds to. Entity
// types carry only their URN: every other field is resolved, per request and
// in batches, by the resolvers in internal/graphql, so that a query reads only
// the aspects it asks for. models_gen.go is written by gqlgen.
package model

// Entity is any GraphQL type implementing the Entity interface.
type Entity interface {
	// EntityURN returns the URN of the entity.
	EntityURN() string
}

// EntityWithRelationships is an Entity that takes part in lineage.
type EntityWithRelationships interface {
	Entity
	isEntityWithRelationships()
}

// OwnerType is the union of the types an owner can be (CorpUser, CorpGroup).
type OwnerType interface {
	Entity
	isOwnerType()
}

// Dataset is a dataset entity.
type Dataset struct{ Urn string }

// Chart is a chart entity.
type Chart struct{ Urn string }

// Dashboard is a dashboard entity.
type Dashboard struct{ Urn string }

// DataFlow is a data flow (pipeline) entity.
type DataFlow struct{ Urn string }

// DataJob is a data job (task) entity.
type DataJob struct{ Urn string }

// MLModel is a machine-learning model entity.
type MLModel struct{ Urn string }

// Container is a container (database, schema, folder...) entity.
type Container struct{ Urn string }

// Domain is a domain entity.
type Domain struct{ Urn string }

// Tag is a tag entity.
type Tag struct{ Urn string }

// GlossaryTerm is a glossary term entity.
type GlossaryTerm struct{ Urn string }

// GlossaryNode is a glossary node (term group) entity.
type GlossaryNode struct{ Urn string }

// DataPlatform is a data platform entity.
type DataPlatform struct{ Urn string }

// CorpUser is a user entity.
type CorpUser struct{ Urn string }

// CorpGroup is a group entity.
type CorpGroup struct{ Urn string }

// EntityURN implements Entity.
func (e *Dataset) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *Chart) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *Dashboard) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *DataFlow) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *DataJob) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *MLModel) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *Container) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *Domain) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *Tag) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *GlossaryTerm) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *GlossaryNode) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *DataPlatform) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *CorpUser) EntityURN() string { return e.Urn }

// EntityURN implements Entity.
func (e *CorpGroup) EntityURN() string { return e.Urn }

func (*Dataset) isEntityWithRelationships()   {}
func (*Chart) isEntityWithRelationships()     {}
func (*Dashboard) isEntityWithRelationships() {}
func (*DataFlow) isEntityWithRelationships()  {}
func (*DataJob) isEntityWithRelationships()   {}
func (*MLModel) isEntityWithRelationships()   {}

func (*CorpUser) isOwnerType()  {}
func (*CorpGroup) isOwnerType() {}
