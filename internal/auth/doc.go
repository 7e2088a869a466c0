// Package auth decides who a caller is and what they may do: credentials,
// native users and their passwords, access tokens, policies and privileges.
//
// Authentication accepts two credentials, as DataHub's metadata service does:
// a bearer access token (a JWT signed with HS256 carrying DataHub's claims
// actorType, actorId, type, version, exp and jti), and the system client's
// "Basic <id>:<secret>" header, sent in plain text rather than base64 because
// that is what DataHub's clients send. Session tokens (issued by POST /logIn)
// are stateless and live until they expire. Personal tokens are also stored,
// as dataHubAccessToken entities keyed by a salted SHA-256 of the token, so
// that deleting the entity revokes them. A token's signature is checked once
// and its claims cached; what can end it early is read from the store on
// every request, in one query over the primary key: a stored token's entity,
// and whether its user exists and is neither suspended (corpUserStatus
// SUSPENDED) nor soft-deleted (status removed), DataHub's test of an active
// actor. So a revocation, suspension or deletion committed by any replica
// holds for the next request on every replica.
//
// Secrets the service needs and nobody configured (the token signing key,
// the token salt, the system client secret, the root password) are generated
// at first start, never taken from a well-known default. The database keeps
// none that would let a copy of it act as anyone: the root password and the
// system client secret only as hashes (the caller keeps the generated secret
// for the operator), and the signing key, on the embedded store, in a file
// of its own beside the database (Config.KeyFile). Replicas sharing a
// PostgreSQL database can only share a generated key through it, so there
// it is kept in the database unless the operator configures one.
//
// Users log in with a password checked against the corpUserCredentials
// aspect, which holds an argon2id hash with its own salt. Consecutive failed
// logins for one user from one client (the device cookie of an earlier
// login, else the network address) open a growing window during which that
// client's further attempts are refused unchecked; login.go says why it is
// keyed so.
//
// Authorization follows DataHub's policy model: dataHubPolicy entities grant
// privileges to users, groups, roles (a user's own or their groups'), all
// users or a resource's owners (of given ownership types, when named), over
// all resources or those a filter selects. A filter's criteria all hold
// (EQUALS, STARTS_WITH or NOT_EQUALS any of their values) on the resource's
// type, URN, owners, tags, platform instance, a user's groups, domains and
// containers, the last two with the domains and containers above them, read
// from the resource's aspects only when a policy that would grant needs
// them; a criterion on any other field selects nothing. The defaults are
// DataHub's own (default_policies.json): the root user may do everything,
// every user may view and search, owners may edit what they own. Policies
// and each actor's groups and roles are cached for a few seconds; changes
// made through this process's policy API take effect at once.
//
// Writes are checked where every writer passes: the ingest pipeline asks the
// Service (as its ingest.Authorizer) before a transaction starts. Reads,
// searches and the administrative endpoints are checked by the HTTP
// middleware from the route. A small explicit list of secret aspects
// (SecretAspects) is never served by any read path: FilterReader hides them
// from every reader handed to the protocol adapters.
package auth
