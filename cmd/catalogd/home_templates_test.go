package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The home page templates and modules end to end: the defaults seeded at
// first start, their lifecycle through GraphQL (as DataHub's web app sends
// its template operations) and through OpenAPI v3 (as the terraform provider
// manages them), the user's and the instance's home page settings, who may
// change what, and the errors of bad input.

// The web app's fragments and operations for templates and modules.
const (
	pageModuleFields = `fragment PageModule on DataHubPageModule { urn type exists properties { name type visibility { scope }
  params { richTextParams { content } assetCollectionParams { assetUrns dynamicFilterJson } linkParams { linkUrl imageUrl description }
  hierarchyViewParams { assetUrns showRelatedEntities relatedEntitiesFilterJson } } created { time actor { urn } } lastModified { time actor { urn } } } }`
	pageTemplateFields = `fragment PageTemplate on DataHubPageTemplate { urn type properties { rows { modules { ...PageModule } }
  assetSummary { summaryElements { elementType structuredProperty { urn } } } surface { surfaceType } visibility { scope }
  created { time actor { urn } } lastModified { time actor { urn } } } }` + "\n" + pageModuleFields
	opUpsertPageTemplate   = `mutation upsertPageTemplate($input: UpsertPageTemplateInput!) { upsertPageTemplate(input: $input) { ...PageTemplate } }` + "\n" + pageTemplateFields
	opUpsertPageModule     = `mutation upsertPageModule($input: UpsertPageModuleInput!) { upsertPageModule(input: $input) { urn } }`
	opDeletePageModule     = `mutation deletePageModule($input: DeletePageModuleInput!) { deletePageModule(input: $input) }`
	opDeletePageTemplate   = `mutation deletePageTemplate($input: DeletePageTemplateInput!) { deletePageTemplate(input: $input) }`
	opGetHomePageSettings  = `query getHomePageSettings { globalHomePageSettings { defaultTemplate { ...PageTemplate } } }` + "\n" + pageTemplateFields
	opUpdateUserHomePage   = `mutation updateUserHomePageSettings($input: UpdateUserHomePageSettingsInput!) { updateUserHomePageSettings(input: $input) }`
	opMyHomePage           = `query myHomePage { me { corpUser { settings { homePage { pageTemplate { ...PageTemplate } dismissedAnnouncementUrns } } } platformPrivileges { manageHomePageTemplates } } }` + "\n" + pageTemplateFields
	opPageTemplate         = `query pageTemplate($urn: String!) { entity(urn: $urn) { urn ... on DataHubPageTemplate { ...PageTemplate } } }` + "\n" + pageTemplateFields
	opPageModule           = `query pageModule($urn: String!) { entity(urn: $urn) { urn ... on DataHubPageModule { ...PageModule } } }` + "\n" + pageModuleFields
	opSearchPageEntities   = `query searchPages($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total searchResults { entity { urn } } } }`
	defaultHomeTemplateURN = "urn:li:dataHubPageTemplate:home_default_1"
)

// pageModuleInput is an upsertPageModule input.
func pageModuleInput(urn, name, typ, scope string, params map[string]any) map[string]any {
	in := map[string]any{"name": name, "type": typ, "scope": scope, "params": params}
	if urn != "" {
		in["urn"] = urn
	}
	return map[string]any{"input": in}
}

// pageTemplateInput is an upsertPageTemplate input with one row per list of
// module URNs.
func pageTemplateInput(urn, scope string, rows ...[]string) map[string]any {
	rs := []any{}
	for _, r := range rows {
		rs = append(rs, map[string]any{"modules": r})
	}
	in := map[string]any{"rows": rs, "scope": scope, "surfaceType": "HOME_PAGE"}
	if urn != "" {
		in["urn"] = urn
	}
	return map[string]any{"input": in}
}

// templateRows is the module URNs of each row of a template read through
// the PageTemplate fragment.
func templateRows(t *testing.T, tmpl any) [][]string {
	t.Helper()
	var out [][]string
	rows, _ := get(t, tmpl, "properties.rows").([]any)
	for _, r := range rows {
		var mods []string
		for _, m := range get(t, r, "modules").([]any) {
			mods = append(mods, get(t, m, "urn").(string))
		}
		out = append(out, mods)
	}
	return out
}

func TestHomePageTemplates(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			const readerURN, adminURN = "urn:li:corpuser:reader", "urn:li:corpuser:datahub"
			entity := func(token, urn string) any {
				t.Helper()
				op := opPageModule
				if strings.HasPrefix(urn, "urn:li:dataHubPageTemplate:") {
					op = opPageTemplate
				}
				return s.govData(t, token, op, map[string]any{"urn": urn})["entity"]
			}

			// At first start the instance has DataHub's default modules and
			// template, and the global settings name that template.
			d := s.govData(t, reader, opGetHomePageSettings, nil)
			def := get(t, d, "globalHomePageSettings.defaultTemplate")
			if got := get(t, def, "urn"); got != defaultHomeTemplateURN {
				t.Fatalf("default template = %v, want %s", got, defaultHomeTemplateURN)
			}
			if got, want := asJSON(templateRows(t, def)), `[["urn:li:dataHubPageModule:your_assets","urn:li:dataHubPageModule:top_domains"],["urn:li:dataHubPageModule:platforms"]]`; got != want {
				t.Errorf("default template rows = %s, want %s", got, want)
			}
			if p := get(t, def, "properties.rows.0.modules.0.properties"); get(t, p, "name") != "Your Assets" || get(t, p, "type") != "OWNED_ASSETS" ||
				get(t, p, "visibility.scope") != "GLOBAL" || get(t, p, "created.actor.urn") != "urn:li:corpuser:__datahub_system" {
				t.Errorf("your_assets module = %s", asJSON(p))
			}
			if get(t, def, "properties.visibility.scope") != "GLOBAL" || get(t, def, "properties.surface.surfaceType") != "HOME_PAGE" {
				t.Errorf("default template visibility/surface = %s", asJSON(get(t, def, "properties")))
			}

			// The admin has Manage Home Page Templates, the reader not.
			for _, c := range []struct {
				token string
				want  bool
			}{{s.admin, true}, {reader, false}} {
				if got := get(t, s.govData(t, c.token, opMyHomePage, nil), "me.platformPrivileges.manageHomePageTemplates"); got != c.want {
					t.Errorf("manageHomePageTemplates = %v, want %v", got, c.want)
				}
			}

			// An admin makes a global link module; a reader a personal
			// rich text module and a personal template of both.
			link := get(t, s.govData(t, s.admin, opUpsertPageModule, pageModuleInput("", "Handbook", "LINK", "GLOBAL",
				map[string]any{"linkParams": map[string]any{"linkUrl": "https://example.com/handbook", "description": "How we work"}})), "upsertPageModule.urn").(string)
			if !strings.HasPrefix(link, "urn:li:dataHubPageModule:") {
				t.Fatalf("new module urn = %s", link)
			}
			const note = "urn:li:dataHubPageModule:reader-note"
			s.govData(t, reader, opUpsertPageModule, pageModuleInput(note, "Note", "RICH_TEXT", "PERSONAL",
				map[string]any{"richTextParams": map[string]any{"content": "**hello**"}}))
			m := entity(reader, note)
			if got, want := asJSON(get(t, m, "properties.params")), `{"assetCollectionParams":null,"hierarchyViewParams":null,"linkParams":null,"richTextParams":{"content":"**hello**"}}`; got != want {
				t.Errorf("note params = %s, want %s", got, want)
			}
			if get(t, m, "exists") != true || get(t, m, "properties.created.actor.urn") != readerURN || get(t, m, "type") != "DATAHUB_PAGE_MODULE" {
				t.Errorf("note = %s", asJSON(m))
			}
			d = s.govData(t, reader, opUpsertPageTemplate, pageTemplateInput("", "PERSONAL", []string{note, link}, []string{"urn:li:dataHubPageModule:platforms"}))
			tmpl := get(t, d, "upsertPageTemplate.urn").(string)
			if got := asJSON(templateRows(t, get(t, d, "upsertPageTemplate"))); got != asJSON([][]string{{note, link}, {"urn:li:dataHubPageModule:platforms"}}) {
				t.Errorf("rows = %s", got)
			}
			if got := get(t, d, "upsertPageTemplate.properties.rows.0.modules.1.properties.params.linkParams.linkUrl"); got != "https://example.com/handbook" {
				t.Errorf("link in the template = %v", got)
			}
			created := num(t, get(t, d, "upsertPageTemplate.properties.created.time"))

			// The template is the reader's home page; announcements the
			// reader dismisses accumulate.
			s.govData(t, reader, opUpdateUserHomePage, map[string]any{"input": map[string]any{"pageTemplate": tmpl, "newDismissedAnnouncements": []string{"urn:li:post:a"}}})
			s.govData(t, reader, opUpdateUserHomePage, map[string]any{"input": map[string]any{"newDismissedAnnouncements": []string{"urn:li:post:b", "urn:li:post:a"}}})
			hp := get(t, s.govData(t, reader, opMyHomePage, nil), "me.corpUser.settings.homePage")
			if get(t, hp, "pageTemplate.urn") != tmpl || asJSON(get(t, hp, "dismissedAnnouncementUrns")) != `["urn:li:post:a","urn:li:post:b"]` {
				t.Errorf("reader's home page = %s", asJSON(hp))
			}

			// Updating keeps the creation stamp and changes the rows.
			d = s.govData(t, reader, opUpsertPageTemplate, pageTemplateInput(tmpl, "PERSONAL", []string{link}, []string{note}))
			if got := asJSON(templateRows(t, get(t, d, "upsertPageTemplate"))); got != asJSON([][]string{{link}, {note}}) {
				t.Errorf("updated rows = %s", got)
			}
			if num(t, get(t, d, "upsertPageTemplate.properties.created.time")) != created ||
				num(t, get(t, d, "upsertPageTemplate.properties.lastModified.time")) < created {
				t.Errorf("stamps after the update = %s", asJSON(get(t, d, "upsertPageTemplate.properties")))
			}

			// Search lists them by scope and type.
			search := func(typ string, filters ...map[string]any) []string {
				t.Helper()
				in := map[string]any{"types": []string{typ}, "query": "*", "count": 100}
				if len(filters) > 0 {
					in["orFilters"] = []any{map[string]any{"and": filters}}
				}
				var out []string
				for _, r := range get(t, s.govData(t, s.admin, opSearchPageEntities, map[string]any{"input": in}), "searchAcrossEntities.searchResults").([]any) {
					out = append(out, get(t, r, "entity.urn").(string))
				}
				slices.Sort(out)
				return out
			}
			if got := search("DATAHUB_PAGE_MODULE", map[string]any{"field": "scope", "values": []string{"PERSONAL"}}); !slices.Equal(got, []string{note}) {
				t.Errorf("personal modules = %v", got)
			}
			if got := search("DATAHUB_PAGE_MODULE", map[string]any{"field": "type", "values": []string{"LINK"}}); !slices.Equal(got, []string{link}) {
				t.Errorf("link modules = %v", got)
			}
			if got := search("DATAHUB_PAGE_TEMPLATE"); !slices.Equal(got, []string{tmpl, defaultHomeTemplateURN}) && !slices.Equal(got, []string{defaultHomeTemplateURN, tmpl}) {
				t.Errorf("templates = %v", got)
			}

			// Who may change what.
			deny := []struct {
				name, token, query string
				vars               map[string]any
			}{
				{"reader makes a global template", reader, opUpsertPageTemplate, pageTemplateInput("", "GLOBAL", []string{note})},
				{"reader makes a global module", reader, opUpsertPageModule, pageModuleInput("", "Mine", "RICH_TEXT", "GLOBAL", map[string]any{"richTextParams": map[string]any{"content": "x"}})},
				{"reader takes over a global module as personal", reader, opUpsertPageModule, pageModuleInput(link, "Mine", "RICH_TEXT", "PERSONAL", map[string]any{"richTextParams": map[string]any{"content": "x"}})},
				{"reader edits the default template", reader, opUpsertPageTemplate, pageTemplateInput(defaultHomeTemplateURN, "PERSONAL", []string{note})},
				{"reader deletes a global module", reader, opDeletePageModule, map[string]any{"input": map[string]any{"urn": link}}},
				{"admin edits the reader's personal template", s.admin, opUpsertPageTemplate, pageTemplateInput(tmpl, "PERSONAL", []string{link})},
				{"admin deletes the reader's personal module", s.admin, opDeletePageModule, map[string]any{"input": map[string]any{"urn": note}}},
				{"admin picks the reader's personal template", s.admin, opUpdateUserHomePage, map[string]any{"input": map[string]any{"pageTemplate": tmpl}}},
			}
			for _, c := range deny {
				t.Run(c.name, func(t *testing.T) {
					s.wantError(t, c.token, c.query, c.vars, "UNAUTHORIZED", "")
				})
			}
			if got := asJSON(templateRows(t, entity(s.admin, defaultHomeTemplateURN))); !strings.Contains(got, "your_assets") {
				t.Errorf("default template after refused edits = %s", got)
			}

			// Bad input, refused with nothing written.
			bad := []struct {
				name, query string
				vars        map[string]any
				typ, msg    string
			}{
				{"unknown module in a row", opUpsertPageTemplate, pageTemplateInput("", "PERSONAL", []string{note}, []string{"urn:li:dataHubPageModule:ghost"}),
					"BAD_REQUEST", "rows[1].modules[0]: page module urn:li:dataHubPageModule:ghost does not exist"},
				{"not a module in a row", opUpsertPageTemplate, pageTemplateInput("", "PERSONAL", []string{"urn:li:tag:x"}), "BAD_REQUEST", "is not a dataHubPageModule URN"},
				{"template urn of another type", opUpsertPageTemplate, pageTemplateInput("urn:li:dataHubPageModule:x", "PERSONAL"), "BAD_REQUEST", "is not a dataHubPageTemplate URN"},
				{"structured property element without urn", opUpsertPageTemplate, map[string]any{"input": map[string]any{"rows": []any{}, "scope": "PERSONAL", "surfaceType": "ASSET_SUMMARY",
					"assetSummary": map[string]any{"summaryElements": []any{map[string]any{"elementType": "STRUCTURED_PROPERTY"}}}}}, "BAD_REQUEST", "needs structuredPropertyUrn"},
				{"link without link params", opUpsertPageModule, pageModuleInput("", "L", "LINK", "PERSONAL", map[string]any{}), "BAD_REQUEST", "params.linkParams is required for a LINK module"},
				{"rich text with link params", opUpsertPageModule, pageModuleInput("", "R", "RICH_TEXT", "PERSONAL", map[string]any{"richTextParams": map[string]any{"content": "x"},
					"linkParams": map[string]any{"linkUrl": "https://x"}}), "BAD_REQUEST", "params.linkParams is not for a RICH_TEXT module"},
				{"asset collection with a bad urn", opUpsertPageModule, pageModuleInput("", "A", "ASSET_COLLECTION", "PERSONAL",
					map[string]any{"assetCollectionParams": map[string]any{"assetUrns": []string{"nope"}}}), "BAD_REQUEST", "params.assetCollectionParams.assetUrns[0]"},
				{"type computed by the UI", opUpsertPageModule, pageModuleInput("", "Mine", "OWNED_ASSETS", "PERSONAL", map[string]any{}), "BAD_REQUEST", "a OWNED_ASSETS module cannot be created"},
				{"empty name", opUpsertPageModule, pageModuleInput("", " ", "RICH_TEXT", "PERSONAL", map[string]any{"richTextParams": map[string]any{"content": "x"}}), "BAD_REQUEST", "name must not be empty"},
				{"empty link url", opUpsertPageModule, pageModuleInput("", "L", "LINK", "PERSONAL", map[string]any{"linkParams": map[string]any{"linkUrl": ""}}), "BAD_REQUEST", "linkUrl must not be empty"},
				{"delete the default template", opDeletePageTemplate, map[string]any{"input": map[string]any{"urn": defaultHomeTemplateURN}}, "CONFLICT", "Attempted to delete the default page template"},
				{"delete a default module", opDeletePageModule, map[string]any{"input": map[string]any{"urn": "urn:li:dataHubPageModule:your_assets"}}, "CONFLICT", "Cannot delete default page module"},
				{"delete a missing template", opDeletePageTemplate, map[string]any{"input": map[string]any{"urn": "urn:li:dataHubPageTemplate:ghost"}}, "NOT_FOUND", "does not exist"},
				{"delete a missing module", opDeletePageModule, map[string]any{"input": map[string]any{"urn": "urn:li:dataHubPageModule:ghost"}}, "NOT_FOUND", "does not exist"},
				{"pick and remove a template at once", opUpdateUserHomePage, map[string]any{"input": map[string]any{"pageTemplate": tmpl, "removePageTemplate": true}}, "BAD_REQUEST", "not both"},
				{"pick a missing template", opUpdateUserHomePage, map[string]any{"input": map[string]any{"pageTemplate": "urn:li:dataHubPageTemplate:ghost"}}, "BAD_REQUEST", "does not exist"},
				{"dismiss a malformed announcement", opUpdateUserHomePage, map[string]any{"input": map[string]any{"newDismissedAnnouncements": []string{"post a"}}}, "BAD_REQUEST", "newDismissedAnnouncements[0]"},
			}
			before := search("DATAHUB_PAGE_MODULE")
			for _, c := range bad {
				t.Run(c.name, func(t *testing.T) {
					s.wantError(t, s.admin, c.query, c.vars, c.typ, c.msg)
				})
			}
			if got := search("DATAHUB_PAGE_MODULE"); !slices.Equal(got, before) {
				t.Errorf("modules after refused writes = %v, want %v", got, before)
			}

			// Deleting a module takes it out of the templates showing it;
			// deleting a template out of the settings naming it.
			if d := s.govData(t, reader, opDeletePageModule, map[string]any{"input": map[string]any{"urn": note}}); d["deletePageModule"] != true {
				t.Fatalf("deletePageModule = %v", d)
			}
			if e := entity(reader, note); e != nil {
				t.Errorf("deleted module still read: %s", asJSON(e))
			}
			if got := asJSON(templateRows(t, entity(reader, tmpl))); got != asJSON([][]string{{link}}) {
				t.Errorf("template rows after the module went = %s", got)
			}
			s.govData(t, reader, opDeletePageTemplate, map[string]any{"input": map[string]any{"urn": tmpl}})
			if e := entity(reader, tmpl); e != nil {
				t.Errorf("deleted template still read: %s", asJSON(e))
			}
			hp = get(t, s.govData(t, reader, opMyHomePage, nil), "me.corpUser.settings.homePage")
			if asJSON(hp) != `{"dismissedAnnouncementUrns":["urn:li:post:a","urn:li:post:b"],"pageTemplate":null}` {
				t.Errorf("reader's home page after the template went = %s", asJSON(hp))
			}

			// A user goes back to the default with removePageTemplate; the
			// reader may pick a global template.
			s.govData(t, reader, opUpdateUserHomePage, map[string]any{"input": map[string]any{"pageTemplate": defaultHomeTemplateURN}})
			if got := get(t, s.govData(t, reader, opMyHomePage, nil), "me.corpUser.settings.homePage.pageTemplate.urn"); got != defaultHomeTemplateURN {
				t.Errorf("picked template = %v", got)
			}
			s.govData(t, reader, opUpdateUserHomePage, map[string]any{"input": map[string]any{"removePageTemplate": true}})
			if got := get(t, s.govData(t, reader, opMyHomePage, nil), "me.corpUser.settings.homePage.pageTemplate"); got != nil {
				t.Errorf("template after removePageTemplate = %v", got)
			}

			// The instance's default template is set through OpenAPI v3,
			// as DataHub has it, and read back through GraphQL; the old
			// default can then be deleted, the new one not.
			d = s.govData(t, s.admin, opUpsertPageTemplate, pageTemplateInput("urn:li:dataHubPageTemplate:company", "GLOBAL", []string{link}))
			company := get(t, d, "upsertPageTemplate.urn").(string)
			gs := "/openapi/v3/entity/globalsettings/" + pathEscape("urn:li:globalSettings:0") + "/globalsettingsinfo"
			cur := decode(t, mustCall(t, s, s.admin, 200, "GET", gs, nil))
			val, _ := cur["value"].(map[string]any)
			val["homePage"] = map[string]any{"defaultTemplate": company}
			mustCall(t, s, s.admin, 200, "POST", gs+"?createIfNotExists=false&async=false", map[string]any{"value": val})
			if got := get(t, s.govData(t, reader, opGetHomePageSettings, nil), "globalHomePageSettings.defaultTemplate.urn"); got != company {
				t.Errorf("default template = %v, want %s", got, company)
			}
			s.wantError(t, s.admin, opDeletePageTemplate, map[string]any{"input": map[string]any{"urn": company}}, "CONFLICT", "default page template")
			s.govData(t, s.admin, opDeletePageTemplate, map[string]any{"input": map[string]any{"urn": defaultHomeTemplateURN}})
			if st, b := s.call(t, bearer(reader), "POST", gs+"?createIfNotExists=false", map[string]any{"value": val}); st != 403 {
				t.Errorf("a reader wrote the global settings: %d %s", st, b)
			}
		})
	}
}

// mustCall sends a request as token and fails unless it answers want.
func mustCall(t *testing.T, s *authServer, token string, want int, method, path string, body any) []byte {
	t.Helper()
	st, b := s.call(t, bearer(token), method, path, body)
	if st != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, st, b, want)
	}
	return b
}

// TestHomePageEntitiesOpenAPIV3 manages page modules and templates as
// entities through OpenAPI v3, the way terraform-provider-datahub does:
// create, read, list, update, delete, read again.
func TestHomePageEntitiesOpenAPIV3(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			stamp := map[string]any{"time": 1700000000000, "actor": "urn:li:corpuser:datahub"}
			const mod, tmpl = "urn:li:dataHubPageModule:tf-links", "urn:li:dataHubPageTemplate:tf-home"
			tests := []struct {
				entity, urn, aspect string
				value, changed      map[string]any
			}{
				{"datahubpagemodule", mod, "dataHubPageModuleProperties",
					map[string]any{"name": "Links", "type": "LINK", "visibility": map[string]any{"scope": "GLOBAL"},
						"params": map[string]any{"linkParams": map[string]any{"linkUrl": "https://example.com"}}, "created": stamp, "lastModified": stamp},
					map[string]any{"name": "More links", "type": "LINK", "visibility": map[string]any{"scope": "GLOBAL"},
						"params": map[string]any{"linkParams": map[string]any{"linkUrl": "https://example.org", "imageUrl": "https://example.org/i.png"}}, "created": stamp, "lastModified": stamp}},
				{"datahubpagetemplate", tmpl, "dataHubPageTemplateProperties",
					map[string]any{"rows": []any{map[string]any{"modules": []any{mod, "urn:li:dataHubPageModule:platforms"}}}, "surface": map[string]any{"surfaceType": "HOME_PAGE"},
						"visibility": map[string]any{"scope": "GLOBAL"}, "created": stamp, "lastModified": stamp},
					map[string]any{"rows": []any{map[string]any{"modules": []any{mod}}, map[string]any{"modules": []any{"urn:li:dataHubPageModule:top_domains"}}},
						"surface": map[string]any{"surfaceType": "HOME_PAGE"}, "visibility": map[string]any{"scope": "GLOBAL"}, "created": stamp, "lastModified": stamp}},
			}
			for _, tt := range tests {
				path := "/openapi/v3/entity/" + tt.entity + "/" + pathEscape(tt.urn)
				srv.mustDo(t, 404, "GET", path, nil)
				srv.mustDo(t, 200, "POST", "/openapi/v3/entity/"+tt.entity+"?async=false", []any{map[string]any{"urn": tt.urn, tt.aspect: map[string]any{"value": tt.value}}})
				got := decode(t, srv.mustDo(t, 200, "GET", path, nil))
				if env, _ := got[tt.aspect].(map[string]any); env == nil || asJSON(env["value"]) != asJSON(tt.value) {
					t.Errorf("%s = %v, want %v", tt.aspect, got[tt.aspect], tt.value)
				}
				list := decode(t, srv.mustDo(t, 200, "GET", "/openapi/v3/entity/"+tt.entity+"?count=100", nil))
				var urns []string
				for _, e := range list["entities"].([]any) {
					urns = append(urns, e.(map[string]any)["urn"].(string))
				}
				if !slices.Contains(urns, tt.urn) {
					t.Errorf("%s list = %v, missing %s", tt.entity, urns, tt.urn)
				}
				srv.mustDo(t, 200, "POST", "/openapi/v3/entity/"+tt.entity+"?async=false", []any{map[string]any{"urn": tt.urn, tt.aspect: map[string]any{"value": tt.changed}}})
				got = decode(t, srv.mustDo(t, 200, "GET", path+"/"+strings.ToLower(tt.aspect), nil))
				if asJSON(got["value"]) != asJSON(tt.changed) {
					t.Errorf("%s after the update = %v, want %v", tt.aspect, got["value"], tt.changed)
				}
			}
			// The template→module relationship is ContainedIn.
			rel := decode(t, srv.mustDo(t, 200, "GET", "/relationships?direction=INCOMING&urn="+pathEscape(mod)+"&types=ContainedIn", nil))
			if asJSON(rel["entities"]) == "[]" || !strings.Contains(asJSON(rel), tmpl) {
				t.Errorf("ContainedIn edges to the module = %s", asJSON(rel))
			}
			// A module of an unknown type, a template without rows: 4xx.
			for _, b := range []any{
				[]any{map[string]any{"urn": "urn:li:dataHubPageModule:bad", "dataHubPageModuleProperties": map[string]any{"value": map[string]any{"name": "x", "type": "WIDGET",
					"visibility": map[string]any{"scope": "GLOBAL"}, "params": map[string]any{}, "created": stamp, "lastModified": stamp}}}},
				[]any{map[string]any{"urn": "urn:li:dataHubPageTemplate:bad", "dataHubPageTemplateProperties": map[string]any{"value": map[string]any{
					"surface": map[string]any{"surfaceType": "HOME_PAGE"}, "visibility": map[string]any{"scope": "GLOBAL"}, "created": stamp, "lastModified": stamp}}}},
			} {
				entity := "datahubpagemodule"
				if strings.Contains(asJSON(b), "dataHubPageTemplate") {
					entity = "datahubpagetemplate"
				}
				if st, body := srv.do(t, "POST", "/openapi/v3/entity/"+entity+"?async=false", b); st < 400 || st >= 500 {
					t.Errorf("invalid %s: %d %s, want 4xx", entity, st, body)
				}
			}
			// Deleting the module through the generic API takes it out of
			// the template that names it, as every delete does.
			srv.mustDo(t, 200, "DELETE", "/openapi/v3/entity/datahubpagemodule/"+pathEscape(mod), nil)
			rows := func() string {
				d := srv.gqlData(t, `query t($urn: String!) { entity(urn: $urn) { ... on DataHubPageTemplate { properties { rows { modules { urn exists } } } } } }`, map[string]any{"urn": tmpl})
				return asJSON(get(t, d, "entity.properties.rows"))
			}
			top := `{"modules":[{"exists":true,"urn":"urn:li:dataHubPageModule:top_domains"}]}`
			if got, want := rows(), `[{"modules":[]},`+top+`]`; got != want {
				t.Errorf("rows after the module's delete = %s, want %s", got, want)
			}
			// A row naming a module that does not exist (the generic API
			// checks only the schema) reads as not existing, which the web
			// app filters out.
			ghost := "urn:li:dataHubPageModule:never-made"
			srv.mustDo(t, 200, "POST", "/openapi/v3/entity/datahubpagetemplate?async=false", []any{map[string]any{"urn": tmpl, "dataHubPageTemplateProperties": map[string]any{"value": map[string]any{
				"rows":    []any{map[string]any{"modules": []any{ghost}}, map[string]any{"modules": []any{"urn:li:dataHubPageModule:top_domains"}}},
				"surface": map[string]any{"surfaceType": "HOME_PAGE"}, "visibility": map[string]any{"scope": "GLOBAL"}, "created": stamp, "lastModified": stamp}}}})
			if got, want := rows(), `[{"modules":[{"exists":false,"urn":"`+ghost+`"}]},`+top+`]`; got != want {
				t.Errorf("rows naming a module never made = %s, want %s", got, want)
			}
			for _, tt := range []struct{ entity, urn string }{{"datahubpagetemplate", tmpl}} {
				path := "/openapi/v3/entity/" + tt.entity + "/" + pathEscape(tt.urn)
				srv.mustDo(t, 200, "DELETE", path, nil)
				srv.mustDo(t, 404, "GET", path, nil)
			}
		})
	}
}

// TestHomePageBootstrapKeepsEdits restarts a server on its store: the
// default template and modules are not written again over what was changed
// nor brought back when deleted; a store whose global settings predate the
// home page gains the default template, its modules and the setting naming
// it, keeping its other settings.
func TestHomePageBootstrapKeepsEdits(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append([]string{}, st.args...), "--data-dir", dir)
			const lineage = "urn:li:dataHubPageModule:lineage"
			gs := "/openapi/v3/entity/globalsettings/" + pathEscape("urn:li:globalSettings:0") + "/globalsettingsinfo"
			state := func(s *authServer) (rows, lineageStatus, settings string) {
				t.Helper()
				d := s.govData(t, s.admin, opGetHomePageSettings, nil)
				st, _ := s.call(t, bearer(s.admin), "GET", "/openapi/v3/entity/datahubpagemodule/"+pathEscape(lineage), nil)
				v := decode(t, mustCall(t, s, s.admin, 200, "GET", gs, nil))["value"]
				return asJSON(templateRows(t, get(t, d, "globalHomePageSettings.defaultTemplate"))), fmt.Sprint(st), asJSON(v)
			}
			const edited = `[["urn:li:dataHubPageModule:top_domains"]]`
			const homePage = `"homePage":{"defaultTemplate":"` + defaultHomeTemplateURN + `"}`
			t.Run("first start", func(t *testing.T) {
				s := startAuthServer(t, args...)
				s.govData(t, s.admin, opUpsertPageTemplate, pageTemplateInput(defaultHomeTemplateURN, "GLOBAL", []string{"urn:li:dataHubPageModule:top_domains"}))
				mustCall(t, s, s.admin, 200, "DELETE", "/openapi/v3/entity/datahubpagemodule/"+pathEscape(lineage), nil)
			})
			t.Run("restart", func(t *testing.T) {
				s := startAuthServer(t, args...)
				rows, lin, settings := state(s)
				if rows != edited || lin != "404" || settings != `{`+homePage+`}` {
					t.Errorf("after a restart: rows %s, lineage module %s, settings %s", rows, lin, settings)
				}
				// As a store of an older version: global settings without
				// the home page.
				mustCall(t, s, s.admin, 200, "POST", gs+"?createIfNotExists=false&async=false", map[string]any{"value": map[string]any{"views": map[string]any{"defaultView": "urn:li:dataHubView:v"}}})
			})
			s := startAuthServer(t, args...)
			rows, lin, settings := state(s)
			if want := `{` + homePage + `,"views":{"defaultView":"urn:li:dataHubView:v"}}`; rows != edited || lin != "200" || settings != want {
				t.Errorf("after upgrading: rows %s (want %s), lineage module %s (want 200), settings %s (want %s)", rows, edited, lin, settings, want)
			}
		})
	}
}
