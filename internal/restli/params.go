package restli

import (
	"net/url"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// queryList returns the values of an array query parameter in every form
// clients send: rest.li 2.0 List(a,b), repeated a=..&a=.., or one bare value.
// It works on the raw query because list items (URNs) carry percent-encoded
// commas and parentheses that must not split the list.
func queryList(rawQuery, name string) ([]string, error) {
	var out []string
	for _, kv := range strings.Split(rawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k != name {
			if uk, err := url.QueryUnescape(k); err != nil || uk != name {
				continue
			}
		}
		if strings.HasPrefix(v, "List(") && strings.HasSuffix(v, ")") {
			inner := v[len("List(") : len(v)-1]
			if inner == "" {
				continue
			}
			for _, item := range strings.Split(inner, ",") {
				s, err := url.QueryUnescape(item)
				if err != nil {
					return nil, catalog.Errorf(catalog.Invalid, "query parameter %s: bad encoding in %q", name, item)
				}
				out = append(out, s)
			}
			continue
		}
		s, err := url.QueryUnescape(v)
		if err != nil {
			return nil, catalog.Errorf(catalog.Invalid, "query parameter %s: bad encoding in %q", name, v)
		}
		if strings.HasPrefix(s, "List(") && strings.HasSuffix(s, ")") {
			// A fully percent-encoded List(...) of simple names (aspects, types).
			for _, item := range strings.Split(s[len("List("):len(s)-1], ",") {
				if item != "" {
					out = append(out, item)
				}
			}
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// pathURN extracts the URN that follows prefix in the request's escaped path.
// Working on the escaped path keeps an encoded "/" inside the URN (an S3 key,
// say) from splitting it; partly encoded URNs decode the same way.
func pathURN(u *url.URL, prefix string) (catalog.URN, error) {
	raw := strings.TrimPrefix(u.EscapedPath(), prefix)
	s, err := url.PathUnescape(raw)
	if err != nil {
		return catalog.URN{}, catalog.Errorf(catalog.Invalid, "bad percent-encoding in URN %q", raw)
	}
	if s == "" {
		return catalog.URN{}, catalog.Errorf(catalog.Invalid, "URN missing from path")
	}
	return catalog.ParseURN(s)
}
