package meili

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Attribute names of the builtin document attributes. They start with "_" or
// are "id", so they can never collide with an encoded field attribute, which
// always starts with "t_", "x_" or "w_".
const (
	attrID      = "id"       // primary key: docID(urn)
	attrURN     = "_urn"     // the URN as is: retrieved, filtered, sorted
	attrType    = "_type"    // entity type as is: retrieved
	attrTypeX   = "_typeX"   // entity type, exact-encoded: filtered
	attrRemoved = "_removed" // status.removed: filtered
	attrLoc     = "_loc"     // browse paths, exact-encoded: filtered
	attrAnc     = "_anc"     // strict ancestors of the browse paths, exact-encoded: filtered
	attrBPrefix = "_bp"      // _bp<d>: browse path prefixes of d segments, exact-encoded: faceted
)

// docID returns the Meilisearch primary key of a URN. Meilisearch ids allow
// only [a-zA-Z0-9_-] and at most 511 bytes while URNs hold ':', ',', '(' and
// can be long, so the id is the hex SHA-256 of the URN: fixed length, valid,
// and collision-free in practice. The URN itself is kept in attrURN, so the
// id never needs decoding.
func docID(urn string) string {
	sum := sha256.Sum256([]byte(urn))
	return hex.EncodeToString(sum[:])
}

// encodeName maps a search field name to a string of [A-Za-z0-9_] that is
// safe as (part of) a Meilisearch attribute name: a '.' would make Meilisearch
// read the name as a nested path, and other punctuation is not allowed
// unquoted in filter expressions. Letters and digits are kept, '_' becomes
// "__" and any other byte becomes '_' followed by two lower-case hex digits,
// so decoding is unambiguous.
func encodeName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == '_':
			b.WriteString("__")
		default:
			b.WriteByte('_')
			b.WriteString(hex.EncodeToString([]byte{c}))
		}
	}
	return b.String()
}

// decodeName inverts encodeName; ok is false for a string encodeName cannot
// have produced.
func decodeName(enc string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if c != '_' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(enc) && enc[i+1] == '_' {
			b.WriteByte('_')
			i++
			continue
		}
		if i+2 >= len(enc) || !isLowerHex(enc[i+1]) || !isLowerHex(enc[i+2]) {
			return "", false
		}
		v, _ := hex.DecodeString(enc[i+1 : i+3])
		b.WriteByte(v[0])
		i += 2
	}
	return b.String(), true
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// textAttr is the attribute holding a field's values as they are: filtered
// case-insensitively (IEQUAL), by range and by EXISTS, and read back for
// matched fields, suggestions and Go-side filtering.
func textAttr(field string) string { return "t_" + encodeName(field) }

// wordAttr is the attribute holding a text field's words as the search
// package's analyzer splits them, one string of space-separated words per
// value: the attribute free text and autocomplete search.
func wordAttr(field string) string { return "w_" + encodeName(field) }

// exactAttr is the attribute holding a string field's values exact-encoded:
// filtered by EQUAL and IN and faceted.
func exactAttr(field string) string { return "x_" + encodeName(field) }

// keyedAttr is the attribute holding a family of keyed fields (prefix.key
// for any key) as an object: for each key, "t_<key>" and "x_<key>" hold
// what textAttr and exactAttr hold for a declared field. Meilisearch reads
// the dot of "k_<prefix>.t_<key>" as a path into it, and declaring the
// object filterable makes every member filterable, keys unknown up front
// included.
func keyedAttr(prefix string) string { return "k_" + encodeName(prefix) }

// fieldOfAttr returns the field name of a t_, x_ or w_ attribute.
func fieldOfAttr(attr string) (string, bool) {
	if !strings.HasPrefix(attr, "t_") && !strings.HasPrefix(attr, "x_") && !strings.HasPrefix(attr, "w_") {
		return "", false
	}
	return decodeName(attr[2:])
}

// maxExact bounds the length of an exact-encoded value. Meilisearch truncates
// facet values longer than 468 bytes (milli's MAX_FACET_VALUE_LENGTH), which
// would make two long values that share a prefix compare equal; longer values
// are therefore replaced by a digest, which keeps EQUAL exact but cannot be
// decoded for facet counts.
const maxExact = 400

// hashedPrefix starts a digest form; '~' is always escaped by encodeExact so
// no plain encoding starts with it.
const hashedPrefix = "~h"

// encodeExact maps a string to a form that Meilisearch's facet normalization
// (trim, Unicode NFKD, lower-casing; milli's normalize_facet) leaves
// unchanged, so that filtering on the encoded value is exact and
// case-sensitive although Meilisearch's '=' is case-insensitive. Printable
// ASCII other than upper-case letters, space and the escape characters '%'
// and '~' is kept; every other byte becomes '%' and two lower-case hex
// digits. Typical values (lower-case URNs, platform names) stay readable and
// short.
func encodeExact(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > ' ' && c < 0x7f && !(c >= 'A' && c <= 'Z') && c != '%' && c != '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteString(hex.EncodeToString([]byte{c}))
	}
	if b.Len() > maxExact {
		sum := sha256.Sum256([]byte(s))
		return hashedPrefix + hex.EncodeToString(sum[:])
	}
	return b.String()
}

// decodeExact inverts encodeExact; ok is false for digests and malformed
// input.
func decodeExact(enc string) (string, bool) {
	if strings.HasPrefix(enc, hashedPrefix) {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(enc) || !isLowerHex(enc[i+1]) || !isLowerHex(enc[i+2]) {
			return "", false
		}
		v, _ := hex.DecodeString(enc[i+1 : i+3])
		b.WriteByte(v[0])
		i += 2
	}
	return b.String(), true
}
