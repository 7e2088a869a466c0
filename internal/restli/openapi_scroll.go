package restli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/search"
)

// Scrolls list the entities of some types in URN order, a page at a time;
// the scrollId of a page names the last URN it holds, so the next page
// starts right after it whatever was written in between, and each page
// costs the same however deep into the listing it is. Without a query
// (or with "*") the URNs come from the store, by key; with one, from the
// search engine (at most its result window of 10,000 matches).

// scrollParams are the paging parameters of a scroll.
type scrollParams struct {
	query       string
	count       int
	after       string // the last URN of the previous page
	desc        bool
	softDeleted bool // include soft-deleted entities
}

// scrollCursor is what a scrollId holds.
type scrollCursor struct {
	After string `json:"after"`
}

func encodeScrollID(after string) string {
	b, _ := json.Marshal(scrollCursor{After: after})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeScrollID(id string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(id, "="))
	var c scrollCursor
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.After == "" {
		return "", catalog.Errorf(catalog.Invalid, "malformed scrollId %q: pass the scrollId of the previous page unchanged", id)
	}
	return c.After, nil
}

// parseScroll reads the scroll parameters DataHub's scroll endpoints take:
// count, query, scrollId, sort / sortCriteria (urn is the only sort key),
// sortOrder and includeSoftDelete; skipCache and pitKeepAlive concern
// Elasticsearch and are accepted without effect.
func parseScroll(r *http.Request) (scrollParams, error) {
	q := r.URL.Query()
	p := scrollParams{query: strings.TrimSpace(q.Get("query")), count: defaultScrollCount}
	if v := q.Get("count"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, catalog.Errorf(catalog.Invalid, "query parameter count must be a non-negative integer, got %q", v)
		}
		p.count = min(n, maxScrollCount)
	}
	if v := q.Get("scrollId"); v != "" {
		after, err := decodeScrollID(v)
		if err != nil {
			return p, err
		}
		p.after = after
	}
	for _, name := range []string{"sort", "sortCriteria"} {
		for _, v := range q[name] {
			for _, f := range strings.Split(v, ",") {
				if f = strings.TrimSpace(f); f != "" && f != "urn" {
					return p, catalog.Errorf(catalog.Invalid, "query parameter %s: cannot sort by %q; scrolls are sorted by urn", name, f)
				}
			}
		}
	}
	switch o := strings.ToUpper(q.Get("sortOrder")); o {
	case "", "ASCENDING":
	case "DESCENDING":
		p.desc = true
	default:
		return p, catalog.Errorf(catalog.Invalid, "query parameter sortOrder must be ASCENDING or DESCENDING, got %q", q.Get("sortOrder"))
	}
	var err error
	if p.softDeleted, err = boolQuery(q, "includeSoftDelete", false); err != nil {
		return p, err
	}
	for _, name := range []string{"skipCache", "systemMetadata"} {
		if _, err := boolQuery(q, name, false); err != nil {
			return p, err
		}
	}
	return p, nil
}

// scrollURNs returns one page of the URNs of ents and the scrollId of the
// next page ("" after the last one), refused when actor may not view one
// of them.
func (o *openAPI) scrollURNs(ctx context.Context, actor string, ents []*catalog.EntitySpec, p scrollParams) ([]string, string, error) {
	if p.count == 0 {
		return nil, "", nil
	}
	var urns []string
	var err error
	if p.query == "" || p.query == "*" {
		urns, err = o.storePage(ctx, ents, p)
	} else {
		urns, err = o.searchPage(ctx, ents, p)
	}
	if err != nil {
		return nil, "", err
	}
	// One URN more than the page is read to tell whether another page follows.
	next := ""
	if len(urns) > p.count {
		urns = urns[:p.count]
		next = encodeScrollID(urns[len(urns)-1])
	}
	if err := o.canView(ctx, actor, urns); err != nil {
		return nil, "", err
	}
	return urns, next, nil
}

// storePage reads up to count+1 URNs after p.after from the key aspects of
// ents, leaving out soft-deleted entities unless asked to keep them.
func (o *openAPI) storePage(ctx context.Context, ents []*catalog.EntitySpec, p scrollParams) ([]string, error) {
	want := p.count + 1
	after := p.after
	var out []string
	for len(out) < want {
		batch := want - len(out)
		keys, err := o.nextKeys(ctx, ents, after, p.desc, batch)
		if err != nil {
			return nil, err
		}
		read := len(keys)
		if read == 0 {
			break
		}
		after = keys[read-1]
		if !p.softDeleted {
			if keys, err = o.dropRemoved(ctx, keys); err != nil {
				return nil, err
			}
		}
		out = append(out, keys...)
		if read < batch {
			break // no more keys
		}
	}
	return out, nil
}

// nextKeys returns up to limit URNs of ents after the URN after, in order:
// each type's key aspects are read by key range and the lists merged.
func (o *openAPI) nextKeys(ctx context.Context, ents []*catalog.EntitySpec, after string, desc bool, limit int) ([]string, error) {
	var all []string
	for _, ent := range ents {
		rows, err := o.h.store.ScanLatest(ctx, catalog.ScanQuery{
			URNLike: "urn:li:" + likeEscape(ent.Name) + ":%", Aspect: ent.KeyAspect,
			After: after, Descending: desc, Limit: limit, KeysOnly: true,
		})
		if err != nil {
			return nil, err
		}
		for _, a := range rows {
			all = append(all, a.URN)
		}
	}
	if len(ents) > 1 {
		slices.Sort(all)
		if desc {
			slices.Reverse(all)
		}
	}
	if len(all) > limit {
		all = all[:limit]
	}
	return all, nil
}

// likeEscape escapes the LIKE wildcards of s (with '\' as escape character).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// dropRemoved leaves out the URNs whose status says they are soft-deleted.
func (o *openAPI) dropRemoved(ctx context.Context, urns []string) ([]string, error) {
	stored, err := o.h.store.LatestAspects(ctx, urns, []string{"status"})
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 {
		return urns, nil
	}
	return slices.DeleteFunc(urns, func(u string) bool { return isRemoved(stored[u]) }), nil
}

// isRemoved reports a status aspect among as that says removed.
func isRemoved(as []catalog.Aspect) bool {
	for _, a := range as {
		if a.Name != "status" {
			continue
		}
		var st struct {
			Removed bool `json:"removed"`
		}
		if json.Unmarshal(a.Value, &st) == nil && st.Removed {
			return true
		}
	}
	return false
}

// searchPage reads up to count+1 URNs after p.after among the search
// engine's matches of p.query.
func (o *openAPI) searchPage(ctx context.Context, ents []*catalog.EntitySpec, p scrollParams) ([]string, error) {
	if o.search == nil {
		return nil, catalog.Errorf(catalog.Invalid, "query %q: this server scrolls without a query only (query=*)", p.query)
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	sp := search.SearchParams{Entities: names, Input: p.query, Count: search.MaxPageSize}
	if p.softDeleted {
		sp.Filter = &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{
			{Field: search.FieldRemoved, Values: []string{"true", "false"}, Condition: "IN"},
		}}}}
	}
	res, err := o.search.Search(ctx, sp)
	if err != nil {
		return nil, err
	}
	urns := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		urns = append(urns, h.URN)
	}
	slices.Sort(urns)
	urns = slices.Compact(urns)
	if p.desc {
		slices.Reverse(urns)
	}
	if p.after != "" {
		i, _ := slices.BinarySearchFunc(urns, p.after, func(u, after string) int {
			if p.desc {
				return strings.Compare(after, u)
			}
			return strings.Compare(u, after)
		})
		for i < len(urns) && urns[i] == p.after {
			i++
		}
		urns = urns[i:]
	}
	return urns[:min(len(urns), p.count+1)], nil
}

// writeScroll answers a page: {"scrollId", "entities"} in v3 and
// {"scrollId", "results"} in v2; scrollId is left out after the last page.
func writeScroll(w http.ResponseWriter, r *http.Request, ver apiVersion, next string, es []entityOut) {
	b := []byte{'{'}
	if next != "" {
		b = append(b, `"scrollId":`...)
		b = fastjson.AppendString(b, next)
		b = append(b, ',')
	}
	if ver == v3 {
		b = append(b, `"entities":`...)
	} else {
		b = append(b, `"results":`...)
	}
	b, err := appendEntities(b, es, ver)
	writeBody(w, r, http.StatusOK, append(b, '}'), err)
}
