// Package meili is the Meilisearch search engine of catalogd: an
// implementation of catalog.SearchIndex over one Meilisearch index, used in
// the scale-out mode and fed from the transactional outbox. It speaks to
// Meilisearch through github.com/meilisearch/meilisearch-go (v0.36).
//
// # Documents
//
// Every entity is one Meilisearch document. Its primary key "id" is the hex
// SHA-256 of the URN, because Meilisearch ids allow only [a-zA-Z0-9_-] and
// 511 bytes while URNs contain ':', ',' and parentheses and can be long; the
// URN itself is kept in "_urn". "_type", "_typeX" and "_removed" hold the
// entity type and status.removed.
//
// A search field F becomes up to three attributes, named from F by an
// injective encoding to [A-Za-z0-9_] (a '.' would make Meilisearch read a
// nested path): "t_F" holds the values as they are — compared as numbers,
// tested by EXISTS, matched case-insensitively, and returned for matched
// fields and suggestions — "x_F", for string fields, holds them
// exact-encoded, and "w_F" holds their words (see Free text). Meilisearch's '='
// on strings is case-insensitive (and it trims and NFKD-normalizes facet
// values), so EQUAL could not be case-sensitive on the raw values; the exact
// encoding escapes upper-case letters, spaces and non-ASCII bytes as %xx, a
// form that normalization leaves unchanged, so EQUAL and IN on x_F are exact
// and facet counts on x_F decode to the original values. IEQUAL is plain '='
// on t_F. Values whose encoding would exceed 400 bytes are stored as a
// digest, because Meilisearch truncates facet values at 468 bytes: EQUAL
// stays exact for them but they do not appear in facet counts.
//
// # Free text
//
// Meilisearch's own tokenizer splits camelCase and snake_case differently
// across versions and builds, so the engine does not rely on it: for every
// queryByDefault or autocomplete field, "w_F" holds, per value, the words of
// the search package's analyzer (the one the in-store engines use) joined by
// spaces, and the query is split by the same analyzer. searchableAttributes
// lists the w_ attributes, queryByDefault fields first by descending boost,
// and free text searches those (attributesToSearchOn) with matchingStrategy
// "all": every query word must match. Matched fields are reported with the
// analyzer's own test on the original values.
//
// # Filters
//
// A catalog.Filter is translated to Meilisearch's filter syntax:
// (A AND B) OR (C), NOT (...), "= / IN [...]" on x_F for EQUAL and IN,
// on t_F for IEQUAL and for numbers and booleans, ">", ">=", "<", "<=" on
// t_F against Values[0] for ranges (a non-numeric bound is an Invalid
// error), "EXISTS" and "NOT EXISTS" for EXISTS and IS_NULL. Values are
// double-quoted with '\' and '"' escaped, as Meilisearch's filter parser
// (crates/filter-parser/src/value.rs) unescapes them; numbers are written
// without exponent. Search and Autocomplete exclude soft-deleted entities
// unless the filter names "removed"; Browse always does.
//
// CONTAIN, START_WITH and END_WITH (case-insensitive substring tests) have
// no counterpart in Meilisearch's stable filter syntax: CONTAINS and STARTS
// WITH are an experimental feature that must be switched on server-wide, and
// there is no ENDS WITH. For them the engine relaxes each such criterion to
// a necessary condition (the field exists; nothing when negated), fetches
// every candidate in ranking order, evaluates the whole filter in Go, and
// pages, counts and computes facets itself. The scan is bounded by
// maxTotalHits: when as many candidates pass the relaxed filter the query
// fails with an Invalid error asking to narrow it rather than answering
// wrongly.
//
// # Browse
//
// An entity is listed at each of its browse paths. Each document holds its
// paths exact-encoded in "_loc", all their strict ancestors (the root "/"
// included) in "_anc", and in "_bp<d>", for d = 1..maxDepth, their prefixes
// of d segments. Browse at a path P of depth d then needs only filters and
// one facet: the entities directly at P are _loc = P; the entities strictly
// below P, which BrowseResult.Total counts, are _anc = P; and the facet
// distribution of _bp<d+1> under _anc = P gives, for each child group of P,
// the number of entities at or below it — values that are not children of P,
// brought in by entities with several paths, are dropped. Both counts come
// from one multi-search in page mode (exact totals); the page of entities,
// sorted by URN, from a third query when the page reaches past the groups.
//
// # Consistency and errors
//
// Meilisearch applies writes asynchronously. Upsert and Delete return once
// their tasks are enqueued (or applied, with WithWait); Flush waits for every
// task this Engine enqueued and reports failed ones. Totals are exact (page
// mode) up to maxTotalHits. Connection failures, timeouts and 5xx answers are
// catalog.Unavailable, as is a rejected API key (a configuration problem of
// this server); a search Meilisearch rejects as malformed is Invalid; anything
// else is Internal.
//
// Limits: totals, scans and reachable results stop at maxTotalHits (10000 by
// default; Meilisearch warns that larger values slow queries down); a facet
// or a browse level shows at most maxValuesPerFacet values (1000); browse
// works to maxDepth levels (16). Like the in-store engines, Meilisearch
// matches the last query word as a prefix and the others as whole words.
// Ranking is Meilisearch's (words, typo — off by default, so matching
// equals the in-store engines' — proximity, attribute, exactness): a boost
// orders fields but does not weigh them, so scores and the order of
// equally good hits differ from the in-store engines'. Browse sorts entities
// by Meilisearch's string order of URNs, which ignores case. Fields the
// engine was not built with are not indexed (Meilisearch needs filterable
// attributes declared up front): a filter on one matches nothing.
package meili
