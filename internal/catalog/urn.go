package catalog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// URN identifies an entity: urn:li:<entityType>:<id>, where a multi-part id is
// a parenthesised tuple whose parts may themselves be URNs, e.g.
// urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123).
type URN struct {
	s          string
	entityType string
	id         string
}

const urnPrefix = "urn:li:"

// MaxURNLength is the longest URN accepted, in bytes once URL-encoded as
// DataHub measures it (java.net.URLEncoder: letters, digits, ".", "-", "*",
// "_" and the space count one byte, every other byte of the UTF-8 text three).
// DataHub exempts schemaField URNs, which embed a whole dataset URN.
const MaxURNLength = 512

// maxURNNesting bounds how deep URNs nest in key parts, so that a hostile
// URN cannot make the parser recurse without end.
const maxURNNesting = 8

// ParseURN parses s as an entity URN. It checks the shape (nested URNs in
// key parts included) and the text: valid UTF-8 without control characters,
// bidirectional formatting characters, the replacement character U+FFFD
// (what decoders leave of invalid UTF-8), DataHub's reserved delimiter ␟ or
// trailing whitespace, and no longer than MaxURNLength. Two URNs that
// print alike therefore identify the same entity. Whether the entity type
// exists and the key parts fit is the registry's business. Errors are of
// kind Invalid and quote the URN safely (escaped, truncated when long).
func ParseURN(s string) (URN, error) {
	if !strings.HasPrefix(s, urnPrefix) {
		return URN{}, Errorf(Invalid, "malformed URN %s: must start with %q", QuoteURN(s), urnPrefix)
	}
	encoded, err := checkURNText(s)
	if err != nil {
		return URN{}, Errorf(Invalid, "invalid URN %s: %v", QuoteURN(s), err)
	}
	u, err := parseShape(s, 0)
	if err != nil {
		return URN{}, Errorf(Invalid, "malformed URN %s: %v", QuoteURN(s), err)
	}
	if encoded > MaxURNLength && !strings.EqualFold(u.entityType, "schemaField") {
		return URN{}, Errorf(Invalid, "invalid URN %s: longer than %d bytes when URL-encoded (%d)", QuoteURN(s), MaxURNLength, encoded)
	}
	return u, nil
}

// parseShape checks the structure of s, a URN at the given nesting depth.
func parseShape(s string, depth int) (URN, error) {
	if !strings.HasPrefix(s, urnPrefix) {
		return URN{}, errorString("must start with " + urnPrefix)
	}
	rest := s[len(urnPrefix):]
	i := strings.IndexByte(rest, ':')
	if i <= 0 {
		return URN{}, errorString("missing entity type")
	}
	u := URN{s: s, entityType: rest[:i], id: rest[i+1:]}
	if u.id == "" {
		return URN{}, errorString("empty id")
	}
	if strings.ContainsAny(u.entityType, "(),/ ") {
		return URN{}, fmt.Errorf("bad entity type %q", u.entityType)
	}
	if u.id[0] == '(' {
		if err := checkTuple(u.id, depth); err != nil {
			return URN{}, err
		}
	}
	return u, nil
}

// checkTuple checks "(a,b,(c,d))" as splitTuple splits it, without
// allocating: balanced parentheses, no empty part, and every part that is a
// URN well formed.
func checkTuple(s string, depth int) error {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return errorString("unbalanced parentheses")
	}
	inner := s[1 : len(s)-1]
	level, start := 0, 0
	for i := 0; i <= len(inner); i++ {
		if i < len(inner) {
			switch inner[i] {
			case '(':
				level++
				continue
			case ')':
				level--
				if level < 0 {
					return errorString("unbalanced parentheses")
				}
				continue
			case ',':
				if level != 0 {
					continue
				}
			default:
				continue
			}
		} else if level != 0 {
			return errorString("unbalanced parentheses")
		}
		part := inner[start:i]
		start = i + 1
		if part == "" {
			return errorString("empty tuple part")
		}
		if strings.HasPrefix(part, urnPrefix) {
			if depth+1 >= maxURNNesting {
				return fmt.Errorf("URNs nested more than %d deep", maxURNNesting)
			}
			if _, err := parseShape(part, depth+1); err != nil {
				if _, nested := err.(*keyPartError); nested {
					return err
				}
				return &keyPartError{part: part, err: err}
			}
		}
	}
	return nil
}

// keyPartError names the innermost nested URN that is malformed.
type keyPartError struct {
	part string
	err  error
}

func (e *keyPartError) Error() string { return "key part " + QuoteURN(e.part) + ": " + e.err.Error() }

// checkURNText reports the first character s may not hold, and otherwise
// returns its URL-encoded length.
func checkURNText(s string) (encoded int, err error) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c < 0x20 || c == 0x7f:
				return 0, fmt.Errorf("contains the control character %U at byte %d", rune(c), i)
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
				c == '.', c == '-', c == '*', c == '_', c == ' ':
				encoded++
			default:
				encoded += 3
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return 0, fmt.Errorf("not valid UTF-8 at byte %d", i)
		case r == utf8.RuneError:
			return 0, fmt.Errorf("contains U+FFFD at byte %d, the replacement character a decoder leaves of invalid UTF-8", i)
		case r <= 0x9f:
			return 0, fmt.Errorf("contains the control character %U at byte %d", r, i)
		case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
			return 0, fmt.Errorf("contains the bidirectional formatting character %U at byte %d", r, i)
		case r == '\u241f':
			return 0, fmt.Errorf("contains ␟ (U+241F) at byte %d, which separates browse path levels", i)
		}
		encoded += 3 * size
		i += size
	}
	if strings.HasSuffix(s, " ") {
		return 0, errorString("ends with whitespace")
	}
	return encoded, nil
}

// QuoteURN quotes s for an error message: Go-escaped (control, invalid and
// invisible characters become escapes) and cut after 100 bytes, with the
// full length said.
func QuoteURN(s string) string {
	const keep = 100
	if len(s) <= keep {
		return strconv.Quote(s)
	}
	n := keep
	for n > keep-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:n]), len(s))
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
