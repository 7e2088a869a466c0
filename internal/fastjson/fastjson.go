// Package fastjson decodes and encodes the JSON of the write path several
// times faster than encoding/json, with exactly its results: Decode gives
// what json.Decoder with UseNumber decodes into an any, AppendCanonical what
// json.Encoder with SetEscapeHTML(false) encodes. It only takes the common
// road: whenever input is malformed or unusual (invalid UTF-8, UTF-16
// surrogate escapes, a type it does not know, nesting deeper than
// maxDepth) it reports !ok and the caller uses encoding/json, which then
// also produces the error message. The fuzz tests hold it to that.
package fastjson

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"sort"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// maxDepth bounds nesting; deeper values are left to encoding/json (whose
// limit is 10,000).
const maxDepth = 512

// Decode decodes data, one JSON value with only whitespace around it, into
// map[string]any, []any, string, json.Number, bool or nil.
func Decode(data []byte) (v any, ok bool) {
	return decode(parser{data: data})
}

// DecodeShared is Decode whose strings (keys and values) share data's
// memory where data holds them unescaped, instead of each being copied:
// decoding a 20-field schema made a string for every key and value, a fifth
// of the write path's allocations. The caller must own data and never
// change it while v, or any string taken from it, is in use.
func DecodeShared(data []byte) (v any, ok bool) {
	return decode(parser{data: data, share: true})
}

func decode(p parser) (v any, ok bool) {
	data := p.data
	p.skipSpace()
	v, ok = p.value(0)
	if !ok {
		return nil, false
	}
	p.skipSpace()
	return v, p.i == len(data)
}

// Object calls fn with the key and the raw value (as json.RawMessage holds
// it: no surrounding whitespace) of each member of the JSON object data, in
// order, stopping when fn returns false. ok is false when data is not one
// well-formed object (possibly surrounded by whitespace) or fn stopped.
// Keys are decoded; raw values are validated and alias data.
func Object(data []byte, fn func(key string, raw []byte) bool) (ok bool) {
	return Members(data, func(key string, v Cursor) bool {
		raw, ok := v.Raw()
		return ok && fn(key, raw)
	})
}

// Members is Object handing fn a Cursor at each member's value instead of
// the value's bytes, so that fn can decode the value in place: Object
// first scans the value to find its end, and a caller decoding it scans it
// again. A value fn leaves unread is skipped (and validated) after it.
func Members(data []byte, fn func(key string, v Cursor) bool) (ok bool) {
	p := parser{data: data}
	p.skipSpace()
	if !p.object(0, fn) {
		return false
	}
	p.skipSpace()
	return p.i == len(data)
}

// Cursor is a position at the start of a JSON value, valid during the
// callback it is handed to. Its methods move past the value, validating
// it; at most one of them may be called.
type Cursor struct {
	p     *parser
	depth int
}

// Raw moves past the value and returns its bytes, which alias the input.
func (c Cursor) Raw() ([]byte, bool) {
	start := c.p.i
	if !c.p.skip(c.depth) {
		c.p.bad = true
		return nil, false
	}
	return c.p.data[start:c.p.i], true
}

// Null moves past the value and reports true when it is null; otherwise
// it reports false and leaves the value unread.
func (c Cursor) Null() bool {
	if c.p.i < len(c.p.data) && c.p.data[c.p.i] == 'n' {
		return c.p.literal("null")
	}
	return false
}

// String decodes a string value, as String decodes its raw form.
func (c Cursor) String() (string, bool) {
	raw, ok := c.Raw()
	if !ok {
		return "", false
	}
	str, ok := String(raw)
	c.p.bad = c.p.bad || !ok
	return str, ok
}

// StringBytes decodes a string value into bytes the caller owns, as
// StringBytes decodes its raw form.
func (c Cursor) StringBytes() ([]byte, bool) {
	raw, ok := c.Raw()
	if !ok {
		return nil, false
	}
	b, ok := StringBytes(raw)
	c.p.bad = c.p.bad || !ok
	return b, ok
}

// Object decodes an object value member by member, as Members does.
func (c Cursor) Object(fn func(key string, v Cursor) bool) bool {
	ok := c.p.object(c.depth, fn)
	c.p.bad = c.p.bad || !ok
	return ok
}

// Array decodes an array value element by element: fn gets a Cursor at
// each element and stops the walk by returning false. An element fn leaves
// unread is skipped.
func (c Cursor) Array(fn func(v Cursor) bool) bool {
	ok := c.array(fn)
	c.p.bad = c.p.bad || !ok
	return ok
}

func (c Cursor) array(fn func(v Cursor) bool) bool {
	p := c.p
	if empty, ok := p.open(c.depth, '[', ']'); empty || !ok {
		return ok
	}
	for {
		start := p.i
		if !fn(Cursor{p, c.depth + 1}) || p.bad {
			return false
		}
		if p.i == start && !p.skip(c.depth+1) {
			return false
		}
		if done, ok := p.sep(']'); done || !ok {
			return ok
		}
	}
}

// open moves past the opening bracket of an object or array at nesting
// depth, and the space after it; empty is true when the closing bracket
// follows at once (it is consumed too).
func (p *parser) open(depth int, open, close byte) (empty, ok bool) {
	if depth >= maxDepth || p.i >= len(p.data) || p.data[p.i] != open {
		return false, false
	}
	p.i++
	p.skipSpace()
	if p.i < len(p.data) && p.data[p.i] == close {
		p.i++
		return true, true
	}
	return false, true
}

// sep moves past what follows a member or an element: a comma (and the
// space after it), or the closing bracket, after which done is true. ok is
// false for anything else.
func (p *parser) sep(close byte) (done, ok bool) {
	p.skipSpace()
	if p.i >= len(p.data) {
		return false, false
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		p.skipSpace()
		return false, true
	case close:
		p.i++
		return true, true
	}
	return false, false
}

// object reads the object at p.i (at nesting depth), calling fn with a
// Cursor at each member's value and skipping what fn leaves unread.
func (p *parser) object(depth int, fn func(key string, v Cursor) bool) bool {
	if empty, ok := p.open(depth, '{', '}'); empty || !ok {
		return ok
	}
	for {
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return false
		}
		k, ok := p.str()
		if !ok {
			return false
		}
		p.skipSpace()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return false
		}
		p.i++
		p.skipSpace()
		start := p.i
		if !fn(k, Cursor{p, depth + 1}) || p.bad {
			return false
		}
		if p.i == start && !p.skip(depth+1) {
			return false
		}
		if done, ok := p.sep('}'); done || !ok {
			return ok
		}
	}
}

// Array calls fn with the raw value of each element of the JSON array data,
// like Object.
func Array(data []byte, fn func(raw []byte) bool) (ok bool) {
	p := parser{data: data}
	p.skipSpace()
	if !(Cursor{&p, 0}).array(func(e Cursor) bool {
		raw, ok := e.Raw()
		return ok && fn(raw)
	}) {
		return false
	}
	p.skipSpace()
	return p.i == len(data)
}

// String decodes raw, a JSON string literal without surrounding
// whitespace.
func String(raw []byte) (string, bool) {
	p := parser{data: raw}
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	s, ok := p.str()
	return s, ok && p.i == len(raw)
}

// StringBytes is String returning bytes the caller owns.
func StringBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	p := parser{data: raw, i: 1}
	// Never nil, as converting a string to bytes never is.
	b, ok := p.strBytes(make([]byte, 0, len(raw)-2))
	return b, ok && p.i == len(raw)
}

// Valid reports whether data is one well-formed JSON value with only
// whitespace around it, as this package reads it.
func Valid(data []byte) bool {
	p := parser{data: data}
	p.skipSpace()
	if !p.skip(1) {
		return false
	}
	p.skipSpace()
	return p.i == len(data)
}

// AppendCompact appends the JSON value data (whitespace around it allowed)
// without insignificant whitespace, as json.Compact does, and reports
// whether data is one well-formed value. A value that is compact already, as
// the store's canonical values are, is validated and copied as it is:
// encoding/json compacting each json.RawMessage of a response was a third of
// the CPU of an entitiesV2 read.
func AppendCompact(dst, data []byte) ([]byte, bool) {
	p := parser{data: data}
	p.skipSpace()
	start := p.i
	p.spaced = false
	if !p.skip(1) {
		return dst, false
	}
	end, spaced := p.i, p.spaced
	p.skipSpace()
	if p.i != len(data) {
		return dst, false
	}
	if !spaced {
		return append(dst, data[start:end]...), true
	}
	var b bytes.Buffer
	if json.Compact(&b, data[start:end]) != nil {
		return dst, false
	}
	return append(dst, b.Bytes()...), true
}

type parser struct {
	data []byte
	i    int
	// spaced records that skipSpace skipped something.
	spaced bool
	// bad records that a Cursor method failed, which fails the object or
	// array around it even if the callback carried on.
	bad bool
	// share makes str return strings that alias data (see DecodeShared).
	share bool
}

func (p *parser) skipSpace() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
			p.spaced = true
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, bool) {
	if p.i >= len(p.data) {
		return nil, false
	}
	switch c := p.data[p.i]; c {
	case '{':
		if depth >= maxDepth {
			return nil, false
		}
		p.i++
		m := make(map[string]any)
		p.skipSpace()
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return m, true
		}
		for {
			if p.i >= len(p.data) || p.data[p.i] != '"' {
				return nil, false
			}
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.skipSpace()
			if p.i >= len(p.data) || p.data[p.i] != ':' {
				return nil, false
			}
			p.i++
			p.skipSpace()
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			if done, ok := p.sep('}'); !ok {
				return nil, false
			} else if done {
				return m, true
			}
		}
	case '[':
		if depth >= maxDepth {
			return nil, false
		}
		p.i++
		a := []any{}
		p.skipSpace()
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return a, true
		}
		for {
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			if done, ok := p.sep(']'); !ok {
				return nil, false
			} else if done {
				return a, true
			}
		}
	case '"':
		return p.str()
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			start := p.i
			if !p.number() {
				return nil, false
			}
			if p.share {
				return json.Number(unsafe.String(&p.data[start], p.i-start)), true
			}
			return json.Number(p.data[start:p.i]), true
		}
		return nil, false
	}
}

// skip moves past one value, validating it.
func (p *parser) skip(depth int) bool {
	if p.i >= len(p.data) {
		return false
	}
	switch c := p.data[p.i]; c {
	case '{':
		if depth >= maxDepth {
			return false
		}
		p.i++
		p.skipSpace()
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return true
		}
		for {
			if p.i >= len(p.data) || p.data[p.i] != '"' || !p.skipString() {
				return false
			}
			p.skipSpace()
			if p.i >= len(p.data) || p.data[p.i] != ':' {
				return false
			}
			p.i++
			p.skipSpace()
			if !p.skip(depth + 1) {
				return false
			}
			if done, ok := p.sep('}'); done || !ok {
				return ok
			}
		}
	case '[':
		if depth >= maxDepth {
			return false
		}
		p.i++
		p.skipSpace()
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return true
		}
		for {
			if !p.skip(depth + 1) {
				return false
			}
			if done, ok := p.sep(']'); done || !ok {
				return ok
			}
		}
	case '"':
		return p.skipString()
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			return p.number()
		}
		return false
	}
}

func (p *parser) literal(lit string) bool {
	if len(p.data)-p.i < len(lit) || string(p.data[p.i:p.i+len(lit)]) != lit {
		return false
	}
	p.i += len(lit)
	return true
}

// number moves past a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() bool {
	d := p.data
	i := p.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	p.i = i
	return true
}

// plainUntil returns the index of the first byte of s at or after i that a
// string literal cannot hold as it is (a quote, a backslash, a control
// character) or that starts a multi-byte character, or len(s). It reads
// eight bytes at a time: the write path scans every aspect value, which
// arrives as one long escaped string, four times before decoding it.
func plainUntil[T ~string | ~[]byte](s T, i int) int {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		_ = s[i+7]
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// A byte is flagged when it is zero after XOR with a quote or a
		// backslash, below 0x20, or has its high bit set. Borrows can
		// flag bytes above a flagged one, never below it, so the lowest
		// flag is exact.
		q, bs := x^(lsb*'"'), x^(lsb*'\\')
		if m := ((q-lsb)&^q | (bs-lsb)&^bs | (x-lsb*0x20)&^x | x) & msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < ' ' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// skipString moves past a string literal starting at p.i, validating it as
// str would decode it.
func (p *parser) skipString() bool {
	d := p.data
	i := p.i + 1
	for {
		i = plainUntil(d, i)
		if i >= len(d) {
			return false
		}
		switch c := d[i]; {
		case c == '"':
			p.i = i + 1
			return true
		case c == '\\':
			n, ok := escape(d[i:], nil)
			if !ok {
				return false
			}
			i += n
		case c < ' ':
			return false
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				return false // invalid UTF-8: encoding/json replaces it
			}
			i += size
		}
	}
}

// str decodes the string literal starting at p.i.
func (p *parser) str() (string, bool) {
	d := p.data
	// Fast path: no escapes, ASCII or valid UTF-8.
	i := p.i + 1
	for {
		if i = plainUntil(d, i); i >= len(d) {
			break
		}
		c := d[i]
		if c == '"' {
			var s string
			if p.share {
				s = unsafe.String(unsafe.SliceData(d[p.i+1:]), i-p.i-1)
			} else {
				s = string(d[p.i+1 : i])
			}
			p.i = i + 1
			return s, true
		}
		if c == '\\' || c < ' ' {
			break
		}
		r, size := utf8.DecodeRune(d[i:])
		if r == utf8.RuneError && size == 1 {
			return "", false
		}
		i += size
	}
	p.i++
	b, ok := p.strBytes(make([]byte, 0, i-p.i+16))
	if !ok {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// strBytes decodes a string literal whose opening quote p.i is just past,
// appending to dst.
func (p *parser) strBytes(dst []byte) ([]byte, bool) {
	d := p.data
	i := p.i
	start := i
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			dst = append(dst, d[start:i]...)
			p.i = i + 1
			return dst, true
		case c == '\\':
			dst = append(dst, d[start:i]...)
			n, ok := escape(d[i:], &dst)
			if !ok {
				return nil, false
			}
			i += n
			start = i
		case c < ' ':
			return nil, false
		case c < utf8.RuneSelf:
			i = plainUntil(d, i+1)
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			i += size
		}
	}
	return nil, false
}

// escape reads the escape sequence at the start of s, appending what it
// stands for to *dst when dst is not nil, and returns its length.
// Surrogates (\uD800-\uDFFF) are left to encoding/json.
func escape(s []byte, dst *[]byte) (int, bool) {
	if len(s) < 2 {
		return 0, false
	}
	var b byte
	switch s[1] {
	case '"', '\\', '/':
		b = s[1]
	case 'b':
		b = '\b'
	case 'f':
		b = '\f'
	case 'n':
		b = '\n'
	case 'r':
		b = '\r'
	case 't':
		b = '\t'
	case 'u':
		if len(s) < 6 {
			return 0, false
		}
		var r rune
		for _, c := range s[2:6] {
			switch {
			case '0' <= c && c <= '9':
				c -= '0'
			case 'a' <= c && c <= 'f':
				c = c - 'a' + 10
			case 'A' <= c && c <= 'F':
				c = c - 'A' + 10
			default:
				return 0, false
			}
			r = r*16 + rune(c)
		}
		if 0xD800 <= r && r < 0xE000 {
			return 0, false
		}
		if dst != nil {
			*dst = utf8.AppendRune(*dst, r)
		}
		return 6, true
	default:
		return 0, false
	}
	if dst != nil {
		*dst = append(*dst, b)
	}
	return 2, true
}

// AppendCanonical appends the JSON encoding of v, as json.Encoder with
// SetEscapeHTML(false) writes it (object keys sorted) without the trailing
// newline. v may hold map[string]any, []any, string, json.Number, bool,
// nil, int, int64 and float64; anything else gives !ok.
func AppendCanonical(dst []byte, v any) ([]byte, bool) {
	return appendValue(dst, v, 0)
}

func appendValue(dst []byte, v any, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return dst, false
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		if x {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case string:
		return AppendString(dst, x), true
	case json.Number:
		s := string(x)
		if s == "" {
			s = "0"
		}
		p := parser{data: []byte(s)}
		if !p.number() || p.i != len(s) {
			return dst, false // encoding/json reports the invalid number
		}
		return append(dst, s...), true
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int64:
		return strconv.AppendInt(dst, x, 10), true
	case float64:
		b, err := json.Marshal(x)
		if err != nil {
			return dst, false
		}
		return append(dst, b...), true
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendValue(dst, e, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		var buf [16]string
		keys := buf[:0]
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			var ok bool
			if dst, ok = appendValue(dst, x[k], depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
	return dst, false
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string the way encoding/json does
// without HTML escaping: invalid UTF-8 becomes \ufffd, U+2028 and U+2029
// are escaped.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = plainUntil(s, i); i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
