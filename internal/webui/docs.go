package webui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	_ "embed"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/catalogd/catalogd/openapi"
)

//go:embed docs.html
var docsHTML string

var docsTemplate = template.Must(template.New("docs").Parse(docsHTML))

// restliActionsExt is the vendor extension on rest.li action operations that
// maps each action name to its request and response component schemas; the
// operation's own body schemas are only anyOf unions of them.
const restliActionsExt = "x-restli-actions"

// renderDocs builds the docs page once, on first request: the spec is
// embedded, so the page is fixed for the life of the binary, and parsing
// it at startup would slow every start for a page rarely visited. The page
// shows the hand-written document, which describes every operation once;
// the paths and schemas generated for every entity type and aspect (some
// three thousand operations of the same few shapes) are in /openapi.json.
var renderDocs = sync.OnceValues(func() ([]byte, error) {
	doc, err := loadSpec()
	if err != nil {
		return nil, err
	}
	page, err := buildDocsPage(doc)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := docsTemplate.Execute(&out, page); err != nil {
		return nil, fmt.Errorf("render docs: %w", err)
	}
	return out.Bytes(), nil
})

// loadSpec parses the embedded OpenAPI document with every internal $ref
// resolved, so the page can show referenced parameters and responses inline.
func loadSpec() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(openapi.Spec)
	if err != nil {
		return nil, fmt.Errorf("parse openapi.yaml: %w", err)
	}
	return doc, nil
}

func serveDocs(w http.ResponseWriter, r *http.Request) {
	page, err := renderDocs()
	if err != nil {
		slog.Error("restli docs", "err", err)
		http.Error(w, "documentation unavailable: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(page)
}

func serveSpecJSON(w http.ResponseWriter, r *http.Request) {
	js, err := openapi.Document()
	if err != nil {
		slog.Error("openapi.json", "err", err)
		http.Error(w, "spec unavailable: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(js)
}

// The view model of docs.html. Text that may carry markup is template.HTML
// produced by md or typeHTML, which escape everything they are given.
type (
	docsPage struct {
		Title       string
		Version     string
		Description template.HTML
		Groups      []*docGroup
		Schemas     []docSchema
	}
	docGroup struct {
		Name, Anchor string
		Description  template.HTML
		Ops          []*docOp
	}
	docOp struct {
		Anchor, ID, Method, Path, Summary string
		Description                       template.HTML
		Deprecated                        bool
		Public                            bool // security: [] — never needs credentials
		Actions                           []docAction
		Params                            []docParam
		Request                           *docBody
		Responses                         []docResponse
	}
	docAction struct {
		Anchor, Name        string
		Request, Response   template.HTML // schema links; Response empty = empty body
		RequestProps        []docProp
		RequestEx, ResultEx string // JSON examples keyed by the action's name, if any
	}
	docParam struct {
		Name, In, Example string
		Type, Description template.HTML
		Required          bool
	}
	docBody struct {
		Required    bool
		Description template.HTML
		Contents    []docContent
	}
	docContent struct {
		MediaType string
		Schema    template.HTML
		Props     []docProp
		Examples  []docExample
	}
	docExample struct {
		Name, Summary, JSON string
	}
	docResponse struct {
		Status      string
		Description template.HTML
		Contents    []docContent
	}
	docSchema struct {
		Name, Anchor string
		Type         template.HTML
		Description  template.HTML
		Props        []docProp
		Example      string
	}
	docProp struct {
		Name        string
		Type        template.HTML
		Required    bool
		Description template.HTML
	}
)

// methodOrder lists HTTP methods in the order a reader expects them.
var methodOrder = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

func buildDocsPage(doc *openapi3.T) (*docsPage, error) {
	page := &docsPage{Title: "catalogd REST API"}
	if doc.Info != nil {
		page.Title, page.Version, page.Description = doc.Info.Title, doc.Info.Version, md(doc.Info.Description)
	}
	// Groups follow the spec's tag list, which orders the resources the way
	// a reader meets them; operations without a known tag go last.
	byTag := map[string]*docGroup{}
	for _, t := range doc.Tags {
		g := &docGroup{Name: t.Name, Anchor: "tag-" + anchorSafe(t.Name), Description: md(t.Description)}
		byTag[t.Name] = g
		page.Groups = append(page.Groups, g)
	}
	paths := doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, p := range keys {
		ops := paths[p].Operations()
		for _, m := range methodOrder {
			op := ops[m]
			if op == nil {
				continue
			}
			d, err := buildOp(doc, m, p, op)
			if err != nil {
				return nil, err
			}
			tag := "other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			g := byTag[tag]
			if g == nil {
				g = &docGroup{Name: tag, Anchor: "tag-" + anchorSafe(tag)}
				byTag[tag] = g
				page.Groups = append(page.Groups, g)
			}
			g.Ops = append(g.Ops, d)
		}
	}
	page.Groups = slices.DeleteFunc(page.Groups, func(g *docGroup) bool { return len(g.Ops) == 0 })

	names := make([]string, 0, len(doc.Components.Schemas))
	for n := range doc.Components.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := doc.Components.Schemas[n].Value
		if s == nil {
			continue
		}
		page.Schemas = append(page.Schemas, docSchema{
			Name:        n,
			Anchor:      "schema-" + anchorSafe(n),
			Type:        typeHTML(&openapi3.SchemaRef{Value: s}),
			Description: md(s.Description),
			Props:       props(s),
			Example:     jsonText(s.Example),
		})
	}
	return page, nil
}

func buildOp(doc *openapi3.T, method, path string, op *openapi3.Operation) (*docOp, error) {
	id := opID(method, path, op)
	d := &docOp{
		Anchor:      "op-" + anchorSafe(id),
		ID:          id,
		Method:      method,
		Path:        path,
		Summary:     op.Summary,
		Description: md(op.Description),
		Deprecated:  op.Deprecated,
		Public:      op.Security != nil && len(*op.Security) == 0,
	}
	// Parameters declared on the path item apply to each of its operations.
	params := op.Parameters
	if item := doc.Paths.Value(path); item != nil {
		params = append(slices.Clone(item.Parameters), params...)
	}
	for _, pr := range params {
		p := pr.Value
		if p == nil {
			continue
		}
		d.Params = append(d.Params, docParam{
			Name: p.Name, In: p.In, Required: p.Required,
			Type:        typeHTML(p.Schema),
			Description: md(p.Description),
			Example:     paramExample(p),
		})
	}
	var reqExamples, respExamples map[string]*openapi3.ExampleRef
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		d.Request = &docBody{Required: rb.Value.Required, Description: md(rb.Value.Description), Contents: contents(rb.Value.Content)}
		if mt := rb.Value.Content.Get("application/json"); mt != nil {
			reqExamples = mt.Examples
		}
	}
	if op.Responses != nil {
		m := op.Responses.Map()
		codes := make([]string, 0, len(m))
		for c := range m {
			codes = append(codes, c)
		}
		// "200" < "404" < "4XX" < "5XX" < "default" happens to be the
		// reading order too.
		sort.Strings(codes)
		for _, c := range codes {
			r := m[c].Value
			if r == nil {
				continue
			}
			desc := ""
			if r.Description != nil {
				desc = *r.Description
			}
			d.Responses = append(d.Responses, docResponse{Status: c, Description: md(desc), Contents: contents(r.Content)})
			if strings.HasPrefix(c, "2") {
				if mt := r.Content.Get("application/json"); mt != nil && respExamples == nil {
					respExamples = mt.Examples
				}
			}
		}
	}
	actions, err := restliActions(op)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	for _, a := range actions {
		da := docAction{
			Anchor:   d.Anchor + "-" + anchorSafe(a.name),
			Name:     a.name,
			Request:  schemaLink(a.request),
			Response: schemaLink(a.response),
		}
		if s := doc.Components.Schemas[a.request]; s != nil && s.Value != nil {
			da.RequestProps = props(s.Value)
		} else if a.request != "" {
			return nil, fmt.Errorf("%s %s: action %s names unknown schema %q", method, path, a.name, a.request)
		}
		if a.response != "" && doc.Components.Schemas[a.response] == nil {
			return nil, fmt.Errorf("%s %s: action %s names unknown schema %q", method, path, a.name, a.response)
		}
		if ex := reqExamples[a.name]; ex != nil && ex.Value != nil {
			da.RequestEx = jsonText(ex.Value.Value)
		}
		if ex := respExamples[a.name]; ex != nil && ex.Value != nil {
			da.ResultEx = jsonText(ex.Value.Value)
		}
		d.Actions = append(d.Actions, da)
	}
	return d, nil
}

// opID names an operation for its anchor: its operationId, or method and
// path for the rare operation without one.
func opID(method, path string, op *openapi3.Operation) string {
	if op.OperationID != "" {
		return op.OperationID
	}
	return strings.ToLower(method) + path
}

type restliAction struct{ name, request, response string }

// restliActions reads x-restli-actions, sorted by action name for a stable
// page (the extension is a YAML mapping, which the parser does not order).
func restliActions(op *openapi3.Operation) ([]restliAction, error) {
	raw, ok := op.Extensions[restliActionsExt]
	if !ok {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is %T, want a mapping", restliActionsExt, raw)
	}
	var out []restliAction
	for name, v := range m {
		a := restliAction{name: name}
		if spec, ok := v.(map[string]any); ok {
			a.request, _ = spec["request"].(string)
			a.response, _ = spec["response"].(string)
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func contents(c openapi3.Content) []docContent {
	types := make([]string, 0, len(c))
	for t := range c {
		types = append(types, t)
	}
	sort.Strings(types)
	var out []docContent
	for _, t := range types {
		mt := c[t]
		dc := docContent{MediaType: t, Schema: typeHTML(mt.Schema)}
		if mt.Schema != nil && mt.Schema.Value != nil {
			dc.Props = props(mt.Schema.Value)
		}
		names := make([]string, 0, len(mt.Examples))
		for n := range mt.Examples {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if ex := mt.Examples[n].Value; ex != nil {
				dc.Examples = append(dc.Examples, docExample{Name: n, Summary: ex.Summary, JSON: jsonText(ex.Value)})
			}
		}
		if mt.Example != nil {
			dc.Examples = append(dc.Examples, docExample{Name: "example", JSON: jsonText(mt.Example)})
		}
		// Fall back on the schema's own example so most bodies show one.
		if len(dc.Examples) == 0 && mt.Schema != nil && mt.Schema.Value != nil && mt.Schema.Value.Example != nil {
			dc.Examples = append(dc.Examples, docExample{Name: "example", Summary: "from the schema", JSON: jsonText(mt.Schema.Value.Example)})
		}
		out = append(out, dc)
	}
	return out
}

// props lists an object schema's properties (those of allOf members too),
// required ones first.
func props(s *openapi3.Schema) []docProp {
	required := map[string]bool{}
	all := openapi3.Schemas{}
	var collect func(s *openapi3.Schema, depth int)
	collect = func(s *openapi3.Schema, depth int) {
		if s == nil || depth > 8 {
			return
		}
		for _, r := range s.Required {
			required[r] = true
		}
		for n, p := range s.Properties {
			all[n] = p
		}
		for _, sub := range s.AllOf {
			collect(sub.Value, depth+1)
		}
	}
	collect(s, 0)
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	out := make([]docProp, 0, len(names))
	for _, n := range names {
		p := all[n]
		desc := ""
		if p.Value != nil {
			desc = p.Value.Description
		}
		out = append(out, docProp{Name: n, Type: typeHTML(p), Required: required[n], Description: md(desc)})
	}
	return out
}

func paramExample(p *openapi3.Parameter) string {
	if p.Example != nil {
		return exampleText(p.Example)
	}
	if p.Schema != nil && p.Schema.Value != nil && p.Schema.Value.Example != nil {
		return exampleText(p.Schema.Value.Example)
	}
	return ""
}

// exampleText shows strings bare (as they appear in a URL or header) and
// anything else as JSON.
func exampleText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonText(v)
}

func jsonText(v any) string {
	if v == nil {
		return ""
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// URNs and HTML snippets read better unescaped; html/template escapes
	// the text when it is put into the page.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(buf.String(), "\n")
}

func schemaName(ref string) string {
	return strings.TrimPrefix(ref, "#/components/schemas/")
}

func schemaLink(name string) template.HTML {
	if name == "" {
		return ""
	}
	return template.HTML(`<a href="#schema-` + html.EscapeString(anchorSafe(name)) + `"><code>` + html.EscapeString(name) + `</code></a>`)
}

// typeHTML summarizes a schema in one line: a named schema as a link to its
// section, otherwise its structure (array of X, map of X, one of A | B).
func typeHTML(r *openapi3.SchemaRef) template.HTML {
	return template.HTML(typeString(r, 0))
}

func typeString(r *openapi3.SchemaRef, depth int) string {
	if r == nil {
		return "any"
	}
	if r.Ref != "" && strings.HasPrefix(r.Ref, "#/components/schemas/") {
		return string(schemaLink(schemaName(r.Ref)))
	}
	s := r.Value
	if s == nil || depth > 6 {
		return "any"
	}
	join := func(rs openapi3.SchemaRefs, sep string) string {
		parts := make([]string, len(rs))
		for i, x := range rs {
			parts[i] = typeString(x, depth+1)
		}
		return strings.Join(parts, sep)
	}
	switch {
	case len(s.AnyOf) > 0:
		return "one of " + join(s.AnyOf, " | ")
	case len(s.OneOf) > 0:
		return "one of " + join(s.OneOf, " | ")
	case len(s.AllOf) > 0:
		return "all of " + join(s.AllOf, " &amp; ")
	}
	var t string
	switch {
	case s.Type.Is("array"):
		t = "array of " + typeString(s.Items, depth+1)
	case s.AdditionalProperties.Schema != nil && len(s.Properties) == 0:
		t = "map of string → " + typeString(s.AdditionalProperties.Schema, depth+1)
	case s.Type != nil && !s.Type.IsEmpty():
		t = html.EscapeString(strings.Join(s.Type.Slice(), " | "))
	case len(s.Properties) > 0:
		t = "object"
	default:
		t = "any"
	}
	if s.Format != "" {
		t += " (" + html.EscapeString(s.Format) + ")"
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = "<code>" + html.EscapeString(fmt.Sprint(v)) + "</code>"
		}
		t += ", one of " + strings.Join(vals, ", ")
	}
	if s.Nullable {
		t += ", nullable"
	}
	return t
}

var nonAnchor = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// anchorSafe makes a fragment identifier that needs no escaping in a URL or
// a CSS selector.
func anchorSafe(s string) string {
	return strings.Trim(nonAnchor.ReplaceAllString(s, "_"), "_")
}

// md renders the small Markdown subset the spec's descriptions use —
// paragraphs, "## " headings, "* " lists, `code` and **bold** — enough to
// keep them readable without pulling in a Markdown library. All text is
// escaped first, so the result is safe HTML.
func md(s string) template.HTML {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	var out strings.Builder
	var para []string
	var items []string
	flushPara := func() {
		if len(para) > 0 {
			out.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	flushList := func() {
		if len(items) > 0 {
			out.WriteString("<ul>\n")
			for _, it := range items {
				out.WriteString("<li>" + inline(it) + "</li>\n")
			}
			out.WriteString("</ul>\n")
			items = nil
		}
	}
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flushPara()
			flushList()
		case strings.HasPrefix(trimmed, "#"):
			flushPara()
			flushList()
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			// Spec headings sit under the page's own h2/h3 sections.
			h := fmt.Sprintf("h%d", min(level+2, 6))
			out.WriteString("<" + h + ">" + inline(strings.TrimSpace(trimmed[level:])) + "</" + h + ">\n")
		case strings.HasPrefix(trimmed, "* ") || strings.HasPrefix(trimmed, "- "):
			flushPara()
			items = append(items, trimmed[2:])
		case len(items) > 0 && line != trimmed:
			// An indented line continues the current list item.
			items[len(items)-1] += " " + trimmed
		default:
			flushList()
			para = append(para, trimmed)
		}
	}
	flushPara()
	flushList()
	return template.HTML(out.String())
}

// inline escapes s and renders `code` spans and **bold** outside them.
func inline(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
		case i%2 == 1:
			// An unmatched backtick is shown as it is.
			b.WriteString("`" + bold(html.EscapeString(p)))
		default:
			b.WriteString(bold(html.EscapeString(p)))
		}
	}
	return b.String()
}

var boldRE = regexp.MustCompile(`\*\*([^*]+)\*\*`)

func bold(escaped string) string { return boldRE.ReplaceAllString(escaped, "<strong>$1</strong>") }
