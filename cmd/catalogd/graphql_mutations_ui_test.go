package main

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The entities the mutation tests edit.
var (
	mutA, mutB, mutC = hive("mut_a"), hive("mut_b"), hive("mut_c")
	mutMissing       = hive("mut_missing")
	mutChart         = "urn:li:chart:(looker,mut_chart)"
	mutDashboard     = "urn:li:dashboard:(looker,mut_dashboard)"
	mutFlow          = "urn:li:dataFlow:(airflow,mut_flow,PROD)"
	mutJob           = "urn:li:dataJob:(" + mutFlow + ",mut_job)"
	mutJob2          = "urn:li:dataJob:(" + mutFlow + ",mut_job2)"
	mutTag, mutTag2  = "urn:li:tag:mut_tag", "urn:li:tag:mut_tag2"
	mutTerm          = "urn:li:glossaryTerm:mut_term"
	mutNode          = "urn:li:glossaryNode:mut_node"
	mutUser          = "urn:li:corpuser:mut_user"
	mutGroup         = "urn:li:corpGroup:mut_group"
	mutDomain        = "urn:li:domain:mut_domain"
	mutVersionSet    = "urn:li:versionSet:(mut_versions,dataset)"
)

func mutationSeeds() []map[string]any {
	st := map[string]any{"time": 1000, "actor": "urn:li:corpuser:etl"}
	last := map[string]any{"created": st, "lastModified": st}
	return []map[string]any{
		named(mutA), named(mutB), named(mutC),
		seed(mutChart, "chart", "chartInfo", map[string]any{"title": "Mut chart", "description": "", "lastModified": last}),
		seed(mutDashboard, "dashboard", "dashboardInfo", map[string]any{"title": "Mut dashboard", "description": "", "lastModified": last}),
		seed(mutFlow, "dataFlow", "dataFlowInfo", map[string]any{"name": "mut_flow"}),
		seed(mutJob, "dataJob", "dataJobInfo", map[string]any{"name": "mut_job", "type": "COMMAND"}),
		seed(mutJob2, "dataJob", "dataJobInfo", map[string]any{"name": "mut_job2", "type": "COMMAND"}),
		seed(mutTag, "tag", "tagProperties", map[string]any{"name": "Mut tag"}),
		seed(mutTag2, "tag", "tagProperties", map[string]any{"name": "Mut tag 2"}),
		seed(mutTerm, "glossaryTerm", "glossaryTermInfo", map[string]any{"name": "Mut term", "definition": "", "termSource": "INTERNAL"}),
		seed(mutNode, "glossaryNode", "glossaryNodeInfo", map[string]any{"name": "Mut node", "definition": ""}),
		seed(mutUser, "corpuser", "corpUserInfo", map[string]any{"active": true, "displayName": "Mut user"}),
		seed(mutGroup, "corpGroup", "corpGroupInfo", map[string]any{"displayName": "Mut group", "admins": []any{}, "members": []any{}, "groups": []any{}}),
		seed(mutDomain, "domain", "domainProperties", map[string]any{"name": "Mut domain"}),
	}
}

// mutationServer starts a server of the store with the mutation seeds.
func mutationServer(t *testing.T, st testStore) (*testServer, *uiOps) {
	t.Helper()
	srv := startServer(t, st.args...)
	for _, s := range mutationSeeds() {
		srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": s})
	}
	return srv, loadUIOps(t, srv)
}

// uiFails runs the UI's operation name and checks it fails with an error
// saying want.
func uiFails(t *testing.T, ui *uiOps, name string, vars map[string]any, want string) {
	t.Helper()
	r := ui.srv.gql(t, ui.docs.text(t, name), vars)
	if len(r.Errors) == 0 || !strings.Contains(fmt.Sprint(r.Errors[0]["message"]), want) {
		t.Errorf("%s %v: errors %v, want one saying %q", name, vars, r.Errors, want)
	}
}

// inputOf wraps v as an operation's input.
func inputOf(v map[string]any) map[string]any { return map[string]any{"input": v} }

// lineageEdges makes the UI's edges from upstream, downstream pairs.
func lineageEdges(pairs ...string) []any {
	out := []any{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"upstreamUrn": pairs[i], "downstreamUrn": pairs[i+1]})
	}
	return out
}

// upstreamsIn lists the upstreams of urn the lineage view shows.
func upstreamsIn(t *testing.T, ui *uiOps, urn string) []string {
	t.Helper()
	d := ui.run(t, "getEntityLineageV2", map[string]any{"urn": urn, "showColumns": false, "includeGhostEntities": true})
	got := urnsAt(t, d, "entity.upstream.relationships", "entity.urn")
	slices.Sort(got)
	return got
}

// TestGraphQLUpdateLineageUI edits lineage as the lineage view's editor
// does: edges into a dataset, a chart, a dashboard and a data job, and out
// of a data job, all in one call, then removed again.
func TestGraphQLUpdateLineageUI(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv, ui := mutationServer(t, st)
			ui.run(t, "updateLineage", inputOf(map[string]any{"edgesToRemove": []any{}, "edgesToAdd": lineageEdges(
				mutA, mutB, mutA, mutChart, mutChart, mutDashboard, mutB, mutDashboard, mutA, mutJob, mutJob, mutC, mutJob, mutJob2)}))
			want := map[string][]string{mutB: {mutA}, mutChart: {mutA}, mutDashboard: {mutChart, mutB}, mutJob: {mutA}, mutC: {mutJob}, mutJob2: {mutJob}}
			for urn, w := range want {
				slices.Sort(w)
				if got := upstreamsIn(t, ui, urn); !slices.Equal(got, w) {
					t.Errorf("upstreams of %s = %v, want %v", urn, got, w)
				}
			}
			// Stored where DataHub keeps them, marked as made in the UI.
			up := get(t, aspectsOf(t, srv, mutB), "upstreamLineage.upstreams.0")
			if get(t, up, "dataset") != mutA || get(t, up, "type") != "TRANSFORMED" || get(t, up, "properties.source") != "UI" ||
				get(t, up, "created.actor") != "urn:li:corpuser:datahub" {
				t.Errorf("upstreamLineage of b = %v", up)
			}
			io := aspectsOf(t, srv, mutJob)["dataJobInputOutput"]
			if get(t, io, "inputDatasetEdges.0.destinationUrn") != mutA || get(t, io, "outputDatasetEdges.0.destinationUrn") != mutC ||
				get(t, io, "outputDatasetEdges.0.sourceUrn") != mutJob {
				t.Errorf("dataJobInputOutput = %v", io)
			}
			if e := get(t, aspectsOf(t, srv, mutJob2), "dataJobInputOutput.inputDatajobEdges.0"); get(t, e, "destinationUrn") != mutJob {
				t.Errorf("job2 inputDatajobEdges = %v", e)
			}
			if e := get(t, aspectsOf(t, srv, mutDashboard), "dashboardInfo.chartEdges.0"); get(t, e, "destinationUrn") != mutChart {
				t.Errorf("dashboard chartEdges = %v", e)
			}
			// Adding an edge again adds nothing.
			ui.run(t, "updateLineage", inputOf(map[string]any{"edgesToRemove": []any{}, "edgesToAdd": lineageEdges(mutA, mutB)}))
			if n := len(get(t, aspectsOf(t, srv, mutB), "upstreamLineage.upstreams").([]any)); n != 1 {
				t.Errorf("b has %d upstreams after adding a again, want 1", n)
			}

			for _, c := range []struct {
				name  string
				input map[string]any
				want  string
			}{
				{"unknown upstream", map[string]any{"edgesToRemove": []any{}, "edgesToAdd": lineageEdges(mutA, mutC, mutMissing, mutC)}, "does not exist"},
				{"unknown downstream", map[string]any{"edgesToRemove": []any{}, "edgesToAdd": lineageEdges(mutA, mutC, mutA, mutMissing)}, "does not exist"},
				{"tag as upstream", map[string]any{"edgesToRemove": []any{}, "edgesToAdd": lineageEdges(mutA, mutC, mutTag, mutC)}, "Cannot add " + mutTag},
				{"chart upstream of a chart", map[string]any{"edgesToRemove": []any{}, "edgesToAdd": lineageEdges(mutA, mutC, mutChart, mutChart)}, "Cannot add " + mutChart},
				{"lineage of a tag", map[string]any{"edgesToRemove": []any{}, "edgesToAdd": lineageEdges(mutA, mutC, mutA, mutTag)}, "Cannot edit the lineage of " + mutTag},
				{"bad urn", map[string]any{"edgesToRemove": []any{}, "edgesToAdd": lineageEdges(mutA, mutC, "nope", mutC)}, "nope"},
			} {
				uiFails(t, ui, "updateLineage", inputOf(c.input), c.want)
				// All or nothing: the good edge in the same call is not written.
				if got := upstreamsIn(t, ui, mutC); !slices.Equal(got, []string{mutJob}) {
					t.Errorf("%s: upstreams of c = %v, want only the job's", c.name, got)
				}
			}

			ui.run(t, "updateLineage", inputOf(map[string]any{"edgesToAdd": []any{}, "edgesToRemove": lineageEdges(
				mutA, mutB, mutChart, mutDashboard, mutJob, mutC, mutMissing, mutB)}))
			for urn, w := range map[string][]string{mutB: {}, mutDashboard: {mutB}, mutC: {}, mutChart: {mutA}, mutJob: {mutA}} {
				if got := upstreamsIn(t, ui, urn); !slices.Equal(got, w) {
					t.Errorf("after removing, upstreams of %s = %v, want %v", urn, got, w)
				}
			}
		})
	}
}

// TestGraphQLEntityEditsUI runs the soft delete of the search page, the
// embed and display property editors and the legacy update mutations as
// the UI sends them, and reads each change back.
func TestGraphQLEntityEditsUI(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv, ui := mutationServer(t, st)
			removed := func(urn string) any { return get(t, aspectsOf(t, srv, urn), "status.removed") }

			t.Run("batchUpdateSoftDeleted", func(t *testing.T) {
				uiFails(t, ui, "batchUpdateSoftDeleted", inputOf(map[string]any{"urns": []any{mutA, mutMissing}, "deleted": true}), "Entity does not exist")
				if _, ok := aspectsOf(t, srv, mutA)["status"]; ok {
					t.Errorf("a failed batch wrote status on a: %v", aspectsOf(t, srv, mutA)["status"])
				}
				ui.run(t, "batchUpdateSoftDeleted", inputOf(map[string]any{"urns": []any{mutA, mutB}, "deleted": true}))
				if removed(mutA) != true || removed(mutB) != true {
					t.Errorf("removed after soft delete: a %v b %v", removed(mutA), removed(mutB))
				}
				ui.run(t, "batchUpdateSoftDeleted", inputOf(map[string]any{"urns": []any{mutA, mutB}, "deleted": false}))
				if removed(mutA) != false || removed(mutB) != false {
					t.Errorf("removed after restoring: a %v b %v", removed(mutA), removed(mutB))
				}
			})

			t.Run("updateEmbed", func(t *testing.T) {
				ui.run(t, "updateEmbed", inputOf(map[string]any{"urn": mutChart, "renderUrl": "https://looker.example.com/embed/1"}))
				d := ui.run(t, "getChart", map[string]any{"urn": mutChart})
				if got := get(t, d, "chart.embed.renderUrl"); got != "https://looker.example.com/embed/1" {
					t.Errorf("chart embed = %v", got)
				}
				uiFails(t, ui, "updateEmbed", inputOf(map[string]any{"urn": mutMissing, "renderUrl": "https://x.example.com"}), "does not exist")
			})

			t.Run("updateDisplayProperties", func(t *testing.T) {
				ui.run(t, "updateDisplayProperties", map[string]any{"urn": mutDomain, "input": map[string]any{"colorHex": "#123456",
					"icon": map[string]any{"iconLibrary": "MATERIAL", "name": "Storage", "style": "Outlined"}}})
				ui.run(t, "updateDisplayProperties", map[string]any{"urn": mutDomain, "input": map[string]any{"icon": map[string]any{"name": "Cloud"}}})
				d := ui.run(t, "getDomain", map[string]any{"urn": mutDomain})
				dp := get(t, d, "domain.displayProperties")
				if got := fmt.Sprintln(get(t, dp, "colorHex"), get(t, dp, "icon.iconLibrary"), get(t, dp, "icon.name"), get(t, dp, "icon.style")); got != "#123456 MATERIAL Cloud Outlined\n" {
					t.Errorf("display properties = %s (%v)", got, dp)
				}
				uiFails(t, ui, "updateDisplayProperties", map[string]any{"urn": mutNode, "input": map[string]any{"icon": map[string]any{"name": "Cloud"}}}, "an icon needs its iconLibrary")
				uiFails(t, ui, "updateDisplayProperties", map[string]any{"urn": "urn:li:domain:mut_missing", "input": map[string]any{"colorHex": "#000000"}}, "does not exist")
			})

			t.Run("updateDataset", func(t *testing.T) {
				ui.run(t, "updateDataset", map[string]any{"urn": mutA, "input": map[string]any{
					"ownership":           map[string]any{"owners": []any{map[string]any{"owner": mutUser, "type": "DATAOWNER"}, map[string]any{"owner": mutGroup, "ownershipTypeUrn": "urn:li:ownershipType:__system__business_owner"}}},
					"globalTags":          map[string]any{"tags": []any{map[string]any{"tag": map[string]any{"urn": mutTag, "name": "Mut tag"}}}},
					"editableProperties":  map[string]any{"description": "Edited", "name": "A edited"},
					"institutionalMemory": map[string]any{"elements": []any{map[string]any{"url": "https://wiki.example.com/a", "description": "Runbook", "author": mutUser, "createdAt": 5000}}},
					"deprecation":         map[string]any{"deprecated": true, "note": "old", "decommissionTime": 7000},
					"editableSchemaMetadata": map[string]any{"editableSchemaFieldInfo": []any{map[string]any{"fieldPath": "id", "description": "The id",
						"globalTags": map[string]any{"tags": []any{map[string]any{"tag": map[string]any{"urn": mutTag2, "name": "x"}}}}}}},
				}})
				d := get(t, ui.run(t, "getDataset", map[string]any{"urn": mutA}), "dataset")
				owners := []string{}
				for _, o := range get(t, d, "ownership.owners").([]any) {
					owners = append(owners, fmt.Sprint(get(t, o, "owner.urn"), " ", get(t, o, "ownershipType.urn")))
				}
				if want := []string{mutUser + " urn:li:ownershipType:__system__dataowner", mutGroup + " urn:li:ownershipType:__system__business_owner"}; !slices.Equal(owners, want) {
					t.Errorf("owners = %v, want %v", owners, want)
				}
				if got := urnsAt(t, d, "globalTags.tags", "tag.urn"); !slices.Equal(got, []string{mutTag}) {
					t.Errorf("tags = %v", got)
				}
				if get(t, d, "editableProperties.description") != "Edited" || get(t, d, "editableProperties.name") != "A edited" {
					t.Errorf("editableProperties = %v", get(t, d, "editableProperties"))
				}
				if l := get(t, d, "institutionalMemory.elements.0"); get(t, l, "url") != "https://wiki.example.com/a" || get(t, l, "description") != "Runbook" || get(t, l, "actor.urn") != mutUser {
					t.Errorf("links = %v", l)
				}
				a := aspectsOf(t, srv, mutA)
				if get(t, a, "datasetDeprecation.deprecated") != true || get(t, a, "datasetDeprecation.note") != "old" || get(t, a, "datasetDeprecation.actor") != "urn:li:corpuser:datahub" {
					t.Errorf("datasetDeprecation = %v", a["datasetDeprecation"])
				}
				if f := get(t, a, "editableSchemaMetadata.editableSchemaFieldInfo.0"); get(t, f, "fieldPath") != "id" || get(t, f, "description") != "The id" || get(t, f, "globalTags.tags.0.tag") != mutTag2 {
					t.Errorf("editableSchemaMetadata = %v", f)
				}
				// An update replaces the list it gives.
				ui.run(t, "updateDataset", map[string]any{"urn": mutA, "input": map[string]any{"ownership": map[string]any{"owners": []any{map[string]any{"owner": mutUser}}}}})
				d = get(t, ui.run(t, "getDataset", map[string]any{"urn": mutA}), "dataset")
				if got := urnsAt(t, d, "ownership.owners", "owner.urn"); !slices.Equal(got, []string{mutUser}) {
					t.Errorf("owners after replacing = %v", got)
				}
				if got := urnsAt(t, d, "globalTags.tags", "tag.urn"); !slices.Equal(got, []string{mutTag}) {
					t.Errorf("tags after an ownership update = %v, want them kept", got)
				}
			})

			for _, c := range []struct{ op, query, field, urn string }{
				{"updateChart", "getChart", "chart", mutChart},
				{"updateDashboard", "getDashboard", "dashboard", mutDashboard},
				{"updateDataFlow", "getDataFlow", "dataFlow", mutFlow},
				{"updateDataJob", "getDataJob", "dataJob", mutJob},
			} {
				t.Run(c.op, func(t *testing.T) {
					ui.run(t, c.op, map[string]any{"urn": c.urn, "input": map[string]any{
						"ownership":          map[string]any{"owners": []any{map[string]any{"owner": mutGroup, "type": "TECHNICAL_OWNER"}}},
						"tags":               map[string]any{"tags": []any{map[string]any{"tag": map[string]any{"urn": mutTag2, "name": "x"}}}},
						"editableProperties": map[string]any{"description": "About " + c.field},
					}})
					d := get(t, ui.run(t, c.query, map[string]any{"urn": c.urn}), c.field)
					if got := urnsAt(t, d, "ownership.owners", "owner.urn"); !slices.Equal(got, []string{mutGroup}) {
						t.Errorf("owners = %v", got)
					}
					if got := urnsAt(t, d, "globalTags.tags", "tag.urn"); !slices.Equal(got, []string{mutTag2}) {
						t.Errorf("tags = %v", got)
					}
					if got := get(t, d, "editableProperties.description"); got != "About "+c.field {
						t.Errorf("description = %v", got)
					}
					uiFails(t, ui, c.op, map[string]any{"urn": mutA, "input": map[string]any{"editableProperties": map[string]any{"description": "x"}}}, "is not a "+c.field+" URN")
					uiFails(t, ui, c.op, map[string]any{"urn": c.urn, "input": map[string]any{
						"editableProperties": map[string]any{"description": "not written"},
						"tags":               map[string]any{"tags": []any{map[string]any{"tag": map[string]any{"urn": mutUser, "name": "x"}}}}}}, "invalid urn")
					d = get(t, ui.run(t, c.query, map[string]any{"urn": c.urn}), c.field)
					if got := get(t, d, "editableProperties.description"); got != "About "+c.field {
						t.Errorf("description after a refused update = %v", got)
					}
				})
			}

			t.Run("updateTag", func(t *testing.T) {
				d := ui.run(t, "updateTag", map[string]any{"urn": mutTag, "input": map[string]any{"urn": mutTag, "name": "Renamed", "description": "About the tag"}})
				if get(t, d, "updateTag.urn") != mutTag || get(t, d, "updateTag.description") != "About the tag" {
					t.Errorf("updateTag answered %v", d)
				}
				tag := get(t, ui.run(t, "getTag", map[string]any{"urn": mutTag}), "tag")
				if get(t, tag, "properties.name") != "Renamed" || get(t, tag, "properties.description") != "About the tag" {
					t.Errorf("tag = %v", tag)
				}
				if got := urnsAt(t, tag, "ownership.owners", "owner.urn"); !slices.Equal(got, []string{"urn:li:corpuser:datahub"}) {
					t.Errorf("tag owners = %v, want the editor", got)
				}
				uiFails(t, ui, "updateTag", map[string]any{"urn": mutA, "input": map[string]any{"urn": mutA, "name": "x"}}, "is not a tag URN")
			})
		})
	}
}

// erModelID is the id DataHub derives for a relationship.
func erModelID(name, a, b string) string {
	if a > b {
		a, b = b, a
	}
	sum := md5.Sum([]byte(`{"Destination":"` + a + `","ERModelRelationName":"` + name + `","Source":"` + b + `"}`))
	return hex.EncodeToString(sum[:])
}

// TestGraphQLERModelRelationshipUI creates and edits a relationship between
// two datasets as the UI's relationship editor does.
func TestGraphQLERModelRelationshipUI(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			_, ui := mutationServer(t, st)
			props := map[string]any{"name": "orders_customers", "source": mutA, "destination": mutB, "created": true,
				"relationshipFieldmappings": []any{map[string]any{"sourceField": "customer_id", "destinationField": "id"}}}
			d := ui.run(t, "createERModelRelationship", inputOf(map[string]any{"properties": props,
				"editableProperties": map[string]any{"name": "Orders to customers", "description": "Each order has a customer"}}))
			want := "urn:li:erModelRelationship:" + erModelID("orders_customers", mutA, mutB)
			if get(t, d, "createERModelRelationship.urn") != want || get(t, d, "createERModelRelationship.type") != "ER_MODEL_RELATIONSHIP" {
				t.Fatalf("created %v, want %s", d, want)
			}
			rel := get(t, ui.run(t, "getERModelRelationship", map[string]any{"urn": want}), "erModelRelationship")
			if get(t, rel, "properties.name") != "orders_customers" || get(t, rel, "properties.source.urn") != mutA || get(t, rel, "properties.destination.urn") != mutB ||
				get(t, rel, "properties.relationshipFieldMappings.0.sourceField") != "customer_id" || get(t, rel, "properties.createdActor.urn") != "urn:li:corpuser:datahub" {
				t.Errorf("properties = %v", get(t, rel, "properties"))
			}
			if n := num(t, get(t, rel, "outgoing.total")); n != 2 {
				t.Errorf("outgoing relationships of the relationship = %v, want its two datasets", get(t, rel, "outgoing"))
			}
			if get(t, rel, "editableProperties.name") != "Orders to customers" || get(t, rel, "editableProperties.description") != "Each order has a customer" {
				t.Errorf("editableProperties = %v", get(t, rel, "editableProperties"))
			}

			ui.run(t, "updateERModelRelationship", map[string]any{"urn": want, "input": map[string]any{
				"editableProperties": map[string]any{"description": "Every order has one customer"}}})
			rel = get(t, ui.run(t, "getERModelRelationship", map[string]any{"urn": want}), "erModelRelationship")
			if get(t, rel, "editableProperties.description") != "Every order has one customer" || get(t, rel, "properties.name") != "orders_customers" {
				t.Errorf("after the update: %v", rel)
			}

			bad := map[string]any{"name": "x", "source": mutA, "destination": mutMissing}
			uiFails(t, ui, "createERModelRelationship", inputOf(map[string]any{"properties": bad}), "does not exist")
			uiFails(t, ui, "createERModelRelationship", inputOf(map[string]any{"properties": map[string]any{"name": "x", "source": mutA, "destination": mutChart}}), "is not a dataset URN")
			uiFails(t, ui, "updateERModelRelationship", map[string]any{"urn": "urn:li:erModelRelationship:nope", "input": map[string]any{"editableProperties": map[string]any{"description": "x"}}}, "does not exist")
		})
	}
}

// TestGraphQLAssetVersionsUI links and unlinks versions of a dataset as the
// UI's versioning panel does, checking the latest version after each step.
func TestGraphQLAssetVersionsUI(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv, ui := mutationServer(t, st)
			link := func(urn, label string) map[string]any {
				return inputOf(map[string]any{"versionSet": mutVersionSet, "linkedEntity": urn, "version": label, "comment": "v " + label})
			}
			versions := func(d any, path string) []string {
				got := urnsAt(t, d, path, "entity.urn")
				slices.Sort(got)
				return got
			}
			state := func() string {
				t.Helper()
				var out []string
				for _, u := range []string{mutA, mutB, mutC} {
					vp, _ := aspectsOf(t, srv, u)["versionProperties"].(map[string]any)
					if vp != nil {
						out = append(out, fmt.Sprint(strings.TrimSuffix(strings.TrimPrefix(u, "urn:li:dataset:(urn:li:dataPlatform:hive,"), ",PROD)"), " ",
							get(t, vp, "version.versionTag"), " ", vp["sortId"], " ", vp["isLatest"]))
					}
				}
				set, _ := aspectsOf(t, srv, mutVersionSet)["versionSetProperties"].(map[string]any)
				return fmt.Sprint(out, " latest ", set["latest"])
			}

			d := ui.run(t, "linkAssetVersion", link(mutA, "1.0"))
			if got := versions(d, "linkAssetVersion.versionsSearch.searchResults"); !slices.Equal(got, []string{mutA}) {
				t.Errorf("versions after the first link = %v", got)
			}
			d = ui.run(t, "linkAssetVersion", link(mutB, "2.0"))
			if got := versions(d, "linkAssetVersion.versionsSearch.searchResults"); !slices.Equal(got, []string{mutA, mutB}) {
				t.Errorf("versions after the second link = %v", got)
			}
			if got, want := state(), "[mut_a 1.0 AAAAAAAA false mut_b 2.0 AAAAAAAB true] latest "+mutB; got != want {
				t.Errorf("after linking = %s, want %s", got, want)
			}
			// Linking again changes nothing.
			if d := ui.run(t, "linkAssetVersion", link(mutB, "2.0")); get(t, d, "linkAssetVersion") != nil {
				t.Errorf("linking a version again answered %v, want null", d)
			}
			uiFails(t, ui, "linkAssetVersion", inputOf(map[string]any{"versionSet": mutVersionSet, "linkedEntity": mutChart, "version": "x"}), "Entity type must match")
			uiFails(t, ui, "linkAssetVersion", inputOf(map[string]any{"versionSet": mutTag, "linkedEntity": mutC, "version": "x"}), "must be of type Version Set")
			uiFails(t, ui, "linkAssetVersion", inputOf(map[string]any{"versionSet": "urn:li:versionSet:(other,dataset)", "linkedEntity": mutA, "version": "x"}), "different Version Set")
			uiFails(t, ui, "linkAssetVersion", link(mutMissing, "3.0"), "does not exist")

			d = ui.run(t, "unlinkAssetVersion", inputOf(map[string]any{"versionSet": mutVersionSet, "unlinkedEntity": mutB}))
			if got := versions(d, "unlinkAssetVersion.versionsSearch.searchResults"); !slices.Equal(got, []string{mutA}) {
				t.Errorf("versions after unlinking b = %v", got)
			}
			if got, want := state(), "[mut_a 1.0 AAAAAAAA true] latest "+mutA; got != want {
				t.Errorf("after unlinking the latest = %s, want %s", got, want)
			}
			uiFails(t, ui, "unlinkAssetVersion", inputOf(map[string]any{"versionSet": "urn:li:versionSet:(other,dataset)", "unlinkedEntity": mutA}), "not linked to specified version set")
			// A dataset as of a version has no relationships of its own, as
			// in DataHub.
			vd := srv.gqlData(t, `query($u: String!) { versionedDataset(urn: $u) { urn relationships(input: {types: ["VersionOf"], direction: OUTGOING}) { total } } }`, map[string]any{"u": mutA})
			if get(t, vd, "versionedDataset.urn") != mutA || get(t, vd, "versionedDataset.relationships") != nil {
				t.Errorf("versionedDataset = %v, want its relationships null", vd)
			}
			const getSet = `query($u: String!) { versionSet(urn: $u) { urn } }`
			if d := srv.gqlData(t, getSet, map[string]any{"u": mutVersionSet}); get(t, d, "versionSet.urn") != mutVersionSet {
				t.Errorf("the version set with a version left: %v", d)
			}
			ui.run(t, "unlinkAssetVersion", inputOf(map[string]any{"versionSet": mutVersionSet, "unlinkedEntity": mutA}))
			if d := srv.gqlData(t, getSet, map[string]any{"u": mutVersionSet}); get(t, d, "versionSet") != nil {
				t.Errorf("the version set with no version left is still there: %v", d)
			}
			if _, ok := aspectsOf(t, srv, mutA)["versionProperties"]; ok {
				t.Errorf("a still has versionProperties after unlinking")
			}
		})
	}
}

// TestGraphQLLabelMutationsUI runs the UI's tag, term, owner, domain and
// role mutations and reads each effect back through the dataset page.
func TestGraphQLLabelMutationsUI(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			_, ui := mutationServer(t, st)
			dataset := func(urn string) any { return get(t, ui.run(t, "getDataset", map[string]any{"urn": urn}), "dataset") }
			res := func(urns ...string) []any {
				out := []any{}
				for _, u := range urns {
					out = append(out, map[string]any{"resourceUrn": u})
				}
				return out
			}
			tagsOf := func(urn string) []string { return urnsAt(t, dataset(urn), "globalTags.tags", "tag.urn") }
			ownersOf := func(urn string) []string {
				var out []string
				for _, o := range get(t, dataset(urn), "ownership.owners").([]any) {
					out = append(out, fmt.Sprint(get(t, o, "owner.urn"), " ", get(t, o, "ownershipType.urn")))
				}
				return out
			}

			ui.run(t, "batchAddTags", inputOf(map[string]any{"tagUrns": []any{mutTag, mutTag2}, "resources": res(mutA, mutB)}))
			ui.run(t, "addTags", inputOf(map[string]any{"tagUrns": []any{mutTag}, "resourceUrn": mutC}))
			for u, want := range map[string][]string{mutA: {mutTag, mutTag2}, mutB: {mutTag, mutTag2}, mutC: {mutTag}} {
				if got := tagsOf(u); !slices.Equal(got, want) {
					t.Errorf("tags of %s = %v, want %v", u, got, want)
				}
			}
			ui.run(t, "batchRemoveTags", inputOf(map[string]any{"tagUrns": []any{mutTag}, "resources": res(mutA, mutB)}))
			for u, want := range map[string][]string{mutA: {mutTag2}, mutB: {mutTag2}} {
				if got := tagsOf(u); !slices.Equal(got, want) {
					t.Errorf("tags of %s after removing = %v, want %v", u, got, want)
				}
			}
			uiFails(t, ui, "batchAddTags", inputOf(map[string]any{"tagUrns": []any{mutTerm}, "resources": res(mutA)}), mutTerm)
			uiFails(t, ui, "addTags", inputOf(map[string]any{"tagUrns": []any{mutTag}, "resourceUrn": mutMissing}), "does not exist")

			ui.run(t, "batchAddTerms", inputOf(map[string]any{"termUrns": []any{mutTerm}, "resources": res(mutA, mutB)}))
			for _, u := range []string{mutA, mutB} {
				if got := urnsAt(t, dataset(u), "glossaryTerms.terms", "term.urn"); !slices.Equal(got, []string{mutTerm}) {
					t.Errorf("terms of %s = %v", u, got)
				}
			}
			uiFails(t, ui, "batchAddTerms", inputOf(map[string]any{"termUrns": []any{"urn:li:glossaryTerm:mut_missing"}, "resources": res(mutC)}), "does not exist")

			ui.run(t, "addOwner", inputOf(map[string]any{"ownerUrn": mutUser, "ownerEntityType": "CORP_USER", "type": "TECHNICAL_OWNER", "resourceUrn": mutA}))
			ui.run(t, "addOwners", inputOf(map[string]any{"resourceUrn": mutA, "owners": []any{
				map[string]any{"ownerUrn": mutGroup, "ownerEntityType": "CORP_GROUP", "ownershipTypeUrn": "urn:li:ownershipType:__system__business_owner"}}}))
			if got, want := ownersOf(mutA), []string{mutUser + " urn:li:ownershipType:__system__technical_owner", mutGroup + " urn:li:ownershipType:__system__business_owner"}; !slices.Equal(got, want) {
				t.Errorf("owners = %v, want %v", got, want)
			}
			ui.run(t, "removeOwner", inputOf(map[string]any{"ownerUrn": mutUser, "resourceUrn": mutA}))
			if got, want := ownersOf(mutA), []string{mutGroup + " urn:li:ownershipType:__system__business_owner"}; !slices.Equal(got, want) {
				t.Errorf("owners after removing = %v, want %v", got, want)
			}
			uiFails(t, ui, "addOwner", inputOf(map[string]any{"ownerUrn": mutGroup, "ownerEntityType": "CORP_USER", "resourceUrn": mutA}), "is not a corpuser URN")

			ui.run(t, "setDomain", map[string]any{"entityUrn": mutA, "domainUrn": mutDomain})
			if got := get(t, dataset(mutA), "domain.domain.urn"); got != mutDomain {
				t.Errorf("domain = %v", got)
			}
			uiFails(t, ui, "setDomain", map[string]any{"entityUrn": mutA, "domainUrn": "urn:li:domain:mut_missing"}, "does not exist")
			ui.run(t, "unsetDomain", map[string]any{"entityUrn": mutA})
			if got := get(t, dataset(mutA), "domain"); got != nil {
				t.Errorf("domain after unsetting = %v", got)
			}

			ui.run(t, "setTagColor", map[string]any{"urn": mutTag, "colorHex": "#FF0000"})
			if got := get(t, ui.run(t, "getTag", map[string]any{"urn": mutTag}), "tag.properties.colorHex"); got != "#FF0000" {
				t.Errorf("tag colour = %v", got)
			}
			uiFails(t, ui, "setTagColor", map[string]any{"urn": mutA, "colorHex": "#FF0000"}, "is not a tag URN")

			invite := get(t, ui.srv.gqlData(t, `mutation { createInviteToken(input: {roleUrn: "urn:li:dataHubRole:Editor"}) { inviteToken } }`, nil), "createInviteToken.inviteToken")
			ui.run(t, "acceptRole", inputOf(map[string]any{"inviteToken": invite}))
			roles := get(t, aspectsOf(t, ui.srv, "urn:li:corpuser:datahub"), "roleMembership.roles")
			if !slices.Contains(roles.([]any), any("urn:li:dataHubRole:Editor")) {
				t.Errorf("roles after acceptRole = %v", roles)
			}
			uiFails(t, ui, "acceptRole", inputOf(map[string]any{"inviteToken": "not-a-token"}), "nvite")
		})
	}
}

// TestGraphQLMutationPrivilegesUI checks that a user with no edit privilege
// is refused each of these mutations, and that nothing is written.
func TestGraphQLMutationPrivilegesUI(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			for _, sd := range mutationSeeds() {
				if code, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": sd}); code != 200 {
					t.Fatalf("seed: %d %s", code, b)
				}
			}
			reader, _ := s.cliToken(t, "reader")
			docs := loadUIDocs(t)
			for _, c := range []struct {
				op   string
				vars map[string]any
			}{
				{"updateLineage", inputOf(map[string]any{"edgesToAdd": lineageEdges(mutA, mutB), "edgesToRemove": []any{}})},
				{"batchUpdateSoftDeleted", inputOf(map[string]any{"urns": []any{mutA}, "deleted": true})},
				{"updateEmbed", inputOf(map[string]any{"urn": mutA, "renderUrl": "https://x.example.com"})},
				{"updateDisplayProperties", map[string]any{"urn": mutDomain, "input": map[string]any{"colorHex": "#000000"}}},
				{"updateDataset", map[string]any{"urn": mutA, "input": map[string]any{"editableProperties": map[string]any{"description": "x"}}}},
				{"updateTag", map[string]any{"urn": mutTag, "input": map[string]any{"urn": mutTag, "name": "x"}}},
				{"createERModelRelationship", inputOf(map[string]any{"properties": map[string]any{"name": "x", "source": mutA, "destination": mutB}})},
				{"linkAssetVersion", inputOf(map[string]any{"versionSet": mutVersionSet, "linkedEntity": mutA, "version": "1"})},
			} {
				s.denied(t, reader, docs.text(t, c.op), c.vars, c.op)
			}
			code, b := s.call(t, bearer(s.admin), "GET", "/entitiesV2/"+pathEscape(mutA), nil)
			for _, aspect := range []string{"upstreamLineage", "status", "embed", "editableDatasetProperties", "versionProperties"} {
				if code != 200 || strings.Contains(string(b), `"`+aspect+`"`) {
					t.Errorf("a refused mutation wrote %s: %d %s", aspect, code, b)
				}
			}
			// The specific privileges DataHub asks of each mutation are
			// enough without EDIT_ENTITY, on the entities they are held on.
			s.mustGQL(t, s.admin, `mutation($in: PolicyUpdateInput!) { createPolicy(input: $in) }`, map[string]any{"in": map[string]any{
				"type": "METADATA", "name": "Readers edit dataset lineage, docs and embeds", "state": "ACTIVE", "description": "test",
				"privileges": []string{"EDIT_LINEAGE", "EDIT_ENTITY_DOCS", "EDIT_ENTITY_EMBED"},
				"resources": map[string]any{"filter": map[string]any{"criteria": []any{
					map[string]any{"field": "TYPE", "values": []string{"dataset"}, "condition": "EQUALS"}}}},
				"actors": map[string]any{"users": []string{"urn:li:corpuser:reader"}, "resourceOwners": false, "allUsers": false, "allGroups": false}}}, "createPolicy", nil)
			s.mustGQL(t, reader, docs.text(t, "updateLineage"), inputOf(map[string]any{"edgesToAdd": lineageEdges(mutA, mutB), "edgesToRemove": []any{}}), "", nil)
			s.denied(t, reader, docs.text(t, "updateLineage"), inputOf(map[string]any{"edgesToAdd": lineageEdges(mutA, mutChart), "edgesToRemove": []any{}}), "updateLineage")
			s.mustGQL(t, reader, docs.text(t, "updateDataset"), map[string]any{"urn": mutA, "input": map[string]any{"editableProperties": map[string]any{"description": "by the reader"}}}, "", nil)
			s.denied(t, reader, docs.text(t, "updateDataset"), map[string]any{"urn": mutA, "input": map[string]any{
				"editableProperties": map[string]any{"description": "x"}, "ownership": map[string]any{"owners": []any{}}}}, "updateDataset")
			s.mustGQL(t, reader, docs.text(t, "updateEmbed"), inputOf(map[string]any{"urn": mutA, "renderUrl": "https://x.example.com"}), "", nil)
			code, b = s.call(t, bearer(s.admin), "GET", "/entitiesV2/"+pathEscape(mutB), nil)
			if code != 200 || !strings.Contains(string(b), mutA) {
				t.Errorf("b after the reader's lineage edit: %d %s", code, b)
			}
			code, b = s.call(t, bearer(s.admin), "GET", "/entitiesV2/"+pathEscape(mutA), nil)
			if code != 200 || !strings.Contains(string(b), "by the reader") || strings.Contains(string(b), `"ownership"`) {
				t.Errorf("a after the reader's edits: %d %s", code, b)
			}
			// Display properties take MANAGE_DOMAINS, which the root user has.
			s.mustGQL(t, s.admin, docs.text(t, "updateDisplayProperties"), map[string]any{"urn": mutDomain, "input": map[string]any{"colorHex": "#000000"}}, "", nil)
		})
	}
}
