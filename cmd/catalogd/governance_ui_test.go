package main

import (
	"slices"
	"strings"
	"testing"
)

// Users, groups and their memberships the governance pages read, besides
// the samples': alice and bob are members of the native group analysts,
// carol is a member of it as her identity provider says, and alice owns
// two of the samples' datasets.
const (
	govAlice, govBob, govCarol = "urn:li:corpuser:gov_alice", "urn:li:corpuser:gov_bob", "urn:li:corpuser:gov_carol"
	govAnalysts                = "urn:li:corpGroup:gov_analysts"
	govRole                    = "urn:li:role:snowflake_reader"
	govHiveSample              = "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"
	govUsersSample             = "urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)"
)

func governanceSeeds() []map[string]any {
	user := func(urn, name string) map[string]any {
		return seed(urn, "corpuser", "corpUserInfo", map[string]any{"active": true, "displayName": name, "fullName": name + " Example", "title": "Analyst", "email": strings.ToLower(name) + "@example.com"})
	}
	owned := func(ds string) map[string]any {
		return seed(ds, "dataset", "ownership", map[string]any{
			"owners":       []any{map[string]any{"owner": govAlice, "type": "TECHNICAL_OWNER"}},
			"lastModified": map[string]any{"time": 0, "actor": "urn:li:corpuser:datahub"}})
	}
	return []map[string]any{
		user(govAlice, "Alice"), user(govBob, "Bob"), user(govCarol, "Carol"),
		seed(govCarol, "corpuser", "groupMembership", map[string]any{"groups": []any{govAnalysts}}),
		seed(govRole, "role", "roleProperties", map[string]any{"name": "Snowflake reader", "description": "reads the warehouse", "type": "READ", "requestUrl": "https://example.com/request"}),
		owned(govHiveSample), owned(govUsersSample),
	}
}

// TestGraphQLUIGovernanceQueries runs the queries of DataHub's settings,
// users and groups, domains and glossary pages, every list of those pages,
// and their domain and tag edits, exactly as the web app sends them,
// against a server loaded with the samples and a few users, groups, a
// domain and a glossary, on each store.
func TestGraphQLUIGovernanceQueries(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			replaySamples(t, srv)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": governanceSeeds(), "async": "false"})
			ui := loadUIOps(t, srv)
			ui.run(t, "createGroup", map[string]any{"input": map[string]any{"id": "gov_analysts", "name": "Analysts", "description": "people who analyse"}})
			ui.run(t, "addGroupMembers", map[string]any{"groupUrn": govAnalysts, "userUrns": []string{govAlice, govBob}})
			testGovernanceRoleQueries(t, ui)
			testGovernanceGroupQueries(t, ui)
			testGovernanceUserQueries(t, ui)
			testGovernanceDomainSummary(t, srv, ui)
			testGovernanceGlossaryNodeChildren(t, ui)
			testGovernanceLists(t, ui)
			testGovernanceEdits(t, ui)
		})
	}
}

// testGovernanceEdits runs the web app's domain and tag colour edits on a
// sample dataset and tag: setDomain puts the dataset in the domain's
// summary, unsetDomain takes it out.
func testGovernanceEdits(t *testing.T, ui *uiOps) {
	const kafka, domain = "urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)", "urn:li:domain:gov_sales"
	datasets := func() int {
		t.Helper()
		d := ui.run(t, "getDomainEntitySummary", map[string]any{"urn": domain})
		for _, f := range get(t, d, "aggregateAcrossEntities.facets").([]any) {
			if get(t, f, "field") != "_entityType" {
				continue
			}
			for _, a := range get(t, f, "aggregations").([]any) {
				if get(t, a, "value") == "DATASET" {
					return num(t, get(t, a, "count"))
				}
			}
		}
		return 0
	}
	t.Run("setDomain", func(t *testing.T) {
		ui.run(t, "setDomain", map[string]any{"entityUrn": kafka, "domainUrn": domain})
		if n := datasets(); n != 3 {
			t.Errorf("datasets in the domain after setDomain = %d, want 3", n)
		}
		ui.run(t, "unsetDomain", map[string]any{"entityUrn": kafka})
		if n := datasets(); n != 2 {
			t.Errorf("datasets in the domain after unsetDomain = %d, want 2", n)
		}
	})
	t.Run("setTagColor", func(t *testing.T) {
		ui.run(t, "setTagColor", map[string]any{"urn": "urn:li:tag:Legacy", "colorHex": "#aa3300"})
		d := ui.run(t, "getTag", map[string]any{"urn": "urn:li:tag:Legacy"})
		if got := get(t, d, "tag.properties.colorHex"); got != "#aa3300" {
			t.Errorf("colour of the tag = %v", got)
		}
	})
}

// testGovernanceLists runs every list of the settings and governance pages
// on the samples and what the other subtests added: each answers, and
// lists what it must (and not what it must not: a child glossary node is
// not a root one).
func testGovernanceLists(t *testing.T, ui *uiOps) {
	page := map[string]any{"start": 0, "count": 100}
	input := map[string]any{"input": page}
	search := func(types ...string) map[string]any {
		return map[string]any{"input": map[string]any{"types": types, "query": "*", "start": 0, "count": 100}}
	}
	tests := []struct {
		op           string
		vars         map[string]any
		list, urn    string
		has, hasNone []string
	}{
		{"listUsers", input, "listUsers.users", "urn", []string{govAlice, govBob, govCarol, "urn:li:corpuser:datahub"}, nil},
		{"listGroups", input, "listGroups.groups", "urn", []string{govAnalysts}, nil},
		{"listDomains", input, "listDomains.domains", "urn", []string{"urn:li:domain:gov_sales"}, nil},
		{"getRootGlossaryNodes", nil, "getRootGlossaryNodes.nodes", "urn", []string{"urn:li:glossaryNode:gov_finance"}, []string{"urn:li:glossaryNode:gov_tax"}},
		{"getRootGlossaryTerms", nil, "getRootGlossaryTerms.terms", "urn", nil, []string{"urn:li:glossaryTerm:gov_revenue", "urn:li:glossaryTerm:gov_vat"}},
		{"listRoles", input, "listRoles.roles", "urn", []string{"urn:li:dataHubRole:Admin", "urn:li:dataHubRole:Editor", "urn:li:dataHubRole:Reader"}, nil},
		{"listOwnershipTypes", input, "listOwnershipTypes.ownershipTypes", "urn", []string{"urn:li:ownershipType:__system__technical_owner"}, nil},
		{"listPolicies", input, "listPolicies.policies", "urn", nil, nil},
		{"listPosts", input, "listPosts.posts", "urn", nil, nil},
		{"listIngestionSources", input, "listIngestionSources.ingestionSources", "urn", nil, nil},
		{"listSecrets", input, "listSecrets.secrets", "urn", nil, nil},
		{"listTests", input, "listTests.tests", "urn", nil, nil},
		{"listBusinessAttributes", map[string]any{"start": 0, "count": 100, "query": "*"}, "listBusinessAttributes.businessAttributes", "urn", nil, nil},
		{"listMyViews", page, "listMyViews.views", "urn", nil, nil},
		{"listGlobalViews", page, "listGlobalViews.views", "urn", nil, nil},
		{"listAccessTokens", input, "listAccessTokens.tokens", "urn", nil, nil},
		{"searchStructuredProperties", map[string]any{"query": "*", "start": 0, "count": 100}, "searchAcrossEntities.searchResults", "entity.urn", nil, nil},
		{"getDataProductsList", search("DATA_PRODUCT"), "searchAcrossEntities.searchResults", "entity.urn", []string{"urn:li:dataProduct:gov_leads"}, nil},
		{"getApplicationsList", search("APPLICATION"), "searchAcrossEntities.searchResults", "entity.urn", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			got := urnsAt(t, ui.run(t, tt.op, tt.vars), tt.list, tt.urn)
			for _, u := range tt.has {
				if !slices.Contains(got, u) {
					t.Errorf("%s is not listed: %v", u, got)
				}
			}
			for _, u := range tt.hasNone {
				if slices.Contains(got, u) {
					t.Errorf("%s is listed: %v", u, got)
				}
			}
		})
	}
}

func testGovernanceRoleQueries(t *testing.T, ui *uiOps) {
	t.Run("getExternalRole", func(t *testing.T) {
		d := ui.run(t, "getExternalRole", map[string]any{"urn": govRole})
		if got := asJSON(get(t, d, "role.properties")); got != `{"description":"reads the warehouse","name":"Snowflake reader"}` {
			t.Errorf("role properties = %s", got)
		}
		d = ui.run(t, "getExternalRole", map[string]any{"urn": "urn:li:role:nobody"})
		if d["role"] != nil {
			t.Errorf("a role nobody wrote = %s", asJSON(d["role"]))
		}
	})
}

func testGovernanceGroupQueries(t *testing.T, ui *uiOps) {
	tests := []struct {
		op           string
		start, count int
		total        int
		members      []string
	}{
		{"getAllGroupMembers", 0, 10, 3, []string{govAlice, govBob, govCarol}},
		{"getAllGroupMembers", 3, 10, 3, []string{}},
		{"getNativeGroupMembers", 0, 10, 2, []string{govAlice, govBob}},
		{"getGroupMembers", 0, 10, 1, []string{govCarol}},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			d := ui.run(t, tt.op, map[string]any{"urn": govAnalysts, "start": tt.start, "count": tt.count})
			rel := get(t, d, "corpGroup.relationships")
			if n := num(t, get(t, rel, "total")); n != tt.total {
				t.Errorf("start %d count %d: total = %d, want %d", tt.start, tt.count, n, tt.total)
			}
			members := urnsAt(t, rel, "relationships", "entity.urn")
			slices.Sort(members)
			if !slices.Equal(members, tt.members) {
				t.Errorf("start %d count %d: members = %v, want %v", tt.start, tt.count, members, tt.members)
			}
			if n := num(t, get(t, rel, "count")); n != len(tt.members) {
				t.Errorf("start %d count %d: count = %d, want %d", tt.start, tt.count, n, len(tt.members))
			}
			for _, m := range get(t, rel, "relationships").([]any) {
				e := get(t, m, "entity")
				name := map[string]string{govAlice: "Alice", govBob: "Bob", govCarol: "Carol"}[get(t, e, "urn").(string)]
				if get(t, e, "info.displayName") != name || get(t, e, "info.fullName") != name+" Example" || get(t, e, "info.active") != true ||
					get(t, e, "username") != "gov_"+strings.ToLower(name) {
					t.Errorf("member = %s", asJSON(e))
				}
			}
		})
	}
	// Pages of one member each are the members, each once.
	t.Run("getAllGroupMembers pages", func(t *testing.T) {
		var all []string
		for start := range 3 {
			d := ui.run(t, "getAllGroupMembers", map[string]any{"urn": govAnalysts, "start": start, "count": 1})
			page := urnsAt(t, d, "corpGroup.relationships.relationships", "entity.urn")
			if len(page) != 1 || num(t, get(t, d, "corpGroup.relationships.start")) != start {
				t.Fatalf("page at %d = %v (start %v)", start, page, get(t, d, "corpGroup.relationships.start"))
			}
			all = append(all, page...)
		}
		slices.Sort(all)
		if want := []string{govAlice, govBob, govCarol}; !slices.Equal(all, want) {
			t.Errorf("members page by page = %v, want %v", all, want)
		}
	})
}

func testGovernanceUserQueries(t *testing.T, ui *uiOps) {
	for _, tt := range []struct {
		user   string
		groups []string
	}{{govAlice, []string{govAnalysts}}, {govCarol, []string{govAnalysts}}, {"urn:li:corpuser:datahub", []string{}}} {
		t.Run("getUserGroups", func(t *testing.T) {
			d := ui.run(t, "getUserGroups", map[string]any{"urn": tt.user, "start": 0, "count": 20})
			rel := get(t, d, "corpUser.relationships")
			if got := urnsAt(t, rel, "relationships", "entity.urn"); !slices.Equal(got, tt.groups) {
				t.Fatalf("%s: groups = %v, want %v", tt.user, got, tt.groups)
			}
			if num(t, get(t, rel, "total")) != len(tt.groups) {
				t.Errorf("%s: total = %v", tt.user, get(t, rel, "total"))
			}
			if len(tt.groups) > 0 {
				g := get(t, rel, "relationships.0.entity")
				if get(t, g, "name") != "gov_analysts" || get(t, g, "type") != "CORP_GROUP" || get(t, g, "info.displayName") != "Analysts" ||
					get(t, g, "info.description") != "people who analyse" || num(t, get(t, g, "relationships.total")) != 3 {
					t.Errorf("%s: group = %s", tt.user, asJSON(g))
				}
			}
		})
		t.Run("getUserGroupsUrns", func(t *testing.T) {
			d := ui.run(t, "getUserGroupsUrns", map[string]any{"urn": tt.user, "start": 0, "count": 20})
			if got := urnsAt(t, d, "corpUser.relationships.relationships", "entity.urn"); !slices.Equal(got, tt.groups) {
				t.Errorf("%s: groups = %v, want %v", tt.user, got, tt.groups)
			}
		})
	}
	t.Run("getUsers", func(t *testing.T) {
		d := ui.run(t, "getUsers", map[string]any{"urns": []string{govCarol, govAlice, "urn:li:corpuser:datahub"}})
		if got := urnsAt(t, d, "entities", "urn"); !slices.Equal(got, []string{govCarol, govAlice, "urn:li:corpuser:datahub"}) {
			t.Fatalf("users = %v", got)
		}
		if get(t, d, "entities.0.type") != "CORP_USER" || get(t, d, "entities.0.username") != "gov_carol" || get(t, d, "entities.0.info.email") != "carol@example.com" {
			t.Errorf("carol = %s", asJSON(get(t, d, "entities.0")))
		}
	})
	t.Run("getUserOwnedAssets", func(t *testing.T) {
		d := ui.run(t, "getUserOwnedAssets", map[string]any{"urns": []string{govAlice}})
		got := urnsAt(t, d, "searchAcrossEntities.searchResults", "entity.urn")
		slices.Sort(got)
		if want := []string{govHiveSample, govUsersSample}; !slices.Equal(got, want) || num(t, get(t, d, "searchAcrossEntities.total")) != 2 {
			t.Errorf("alice owns %v (total %v), want %v", got, get(t, d, "searchAcrossEntities.total"), want)
		}
		d = ui.run(t, "getUserOwnedAssets", map[string]any{"urns": []string{govBob}})
		if n := num(t, get(t, d, "searchAcrossEntities.total")); n != 0 {
			t.Errorf("bob owns %d assets, want none", n)
		}
	})
}

// testGovernanceDomainSummary puts two datasets and a data product in a
// domain: the domain's summary counts the datasets by type, and leaves
// data products out as DataHub's domain page does.
func testGovernanceDomainSummary(t *testing.T, srv *testServer, ui *uiOps) {
	t.Run("getDomainEntitySummary", func(t *testing.T) {
		const domain = "urn:li:domain:gov_sales"
		ui.run(t, "createDomain", map[string]any{"input": map[string]any{"id": "gov_sales", "name": "Sales (governance)"}})
		in := map[string]any{"domains": []any{domain}}
		srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"async": "false", "proposals": []map[string]any{
			seed(govHiveSample, "dataset", "domains", in), seed(govUsersSample, "dataset", "domains", in),
			seed("urn:li:dataProduct:gov_leads", "dataProduct", "dataProductProperties", map[string]any{"name": "Leads"}),
			seed("urn:li:dataProduct:gov_leads", "dataProduct", "domains", in),
		}})
		d := ui.run(t, "getDomainEntitySummary", map[string]any{"urn": domain})
		counts := map[string]map[string]int{}
		for _, f := range get(t, d, "aggregateAcrossEntities.facets").([]any) {
			field, _ := get(t, f, "field").(string)
			counts[field] = map[string]int{}
			for _, a := range get(t, f, "aggregations").([]any) {
				counts[field][get(t, a, "value").(string)] = num(t, get(t, a, "count"))
			}
		}
		// A value a filter names stays in its facet, with no entities when
		// the filter excludes it.
		if got := asJSON(counts["_entityType"]); got != `{"DATASET":2,"DATA_PRODUCT":0}` {
			t.Errorf("entities of the domain by type = %s (facets %s)", got, asJSON(counts))
		}
		if _, ok := counts["_entityType␞typeNames"]; !ok {
			t.Errorf("no _entityType␞typeNames facet in %s", asJSON(counts))
		}
	})
}

// testGovernanceGlossaryNodeChildren builds a node with a child node and
// two terms, as the glossary sidebar lists them.
func testGovernanceGlossaryNodeChildren(t *testing.T, ui *uiOps) {
	t.Run("getGlossaryNodeWithChildren", func(t *testing.T) {
		const node = "urn:li:glossaryNode:gov_finance"
		ui.run(t, "createGlossaryNode", map[string]any{"input": map[string]any{"id": "gov_finance", "name": "Finance (governance)", "description": "money"}})
		ui.run(t, "createGlossaryNode", map[string]any{"input": map[string]any{"id": "gov_tax", "name": "Tax", "parentNode": node}})
		ui.run(t, "createGlossaryTerm", map[string]any{"input": map[string]any{"id": "gov_revenue", "name": "Revenue", "parentNode": node}})
		ui.run(t, "createGlossaryTerm", map[string]any{"input": map[string]any{"id": "gov_cost", "name": "Cost", "parentNode": node}})
		ui.run(t, "createGlossaryTerm", map[string]any{"input": map[string]any{"id": "gov_vat", "name": "VAT", "parentNode": "urn:li:glossaryNode:gov_tax"}})
		d := ui.run(t, "getGlossaryNodeWithChildren", map[string]any{"urn": node})
		if get(t, d, "glossaryNode.properties.name") != "Finance (governance)" {
			t.Errorf("node = %s", asJSON(get(t, d, "glossaryNode.properties")))
		}
		children := get(t, d, "glossaryNode.children")
		got := urnsAt(t, children, "relationships", "entity.urn")
		slices.Sort(got)
		want := []string{"urn:li:glossaryNode:gov_tax", "urn:li:glossaryTerm:gov_cost", "urn:li:glossaryTerm:gov_revenue"}
		if !slices.Equal(got, want) || num(t, get(t, children, "total")) != 3 {
			t.Fatalf("children = %v (total %v), want %v", got, get(t, children, "total"), want)
		}
		for _, r := range get(t, children, "relationships").([]any) {
			e := get(t, r, "entity")
			if get(t, r, "direction") != "INCOMING" {
				t.Errorf("%v: direction %v", get(t, e, "urn"), get(t, r, "direction"))
			}
			if get(t, e, "urn") == "urn:li:glossaryNode:gov_tax" && (get(t, e, "type") != "GLOSSARY_NODE" || get(t, e, "properties.name") != "Tax") {
				t.Errorf("child node = %s", asJSON(e))
			}
			if get(t, e, "urn") == "urn:li:glossaryTerm:gov_revenue" && (get(t, e, "type") != "GLOSSARY_TERM" || get(t, e, "properties.name") != "Revenue") {
				t.Errorf("child term = %s", asJSON(e))
			}
		}
	})
}

// TestGraphQLUITokens runs the web app's token operations as it sends
// them: getAccessToken answers a working token for the caller,
// getInviteToken the same invite token of a role until it is replaced, and
// createNativeUserResetToken a link that resets a password once.
func TestGraphQLUITokens(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			d := s.govData(t, s.admin, ops.text(t, "getAccessToken"), map[string]any{"input": map[string]any{"type": "PERSONAL", "actorUrn": "urn:li:corpuser:datahub", "duration": "ONE_HOUR"}})
			tok, _ := pick(d, []string{"getAccessToken", "accessToken"})
			token, _ := tok.(string)
			if token == "" {
				t.Fatalf("getAccessToken = %s", asJSON(d))
			}
			d = s.govData(t, token, `{ me { corpUser { urn } } }`, nil)
			if who, _ := pick(d, []string{"me", "corpUser", "urn"}); who != "urn:li:corpuser:datahub" {
				t.Errorf("the token acts as %v", who)
			}

			invite := func() string {
				t.Helper()
				d := s.govData(t, s.admin, ops.text(t, "getInviteToken"), map[string]any{"input": map[string]any{"roleUrn": "urn:li:dataHubRole:Reader"}})
				v, _ := pick(d, []string{"getInviteToken", "inviteToken"})
				s, _ := v.(string)
				return s
			}
			first := invite()
			if first == "" || invite() != first {
				t.Fatalf("getInviteToken answered %q, then another", first)
			}
			s.govData(t, s.admin, ops.text(t, "createInviteToken"), map[string]any{"input": map[string]any{"roleUrn": "urn:li:dataHubRole:Reader"}})
			again := invite()
			if again == "" || again == first {
				t.Fatalf("invite token after createInviteToken = %q, want a new one", again)
			}

			// A user who signed up with it gets a password reset link from
			// an administrator, as the users page makes one.
			if st, b := s.call(t, "", "POST", "/signUp", map[string]string{"fullName": "Grace", "email": "grace@example.com", "title": "Analyst",
				"password": "first password", "inviteToken": again}); st != 200 {
				t.Fatalf("sign up: %d %s", st, b)
			}
			d = s.govData(t, s.admin, ops.text(t, "createNativeUserResetToken"), map[string]any{"input": map[string]any{"userUrn": "urn:li:corpuser:grace@example.com"}})
			reset, _ := pick(d, []string{"createNativeUserResetToken", "resetToken"})
			if st, b := s.call(t, "", "POST", "/resetNativeUserCredentials", map[string]any{"email": "grace@example.com", "password": "second password", "resetToken": reset}); st != 200 {
				t.Fatalf("reset with %s: %d %s", asJSON(d), st, b)
			}
			s.login(t, "grace@example.com", "second password")
		})
	}
}
