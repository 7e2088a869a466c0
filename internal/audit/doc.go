// Package audit keeps catalogd's audit log: one row per audit event in the
// audit_event table of the store's database, and the search behind
// POST /openapi/v1/events/audit/search.
//
// Events describing a change to metadata (an aspect written, an entity
// deleted, a user, token, policy or ingestion source created) are written by
// the ingest pipeline through Recorder.RecordChanges inside the write
// transaction, so an event exists exactly when its change was committed.
// Events that change nothing stored (logins, failed logins, index restores)
// are written in a transaction of their own with Recorder.Record.
//
// Which event type a change produces follows DataHub's mapping from a
// MetadataChangeLog to a usage event: the key aspect of a token, policy,
// ingestion source or user marks its creation (or, deleted, its revocation or
// deletion), the info aspects of policies and ingestion sources their update,
// the user aspects a user update, and every other aspect an UpdateAspectEvent.
//
// Who made the request and how (source address, user agent, trace id, the API
// used) travels in the request context: the HTTP layer attaches a Request with
// WithRequest, and every event recorded under that context carries it.
//
// Search is keyset pagination over the sort key (timestamp descending, then
// event type, actor and id ascending). A scroll id is the base64 of that key
// of the last hit, DataHub's shape, with an expiry and a MAC over the key and
// the filters, so that a forged, altered, reused-with-other-filters or stale
// scroll id is rejected rather than silently answered.
package audit
