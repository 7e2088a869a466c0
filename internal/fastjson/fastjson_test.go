package fastjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// slowDecode is what fastjson.Decode must agree with: encoding/json with
// UseNumber, one value and nothing but whitespace after it.
func slowDecode(data []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	rest := data[d.InputOffset():]
	if len(bytes.Trim(rest, " \t\r\n")) != 0 {
		return nil, false
	}
	return v, true
}

func slowCanonical(v any) ([]byte, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, false
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), true
}

var seeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e10`, `-12.5E-3`, `"x"`, ` {"a" : [1, 2, {"b": null}] } `,
	`{"a":1,"a":2}`, `"\u00e9\n\t\\\"\/"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`, "\"\xff\"", "\"\u2028<>&\"",
	`{"proposals":[{"entityType":"dataset","aspect":{"value":"{\"removed\":false}","contentType":"application/json"}}],"async":"false"}`,
	`01`, `1.`, `-`, `1e`, `[1,]`, `{"a":1,}`, `{"a"}`, `"\x"`, "\"\x01\"", `[1] x`, `{}]`, `tru`, `nul`, `"abc`, `[`, ``, ` `,
	`{"b":"\u0000","a":"\u001f\u007f"}`, `[[[[[[[[[[]]]]]]]]]]`, `{"k\"ey":"v"}`, `1234567890123456789012345678901234567890`,
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := Decode(data)
		want, wantOK := slowDecode(data)
		owned := bytes.Clone(data)
		if shared, sharedOK := DecodeShared(owned); sharedOK != ok || !reflect.DeepEqual(shared, got) {
			t.Fatalf("DecodeShared(%q) = %#v (ok %v), Decode %#v (ok %v)", data, shared, sharedOK, got, ok)
		}
		if ok {
			if !wantOK {
				t.Fatalf("Decode(%q) accepted what encoding/json refuses", data)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Decode(%q) = %#v, encoding/json %#v", data, got, want)
			}
		}
		if ok != Valid(data) {
			t.Fatalf("Valid(%q) = %v, Decode ok %v", data, !ok, ok)
		}
		if compact, cok := AppendCompact([]byte("x"), data); cok {
			var want bytes.Buffer
			if err := json.Compact(&want, data); err != nil || "x"+want.String() != string(compact) {
				t.Fatalf("AppendCompact(%q) = %q, json.Compact %q (%v)", data, compact[1:], want.Bytes(), err)
			}
		} else if ok {
			t.Fatalf("AppendCompact(%q) refused what Decode accepts", data)
		}
		if !wantOK {
			return
		}
		// Canonical encoding of what was decoded.
		enc, ok := AppendCanonical(nil, want)
		wantEnc, wantOK := slowCanonical(want)
		if ok && (!wantOK || !bytes.Equal(enc, wantEnc)) {
			t.Fatalf("AppendCanonical(%#v) = %s, encoding/json %s (ok %v)", want, enc, wantEnc, wantOK)
		}
		if !ok && wantOK {
			t.Fatalf("AppendCanonical(%#v) refused what encoding/json encodes", want)
		}
		// Members and elements, as json.RawMessage decoding splits them.
		var members map[string]json.RawMessage
		if json.Unmarshal(data, &members) == nil && members != nil {
			got := map[string]json.RawMessage{}
			if Object(data, func(k string, raw []byte) bool { got[k] = raw; return true }) {
				if !reflect.DeepEqual(got, members) {
					t.Fatalf("Object(%q) = %q, encoding/json %q", data, got, members)
				}
			}
		}
		var elems []json.RawMessage
		if json.Unmarshal(data, &elems) == nil && elems != nil {
			got := []json.RawMessage{}
			if Array(data, func(raw []byte) bool { got = append(got, raw); return true }) {
				if !reflect.DeepEqual(got, elems) {
					t.Fatalf("Array(%q) = %q, encoding/json %q", data, got, elems)
				}
			}
		}
		if s, isStr := want.(string); isStr {
			raw := bytes.Trim(data, " \t\r\n")
			if got, ok := String(raw); ok && got != s {
				t.Fatalf("String(%q) = %q, want %q", raw, got, s)
			}
			if got, ok := StringBytes(raw); ok && string(got) != s {
				t.Fatalf("StringBytes(%q) = %q, want %q", raw, got, s)
			}
		}
	})
}

// TestDecodeSharedAliases checks that DecodeShared's unescaped strings and
// numbers are data's own bytes and escaped ones copies, so that the caller's
// promise not to change data is what keeps them intact.
func TestDecodeSharedAliases(t *testing.T) {
	data := []byte(`{"plain":"abc","esc":"a\nb","n":12.5}`)
	v, ok := DecodeShared(data)
	if !ok {
		t.Fatalf("DecodeShared(%s) failed", data)
	}
	m := v.(map[string]any)
	plain, esc, n := m["plain"], m["esc"], m["n"]
	for i := range data {
		data[i] = 'x'
	}
	for k := range m {
		if strings.Trim(k, "x") != "" {
			t.Errorf("key %q after data changed; want it to share data", k)
		}
	}
	if plain != "xxx" || n != json.Number("xxxx") {
		t.Errorf("unescaped string and number = %q, %q after data changed; want them to share data", plain, n)
	}
	if esc != "a\nb" {
		t.Errorf("escaped string = %q after data changed; want a copy, %q", esc, "a\nb")
	}
}

// FuzzCanonicalStrings checks string escaping on arbitrary (also invalid
// UTF-8) Go strings, which decoding never produces but Go callers can.
func FuzzCanonicalStrings(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "\xff\xfe", "\u2028\u2029", "<>&", "é😀", "\b\f\n\r\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := map[string]any{s: []any{s, json.Number("1"), int64(-3), 2.5, true, nil}}
		got, ok := AppendCanonical(nil, v)
		want, wantOK := slowCanonical(v)
		if ok != wantOK || !bytes.Equal(got, want) {
			t.Fatalf("AppendCanonical(%q) = %s %v, encoding/json %s %v", s, got, ok, want, wantOK)
		}
	})
}

func TestDecodeTable(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want any
	}{
		{`{"a":[1,"x",true,null]}`, true, map[string]any{"a": []any{json.Number("1"), "x", true, nil}}},
		{` "caf\u00e9" `, true, "café"},
		{`{"a":1,"a":2}`, true, map[string]any{"a": json.Number("2")}},
		{`"\ud83d\ude00"`, false, nil}, // surrogates: left to encoding/json
		{"\"\xff\"", false, nil},       // invalid UTF-8: left to encoding/json
		{`{}]`, false, nil},
		{`01`, false, nil},
		{strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), false, nil},
	}
	for _, tt := range tests {
		got, ok := Decode([]byte(tt.in))
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("Decode(%s) = %#v, %v; want %#v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	for _, s := range seeds {
		got, ok := Decode([]byte(s))
		want, wantOK := slowDecode([]byte(s))
		if ok && (!wantOK || !reflect.DeepEqual(got, want)) {
			t.Errorf("Decode(%s) = %#v, encoding/json %#v %v", s, got, want, wantOK)
		}
	}
}

// TestPlainUntil checks the eight-bytes-at-a-time scan against a byte loop,
// with every byte value at every position of a block and after other
// special bytes (whose borrows must not hide it).
func TestPlainUntil(t *testing.T) {
	want := func(s []byte, i int) int {
		for ; i < len(s); i++ {
			if c := s[i]; c == '"' || c == '\\' || c < ' ' || c >= 0x80 {
				return i
			}
		}
		return i
	}
	check := func(s []byte, from int) {
		t.Helper()
		if got, w := plainUntil(s, from), want(s, from); got != w {
			t.Fatalf("plainUntil(%q, %d) = %d, want %d", s, from, got, w)
		}
		if got, w := plainUntil(string(s), from), want(s, from); got != w {
			t.Fatalf("plainUntil(string %q, %d) = %d, want %d", s, from, got, w)
		}
	}
	base := []byte("abcdefghijklmnopqrstuvwxyz0123456789")
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 20; pos++ {
			s := append([]byte(nil), base...)
			s[pos] = byte(c)
			for from := 0; from <= pos+1; from++ {
				check(s, from)
			}
			// A second special byte above the first, and one below it.
			for _, other := range []byte{'"', '\\', 0, 0x1f, 0x80, 0xff} {
				s2 := append([]byte(nil), s...)
				s2[pos+3] = other
				check(s2, 0)
				if pos > 0 {
					s3 := append([]byte(nil), s...)
					s3[pos-1] = other
					check(s3, 0)
				}
			}
		}
	}
	for n := 0; n < 20; n++ {
		check(base[:n], 0)
	}
}

// BenchmarkProposalValue runs the write path's passes over one proposal of
// a 20-field schema: the batch finds the proposal's extent, the proposal's
// aspect value is unescaped in place, then decoded (sharing its strings)
// and encoded canonically.
func BenchmarkProposalValue(b *testing.B) {
	fields := make([]any, 20)
	for f := range fields {
		fields[f] = map[string]any{"fieldPath": "column_" + strings.Repeat("x", f%5), "nativeDataType": "string",
			"description": "Column of table 12345, holding StringType values", "nullable": f%3 == 0,
			"type": map[string]any{"type": map[string]any{"com.linkedin.schema.StringType": map[string]any{}}}}
	}
	value, _ := json.Marshal(map[string]any{"schemaName": "table_12345", "platform": "urn:li:dataPlatform:hive", "fields": fields})
	prop, _ := json.Marshal(map[string]any{"entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,a.b,PROD)",
		"aspect": map[string]any{"value": string(value), "contentType": "application/json"}})
	batch := []byte(`{"proposals":[` + string(prop) + `]}`)
	b.SetBytes(int64(len(prop)))
	for b.Loop() {
		var raw []byte
		Members(batch, func(_ string, v Cursor) bool {
			return v.Array(func(e Cursor) bool {
				raw, _ = e.Raw()
				return true
			})
		})
		var s []byte
		Members(raw, func(k string, v Cursor) bool {
			if k != "aspect" {
				return true
			}
			return v.Object(func(k string, m Cursor) bool {
				if k == "value" {
					s, _ = m.StringBytes()
				}
				return true
			})
		})
		v, ok := DecodeShared(s)
		if !ok {
			b.Fatal("decode failed")
		}
		if _, ok := AppendCanonical(nil, v); !ok {
			b.Fatal("encode failed")
		}
	}
}
