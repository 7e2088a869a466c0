package main

import (
	"encoding/json"
	"net/url"
	"testing"
)

// gqlResult is a GraphQL answer as the auth tests read it.
type gqlResult struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func (s *authServer) gql(t testing.TB, token, query string, vars map[string]any) gqlResult {
	t.Helper()
	st, b := s.call(t, bearer(token), "POST", "/api/graphql", map[string]any{"query": query, "variables": vars})
	if st != 200 {
		t.Fatalf("graphql: %d %s", st, b)
	}
	var r gqlResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return r
}

// mustGQL fails on GraphQL errors and decodes data.<field> into v.
func (s *authServer) mustGQL(t testing.TB, token, query string, vars map[string]any, field string, v any) {
	t.Helper()
	r := s.gql(t, token, query, vars)
	if len(r.Errors) > 0 {
		t.Fatalf("%s: %+v", query, r.Errors)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data[field], v); err != nil {
			t.Fatalf("decode %s: %v", r.Data[field], err)
		}
	}
}

// denied checks an UNAUTHORIZED error with the field null.
func (s *authServer) denied(t testing.TB, token, query string, vars map[string]any, field string) {
	t.Helper()
	r := s.gql(t, token, query, vars)
	if len(r.Errors) == 0 || r.Errors[0].Extensions["type"] != "UNAUTHORIZED" || r.Errors[0].Extensions["code"] != float64(403) {
		t.Fatalf("%s: want UNAUTHORIZED, got %+v", query, r.Errors)
	}
	if d, ok := r.Data[field]; ok && string(d) != "null" {
		t.Fatalf("%s: field %s = %s, want null", query, field, d)
	}
}

// TestAuthGraphQL covers tokens, policies, ingestion sources and
// me.platformPrivileges through GraphQL, with their audit events.
func TestAuthGraphQL(t *testing.T) {
	s := startAuthServer(t)
	reader, _ := s.cliToken(t, "reader")
	const create = `mutation($in: CreateAccessTokenInput!) { createAccessToken(input: $in) { accessToken metadata { id urn actorUrn ownerUrn name expiresAt } } }`

	// me.platformPrivileges reflects the policies.
	type privs struct {
		PlatformPrivileges map[string]bool `json:"platformPrivileges"`
	}
	var me privs
	s.mustGQL(t, s.admin, `{ me { platformPrivileges { managePolicies generatePersonalAccessTokens manageIngestion } } }`, nil, "me", &me)
	if !me.PlatformPrivileges["managePolicies"] || !me.PlatformPrivileges["manageIngestion"] {
		t.Errorf("admin privileges %v", me.PlatformPrivileges)
	}
	s.mustGQL(t, reader, `{ me { platformPrivileges { managePolicies generatePersonalAccessTokens manageIngestion } } }`, nil, "me", &me)
	if me.PlatformPrivileges["managePolicies"] || me.PlatformPrivileges["manageIngestion"] || !me.PlatformPrivileges["generatePersonalAccessTokens"] {
		t.Errorf("reader privileges %v", me.PlatformPrivileges)
	}

	// Tokens: a reader may create their own, not someone else's.
	var tok struct {
		AccessToken string `json:"accessToken"`
		Metadata    struct {
			ID, URN, ActorUrn, OwnerUrn, Name string
		} `json:"metadata"`
	}
	s.mustGQL(t, reader, create, map[string]any{"in": map[string]any{"type": "PERSONAL", "actorUrn": "urn:li:corpuser:reader",
		"duration": "ONE_DAY", "name": "mine"}}, "createAccessToken", &tok)
	if tok.AccessToken == "" || tok.Metadata.ActorUrn != "urn:li:corpuser:reader" || tok.Metadata.OwnerUrn != "urn:li:corpuser:reader" {
		t.Fatalf("token %+v", tok)
	}
	s.denied(t, reader, create, map[string]any{"in": map[string]any{"type": "PERSONAL", "actorUrn": "urn:li:corpuser:datahub",
		"duration": "ONE_DAY", "name": "theirs"}}, "createAccessToken")
	var list struct {
		Total  int `json:"total"`
		Tokens []struct {
			ID string `json:"id"`
		} `json:"tokens"`
	}
	s.mustGQL(t, reader, `{ listAccessTokens(input: {start: 0, count: 10}) { total tokens { id } } }`, nil, "listAccessTokens", &list)
	if list.Total != 2 { // the CLI's and this one
		t.Errorf("reader sees %d tokens", list.Total)
	}
	if st, b := s.call(t, bearer(tok.AccessToken), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:reader"), nil); st != 200 {
		t.Fatalf("new token: %d %s", st, b)
	}
	s.mustGQL(t, reader, `mutation($id: String!) { revokeAccessToken(tokenId: $id) }`, map[string]any{"id": tok.Metadata.ID}, "revokeAccessToken", nil)
	if st, _ := s.call(t, bearer(tok.AccessToken), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:reader"), nil); st != 401 {
		t.Fatalf("revoked token answered %d", st)
	}
	var got struct {
		AccessToken string `json:"accessToken"`
	}
	s.mustGQL(t, s.admin, `{ getAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: ONE_HOUR}) { accessToken } }`, nil, "getAccessToken", &got)
	if st, _ := s.call(t, bearer(got.AccessToken), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:reader"), nil); st != 200 {
		t.Fatalf("getAccessToken token answered %d", st)
	}

	// Policies: only an admin manages them; a new one takes effect at once.
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,gql.policy,PROD)"
	write := map[string]any{"proposal": mcp("dataset", ds, "status", map[string]any{"removed": false})}
	if st, b := s.call(t, bearer(reader), "POST", "/aspects?action=ingestProposal", write); st != 403 {
		t.Fatalf("reader write before policy: %d %s", st, b)
	}
	policy := map[string]any{"type": "METADATA", "name": "Readers edit datasets", "state": "ACTIVE", "description": "test",
		"privileges": []string{"EDIT_ENTITY"}, "resources": map[string]any{"filter": map[string]any{"criteria": []any{
			map[string]any{"field": "TYPE", "values": []string{"dataset"}, "condition": "EQUALS"}}}},
		"actors": map[string]any{"users": []string{"urn:li:corpuser:reader"}, "resourceOwners": false, "allUsers": false, "allGroups": false}}
	const createPolicy = `mutation($in: PolicyUpdateInput!) { createPolicy(input: $in) }`
	s.denied(t, reader, createPolicy, map[string]any{"in": policy}, "createPolicy")
	var purn string
	s.mustGQL(t, s.admin, createPolicy, map[string]any{"in": policy}, "createPolicy", &purn)
	if st, b := s.call(t, bearer(reader), "POST", "/aspects?action=ingestProposal", write); st != 200 {
		t.Fatalf("reader write with policy: %d %s", st, b)
	}
	// Not beyond its resources.
	if st, _ := s.call(t, bearer(reader), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("chart",
		"urn:li:chart:(looker,c1)", "status", map[string]any{"removed": false})}); st != 403 {
		t.Fatalf("reader chart write: %d", st)
	}
	policy["name"] = "Renamed"
	s.mustGQL(t, s.admin, `mutation($u: String!, $in: PolicyUpdateInput!) { updatePolicy(urn: $u, input: $in) }`, map[string]any{"u": purn, "in": policy}, "updatePolicy", nil)
	var pl struct {
		Total    int `json:"total"`
		Policies []struct {
			Urn, Name, State string
			Privileges       []string
			Resources        struct {
				Filter struct {
					Criteria []struct {
						Field  string
						Values []struct{ Value string }
					}
				}
			}
		} `json:"policies"`
	}
	s.mustGQL(t, s.admin, `{ listPolicies(input: {start: 0, count: 100, query: "renamed"}) { total policies { urn name state privileges resources { filter { criteria { field values { value } } } } } } }`, nil, "listPolicies", &pl)
	if pl.Total != 1 || pl.Policies[0].Urn != purn || pl.Policies[0].Name != "Renamed" || pl.Policies[0].Resources.Filter.Criteria[0].Values[0].Value != "dataset" {
		t.Fatalf("listPolicies %+v", pl)
	}
	s.denied(t, reader, `{ listPolicies(input: {start: 0, count: 10}) { total } }`, nil, "listPolicies")
	s.mustGQL(t, s.admin, `mutation($u: String!) { deletePolicy(urn: $u) }`, map[string]any{"u": purn}, "deletePolicy", nil)
	if st, _ := s.call(t, bearer(reader), "POST", "/aspects?action=ingestProposal", write); st != 403 {
		t.Fatalf("reader write after policy deleted: %d", st)
	}

	// Ingestion sources.
	src := map[string]any{"name": "mysql prod", "type": "mysql", "schedule": map[string]any{"interval": "0 * * * *", "timezone": "UTC"},
		"config": map[string]any{"recipe": `{"source":{"type":"mysql"}}`, "executorId": "default"}}
	const createSource = `mutation($in: UpdateIngestionSourceInput!) { createIngestionSource(input: $in) }`
	s.denied(t, reader, createSource, map[string]any{"in": src}, "createIngestionSource")
	var surn string
	s.mustGQL(t, s.admin, createSource, map[string]any{"in": src}, "createIngestionSource", &surn)
	src["name"] = "mysql production"
	s.mustGQL(t, s.admin, `mutation($u: String!, $in: UpdateIngestionSourceInput!) { updateIngestionSource(urn: $u, input: $in) }`,
		map[string]any{"u": surn, "in": src}, "updateIngestionSource", nil)
	var sl struct {
		Total            int `json:"total"`
		IngestionSources []struct {
			Urn, Name string
			Schedule  struct{ Interval string }
			Config    struct {
				ExecutorID string `json:"executorId"`
			}
		} `json:"ingestionSources"`
	}
	s.mustGQL(t, s.admin, `{ listIngestionSources(input: {start: 0, count: 10}) { total ingestionSources { urn name schedule { interval } config { executorId } } } }`, nil, "listIngestionSources", &sl)
	if sl.Total != 1 || sl.IngestionSources[0].Name != "mysql production" || sl.IngestionSources[0].Config.ExecutorID != "default" {
		t.Fatalf("listIngestionSources %+v", sl)
	}
	r := s.gql(t, s.admin, `mutation { updateIngestionSource(urn: "urn:li:dataHubIngestionSource:nope", input: {name: "x", type: "y", config: {recipe: "{}", executorId: "e"}}) }`, nil)
	if len(r.Errors) == 0 || r.Errors[0].Extensions["type"] != "NOT_FOUND" {
		t.Fatalf("update of a missing source: %+v", r.Errors)
	}

	// Every one of these came through GraphQL and is in the audit log so.
	for typ, urn := range map[string]string{
		"CreateAccessTokenEvent": "urn:li:dataHubAccessToken:" + tok.Metadata.ID, "RevokeAccessTokenEvent": "urn:li:dataHubAccessToken:" + tok.Metadata.ID,
		"CreatePolicyEvent": purn, "UpdatePolicyEvent": purn, "DeletePolicyEvent": purn,
		"CreateIngestionSourceEvent": surn, "UpdateIngestionSourceEvent": surn,
	} {
		p := s.auditSearch(t, url.Values{"size": {"100"}}, map[string]any{"eventTypes": []string{typ}})
		found := false
		for _, e := range p.UsageEvents {
			if e.EntityURN == urn && e.EventSource == "GRAPHQL" {
				found = true
			}
		}
		if !found {
			t.Errorf("no GRAPHQL %s for %s in %+v", typ, urn, p.UsageEvents)
		}
	}
}

// TestAuthGraphQLTokensForOthers checks DataHub's rules on tokens for
// another user: getAccessToken mints a token for its caller only, even an
// administrator, while createAccessToken lets a holder of Manage Access
// Tokens create a stored token for anyone.
func TestAuthGraphQLTokensForOthers(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			const get = `query($in: GetAccessTokenInput!) { getAccessToken(input: $in) { accessToken } }`
			forUser := func(urn string) map[string]any {
				return map[string]any{"in": map[string]any{"type": "PERSONAL", "actorUrn": urn, "duration": "ONE_HOUR"}}
			}
			for _, c := range []struct{ name, token, actor string }{
				{"an administrator for a user", s.admin, "urn:li:corpuser:reader"},
				{"an administrator for a user who does not exist", s.admin, "urn:li:corpuser:jsmith"},
				{"a user for an administrator", reader, "urn:li:corpuser:datahub"},
			} {
				r := s.gql(t, c.token, get, forUser(c.actor))
				if len(r.Errors) != 1 || r.Errors[0].Message != "Unauthorized to perform this action. Please contact your DataHub administrator." ||
					r.Errors[0].Extensions["code"] != float64(403) || r.Errors[0].Extensions["type"] != "UNAUTHORIZED" {
					t.Errorf("%s: errors %+v, want DataHub's UNAUTHORIZED", c.name, r.Errors)
				}
				if d := string(r.Data["getAccessToken"]); d != "null" {
					t.Errorf("%s: getAccessToken = %s, want null", c.name, d)
				}
			}
			var got struct {
				AccessToken string `json:"accessToken"`
			}
			s.mustGQL(t, reader, get, forUser("urn:li:corpuser:reader"), "getAccessToken", &got)
			var me struct {
				CorpUser struct{ Urn string } `json:"corpUser"`
			}
			s.mustGQL(t, got.AccessToken, `{ me { corpUser { urn } } }`, nil, "me", &me)
			if me.CorpUser.Urn != "urn:li:corpuser:reader" {
				t.Errorf("the reader's own token is for %q", me.CorpUser.Urn)
			}

			var created struct {
				AccessToken string `json:"accessToken"`
				Metadata    struct{ ActorUrn, OwnerUrn string }
			}
			s.mustGQL(t, s.admin, `mutation($in: CreateAccessTokenInput!) { createAccessToken(input: $in) { accessToken metadata { actorUrn ownerUrn } } }`,
				map[string]any{"in": map[string]any{"type": "PERSONAL", "actorUrn": "urn:li:corpuser:reader", "duration": "ONE_DAY", "name": "for reader"}},
				"createAccessToken", &created)
			if created.Metadata.ActorUrn != "urn:li:corpuser:reader" || created.Metadata.OwnerUrn != "urn:li:corpuser:datahub" {
				t.Errorf("created token metadata %+v", created.Metadata)
			}
			s.mustGQL(t, created.AccessToken, `{ me { corpUser { urn } } }`, nil, "me", &me)
			if me.CorpUser.Urn != "urn:li:corpuser:reader" {
				t.Errorf("the created token is for %q", me.CorpUser.Urn)
			}
		})
	}
}
