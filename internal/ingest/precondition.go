package ingest

import (
	"strconv"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// header returns the value of the proposal header name, matched without
// regard to case as HTTP header names are.
func header(h map[string]string, name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// checkPreconditions checks a conditional write against the aspect's state
// as the transaction sees it (s nil or not existing: no value), as DataHub's
// conditional-write validator does: a CREATE expects no value, so its
// current version is -1 and it was never modified.
func checkPreconditions(p *prepared, s *slot) error {
	exists := s != nil && s.exists && p.change != catalog.Create && p.change != catalog.CreateEntity
	if want, ok := header(p.src.Headers, catalog.HeaderIfVersionMatch); ok {
		// The latest value is numbered one past the newest kept in
		// history, as versioned reads number it.
		actual := "-1"
		if exists {
			actual = strconv.FormatInt(s.max+1, 10)
		}
		if strings.TrimSpace(want) != actual {
			return catalog.Errorf(catalog.Precondition, "aspect %s of %s: expected version %s, actual version %s", p.aspect.Name, p.urn, want, actual)
		}
	}
	var modified int64 = -1 << 63
	if exists {
		modified = s.cur.Created.Time
	}
	for _, name := range []string{catalog.HeaderIfModifiedSince, catalog.HeaderIfUnmodifiedSince} {
		v, ok := header(p.src.Headers, name)
		if !ok {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
		if err != nil {
			return catalog.Errorf(catalog.Invalid, "header %s: %q is not an instant such as 2024-01-31T12:00:00Z", name, v)
		}
		ms := at.UnixMilli()
		if name == catalog.HeaderIfModifiedSince && modified <= ms {
			return catalog.Errorf(catalog.Precondition, "aspect %s of %s: last modified %d <= %d (epoch ms)", p.aspect.Name, p.urn, modified, ms)
		}
		if name == catalog.HeaderIfUnmodifiedSince && modified > ms {
			return catalog.Errorf(catalog.Precondition, "aspect %s of %s: last modified %d > %d (epoch ms)", p.aspect.Name, p.urn, modified, ms)
		}
	}
	return nil
}
