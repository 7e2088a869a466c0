package timeline

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Path is the prefix of the timeline endpoint; the URN follows it.
const Path = "/openapi/v2/timeline/v1/"

// Handler serves GET Path<urn>. writeError answers errors in the protocol's
// error format; authorization is the caller's business.
func (s *Service) Handler(writeError func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := parseQuery(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		txs, err := s.Timeline(r.Context(), q)
		if err != nil {
			writeError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(AppendTransactions(nil, txs, q.Raw))
	}
}

func parseQuery(r *http.Request) (Query, error) {
	raw := strings.TrimPrefix(r.URL.EscapedPath(), Path)
	s, err := url.PathUnescape(raw)
	if err != nil {
		return Query{}, catalog.Errorf(catalog.Invalid, "bad percent-encoding in URN %q", raw)
	}
	if s == "" {
		return Query{}, catalog.Errorf(catalog.Invalid, "URN missing from path")
	}
	u, err := catalog.ParseURN(s)
	if err != nil {
		return Query{}, err
	}
	q := Query{URN: u, Start: -1}
	vals := r.URL.Query()
	for _, v := range vals["categories"] {
		for _, name := range strings.Split(v, ",") {
			if name == "" {
				continue
			}
			c, err := ParseCategory(name)
			if err != nil {
				return Query{}, err
			}
			q.Categories = append(q.Categories, c)
		}
	}
	if len(q.Categories) == 0 {
		return Query{}, catalog.Errorf(catalog.Invalid, "query parameter categories is required")
	}
	for name, dst := range map[string]*int64{"startTime": &q.Start, "endTime": &q.End} {
		if v := vals.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return Query{}, catalog.Errorf(catalog.Invalid, "query parameter %s must be an integer (epoch ms), not %q", name, v)
			}
			*dst = n
		}
	}
	if v := vals.Get("raw"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Query{}, catalog.Errorf(catalog.Invalid, "query parameter raw must be true or false, not %q", v)
		}
		q.Raw = b
	}
	return q, nil
}
