package webui

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/catalogd/catalogd/openapi"
)

// muxRouter adapts http.ServeMux, whose HandleFunc takes a plain func, to
// Router, which matches restli.Handler's.
type muxRouter struct{ *http.ServeMux }

func (m muxRouter) HandleFunc(pattern string, fn http.HandlerFunc) {
	m.ServeMux.HandleFunc(pattern, fn)
}

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	Register(muxRouter{mux}, Options{})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	// A bare Transport, so a gzip answer is seen as such rather than
	// silently decoded.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestGraphiQLPage(t *testing.T) {
	srv := newServer(t)
	resp, body := get(t, srv.URL+GraphiQLPath)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q", ct)
	}
	page := string(body)
	for _, want := range []string{`data-endpoint="graphql"`, `src="graphiql/assets/graphiql.js?v=`, `href="graphiql/assets/graphiql.css?v=`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// Nothing may come from another host: the page must work offline.
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).FindString(page); m != "" {
		t.Errorf("page loads from another host: %s", m)
	}
	// Every asset the page references is served.
	for _, m := range regexp.MustCompile(`(?:src|href)="(graphiql/assets/[^"?]+)`).FindAllStringSubmatch(page, -1) {
		if r, _ := get(t, srv.URL+"/api/"+m[1]); r.StatusCode != 200 {
			t.Errorf("%s: status %d", m[1], r.StatusCode)
		}
	}
}

func TestAssets(t *testing.T) {
	srv := newServer(t)
	resp, js := get(t, srv.URL+AssetsPath+"graphiql.js")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("graphiql.js: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if len(js) < 100_000 || !bytes.Contains(js, []byte("graphiql")) {
		t.Errorf("graphiql.js does not look like the bundle (%d bytes)", len(js))
	}
	// The bundle must not reach out to a CDN at run time.
	for _, cdn := range []string{"unpkg.com", "cdn.jsdelivr.net", "cdnjs.cloudflare.com", "esm.sh"} {
		if bytes.Contains(js, []byte(cdn)) {
			t.Errorf("bundle mentions %s", cdn)
		}
	}
	etag := resp.Header.Get("ETag")
	if r, _ := get(t, srv.URL+AssetsPath+"graphiql.js", "If-None-Match", etag); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", r.StatusCode)
	}

	resp, gz := get(t, srv.URL+AssetsPath+"graphiql.js", "Accept-Encoding", "gzip, br")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip: %v", resp.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(plain, js) {
		t.Errorf("gzipped body differs from the plain one (err %v)", err)
	}
	if resp.Header.Get("ETag") == etag {
		t.Error("gzip and identity representations share an ETag")
	}

	resp, css := get(t, srv.URL+AssetsPath+"graphiql.css")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") || !bytes.Contains(css, []byte(".graphiql-container")) {
		t.Errorf("graphiql.css: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := get(t, srv.URL+AssetsPath+"nope.js"); resp.StatusCode != 404 {
		t.Errorf("unknown asset: status %d", resp.StatusCode)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "br, gzip": true, "GZIP;q=0.5": true, "gzip;q=0": false, "deflate": false, "x-gzip": false,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Accept-Encoding", h)
		if got := acceptsGzip(r); got != want {
			t.Errorf("acceptsGzip(%q) = %v", h, got)
		}
	}
}

func TestDocs(t *testing.T) {
	srv := newServer(t)
	resp, body := get(t, srv.URL+DocsPath)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q", ct)
	}
	page := string(body)

	// Every operation of the spec, and every rest.li action, has a section.
	doc, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	nOps := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			nOps++
			anchor := "op-" + anchorSafe(opID(method, path, op))
			id := `id="` + anchor + `"`
			if !strings.Contains(page, id) {
				t.Errorf("%s %s: no section %s", method, path, id)
			}
			acts, err := restliActions(op)
			if err != nil {
				t.Error(err)
			}
			for _, a := range acts {
				if !strings.Contains(page, `id="`+anchor+"-"+anchorSafe(a.name)+`"`) {
					t.Errorf("%s %s: no section for action %s", method, path, a.name)
				}
			}
		}
	}
	if nOps < 15 {
		t.Errorf("only %d operations in the spec?", nOps)
	}

	for _, want := range []string{
		`href="#op-aspectsAction-ingestProposal"`,                                      // index link to the action
		`POST /aspects?action=ingestProposal`,                                          // the action's heading
		`<a href="#schema-IngestProposalRequest">`,                                     // its request schema, linked
		`id="schema-IngestProposalRequest"`,                                            // and documented
		`href="#op-getEntityV2"`,                                                       // GET /entitiesV2/{urn}
		`<code>/entitiesV2/{urn}</code>`,                                               //
		`urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)`,             // an example, unescaped URN
		`<td><code>aspect</code> <span class="req">required</span></td><td>query</td>`, // parameters table
		`200 with an empty body`,                                                       // entities?action=ingest has no response schema
		`no credentials needed`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// Every in-page link has a target.
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("dangling link #%s", m[1])
		}
	}
	// Descriptions are escaped text, never raw markup from the spec.
	if strings.Contains(page, "<script") {
		t.Error("docs page contains a script")
	}
}

func TestSpecJSON(t *testing.T) {
	srv := newServer(t)
	resp, body := get(t, srv.URL+SpecJSONPath)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["openapi"] != "3.0.3" {
		t.Errorf("openapi = %v", raw["openapi"])
	}
	// The JSON is the whole document, the hand-written one with the paths
	// generated for every entity type and aspect: it loads, with the same
	// operations and the rest.li extension intact.
	doc, err := openapi3.NewLoader().LoadFromData(body)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := openapi.Document()
	if err != nil {
		t.Fatal(err)
	}
	want, err := openapi3.NewLoader().LoadFromData(whole)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/aspects", "/openapi/v3/entity/dataset/{urn}/globaltags"} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("no path %s", p)
		}
	}
	if got, w := len(doc.Paths.Map()), len(want.Paths.Map()); got != w {
		t.Errorf("%d paths, want %d", got, w)
	}
	op := doc.Paths.Value("/aspects").Post
	acts, err := restliActions(op)
	if err != nil || len(acts) == 0 || acts[0].name == "" {
		t.Errorf("x-restli-actions lost: %v %v", acts, err)
	}
	if len(doc.Components.Schemas) != len(want.Components.Schemas) {
		t.Errorf("%d schemas, want %d", len(doc.Components.Schemas), len(want.Components.Schemas))
	}
}

func TestMarkdown(t *testing.T) {
	got := string(md("Intro `a<b>` and **bold**.\nsame para\n\n## Head\n* one `x**y**`\n  continued\n* two\n\nafter"))
	want := "<p>Intro <code>a&lt;b&gt;</code> and <strong>bold</strong>. same para</p>\n" +
		"<h4>Head</h4>\n<ul>\n<li>one <code>x**y**</code> continued</li>\n<li>two</li>\n</ul>\n<p>after</p>\n"
	if got != want {
		t.Errorf("md:\n%s\nwant\n%s", got, want)
	}
	if got := string(md("<script>alert(1)</script> `unclosed")); got != "<p>&lt;script&gt;alert(1)&lt;/script&gt; `unclosed</p>\n" {
		t.Errorf("md escaping: %s", got)
	}
}
