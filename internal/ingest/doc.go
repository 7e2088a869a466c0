// Package ingest is the single write path of catalogd. Every writer — the
// rest.li endpoints, GraphQL mutations, the CLI loader and the Go client —
// turns its input into catalog.Proposals and hands them to a Service, which
// applies a whole request in one store transaction: resolve entity and URN,
// check the aspect belongs to the entity, normalise and validate the value
// against the aspect's schema, write it (versioned or timeseries), write the
// key aspect and default aspects when an entity is first seen, and rewrite the
// aspect's graph edges. A request applies whole or not at all; a bad proposal
// fails the request with an Invalid error naming the proposal, the aspect and
// the reason.
//
// With WithPlanAhead (SQLite, whose write transactions run one at a time) a
// request is applied first against the state read outside any transaction,
// and its search documents start building while it waits for the writer;
// the transaction sends the planned writes only if it finds that state
// unchanged, and applies the request afresh otherwise.
//
// The package also decodes the wire forms real DataHub clients and files use:
// MetadataChangeProposals (aspect as a JSON string or as a JSON object) and
// legacy MetadataChangeEvent snapshots (with or without pegasus2avro names).
package ingest
