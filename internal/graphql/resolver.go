// Package graphql serves catalogd's GraphQL API: the resolvers behind the
// executor gqlgen generates in gen/graphql from the DataHub-compatible schema
// in graphql/*.graphqls, and the HTTP transport DataHub's clients expect.
//
// Reads go through a per-request loader that fetches the latest aspects of
// many URNs in one store query: a resolver that returns a list of entities
// (the tags of a dataset, the hits of a search) primes the loader with all of
// their URNs before returning, so that the fields of every item are answered
// from memory rather than with a query per item.
//
// Every mutation builds catalog.Proposals and hands them to the ingest
// pipeline, the same single write path the REST API uses, so versions, edges,
// the search index and the audit trail follow as for any other write.
package graphql

import (
	"context"
	"net/http"
	"time"

	generated "github.com/catalogd/catalogd/gen/graphql"
	"github.com/catalogd/catalogd/internal/audit"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graph"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/ingestion"
	"github.com/catalogd/catalogd/internal/registry"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/timeline"
)

// Config holds what the GraphQL service needs. Search and Lineage may be nil,
// in which case the queries that need them fail with SERVER_ERROR.
type Config struct {
	Registry *registry.Registry
	Store    catalog.Store
	Ingest   *ingest.Service
	Search   *search.Service
	Lineage  *graph.Service
	// Auth checks privileges and manages tokens, policies and ingestion
	// sources; nil leaves those operations failing, grants every platform
	// privilege in me and leaves CorpUser.isNativeUser null.
	Auth *auth.Service
	// Timeline computes entity timelines from stored aspect versions; nil
	// leaves getTimeline, getSchemaBlame and getSchemaVersionList failing.
	Timeline *timeline.Service
	// Usage reads the usage events recorded (the web app's analytics and
	// the audit log) for the home page's recommendations; nil leaves out
	// the modules built from them.
	Usage UsageReader
	// Actor returns the URN of the caller of a request.
	Actor func(*http.Request) string
	// Ingestion manages secrets and ingestion runs; nil leaves those
	// operations failing.
	Ingestion *ingestion.Service
	// MaxBody bounds the request body in bytes (0: DefaultMaxBody).
	MaxBody int64
	// ObserveOperation, when set, is told of every operation answered:
	// its name as the request gave it ("" for none), its outcome
	// (OutcomeOK, OutcomeError, OutcomeRejected) and how long it took.
	ObserveOperation func(name, outcome string, d time.Duration)
}

// Resolver is the root resolver. It is safe for concurrent use: per-request
// state lives in the loader carried by the context.
type Resolver struct {
	reg      *registry.Registry
	store    catalog.Store
	ingest   *ingest.Service
	search   *search.Service
	lineage  *graph.Service
	auth     *auth.Service
	timeline *timeline.Service
	usageLog UsageReader

	ingestion *ingestion.Service
}

// UsageReader reads what users did, as audit.Recorder records it.
type UsageReader interface {
	RecentEntities(ctx context.Context, q audit.UsageQuery) ([]audit.UsageEntry, error)
	PopularEntities(ctx context.Context, q audit.UsageQuery) ([]audit.UsageEntry, error)
	RecentSearches(ctx context.Context, q audit.UsageQuery) ([]audit.UsageEntry, error)
}

func newResolver(c Config) *Resolver {
	return &Resolver{reg: c.Registry, store: c.Store, ingest: c.Ingest, search: c.Search, lineage: c.Lineage, auth: c.Auth, timeline: c.Timeline, usageLog: c.Usage, ingestion: c.Ingestion}
}

// nativeUsers returns the auth service's NativeUsers, nil without one.
func (r *Resolver) nativeUsers() func(context.Context, []string) (map[string]bool, error) {
	if r.auth == nil {
		return nil
	}
	return r.auth.NativeUsers
}

type actorKey struct{}

// WithActor returns ctx carrying the URN of the caller; mutations record it.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// actorOf returns the caller recorded by WithActor, else the system actor.
func actorOf(ctx context.Context) string {
	if a, ok := ctx.Value(actorKey{}).(string); ok && a != "" {
		return a
	}
	return catalog.SystemActor
}

// The root resolvers. Fields catalogd does not serve (marked @unsupported)
// come from the generated *Unsupported types; every other field of every
// other type is generated from the schema (see internal/graphqlgen), the
// computed ones calling the methods of computed.
type (
	queryResolver struct {
		*Resolver
		generated.QueryUnsupported
		generated.QueryLookups
	}
	mutationResolver struct {
		*Resolver
		generated.MutationUnsupported
	}
)

// Query implements generated.ResolverRoot.
func (r *Resolver) Query() generated.QueryResolver {
	return &queryResolver{Resolver: r, QueryLookups: generated.QueryLookups{Exists: r.storedAs}}
}

// Mutation implements generated.ResolverRoot.
func (r *Resolver) Mutation() generated.MutationResolver { return &mutationResolver{Resolver: r} }
