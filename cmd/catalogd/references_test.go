package main

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// refCheck is an aspect of an entity that names the deleted one, as it must
// read after the delete ("" when it must be gone).
type refCheck struct {
	urn, aspect, want string
}

// refSearch is a search of entity by field = value that finds urn before
// the delete and must not after it.
type refSearch struct {
	entity, field, value, urn string
}

// refGQL is a GraphQL read of a referencing entity: the value at path must
// be want after the delete.
type refGQL struct {
	query string
	vars  map[string]any
	path  []string
	want  string
}

// referenceCase deletes one entity that others name.
type referenceCase struct {
	name    string
	deleted string
	seeds   []map[string]any
	// del deletes the entity through one of the protocols.
	del    func(t *testing.T, srv *testServer, ui *uiOps, urn string)
	checks []refCheck
	gql    []refGQL
	search []refSearch
}

func gqlDelete(op string, vars func(urn string) map[string]any) func(t *testing.T, srv *testServer, ui *uiOps, urn string) {
	return func(t *testing.T, srv *testServer, ui *uiOps, urn string) {
		t.Helper()
		d := ui.run(t, op, vars(urn))
		if d[op] != true {
			t.Fatalf("%s = %s", op, asJSON(d))
		}
	}
}

func byURN(urn string) map[string]any { return map[string]any{"urn": urn} }

func restliDelete(t *testing.T, srv *testServer, _ *uiOps, urn string) {
	t.Helper()
	srv.mustDo(t, 200, "POST", "/entities?action=delete", map[string]any{"urn": urn})
}

func openAPIDelete(version string) func(t *testing.T, srv *testServer, ui *uiOps, urn string) {
	return func(t *testing.T, srv *testServer, _ *uiOps, urn string) {
		t.Helper()
		typ := strings.SplitN(strings.TrimPrefix(urn, "urn:li:"), ":", 2)[0]
		srv.mustDo(t, 200, "DELETE", "/openapi/"+version+"/entity/"+typ+"/"+url.PathEscape(urn), nil)
	}
}

func referenceCases() []referenceCase {
	const (
		alice = "urn:li:corpuser:refs.alice"
		bob   = "urn:li:corpuser:refs.bob"
		carol = "urn:li:corpuser:refs.carol"
		stamp = `{"actor":"urn:li:corpuser:refs.bob","time":1}`
	)
	var (
		owned   = hive("refs.owned")
		groupDS = hive("refs.grouped")
		tagged  = hive("refs.tagged")
		termed  = hive("refs.termed")
		inDom   = hive("refs.indomain")
		inCont  = hive("refs.incontainer")
		source  = hive("refs.source")
		other   = hive("refs.other")
		down    = hive("refs.down")
		withSP  = hive("refs.withprops")
		withSP2 = hive("refs.withprops2")
		field   = "urn:li:schemaField:(" + hive("refs.fields") + ",email)"
	)
	j := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			panic(err)
		}
		return v
	}
	owners := `query($u: String!) { dataset(urn: $u) { ownership { owners { owner { ... on CorpUser { urn } ... on CorpGroup { urn } } } } } }`
	return []referenceCase{
		{
			name: "user", deleted: alice, del: gqlDelete("removeUser", byURN),
			seeds: []map[string]any{
				seed(alice, "corpuser", "corpUserInfo", j(`{"active":true,"displayName":"Alice"}`)),
				seed(bob, "corpuser", "corpUserInfo", j(`{"active":true,"displayName":"Bob","managerUrn":"`+alice+`","title":"Engineer"}`)),
				seed(owned, "dataset", "ownership", j(`{"owners":[{"owner":"`+alice+`","type":"DATAOWNER"},{"owner":"`+bob+`","type":"TECHNICAL_OWNER"}],"lastModified":`+stamp+`}`)),
				seed("urn:li:corpGroup:refs.team", "corpGroup", "corpGroupInfo", j(`{"displayName":"Team","admins":["`+alice+`"],"members":["`+alice+`","`+bob+`"],"groups":[]}`)),
			},
			checks: []refCheck{
				{owned, "ownership", `{"lastModified":` + stamp + `,"owners":[{"owner":"` + bob + `","type":"TECHNICAL_OWNER"}]}`},
				{"urn:li:corpGroup:refs.team", "corpGroupInfo", `{"admins":[],"displayName":"Team","groups":[],"members":["` + bob + `"]}`},
				{bob, "corpUserInfo", `{"active":true,"displayName":"Bob","title":"Engineer"}`},
			},
			gql:    []refGQL{{owners, map[string]any{"u": owned}, []string{"dataset", "ownership", "owners", "*", "owner", "urn"}, `["` + bob + `"]`}},
			search: []refSearch{{"dataset", "owners", alice, owned}},
		},
		{
			name: "group", deleted: "urn:li:corpGroup:refs.eng", del: restliDelete,
			seeds: []map[string]any{
				seed("urn:li:corpGroup:refs.eng", "corpGroup", "corpGroupInfo", j(`{"displayName":"Eng","admins":[],"members":[],"groups":[]}`)),
				seed("urn:li:corpGroup:refs.parent", "corpGroup", "corpGroupInfo", j(`{"displayName":"Parent","admins":[],"members":[],"groups":["urn:li:corpGroup:refs.eng"]}`)),
				seed(carol, "corpuser", "corpUserInfo", j(`{"active":true}`)),
				seed(carol, "corpuser", "groupMembership", j(`{"groups":["urn:li:corpGroup:refs.eng","urn:li:corpGroup:refs.other"]}`)),
				seed(carol, "corpuser", "nativeGroupMembership", j(`{"nativeGroups":["urn:li:corpGroup:refs.eng"]}`)),
				seed(groupDS, "dataset", "ownership", j(`{"owners":[{"owner":"urn:li:corpGroup:refs.eng","type":"DATAOWNER"},{"owner":"`+carol+`","type":"DATAOWNER"}]}`)),
			},
			checks: []refCheck{
				{carol, "groupMembership", `{"groups":["urn:li:corpGroup:refs.other"]}`},
				{carol, "nativeGroupMembership", `{"nativeGroups":[]}`},
				{carol, "corpUserInfo", `{"active":true}`},
				{groupDS, "ownership", `{"owners":[{"owner":"` + carol + `","type":"DATAOWNER"}]}`},
				{"urn:li:corpGroup:refs.parent", "corpGroupInfo", `{"admins":[],"displayName":"Parent","groups":[],"members":[]}`},
			},
			gql: []refGQL{
				{owners, map[string]any{"u": groupDS}, []string{"dataset", "ownership", "owners", "*", "owner", "urn"}, `["` + carol + `"]`},
				{`query($u: String!) { corpUser(urn: $u) { relationships(input: {types: ["IsMemberOfGroup", "IsMemberOfNativeGroup"], direction: OUTGOING, start: 0, count: 10}) { total } } }`,
					map[string]any{"u": carol}, []string{"corpUser", "relationships", "total"}, `1`},
			},
			search: []refSearch{{"dataset", "owners", "urn:li:corpGroup:refs.eng", groupDS}},
		},
		{
			name: "tag", deleted: "urn:li:tag:refs.pii", del: openAPIDelete("v3"),
			seeds: []map[string]any{
				seed("urn:li:tag:refs.pii", "tag", "tagProperties", j(`{"name":"pii"}`)),
				seed(tagged, "dataset", "globalTags", j(`{"tags":[{"tag":"urn:li:tag:refs.pii"},{"tag":"urn:li:tag:refs.keep"}]}`)),
				seed(tagged, "dataset", "editableSchemaMetadata", j(`{"editableSchemaFieldInfo":[{"fieldPath":"email","description":"mail","globalTags":{"tags":[{"tag":"urn:li:tag:refs.pii"}]}}]}`)),
			},
			checks: []refCheck{
				{tagged, "globalTags", `{"tags":[{"tag":"urn:li:tag:refs.keep"}]}`},
				{tagged, "editableSchemaMetadata", `{"editableSchemaFieldInfo":[{"description":"mail","fieldPath":"email","globalTags":{"tags":[]}}]}`},
			},
			gql: []refGQL{{`query($u: String!) { dataset(urn: $u) { tags { tags { tag { urn } } } } }`, map[string]any{"u": tagged},
				[]string{"dataset", "tags", "tags", "*", "tag", "urn"}, `["urn:li:tag:refs.keep"]`}},
			search: []refSearch{{"dataset", "tags", "urn:li:tag:refs.pii", tagged}},
		},
		{
			name: "glossary term", deleted: "urn:li:glossaryTerm:refs.ssn", del: gqlDelete("deleteGlossaryEntity", byURN),
			seeds: []map[string]any{
				seed("urn:li:glossaryTerm:refs.ssn", "glossaryTerm", "glossaryTermInfo", j(`{"definition":"ssn","termSource":"INTERNAL"}`)),
				seed(termed, "dataset", "glossaryTerms", j(`{"terms":[{"urn":"urn:li:glossaryTerm:refs.ssn"},{"urn":"urn:li:glossaryTerm:refs.keep"}],"auditStamp":`+stamp+`}`)),
				seed("urn:li:glossaryTerm:refs.id", "glossaryTerm", "glossaryRelatedTerms", j(`{"isRelatedTerms":["urn:li:glossaryTerm:refs.ssn"],"relatedTerms":["urn:li:glossaryTerm:refs.ssn","urn:li:glossaryTerm:refs.keep"]}`)),
			},
			checks: []refCheck{
				{termed, "glossaryTerms", `{"auditStamp":` + stamp + `,"terms":[{"urn":"urn:li:glossaryTerm:refs.keep"}]}`},
				{"urn:li:glossaryTerm:refs.id", "glossaryRelatedTerms", `{"isRelatedTerms":[],"relatedTerms":["urn:li:glossaryTerm:refs.keep"]}`},
			},
			gql: []refGQL{{`query($u: String!) { dataset(urn: $u) { glossaryTerms { terms { term { urn } } } } }`, map[string]any{"u": termed},
				[]string{"dataset", "glossaryTerms", "terms", "*", "term", "urn"}, `["urn:li:glossaryTerm:refs.keep"]`}},
			search: []refSearch{{"dataset", "glossaryTerms", "urn:li:glossaryTerm:refs.ssn", termed}},
		},
		{
			name: "glossary node", deleted: "urn:li:glossaryNode:refs.pii", del: gqlDelete("deleteGlossaryEntity", byURN),
			seeds: []map[string]any{
				seed("urn:li:glossaryNode:refs.pii", "glossaryNode", "glossaryNodeInfo", j(`{"definition":"pii","name":"PII"}`)),
				seed("urn:li:glossaryTerm:refs.email", "glossaryTerm", "glossaryTermInfo", j(`{"definition":"email","name":"Email","termSource":"INTERNAL","parentNode":"urn:li:glossaryNode:refs.pii"}`)),
			},
			checks: []refCheck{
				{"urn:li:glossaryTerm:refs.email", "glossaryTermInfo", `{"definition":"email","name":"Email","termSource":"INTERNAL"}`},
			},
			gql: []refGQL{{`query($u: String!) { glossaryTerm(urn: $u) { parentNodes { count } } }`, map[string]any{"u": "urn:li:glossaryTerm:refs.email"},
				[]string{"glossaryTerm", "parentNodes", "count"}, `0`}},
		},
		{
			name: "domain", deleted: "urn:li:domain:refs.sales", del: gqlDelete("deleteDomain", byURN),
			seeds: []map[string]any{
				seed("urn:li:domain:refs.sales", "domain", "domainProperties", j(`{"name":"Sales"}`)),
				seed(inDom, "dataset", "domains", j(`{"domains":["urn:li:domain:refs.sales"]}`)),
			},
			checks: []refCheck{{inDom, "domains", `{"domains":[]}`}},
			gql: []refGQL{{`query($u: String!) { dataset(urn: $u) { domain { domain { urn } } } }`, map[string]any{"u": inDom},
				[]string{"dataset", "domain"}, `null`}},
			search: []refSearch{{"dataset", "domains", "urn:li:domain:refs.sales", inDom}},
		},
		{
			// container is the container aspect's only field: nothing
			// of the aspect is left.
			name: "container", deleted: "urn:li:container:refs.db", del: restliDelete,
			seeds: []map[string]any{
				seed("urn:li:container:refs.db", "container", "containerProperties", j(`{"name":"db"}`)),
				seed(inCont, "dataset", "container", j(`{"container":"urn:li:container:refs.db"}`)),
				seed(inCont, "dataset", "datasetProperties", j(`{"name":"in container"}`)),
			},
			checks: []refCheck{{inCont, "container", ""}, {inCont, "datasetProperties", `{"name":"in container"}`}},
			gql: []refGQL{{`query($u: String!) { dataset(urn: $u) { container { urn } } }`, map[string]any{"u": inCont},
				[]string{"dataset", "container"}, `null`}},
			search: []refSearch{{"dataset", "container", "urn:li:container:refs.db", inCont}},
		},
		{
			// A dataset is an asset of data products, a subject of
			// queries and the upstream of other datasets.
			name: "dataset in a data product and a query", deleted: source, del: openAPIDelete("v2"),
			seeds: []map[string]any{
				seed(source, "dataset", "status", j(`{"removed":false}`)),
				seed("urn:li:dataProduct:refs.dp", "dataProduct", "dataProductProperties", j(`{"name":"DP","assets":[{"destinationUrn":"`+source+`"},{"destinationUrn":"`+other+`"}]}`)),
				seed("urn:li:query:refs.q", "query", "querySubjects", j(`{"subjects":[{"entity":"`+source+`"},{"entity":"`+other+`"}]}`)),
				seed(down, "dataset", "upstreamLineage", j(`{"upstreams":[{"dataset":"`+source+`","type":"TRANSFORMED","auditStamp":{"time":0,"actor":"urn:li:corpuser:unknown"}},{"dataset":"`+other+`","type":"TRANSFORMED","auditStamp":{"time":0,"actor":"urn:li:corpuser:unknown"}}]}`)),
			},
			checks: []refCheck{
				{"urn:li:dataProduct:refs.dp", "dataProductProperties", `{"assets":[{"destinationUrn":"` + other + `"}],"name":"DP"}`},
				{"urn:li:query:refs.q", "querySubjects", `{"subjects":[{"entity":"` + other + `"}]}`},
				{down, "upstreamLineage", `{"upstreams":[{"auditStamp":{"actor":"urn:li:corpuser:unknown","time":0},"dataset":"` + other + `","type":"TRANSFORMED"}]}`},
			},
			gql: []refGQL{{`query($u: String!) { dataset(urn: $u) { relationships(input: {types: ["DownstreamOf"], direction: OUTGOING, start: 0, count: 10}) { relationships { entity { urn } } } } }`,
				map[string]any{"u": down}, []string{"dataset", "relationships", "relationships", "*", "entity", "urn"}, `["` + other + `"]`}},
			search: []refSearch{{"query", "entities", source, "urn:li:query:refs.q"}, {"dataset", "upstreams", source, down}},
		},
		{
			name: "business attribute", deleted: "urn:li:businessAttribute:refs.email", del: gqlDelete("deleteBusinessAttribute", byURN),
			seeds: []map[string]any{
				seed("urn:li:businessAttribute:refs.email", "businessAttribute", "businessAttributeInfo", j(`{"fieldPath":"email","name":"Email"}`)),
				seed(field, "schemaField", "businessAttributes", j(`{"businessAttribute":{"businessAttributeUrn":"urn:li:businessAttribute:refs.email"}}`)),
				seed(field, "schemaField", "status", j(`{"removed":false}`)),
			},
			checks: []refCheck{{field, "businessAttributes", `{}`}, {field, "status", `{"removed":false}`}},
			search: []refSearch{{"schemaField", "schemaFieldBusinessAttribute", "urn:li:businessAttribute:refs.email", field}},
		},
		{
			name: "structured property", deleted: "urn:li:structuredProperty:refs.retention",
			del: gqlDelete("deleteStructuredProperty", func(urn string) map[string]any { return map[string]any{"input": byURN(urn)} }),
			seeds: []map[string]any{
				seed("urn:li:structuredProperty:refs.retention", "structuredProperty", "propertyDefinition", j(`{"qualifiedName":"refs.retention","valueType":"urn:li:dataType:datahub.string","entityTypes":["urn:li:entityType:datahub.dataset"]}`)),
				seed("urn:li:structuredProperty:refs.tier", "structuredProperty", "propertyDefinition", j(`{"qualifiedName":"refs.tier","valueType":"urn:li:dataType:datahub.string","entityTypes":["urn:li:entityType:datahub.dataset"]}`)),
				seed(withSP, "dataset", "structuredProperties", j(`{"properties":[{"propertyUrn":"urn:li:structuredProperty:refs.retention","values":[{"string":"30d"}]},{"propertyUrn":"urn:li:structuredProperty:refs.tier","values":[{"string":"gold"}]}]}`)),
			},
			checks: []refCheck{{withSP, "structuredProperties", `{"properties":[{"propertyUrn":"urn:li:structuredProperty:refs.tier","values":[{"string":"gold"}]}]}`}},
			gql: []refGQL{{`query($u: String!) { dataset(urn: $u) { structuredProperties { properties { structuredProperty { urn } } } } }`, map[string]any{"u": withSP},
				[]string{"dataset", "structuredProperties", "properties", "*", "structuredProperty", "urn"}, `["urn:li:structuredProperty:refs.tier"]`}},
			search: []refSearch{{"dataset", "structuredProperties.refs.retention", "30d", withSP}},
		},
		{
			name: "structured property through OpenAPI", deleted: "urn:li:structuredProperty:refs.ttl", del: openAPIDelete("v3"),
			seeds: []map[string]any{
				seed("urn:li:structuredProperty:refs.ttl", "structuredProperty", "propertyDefinition", j(`{"qualifiedName":"refs.ttl","valueType":"urn:li:dataType:datahub.string","entityTypes":["urn:li:entityType:datahub.dataset"]}`)),
				seed("urn:li:structuredProperty:refs.tier", "structuredProperty", "propertyDefinition", j(`{"qualifiedName":"refs.tier","valueType":"urn:li:dataType:datahub.string","entityTypes":["urn:li:entityType:datahub.dataset"]}`)),
				seed(withSP2, "dataset", "structuredProperties", j(`{"properties":[{"propertyUrn":"urn:li:structuredProperty:refs.ttl","values":[{"string":"30d"}]},{"propertyUrn":"urn:li:structuredProperty:refs.tier","values":[{"string":"gold"}]}]}`)),
			},
			checks: []refCheck{{withSP2, "structuredProperties", `{"properties":[{"propertyUrn":"urn:li:structuredProperty:refs.tier","values":[{"string":"gold"}]}]}`}},
			gql: []refGQL{{`query($u: String!) { dataset(urn: $u) { structuredProperties { properties { structuredProperty { urn } } } } }`, map[string]any{"u": withSP2},
				[]string{"dataset", "structuredProperties", "properties", "*", "structuredProperty", "urn"}, `["urn:li:structuredProperty:refs.tier"]`}},
			search: []refSearch{{"dataset", "structuredProperties.refs.ttl", "30d", withSP2}},
		},
	}
}

// TestDeleteRemovesReferences deletes entities of every kind others name,
// through each protocol, and reads the entities that named them back: the
// references are gone, the rest of each aspect is as it was, and search no
// longer finds the entities by the deleted one.
func TestDeleteRemovesReferences(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			ui := loadUIOps(t, srv)
			for _, tc := range referenceCases() {
				t.Run(tc.name, func(t *testing.T) {
					srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": tc.seeds})
					for _, s := range tc.search {
						if got := srv.search(t, map[string]any{"entity": s.entity, "input": "*", "filter": filterOf(s.field, "EQUAL", false, s.value)}).Entities; !slices.Contains(got, s.urn) {
							t.Fatalf("before the delete, %s %s=%s finds %v, want %s among them", s.entity, s.field, s.value, got, s.urn)
						}
					}
					tc.del(t, srv, ui, tc.deleted)
					// A read of an entity that is not there answers its key.
					if got := aspectsOf(t, srv, tc.deleted); len(got) > 1 {
						t.Errorf("the deleted entity still has aspects %s", asJSON(got))
					}
					for _, c := range tc.checks {
						got, ok := aspectsOf(t, srv, c.urn)[c.aspect]
						switch {
						case c.want == "" && ok:
							t.Errorf("%s of %s = %s, want it deleted", c.aspect, c.urn, asJSON(got))
						case c.want != "" && !ok:
							t.Errorf("%s of %s is gone, want %s", c.aspect, c.urn, c.want)
						case c.want != "" && asJSON(got) != c.want:
							t.Errorf("%s of %s =\n%s\nwant\n%s", c.aspect, c.urn, asJSON(got), c.want)
						}
					}
					for _, g := range tc.gql {
						got, _ := pick(srv.gqlData(t, g.query, g.vars), g.path)
						if asJSON(got) != g.want {
							t.Errorf("GraphQL %v of %v = %s, want %s", g.path, g.vars, asJSON(got), g.want)
						}
					}
					for _, s := range tc.search {
						if got := srv.search(t, map[string]any{"entity": s.entity, "input": "*", "filter": filterOf(s.field, "EQUAL", false, s.value)}).Entities; slices.Contains(got, s.urn) {
							t.Errorf("after the delete, %s %s=%s still finds %s", s.entity, s.field, s.value, s.urn)
						}
					}
				})
			}
		})
	}
}

// TestDeleteReferencesAllOrNothing deletes a tag in a batch that fails
// afterwards: the references to the tag are removed in the delete's
// transaction, so they stay with the tag.
func TestDeleteReferencesAllOrNothing(t *testing.T) {
	const tag = "urn:li:tag:atomic.pii"
	ds := hive("atomic.tagged")
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{
				seed(tag, "tag", "tagProperties", map[string]any{"name": "pii"}),
				seed(ds, "dataset", "globalTags", map[string]any{"tags": []any{map[string]any{"tag": tag}}}),
			}})
			del := map[string]any{"entityType": "tag", "entityUrn": tag, "changeType": "DELETE", "aspectName": "tagKey"}
			// Fails in the transaction, after the delete: the dataset exists.
			bad := seed(ds, "dataset", "status", map[string]any{"removed": false})
			bad["changeType"] = "CREATE_ENTITY"
			if st, b := srv.do(t, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{del, bad}}); st != 409 {
				t.Fatalf("a batch creating an entity that exists: status %d, want 409: %s", st, b)
			}
			if got, want := asJSON(aspectsOf(t, srv, ds)["globalTags"]), `{"tags":[{"tag":"`+tag+`"}]}`; got != want {
				t.Errorf("tags after the failed batch = %s, want %s", got, want)
			}
			if _, ok := aspectsOf(t, srv, tag)["tagProperties"]; !ok {
				t.Errorf("the tag is gone after the failed batch")
			}
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{del}})
			if got, want := asJSON(aspectsOf(t, srv, ds)["globalTags"]), `{"tags":[]}`; got != want {
				t.Errorf("tags after the delete = %s, want %s", got, want)
			}
		})
	}
}
