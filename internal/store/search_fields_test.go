package store

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestFieldListsEncode holds the stored fields' JSON to what encoding/json
// makes of the same map (without HTML escaping), whatever the values hold.
func TestFieldListsEncode(t *testing.T) {
	tests := []struct {
		name string
		add  [][2]string // name, value, names ascending
	}{
		{"empty", nil},
		{"one", [][2]string{{"name", "orders"}}},
		{"repeats and several names", [][2]string{{"description", "a"}, {"description", "b"}, {"name", "x"}, {"tags", "urn:li:tag:t"}}},
		{"escapes", [][2]string{{"d\"q", "line\nbreak \\ \"quoted\" <b>&</b> \u2028 \x01"}, {"e", "é😀"}}},
		{"invalid UTF-8", [][2]string{{"f", "ok \xff\xfe end"}}},
		{"empty strings", [][2]string{{"", ""}, {"a", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l fieldLists
			m := map[string][]string{}
			for _, nv := range tt.add {
				l.add(nv[0], nv[1])
				m[nv[0]] = append(m[nv[0]], nv[1])
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(m); err != nil {
				t.Fatal(err)
			}
			if got := l.encode(); got != string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
				t.Errorf("encode() = %s\nencoding/json gives %s", got, want.Bytes())
			}
		})
	}
}
