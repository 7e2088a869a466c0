package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The governance end-to-end tests: domains, glossary, ownership types, roles
// and policies, users and groups, through GraphQL as DataHub's web app sends
// it (its own operation documents) and as the terraform provider does, and
// the validation errors in the words of DataHub's GraphQL engine that
// clients recognise.

// govData runs a GraphQL operation that must succeed as the token's user
// and returns its data decoded.
func (s *authServer) govData(t testing.TB, token, query string, vars map[string]any) map[string]any {
	t.Helper()
	r := s.gql(t, token, query, vars)
	if len(r.Errors) > 0 {
		t.Fatalf("graphql errors: %+v\nquery: %.200s", r.Errors, query)
	}
	out := map[string]any{}
	for k, v := range r.Data {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			t.Fatal(err)
		}
		out[k] = x
	}
	return out
}

// govError runs an operation that must fail and returns its one error's
// message and type.
func (s *authServer) govError(t testing.TB, token, query string, vars map[string]any) (string, string) {
	t.Helper()
	r := s.gql(t, token, query, vars)
	if len(r.Errors) != 1 {
		t.Fatalf("errors = %+v, want one\nquery: %.200s", r.Errors, query)
	}
	typ, _ := r.Errors[0].Extensions["type"].(string)
	return r.Errors[0].Message, typ
}

// wantError checks that an operation fails with an error of type typ whose
// message contains msg.
func (s *authServer) wantError(t testing.TB, token, query string, vars map[string]any, typ, msg string) {
	t.Helper()
	m, ty := s.govError(t, token, query, vars)
	if ty != typ || !strings.Contains(m, msg) {
		t.Errorf("error = %s %q, want %s containing %q", ty, m, typ, msg)
	}
}

func TestGraphQLValidationWording(t *testing.T) {
	srv := startServer(t)
	tests := []struct {
		name, query, want string
	}{
		{"undefined mutation", `mutation { createWidget(input: {name: "x"}) }`,
			"Validation error (FieldUndefined@[createWidget]) : Field 'createWidget' in type 'Mutation' is undefined"},
		{"undefined query field", `{ nope }`,
			"Validation error (FieldUndefined@[nope]) : Field 'nope' in type 'Query' is undefined"},
		{"undefined nested field", `query Q { me { corpUser { urn nothingHere } } }`,
			"Validation error (FieldUndefined@[me/corpUser/nothingHere]) : Field 'nothingHere' in type 'CorpUser' is undefined"},
		{"undefined field under an alias", `{ who: me { corpUser { urnn } } }`,
			"Validation error (FieldUndefined@[me/corpUser/urnn]) : Field 'urnn' in type 'CorpUser' is undefined"},
		{"undefined field in a fragment", `query Q { me { ...F } } fragment F on AuthenticatedUser { corpUser { bogus } }`,
			"Validation error (FieldUndefined@[F/corpUser/bogus]) : Field 'bogus' in type 'CorpUser' is undefined"},
		{"unknown fragment type", `query Q { me { ...F } } fragment F on Nothing { urn }`,
			"Validation error (UnknownType@[F]) : Unknown type 'Nothing'"},
		{"unknown variable type", `mutation M($input: CreateWidgetInput!) { createTag(input: $input) }`,
			"Validation error (UnknownType) : Unknown type 'CreateWidgetInput'"},
		{"unknown inline fragment type", `{ entity(urn: "urn:li:tag:x") { urn ... on Widget { urn } } }`,
			"Validation error (UnknownType@[entity]) : Unknown type 'Widget'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := srv.gql(t, tt.query, nil)
			found := false
			for _, e := range r.Errors {
				if e["message"] == tt.want {
					found = true
					ext, _ := e["extensions"].(map[string]any)
					if ext["classification"] != "ValidationError" || ext["code"] != json.Number("400") {
						t.Errorf("extensions = %v, want classification ValidationError and code 400", ext)
					}
				}
			}
			if !found {
				t.Errorf("errors = %v, want one reading %q", r.Errors, tt.want)
			}
			if r.Data != nil {
				t.Errorf("data = %v, want none for a query that does not validate", r.Data)
			}
		})
	}
	// Other validation errors keep their words.
	e := srv.gqlError(t, `{ dataset(urn: 5) { urn } }`, nil)
	if m, _ := e["message"].(string); m == "" || strings.HasPrefix(m, "Validation error") {
		t.Errorf("argument type error = %v", e)
	}
}

// TestGovernanceDomains builds a domain tree as the web app does, moves and
// deletes domains, and checks DataHub's refusals: a name twice under one
// parent, a move under a subdomain or a missing domain, a delete of a
// domain with subdomains, and a user without Manage Domains.
func TestGovernanceDomains(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			create := func(id, name, parent string) {
				t.Helper()
				in := map[string]any{"id": id, "name": name, "description": name + " things"}
				if parent != "" {
					in["parentDomain"] = parent
				}
				d := s.govData(t, s.admin, ops.text(t, "createDomain"), map[string]any{"input": in})
				if d["createDomain"] != "urn:li:domain:"+id {
					t.Fatalf("createDomain = %v", d)
				}
			}
			const finance, payments, cards, hr = "urn:li:domain:finance", "urn:li:domain:payments", "urn:li:domain:cards", "urn:li:domain:hr"
			create("finance", "Finance", "")
			create("payments", "Payments", finance)
			create("cards", "Cards", payments)
			create("hr", "HR", "")
			parents := func(urn string) string {
				t.Helper()
				d := s.govData(t, s.admin, ops.text(t, "getDomain"), map[string]any{"urn": urn})
				got, _ := pick(d, []string{"domain", "parentDomains", "domains", "*", "urn"})
				n, _ := pick(d, []string{"domain", "parentDomains", "count"})
				return asJSON(got) + " " + asJSON(n)
			}
			if got, want := parents(cards), `["urn:li:domain:payments","urn:li:domain:finance"] 2`; got != want {
				t.Errorf("parents of cards = %s, want %s", got, want)
			}
			children := func(urn string) float64 {
				t.Helper()
				d := s.govData(t, s.admin, ops.text(t, "getDomainChildrenCount"), map[string]any{"urn": urn})
				n, _ := pick(d, []string{"domain", "children", "total"})
				f, _ := n.(float64)
				return f
			}
			if n := children(finance); n != 1 {
				t.Errorf("children of finance = %v, want 1", n)
			}

			// A name is unique under its parent, without regard to case.
			s.wantError(t, s.admin, ops.text(t, "createDomain"), map[string]any{"input": map[string]any{"name": "payments", "parentDomain": finance}},
				"CONFLICT", `"payments" already exists in this domain. Please pick a unique name.`)

			move := ops.text(t, "moveDomain")
			s.wantError(t, s.admin, move, map[string]any{"input": map[string]any{"resourceUrn": finance, "parentDomain": cards}},
				"BAD_REQUEST", "under itself or one of its subdomains")
			s.wantError(t, s.admin, move, map[string]any{"input": map[string]any{"resourceUrn": finance, "parentDomain": "urn:li:domain:nope"}},
				"BAD_REQUEST", "Parent entity does not exist.")
			s.wantError(t, s.admin, move, map[string]any{"input": map[string]any{"resourceUrn": finance, "parentDomain": "urn:li:tag:x"}},
				"BAD_REQUEST", "Parent entity is not a domain.")
			s.wantError(t, s.admin, move, map[string]any{"input": map[string]any{"resourceUrn": "urn:li:tag:x"}},
				"BAD_REQUEST", "Resource is not a domain.")
			s.wantError(t, reader, move, map[string]any{"input": map[string]any{"resourceUrn": cards}}, "UNAUTHORIZED", "Unauthorized")

			// Cards moves under HR, then to the top level.
			if d := s.govData(t, s.admin, move, map[string]any{"input": map[string]any{"resourceUrn": cards, "parentDomain": hr}}); d["moveDomain"] != true {
				t.Fatalf("moveDomain = %v", d)
			}
			if got, want := parents(cards), `["urn:li:domain:hr"] 1`; got != want {
				t.Errorf("parents of cards after the move = %s, want %s", got, want)
			}
			if n := children(payments); n != 0 {
				t.Errorf("children of payments after the move = %v, want 0", n)
			}
			s.govData(t, s.admin, move, map[string]any{"input": map[string]any{"resourceUrn": cards}})
			if got, want := parents(cards), `[] 0`; got != want {
				t.Errorf("parents of cards at the top = %s, want %s", got, want)
			}
			// A top-level HR may not be joined by a second one.
			create("people", "People", finance)
			s.govData(t, s.admin, ops.text(t, "updateName"), map[string]any{"input": map[string]any{"urn": "urn:li:domain:people", "name": "Hr"}})
			s.wantError(t, s.admin, move, map[string]any{"input": map[string]any{"resourceUrn": "urn:li:domain:people"}},
				"CONFLICT", `"Hr" already exists in the destination domain. Please pick a unique name.`)

			// A domain with subdomains stays; a leaf goes, and the entities
			// in it leave it.
			del := ops.text(t, "deleteDomain")
			s.wantError(t, s.admin, del, map[string]any{"urn": finance}, "BAD_REQUEST", "Cannot delete domain urn:li:domain:finance which has child domains")
			const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.orders,PROD)"
			s.ingestAsAdmin(t, mcp("dataset", ds, "domains", map[string]any{"domains": []string{payments}}))
			d := s.govData(t, s.admin, ops.text(t, "getDomain"), map[string]any{"urn": payments})
			if n, _ := pick(d, []string{"domain", "entities", "total"}); n != float64(1) {
				t.Errorf("entities of payments = %v, want 1", n)
			}
			s.wantError(t, reader, del, map[string]any{"urn": payments}, "UNAUTHORIZED", "Unauthorized")
			// A manager of domains deletes one, and the dataset leaves it,
			// without any right to edit the dataset.
			s.govData(t, s.admin, ops.text(t, "updatePolicy"), map[string]any{"urn": "urn:li:dataHubPolicy:reader-manages-domains", "input": map[string]any{
				"type": "PLATFORM", "name": "Reader manages domains", "state": "ACTIVE", "privileges": []string{"MANAGE_DOMAINS"},
				"actors": map[string]any{"users": []string{"urn:li:corpuser:reader"}, "resourceOwners": false, "allUsers": false, "allGroups": false}}})
			if code, _ := s.call(t, bearer(reader), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("dataset", ds, "status", map[string]any{"removed": false})}); code != 403 {
				t.Fatalf("the manager of domains may edit the dataset (%d): the test proves nothing", code)
			}
			if d := s.govData(t, reader, del, map[string]any{"urn": payments}); d["deleteDomain"] != true {
				t.Fatalf("deleteDomain = %v", d)
			}
			d = s.govData(t, s.admin, `query($u: String!) { dataset(urn: $u) { domain { domain { urn } } } }`, map[string]any{"u": ds})
			if got := asJSON(d); got != `{"dataset":{"domain":null}}` {
				t.Errorf("dataset after its domain was deleted = %s", got)
			}
			d = s.govData(t, s.admin, ops.text(t, "listDomains"), map[string]any{"input": map[string]any{"start": 0, "count": 20}})
			urns, _ := pick(d, []string{"listDomains", "domains", "*", "urn"})
			if got := asJSON(urns); strings.Contains(got, payments) || !strings.Contains(got, finance) || !strings.Contains(got, cards) {
				t.Errorf("domains after the delete = %s", got)
			}
			// batchSetDomain moves entities in and out of a domain, all or
			// none of them.
			const ds2 = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.payroll,PROD)"
			s.ingestAsAdmin(t, mcp("dataset", ds2, "status", map[string]any{"removed": false}))
			batch := ops.text(t, "batchSetDomain")
			refs := []any{map[string]any{"resourceUrn": ds}, map[string]any{"resourceUrn": ds2}}
			domainOf := func() string {
				t.Helper()
				d := s.govData(t, s.admin, `query($a: String!, $b: String!) { a: dataset(urn: $a) { domain { domain { urn } } } b: dataset(urn: $b) { domain { domain { urn } } } }`, map[string]any{"a": ds, "b": ds2})
				a, _ := pick(d, []string{"a", "domain", "domain", "urn"})
				b, _ := pick(d, []string{"b", "domain", "domain", "urn"})
				return asJSON([]any{a, b})
			}
			s.wantError(t, s.admin, batch, map[string]any{"input": map[string]any{"domainUrn": hr, "resources": append(refs, map[string]any{"resourceUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,nope,PROD)"})}},
				"BAD_REQUEST", "does not exist")
			if got := domainOf(); got != `[null,null]` {
				t.Errorf("domains after a failed batchSetDomain = %s", got)
			}
			s.wantError(t, reader, batch, map[string]any{"input": map[string]any{"domainUrn": hr, "resources": refs}}, "UNAUTHORIZED", "Unauthorized")
			s.govData(t, s.admin, batch, map[string]any{"input": map[string]any{"domainUrn": hr, "resources": refs}})
			if got := domainOf(); got != `["urn:li:domain:hr","urn:li:domain:hr"]` {
				t.Errorf("domains after batchSetDomain = %s", got)
			}
			s.govData(t, s.admin, batch, map[string]any{"input": map[string]any{"resources": refs[:1]}})
			if got := domainOf(); got != `[null,"urn:li:domain:hr"]` {
				t.Errorf("domains after unsetting one = %s", got)
			}

			// Finance now has one subdomain left (people); once it is gone,
			// finance can go too.
			s.govData(t, s.admin, del, map[string]any{"urn": "urn:li:domain:people"})
			s.govData(t, s.admin, del, map[string]any{"urn": finance})
		})
	}
}

// TestGovernanceGlossary builds a glossary as the web app does, relates
// terms (Is A, Has A), moves a term between nodes and deletes a node and a
// term, checking what refers to them follows.
func TestGovernanceGlossary(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			node := func(id, name, parent string) string {
				t.Helper()
				in := map[string]any{"id": id, "name": name}
				if parent != "" {
					in["parentNode"] = parent
				}
				d := s.govData(t, s.admin, ops.text(t, "createGlossaryNode"), map[string]any{"input": in})
				return d["createGlossaryNode"].(string)
			}
			term := func(id, name, parent string) string {
				t.Helper()
				in := map[string]any{"id": id, "name": name, "description": name + " means"}
				if parent != "" {
					in["parentNode"] = parent
				}
				d := s.govData(t, s.admin, ops.text(t, "createGlossaryTerm"), map[string]any{"input": in})
				return d["createGlossaryTerm"].(string)
			}
			finance := node("finance", "Finance", "")
			banking := node("banking", "Banking", finance)
			account := term("account", "Account", banking)
			savings := term("savings", "Savings", banking)
			balance := term("balance", "Balance", "")
			pii := term("pii", "PII", "")

			relate := ops.text(t, "addRelatedTerms")
			for _, c := range []struct {
				typ   string
				terms []string
			}{{"isA", []string{account}}, {"hasA", []string{balance, pii}}, {"hasA", []string{balance}}} {
				if d := s.govData(t, s.admin, relate, map[string]any{"input": map[string]any{"urn": savings, "termUrns": c.terms, "relationshipType": c.typ}}); d["addRelatedTerms"] != true {
					t.Fatalf("addRelatedTerms = %v", d)
				}
			}
			related := func(urn string) string {
				t.Helper()
				d := s.govData(t, s.admin, ops.text(t, "getGlossaryTerm"), map[string]any{"urn": urn, "start": 0, "count": 10})
				isA, _ := pick(d, []string{"glossaryTerm", "isRelatedTerms", "relationships", "*", "entity", "urn"})
				hasA, _ := pick(d, []string{"glossaryTerm", "hasRelatedTerms", "relationships", "*", "entity", "urn"})
				children, _ := pick(d, []string{"glossaryTerm", "isAChildren", "relationships", "*", "entity", "urn"})
				return "isA " + asJSON(isA) + " hasA " + asJSON(hasA) + " isA children " + asJSON(children)
			}
			// Added twice, balance is there once.
			if got, want := related(savings), `isA ["urn:li:glossaryTerm:account"] hasA ["urn:li:glossaryTerm:balance","urn:li:glossaryTerm:pii"] isA children []`; got != want {
				t.Errorf("related terms of savings = %s\nwant %s", got, want)
			}
			if got, want := related(account), `isA [] hasA [] isA children ["urn:li:glossaryTerm:savings"]`; got != want {
				t.Errorf("related terms of account = %s\nwant %s", got, want)
			}
			for _, c := range []struct {
				name string
				in   map[string]any
				typ  string
				msg  string
			}{
				{"itself", map[string]any{"urn": savings, "termUrns": []string{savings}, "relationshipType": "isA"}, "BAD_REQUEST", "Tried to create related term with itself."},
				{"a node", map[string]any{"urn": savings, "termUrns": []string{banking}, "relationshipType": "isA"}, "BAD_REQUEST", "urn:li:glossaryNode:banking is not a glossaryTerm."},
				{"a missing term", map[string]any{"urn": savings, "termUrns": []string{"urn:li:glossaryTerm:nope"}, "relationshipType": "hasA"}, "BAD_REQUEST", "urn:li:glossaryTerm:nope does not exist."},
				{"from a node", map[string]any{"urn": banking, "termUrns": []string{savings}, "relationshipType": "isA"}, "BAD_REQUEST", "either does not exist or is not a glossaryTerm."},
			} {
				s.wantError(t, s.admin, relate, map[string]any{"input": c.in}, c.typ, c.msg)
			}
			s.wantError(t, reader, relate, map[string]any{"input": map[string]any{"urn": savings, "termUrns": []string{balance}, "relationshipType": "isA"}}, "UNAUTHORIZED", "Unauthorized")
			unrelate := ops.text(t, "removeRelatedTerms")
			s.wantError(t, s.admin, unrelate, map[string]any{"input": map[string]any{"urn": balance, "termUrns": []string{pii}, "relationshipType": "hasA"}},
				"BAD_REQUEST", "Related Terms for this Urn do not exist: urn:li:glossaryTerm:balance")
			s.govData(t, s.admin, unrelate, map[string]any{"input": map[string]any{"urn": savings, "termUrns": []string{pii}, "relationshipType": "hasA"}})
			if got, want := related(savings), `isA ["urn:li:glossaryTerm:account"] hasA ["urn:li:glossaryTerm:balance"] isA children []`; got != want {
				t.Errorf("related terms of savings after the removal = %s\nwant %s", got, want)
			}

			roots := func() string {
				t.Helper()
				nodes, _ := pick(s.govData(t, s.admin, ops.text(t, "getRootGlossaryNodes"), nil), []string{"getRootGlossaryNodes", "nodes", "*", "urn"})
				terms, _ := pick(s.govData(t, s.admin, ops.text(t, "getRootGlossaryTerms"), nil), []string{"getRootGlossaryTerms", "terms", "*", "urn"})
				return "nodes " + asJSON(nodes) + " terms " + asJSON(terms)
			}
			if got, want := roots(), `nodes ["urn:li:glossaryNode:finance"] terms ["urn:li:glossaryTerm:balance","urn:li:glossaryTerm:pii"]`; got != want {
				t.Errorf("roots = %s\nwant %s", got, want)
			}
			// PII moves into Finance.
			s.govData(t, s.admin, ops.text(t, "updateParentNode"), map[string]any{"input": map[string]any{"resourceUrn": pii, "parentNode": finance}})
			if got, want := roots(), `nodes ["urn:li:glossaryNode:finance"] terms ["urn:li:glossaryTerm:balance"]`; got != want {
				t.Errorf("roots after the move = %s\nwant %s", got, want)
			}

			// A dataset labelled with balance loses the label when balance
			// goes, and savings its relation to it.
			const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.accounts,PROD)"
			s.ingestAsAdmin(t, mcp("dataset", ds, "glossaryTerms", map[string]any{"terms": []any{map[string]any{"urn": balance}, map[string]any{"urn": pii}},
				"auditStamp": map[string]any{"time": 1, "actor": "urn:li:corpuser:datahub"}}))
			del := ops.text(t, "deleteGlossaryEntity")
			s.wantError(t, reader, del, map[string]any{"urn": balance}, "UNAUTHORIZED", "Unauthorized")
			s.govData(t, s.admin, del, map[string]any{"urn": balance})
			d := s.govData(t, s.admin, `query($u: String!) { dataset(urn: $u) { glossaryTerms { terms { term { urn } } } } }`, map[string]any{"u": ds})
			if got, _ := pick(d, []string{"dataset", "glossaryTerms", "terms", "*", "term", "urn"}); asJSON(got) != `["urn:li:glossaryTerm:pii"]` {
				t.Errorf("terms of the dataset after balance was deleted = %s", asJSON(got))
			}
			if got, want := related(savings), `isA ["urn:li:glossaryTerm:account"] hasA [] isA children []`; got != want {
				t.Errorf("related terms of savings after balance was deleted = %s\nwant %s", got, want)
			}
			// Deleting Banking brings its terms to the top.
			s.govData(t, s.admin, del, map[string]any{"urn": banking})
			if got, want := roots(), `nodes ["urn:li:glossaryNode:finance"] terms ["urn:li:glossaryTerm:account","urn:li:glossaryTerm:savings"]`; got != want {
				t.Errorf("roots after banking was deleted = %s\nwant %s", got, want)
			}
		})
	}
}

// TestGovernanceOwnershipTypes lists DataHub's system ownership types on a
// fresh server, creates, renames and deletes a custom one, and checks that
// deleting a type takes it out of ownerships unless asked not to, and that
// a system type is only marked removed.
func TestGovernanceOwnershipTypes(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			list := func() string {
				t.Helper()
				d := s.govData(t, s.admin, ops.text(t, "listOwnershipTypes"), map[string]any{"input": map[string]any{"start": 0, "count": 20}})
				names, _ := pick(d, []string{"listOwnershipTypes", "ownershipTypes", "*", "info", "name"})
				total, _ := pick(d, []string{"listOwnershipTypes", "total"})
				return asJSON(names) + " " + asJSON(total)
			}
			if got, want := list(), `["Business Owner","Data Steward","None","Technical Owner"] 4`; got != want {
				t.Errorf("ownership types at first start = %s, want %s", got, want)
			}

			create := ops.text(t, "createOwnershipType")
			s.wantError(t, reader, create, map[string]any{"input": map[string]any{"name": "Steward", "description": "x"}}, "UNAUTHORIZED", "Unauthorized")
			d := s.govData(t, s.admin, create, map[string]any{"input": map[string]any{"name": "Architect", "description": "Designs it"}})
			urn, _ := pick(d, []string{"createOwnershipType", "urn"})
			typeURN, _ := urn.(string)
			if !strings.HasPrefix(typeURN, "urn:li:ownershipType:") {
				t.Fatalf("createOwnershipType = %s", asJSON(d))
			}
			if got, _ := pick(d, []string{"createOwnershipType", "info"}); !strings.Contains(asJSON(got), `"description":"Designs it","lastModified":{"actor":"urn:li:corpuser:datahub"`) ||
				!strings.Contains(asJSON(got), `"name":"Architect"`) {
				t.Errorf("created info = %s", asJSON(got))
			}
			d = s.govData(t, s.admin, ops.text(t, "updateOwnershipType"), map[string]any{"urn": typeURN, "input": map[string]any{"name": "Solution Architect"}})
			if got, _ := pick(d, []string{"updateOwnershipType", "info"}); !strings.Contains(asJSON(got), `"description":"Designs it"`) || !strings.Contains(asJSON(got), `"name":"Solution Architect"`) {
				t.Errorf("updated info = %s", asJSON(got))
			}
			s.wantError(t, s.admin, ops.text(t, "updateOwnershipType"), map[string]any{"urn": "urn:li:ownershipType:nope", "input": map[string]any{"name": "x"}},
				"BAD_REQUEST", "Ownership Type with urn urn:li:ownershipType:nope does not exist.")
			if got, want := list(), `["Business Owner","Data Steward","None","Solution Architect","Technical Owner"] 5`; got != want {
				t.Errorf("ownership types after create = %s, want %s", got, want)
			}

			// Two datasets owned with the custom type (one also as
			// technical owner); deleting the type keeps the other owner.
			const dsA, dsB = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.a,PROD)", "urn:li:dataset:(urn:li:dataPlatform:hive,governance.b,PROD)"
			for _, ds := range []string{dsA, dsB} {
				s.ingestAsAdmin(t, mcp("dataset", ds, "status", map[string]any{"removed": false}))
				s.govData(t, s.admin, `mutation($in: AddOwnersInput!) { addOwners(input: $in) }`, map[string]any{"in": map[string]any{"resourceUrn": ds, "owners": []any{
					map[string]any{"ownerUrn": "urn:li:corpuser:jane", "ownerEntityType": "CORP_USER", "type": "CUSTOM", "ownershipTypeUrn": typeURN},
				}}})
			}
			s.govData(t, s.admin, `mutation($in: AddOwnersInput!) { addOwners(input: $in) }`, map[string]any{"in": map[string]any{"resourceUrn": dsA, "owners": []any{
				map[string]any{"ownerUrn": "urn:li:corpuser:joe", "ownerEntityType": "CORP_USER", "type": "TECHNICAL_OWNER"},
			}}})
			owners := func(ds string) string {
				t.Helper()
				d := s.govData(t, s.admin, `query($u: String!) { dataset(urn: $u) { ownership { owners { owner { ... on CorpUser { urn } } ownershipType { urn } } } } }`, map[string]any{"u": ds})
				o, _ := pick(d, []string{"dataset", "ownership", "owners", "*", "owner", "urn"})
				return asJSON(o)
			}
			if got := owners(dsA); got != `["urn:li:corpuser:jane","urn:li:corpuser:joe"]` {
				t.Fatalf("owners before the delete = %s", got)
			}
			del := ops.text(t, "deleteOwnershipType")
			s.wantError(t, reader, del, map[string]any{"urn": typeURN}, "UNAUTHORIZED", "Unauthorized")
			if d := s.govData(t, s.admin, del, map[string]any{"urn": typeURN}); d["deleteOwnershipType"] != true {
				t.Fatalf("deleteOwnershipType = %v", d)
			}
			if got, want := owners(dsA), `["urn:li:corpuser:joe"]`; got != want {
				t.Errorf("owners of a after the type was deleted = %s, want %s", got, want)
			}
			if got, want := owners(dsB), `[]`; got != want {
				t.Errorf("owners of b after the type was deleted = %s, want %s", got, want)
			}
			if got, want := list(), `["Business Owner","Data Steward","None","Technical Owner"] 4`; got != want {
				t.Errorf("ownership types after the delete = %s, want %s", got, want)
			}
			// Without deleteReferences, the ownerships stay as they are.
			d = s.govData(t, s.admin, create, map[string]any{"input": map[string]any{"name": "Reviewer", "description": "Reviews it"}})
			second, _ := pick(d, []string{"createOwnershipType", "urn"})
			s.govData(t, s.admin, `mutation($in: AddOwnersInput!) { addOwners(input: $in) }`, map[string]any{"in": map[string]any{"resourceUrn": dsB, "owners": []any{
				map[string]any{"ownerUrn": "urn:li:corpuser:kim", "ownerEntityType": "CORP_USER", "type": "CUSTOM", "ownershipTypeUrn": second},
			}}})
			s.govData(t, s.admin, del, map[string]any{"urn": second, "deleteReferences": false})
			if got, want := owners(dsB), `["urn:li:corpuser:kim"]`; got != want {
				t.Errorf("owners of b after a delete without references = %s, want %s", got, want)
			}

			// batchAddOwners and batchRemoveOwners change every resource or
			// none.
			const business = "urn:li:ownershipType:__system__business_owner"
			refs := []any{map[string]any{"resourceUrn": dsA}, map[string]any{"resourceUrn": dsB}}
			lee := []any{map[string]any{"ownerUrn": "urn:li:corpuser:lee", "ownerEntityType": "CORP_USER"}}
			s.wantError(t, s.admin, ops.text(t, "batchAddOwners"), map[string]any{"input": map[string]any{"owners": lee, "ownershipTypeUrn": business,
				"resources": append(refs, map[string]any{"resourceUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,nope,PROD)"})}}, "BAD_REQUEST", "does not exist")
			s.wantError(t, reader, ops.text(t, "batchAddOwners"), map[string]any{"input": map[string]any{"owners": lee, "resources": refs}}, "UNAUTHORIZED", "Unauthorized")
			if got, want := owners(dsA)+owners(dsB), `["urn:li:corpuser:joe"]["urn:li:corpuser:kim"]`; got != want {
				t.Errorf("owners after a failed batchAddOwners = %s, want %s", got, want)
			}
			s.govData(t, s.admin, ops.text(t, "batchAddOwners"), map[string]any{"input": map[string]any{"owners": lee, "ownershipTypeUrn": business, "resources": refs}})
			if got, want := owners(dsA)+owners(dsB), `["urn:li:corpuser:joe","urn:li:corpuser:lee"]["urn:li:corpuser:kim","urn:li:corpuser:lee"]`; got != want {
				t.Errorf("owners after batchAddOwners = %s, want %s", got, want)
			}
			d = s.govData(t, s.admin, `query($u: String!) { dataset(urn: $u) { ownership { owners { owner { ... on CorpUser { urn } } ownershipType { urn } } } } }`, map[string]any{"u": dsB})
			if got, _ := pick(d, []string{"dataset", "ownership", "owners", "1", "ownershipType", "urn"}); got != business {
				t.Errorf("type of the owner added = %v, want %s", got, business)
			}
			// Removing lee as a technical owner removes nothing; as a
			// business owner, lee goes.
			s.govData(t, s.admin, ops.text(t, "batchRemoveOwners"), map[string]any{"input": map[string]any{"ownerUrns": []string{"urn:li:corpuser:lee"},
				"ownershipTypeUrn": "urn:li:ownershipType:__system__technical_owner", "resources": refs}})
			if got, want := owners(dsA)+owners(dsB), `["urn:li:corpuser:joe","urn:li:corpuser:lee"]["urn:li:corpuser:kim","urn:li:corpuser:lee"]`; got != want {
				t.Errorf("owners after removing technical owners = %s, want %s", got, want)
			}
			s.govData(t, s.admin, ops.text(t, "batchRemoveOwners"), map[string]any{"input": map[string]any{"ownerUrns": []string{"urn:li:corpuser:lee"},
				"ownershipTypeUrn": business, "resources": refs}})
			if got, want := owners(dsA)+owners(dsB), `["urn:li:corpuser:joe"]["urn:li:corpuser:kim"]`; got != want {
				t.Errorf("owners after batchRemoveOwners = %s, want %s", got, want)
			}

			// A system type is marked removed, never deleted, and leaves the
			// list.
			const steward = "urn:li:ownershipType:__system__data_steward"
			s.govData(t, s.admin, del, map[string]any{"urn": steward})
			if got, want := list(), `["Business Owner","None","Technical Owner"] 3`; got != want {
				t.Errorf("ownership types after a system one was deleted = %s, want %s", got, want)
			}
			d = s.govData(t, s.admin, `query($u: String!) { entity(urn: $u) { ... on OwnershipTypeEntity { info { name } status { removed } } } }`, map[string]any{"u": steward})
			if got := asJSON(d); got != `{"entity":{"info":{"name":"Data Steward"},"status":{"removed":true}}}` {
				t.Errorf("data steward after its delete = %s", got)
			}
		})
	}
}

// TestGovernanceRolesAndPolicies checks the seeded roles and that they are
// enforced: assigning a role to a user or to a group of theirs gives what
// the role's policies grant, and only a manager of policies assigns roles.
// It checks that updatePolicy creates a policy at the URN it is given, as
// the terraform provider relies on, that criteria on domains and tags
// (STARTS_WITH too) select what they name, and getGrantedPrivileges.
func TestGovernanceRolesAndPolicies(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			alice, _ := s.cliToken(t, "alice")
			const readerURN, aliceURN = "urn:li:corpuser:reader", "urn:li:corpuser:alice"
			d := s.govData(t, s.admin, ops.text(t, "listRoles"), map[string]any{"input": map[string]any{"start": 0, "count": 10}})
			if got, _ := pick(d, []string{"listRoles", "roles", "*", "name"}); asJSON(got) != `["Admin","Editor","Reader"]` {
				t.Fatalf("roles = %s", asJSON(d))
			}
			if got, _ := pick(d, []string{"listRoles", "roles", "1", "policies", "total"}); got == float64(0) || got == nil {
				t.Errorf("the Editor role has no policies: %s", asJSON(d))
			}

			const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.roles,PROD)"
			canWrite := func(token string) bool {
				t.Helper()
				st, b := s.call(t, bearer(token), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("dataset", ds, "status", map[string]any{"removed": false})})
				if st != 200 && st != 403 {
					t.Fatalf("write: %d %s", st, b)
				}
				return st == 200
			}
			if canWrite(reader) {
				t.Fatal("a user with no role may edit a dataset")
			}
			assign := ops.text(t, "batchAssignRole")
			s.wantError(t, reader, assign, map[string]any{"input": map[string]any{"roleUrn": "urn:li:dataHubRole:Admin", "actors": []string{readerURN}}}, "UNAUTHORIZED", "Unauthorized")
			s.wantError(t, s.admin, assign, map[string]any{"input": map[string]any{"roleUrn": "urn:li:dataHubRole:Owner", "actors": []string{readerURN}}},
				"BAD_REQUEST", "Role urn:li:dataHubRole:Owner does not exist.")
			// Users that do not exist are skipped.
			s.govData(t, s.admin, assign, map[string]any{"input": map[string]any{"roleUrn": "urn:li:dataHubRole:Editor", "actors": []string{readerURN, "urn:li:corpuser:ghost"}}})
			if !canWrite(reader) {
				t.Error("an Editor may not edit a dataset")
			}
			d = s.govData(t, s.admin, ops.text(t, "listRoles"), map[string]any{"input": map[string]any{"start": 0, "count": 10, "query": "editor"}})
			if got, _ := pick(d, []string{"listRoles", "roles", "0", "users", "relationships", "*", "entity", "urn"}); asJSON(got) != `["urn:li:corpuser:reader"]` {
				t.Errorf("Editor's users = %s", asJSON(got))
			}
			if d := s.govData(t, s.admin, `{ entity(urn: "urn:li:corpuser:ghost") { urn } }`, nil); asJSON(d) != `{"entity":null}` {
				t.Errorf("the skipped user = %s", asJSON(d))
			}
			// An Editor edits users but may not make one an Admin, not
			// even through the write API.
			s.wantError(t, reader, assign, map[string]any{"input": map[string]any{"roleUrn": "urn:li:dataHubRole:Admin", "actors": []string{readerURN}}}, "UNAUTHORIZED", "Unauthorized")
			if st, b := s.call(t, bearer(reader), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("corpuser", readerURN, "roleMembership",
				map[string]any{"roles": []string{"urn:li:dataHubRole:Admin"}})}); st != 403 {
				t.Errorf("an Editor wrote their own role: %d %s", st, b)
			}
			// No role takes it away.
			s.govData(t, s.admin, assign, map[string]any{"input": map[string]any{"actors": []string{readerURN}}})
			if canWrite(reader) {
				t.Error("a user whose role was taken away may still edit")
			}
			// A group's role is its members'.
			s.govData(t, s.admin, `mutation { createGroup(input: {id: "editors", name: "Editors"}) }`, nil)
			s.govData(t, s.admin, `mutation { addGroupMembers(input: {groupUrn: "urn:li:corpGroup:editors", userUrns: ["urn:li:corpuser:reader"]}) }`, nil)
			s.govData(t, s.admin, assign, map[string]any{"input": map[string]any{"roleUrn": "urn:li:dataHubRole:Editor", "actors": []string{"urn:li:corpGroup:editors"}}})
			if !canWrite(reader) {
				t.Error("a member of a group with the Editor role may not edit")
			}

			// updatePolicy creates the policy at the URN given.
			const policyURN = "urn:li:dataHubPolicy:terraform-finance-editors"
			policy := map[string]any{"type": "METADATA", "name": "Finance editors", "state": "ACTIVE", "description": "by terraform",
				"privileges": []string{"EDIT_ENTITY"}, "actors": map[string]any{"users": []string{aliceURN}, "resourceOwners": false, "allUsers": false, "allGroups": false},
				"resources": map[string]any{"filter": map[string]any{"criteria": []any{
					map[string]any{"field": "DOMAIN", "values": []string{"urn:li:domain:finance"}, "condition": "EQUALS"}}}}}
			s.wantError(t, alice, ops.text(t, "updatePolicy"), map[string]any{"urn": policyURN, "input": policy}, "UNAUTHORIZED", "Unauthorized")
			if d := s.govData(t, s.admin, ops.text(t, "updatePolicy"), map[string]any{"urn": policyURN, "input": policy}); d["updatePolicy"] != policyURN {
				t.Fatalf("updatePolicy = %v", d)
			}
			d = s.govData(t, s.admin, `{ listPolicies(input: {start: 0, count: 100, query: "finance editors"}) { total policies { urn name } } }`, nil)
			if got := asJSON(d); got != `{"listPolicies":{"policies":[{"name":"Finance editors","urn":"`+policyURN+`"}],"total":1}}` {
				t.Errorf("listPolicies = %s", got)
			}
			s.wantError(t, s.admin, ops.text(t, "updatePolicy"), map[string]any{"urn": "urn:li:dataset:x", "input": policy}, "BAD_REQUEST", "is not a dataHubPolicy URN")

			// Criteria: alice edits what is in Finance (or under it), then
			// also what has a tag starting with urn:li:tag:pii.
			const (
				inFinance = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.ledger,PROD)"
				inSub     = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.cards,PROD)"
				tagged    = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.people,PROD)"
				other     = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.other,PROD)"
			)
			s.govData(t, s.admin, `mutation { createDomain(input: {id: "finance", name: "Finance"}) }`, nil)
			s.govData(t, s.admin, `mutation { createDomain(input: {id: "cards", name: "Cards", parentDomain: "urn:li:domain:finance"}) }`, nil)
			s.ingestAsAdmin(t, mcp("dataset", inFinance, "domains", map[string]any{"domains": []string{"urn:li:domain:finance"}}))
			s.ingestAsAdmin(t, mcp("dataset", inSub, "domains", map[string]any{"domains": []string{"urn:li:domain:cards"}}))
			s.ingestAsAdmin(t, mcp("dataset", tagged, "globalTags", map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:pii.email"}}}))
			s.ingestAsAdmin(t, mcp("dataset", other, "status", map[string]any{"removed": false}))
			edits := func(urn string) bool {
				t.Helper()
				st, b := s.call(t, bearer(alice), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("dataset", urn, "editableDatasetProperties", map[string]any{"description": "edited"})})
				if st != 200 && st != 403 {
					t.Fatalf("write: %d %s", st, b)
				}
				return st == 200
			}
			granted := func(token, actor, urn string) []string {
				t.Helper()
				in := map[string]any{"actorUrn": actor}
				if urn != "" {
					in["resourceSpec"] = map[string]any{"resourceType": "DATASET", "resourceUrn": urn}
				}
				d := s.govData(t, token, ops.text(t, "getGrantedPrivileges"), map[string]any{"input": in})
				got, _ := pick(d, []string{"getGrantedPrivileges", "privileges"})
				var out []string
				for _, p := range got.([]any) {
					out = append(out, p.(string))
				}
				return out
			}
			for _, c := range []struct {
				urn  string
				want bool
			}{{inFinance, true}, {inSub, true}, {tagged, false}, {other, false}} {
				if got := edits(c.urn); got != c.want {
					t.Errorf("with the domain policy alice edits %s: %v, want %v", c.urn, got, c.want)
				}
				if got := slices.Contains(granted(alice, aliceURN, c.urn), "EDIT_ENTITY"); got != c.want {
					t.Errorf("with the domain policy getGrantedPrivileges on %s has EDIT_ENTITY: %v, want %v", c.urn, got, c.want)
				}
			}
			policy["resources"] = map[string]any{"filter": map[string]any{"criteria": []any{
				map[string]any{"field": "TAG", "values": []string{"urn:li:tag:pii"}, "condition": "STARTS_WITH"}}}}
			s.govData(t, s.admin, ops.text(t, "updatePolicy"), map[string]any{"urn": policyURN, "input": policy})
			for _, c := range []struct {
				urn  string
				want bool
			}{{inFinance, false}, {tagged, true}, {other, false}} {
				if got := edits(c.urn); got != c.want {
					t.Errorf("with the tag policy alice edits %s: %v, want %v", c.urn, got, c.want)
				}
			}

			// On no resource, only platform privileges and policies that
			// name no resources count; one asks about oneself unless one
			// manages policies.
			mine := granted(alice, aliceURN, "")
			if !slices.Contains(mine, "GENERATE_PERSONAL_ACCESS_TOKENS") || slices.Contains(mine, "MANAGE_POLICIES") || slices.Contains(mine, "EDIT_ENTITY") {
				t.Errorf("alice's privileges on no resource = %v", mine)
			}
			if got := granted(s.admin, "urn:li:corpuser:datahub", ""); !slices.Contains(got, "MANAGE_POLICIES") {
				t.Errorf("the root user's privileges = %v", got)
			}
			s.wantError(t, alice, ops.text(t, "getGrantedPrivileges"), map[string]any{"input": map[string]any{"actorUrn": "urn:li:corpuser:datahub"}}, "UNAUTHORIZED", "Unauthorized")
		})
	}
}

// TestGovernanceGroupsAndSettings checks group membership as DataHub's app
// and terraform provider read it (nativeGroupMembership), DataHub's rules
// on groups of other origins, and a user's own settings.
func TestGovernanceGroupsAndSettings(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			alice, _ := s.cliToken(t, "alice")
			const readerURN, aliceURN, bobURN = "urn:li:corpuser:reader", "urn:li:corpuser:alice", "urn:li:corpuser:bob"
			s.ingestAsAdmin(t, mcp("corpuser", bobURN, "corpUserInfo", map[string]any{"active": true}))
			add := ops.text(t, "addGroupMembers")
			members := func(group, rel string) string {
				t.Helper()
				d := s.govData(t, s.admin, `query($u: String!, $r: [String!]!) { corpGroup(urn: $u) { relationships(input: {types: $r, direction: INCOMING}) { relationships { entity { urn } } } } }`,
					map[string]any{"u": group, "r": []string{rel}})
				got, _ := pick(d, []string{"corpGroup", "relationships", "relationships", "*", "entity", "urn"})
				return asJSON(got)
			}

			// A group made here is native.
			s.govData(t, s.admin, ops.text(t, "createGroup"), map[string]any{"input": map[string]any{"id": "analysts", "name": "Analysts"}})
			const analysts = "urn:li:corpGroup:analysts"
			s.govData(t, s.admin, add, map[string]any{"groupUrn": analysts, "userUrns": []string{readerURN, aliceURN}})
			if got := members(analysts, "IsMemberOfNativeGroup"); got != `["urn:li:corpuser:alice","urn:li:corpuser:reader"]` && got != `["urn:li:corpuser:reader","urn:li:corpuser:alice"]` {
				t.Errorf("native members = %s", got)
			}
			if got := members(analysts, "IsMemberOfGroup"); got != `[]` {
				t.Errorf("members by groupMembership = %s, want none", got)
			}
			s.wantError(t, s.admin, add, map[string]any{"groupUrn": analysts, "userUrns": []string{"urn:li:corpuser:ghost"}}, "BAD_REQUEST", "User urn:li:corpuser:ghost does not exist.")
			s.wantError(t, s.admin, add, map[string]any{"groupUrn": "urn:li:corpGroup:nope", "userUrns": []string{readerURN}}, "NOT_FOUND", "Group does not exist.")
			s.wantError(t, reader, add, map[string]any{"groupUrn": analysts, "userUrns": []string{bobURN}}, "UNAUTHORIZED", "Unauthorized")
			s.govData(t, s.admin, ops.text(t, "removeGroupMembers"), map[string]any{"groupUrn": analysts, "userUrns": []string{aliceURN}})
			if got := members(analysts, "IsMemberOfNativeGroup"); got != `["urn:li:corpuser:reader"]` {
				t.Errorf("native members after a removal = %s", got)
			}

			// A group from an identity provider is refused; one of no
			// recorded origin becomes native, its members with it.
			s.ingestAsAdmin(t, mcp("corpGroup", "urn:li:corpGroup:okta", "corpGroupInfo", map[string]any{"admins": []string{}, "members": []string{}, "groups": []string{}}))
			s.ingestAsAdmin(t, mcp("corpGroup", "urn:li:corpGroup:okta", "origin", map[string]any{"type": "EXTERNAL", "externalType": "okta"}))
			s.wantError(t, s.admin, add, map[string]any{"groupUrn": "urn:li:corpGroup:okta", "userUrns": []string{readerURN}},
				"BAD_REQUEST", "Group urn:li:corpGroup:okta was ingested from an external provider and cannot have members manually added to it")
			const legacy = "urn:li:corpGroup:legacy"
			s.ingestAsAdmin(t, mcp("corpGroup", legacy, "corpGroupInfo", map[string]any{"admins": []string{}, "members": []string{}, "groups": []string{}}))
			s.ingestAsAdmin(t, mcp("corpuser", bobURN, "groupMembership", map[string]any{"groups": []string{legacy}}))
			s.govData(t, s.admin, add, map[string]any{"groupUrn": legacy, "userUrns": []string{aliceURN}})
			if got := members(legacy, "IsMemberOfNativeGroup"); got != `["urn:li:corpuser:alice","urn:li:corpuser:bob"]` && got != `["urn:li:corpuser:bob","urn:li:corpuser:alice"]` {
				t.Errorf("native members of the migrated group = %s", got)
			}
			if got := members(legacy, "IsMemberOfGroup"); got != `[]` {
				t.Errorf("members by groupMembership of the migrated group = %s, want none", got)
			}
			if st, b := s.call(t, bearer(s.admin), "GET", "/aspects/"+pathEscape(legacy)+"?aspect=origin&version=0", nil); st != 200 || !strings.Contains(string(b), "NATIVE") {
				t.Errorf("origin of the migrated group: %d %s", st, b)
			}

			// Group and user properties.
			s.govData(t, s.admin, ops.text(t, "updateCorpGroupProperties"), map[string]any{"urn": analysts, "input": map[string]any{"description": "Counts", "email": "analysts@example.com"}})
			d := s.govData(t, s.admin, `{ corpGroup(urn: "urn:li:corpGroup:analysts") { editableProperties { description email } } }`, nil)
			if got := asJSON(d); got != `{"corpGroup":{"editableProperties":{"description":"Counts","email":"analysts@example.com"}}}` {
				t.Errorf("group properties = %s", got)
			}
			s.wantError(t, reader, ops.text(t, "updateCorpGroupProperties"), map[string]any{"urn": analysts, "input": map[string]any{"description": "mine"}}, "UNAUTHORIZED", "Unauthorized")
			s.govData(t, reader, ops.text(t, "updateCorpUserProperties"), map[string]any{"urn": readerURN, "input": map[string]any{"displayName": "Rea Der", "title": "Analyst"}})
			d = s.govData(t, reader, `{ corpUser(urn: "urn:li:corpuser:reader") { editableProperties { displayName title } } }`, nil)
			if got := asJSON(d); got != `{"corpUser":{"editableProperties":{"displayName":"Rea Der","title":"Analyst"}}}` {
				t.Errorf("user properties = %s", got)
			}

			// A user sets their own settings, with no privilege.
			const view = "urn:li:dataHubView:my-view"
			now := map[string]any{"time": 1, "actor": readerURN}
			s.ingestAsAdmin(t, mcp("dataHubView", view, "dataHubViewInfo", map[string]any{"name": "Mine", "type": "PERSONAL",
				"definition": map[string]any{"entityTypes": []string{"dataset"}, "filter": map[string]any{"or": []any{}}}, "created": now, "lastModified": now}))
			settings := func() string {
				t.Helper()
				d := s.govData(t, reader, ops.text(t, "getMe"), nil)
				got, _ := pick(d, []string{"me", "corpUser", "settings"})
				return asJSON(got)
			}
			if got := settings(); got != `null` {
				t.Errorf("settings at first = %s", got)
			}
			s.govData(t, reader, ops.text(t, "updateUserSetting"), map[string]any{"input": map[string]any{"name": "SHOW_THEME_V2", "value": true}})
			s.govData(t, reader, ops.text(t, "updateCorpUserViewsSettings"), map[string]any{"input": map[string]any{"defaultView": view}})
			if got, want := settings(), `{"appearance":{"showSimplifiedHomepage":false,"showThemeV2":true},"views":{"defaultView":{"urn":"`+view+`"}}}`; got != want {
				t.Errorf("settings = %s\nwant %s", got, want)
			}
			s.govData(t, reader, ops.text(t, "updateUserSetting"), map[string]any{"input": map[string]any{"name": "SHOW_SIMPLIFIED_HOMEPAGE", "value": true}})
			s.govData(t, reader, ops.text(t, "updateCorpUserViewsSettings"), map[string]any{"input": map[string]any{}})
			if got, want := settings(), `{"appearance":{"showSimplifiedHomepage":true,"showThemeV2":true},"views":{"defaultView":null}}`; got != want {
				t.Errorf("settings after the changes = %s\nwant %s", got, want)
			}
			// The settings are the caller's own: another user's stay as
			// they were.
			d = s.govData(t, s.admin, `{ corpUser(urn: "urn:li:corpuser:alice") { settings { appearance { showThemeV2 } } } }`, nil)
			if got := asJSON(d); got != `{"corpUser":{"settings":null}}` {
				t.Errorf("alice's settings = %s", got)
			}
			if st, b := s.call(t, bearer(reader), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("corpuser", aliceURN, "corpUserSettings",
				map[string]any{"appearance": map[string]any{"showThemeV2": true}})}); st != 403 {
				t.Errorf("a user wrote another's settings: %d %s", st, b)
			}

			// A suspended user's credentials stop working until the user
			// is active again.
			status := ops.text(t, "updateUserStatus")
			s.wantError(t, reader, status, map[string]any{"urn": aliceURN, "status": "SUSPENDED"}, "UNAUTHORIZED", "Unauthorized")
			s.wantError(t, s.admin, status, map[string]any{"urn": "urn:li:corpuser:ghost", "status": "SUSPENDED"}, "BAD_REQUEST", "does not exist")
			for _, c := range []struct {
				status string
				want   int
			}{{"SUSPENDED", 403}, {"ACTIVE", 200}} {
				if d := s.govData(t, s.admin, status, map[string]any{"urn": aliceURN, "status": c.status}); d["updateUserStatus"] != aliceURN {
					t.Fatalf("updateUserStatus = %v", d)
				}
				if st, b := s.call(t, bearer(alice), "POST", "/api/graphql", map[string]any{"query": "{ me { corpUser { urn } } }"}); st != c.want {
					t.Errorf("alice %s: %d %s, want %d", c.status, st, b, c.want)
				}
			}
		})
	}
}

// TestGovernanceOpenAPIV3 reaches the same governance entities through
// OpenAPI v3, as DataHub's SDK and terraform provider can: the seeded roles
// and ownership types read there, a domain written there is in the tree
// GraphQL shows, and a policy written there takes effect at once.
func TestGovernanceOpenAPIV3(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			alice, _ := s.cliToken(t, "alice")
			get := func(entity, urn string) map[string]any {
				t.Helper()
				code, b := s.call(t, bearer(s.admin), "GET", "/openapi/v3/entity/"+entity+"/"+pathEscape(urn), nil)
				if code != 200 {
					t.Fatalf("GET %s %s: %d %s", entity, urn, code, b)
				}
				return decode(t, b)
			}
			post := func(token, entity string, body any) int {
				t.Helper()
				code, b := s.call(t, bearer(token), "POST", "/openapi/v3/entity/"+entity+"?async=false", body)
				if code != 200 && code != 403 {
					t.Fatalf("POST %s: %d %s", entity, code, b)
				}
				return code
			}
			if got, _ := pick(get("datahubrole", "urn:li:dataHubRole:Editor"), []string{"dataHubRoleInfo", "value", "name"}); got != "Editor" {
				t.Errorf("Editor role name = %v", got)
			}
			if got, _ := pick(get("ownershiptype", "urn:li:ownershipType:__system__business_owner"), []string{"ownershipTypeInfo", "value", "name"}); got != "Business Owner" {
				t.Errorf("business owner type name = %v", got)
			}

			s.govData(t, s.admin, `mutation { createDomain(input: {id: "finance", name: "Finance"}) }`, nil)
			post(s.admin, "domain", []any{map[string]any{"urn": "urn:li:domain:tax", "domainProperties": map[string]any{"value": map[string]any{"name": "Tax", "parentDomain": "urn:li:domain:finance"}}}})
			d := s.govData(t, s.admin, `{ domain(urn: "urn:li:domain:tax") { parentDomains { count domains { urn } } } }`, nil)
			if got := asJSON(d); got != `{"domain":{"parentDomains":{"count":1,"domains":[{"urn":"urn:li:domain:finance"}]}}}` {
				t.Errorf("parents of a domain written through OpenAPI = %s", got)
			}
			s.wantError(t, s.admin, `mutation { deleteDomain(urn: "urn:li:domain:finance") }`, nil, "BAD_REQUEST", "which has child domains")

			const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.v3,PROD)"
			edit := []any{map[string]any{"urn": ds, "status": map[string]any{"value": map[string]any{"removed": false}}}}
			if code := post(alice, "dataset", edit); code != 403 {
				t.Fatalf("alice wrote a dataset before any policy: %d", code)
			}
			const policy = "urn:li:dataHubPolicy:v3-alice"
			post(s.admin, "datahubpolicy", []any{map[string]any{"urn": policy, "dataHubPolicyInfo": map[string]any{"value": map[string]any{
				"displayName": "alice edits datasets", "description": "v3", "type": "METADATA", "state": "ACTIVE", "editable": true,
				"privileges": []string{"EDIT_ENTITY"}, "actors": map[string]any{"users": []string{"urn:li:corpuser:alice"}},
				"resources": map[string]any{"filter": map[string]any{"criteria": []any{map[string]any{"field": "TYPE", "condition": "EQUALS", "values": []string{"dataset"}}}}},
			}}}})
			if code := post(alice, "dataset", edit); code != 200 {
				t.Errorf("alice could not write with the policy written through OpenAPI: %d", code)
			}
			if code, b := s.call(t, bearer(s.admin), "DELETE", "/openapi/v3/entity/datahubpolicy/"+pathEscape(policy), nil); code != 200 {
				t.Fatalf("DELETE policy: %d %s", code, b)
			}
			if code := post(alice, "dataset", edit); code != 403 {
				t.Errorf("alice wrote after the policy was deleted: %d", code)
			}
		})
	}
}

// TestGovernanceServiceAccounts creates a service account as DataHub's API
// does, gives it a token and a role, and deletes it, which ends the token.
func TestGovernanceServiceAccounts(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			const create = `mutation($in: CreateServiceAccountInput!) { createServiceAccount(input: $in) { urn type name displayName description createdBy createdAt } }`
			const list = `query($in: ListServiceAccountsInput!) { listServiceAccounts(input: $in) { start count total serviceAccounts { urn name displayName description createdBy createdAt } } }`
			s.wantError(t, reader, create, map[string]any{"in": map[string]any{"displayName": "CI"}}, "UNAUTHORIZED", "Unauthorized")
			s.wantError(t, reader, list, map[string]any{"in": map[string]any{}}, "UNAUTHORIZED", "Unauthorized")
			d := s.govData(t, s.admin, create, map[string]any{"in": map[string]any{"displayName": "Nightly ingestion", "description": "Loads the warehouse"}})
			sa, _ := d["createServiceAccount"].(map[string]any)
			urn, _ := sa["urn"].(string)
			if !strings.HasPrefix(urn, "urn:li:corpuser:service_") || sa["name"] != strings.TrimPrefix(urn, "urn:li:corpuser:") || sa["type"] != "CORP_USER" ||
				sa["createdBy"] != "urn:li:corpuser:datahub" || sa["description"] != "Loads the warehouse" {
				t.Fatalf("createServiceAccount = %s", asJSON(d))
			}
			s.govData(t, s.admin, create, map[string]any{"in": map[string]any{"displayName": "Airflow"}})
			d = s.govData(t, s.admin, list, map[string]any{"in": map[string]any{"start": 0, "count": 10}})
			if got, _ := pick(d, []string{"listServiceAccounts", "serviceAccounts", "*", "displayName"}); asJSON(got) != `["Airflow","Nightly ingestion"]` {
				t.Errorf("service accounts = %s", asJSON(d))
			}
			d = s.govData(t, s.admin, list, map[string]any{"in": map[string]any{"query": "nightly"}})
			if got, _ := pick(d, []string{"listServiceAccounts", "serviceAccounts", "0"}); asJSON(got) != `{"createdAt":`+asJSON(pickOr(got, "createdAt"))+`,"createdBy":"urn:li:corpuser:datahub","description":"Loads the warehouse","displayName":"Nightly ingestion","name":"`+strings.TrimPrefix(urn, "urn:li:corpuser:service_")+`","urn":"`+urn+`"}` {
				t.Errorf("service account found by name = %s", asJSON(got))
			}
			if got := pickOr(pickOr(d["listServiceAccounts"], "serviceAccounts"), "0"); pickOr(got, "createdAt") == nil {
				t.Errorf("service account has no creation time: %s", asJSON(got))
			}
			// A regular user is not a service account.
			d = s.govData(t, s.admin, `query($u: String!) { getServiceAccount(urn: $u) { urn displayName } }`, map[string]any{"u": "urn:li:corpuser:reader"})
			if got := asJSON(d); got != `{"getServiceAccount":null}` {
				t.Errorf("getServiceAccount of a user = %s", got)
			}

			const token = `mutation($in: CreateAccessTokenInput!) { createAccessToken(input: $in) { accessToken metadata { actorUrn ownerUrn } } }`
			s.wantError(t, s.admin, token, map[string]any{"in": map[string]any{"type": "SERVICE_ACCOUNT", "actorUrn": "urn:li:corpuser:reader", "name": "x", "duration": "ONE_DAY"}},
				"BAD_REQUEST", "is not a service account")
			d = s.govData(t, s.admin, token, map[string]any{"in": map[string]any{"type": "SERVICE_ACCOUNT", "actorUrn": urn, "name": "nightly", "duration": "ONE_MONTH"}})
			tok, _ := pick(d, []string{"createAccessToken", "accessToken"})
			saToken, _ := tok.(string)
			d = s.govData(t, saToken, `{ me { corpUser { urn } } }`, nil)
			if got, _ := pick(d, []string{"me", "corpUser", "urn"}); got != urn {
				t.Errorf("the service account's token acts as %v", got)
			}
			// It gets a role like any user.
			const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,governance.sa,PROD)"
			write := map[string]any{"proposal": mcp("dataset", ds, "status", map[string]any{"removed": false})}
			if code, _ := s.call(t, bearer(saToken), "POST", "/aspects?action=ingestProposal", write); code != 403 {
				t.Errorf("the service account wrote with no role: %d", code)
			}
			s.govData(t, s.admin, ops.text(t, "batchAssignRole"), map[string]any{"input": map[string]any{"roleUrn": "urn:li:dataHubRole:Editor", "actors": []string{urn}}})
			if code, b := s.call(t, bearer(saToken), "POST", "/aspects?action=ingestProposal", write); code != 200 {
				t.Errorf("the service account could not write as an Editor: %d %s", code, b)
			}

			const del = `mutation($u: String!) { deleteServiceAccount(urn: $u) }`
			s.wantError(t, s.admin, del, map[string]any{"u": "urn:li:corpuser:reader"}, "NOT_FOUND", "does not exist")
			s.wantError(t, reader, del, map[string]any{"u": urn}, "UNAUTHORIZED", "Unauthorized")
			s.govData(t, s.admin, del, map[string]any{"u": urn})
			if code, b := s.call(t, bearer(saToken), "POST", "/api/graphql", map[string]any{"query": "{ me { corpUser { urn } } }"}); code != 403 || !strings.Contains(string(b), "Actor is not active") {
				t.Errorf("the token of a deleted service account answered %d %s, want 403: the actor is not active", code, b)
			}
			d = s.govData(t, s.admin, list, map[string]any{"in": map[string]any{}})
			if got, _ := pick(d, []string{"listServiceAccounts", "total"}); got != float64(1) {
				t.Errorf("service accounts after the delete = %s", asJSON(d))
			}
		})
	}
}

// pickOr reads one member of a JSON object (or element of a list), nil
// when absent.
func pickOr(v any, key string) any {
	got, _ := pick(v, []string{key})
	return got
}

// TestGovernanceBootstrapKeepsEdits restarts a server on its store: the
// roles and system ownership types are not written again over what was
// changed, nor a removed one brought back.
func TestGovernanceBootstrapKeepsEdits(t *testing.T) {
	ops := loadUIDocs(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			// The store outlives the first server's test.
			dir := t.TempDir()
			args := append(append([]string{}, st.args...), "--data-dir", dir)
			types := func(s *authServer) string {
				t.Helper()
				d := s.govData(t, s.admin, ops.text(t, "listOwnershipTypes"), map[string]any{"input": map[string]any{"start": 0, "count": 20}})
				names, _ := pick(d, []string{"listOwnershipTypes", "ownershipTypes", "*", "info", "name"})
				return asJSON(names)
			}
			t.Run("first start", func(t *testing.T) {
				s := startAuthServer(t, args...)
				s.govData(t, s.admin, ops.text(t, "updateOwnershipType"), map[string]any{"urn": "urn:li:ownershipType:__system__technical_owner", "input": map[string]any{"name": "Engineer"}})
				s.govData(t, s.admin, ops.text(t, "deleteOwnershipType"), map[string]any{"urn": "urn:li:ownershipType:__system__none"})
				if got, want := types(s), `["Business Owner","Data Steward","Engineer"]`; got != want {
					t.Errorf("ownership types = %s, want %s", got, want)
				}
			})
			s := startAuthServer(t, args...)
			if got, want := types(s), `["Business Owner","Data Steward","Engineer"]`; got != want {
				t.Errorf("ownership types after a restart = %s, want %s", got, want)
			}
			d := s.govData(t, s.admin, ops.text(t, "listRoles"), map[string]any{"input": map[string]any{"start": 0, "count": 10}})
			if got, _ := pick(d, []string{"listRoles", "total"}); got != float64(3) {
				t.Errorf("roles after a restart = %s", asJSON(d))
			}
		})
	}
}
