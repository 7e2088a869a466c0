package catalog

import "strings"

// URN identifies an entity: urn:li:<entityType>:<id>, where a multi-part id is
// a parenthesised tuple whose parts may themselves be URNs, e.g.
// urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123).
type URN struct {
	s          string
	entityType string
	id         string
}

const urnPrefix = "urn:li:"

// ParseURN parses s as an entity URN. It checks the shape only; whether the
// entity type exists and the key parts fit is the registry's business.
func ParseURN(s string) (URN, error) {
	if !strings.HasPrefix(s, urnPrefix) {
		return URN{}, Errorf(Invalid, "malformed URN %q: must start with %q", s, urnPrefix)
	}
	rest := s[len(urnPrefix):]
	i := strings.IndexByte(rest, ':')
	if i <= 0 {
		return URN{}, Errorf(Invalid, "malformed URN %q: missing entity type", s)
	}
	u := URN{s: s, entityType: rest[:i], id: rest[i+1:]}
	if u.id == "" {
		return URN{}, Errorf(Invalid, "malformed URN %q: empty id", s)
	}
	if strings.ContainsAny(u.entityType, "(),/ ") {
		return URN{}, Errorf(Invalid, "malformed URN %q: bad entity type %q", s, u.entityType)
	}
	if u.id[0] == '(' {
		if _, err := splitTuple(u.id); err != nil {
			return URN{}, Errorf(Invalid, "malformed URN %q: %v", s, err)
		}
	}
	return u, nil
}

// String returns the URN as text.
func (u URN) String() string { return u.s }

// IsZero reports whether u is the zero URN.
func (u URN) IsZero() bool { return u.s == "" }

// EntityType returns the entity type named in the URN, e.g. "dataset".
func (u URN) EntityType() string { return u.entityType }

// ID returns everything after urn:li:<entityType>:.
func (u URN) ID() string { return u.id }

// Parts returns the key parts: the tuple elements when the id is a
// parenthesised tuple, otherwise the id alone.
func (u URN) Parts() []string {
	if len(u.id) > 0 && u.id[0] == '(' {
		parts, err := splitTuple(u.id)
		if err == nil {
			return parts
		}
	}
	return []string{u.id}
}

// NewURN builds urn:li:<entityType>:<id> from key parts, as a tuple when there
// are several.
func NewURN(entityType string, parts ...string) string {
	if len(parts) == 1 {
		return urnPrefix + entityType + ":" + parts[0]
	}
	return urnPrefix + entityType + ":(" + strings.Join(parts, ",") + ")"
}

// splitTuple splits "(a,b,(c,d))" on its top-level commas.
func splitTuple(s string) ([]string, error) {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, errorString("unbalanced parentheses")
	}
	inner := s[1 : len(s)-1]
	// There are at most as many parts as commas plus one: one allocation
	// instead of one per doubling.
	parts := make([]string, 0, 1+strings.Count(inner, ","))
	depth, start := 0, 0
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return nil, errorString("unbalanced parentheses")
			}
		case ',':
			if depth == 0 {
				parts = append(parts, inner[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, errorString("unbalanced parentheses")
	}
	parts = append(parts, inner[start:])
	for _, p := range parts {
		if p == "" {
			return nil, errorString("empty tuple part")
		}
	}
	return parts, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }
