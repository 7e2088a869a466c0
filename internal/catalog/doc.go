// Package catalog is the domain of catalogd, a metadata catalog that speaks
// DataHub's metadata-service interface. It depends on the standard library
// only; every technology (SQLite, PostgreSQL, Meilisearch, HTTP, GraphQL)
// lives in a package of its own around it.
//
// The model: an entity (a dataset, chart, user, tag, ...) is identified by a
// URN, urn:li:<entityType>:<key>, whose key is one value or a parenthesised
// tuple of values in the order of the entity's key fields. An entity is made
// of named aspects — ownership, schemaMetadata, status — each a JSON object
// following the aspect's schema. The key aspect holds the URN's key fields.
// A URN is text that must print as what it is: ParseURN refuses control and
// bidirectional formatting characters, invalid UTF-8 and what decoders leave
// of it, and URNs over DataHub's length limit, wherever a URN comes in.
// Which aspects an entity may carry, their schemas, the search fields and the
// relationships they contribute all come from the schemas/ directory through
// the generated registry; EntitySpec and AspectSpec are its shape.
//
// Aspects are versioned: version 0 is always the latest value, and each
// change keeps the value it replaces as version N+1, so versions 1..N are the
// history oldest first. Writing a value equal to the stored one creates no
// version. Timeseries aspects (profiles, usage statistics) are different: they
// are time-stamped values, many per entity, never versioned.
//
// Every change is a Proposal: upsert, create or delete one aspect of one
// entity. Proposals are applied by the ingest package through the Store port,
// one transaction per request. Edges — the relationships named by the aspects'
// URN-valued fields, such as OwnedBy or DownstreamOf — are derived from the
// aspects in the same transaction.
//
// Errors are *Error values carrying a Kind; each protocol adapter maps Kinds
// to its status codes in exactly one place, and users see Error messages, never
// internal causes.
package catalog
