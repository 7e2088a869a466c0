package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/contract"
	"github.com/catalogd/catalogd/internal/registry"
)

// TestOpenAPIV3Lifecycle walks every entity type of the registry through
// the OpenAPI v3 endpoints the way DataHub's SDK and terraform provider do,
// on SQLite and PostgreSQL: create the entity with an example of each of
// its aspects, read it back whole and one aspect at a time, patch one
// aspect, find it by scrolling its type and across types, and delete it.
// Every response is checked against the OpenAPI document, whose per-type
// paths and aspect schemas are generated from schemas/.
func TestOpenAPIV3Lifecycle(t *testing.T) {
	reg := registry.Default()
	ex := newExampleSet(t, reg, 0)
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			srv := startServer(t, db.args...)
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": ex.propertyDefinition()})
			for _, e := range reg.Entities() {
				t.Run(e.Name, func(t *testing.T) { v3Lifecycle(t, srv, reg, ex, &e) })
			}
		})
	}
}

func v3Lifecycle(t *testing.T, srv *testServer, reg *registry.Registry, ex *exampleSet, e *catalog.EntitySpec) {
	urn := ex.urn(e.Name)
	typ := strings.ToLower(e.Name)
	base := "/openapi/v3/entity/" + typ
	path := base + "/" + pathEscape(urn)
	aspects := append([]string{e.KeyAspect}, e.Aspects...)

	srv.mustDo(t, 404, "GET", path, nil)
	srv.mustDo(t, 404, "HEAD", path, nil)
	item := map[string]any{"urn": urn}
	for _, a := range aspects {
		item[a] = map[string]any{"value": ex.value(e.Name, a)}
	}
	var written []map[string]any
	decodeInto(t, srv.mustDo(t, 200, "POST", base+"?async=false", []any{item}), &written)
	if len(written) != 1 || written[0]["urn"] != urn {
		t.Fatalf("POST answered %v", written)
	}
	got := decode(t, srv.mustDo(t, 200, "GET", path, nil))
	for _, a := range aspects {
		want := canonical(t, ex.value(e.Name, a))
		if auth.SecretAspects[a] {
			want = nil // never served by a read API
		}
		var have any
		if env, ok := got[a].(map[string]any); ok {
			have = env["value"]
		}
		if !reflect.DeepEqual(want, have) {
			t.Errorf("GET %s: %s is\n %s\nwant\n %s", urn, a, jsonString(have), jsonString(want))
		}
		if w, ok := written[0][a].(map[string]any); want != nil && (!ok || !reflect.DeepEqual(canonical(t, w["value"]), want)) {
			t.Errorf("POST answered %s as %s, want %s", a, jsonString(written[0][a]), jsonString(want))
		}
	}
	srv.mustDo(t, 204, "HEAD", path, nil)

	// One aspect: read, patch, read again.
	aspect, op, check := patchTarget(t, reg, ex, e)
	one := path + "/" + strings.ToLower(aspect)
	srv.mustDo(t, 204, "HEAD", one, nil)
	env := decode(t, srv.mustDo(t, 200, "GET", one, nil))
	if !reflect.DeepEqual(env["value"], canonical(t, ex.value(e.Name, aspect))) {
		t.Errorf("GET %s answered %s", one, jsonString(env))
	}
	patched := decode(t, srv.mustDo(t, 200, "PATCH", one, map[string]any{"patch": []any{op}}))
	if v, _ := patched[aspect].(map[string]any); v == nil || patched["urn"] != urn {
		t.Errorf("PATCH %s answered %s", one, jsonString(patched))
	}
	env = decode(t, srv.mustDo(t, 200, "GET", one+"?systemMetadata=true", nil))
	if v, _ := env["value"].(map[string]any); !check(v) {
		t.Errorf("after the patch %v, %s is %v", op, aspect, jsonString(env["value"]))
	}
	if _, ok := env["systemMetadata"]; !ok {
		t.Errorf("GET %s?systemMetadata=true has no systemMetadata: %s", one, jsonString(env))
	}

	// The entity is found by scrolling its type, and across types.
	if !scrollFinds(t, srv, "GET", base+"?count=50&aspects="+e.KeyAspect, nil, urn) {
		t.Errorf("GET %s does not list %s", base, urn)
	}
	if !scrollFinds(t, srv, "POST", "/openapi/v3/entity/scroll?count=50", map[string]any{"entities": []string{e.Name}, "aspects": []string{}}, urn) {
		t.Errorf("POST /openapi/v3/entity/scroll does not list %s", urn)
	}

	srv.mustDo(t, 200, "DELETE", path, nil)
	srv.mustDo(t, 404, "GET", path, nil)
	srv.mustDo(t, 404, "HEAD", path, nil)
	srv.mustDo(t, 404, "GET", one, nil)
}

// patchTarget picks an aspect of the entity type other than its key, and a
// patch of it with a check of the patched value: a plain string field (no
// enum, no URN) set, or else an optional field of the example removed, or
// else the aspect replaced whole.
func patchTarget(t *testing.T, reg *registry.Registry, ex *exampleSet, e *catalog.EntitySpec) (string, map[string]any, func(map[string]any) bool) {
	t.Helper()
	type schema struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	var candidates []string
	for _, a := range e.Aspects {
		if spec := reg.Aspect(a); !spec.Timeseries && !auth.SecretAspects[a] {
			candidates = append(candidates, a)
		}
	}
	for _, a := range candidates {
		var s schema
		if err := json.Unmarshal([]byte(reg.Aspect(a).Schema), &s); err != nil {
			t.Fatal(err)
		}
		var names []string
		for n, p := range s.Properties {
			if p["type"] == "string" && p["enum"] == nil && p["format"] == nil {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			sort.Strings(names)
			f, want := names[0], "patched "+e.Name
			return a, map[string]any{"op": "add", "path": "/" + f, "value": want}, func(v map[string]any) bool { return v[f] == want }
		}
	}
	for _, a := range candidates {
		var s schema
		if err := json.Unmarshal([]byte(reg.Aspect(a).Schema), &s); err != nil {
			t.Fatal(err)
		}
		v, _ := ex.value(e.Name, a).(map[string]any)
		var names []string
		for n := range v {
			if !slices.Contains(s.Required, n) {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			sort.Strings(names)
			f := names[0]
			return a, map[string]any{"op": "remove", "path": "/" + f}, func(v map[string]any) bool {
				_, has := v[f]
				return v != nil && !has
			}
		}
	}
	// Failing those, the whole aspect (the key aspect, when it is the only
	// one) replaced by its own example.
	a := e.KeyAspect
	if len(candidates) > 0 {
		a = candidates[0]
	}
	want := canonical(t, ex.value(e.Name, a))
	return a, map[string]any{"op": "replace", "path": "", "value": want}, func(v map[string]any) bool {
		return reflect.DeepEqual(canonical(t, v), want)
	}
}

// scrollFinds follows a scroll from page to page until it lists urn.
func scrollFinds(t *testing.T, srv *testServer, method, target string, body any, urn string) bool {
	t.Helper()
	next := ""
	for page := 0; page < 100; page++ {
		u := target
		if next != "" {
			u += "&scrollId=" + url.QueryEscape(next)
		}
		res := decode(t, srv.mustDo(t, 200, method, u, body))
		ents, _ := res["entities"].([]any)
		for _, e := range ents {
			if m, _ := e.(map[string]any); m["urn"] == urn {
				return true
			}
		}
		next, _ = res["scrollId"].(string)
		if next == "" {
			return false
		}
	}
	t.Fatalf("%s %s: more than 100 pages", method, target)
	return false
}

// scrollAll reads every page of a scroll and returns the URNs listed.
func scrollAll(t *testing.T, srv *testServer, method, target string, body any, member string) (urns []string, pages int) {
	t.Helper()
	next := ""
	for pages < 1000 {
		u := target
		if next != "" {
			u += "&scrollId=" + url.QueryEscape(next)
		}
		res := decode(t, srv.mustDo(t, 200, method, u, body))
		pages++
		list, _ := res[member].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			s, _ := m["urn"].(string)
			urns = append(urns, s)
		}
		next, _ = res["scrollId"].(string)
		if next == "" {
			return urns, pages
		}
	}
	t.Fatalf("%s %s: more than 1000 pages", method, target)
	return nil, 0
}

func datasetURN(name string) string {
	return "urn:li:dataset:(urn:li:dataPlatform:hive," + name + ",PROD)"
}

func datasetItem(name string) map[string]any {
	return map[string]any{
		"urn":               datasetURN(name),
		"datasetProperties": map[string]any{"value": map[string]any{"name": name, "qualifiedName": "entities." + name, "customProperties": map[string]any{}, "tags": []any{}}},
		"status":            map[string]any{"value": map[string]any{"removed": false}},
	}
}

// TestOpenAPIV3Scroll pages through datasets in URN order, both ways, with
// soft-deleted ones left out unless asked for, by the store's key order
// and by a search query.
func TestOpenAPIV3Scroll(t *testing.T) {
	srv := startServer(t)
	var items []any
	var want []string
	for i := range 25 {
		name := fmt.Sprintf("scroll_%02d", i)
		items = append(items, datasetItem(name))
		want = append(want, datasetURN(name))
	}
	srv.mustDo(t, 200, "POST", "/openapi/v3/entity/dataset?async=false", items)
	sort.Strings(want)
	// A tag is not a dataset.
	srv.mustDo(t, 200, "POST", "/openapi/v3/entity/tag?async=false", []any{map[string]any{"urn": "urn:li:tag:t", "tagProperties": map[string]any{"value": map[string]any{"name": "t"}}}})

	got, pages := scrollAll(t, srv, "GET", "/openapi/v3/entity/dataset?count=10", nil, "entities")
	if !slices.Equal(got, want) || pages != 3 {
		t.Errorf("scroll of 25 datasets by 10: %d pages, %v", pages, got)
	}
	got, _ = scrollAll(t, srv, "GET", "/openapi/v3/entity/dataset?count=7&sortOrder=DESCENDING&sortCriteria=urn", nil, "entities")
	rev := slices.Clone(want)
	slices.Reverse(rev)
	if !slices.Equal(got, rev) {
		t.Errorf("descending scroll: %v", got)
	}
	// A full last page ends the scroll without an empty page after it.
	if _, pages := scrollAll(t, srv, "GET", "/openapi/v3/entity/dataset?count=5", nil, "entities"); pages != 5 {
		t.Errorf("scroll of 25 datasets by 5 took %d pages", pages)
	}
	got, _ = scrollAll(t, srv, "GET", "/openapi/v2/entity/dataset?count=10", nil, "results")
	if !slices.Equal(got, want) {
		t.Errorf("v2 scroll: %v", got)
	}

	// Soft-deleted datasets are left out unless asked for.
	removed := datasetURN("scroll_03")
	srv.mustDo(t, 200, "POST", "/openapi/v3/entity/dataset/"+pathEscape(removed)+"/status?createIfNotExists=false", map[string]any{"value": map[string]any{"removed": true}})
	got, _ = scrollAll(t, srv, "GET", "/openapi/v3/entity/dataset?count=4", nil, "entities")
	if slices.Contains(got, removed) || len(got) != 24 {
		t.Errorf("scroll lists the soft-deleted dataset: %v", got)
	}
	got, _ = scrollAll(t, srv, "GET", "/openapi/v3/entity/dataset?count=4&includeSoftDelete=true", nil, "entities")
	if !slices.Equal(got, want) {
		t.Errorf("scroll with includeSoftDelete: %v", got)
	}
	srv.mustDo(t, 404, "HEAD", "/openapi/v3/entity/dataset/"+pathEscape(removed), nil)
	srv.mustDo(t, 204, "HEAD", "/openapi/v3/entity/dataset/"+pathEscape(removed)+"?includeSoftDelete=true", nil)

	// A query is answered from the search engine, in URN order as well.
	got, _ = scrollAll(t, srv, "GET", "/openapi/v3/entity/dataset?count=1&query="+url.QueryEscape("scroll_1*"), nil, "entities")
	if len(got) == 0 || !slices.IsSorted(got) {
		t.Errorf("query scroll: %v", got)
	}
	for _, u := range got {
		if !strings.Contains(u, "scroll_1") {
			t.Errorf("query scroll_1* lists %s", u)
		}
	}

	// DataHub's field syntax: a field of the search documents and a value;
	// soft-deleted datasets stay left out.
	live := slices.DeleteFunc(slices.Clone(want), func(u string) bool { return u == removed })
	for q, wantQ := range map[string][]string{
		"name:scroll_07":                    {datasetURN("scroll_07")},
		`name:"scroll_08"`:                  {datasetURN("scroll_08")},
		datasetURN("scroll_09"):             {datasetURN("scroll_09")},
		"platform:urn:li:dataPlatform:hive": live,
	} {
		got, _ := scrollAll(t, srv, "GET", "/openapi/v3/entity/dataset?count=10&query="+url.QueryEscape(q), nil, "entities")
		if !slices.Equal(got, wantQ) {
			t.Errorf("scroll with query %s: %v, want %v", q, got, wantQ)
		}
	}

	// Across types: aspects absent reads none, empty reads all.
	res := decode(t, srv.mustDo(t, 200, "POST", "/openapi/v3/entity/scroll?count=30", map[string]any{"entities": []string{"dataset", "tag"}}))
	ents, _ := res["entities"].([]any)
	if len(ents) != 25 {
		t.Errorf("scroll across dataset and tag: %d entities, want 25 (24 datasets and a tag)", len(ents))
	}
	for _, e := range ents {
		if m := e.(map[string]any); len(m) != 1 {
			t.Errorf("scroll without aspects read %v", m)
		}
	}
	res = decode(t, srv.mustDo(t, 200, "POST", "/openapi/v3/entity/scroll?count=1", map[string]any{"entities": []string{"tag"}, "aspects": []string{"tagProperties"}}))
	if ents, _ := res["entities"].([]any); len(ents) != 1 || ents[0].(map[string]any)["tagProperties"] == nil {
		t.Errorf("scroll of tags with tagProperties: %v", res)
	}

	for _, bad := range []string{
		"/openapi/v3/entity/dataset?scrollId=notascrollid",
		"/openapi/v3/entity/dataset?sortCriteria=name",
		"/openapi/v3/entity/dataset?sortOrder=SIDEWAYS",
		"/openapi/v3/entity/dataset?count=-1",
		"/openapi/v3/entity/dataset?aspects=noSuchAspect",
	} {
		status, b := srv.do(t, "GET", bad, nil)
		if status != 400 || !strings.Contains(string(b), `"error"`) {
			t.Errorf("GET %s: %d %s, want 400 with an error", bad, status, b)
		}
	}
	// A count above the result window is lowered, not refused.
	srv.mustDo(t, 200, "POST", "/openapi/v3/entity/scroll?query=*&count=99999", map[string]any{})
}

// TestOpenAPIV3Aspects follows DataHub's smoke tests of one aspect:
// versions, CREATE semantics, patches of missing aspects, async answers.
func TestOpenAPIV3Aspects(t *testing.T) {
	srv := startServer(t)
	urn := datasetURN("aspects")
	tags := "/openapi/v3/entity/dataset/" + pathEscape(urn) + "/globaltags"
	one := map[string]any{"value": map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:tag1"}}}}
	two := map[string]any{"value": map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:tag1"}, map[string]any{"tag": "urn:li:tag:tag2"}}}}
	srv.mustDo(t, 200, "POST", tags+"?createIfNotExists=false&createEntityIfNotExists=false&async=false", one)
	// CREATE (the default) refuses an aspect that exists.
	srv.mustDo(t, 409, "POST", tags, two)
	written := decode(t, srv.mustDo(t, 202, "POST", tags+"?createIfNotExists=false&async=true", two))
	if written["urn"] != urn || written["globalTags"] == nil {
		t.Errorf("POST aspect answered %v", written)
	}
	for _, tt := range []struct {
		version string
		tags    int
	}{{"0", 2}, {"1", 1}, {"2", 2}} {
		env := decode(t, srv.mustDo(t, 200, "GET", tags+"?version="+tt.version, nil))
		v, _ := env["value"].(map[string]any)
		if l, _ := v["tags"].([]any); len(l) != tt.tags {
			t.Errorf("version %s: %v, want %d tags", tt.version, env, tt.tags)
		}
	}
	srv.mustDo(t, 404, "GET", tags+"?version=3", nil)
	srv.mustDo(t, 400, "GET", tags+"?version=-1", nil)

	// A patch of a missing aspect starts from its default.
	props := "/openapi/v3/entity/dataset/" + pathEscape(datasetURN("patched")) + "/datasetProperties"
	patched := decode(t, srv.mustDo(t, 200, "PATCH", props, map[string]any{"patch": []any{map[string]any{"op": "add", "path": "/description", "value": "Test description"}}}))
	want := map[string]any{"description": "Test description", "customProperties": map[string]any{}, "tags": []any{}}
	if env, _ := patched["datasetProperties"].(map[string]any); env == nil || !reflect.DeepEqual(env["value"], want) {
		t.Errorf("PATCH of a missing datasetProperties answered %s", jsonString(patched))
	}
	srv.mustDo(t, 200, "PATCH", props, map[string]any{"patch": []any{map[string]any{"op": "remove", "path": "/description"}}})
	env := decode(t, srv.mustDo(t, 200, "GET", props, nil))
	if !reflect.DeepEqual(env["value"], map[string]any{"customProperties": map[string]any{}, "tags": []any{}}) {
		t.Errorf("after removing the description: %s", jsonString(env))
	}
	srv.mustDo(t, 400, "PATCH", props, map[string]any{"notpatch": []any{}})

	// The batch PATCH answers 202 without a body unless async=false.
	batch := []any{map[string]any{"urn": datasetURN("patched"), "datasetProperties": map[string]any{"value": map[string]any{"patch": []any{map[string]any{"op": "add", "path": "/name", "value": "n"}}}}}}
	if b := srv.mustDo(t, 202, "PATCH", "/openapi/v3/entity/dataset", batch); len(b) != 0 {
		t.Errorf("async batch PATCH answered a body: %s", b)
	}
	var list []map[string]any
	decodeInto(t, srv.mustDo(t, 200, "PATCH", "/openapi/v3/entity/dataset?async=false", batch), &list)
	if len(list) != 1 || list[0]["datasetProperties"] == nil {
		t.Errorf("batch PATCH answered %v", list)
	}
	// A new entity's answer holds its key and default aspects too.
	decodeInto(t, srv.mustDo(t, 202, "POST", "/openapi/v3/entity/dataset", []any{datasetItem("fresh")}), &list)
	if len(list) != 1 || list[0]["datasetKey"] == nil || list[0]["dataPlatformInstance"] == nil {
		t.Errorf("POST of a new dataset answered %s", jsonString(list))
	}

	// DELETE of one aspect, then of aspects named on the entity.
	srv.mustDo(t, 200, "DELETE", tags, nil)
	srv.mustDo(t, 404, "GET", tags, nil)
	srv.mustDo(t, 404, "HEAD", tags, nil)
	srv.mustDo(t, 200, "DELETE", "/openapi/v3/entity/dataset/"+pathEscape(datasetURN("patched"))+"?aspects=datasetProperties", nil)
	srv.mustDo(t, 404, "GET", props, nil)
	srv.mustDo(t, 204, "HEAD", "/openapi/v3/entity/dataset/"+pathEscape(datasetURN("patched")), nil)

	// batchGet reads the aspects each entity names, all when none.
	var got []map[string]any
	decodeInto(t, srv.mustDo(t, 200, "POST", "/openapi/v3/entity/dataset/batchGet?systemMetadata=true", []any{
		map[string]any{"urn": datasetURN("fresh"), "status": map[string]any{}},
		map[string]any{"urn": urn},
		map[string]any{"urn": datasetURN("absent")},
	}), &got)
	if len(got) != 2 || len(got[0]) != 2 || got[0]["status"] == nil || got[1]["datasetKey"] == nil {
		t.Errorf("batchGet answered %s", jsonString(got))
	}
	if st, _ := got[0]["status"].(map[string]any); st["systemMetadata"] == nil || st["auditStamp"] == nil {
		t.Errorf("batchGet with systemMetadata=true answered %s", jsonString(got[0]))
	}
}

// TestOpenAPIURNsInPaths reads entities whose URNs hold slashes, given
// percent-encoded (%2F, as DataHub's clients send them: raw, a path cannot
// tell them from the separator of an aspect name), or with the URN's
// other characters raw, with and without an aspect after them.
func TestOpenAPIURNsInPaths(t *testing.T) {
	srv := startServer(t)
	urn := datasetURN("dir/EntityV3")
	item := datasetItem("dir/EntityV3")
	item["urn"] = urn
	srv.mustDo(t, 200, "POST", "/openapi/v3/entity/dataset?async=false", []any{item})
	raw := strings.NewReplacer("%3A", ":", "%28", "(", "%29", ")", "%2C", ",").Replace(pathEscape(urn))
	for _, p := range []string{pathEscape(urn), raw} {
		got := decode(t, srv.mustDo(t, 200, "GET", "/openapi/v3/entity/dataset/"+p, nil))
		if got["urn"] != urn || got["datasetKey"] == nil {
			t.Errorf("GET %s: %s", p, jsonString(got))
		}
		env := decode(t, srv.mustDo(t, 200, "GET", "/openapi/v3/entity/dataset/"+p+"/status", nil))
		if !reflect.DeepEqual(env["value"], map[string]any{"removed": false}) {
			t.Errorf("GET %s/status: %s", p, jsonString(env))
		}
	}
}

// TestOpenAPIBadInput refuses bad requests with a 4xx naming the problem,
// and writes nothing.
func TestOpenAPIBadInput(t *testing.T) {
	srv := startServer(t)
	good := datasetItem("bad")
	urn := datasetURN("bad")
	withAspect := func(name string, v any) []any {
		m := map[string]any{"urn": urn}
		for k, x := range good {
			if k != "urn" {
				m[k] = x
			}
		}
		m[name] = v
		return []any{m}
	}
	for _, tt := range []struct {
		name, method, path string
		body               any
		status             int
		says               string
	}{
		{"malformed JSON", "POST", "/openapi/v3/entity/dataset", []byte(`[{"urn": `), 400, "body must be"},
		{"not a list", "POST", "/openapi/v3/entity/dataset", map[string]any{"urn": urn}, 400, "JSON array"},
		{"no urn", "POST", "/openapi/v3/entity/dataset", []any{map[string]any{"status": map[string]any{"value": map[string]any{"removed": false}}}}, 400, "urn"},
		{"URN of another type", "POST", "/openapi/v3/entity/dataset", []any{map[string]any{"urn": "urn:li:tag:x"}}, 400, "not a dataset URN"},
		{"bad URN", "POST", "/openapi/v3/entity/dataset", []any{map[string]any{"urn": "urn:li:dataset:(urn:li:dataPlatform:test,x,INVALID"}}, 400, ""},
		{"unknown aspect", "POST", "/openapi/v3/entity/dataset", withAspect("INVALID", map[string]any{"value": map[string]any{}}), 400, "Validation Error"},
		{"aspect of another entity type", "POST", "/openapi/v3/entity/dataset", withAspect("tagProperties", map[string]any{"value": map[string]any{"name": "x"}}), 400, "not an aspect"},
		{"aspect without value", "POST", "/openapi/v3/entity/dataset", withAspect("ownership", map[string]any{"owners": []any{}}), 400, "value"},
		{"value against the schema", "POST", "/openapi/v3/entity/dataset", withAspect("status", map[string]any{"value": map[string]any{"removed": "yes"}}), 400, "Validation Error"},
		{"unknown entity type", "POST", "/openapi/v3/entity/nosuchtype", []any{good}, 404, "unknown entity type"},
		{"invalid UTF-8", "POST", "/openapi/v3/entity/dataset", []byte("[{\"urn\": \"urn:li:dataset:(urn:li:dataPlatform:hive,\xff,PROD)\"}]"), 400, "UTF-8"},
		{"bad async", "POST", "/openapi/v3/entity/dataset?async=maybe", []any{good}, 400, "async"},
		{"patch without patch", "PATCH", "/openapi/v3/entity/dataset?async=false", withAspect("status", map[string]any{"value": map[string]any{"op": "add"}}), 400, "patch"},
		{"aspect POST without value", "POST", "/openapi/v3/entity/dataset/" + pathEscape(urn) + "/status", map[string]any{"removed": false}, 400, "value is required"},
		{"v2 without aspects", "POST", "/openapi/v2/entity/dataset", []any{map[string]any{"urn": urn}}, 400, "aspects"},
		{"v2 batch of a bad URN", "POST", "/openapi/v2/entity/batch/dataset", map[string]any{"urns": []string{"urn:li:tag:x"}}, 400, "not a dataset URN"},
		{"platform proposal of an unknown aspect", "POST", "/openapi/v2/platform/entities/v1/", []any{map[string]any{"entityType": "dataset", "entityUrn": urn, "changeType": "UPSERT", "aspectName": "nope", "aspect": map[string]any{"value": map[string]any{}, "contentType": "application/json"}}}, 400, "nope"},
		{"batchGet of another type", "POST", "/openapi/v3/entity/dataset/batchGet", []any{map[string]any{"urn": "urn:li:tag:x"}}, 400, "not a dataset URN"},
		{"scroll of an unknown type", "POST", "/openapi/v3/entity/scroll", map[string]any{"entities": []string{"nosuchtype"}}, 400, "unknown entity type"},
		{"relationships of a bad URN", "GET", "/openapi/v3/relationship/dataset/notaurn", nil, 400, ""},
		{"relationships in a bad direction", "GET", "/openapi/v3/relationship/dataset/" + pathEscape(urn) + "?direction=UP", nil, 400, "direction"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, b := srv.do(t, tt.method, tt.path, tt.body)
			if status != tt.status || !strings.Contains(string(b), tt.says) {
				t.Errorf("%s %s: %d %s, want %d saying %q", tt.method, tt.path, status, b, tt.status, tt.says)
			}
		})
	}
	// Nothing was written: not the good aspects beside a bad one either.
	srv.mustDo(t, 404, "GET", "/openapi/v3/entity/dataset/"+pathEscape(urn), nil)
	res := decode(t, srv.mustDo(t, 200, "POST", "/entities?action=listUrns", map[string]any{"entity": "dataset", "start": 0, "count": 10}))
	if v, _ := res["value"].(map[string]any); v["total"] != json.Number("0") {
		t.Errorf("after bad writes, listUrns answers %v", res)
	}
}

// TestOpenAPIV2 writes and reads entities through DataHub's OpenAPI v2
// endpoints, proposals through /openapi/v2/platform/entities/v1/, and the
// rest.li listUrns and exists actions, on SQLite and PostgreSQL.
func TestOpenAPIV2(t *testing.T) {
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			srv := startServer(t, db.args...)
			urn := "urn:li:tag:v2"
			path := "/openapi/v2/entity/tag/" + pathEscape(urn)

			// v2 answers 200 with no aspects for an entity with nothing stored.
			got := decode(t, srv.mustDo(t, 200, "GET", path, nil))
			if a, _ := got["aspects"].(map[string]any); got["urn"] != urn || len(a) != 0 {
				t.Errorf("GET of a missing entity: %s", jsonString(got))
			}
			srv.mustDo(t, 404, "HEAD", path, nil)
			body := []any{map[string]any{"urn": urn, "aspects": map[string]any{"tagProperties": map[string]any{"value": map[string]any{"name": "V2"}}}}}
			var list []map[string]any
			decodeInto(t, srv.mustDo(t, 202, "POST", "/openapi/v2/entity/tag", body), &list)
			if len(list) != 1 || list[0]["urn"] != urn || list[0]["aspects"].(map[string]any)["tagProperties"] == nil {
				t.Errorf("POST answered %s", jsonString(list))
			}
			got = decode(t, srv.mustDo(t, 200, "GET", path+"?aspects=tagProperties&systemMetadata=true", nil))
			props, _ := got["aspects"].(map[string]any)["tagProperties"].(map[string]any)
			if v, _ := props["value"].(map[string]any); v["name"] != "V2" || props["systemMetadata"] == nil {
				t.Errorf("GET answered %s", jsonString(got))
			}
			srv.mustDo(t, 204, "HEAD", path, nil)

			// One aspect: the v2 body is the aspect itself.
			one := path + "/tagProperties"
			srv.mustDo(t, 200, "POST", one+"?createIfNotExists=false", map[string]any{"name": "V2", "description": "second"})
			env := decode(t, srv.mustDo(t, 200, "GET", one, nil))
			if v, _ := env["value"].(map[string]any); v["description"] != "second" {
				t.Errorf("GET %s: %s", one, jsonString(env))
			}
			patched := decode(t, srv.mustDo(t, 200, "PATCH", one, map[string]any{"patch": []any{map[string]any{"op": "add", "path": "/colorHex", "value": "#00ff00"}}}))
			if a, _ := patched["aspects"].(map[string]any); a["tagProperties"] == nil {
				t.Errorf("PATCH answered %s", jsonString(patched))
			}
			env = decode(t, srv.mustDo(t, 200, "GET", one+"?version=1", nil))
			if v, _ := env["value"].(map[string]any); v["description"] != nil || v["name"] != "V2" {
				t.Errorf("version 1 of tagProperties: %s", jsonString(env))
			}

			// The batch read answers every URN asked for.
			res := decode(t, srv.mustDo(t, 200, "POST", "/openapi/v2/entity/batch/tag", map[string]any{"urns": []string{urn, "urn:li:tag:none"}, "aspectNames": []string{"tagProperties"}, "withSystemMetadata": false}))
			if ents, _ := res["entities"].([]any); len(ents) != 2 || len(ents[1].(map[string]any)["aspects"].(map[string]any)) != 0 {
				t.Errorf("batch read answered %s", jsonString(res))
			}

			// Proposals as DataHub's smoke tests send them: the aspect value
			// an object carrying its record's __type.
			product := "urn:li:dataProduct:4fd5aea7-a15f-4842-a2cc-e6562605ebf7"
			var urns []string
			decodeInto(t, srv.mustDo(t, 201, "POST", "/openapi/v2/platform/entities/v1/?async=false", []any{
				map[string]any{"entityType": "dataProduct", "entityUrn": product, "changeType": "UPSERT", "aspectName": "status",
					"aspect": map[string]any{"value": map[string]any{"__type": "Status", "removed": false}, "contentType": "application/json"}},
				map[string]any{"entityType": "dataProduct", "entityUrn": product, "changeType": "UPSERT", "aspectName": "dataProductProperties",
					"aspect": map[string]any{"value": `{"name": "Sales"}`, "contentType": "application/json"}},
			}), &urns)
			if !slices.Equal(urns, []string{product}) {
				t.Errorf("platform entities answered %v", urns)
			}
			got = decode(t, srv.mustDo(t, 200, "GET", "/openapi/v3/entity/dataproduct/"+pathEscape(product), nil))
			if got["status"] == nil || got["dataProductProperties"] == nil {
				t.Errorf("after the proposals: %s", jsonString(got))
			}
			srv.mustDo(t, 200, "POST", "/openapi/v2/platform/entities/v1/", []any{})

			// listUrns pages through a type's URNs; exists asks for one.
			for i := range 3 {
				srv.mustDo(t, 202, "POST", "/openapi/v3/entity/tag", []any{map[string]any{"urn": fmt.Sprintf("urn:li:tag:list%d", i), "tagProperties": map[string]any{"value": map[string]any{"name": "l"}}}})
			}
			var lu struct {
				Value struct {
					Entities            []string
					Start, Count, Total int
				}
			}
			decodeInto(t, srv.mustDo(t, 200, "POST", "/entities?action=listUrns", map[string]any{"entity": "tag", "start": 1, "count": 2}), &lu)
			if lu.Value.Total != 4 || lu.Value.Start != 1 || lu.Value.Count != 2 || !slices.Equal(lu.Value.Entities, []string{"urn:li:tag:list1", "urn:li:tag:list2"}) {
				t.Errorf("listUrns answered %+v", lu.Value)
			}
			srv.mustDo(t, 400, "POST", "/entities?action=listUrns", map[string]any{"entity": "nosuchtype", "start": 0, "count": 2})
			srv.mustDo(t, 400, "POST", "/entities?action=listUrns", map[string]any{"entity": "tag", "start": -1, "count": 2})
			for _, tt := range []struct {
				body any
				want bool
			}{
				{map[string]any{"urn": urn}, true},
				{map[string]any{"urn": "urn:li:tag:none"}, false},
			} {
				r := decode(t, srv.mustDo(t, 200, "POST", "/entities?action=exists", tt.body))
				if r["value"] != tt.want {
					t.Errorf("exists %v answered %v", tt.body, r)
				}
			}
			srv.mustDo(t, 200, "POST", "/openapi/v3/entity/tag/"+pathEscape(urn)+"/status?createIfNotExists=false", map[string]any{"value": map[string]any{"removed": true}})
			for _, tt := range []struct {
				soft any
				want bool
			}{{nil, true}, {true, true}, {false, false}} {
				body := map[string]any{"urn": urn}
				if tt.soft != nil {
					body["includeSoftDelete"] = tt.soft
				}
				if r := decode(t, srv.mustDo(t, 200, "POST", "/entities?action=exists", body)); r["value"] != tt.want {
					t.Errorf("exists of a soft-deleted tag with includeSoftDelete=%v answered %v", tt.soft, r)
				}
			}

			srv.mustDo(t, 200, "DELETE", one, nil)
			srv.mustDo(t, 404, "GET", one, nil)
			srv.mustDo(t, 200, "DELETE", path, nil)
			srv.mustDo(t, 404, "HEAD", path+"?includeSoftDelete=true", nil)
		})
	}
}

// TestOpenAPIRelationships reads the edges of an entity and of a
// relationship type through /openapi/v3/relationship and v2, page by page.
func TestOpenAPIRelationships(t *testing.T) {
	srv := startServer(t)
	down := datasetURN("down")
	var ups []any
	for i := range 3 {
		ups = append(ups, map[string]any{"dataset": datasetURN(fmt.Sprintf("up%d", i)), "type": "TRANSFORMED"})
	}
	srv.mustDo(t, 200, "POST", "/openapi/v3/entity/dataset?async=false", []any{map[string]any{
		"urn":             down,
		"upstreamLineage": map[string]any{"value": map[string]any{"upstreams": ups}},
		"ownership":       map[string]any{"value": map[string]any{"owners": []any{map[string]any{"owner": "urn:li:corpuser:jdoe", "type": "DATAOWNER"}}}},
	}})
	type rel struct {
		RelationshipType    string
		Source, Destination struct{ EntityType, URN string }
	}
	page := func(path string) ([]rel, string) {
		var res struct {
			ScrollID string
			Results  []rel
		}
		decodeInto(t, srv.mustDo(t, 200, "GET", path, nil), &res)
		return res.Results, res.ScrollID
	}
	for _, v := range []string{"v2", "v3"} {
		base := "/openapi/" + v + "/relationship/dataset/" + pathEscape(down)
		first, next := page(base + "?count=2&relationshipType[]=DownstreamOf")
		if len(first) != 2 || next == "" || first[0].RelationshipType != "DownstreamOf" || first[0].Source.URN != down || first[0].Destination.EntityType != "dataset" {
			t.Errorf("%s: first page %+v, scrollId %q", v, first, next)
		}
		rest, next := page(base + "?count=2&relationshipType[]=DownstreamOf&scrollId=" + url.QueryEscape(next))
		if len(rest) != 1 || next != "" {
			t.Errorf("%s: second page %+v, scrollId %q", v, rest, next)
		}
		all, _ := page(base)
		if len(all) != 4 {
			t.Errorf("%s: every outgoing edge: %+v", v, all)
		}
		in, _ := page("/openapi/" + v + "/relationship/dataset/" + pathEscape(datasetURN("up1")) + "?direction=INCOMING")
		if len(in) != 1 || in[0].Source.URN != down {
			t.Errorf("%s: incoming edges of up1: %+v", v, in)
		}
		owned, _ := page("/openapi/" + v + "/relationship/OwnedBy")
		if len(owned) != 1 || owned[0].Destination.URN != "urn:li:corpuser:jdoe" || owned[0].Destination.EntityType != "corpuser" {
			t.Errorf("%s: OwnedBy edges: %+v", v, owned)
		}
	}
}

// TestOpenAPIDocumentNamesEveryType checks that the OpenAPI document has
// DataHub's v3 paths of every entity type and aspect of the registry and
// the request and response schemas of every aspect.
func TestOpenAPIDocumentNamesEveryType(t *testing.T) {
	v, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	doc := v.Doc()
	reg := registry.Default()
	paths := 0
	for _, e := range reg.Entities() {
		base := "/openapi/v3/entity/" + strings.ToLower(e.Name)
		for _, p := range []string{base, base + "/batchGet", base + "/{urn}"} {
			if doc.Paths.Value(p) == nil {
				t.Errorf("no path %s", p)
			}
		}
		for _, a := range append([]string{e.KeyAspect}, e.Aspects...) {
			p := base + "/{urn}/" + strings.ToLower(a)
			item := doc.Paths.Value(p)
			if item == nil || item.Get == nil || item.Head == nil || item.Post == nil || item.Patch == nil || item.Delete == nil {
				t.Errorf("path %s lacks an operation", p)
				continue
			}
			paths++
			name := strings.TrimPrefix(item.Get.Responses.Status(200).Ref, "#/components/responses/")
			if r := doc.Components.Responses[name]; r == nil || r.Value.Content.Get("application/json").Schema.Ref == "" {
				t.Errorf("%s: GET answers %q", p, name)
			}
		}
		up := strings.ToUpper(e.Name[:1]) + e.Name[1:]
		for _, s := range []string{up + "EntityRequest_v3", up + "EntityResponse_v3", "Scroll" + up + "EntityResponse_v3", "BatchGet" + up + "EntityRequest_v3", up + "EntityRequestPatch_v3"} {
			if doc.Components.Schemas[s] == nil {
				t.Errorf("no component schema %s", s)
			}
		}
	}
	// Named by the record's short name, or its full name where the short
	// one is taken (SystemMetadata, by the hand-written document).
	for _, a := range reg.Aspects() {
		found := false
		for _, n := range []string{a.WireName[strings.LastIndexByte(a.WireName, '.')+1:], a.WireName} {
			found = found || doc.Components.Schemas[n+"AspectRequest_v3"] != nil && doc.Components.Schemas[n+"AspectResponse_v3"] != nil
		}
		if !found {
			t.Errorf("aspect %s (%s) has no AspectRequest_v3 and AspectResponse_v3 schemas", a.Name, a.WireName)
		}
	}
	if paths != 516 {
		t.Errorf("%d aspect paths, want one for each of the 516 aspects of the entity types", paths)
	}
}
