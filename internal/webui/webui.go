// Package webui serves catalogd's browser pages: the GraphiQL explorer at
// /api/graphiql (with its bundle under /api/graphiql/assets/), the REST
// documentation at /restli/docs rendered from the OpenAPI document, and that
// document as JSON at /openapi.json. None of them needs credentials, and
// none loads anything from another host: the GraphiQL bundle is built from
// pinned npm packages by graphiql/build.mjs and embedded in the binary.
package webui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// Router is where the pages are registered; *restli.Handler satisfies it.
type Router interface {
	HandleFunc(pattern string, fn http.HandlerFunc)
}

// Paths of the pages, relative to the server root.
const (
	GraphiQLPath = "/api/graphiql"
	AssetsPath   = GraphiQLPath + "/assets/"
	DocsPath     = "/restli/docs"
	SpecJSONPath = "/openapi.json"
)

// dist is the generated GraphiQL bundle (make generate). It is committed, so
// a fresh clone builds without Node; go:embed fails the build if it is gone.
//
//go:embed graphiql/dist/graphiql.js graphiql/dist/graphiql.css graphiql/dist/LICENSES.txt
var dist embed.FS

//go:embed graphiql.html
var graphiqlHTML string

// signinJS signs in from the explorer's page; it is served with the bundle.
//
//go:embed signin.js
var signinJS []byte

var graphiqlPage = template.Must(template.New("graphiql").Parse(graphiqlHTML))

// Options are what the pages need to know of the server.
type Options struct {
	// AuthRequired is true when the API needs credentials: the explorer
	// then offers to sign in when the browser has no session.
	AuthRequired bool
	// SessionActor returns the user signed in by the request's session
	// cookies, if any; nil means nobody is.
	SessionActor func(*http.Request) (string, bool)
}

// Register adds the pages to r.
func Register(r Router, o Options) {
	r.HandleFunc("GET "+GraphiQLPath, o.serveGraphiQL)
	r.HandleFunc("GET "+AssetsPath+"{file}", serveAsset)
	r.HandleFunc("GET "+DocsPath, serveDocs)
	r.HandleFunc("GET "+SpecJSONPath, serveSpecJSON)
}

// graphiqlData fills graphiql.html. The URLs are relative to the page
// (/api/graphiql) so the explorer works behind any host or path prefix:
// "graphql" resolves to /api/graphql, "graphiql/assets/x" to
// /api/graphiql/assets/x.
type graphiqlData struct {
	Endpoint     string
	Assets       string
	Version      string // busts browser caches when the bundle changes
	DefaultQuery string
	// SignIn shows the sign-in panel: credentials are needed and the
	// browser has no session.
	SignIn bool
	// SignedInAs is the user of the browser's session, if any.
	SignedInAs string
}

const defaultQuery = `# catalogd GraphQL explorer: run with Ctrl-Enter;
# the Docs button on the left browses the schema.
{
  __typename
}
`

func (o Options) serveGraphiQL(w http.ResponseWriter, r *http.Request) {
	d := graphiqlData{
		Endpoint:     "graphql",
		Assets:       "graphiql/assets/",
		Version:      bundleVersion(),
		DefaultQuery: defaultQuery,
	}
	if o.SessionActor != nil {
		d.SignedInAs, _ = o.SessionActor(r)
	}
	d.SignIn = o.AuthRequired && d.SignedInAs == ""
	var buf bytes.Buffer
	err := graphiqlPage.Execute(&buf, d)
	if err != nil {
		slog.Error("render graphiql page", "err", err)
		http.Error(w, "cannot render the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(buf.Bytes())
}

// asset is one embedded file with what is needed to serve it efficiently:
// the bundle is 1.7 MB, about a quarter of that gzipped.
type asset struct {
	body, gzipped []byte
	etag          string
	contentType   string
}

// assets are loaded and compressed on first use rather than at startup,
// which stays in milliseconds for servers that never serve the explorer.
var assets = sync.OnceValue(func() map[string]*asset {
	m := map[string]*asset{}
	types := map[string]string{
		".js":  "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8",
		".txt": "text/plain; charset=utf-8",
	}
	entries, err := fs.ReadDir(dist, "graphiql/dist")
	if err != nil {
		panic(err) // the embedded directory is fixed at build time
	}
	files := map[string][]byte{"signin.js": signinJS}
	for _, e := range entries {
		body, err := dist.ReadFile("graphiql/dist/" + e.Name())
		if err != nil {
			panic(err)
		}
		files[e.Name()] = body
	}
	for name, body := range files {
		sum := sha256.Sum256(body)
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		_, _ = zw.Write(body)
		_ = zw.Close()
		m[name] = &asset{
			body:        body,
			gzipped:     gz.Bytes(),
			etag:        `"` + hex.EncodeToString(sum[:8]) + `"`,
			contentType: types[path.Ext(name)],
		}
	}
	return m
})

// bundleVersion identifies the embedded bundle, for cache-busting URLs.
func bundleVersion() string {
	if a := assets()["graphiql.js"]; a != nil {
		return strings.Trim(a.etag, `"`)
	}
	return ""
}

func serveAsset(w http.ResponseWriter, r *http.Request) {
	a := assets()[r.PathValue("file")]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	// Revalidate every time: the ETag makes that a cheap 304, and a new
	// binary's bundle is never mixed with an old cached one.
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	body := a.body
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		// Each representation needs its own validator (RFC 9110 8.8.3).
		h.Set("ETag", strings.TrimSuffix(a.etag, `"`)+`-gz"`)
		body = a.gzipped
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
