// Package client is the Go client library of catalogd (and of DataHub's
// metadata service, whose interface catalogd speaks) for integrators.
//
// It has two layers. The low-level one is the typed client generated from
// openapi/openapi.yaml (package gen/api), reachable through Client.Raw for
// anything this package does not wrap. On top of it this package implements
// the writing conventions of DataHub's own SDKs.
//
// An Entity is built with a constructor such as NewDataset or NewTag, which
// sets the entity's system aspects (the ones ingestion owns: datasetProperties,
// chartInfo, tagProperties, ...). Incremental changes made by people — adding
// or removing a tag, an owner, a glossary term, a domain, a column tag or a
// column description — are recorded as JSON Patch operations against the
// editable variant of the aspect (globalTags, ownership, glossaryTerms, domains,
// editableSchemaMetadata, editableDatasetProperties, ...). Because the server
// applies a patch to the value current inside its write transaction, two
// people adding different tags at once both keep their tag, and because
// ingestion writes schemaMetadata while people write editableSchemaMetadata,
// re-ingesting a dataset never loses a column tag or description a person
// added.
//
// Client.Upsert writes an entity's full aspects and then its patches, in one
// atomic request. Client.Update writes only the patches and fails with
// ErrNotFound for an entity that does not exist, so a typo in a URN does not
// create a stray entity. Client.Get returns a ReadOnlyEntity: it has no
// methods that change it, and ReadOnlyEntity.Mutable must be called to get
// an Entity whose changes can be sent.
//
// An Emitter batches proposals into ingestProposalBatch requests (the write
// path `datahub ingest` uses) and, like every request of this package,
// retries on 429 and 5xx answers with exponential backoff until its context
// is cancelled.
package client
