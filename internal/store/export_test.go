package store

// TSVector exposes tsVector to the tests of package store_test.
var TSVector = tsVector

// OutboxMigrations exposes the search outbox's migrations, to test upgrades.
var OutboxMigrations = outboxMigrations
