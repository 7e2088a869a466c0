package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/contract"
)

// The governance end-to-end tests: domains, glossary, ownership types, roles
// and policies, users and groups, through GraphQL as DataHub's web app sends
// it (its own operation documents) and as the terraform provider does, and
// the validation errors in the words of DataHub's GraphQL engine that
// clients recognise.

// uiOps are the web app's GraphQL operations by name.
type uiOps map[string]contract.UIOperation

func loadUIOps(t *testing.T) uiOps {
	t.Helper()
	ops, err := contract.UIOperations(filepath.Join(samplesDir(t), "..", "datahub-ui"))
	if err != nil {
		t.Fatalf("DataHub's web UI documents: %v", err)
	}
	out := uiOps{}
	for _, op := range ops {
		out[op.Name] = op
	}
	return out
}

// text is the document of the operation name with the fragments it uses.
func (o uiOps) text(t testing.TB, name string) string {
	t.Helper()
	op, ok := o[name]
	if !ok {
		t.Fatalf("the web app has no operation %s", name)
	}
	return op.Text()
}

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
			"Validation error (FieldUndefined@[corpUser/bogus]) : Field 'bogus' in type 'CorpUser' is undefined"},
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
	ops := loadUIOps(t)
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
			if d := s.govData(t, s.admin, del, map[string]any{"urn": payments}); d["deleteDomain"] != true {
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
	ops := loadUIOps(t)
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
	ops := loadUIOps(t)
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

			// A system type is marked removed, never deleted.
			s.govData(t, s.admin, del, map[string]any{"urn": "urn:li:ownershipType:__system__data_steward"})
			d = s.govData(t, s.admin, ops.text(t, "listOwnershipTypes"), map[string]any{"input": map[string]any{"start": 0, "count": 20, "query": "steward"}})
			if got, _ := pick(d, []string{"listOwnershipTypes", "ownershipTypes", "*", "status", "removed"}); asJSON(got) != `[true]` {
				t.Errorf("data steward after its delete = %s", asJSON(d))
			}
		})
	}
}
