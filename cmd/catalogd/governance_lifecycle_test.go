package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// lifecycle is what a row of TestGovernanceLifecycle works with: a server,
// with authentication off or signed in (the caller is DataHub's root user
// either way), and the web app's operations.
type lifecycle struct {
	srv *testServer
	ui  *uiOps
	// admin, when set, deletes what DataHub's GraphQL API cannot (through
	// OpenAPI, an administrator's act) for a caller who is not one.
	admin *lifecycle
}

// gql runs a plain GraphQL operation, for what the web app has no document
// of; it must succeed.
func (c *lifecycle) gql(t *testing.T, query string, vars map[string]any) map[string]any {
	t.Helper()
	return c.srv.gqlData(t, query, vars)
}

// ingest writes one aspect as ingestion connectors do, synchronously.
func (c *lifecycle) ingest(t *testing.T, entity, urn, aspect string, value any) {
	t.Helper()
	c.srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp(entity, urn, aspect, value), "async": "false"})
}

// deleteV3 deletes an entity through OpenAPI v3, for the resources
// DataHub's GraphQL API cannot delete.
func (c *lifecycle) deleteV3(t *testing.T, entity, urn string) {
	t.Helper()
	c.srv.mustDo(t, 200, "DELETE", "/openapi/v3/entity/"+entity+"/"+pathEscape(urn), nil)
}

// lcText reads the string at path in v ("*" for each element of a list,
// joined by commas); "" when something on the way is null or absent.
func lcText(v any, path string) string {
	got, ok := pick(v, strings.Split(path, "."))
	if !ok || got == nil {
		return ""
	}
	if l, isList := got.([]any); isList {
		parts := make([]string, 0, len(l))
		for _, x := range l {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(got)
}

// lcFind reads, in the list at path, the value at rel of the element whose
// urn (at urnRel) is urn; "" when no element is.
func lcFind(v any, path, urnRel, urn, rel string) string {
	l, _ := pick(v, strings.Split(path, "."))
	items, _ := l.([]any)
	for _, x := range items {
		if lcText(x, urnRel) == urn {
			return lcText(x, rel)
		}
	}
	return ""
}

// lcURNs lists the URNs at urnRel of the elements of the list at path.
func lcURNs(v any, path, urnRel string) []string {
	l, _ := pick(v, strings.Split(path, "."))
	items, _ := l.([]any)
	out := []string{}
	for _, x := range items {
		out = append(out, lcText(x, urnRel))
	}
	return out
}

// v3Walk is a resource's lifecycle through /openapi/v3/entity/<entity>: the
// aspect written with value, then with updated, listed, deleted.
type v3Walk struct {
	entity, urn, aspect string
	value, updated      map[string]any
	// shows is what the row's GraphQL read shows of the entity written
	// through OpenAPI ("" when not checked).
	shows string
	// sealed: the aspect is never served (a secret's value), so only
	// that it is absent from reads is checked.
	sealed bool
}

// lifecycleRow is one governance resource. GraphQL: create answers the
// new URN; read shows something of the resource (absent, "" unless the
// row says otherwise, once it is gone); list answers the URNs listed. A nil step is one DataHub's GraphQL API
// does not have (the row says why); a resource it cannot delete is
// deleted through OpenAPI v3, and read and list must show it gone.
type lifecycleRow struct {
	name                     string
	create                   func(t *testing.T, c *lifecycle) string
	read                     func(t *testing.T, c *lifecycle, urn string) string
	update                   func(t *testing.T, c *lifecycle, urn string)
	list                     func(t *testing.T, c *lifecycle) []string
	delete                   func(t *testing.T, c *lifecycle, urn string)
	created, updated, absent string
	v3                       v3Walk
}

var (
	lcStamp   = map[string]any{"time": 1700000000000, "actor": "urn:li:corpuser:datahub"}
	lcDataset = "urn:li:dataset:(urn:li:dataPlatform:hive,lifecycle.orders,PROD)"
	lcDomain  = "urn:li:domain:lifecycle_home"
)

const lcRecipe = `{"source":{"type":"mysql","config":{"host_port":"db:3306"}}}`

func governanceRows() []lifecycleRow {
	return []lifecycleRow{
		{
			name: "domain",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createDomain", map[string]any{"input": map[string]any{"id": "lc_finance", "name": "Finance", "description": "money"}}), "createDomain")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getDomain", map[string]any{"urn": urn}), "domain.properties.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateName", map[string]any{"input": map[string]any{"urn": urn, "name": "Corporate finance"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listDomains", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listDomains.domains", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "deleteDomain", map[string]any{"urn": urn}) },
			created: "Finance", updated: "Corporate finance",
			v3: v3Walk{entity: "domain", urn: "urn:li:domain:lc_v3", aspect: "domainProperties",
				value: map[string]any{"name": "Tax"}, updated: map[string]any{"name": "Taxes", "description": "what is owed"}, shows: "Tax"},
		},
		{
			name: "glossary term",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createGlossaryTerm", map[string]any{"input": map[string]any{"id": "lc_revenue", "name": "Revenue", "description": "money in"}}), "createGlossaryTerm")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getGlossaryTerm", map[string]any{"urn": urn, "start": 0, "count": 10}), "glossaryTerm.properties.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateName", map[string]any{"input": map[string]any{"urn": urn, "name": "Gross revenue"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "getRootGlossaryTerms", nil), "getRootGlossaryTerms.terms", "urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteGlossaryEntity", map[string]any{"urn": urn})
			},
			created: "Revenue", updated: "Gross revenue",
			v3: v3Walk{entity: "glossaryterm", urn: "urn:li:glossaryTerm:lc_v3", aspect: "glossaryTermInfo",
				value:   map[string]any{"name": "Cost", "definition": "money out", "termSource": "INTERNAL"},
				updated: map[string]any{"name": "Costs", "definition": "money out", "termSource": "INTERNAL"}, shows: "Cost"},
		},
		{
			name: "glossary node",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createGlossaryNode", map[string]any{"input": map[string]any{"id": "lc_metrics", "name": "Metrics", "description": "measures"}}), "createGlossaryNode")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getGlossaryNode", map[string]any{"urn": urn}), "glossaryNode.properties.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateName", map[string]any{"input": map[string]any{"urn": urn, "name": "Key metrics"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "getRootGlossaryNodes", nil), "getRootGlossaryNodes.nodes", "urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteGlossaryEntity", map[string]any{"urn": urn})
			},
			created: "Metrics", updated: "Key metrics",
			v3: v3Walk{entity: "glossarynode", urn: "urn:li:glossaryNode:lc_v3", aspect: "glossaryNodeInfo",
				value: map[string]any{"name": "Risk", "definition": "what may go wrong"}, updated: map[string]any{"name": "Risks", "definition": "what may go wrong"}, shows: "Risk"},
		},
		{
			name: "ownership type",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createOwnershipType", map[string]any{"input": map[string]any{"name": "Reviewer", "description": "reviews changes"}}), "createOwnershipType.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcFind(c.ui.run(t, "listOwnershipTypes", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listOwnershipTypes.ownershipTypes", "urn", urn, "info.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateOwnershipType", map[string]any{"urn": urn, "input": map[string]any{"name": "Code reviewer"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listOwnershipTypes", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listOwnershipTypes.ownershipTypes", "urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteOwnershipType", map[string]any{"urn": urn, "deleteReferences": true})
			},
			created: "Reviewer", updated: "Code reviewer",
			v3: v3Walk{entity: "ownershiptype", urn: "urn:li:ownershipType:lc_v3", aspect: "ownershipTypeInfo",
				value:   map[string]any{"name": "Approver", "created": lcStamp, "lastModified": lcStamp},
				updated: map[string]any{"name": "Approvers", "description": "approve", "created": lcStamp, "lastModified": lcStamp}, shows: "Approver"},
		},
		{
			// DataHub's roles are fixed: its GraphQL API lists and reads them
			// but neither creates, changes nor deletes one, so the role is
			// written as DataHub's bootstrap does and deleted through OpenAPI.
			name: "role",
			create: func(t *testing.T, c *lifecycle) string {
				c.ingest(t, "dataHubRole", "urn:li:dataHubRole:lc_auditor", "dataHubRoleInfo", map[string]any{"name": "Auditor", "description": "reads everything", "editable": false})
				return "urn:li:dataHubRole:lc_auditor"
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.gql(t, `query($u: String!) { entity(urn: $u) { ... on DataHubRole { name } } }`, map[string]any{"u": urn}), "entity.name")
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listRoles", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listRoles.roles", "urn")
			},
			created: "Auditor",
			v3: v3Walk{entity: "datahubrole", urn: "urn:li:dataHubRole:lc_v3", aspect: "dataHubRoleInfo",
				value: map[string]any{"name": "Steward", "description": "stewards"}, updated: map[string]any{"name": "Stewards", "description": "steward data"}, shows: "Steward"},
		},
		{
			name: "policy",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createPolicy", map[string]any{"input": lcPolicy("Domain managers")}), "createPolicy")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcFind(c.ui.run(t, "listPolicies", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listPolicies.policies", "urn", urn, "name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updatePolicy", map[string]any{"urn": urn, "input": lcPolicy("Domain and glossary managers")})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listPolicies", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listPolicies.policies", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "deletePolicy", map[string]any{"urn": urn}) },
			created: "Domain managers", updated: "Domain and glossary managers",
			v3: v3Walk{entity: "datahubpolicy", urn: "urn:li:dataHubPolicy:lc_v3", aspect: "dataHubPolicyInfo",
				value:   map[string]any{"displayName": "Readers", "description": "read", "type": "PLATFORM", "state": "ACTIVE", "editable": true, "privileges": []any{"VIEW_ANALYTICS"}, "actors": map[string]any{"allUsers": true}},
				updated: map[string]any{"displayName": "Readers", "description": "read", "type": "PLATFORM", "state": "INACTIVE", "editable": true, "privileges": []any{"VIEW_ANALYTICS"}, "actors": map[string]any{"allUsers": true}},
				shows:   "Readers"},
		},
		{
			// DataHub's GraphQL API creates no user: users sign up or are
			// ingested from an identity provider, as here.
			name: "user",
			create: func(t *testing.T, c *lifecycle) string {
				c.ingest(t, "corpuser", "urn:li:corpuser:lc_erin", "corpUserInfo", map[string]any{"active": true, "displayName": "Erin", "email": "erin@example.com"})
				return "urn:li:corpuser:lc_erin"
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				// A user nobody wrote is answered, not existing.
				d := c.ui.run(t, "getUser", map[string]any{"urn": urn, "groupsCount": 10})
				if lcText(d, "corpUser.exists") != "true" {
					return ""
				}
				return lcText(d, "corpUser.info.displayName") + "|" + lcText(d, "corpUser.editableProperties.displayName")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateCorpUserProperties", map[string]any{"urn": urn, "input": map[string]any{"displayName": "Erin E.", "title": "Auditor"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listUsers", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listUsers.users", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "removeUser", map[string]any{"urn": urn}) },
			created: "Erin|", updated: "Erin|Erin E.",
			v3: v3Walk{entity: "corpuser", urn: "urn:li:corpuser:lc_v3", aspect: "corpUserInfo",
				value: map[string]any{"active": true, "displayName": "Frank"}, updated: map[string]any{"active": false, "displayName": "Frank F."}, shows: "Frank|"},
		},
		{
			name: "group",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createGroup", map[string]any{"input": map[string]any{"id": "lc_auditors", "name": "Auditors", "description": "audit"}}), "createGroup")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				d := c.ui.run(t, "getGroup", map[string]any{"urn": urn, "membersCount": 10})
				if lcText(d, "corpGroup.exists") != "true" {
					return ""
				}
				return lcText(d, "corpGroup.properties.displayName") + "|" + lcText(d, "corpGroup.editableProperties.description")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateCorpGroupProperties", map[string]any{"urn": urn, "input": map[string]any{"description": "audit the books"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listGroups", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listGroups.groups", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "removeGroup", map[string]any{"urn": urn}) },
			created: "Auditors|", updated: "Auditors|audit the books",
			v3: v3Walk{entity: "corpgroup", urn: "urn:li:corpGroup:lc_v3", aspect: "corpGroupInfo",
				value:   map[string]any{"displayName": "Stewards", "admins": []any{}, "members": []any{}, "groups": []any{}},
				updated: map[string]any{"displayName": "Data stewards", "admins": []any{}, "members": []any{}, "groups": []any{}}, shows: "Stewards|"},
		},
		{
			// DataHub's GraphQL API does not change a service account once
			// created.
			name: "service account",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.gql(t, `mutation($in: CreateServiceAccountInput!) { createServiceAccount(input: $in) { urn } }`,
					map[string]any{"in": map[string]any{"displayName": "Nightly loader", "description": "loads"}}), "createServiceAccount.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.gql(t, `query($u: String!) { getServiceAccount(urn: $u) { displayName } }`, map[string]any{"u": urn}), "getServiceAccount.displayName")
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.gql(t, `{ listServiceAccounts(input: {start: 0, count: 100}) { serviceAccounts { urn } } }`, nil), "listServiceAccounts.serviceAccounts", "urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.gql(t, `mutation($u: String!) { deleteServiceAccount(urn: $u) }`, map[string]any{"u": urn})
			},
			created: "Nightly loader",
			v3: v3Walk{entity: "corpuser", urn: "urn:li:corpuser:service_lc_v3", aspect: "corpUserInfo",
				value: map[string]any{"active": true, "displayName": "Airflow"}, updated: map[string]any{"active": true, "displayName": "Airflow prod"}},
		},
		{
			// An access token is never changed: it is revoked and another
			// created.
			name: "access token",
			create: func(t *testing.T, c *lifecycle) string {
				c.ui.run(t, "createAccessToken", map[string]any{"input": map[string]any{"type": "PERSONAL", "actorUrn": gqlActor, "duration": "ONE_MONTH", "name": "lc-token", "description": "for the lifecycle"}})
				for _, tok := range lcTokens(t, c) {
					if lcText(tok, "name") == "lc-token" {
						return lcText(tok, "urn")
					}
				}
				t.Fatal("the token created is not listed")
				return ""
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				for _, tok := range lcTokens(t, c) {
					if lcText(tok, "urn") == urn {
						return lcText(tok, "name")
					}
				}
				return ""
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(map[string]any{"l": lcTokens(t, c)}, "l", "urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "revokeAccessToken", map[string]any{"tokenId": strings.TrimPrefix(urn, "urn:li:dataHubAccessToken:")})
			},
			created: "lc-token",
			v3: v3Walk{entity: "datahubaccesstoken", urn: "urn:li:dataHubAccessToken:lc_v3", aspect: "dataHubAccessTokenInfo",
				value:   map[string]any{"name": "imported", "actorUrn": gqlActor, "ownerUrn": gqlActor, "createdAt": 1700000000000, "expiresAt": 4102444800000},
				updated: map[string]any{"name": "imported", "actorUrn": gqlActor, "ownerUrn": gqlActor, "createdAt": 1700000000000, "expiresAt": 4102444800000, "description": "from the old server"},
				shows:   "imported"},
		},
		{
			name: "structured property",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createStructuredProperty", map[string]any{"input": map[string]any{"qualifiedName": "lifecycle.tier", "displayName": "Tier",
					"valueType": "urn:li:dataType:datahub.string", "entityTypes": []string{"urn:li:entityType:datahub.dataset"}}}), "createStructuredProperty.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getStructuredProperty", map[string]any{"urn": urn}), "entity.definition.displayName")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateStructuredProperty", map[string]any{"input": map[string]any{"urn": urn, "displayName": "Service tier"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "searchStructuredProperties", map[string]any{"query": "*", "start": 0, "count": 100}), "searchAcrossEntities.searchResults", "entity.urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteStructuredProperty", map[string]any{"input": map[string]any{"urn": urn}})
			},
			created: "Tier", updated: "Service tier",
			v3: v3Walk{entity: "structuredproperty", urn: "urn:li:structuredProperty:lifecycle.v3", aspect: "propertyDefinition",
				value:   map[string]any{"qualifiedName": "lifecycle.v3", "displayName": "Retention", "valueType": "urn:li:dataType:datahub.number", "entityTypes": []any{"urn:li:entityType:datahub.dataset"}},
				updated: map[string]any{"qualifiedName": "lifecycle.v3", "displayName": "Retention days", "valueType": "urn:li:dataType:datahub.number", "entityTypes": []any{"urn:li:entityType:datahub.dataset"}},
				shows:   "Retention"},
		},
		{
			// The web app has no documents for forms; these are DataHub's
			// GraphQL API's own operations.
			name: "form",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.gql(t, `mutation($in: CreateFormInput!) { createForm(input: $in) { urn } }`,
					map[string]any{"in": map[string]any{"id": "lc_stewardship", "name": "Stewardship", "type": "COMPLETION"}}), "createForm.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.gql(t, `query($u: String!) { entity(urn: $u) { ... on Form { info { name } } } }`, map[string]any{"u": urn}), "entity.info.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.gql(t, `mutation($u: String!) { updateForm(input: {urn: $u, name: "Data stewardship"}) { urn } }`, map[string]any{"u": urn})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.gql(t, `{ searchAcrossEntities(input: {types: [FORM], query: "*", start: 0, count: 100}) { searchResults { entity { urn } } } }`, nil), "searchAcrossEntities.searchResults", "entity.urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.gql(t, `mutation($u: String!) { deleteForm(input: {urn: $u}) }`, map[string]any{"u": urn})
			},
			created: "Stewardship", updated: "Data stewardship",
			v3: v3Walk{entity: "form", urn: "urn:li:form:lc_v3", aspect: "formInfo",
				value: map[string]any{"name": "Ownership", "type": "COMPLETION"}, updated: map[string]any{"name": "Ownership", "type": "VERIFICATION"}, shows: "Ownership"},
		},
		{
			name: "data product",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createDataProduct", map[string]any{"input": map[string]any{"id": "lc_orders", "domainUrn": lcDomain,
					"properties": map[string]any{"name": "Orders", "description": "all orders"}}}), "createDataProduct.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getDataProduct", map[string]any{"urn": urn}), "dataProduct.properties.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateDataProduct", map[string]any{"urn": urn, "input": map[string]any{"name": "Customer orders"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "getDataProductsList", map[string]any{"input": map[string]any{"types": []string{"DATA_PRODUCT"}, "query": "*", "start": 0, "count": 100}}),
					"searchAcrossEntities.searchResults", "entity.urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteDataProduct", map[string]any{"urn": urn})
			},
			created: "Orders", updated: "Customer orders",
			v3: v3Walk{entity: "dataproduct", urn: "urn:li:dataProduct:lc_v3", aspect: "dataProductProperties",
				value: map[string]any{"name": "Invoices"}, updated: map[string]any{"name": "Invoices", "description": "billed"}, shows: "Invoices"},
		},
		{
			name: "application",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createApplication", map[string]any{"input": map[string]any{"id": "lc_billing", "properties": map[string]any{"name": "Billing", "description": "bills"}}}),
					"createApplication.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getApplication", map[string]any{"urn": urn}), "application.properties.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.gql(t, `mutation($u: String!) { updateApplication(urn: $u, input: {name: "Billing service"}) { urn } }`, map[string]any{"u": urn})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "getApplicationsList", map[string]any{"input": map[string]any{"types": []string{"APPLICATION"}, "query": "*", "start": 0, "count": 100}}),
					"searchAcrossEntities.searchResults", "entity.urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteApplication", map[string]any{"urn": urn})
			},
			created: "Billing", updated: "Billing service",
			v3: v3Walk{entity: "application", urn: "urn:li:application:lc_v3", aspect: "applicationProperties",
				value: map[string]any{"name": "Shop"}, updated: map[string]any{"name": "Web shop"}, shows: "Shop"},
		},
		{
			name: "business attribute",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createBusinessAttribute", map[string]any{"input": map[string]any{"id": "lc_amount", "name": "amount", "description": "money", "type": "NUMBER"}}),
					"createBusinessAttribute.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getBusinessAttribute", map[string]any{"urn": urn}), "businessAttribute.properties.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateBusinessAttribute", map[string]any{"urn": urn, "input": map[string]any{"name": "net amount"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listBusinessAttributes", map[string]any{"start": 0, "count": 100, "query": "*"}), "listBusinessAttributes.businessAttributes", "urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteBusinessAttribute", map[string]any{"urn": urn})
			},
			created: "amount", updated: "net amount",
			v3: v3Walk{entity: "businessattribute", urn: "urn:li:businessAttribute:lc_v3", aspect: "businessAttributeInfo",
				value: map[string]any{"name": "email", "fieldPath": "email"}, updated: map[string]any{"name": "email", "fieldPath": "email", "description": "an address"}, shows: "email"},
		},
		{
			name: "query",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createQuery", map[string]any{"input": map[string]any{"subjects": []any{map[string]any{"datasetUrn": lcDataset}},
					"properties": map[string]any{"name": "Orders per day", "statement": map[string]any{"value": "select day, count(*) from orders group by day", "language": "SQL"}}}}),
					"createQuery.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getQuery", map[string]any{"urn": urn}), "entity.properties.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateQuery", map[string]any{"urn": urn, "input": map[string]any{"properties": map[string]any{"name": "Daily orders",
					"statement": map[string]any{"value": "select day, count(*) from orders group by day", "language": "SQL"}}}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listQueries", map[string]any{"input": map[string]any{"start": 0, "count": 100, "datasetUrn": lcDataset}}), "listQueries.queries", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "deleteQuery", map[string]any{"urn": urn}) },
			created: "Orders per day", updated: "Daily orders",
			v3: v3Walk{entity: "query", urn: "urn:li:query:lc_v3", aspect: "queryProperties",
				value:   map[string]any{"name": "All orders", "statement": map[string]any{"value": "select * from orders", "language": "SQL"}, "source": "MANUAL", "created": lcStamp, "lastModified": lcStamp},
				updated: map[string]any{"name": "Every order", "statement": map[string]any{"value": "select * from orders", "language": "SQL"}, "source": "MANUAL", "created": lcStamp, "lastModified": lcStamp},
				shows:   "All orders"},
		},
		{
			// createPost answers no URN: the post is found in the list.
			name: "post",
			create: func(t *testing.T, c *lifecycle) string {
				c.ui.run(t, "createPost", map[string]any{"input": map[string]any{"postType": "HOME_PAGE_ANNOUNCEMENT",
					"content": map[string]any{"contentType": "TEXT", "title": "Maintenance", "description": "down on sunday"}}})
				for _, p := range lcPosts(t, c) {
					if lcText(p, "content.title") == "Maintenance" {
						return lcText(p, "urn")
					}
				}
				t.Fatal("the post created is not listed")
				return ""
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				for _, p := range lcPosts(t, c) {
					if lcText(p, "urn") == urn {
						return lcText(p, "content.title")
					}
				}
				return ""
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updatePost", map[string]any{"input": map[string]any{"urn": urn, "postType": "HOME_PAGE_ANNOUNCEMENT",
					"content": map[string]any{"contentType": "TEXT", "title": "Maintenance moved", "description": "down on monday"}}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(map[string]any{"l": lcPosts(t, c)}, "l", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "deletePost", map[string]any{"urn": urn}) },
			created: "Maintenance", updated: "Maintenance moved",
			v3: v3Walk{entity: "post", urn: "urn:li:post:lc_v3", aspect: "postInfo",
				value:   map[string]any{"type": "HOME_PAGE_ANNOUNCEMENT", "content": map[string]any{"type": "TEXT", "title": "Welcome"}, "created": 1700000000000, "lastModified": 1700000000000},
				updated: map[string]any{"type": "HOME_PAGE_ANNOUNCEMENT", "content": map[string]any{"type": "TEXT", "title": "Welcome back"}, "created": 1700000000000, "lastModified": 1700000001000},
				shows:   "Welcome"},
		},
		{
			// DataHub's GraphQL API does not delete incidents; they are
			// resolved, or deleted through its other APIs.
			name: "incident",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "raiseIncident", map[string]any{"input": map[string]any{
					"type": "FRESHNESS", "title": "Late orders", "description": "a day late", "resourceUrn": lcDataset, "priority": "HIGH"}}), "raiseIncident")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				d := lcIncidents(t, c)
				if title := lcFind(d, "entity.incidents.incidents", "urn", urn, "title"); title != "" {
					return title + "|" + lcFind(d, "entity.incidents.incidents", "urn", urn, "status.state")
				}
				return ""
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateIncident", map[string]any{"urn": urn, "input": map[string]any{"title": "Orders late"}})
				c.ui.run(t, "updateIncidentStatus", map[string]any{"urn": urn, "input": map[string]any{"state": "RESOLVED", "message": "caught up"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(lcIncidents(t, c), "entity.incidents.incidents", "urn")
			},
			created: "Late orders|ACTIVE", updated: "Orders late|RESOLVED",
			v3: v3Walk{entity: "incident", urn: "urn:li:incident:lc_v3", aspect: "incidentInfo",
				value: map[string]any{"type": "OPERATIONAL", "title": "Broken load", "entities": []any{lcDataset},
					"status": map[string]any{"state": "ACTIVE", "lastUpdated": lcStamp}, "created": lcStamp},
				updated: map[string]any{"type": "OPERATIONAL", "title": "Broken load", "entities": []any{lcDataset},
					"status": map[string]any{"state": "RESOLVED", "lastUpdated": lcStamp}, "created": lcStamp},
				shows: "Broken load|ACTIVE"},
		},
		{
			name: "assertion",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.gql(t, `mutation($in: UpsertCustomAssertionInput!) { upsertCustomAssertion(input: $in) { urn } }`, map[string]any{"in": map[string]any{
					"entityUrn": lcDataset, "type": "Row count", "description": "orders are counted", "platform": map[string]any{"urn": "urn:li:dataPlatform:great-expectations"},
					"logic": "count(*) > 0"}}), "upsertCustomAssertion.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getAssertionWithRunEvents", map[string]any{"assertionUrn": urn}), "assertion.info.description")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.gql(t, `mutation($u: String!, $in: UpsertCustomAssertionInput!) { upsertCustomAssertion(urn: $u, input: $in) { urn } }`, map[string]any{"u": urn, "in": map[string]any{
					"entityUrn": lcDataset, "type": "Row count", "description": "orders are never empty", "platform": map[string]any{"urn": "urn:li:dataPlatform:great-expectations"}}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "getDatasetAssertions", map[string]any{"urn": lcDataset}), "dataset.assertions.assertions", "urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteAssertion", map[string]any{"urn": urn})
			},
			created: "orders are counted", updated: "orders are never empty",
			v3: v3Walk{entity: "assertion", urn: "urn:li:assertion:lc_v3", aspect: "assertionInfo",
				value: map[string]any{"type": "DATASET", "description": "rows > 0", "datasetAssertion": map[string]any{"dataset": lcDataset, "scope": "DATASET_ROWS", "operator": "GREATER_THAN",
					"aggregation": "ROW_COUNT", "parameters": map[string]any{"value": map[string]any{"value": "0", "type": "NUMBER"}}}},
				updated: map[string]any{"type": "DATASET", "description": "rows > 10", "datasetAssertion": map[string]any{"dataset": lcDataset, "scope": "DATASET_ROWS", "operator": "GREATER_THAN",
					"aggregation": "ROW_COUNT", "parameters": map[string]any{"value": map[string]any{"value": "10", "type": "NUMBER"}}}},
				shows: "rows > 0"},
		},
		{
			// A dataset has one contract, read through the dataset; DataHub's
			// GraphQL API neither lists nor deletes contracts.
			name: "data contract",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "upsertDataContract", map[string]any{"input": map[string]any{"entityUrn": lcDataset, "id": "lc_orders", "state": "PENDING"}}), "upsertDataContract.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				d := c.ui.run(t, "getDatasetContract", map[string]any{"urn": lcDataset})
				if lcText(d, "dataset.contract.urn") != urn {
					return ""
				}
				return lcText(d, "dataset.contract.status.state")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "upsertDataContract", map[string]any{"input": map[string]any{"entityUrn": lcDataset, "id": "lc_orders", "state": "ACTIVE"}})
			},
			created: "PENDING", updated: "ACTIVE",
			v3: v3Walk{entity: "datacontract", urn: "urn:li:dataContract:lc_v3", aspect: "dataContractProperties",
				value: map[string]any{"entity": "urn:li:dataset:(urn:li:dataPlatform:hive,lifecycle.users,PROD)"}, updated: map[string]any{"entity": "urn:li:dataset:(urn:li:dataPlatform:hive,lifecycle.users,PROD)", "rawContract": "{}"}},
		},
		{
			name: "metadata test",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createTest", map[string]any{"input": map[string]any{"id": "lc_described", "name": "Has description", "category": "Docs",
					"definition": map[string]any{"json": "{}"}}}), "createTest")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getTest", map[string]any{"urn": urn}), "test.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.gql(t, `mutation($u: String!) { updateTest(urn: $u, input: {name: "Has a description", category: "Docs", definition: {json: "{}"}}) }`, map[string]any{"u": urn})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listTests", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listTests.tests", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "deleteTest", map[string]any{"urn": urn}) },
			created: "Has description", updated: "Has a description",
			v3: v3Walk{entity: "test", urn: "urn:li:test:lc_v3", aspect: "testInfo",
				value:   map[string]any{"name": "Has owner", "category": "Ownership", "definition": map[string]any{"type": "JSON", "json": "{}"}},
				updated: map[string]any{"name": "Has an owner", "category": "Ownership", "definition": map[string]any{"type": "JSON", "json": "{}"}}, shows: "Has owner"},
		},
		{
			// Connections are written whole by upsertConnection; DataHub's
			// GraphQL API neither lists nor deletes them.
			name: "connection",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "upsertConnection", map[string]any{"input": lcConnection(`{"account":"acme"}`)}), "upsertConnection.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "connection", map[string]any{"urn": urn}), "connection.details.json.blob")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "upsertConnection", map[string]any{"input": lcConnection(`{"account":"acme-eu"}`)})
			},
			created: `{"account":"acme"}`, updated: `{"account":"acme-eu"}`,
			v3: v3Walk{entity: "datahubconnection", urn: "urn:li:dataHubConnection:lc_v3", aspect: "dataHubConnectionDetails",
				value: map[string]any{"type": "JSON", "name": "BigQuery", "json": map[string]any{"encryptedBlob": "{}"}}, updated: map[string]any{"type": "JSON", "name": "BigQuery EU", "json": map[string]any{"encryptedBlob": "{}"}}},
		},
		{
			name: "secret",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createSecret", map[string]any{"input": map[string]any{"name": "LC_PASSWORD", "value": "first", "description": "the database's"}}), "createSecret")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcFind(c.ui.run(t, "listSecrets", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listSecrets.secrets", "urn", urn, "description")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateSecret", map[string]any{"input": map[string]any{"urn": urn, "name": "LC_PASSWORD", "value": "second", "description": "rotated"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listSecrets", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listSecrets.secrets", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "deleteSecret", map[string]any{"urn": urn}) },
			created: "the database's", updated: "rotated",
			v3: v3Walk{entity: "datahubsecret", urn: "urn:li:dataHubSecret:LC_V3", aspect: "dataHubSecretValue",
				value: map[string]any{"name": "LC_V3", "value": "sealed", "description": "imported"}, updated: map[string]any{"name": "LC_V3", "value": "sealed", "description": "imported again"},
				shows: "imported", sealed: true},
		},
		{
			name: "ingestion source",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createIngestionSource", map[string]any{"input": lcSource("warehouse")}), "createIngestionSource")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getIngestionSource", map[string]any{"urn": urn, "runStart": 0, "runCount": 5}), "ingestionSource.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateIngestionSource", map[string]any{"urn": urn, "input": lcSource("warehouse nightly")})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listIngestionSources", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), "listIngestionSources.ingestionSources", "urn")
			},
			delete: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "deleteIngestionSource", map[string]any{"urn": urn})
			},
			created: "warehouse", updated: "warehouse nightly",
			v3: v3Walk{entity: "datahubingestionsource", urn: "urn:li:dataHubIngestionSource:lc_v3", aspect: "dataHubIngestionSourceInfo",
				value:   map[string]any{"name": "lake", "type": "s3", "config": map[string]any{"recipe": lcRecipe, "executorId": "default"}},
				updated: map[string]any{"name": "lake hourly", "type": "s3", "config": map[string]any{"recipe": lcRecipe, "executorId": "default"}, "schedule": map[string]any{"interval": "0 * * * *", "timezone": "UTC"}},
				shows:   "lake"},
		},
		{
			name: "view",
			create: func(t *testing.T, c *lifecycle) string {
				return lcText(c.ui.run(t, "createView", map[string]any{"input": map[string]any{"viewType": "PERSONAL", "name": "Hive tables", "description": "mine",
					"definition": lcViewDefinition()}}), "createView.urn")
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getView", map[string]any{"urn": urn}), "view.name")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateView", map[string]any{"urn": urn, "input": map[string]any{"name": "Hive datasets"}})
			},
			list: func(t *testing.T, c *lifecycle) []string {
				return lcURNs(c.ui.run(t, "listMyViews", map[string]any{"start": 0, "count": 100}), "listMyViews.views", "urn")
			},
			delete:  func(t *testing.T, c *lifecycle, urn string) { c.ui.run(t, "deleteView", map[string]any{"urn": urn}) },
			created: "Hive tables", updated: "Hive datasets",
			v3: v3Walk{entity: "datahubview", urn: "urn:li:dataHubView:lc_v3", aspect: "dataHubViewInfo",
				value: map[string]any{"name": "Charts", "type": "GLOBAL", "created": lcStamp, "lastModified": lcStamp,
					"definition": map[string]any{"entityTypes": []any{"CHART"}, "filter": map[string]any{"or": []any{map[string]any{"and": []any{}}}}}},
				updated: map[string]any{"name": "All charts", "type": "GLOBAL", "created": lcStamp, "lastModified": lcStamp,
					"definition": map[string]any{"entityTypes": []any{"CHART"}, "filter": map[string]any{"or": []any{map[string]any{"and": []any{}}}}}},
				shows: "Charts"},
		},
		{
			// The settings always exist, propagation off until changed:
			// "create" is the first change, and deleting them (through
			// OpenAPI) turns it off again. There is one, never listed.
			name: "documentation propagation settings",
			create: func(t *testing.T, c *lifecycle) string {
				c.ui.run(t, "updateDocPropagationSettings", map[string]any{"input": map[string]any{"docColumnPropagation": true}})
				return "urn:li:globalSettings:0"
			},
			read: func(t *testing.T, c *lifecycle, urn string) string {
				return lcText(c.ui.run(t, "getDocPropagationSettings", nil), "docPropagationSettings.docColumnPropagation")
			},
			update: func(t *testing.T, c *lifecycle, urn string) {
				c.ui.run(t, "updateDocPropagationSettings", map[string]any{"input": map[string]any{"docColumnPropagation": false}})
			},
			created: "true", updated: "false", absent: "false",
			v3: v3Walk{entity: "globalsettings", urn: "urn:li:globalSettings:0", aspect: "globalSettingsInfo",
				value:   map[string]any{"docPropagation": map[string]any{"enabled": true, "columnPropagationEnabled": true}},
				updated: map[string]any{"docPropagation": map[string]any{"enabled": true, "columnPropagationEnabled": false}}, shows: "true"},
		},
	}
}

func lcPolicy(name string) map[string]any {
	return map[string]any{"type": "PLATFORM", "name": name, "state": "ACTIVE", "description": "manage", "privileges": []string{"MANAGE_DOMAINS"},
		"actors": map[string]any{"users": []string{"urn:li:corpuser:lc_erin"}, "resourceOwners": false, "allUsers": false, "allGroups": false}}
}

func lcConnection(blob string) map[string]any {
	return map[string]any{"id": "lc_snowflake", "type": "JSON", "name": "Snowflake", "platformUrn": "urn:li:dataPlatform:snowflake", "json": map[string]any{"blob": blob}}
}

func lcSource(name string) map[string]any {
	return map[string]any{"name": name, "type": "mysql", "config": map[string]any{"recipe": lcRecipe, "executorId": "default"},
		"schedule": map[string]any{"interval": "0 2 * * *", "timezone": "UTC"}}
}

func lcViewDefinition() map[string]any {
	return map[string]any{"entityTypes": []string{"DATASET"}, "filter": map[string]any{"operator": "AND",
		"filters": []any{map[string]any{"field": "platform", "values": []string{"urn:li:dataPlatform:hive"}, "condition": "EQUAL"}}}}
}

func lcTokens(t *testing.T, c *lifecycle) []any {
	t.Helper()
	d := c.ui.run(t, "listAccessTokens", map[string]any{"input": map[string]any{"start": 0, "count": 100,
		"filters": []any{map[string]any{"field": "ownerUrn", "values": []string{gqlActor}}}}})
	l, _ := pick(d, []string{"listAccessTokens", "tokens"})
	out, _ := l.([]any)
	return out
}

func lcPosts(t *testing.T, c *lifecycle) []any {
	t.Helper()
	l, _ := pick(c.ui.run(t, "listPosts", map[string]any{"input": map[string]any{"start": 0, "count": 100}}), []string{"listPosts", "posts"})
	out, _ := l.([]any)
	return out
}

func lcIncidents(t *testing.T, c *lifecycle) map[string]any {
	t.Helper()
	return c.ui.run(t, "getEntityIncidents", map[string]any{"urn": lcDataset, "start": 0, "count": 100})
}

// TestGovernanceLifecycle takes every governance resource through its
// whole life, on each store: through GraphQL (the web app's own operations
// where it has them) created, read, changed, listed, deleted and read
// again; and through /openapi/v3/entity/<type> written, read, rewritten,
// listed, deleted and read again, what OpenAPI wrote being what GraphQL
// shows.
func TestGovernanceLifecycle(t *testing.T) {
	rows := governanceRows()
	for _, mode := range []string{"auth off", "signed in as admin"} {
		// Each mode on stores of its own.
		for _, st := range testStores(t) {
			t.Run(st.name+"/"+mode, func(t *testing.T) {
				env := map[string]string{"SECRET_SERVICE_ENCRYPTION_KEY": "lifecycle key", "DATAHUB_TOKEN_SERVICE_SIGNING_KEY": testSigningKey}
				var srv *testServer
				if mode == "auth off" {
					srv = startServerEnv(t, env, st.args...)
				} else {
					// Every request carries the root user's session token,
					// as the web app's do.
					s := startAuthServerEnv(t, env, st.args...)
					signed := *s.testServer
					signed.Client = &http.Client{Timeout: s.Client.Timeout, Transport: bearerTransport{token: s.admin, base: s.Client.Transport}}
					srv = &signed
				}
				c := &lifecycle{srv: srv, ui: loadUIOps(t, srv)}
				if mode != "auth off" {
					// As in DataHub, not even the root user manages
					// connections until a policy says so.
					c.ui.run(t, "createPolicy", map[string]any{"input": map[string]any{"type": "PLATFORM", "name": "Admins manage connections", "state": "ACTIVE",
						"privileges": []string{"MANAGE_CONNECTIONS"}, "actors": map[string]any{"users": []string{gqlActor}, "resourceOwners": false, "allUsers": false, "allGroups": false}}})
				}
				c.ingest(t, "dataset", lcDataset, "datasetProperties", map[string]any{"name": "orders"})
				c.ui.run(t, "createDomain", map[string]any{"input": map[string]any{"id": "lifecycle_home", "name": "Lifecycle home"}})
				for _, r := range rows {
					t.Run(r.name, func(t *testing.T) {
						t.Run("graphql", func(t *testing.T) { r.walkGraphQL(t, c) })
						t.Run("openapi", func(t *testing.T) { r.walkV3(t, c) })
					})
				}
			})
		}
	}
}

// lcManagerPrivileges are the platform privileges DataHub asks of whoever
// manages each resource from the settings pages (none for one's own
// views), and the privileges on all entities some also take: as in
// DataHub, managing users lets one remove a user, not edit their profile.
// One's own access tokens and applications are left out: their rights
// are the caller's own or the application's owners'.
var lcManagerPrivileges = map[string]struct{ platform, metadata []string }{
	"domain": {platform: []string{"MANAGE_DOMAINS"}}, "glossary term": {platform: []string{"MANAGE_GLOSSARIES"}},
	"glossary node": {platform: []string{"MANAGE_GLOSSARIES"}}, "ownership type": {platform: []string{"MANAGE_GLOBAL_OWNERSHIP_TYPES"}},
	"role": {platform: []string{"MANAGE_POLICIES"}}, "policy": {platform: []string{"MANAGE_POLICIES"}},
	"user":  {platform: []string{"MANAGE_USERS_AND_GROUPS"}, metadata: []string{"EDIT_USER_PROFILE"}},
	"group": {platform: []string{"MANAGE_USERS_AND_GROUPS"}}, "service account": {platform: []string{"MANAGE_SERVICE_ACCOUNTS"}},
	"structured property": {platform: []string{"MANAGE_STRUCTURED_PROPERTIES"}}, "form": {platform: []string{"MANAGE_DOCUMENTATION_FORMS"}},
	"data product": {platform: []string{"MANAGE_DATA_PRODUCTS"}}, "business attribute": {platform: []string{"MANAGE_BUSINESS_ATTRIBUTE"}},
	"post": {platform: []string{"MANAGE_GLOBAL_ANNOUNCEMENTS"}}, "metadata test": {platform: []string{"MANAGE_TESTS"}},
	"connection": {platform: []string{"MANAGE_CONNECTIONS"}}, "secret": {platform: []string{"MANAGE_SECRETS"}},
	"ingestion source": {platform: []string{"MANAGE_INGESTION"}}, "view": {},
	"documentation propagation settings": {platform: []string{"MANAGE_FEATURES"}},
	// The resources of an asset take a right on the asset.
	"query": {metadata: []string{"EDIT_ENTITY_QUERIES"}}, "incident": {metadata: []string{"EDIT_ENTITY_INCIDENTS"}},
	"assertion": {metadata: []string{"EDIT_ENTITY_ASSERTIONS"}}, "data contract": {metadata: []string{"EDIT_ENTITY_DATA_CONTRACT"}},
}

// TestGovernanceLifecycleManagers walks each governance resource through
// GraphQL as a user who holds only the privilege DataHub's settings page
// for it asks for, not as an administrator.
func TestGovernanceLifecycleManagers(t *testing.T) {
	rows := governanceRows()
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			env := map[string]string{"SECRET_SERVICE_ENCRYPTION_KEY": "lifecycle key", "DATAHUB_TOKEN_SERVICE_SIGNING_KEY": testSigningKey}
			s := startAuthServerEnv(t, env, st.args...)
			as := func(token string) *lifecycle {
				signed := *s.testServer
				signed.Client = &http.Client{Timeout: s.Client.Timeout, Transport: bearerTransport{token: token, base: s.Client.Transport}}
				return &lifecycle{srv: &signed, ui: loadUIOps(t, &signed)}
			}
			admin := as(s.admin)
			// The administrator deletes connections too, once a policy says so.
			admin.ui.run(t, "createPolicy", map[string]any{"input": map[string]any{"type": "PLATFORM", "name": "Admins manage connections", "state": "ACTIVE",
				"privileges": []string{"MANAGE_CONNECTIONS"}, "actors": map[string]any{"users": []string{gqlActor}, "resourceOwners": false, "allUsers": false, "allGroups": false}}})
			admin.ingest(t, "dataset", lcDataset, "datasetProperties", map[string]any{"name": "orders"})
			admin.ui.run(t, "createDomain", map[string]any{"input": map[string]any{"id": "lifecycle_home", "name": "Lifecycle home"}})
			walked := 0
			for _, r := range rows {
				privs, ok := lcManagerPrivileges[r.name]
				if !ok {
					continue
				}
				walked++
				t.Run(r.name, func(t *testing.T) {
					user := "mgr_" + strings.ReplaceAll(r.name, " ", "_")
					token, _ := s.cliToken(t, user)
					actors := map[string]any{"users": []string{"urn:li:corpuser:" + user}, "resourceOwners": false, "allUsers": false, "allGroups": false}
					if len(privs.platform) > 0 {
						admin.ui.run(t, "createPolicy", map[string]any{"input": map[string]any{"type": "PLATFORM", "name": user, "state": "ACTIVE",
							"privileges": privs.platform, "actors": actors}})
					}
					if len(privs.metadata) > 0 {
						admin.ui.run(t, "createPolicy", map[string]any{"input": map[string]any{"type": "METADATA", "name": user + " on all", "state": "ACTIVE",
							"privileges": privs.metadata, "actors": actors, "resources": map[string]any{"allResources": true}}})
					}
					c := as(token)
					c.admin = admin
					r.walkGraphQL(t, c)
				})
			}
			if walked != len(lcManagerPrivileges) {
				t.Errorf("walked %d resources as their managers, want %d", walked, len(lcManagerPrivileges))
			}
		})
	}
}

// bearerTransport sends every request with a bearer token.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func (r lifecycleRow) walkGraphQL(t *testing.T, c *lifecycle) {
	urn := r.create(t, c)
	if urn == "" {
		t.Fatal("create answered no URN")
	}
	if got := r.read(t, c, urn); got != r.created {
		t.Fatalf("%s after create: read %q, want %q", urn, got, r.created)
	}
	// What GraphQL wrote, OpenAPI reads.
	v3Path := "/openapi/v3/entity/" + r.v3.entity + "/" + pathEscape(urn)
	c.srv.mustDo(t, 200, "GET", v3Path, nil)
	if r.list != nil {
		if got := r.list(t, c); !slices.Contains(got, urn) {
			t.Errorf("%s not listed after create: %v", urn, got)
		}
	}
	if r.update != nil {
		r.update(t, c, urn)
		if got := r.read(t, c, urn); got != r.updated {
			t.Errorf("%s after update: read %q, want %q", urn, got, r.updated)
		}
		if r.list != nil {
			if got := r.list(t, c); !slices.Contains(got, urn) {
				t.Errorf("%s not listed after update: %v", urn, got)
			}
		}
	}
	switch {
	case r.delete != nil:
		r.delete(t, c, urn)
	case c.admin != nil:
		c.admin.deleteV3(t, r.v3.entity, urn)
	default:
		c.deleteV3(t, r.v3.entity, urn)
	}
	if got := r.read(t, c, urn); got != r.absent {
		t.Errorf("%s after delete: read %q, want %q", urn, got, r.absent)
	}
	if status, b := c.srv.do(t, "GET", v3Path, nil); status != 404 {
		t.Errorf("GET %s after delete: %d %s, want 404", v3Path, status, b)
	}
	if r.list != nil {
		if got := r.list(t, c); slices.Contains(got, urn) {
			t.Errorf("%s still listed after delete: %v", urn, got)
		}
	}
}

func (r lifecycleRow) walkV3(t *testing.T, c *lifecycle) {
	w := r.v3
	path := "/openapi/v3/entity/" + w.entity + "/" + pathEscape(w.urn)
	aspect := func() any {
		t.Helper()
		got := decode(t, c.srv.mustDo(t, 200, "GET", path, nil))
		if got["urn"] != w.urn {
			t.Fatalf("GET %s: urn %v", path, got["urn"])
		}
		env, _ := got[w.aspect].(map[string]any)
		return env["value"]
	}
	listed := func() bool {
		t.Helper()
		got := decode(t, c.srv.mustDo(t, 200, "GET", "/openapi/v3/entity/"+w.entity+"?count=1000", nil))
		return slices.Contains(lcURNs(got, "entities", "urn"), w.urn)
	}
	write := func(value map[string]any) {
		t.Helper()
		c.srv.mustDo(t, 200, "POST", "/openapi/v3/entity/"+w.entity+"?async=false", []any{map[string]any{"urn": w.urn, w.aspect: map[string]any{"value": value}}})
	}
	// What was sent, as JSON decodes it, compares with what is read.
	want := func(v map[string]any) any { return decode(t, []byte(asJSON(v))) }
	check := func(when string, sent map[string]any) {
		t.Helper()
		got := aspect()
		switch {
		case w.sealed && got != nil:
			t.Errorf("%s after %s is served: %s", w.aspect, when, asJSON(got))
		case !w.sealed && !equivalent(want(sent), got):
			t.Errorf("%s after %s = %s, want %s", w.aspect, when, asJSON(got), asJSON(sent))
		}
	}
	if w.entity != "globalsettings" {
		c.srv.mustDo(t, 404, "GET", path, nil)
	}
	write(w.value)
	check("create", w.value)
	if w.shows != "" {
		if got := r.read(t, c, w.urn); got != w.shows {
			t.Errorf("GraphQL shows %q of what OpenAPI wrote, want %q", got, w.shows)
		}
	}
	write(w.updated)
	check("update", w.updated)
	if !listed() {
		t.Errorf("%s not listed", w.urn)
	}
	c.deleteV3(t, w.entity, w.urn)
	c.srv.mustDo(t, 404, "GET", path, nil)
	if listed() {
		t.Errorf("%s still listed after delete", w.urn)
	}
	if w.shows != "" {
		if got := r.read(t, c, w.urn); got != r.absent {
			t.Errorf("GraphQL shows %q after OpenAPI deleted it, want %q", got, r.absent)
		}
	}
}

// TestGraphQLUpsertCustomAssertion writes an assertion evaluated outside
// the catalog as DataHub's API does (a new URN, then a replacement at the
// same URN) and reports its results, refuses what is wrong without writing
// anything, and needs the right to edit the assertions of the asset;
// updateApplication changes an application and refuses one that does not
// exist.
func TestGraphQLUpsertCustomAssertion(t *testing.T) {
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,custom.orders,PROD)"
	const upsert = `mutation($u: String, $in: UpsertCustomAssertionInput!) { upsertCustomAssertion(urn: $u, input: $in) { urn } }`
	const read = `query($u: String!) { assertion(urn: $u) { platform { urn } info { type description externalUrl source { type }
		customAssertion { type entityUrn field { path } logic } } } }`
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			s.ingestAsAdmin(t, mcp("dataset", ds, "datasetProperties", map[string]any{"name": "orders"}))
			in := map[string]any{"entityUrn": ds, "type": "Freshness check", "description": "loaded daily", "fieldPath": "created_at",
				"platform": map[string]any{"name": "dbt"}, "externalUrl": "https://ci.example.com/checks/1", "logic": "max(created_at) > now() - 1d"}
			d := s.govData(t, s.admin, upsert, map[string]any{"in": in})
			urn, _ := pick(d, []string{"upsertCustomAssertion", "urn"})
			u, _ := urn.(string)
			if !strings.HasPrefix(u, "urn:li:assertion:") {
				t.Fatalf("upsertCustomAssertion = %s", asJSON(d))
			}
			want := `{"assertion":{"info":{"customAssertion":{"entityUrn":"` + ds + `","field":{"path":"created_at"},"logic":"max(created_at) \u003e now() - 1d","type":"Freshness check"},` +
				`"description":"loaded daily","externalUrl":"https://ci.example.com/checks/1","source":{"type":"EXTERNAL"},"type":"CUSTOM"},"platform":{"urn":"urn:li:dataPlatform:dbt"}}}`
			if got := asJSON(s.govData(t, s.admin, read, map[string]any{"u": u})); got != want {
				t.Errorf("assertion = %s\nwant %s", got, want)
			}
			// The second write replaces the first whole.
			s.govData(t, s.admin, upsert, map[string]any{"u": u, "in": map[string]any{"entityUrn": ds, "type": "Row count", "description": "never empty",
				"platform": map[string]any{"urn": "urn:li:dataPlatform:great-expectations"}}})
			want = `{"assertion":{"info":{"customAssertion":{"entityUrn":"` + ds + `","field":null,"logic":null,"type":"Row count"},` +
				`"description":"never empty","externalUrl":null,"source":{"type":"EXTERNAL"},"type":"CUSTOM"},"platform":{"urn":"urn:li:dataPlatform:great-expectations"}}}`
			if got := asJSON(s.govData(t, s.admin, read, map[string]any{"u": u})); got != want {
				t.Errorf("assertion after the second write = %s\nwant %s", got, want)
			}

			// Its results, reported as the platform evaluates it, are its
			// runs on the asset.
			const report = `mutation($u: String!, $r: AssertionResultInput!) { reportAssertionResult(urn: $u, result: $r) }`
			s.govData(t, s.admin, report, map[string]any{"u": u, "r": map[string]any{"type": "SUCCESS", "timestampMillis": 1700000000000,
				"properties": []any{map[string]any{"key": "rows", "value": "42"}}, "externalUrl": "https://ci.example.com/runs/1"}})
			s.govData(t, s.admin, report, map[string]any{"u": u, "r": map[string]any{"type": "ERROR", "timestampMillis": 1700003600000,
				"error": map[string]any{"type": "SOURCE_QUERY_FAILED", "message": "table locked"}}})
			runs := s.govData(t, s.admin, loadUIDocs(t).text(t, "getAssertionRuns"), map[string]any{"assertionUrn": u, "limit": 10})
			for path, want := range map[string]string{
				"assertion.runEvents.total":                            `2`,
				"assertion.runEvents.succeeded":                        `1`,
				"assertion.runEvents.runEvents.*.runId":                `["1700003600000","1700000000000"]`,
				"assertion.runEvents.runEvents.*.result.type":          `["ERROR","SUCCESS"]`,
				"assertion.runEvents.runEvents.0.result.error":         `{"properties":[{"key":"message","value":"table locked"}],"type":"SOURCE_QUERY_FAILED"}`,
				"assertion.runEvents.runEvents.1.result.nativeResults": `[{"key":"rows","value":"42"}]`,
				"assertion.runEvents.runEvents.1.result.externalUrl":   `"https://ci.example.com/runs/1"`,
			} {
				if v, _ := pick(runs, strings.Split(path, ".")); asJSON(v) != want {
					t.Errorf("getAssertionRuns %s = %s, want %s", path, asJSON(v), want)
				}
			}
			s.wantError(t, s.admin, report, map[string]any{"u": "urn:li:assertion:nothing", "r": map[string]any{"type": "SUCCESS"}}, "BAD_REQUEST", "does not exist or is not associated with any entity")
			s.denied(t, reader, report, map[string]any{"u": u, "r": map[string]any{"type": "SUCCESS"}}, "reportAssertionResult")

			const other = "urn:li:assertion:refused"
			base := func(change map[string]any) map[string]any {
				m := map[string]any{"entityUrn": ds, "type": "t", "description": "d", "platform": map[string]any{"name": "dbt"}}
				for k, v := range change {
					m[k] = v
				}
				return m
			}
			for _, tt := range []struct {
				name string
				urn  string
				in   map[string]any
				msg  string
			}{
				{"an asset that does not exist", other, base(map[string]any{"entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,none,PROD)"}), "does not exist"},
				{"no platform", other, base(map[string]any{"platform": map[string]any{}}), "Platform Name or Platform Urn must be specified"},
				{"a platform URN of another type", other, base(map[string]any{"platform": map[string]any{"urn": "urn:li:tag:dbt"}}), "is not a data platform URN"},
				{"a URN that is not an assertion's", "urn:li:tag:refused", base(nil), "is not an assertion URN"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					s.wantError(t, s.admin, upsert, map[string]any{"u": tt.urn, "in": tt.in}, "BAD_REQUEST", tt.msg)
				})
			}
			s.denied(t, reader, upsert, map[string]any{"u": other, "in": base(nil)}, "upsertCustomAssertion")
			// A right on the assertions of one asset writes assertions on
			// it, not over the assertion of another.
			const users = "urn:li:dataset:(urn:li:dataPlatform:hive,custom.users,PROD)"
			s.ingestAsAdmin(t, mcp("dataset", users, "datasetProperties", map[string]any{"name": "users"}))
			s.govData(t, s.admin, `mutation($in: PolicyUpdateInput!) { createPolicy(input: $in) }`, map[string]any{"in": map[string]any{
				"type": "METADATA", "name": "reader asserts on users", "state": "ACTIVE", "privileges": []string{"EDIT_ENTITY_ASSERTIONS"},
				"actors":    map[string]any{"users": []string{"urn:li:corpuser:reader"}, "resourceOwners": false, "allUsers": false, "allGroups": false},
				"resources": map[string]any{"filter": map[string]any{"criteria": []any{map[string]any{"field": "URN", "values": []string{users}, "condition": "EQUALS"}}}}}})
			s.govData(t, reader, upsert, map[string]any{"in": base(map[string]any{"entityUrn": users})})
			s.denied(t, reader, upsert, map[string]any{"u": u, "in": base(map[string]any{"entityUrn": users})}, "upsertCustomAssertion")
			if got, _ := pick(s.govData(t, s.admin, read, map[string]any{"u": u}), []string{"assertion", "info", "customAssertion", "entityUrn"}); got != ds {
				t.Errorf("the assertion on %s now asserts on %v", ds, got)
			}
			if got := asJSON(s.govData(t, s.admin, `{ assertion(urn: "`+other+`") { urn } }`, nil)); got != `{"assertion":null}` {
				t.Errorf("a refused assertion was written: %s", got)
			}

			const update = `mutation($u: String!, $in: UpdateApplicationInput!) { updateApplication(urn: $u, input: $in) { urn properties { name description } } }`
			s.govData(t, s.admin, `mutation { createApplication(input: {id: "billing", properties: {name: "Billing", description: "bills"}}) { urn } }`, nil)
			d = s.govData(t, s.admin, update, map[string]any{"u": "urn:li:application:billing", "in": map[string]any{"description": "sends the bills"}})
			if got := asJSON(d); got != `{"updateApplication":{"properties":{"description":"sends the bills","name":"Billing"},"urn":"urn:li:application:billing"}}` {
				t.Errorf("updateApplication = %s", got)
			}
			s.wantError(t, s.admin, update, map[string]any{"u": "urn:li:application:none", "in": map[string]any{"name": "x"}}, "BAD_REQUEST", "does not exist")
			s.denied(t, reader, update, map[string]any{"u": "urn:li:application:billing", "in": map[string]any{"name": "x"}}, "updateApplication")
		})
	}
}
