package meili

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/meilisearch/meilisearch-go"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/search"
)

// DefaultIndex is the index uid used unless WithIndex says otherwise.
const DefaultIndex = "catalogd_entities"

// Engine is a catalog.SearchIndex over one Meilisearch index. It is safe for
// concurrent use.
type Engine struct {
	client meilisearch.ServiceManager
	uid    string
	schema *schema
	opts   options

	// searchFields are the queryByDefault fields, most boosted first;
	// autoFields the autocomplete fields, likewise.
	searchFields []string
	autoFields   []string

	mu      sync.Mutex
	pending []int64 // enqueued task uids not yet waited for
}

var _ catalog.SearchIndex = (*Engine)(nil)

type options struct {
	uid            string
	wait           bool
	typos          bool
	maxTotalHits   int64
	maxFacetValues int64
	maxDepth       int
	scanLimit      int
	batch          int
	poll           time.Duration
	client         []meilisearch.Option
	keyed          []catalog.SearchField
}

// Option configures an Engine.
type Option func(*options)

// WithKeyedFields declares families of keyed fields: for each, a document
// field named prefix.key, for any key, is filtered like a declared field of
// the family's type (structured property values, a field per property,
// whose names no list can hold up front). Their values may be strings or
// numbers. They get no facet counts.
func WithKeyedFields(families []catalog.SearchField) Option {
	return func(o *options) { o.keyed = families }
}

// WithIndex sets the index uid (default DefaultIndex).
func WithIndex(uid string) Option { return func(o *options) { o.uid = uid } }

// WithWait makes Upsert and Delete wait until Meilisearch has applied their
// tasks. By default they return once the tasks are enqueued, which is what
// the outbox drainer wants; Flush waits on demand.
func WithWait(wait bool) Option { return func(o *options) { o.wait = wait } }

// WithTypoTolerance enables Meilisearch's typo tolerance. It is off by
// default so that free text matches the same documents as the in-store
// engines (words and word prefixes, no fuzziness).
func WithTypoTolerance(on bool) Option { return func(o *options) { o.typos = on } }

// WithMaxTotalHits sets the index's pagination.maxTotalHits (default 10000):
// the deepest reachable result and the bound of exact totals. Meilisearch
// warns that values above 20000 make queries slow.
func WithMaxTotalHits(n int) Option { return func(o *options) { o.maxTotalHits = int64(n) } }

// WithMaxFacetValues sets faceting.maxValuesPerFacet (default 1000), which
// bounds the values of one facet and the groups of one browse level.
func WithMaxFacetValues(n int) Option { return func(o *options) { o.maxFacetValues = int64(n) } }

// WithMaxBrowseDepth sets how many levels of browse paths are indexed for
// browse (default 16).
func WithMaxBrowseDepth(n int) Option { return func(o *options) { o.maxDepth = n } }

// WithClientOptions passes options to meilisearch.New (HTTP client, retries).
func WithClientOptions(opts ...meilisearch.Option) Option {
	return func(o *options) { o.client = append(o.client, opts...) }
}

// New connects to the Meilisearch server at url with the given API key
// ("" for none), creates the index if needed and applies the settings
// derived from fields, waiting until they are in force.
func New(ctx context.Context, url, key string, fields []catalog.SearchField, opts ...Option) (*Engine, error) {
	o := options{uid: DefaultIndex, maxTotalHits: 10000, maxFacetValues: 1000, maxDepth: 16,
		batch: 1000, poll: 50 * time.Millisecond}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxTotalHits < 1 || o.maxFacetValues < 1 || o.maxDepth < 1 || o.uid == "" {
		return nil, catalog.Errorf(catalog.Invalid, "meilisearch: bad engine options")
	}
	// Scans that post-filter must see every candidate; a candidate count
	// reaching maxTotalHits may have been capped.
	o.scanLimit = int(o.maxTotalHits) - 1
	copts := o.client
	if key != "" {
		copts = append([]meilisearch.Option{meilisearch.WithAPIKey(key)}, copts...)
	}
	e := &Engine{client: meilisearch.New(url, copts...), uid: o.uid, schema: newSchema(fields, o.keyed), opts: o}
	e.searchFields, e.autoFields = e.schema.rankedFields()
	if err := e.setup(ctx); err != nil {
		e.client.Close()
		return nil, err
	}
	return e, nil
}

// Close releases the HTTP client's idle connections.
func (e *Engine) Close() { e.client.Close() }

// DropIndex deletes the index and waits for the deletion; tests use it to
// clean up.
func (e *Engine) DropIndex(ctx context.Context) error {
	info, err := e.client.DeleteIndexWithContext(ctx, e.uid)
	if err != nil {
		return e.fail(ctx, "meilisearch: delete index", err)
	}
	return e.waitTask(ctx, "meilisearch: delete index", info.TaskUID, "index_not_found")
}

func (e *Engine) index() meilisearch.IndexManager { return e.client.Index(e.uid) }

func (e *Engine) setup(ctx context.Context) error {
	info, err := e.client.CreateIndexWithContext(ctx, &meilisearch.IndexConfig{Uid: e.uid, PrimaryKey: attrID})
	if err != nil {
		return e.fail(ctx, "meilisearch: create index", err)
	}
	if err := e.waitTask(ctx, "meilisearch: create index", info.TaskUID, "index_already_exists"); err != nil {
		return err
	}
	info, err = e.index().UpdateSettingsWithContext(ctx, e.settings())
	if err != nil {
		return e.fail(ctx, "meilisearch: update settings", err)
	}
	return e.waitTask(ctx, "meilisearch: update settings", info.TaskUID)
}

// rankedFields orders the text fields that free text and autocomplete
// search. Meilisearch's "attribute" ranking rule ranks a match by the
// position of its attribute in searchableAttributes, which is how the
// fields' boosts are honoured: most boosted first, then by name.
func (s *schema) rankedFields() (byDefault, auto []string) {
	var fs []*field
	for _, name := range s.names {
		if f := s.fields[name]; f.kind == kindString && (f.QueryByDefault || f.Autocomplete) {
			fs = append(fs, f)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Boost > fs[j].Boost })
	for _, f := range fs {
		if f.QueryByDefault {
			byDefault = append(byDefault, f.Name)
		}
		if f.Autocomplete {
			auto = append(auto, f.Name)
		}
	}
	return byDefault, auto
}

// searched reports whether a field gets a w_ attribute.
func (f *field) searched() bool { return f.kind == kindString && (f.QueryByDefault || f.Autocomplete) }

// searchable lists the w_ attributes: the queryByDefault fields first, then
// the autocomplete-only ones, each by boost.
func (e *Engine) searchable() []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range [][]string{e.searchFields, e.autoFields} {
		for _, name := range list {
			if !seen[name] {
				seen[name] = true
				out = append(out, wordAttr(name))
			}
		}
	}
	if len(out) == 0 {
		// An empty list would be omitted from the request and leave
		// Meilisearch's default, every attribute, in force.
		out = []string{attrURN}
	}
	return out
}

func wordAttrs(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = wordAttr(f)
	}
	return out
}

func textAttrs(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = textAttr(f)
	}
	return out
}

func (e *Engine) settings() *meilisearch.Settings {
	filterable := []string{attrURN, attrTypeX, attrRemoved, attrLoc, attrAnc}
	for d := 1; d <= e.opts.maxDepth; d++ {
		filterable = append(filterable, bpAttr(d))
	}
	for _, name := range e.schema.names {
		f := e.schema.fields[name]
		filterable = append(filterable, textAttr(name))
		if f.kind == kindString {
			filterable = append(filterable, exactAttr(name))
		}
	}
	for _, prefix := range sortedKeys(e.schema.keyed) {
		filterable = append(filterable, keyedAttr(prefix))
	}
	typo := &meilisearch.TypoTolerance{
		Enabled:             e.opts.typos,
		MinWordSizeForTypos: meilisearch.MinWordSizeForTypos{OneTypo: 5, TwoTypos: 9}, // Meilisearch's defaults
		DisableOnWords:      []string{},
		DisableOnAttributes: []string{},
	}
	return &meilisearch.Settings{
		// Meilisearch's default order, stated so that an index customized by
		// hand is brought back to what this engine expects.
		RankingRules:         []string{"words", "typo", "proximity", "attribute", "sort", "exactness"},
		SearchableAttributes: e.searchable(),
		DisplayedAttributes:  []string{"*"},
		FilterableAttributes: filterable,
		SortableAttributes:   []string{attrURN},
		TypoTolerance:        typo,
		Pagination:           &meilisearch.Pagination{MaxTotalHits: e.opts.maxTotalHits},
		Faceting: &meilisearch.Faceting{
			MaxValuesPerFacet: e.opts.maxFacetValues,
			// By count, so that a truncated distribution keeps the largest values.
			SortFacetValuesBy: map[string]meilisearch.SortFacetType{"*": meilisearch.SortFacetTypeCount},
		},
	}
}

// document renders d as a Meilisearch document.
func (e *Engine) document(d catalog.Document) map[string]any {
	doc := map[string]any{
		attrID:      docID(d.URN),
		attrURN:     d.URN,
		attrType:    d.EntityType,
		attrTypeX:   encodeExact(d.EntityType),
		attrRemoved: d.Removed,
	}
	for _, name := range e.schema.names {
		f := e.schema.fields[name]
		vals := d.Fields[name]
		if f.builtin {
			switch name {
			case "urn":
				vals = []any{d.URN}
			case "entityType", "_entityType":
				vals = []any{d.EntityType}
			case "removed":
				vals = []any{d.Removed}
			}
		}
		var raw []any
		var exact, words []string
		for _, v := range vals {
			switch f.kind {
			case kindNumber:
				if n, ok := toNumber(v); ok {
					raw = append(raw, n)
				}
			case kindBool:
				if b, ok := v.(bool); ok {
					raw = append(raw, b)
				} else if b, err := strconv.ParseBool(strings.ToLower(fmt.Sprint(v))); err == nil {
					raw = append(raw, b)
				}
			default:
				s := valueString(v)
				raw = append(raw, s)
				exact = append(exact, encodeExact(s))
				if f.searched() {
					// Meilisearch would tokenize the value its own way
					// (camelCase and '_' handling vary with its version and
					// build); feeding it the shared analyzer's words makes
					// every engine find the same documents.
					words = append(words, strings.Join(search.IndexTokens(s), " "))
				}
			}
		}
		if len(words) > 0 {
			doc[wordAttr(name)] = words
		}
		if len(raw) > 0 {
			doc[textAttr(name)] = raw
		}
		if len(exact) > 0 {
			doc[exactAttr(name)] = exact
		}
	}
	e.keyedFields(doc, d)
	locs, anc, prefixes := browseFields(d.BrowsePaths, e.opts.maxDepth)
	if len(locs) > 0 {
		doc[attrLoc] = locs
		doc[attrAnc] = anc
	}
	for depth, vals := range prefixes {
		doc[bpAttr(depth)] = vals
	}
	return doc
}

// keyedFields adds to doc the fields of d that belong to a keyed family,
// under the family's attribute (see keyedAttr): numbers as numbers, so
// that ranges compare them, and every value exact-encoded, numbers in
// their shortest form, so that EQUAL finds "90" as the in-store engines do.
func (e *Engine) keyedFields(doc map[string]any, d catalog.Document) {
	if len(e.schema.keyed) == 0 {
		return
	}
	for name, vals := range d.Fields {
		if _, declared := e.schema.fields[name]; declared {
			continue
		}
		f := e.schema.lookup(name)
		if f == nil || len(vals) == 0 {
			continue
		}
		var raw []any
		var exact []string
		for _, v := range vals {
			if _, isString := v.(string); !isString {
				if n, ok := toNumber(v); ok {
					raw = append(raw, n)
					exact = append(exact, encodeExact(formatNumber(n)))
					continue
				}
			}
			s := valueString(v)
			raw = append(raw, s)
			exact = append(exact, encodeExact(s))
		}
		attr := keyedAttr(f.prefix)
		fam, _ := doc[attr].(map[string]any)
		if fam == nil {
			fam = map[string]any{}
			doc[attr] = fam
		}
		fam["t_"+encodeName(f.key)] = raw
		fam["x_"+encodeName(f.key)] = exact
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func toNumber(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// Upsert replaces the documents of the given URNs. Documents are sent whole
// (addDocuments replaces, unlike updateDocuments which would merge and keep
// fields a newer version no longer has).
func (e *Engine) Upsert(ctx context.Context, docs []catalog.Document) error {
	for i, d := range docs {
		if d.URN == "" || d.EntityType == "" {
			return catalog.Errorf(catalog.Invalid, "search document %d has no URN or entity type", i)
		}
	}
	for start := 0; start < len(docs); start += e.opts.batch {
		end := min(start+e.opts.batch, len(docs))
		batch := make([]map[string]any, 0, end-start)
		for _, d := range docs[start:end] {
			batch = append(batch, e.document(d))
		}
		// No DocumentOptions: the index was created with its primary key,
		// and passing one makes the client mutate shared index state.
		info, err := e.index().AddDocumentsWithContext(ctx, batch, nil)
		if err != nil {
			return e.fail(ctx, "meilisearch: upsert", err)
		}
		if err := e.enqueued(ctx, "meilisearch: upsert", info.TaskUID); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes the documents of the given URNs.
func (e *Engine) Delete(ctx context.Context, urns []string) error {
	if len(urns) == 0 {
		return nil
	}
	ids := make([]string, len(urns))
	for i, u := range urns {
		ids[i] = docID(u)
	}
	info, err := e.index().DeleteDocumentsWithContext(ctx, ids, nil)
	if err != nil {
		return e.fail(ctx, "meilisearch: delete", err)
	}
	return e.enqueued(ctx, "meilisearch: delete", info.TaskUID)
}

func (e *Engine) enqueued(ctx context.Context, op string, task int64) error {
	if e.opts.wait {
		return e.waitTask(ctx, op, task)
	}
	e.mu.Lock()
	e.pending = append(e.pending, task)
	e.mu.Unlock()
	return nil
}

// Flush waits until every task this Engine enqueued has been processed, so
// that the next query sees the writes; it reports the first failed task.
func (e *Engine) Flush(ctx context.Context) error {
	e.mu.Lock()
	tasks := e.pending
	e.pending = nil
	e.mu.Unlock()
	var first error
	for i, t := range tasks {
		if err := e.waitTask(ctx, "meilisearch: flush", t); err != nil {
			if ctx.Err() != nil {
				// Keep what was not waited for, so a later Flush still sees it.
				e.mu.Lock()
				e.pending = append(tasks[i:], e.pending...)
				e.mu.Unlock()
				return err
			}
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// waitTask waits for a task and turns its failure into an error, except for
// the listed Meilisearch error codes, which the caller tolerates.
func (e *Engine) waitTask(ctx context.Context, op string, uid int64, tolerate ...string) error {
	task, err := e.client.WaitForTaskWithContext(ctx, uid, e.opts.poll)
	if err != nil {
		return e.fail(ctx, op, err)
	}
	switch task.Status {
	case meilisearch.TaskStatusSucceeded:
		return nil
	case meilisearch.TaskStatusFailed:
		for _, code := range tolerate {
			if task.Error.Code == code {
				return nil
			}
		}
		return &catalog.Error{Kind: catalog.Internal, Op: op,
			Msg: fmt.Sprintf("meilisearch task %d failed: %s (%s)", uid, task.Error.Message, task.Error.Code)}
	}
	return &catalog.Error{Kind: catalog.Internal, Op: op, Msg: fmt.Sprintf("meilisearch task %d %s", uid, task.Status)}
}

// fail classifies an error of the Meilisearch client.
func (e *Engine) fail(ctx context.Context, op string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The client's Error has no Unwrap; report the context's error so
		// that callers can recognize cancellation with errors.Is.
		return catalog.WithOp(op, ctxErr)
	}
	var me *meilisearch.Error
	if !errors.As(err, &me) {
		return catalog.WithOp(op, err)
	}
	api := me.MeilisearchApiError
	switch {
	case me.ErrCode == meilisearch.MeilisearchCommunicationError,
		me.ErrCode == meilisearch.MeilisearchTimeoutError,
		me.ErrCode == meilisearch.MeilisearchMaxRetriesExceeded,
		me.StatusCode >= 500:
		return &catalog.Error{Kind: catalog.Unavailable, Op: op, Msg: "meilisearch is unavailable", Err: err}
	case me.StatusCode == 401 || me.StatusCode == 403:
		// A configuration problem of this server, not the caller's fault.
		return &catalog.Error{Kind: catalog.Unavailable, Op: op,
			Msg: "meilisearch rejected the API key: " + api.Message, Err: err}
	case me.StatusCode == 400 && strings.HasPrefix(api.Code, "invalid_search"):
		return &catalog.Error{Kind: catalog.Invalid, Op: op, Msg: "bad search request: " + api.Message}
	}
	msg := api.Message
	if msg == "" {
		msg = "unexpected response"
	}
	return &catalog.Error{Kind: catalog.Internal, Op: op, Msg: "meilisearch: " + msg + " (" + api.Code + ")", Err: err}
}
