package webui

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"
)

// App serves a built web app from a directory, as DataHub's web server
// serves its React app: the files that exist, and index.html for every
// other path the app routes itself (/dataset/..., /search, /login, ...).
//
// Files whose names carry a content hash (the bundler's output under
// assets/, e.g. index-2658ae02.js) never change under their name and are
// cached by browsers for a year; everything else, index.html first, is
// revalidated on every use, so that a rebuilt app is picked up at once.
// Text files are sent gzipped to clients that accept it, compressed once
// and kept in memory.
type App struct {
	root *os.Root
	// api tells paths that belong to the API rather than to the app.
	api func(p string) bool

	mu sync.Mutex
	gz map[string]*gzipped
}

// gzipped is a compressed file, valid while the file keeps its size and
// modification time.
type gzipped struct {
	mod  time.Time
	size int64
	body []byte
}

// NewApp opens the built app in dir, which must hold index.html. isAPI
// reports the paths that belong to the API: the app never answers them.
func NewApp(dir string, isAPI func(p string) bool) (*App, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open web app directory: %w", err)
	}
	if fi, err := root.Stat("index.html"); err != nil || fi.IsDir() {
		root.Close()
		return nil, fmt.Errorf("web app directory %s has no index.html: build the app first", dir)
	}
	return &App{root: root, api: isAPI, gz: map[string]*gzipped{}}, nil
}

// Close releases the directory.
func (a *App) Close() error { return a.root.Close() }

// Serves reports whether r is the app's to answer: a GET or HEAD outside
// the API.
func (a *App) Serves(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && !a.api(r.URL.Path)
}

// hashed matches the bundler's content-hashed file names.
var hashed = regexp.MustCompile(`[-.][0-9a-zA-Z_]{8,}\.(js|mjs|css|map|woff2?|ttf|otf|eot|svg|png|jpe?g|gif|webp|ico|wasm)$`)

// ServeHTTP answers a request Serves accepted.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" || name == "." {
		name = "index.html"
	}
	f, fi, err := a.open(name)
	if err != nil {
		// Not a file of the app: a route of the app itself.
		name = "index.html"
		if f, fi, err = a.open(name); err != nil {
			http.Error(w, "the web app's index.html cannot be read", http.StatusInternalServerError)
			return
		}
	}
	defer f.Close()
	h := w.Header()
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		h.Set("Content-Type", ct)
	}
	h.Set("X-Content-Type-Options", "nosniff")
	if hashed.MatchString(name) {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	if name == "index.html" {
		// The app must not be framed by other sites (clickjacking).
		h.Set("X-Frame-Options", "SAMEORIGIN")
	}
	var body io.ReadSeeker = f
	if compressible(name) && acceptsGzip(r) {
		gz, err := a.gzip(name, f, fi)
		if err != nil {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				http.Error(w, "cannot read "+name, http.StatusInternalServerError)
				return
			}
		} else {
			h.Set("Content-Encoding", "gzip")
			body = bytes.NewReader(gz)
		}
		h.Add("Vary", "Accept-Encoding")
	} else if compressible(name) {
		h.Add("Vary", "Accept-Encoding")
	}
	// ServeContent answers If-Modified-Since and ranges from the file's time.
	http.ServeContent(w, r, "", fi.ModTime(), body)
}

// open opens a regular file of the app; directories and dotfiles are not
// served.
func (a *App) open(name string) (*os.File, fs.FileInfo, error) {
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return nil, nil, fs.ErrNotExist
		}
	}
	f, err := a.root.Open(name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errors.New("not a regular file")
		}
		return nil, nil, err
	}
	return f, fi, nil
}

func compressible(name string) bool {
	switch path.Ext(name) {
	case ".html", ".js", ".mjs", ".css", ".json", ".svg", ".map", ".txt", ".xml", ".ttf":
		return true
	}
	return false
}

// maxGzipCache bounds the compressed files kept in memory.
const maxGzipCache = 64 << 20

// gzip returns the compressed contents of name, compressing once per
// version of the file.
func (a *App) gzip(name string, f io.Reader, fi fs.FileInfo) ([]byte, error) {
	a.mu.Lock()
	c := a.gz[name]
	a.mu.Unlock()
	if c != nil && c.mod.Equal(fi.ModTime()) && c.size == fi.Size() {
		return c.body, nil
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if _, err := io.Copy(zw, f); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	c = &gzipped{mod: fi.ModTime(), size: fi.Size(), body: buf.Bytes()}
	a.mu.Lock()
	defer a.mu.Unlock()
	total := 0
	for _, v := range a.gz {
		total += len(v.body)
	}
	if total+len(c.body) > maxGzipCache {
		clear(a.gz)
	}
	a.gz[name] = c
	return c.body, nil
}
