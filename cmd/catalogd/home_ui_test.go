package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"
)

// homeModules are DataHub's home page modules, in its order, with the
// render type of each.
var homeModules = [][2]string{
	{"Platforms", "PLATFORM_SEARCH_LIST"}, {"Domains", "DOMAIN_SEARCH_LIST"},
	{"RecentlyViewedEntities", "ENTITY_NAME_LIST"}, {"RecentlyEditedEntities", "ENTITY_NAME_LIST"},
	{"HighUsageEntities", "ENTITY_NAME_LIST"}, {"TopTags", "TAG_SEARCH_LIST"}, {"TopTerms", "GLOSSARY_TERM_SEARCH_LIST"},
}

// modulesByID lists the modules of a listRecommendations answer by id, in
// answer order.
func modulesByID(t *testing.T, d map[string]any) ([]string, map[string]map[string]any) {
	t.Helper()
	var ids []string
	by := map[string]map[string]any{}
	for _, m := range get(t, d, "listRecommendations.modules").([]any) {
		mm := m.(map[string]any)
		id := fmt.Sprint(mm["moduleId"])
		ids = append(ids, id)
		by[id] = mm
	}
	return ids, by
}

// testHomeRecommendations checks the recommendation modules computed from
// the catalog and from the usage the server recorded (the app's analytics
// events and the edits made through GraphQL).
func testHomeRecommendations(t *testing.T, srv *testServer, ui *uiOps) {
	const (
		popular = "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"
		latest  = "urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)"
		edited  = "urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)"
		ghost   = "urn:li:dataset:(urn:li:dataPlatform:hive,never_ingested,PROD)"
	)
	// The app reports what its user does; without authentication the
	// user is the one the request names, as for the GraphQL requests.
	track := func(ev map[string]any) {
		t.Helper()
		b, _ := json.Marshal(ev)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/track", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-DataHub-Actor", gqlActor)
		resp, err := srv.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("track %v: status %d", ev, resp.StatusCode)
		}
	}
	home := func(t *testing.T, scenario string) ([]string, map[string]map[string]any) {
		t.Helper()
		d := ui.run(t, "listRecommendations", map[string]any{"input": map[string]any{"userUrn": "urn:li:corpuser:datahub",
			"requestContext": map[string]any{"scenario": scenario}, "limit": 10}})
		return modulesByID(t, d)
	}
	t.Run("catalog modules", func(t *testing.T) {
		ids, by := home(t, "HOME")
		// No usage yet: the modules the catalog alone gives.
		want := []string{"Platforms", "Domains", "TopTags", "TopTerms"}
		if !slices.Equal(ids, want) {
			t.Fatalf("modules %v, want %v", ids, want)
		}
		for _, m := range homeModules {
			if mod := by[m[0]]; mod != nil && mod["renderType"] != m[1] {
				t.Errorf("%s: render type %v, want %s", m[0], mod["renderType"], m[1])
			}
		}
		// Each value's count is what a search filtered on it finds, most first.
		for _, c := range []struct{ module, field string }{{"Platforms", "platform"}, {"TopTags", "tags"}, {"TopTerms", "glossaryTerms"}, {"Domains", "domains"}} {
			content := by[c.module]["content"].([]any)
			prev := -1
			for i, x := range content {
				value := fmt.Sprint(get(t, x, "value"))
				n := num(t, get(t, x, "params.contentParams.count"))
				if prev >= 0 && n > prev {
					t.Errorf("%s: %s (%d) after a value of %d", c.module, value, n, prev)
				}
				prev = n
				if f := get(t, x, "params.searchParams.filters.0"); get(t, f, "field") != c.field || fmt.Sprint(get(t, f, "values")) != "["+value+"]" {
					t.Errorf("%s: filter %v, want %s = %s", c.module, f, c.field, value)
				}
				if get(t, x, "entity.urn") != value {
					t.Errorf("%s: entity %v, want %s", c.module, get(t, x, "entity"), value)
				}
				if i < 3 {
					d := srv.gqlData(t, `query($f: String!, $v: String!) { searchAcrossEntities(input: {query: "*", count: 0, orFilters: [{and: [{field: $f, values: [$v]}]}]}) { total } }`,
						map[string]any{"f": c.field, "v": value})
					if total := num(t, get(t, d, "searchAcrossEntities.total")); total != n {
						t.Errorf("%s: %s counts %d, a search finds %d", c.module, value, n, total)
					}
				}
			}
			if len(content) == 0 {
				t.Errorf("%s: no content", c.module)
			}
		}
		if ids, _ := home(t, "SEARCH_RESULTS"); !slices.Equal(ids, []string{"TopTags", "TopTerms"}) {
			t.Errorf("search results modules %v, want [TopTags TopTerms]", ids)
		}
		if ids, _ := home(t, "ENTITY_PROFILE"); len(ids) != 0 {
			t.Errorf("entity profile modules %v, want none", ids)
		}
	})
	t.Run("usage modules", func(t *testing.T) {
		// Events a few milliseconds apart, so that "latest" means one.
		for _, ev := range []map[string]any{
			{"type": "EntityViewEvent", "entityType": "dataset", "entityUrn": popular},
			{"type": "EntityViewEvent", "entityType": "dataset", "entityUrn": popular},
			{"type": "EntityViewEvent", "entityType": "dataset", "entityUrn": popular},
			{"type": "EntityViewEvent", "entityType": "dataset", "entityUrn": ghost},
			{"type": "EntityViewEvent", "entityType": "dataset", "entityUrn": latest},
			{"type": "SearchResultsViewEvent", "query": "customer", "total": 4},
			{"type": "SearchResultsViewEvent", "query": "nothing at all", "total": 0},
			{"type": "SearchResultsViewEvent", "query": "logging", "total": 2},
		} {
			time.Sleep(3 * time.Millisecond)
			track(ev)
		}
		ui.run(t, "updateDescription", map[string]any{"input": map[string]any{"resourceUrn": edited, "description": "edited from the home page test"}})

		ids, by := home(t, "HOME")
		var want []string
		for _, m := range homeModules {
			want = append(want, m[0])
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("modules %v, want %v", ids, want)
		}
		for _, c := range []struct {
			module string
			want   []string
		}{
			{"RecentlyViewedEntities", []string{latest, popular}}, // the ghost left out
			{"HighUsageEntities", []string{popular, latest}},
			{"RecentlyEditedEntities", []string{edited}},
		} {
			got := urnsAt(t, by[c.module], "content", "value")
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.module, got, c.want)
			}
			for _, x := range by[c.module]["content"].([]any) {
				if get(t, x, "params.entityProfileParams.urn") != get(t, x, "value") {
					t.Errorf("%s: profile params %v", c.module, get(t, x, "params"))
				}
			}
		}
		ids, by = home(t, "SEARCH_BAR")
		if !slices.Equal(ids, []string{"RecentSearches"}) {
			t.Fatalf("search bar modules %v, want [RecentSearches]", ids)
		}
		if got := urnsAt(t, by["RecentSearches"], "content", "value"); !slices.Equal(got, []string{"logging", "customer"}) {
			t.Errorf("recent searches %v, want [logging customer] (the empty search left out)", got)
		}
		d := ui.run(t, "listRecommendations", map[string]any{"input": map[string]any{"userUrn": "urn:li:corpuser:datahub",
			"requestContext": map[string]any{"scenario": "HOME"}, "limit": 2}})
		if ids, _ := modulesByID(t, d); !slices.Equal(ids, []string{"Platforms", "Domains"}) {
			t.Errorf("limit 2: modules %v", ids)
		}
	})
}

// testHomePosts creates, lists, updates and deletes posts.
func testHomePosts(t *testing.T, ui *uiOps) {
	homePosts := []any{map[string]any{"and": []any{map[string]any{"field": "type", "condition": "EQUAL", "values": []string{"HOME_PAGE_ANNOUNCEMENT"}}}}}
	list := func(t *testing.T) ([]string, []string) {
		t.Helper()
		d := ui.run(t, "listPosts", map[string]any{"input": map[string]any{"start": 0, "count": 10, "orFilters": homePosts}})
		res := get(t, d, "listPosts")
		if n, total := len(get(t, res, "posts").([]any)), num(t, get(t, res, "total")); n != total || num(t, get(t, res, "count")) != n {
			t.Errorf("listPosts: total %d, count %v, %d posts", total, get(t, res, "count"), n)
		}
		return urnsAt(t, res, "posts", "urn"), urnsAt(t, res, "posts", "content.title")
	}
	post := func(title, contentType string, link any) map[string]any {
		c := map[string]any{"contentType": contentType, "title": title, "description": "about " + title}
		if link != nil {
			c["link"] = link
		}
		return c
	}
	// The samples hold posts of their own, older than any made now.
	before, _ := list(t)
	for _, p := range []map[string]any{
		{"postType": "HOME_PAGE_ANNOUNCEMENT", "content": post("Maintenance tonight", "TEXT", nil)},
		{"postType": "HOME_PAGE_ANNOUNCEMENT", "content": post("Data handbook", "LINK", "https://example.com/handbook")},
		{"postType": "ENTITY_ANNOUNCEMENT", "content": post("On a dataset", "TEXT", nil),
			"resourceUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"},
	} {
		if d := ui.run(t, "createPost", map[string]any{"input": p}); get(t, d, "createPost") != true {
			t.Fatalf("createPost: %v", d)
		}
		// Posts are listed newest first by their millisecond stamps; two
		// made within one millisecond have no order to check.
		time.Sleep(2 * time.Millisecond)
	}
	urns, titles := list(t)
	if len(titles) != len(before)+2 || !slices.Equal(titles[:2], []string{"Data handbook", "Maintenance tonight"}) || !slices.Equal(urns[2:], before) {
		t.Fatalf("home page posts %v, want the two new ones first, the entity announcement left out, then %v", titles, before)
	}
	r := ui.srv.gql(t, ui.docs.text(t, "createPost"), map[string]any{"input": map[string]any{"postType": "HOME_PAGE_ANNOUNCEMENT", "content": post("No link", "LINK", nil)}})
	if len(r.Errors) == 0 {
		t.Errorf("a LINK post without a link was created")
	}
	ui.run(t, "updatePost", map[string]any{"input": map[string]any{"urn": urns[1], "postType": "HOME_PAGE_ANNOUNCEMENT", "content": post("Maintenance moved", "TEXT", nil)}})
	if _, titles := list(t); !slices.Equal(titles[:2], []string{"Maintenance moved", "Data handbook"}) {
		t.Errorf("after the update: %v, want the updated post first", titles)
	}
	ui.run(t, "deletePost", map[string]any{"urn": urns[0]})
	if got, _ := list(t); !slices.Equal(got, append([]string{urns[1]}, before...)) {
		t.Errorf("after the delete: %v, want %s then %v", got, urns[1], before)
	}
	r = ui.srv.gql(t, ui.docs.text(t, "deletePost"), map[string]any{"urn": urns[0]})
	if len(r.Errors) == 0 {
		t.Errorf("deleting a deleted post succeeded")
	}
}

// TestGraphQLPostsAndUsageByUser checks, with authentication on, that only
// users with the Manage Home Page Posts privilege manage posts, that
// platformPrivileges says who has it, and that the usage modules show each
// user their own history.
func TestGraphQLPostsAndUsageByUser(t *testing.T) {
	s := startAuthServer(t)
	reader, _ := s.cliToken(t, "reader")
	const create = `mutation { createPost(input: {postType: HOME_PAGE_ANNOUNCEMENT, content: {contentType: TEXT, title: "Hello"}}) }`
	s.denied(t, reader, create, nil, "createPost")
	s.mustGQL(t, s.admin, create, nil, "createPost", nil)
	var list struct {
		Total int
		Posts []struct{ Urn string }
	}
	s.mustGQL(t, reader, `{ listPosts(input: {start: 0, count: 10}) { total posts { urn } } }`, nil, "listPosts", &list)
	if list.Total != 1 || len(list.Posts) != 1 {
		t.Fatalf("posts %+v, want the one created", list)
	}
	del := `mutation($u: String!) { deletePost(urn: $u) }`
	s.denied(t, reader, del, map[string]any{"u": list.Posts[0].Urn}, "deletePost")
	s.denied(t, reader, `mutation($u: String!) { updatePost(input: {urn: $u, postType: HOME_PAGE_ANNOUNCEMENT, content: {contentType: TEXT, title: "Hijacked"}}) }`,
		map[string]any{"u": list.Posts[0].Urn}, "updatePost")
	for token, want := range map[string]bool{s.admin: true, reader: false} {
		var me struct {
			PlatformPrivileges struct{ ManageGlobalAnnouncements bool }
		}
		s.mustGQL(t, token, `{ me { platformPrivileges { manageGlobalAnnouncements } } }`, nil, "me", &me)
		if me.PlatformPrivileges.ManageGlobalAnnouncements != want {
			t.Errorf("manageGlobalAnnouncements = %v, want %v", me.PlatformPrivileges.ManageGlobalAnnouncements, want)
		}
	}
	s.mustGQL(t, s.admin, del, map[string]any{"u": list.Posts[0].Urn}, "deletePost", nil)

	// Each user sees their own recently viewed entities.
	ds := map[string]string{s.admin: "urn:li:dataset:(urn:li:dataPlatform:hive,seen_by_admin,PROD)", reader: "urn:li:dataset:(urn:li:dataPlatform:hive,seen_by_reader,PROD)"}
	for token, urn := range ds {
		if st, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": []any{named(urn)}, "async": "false"}); st != 200 {
			t.Fatalf("ingest: %d %s", st, b)
		}
		if st, b := s.call(t, bearer(token), "POST", "/track", map[string]any{"type": "EntityViewEvent", "entityType": "dataset", "entityUrn": urn}); st != 200 {
			t.Fatalf("track: %d %s", st, b)
		}
	}
	for token, urn := range ds {
		var out struct {
			Modules []struct {
				ModuleID string
				Content  []struct{ Value string }
			}
		}
		s.mustGQL(t, token, `{ listRecommendations(input: {userUrn: "urn:li:corpuser:datahub", requestContext: {scenario: HOME}}) { modules { moduleId content { value } } } }`,
			nil, "listRecommendations", &out)
		var viewed []string
		for _, m := range out.Modules {
			if m.ModuleID == "RecentlyViewedEntities" {
				for _, c := range m.Content {
					viewed = append(viewed, c.Value)
				}
			}
		}
		if !slices.Equal(viewed, []string{urn}) {
			t.Errorf("recently viewed %v, want [%s]", viewed, urn)
		}
	}
}
