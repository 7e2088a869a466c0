// Package search turns stored aspects into search documents and answers the
// search, browse and autocomplete requests of the HTTP layer over any engine
// that implements catalog.SearchIndex.
//
// A document is one flat map per entity, built from the x-searchable
// annotations of the entity's latest aspects and of the latest value of each
// of its timeseries aspects: nothing per aspect is written by hand. Text is
// split by one analyzer, written in Go and shared by every engine, so that
// "SampleHiveDataset", "fct_users_created" and field paths such as
// "[version=2.0].[type=boolean].field_foo_2" are found by their words
// whichever engine holds them.
//
// Keeping the index in step with the store is the Indexer's job. The ingest
// pipeline calls it inside every write transaction. For an engine that lives
// in the store's own database (StoreIndexer) the documents are rewritten in
// that transaction, so a search right after a write finds it and the index
// cannot drift. For an external engine (OutboxIndexer) the transaction only
// appends the URNs to an outbox table; a Drainer feeds the engine from it
// after commit, in batches, retrying with backoff, so that after a crash or
// an engine outage the index catches up by itself.
//
// Restore rebuilds documents and graph edges from the stored aspects, for
// DataHub's restoreIndices operation and for a full rebuild.
package search
