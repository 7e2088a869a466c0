package audit

import (
	"context"
	"strings"
)

// The event types of the audit log (DataHub's DataHubUsageEventType names).
const (
	EntityEvent                = "EntityEvent"
	CreateUserEvent            = "CreateUserEvent"
	UpdateUserEvent            = "UpdateUserEvent"
	CreateAccessTokenEvent     = "CreateAccessTokenEvent"
	RevokeAccessTokenEvent     = "RevokeAccessTokenEvent"
	CreatePolicyEvent          = "CreatePolicyEvent"
	UpdatePolicyEvent          = "UpdatePolicyEvent"
	DeletePolicyEvent          = "DeletePolicyEvent"
	CreateIngestionSourceEvent = "CreateIngestionSourceEvent"
	UpdateIngestionSourceEvent = "UpdateIngestionSourceEvent"
	DeleteEntityEvent          = "DeleteEntityEvent"
	UpdateAspectEvent          = "UpdateAspectEvent"
	LogInEvent                 = "LogInEvent"
	FailedLogInEvent           = "FailedLogInEvent"
)

// EventTypes lists every event type, for validation and tests.
var EventTypes = []string{
	EntityEvent, CreateUserEvent, UpdateUserEvent, CreateAccessTokenEvent, RevokeAccessTokenEvent,
	CreatePolicyEvent, UpdatePolicyEvent, DeletePolicyEvent, CreateIngestionSourceEvent,
	UpdateIngestionSourceEvent, DeleteEntityEvent, UpdateAspectEvent, LogInEvent, FailedLogInEvent,
}

// The API through which an action came (DataHub's EventSource).
const (
	SourceRestli  = "RESTLI"
	SourceOpenAPI = "OPENAPI"
	SourceGraphQL = "GRAPHQL"
)

// The loginSource of a LogInEvent, DataHub's LoginSource names.
const (
	// LoginPassword is a native username and password login.
	LoginPassword = "PASSWORD_LOGIN"
	// LoginSignUp is the sign-in of a user who just signed up with an
	// invite link.
	LoginSignUp = "SIGN_UP_LINK_LOGIN"
	// LoginPasswordReset is the sign-in of a user who just set a new
	// password with a reset link.
	LoginPasswordReset = "PASSWORD_RESET"
	// LoginSSO is a single sign-on through OpenID Connect.
	LoginSSO = "SSO_LOGIN"
)

// Event is one audit event.
type Event struct {
	ID          string // unique; the last component of the sort key
	Type        string
	Timestamp   int64 // epoch ms
	Actor       string
	EntityURN   string
	EntityType  string
	Aspect      string
	LoginSource string
	// Query is the query of a search the web app reported (its
	// SearchResultsViewEvent), when it found something.
	Query string
	Request
}

// Request is what the HTTP layer knows about the request an event came from.
type Request struct {
	SourceIP  string
	UserAgent string
	TraceID   string
	Source    string // SourceRestli, SourceOpenAPI or SourceGraphQL
}

type requestKey struct{}

// WithRequest returns ctx carrying r; events recorded under it carry r.
func WithRequest(ctx context.Context, r *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// RequestFrom returns the request attached by WithRequest, or nil.
func RequestFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// userAspects are the aspects of a user whose change is an UpdateUserEvent.
var userAspects = map[string]bool{
	"corpUserCredentials": true, "corpUserEditableInfo": true, "corpUserInfo": true,
	"corpUserSettings": true, "corpUserStatus": true, "groupMembership": true,
	"roleMembership": true, "nativeGroupMembership": true,
}

// TypeOf maps one aspect change to its event type, as DataHub's
// mapAspectToUsageEvent does: deleted is true for a DELETE change.
func TypeOf(aspect string, deleted bool) string {
	if deleted {
		switch aspect {
		case "dataHubAccessTokenKey":
			return RevokeAccessTokenEvent
		case "dataHubPolicyKey":
			return DeletePolicyEvent
		}
		return DeleteEntityEvent
	}
	switch aspect {
	case "dataHubAccessTokenKey":
		return CreateAccessTokenEvent
	case "dataHubIngestionSourceKey":
		return CreateIngestionSourceEvent
	case "dataHubIngestionSourceInfo":
		return UpdateIngestionSourceEvent
	case "dataHubPolicyKey":
		return CreatePolicyEvent
	case "dataHubPolicyInfo":
		return UpdatePolicyEvent
	case "corpUserKey":
		return CreateUserEvent
	}
	if userAspects[aspect] {
		return UpdateUserEvent
	}
	return UpdateAspectEvent
}

// SourceOf names the API a request path belongs to.
func SourceOf(path string) string {
	switch {
	case strings.HasPrefix(path, "/api/graphql"), strings.HasPrefix(path, "/api/v2/graphql"):
		return SourceGraphQL
	case strings.HasPrefix(path, "/openapi/"):
		return SourceOpenAPI
	}
	return SourceRestli
}

// raw is the stored document of an event as DataHub keeps it in its usage
// index: what rawUsageEvent shows.
func (e *Event) raw() map[string]any {
	m := map[string]any{
		"type": e.Type, "timestamp": e.Timestamp, "actorUrn": e.Actor, "usageSource": "backend",
	}
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set("entityUrn", e.EntityURN)
	set("entityType", e.EntityType)
	set("aspectName", e.Aspect)
	set("loginSource", e.LoginSource)
	set("sourceIP", e.SourceIP)
	set("eventSource", e.Source)
	set("userAgent", e.UserAgent)
	set("traceId", e.TraceID)
	set("query", e.Query)
	return m
}
