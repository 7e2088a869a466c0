package catalog

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestParseURN(t *testing.T) {
	tests := []struct {
		in         string
		entityType string
		parts      []string
		wantErr    string
	}{
		{in: "urn:li:corpuser:jdoe", entityType: "corpuser", parts: []string{"jdoe"}},
		{in: "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)", entityType: "dataset",
			parts: []string{"urn:li:dataPlatform:hive", "SampleHiveDataset", "PROD"}},
		{in: "urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123)", entityType: "dataJob",
			parts: []string{"urn:li:dataFlow:(airflow,dag_abc,PROD)", "task_123"}},
		{in: "urn:li:dataset:(urn:li:dataPlatform:s3,project/root/events/logging_events_bckp,PROD)", entityType: "dataset",
			parts: []string{"urn:li:dataPlatform:s3", "project/root/events/logging_events_bckp", "PROD"}},
		{in: "urn:li:tag:has:colon", entityType: "tag", parts: []string{"has:colon"}},
		{in: "dataset:x", wantErr: "must start with"},
		{in: "urn:li:", wantErr: "missing entity type"},
		{in: "urn:li:tag:", wantErr: "empty id"},
		{in: "urn:li:dataset:(a,b", wantErr: "unbalanced"},
		{in: "urn:li:dataset:(a,,b)", wantErr: "empty tuple part"},
		{in: "urn:li:data set:x", wantErr: "bad entity type"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := ParseURN(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || KindOf(err) != Invalid {
					t.Fatalf("ParseURN(%q) error = %v, want Invalid containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseURN(%q): %v", tt.in, err)
			}
			if u.String() != tt.in || u.EntityType() != tt.entityType || !reflect.DeepEqual(u.Parts(), tt.parts) {
				t.Errorf("ParseURN(%q) = %q %q %q", tt.in, u, u.EntityType(), u.Parts())
			}
			if got := NewURN(u.EntityType(), u.Parts()...); got != tt.in {
				t.Errorf("NewURN round trip = %q, want %q", got, tt.in)
			}
		})
	}
}

// TestParseURNText checks the characters and lengths ParseURN refuses: each
// would give a second entity that prints like an existing one, or a URN that
// cannot be shown or stored safely.
func TestParseURNText(t *testing.T) {
	nest := func(depth int) string {
		s := "urn:li:dataPlatform:hive"
		for range depth {
			s = "urn:li:x:(" + s + ",y)"
		}
		return s
	}
	tests := []struct {
		name, in string
		wantErr  string // "" when the URN is valid
	}{
		{"NUL", "urn:li:corpuser:datahub\x00", "control character U+0000 at byte 23"},
		{"tab", "urn:li:corpuser:data\thub", "control character U+0009"},
		{"newline", "urn:li:corpuser:datahub\n", "control character U+000A"},
		{"DEL", "urn:li:corpuser:datahub\x7f", "control character U+007F"},
		{"C1 control", "urn:li:corpuser:datahub\u0085", "control character U+0085"},
		{"right-to-left override", "urn:li:corpuser:\u202enib", "bidirectional formatting character U+202E"},
		{"left-to-right embedding", "urn:li:corpuser:\u202abob", "bidirectional formatting character U+202A"},
		{"first strong isolate", "urn:li:corpuser:bob\u2068", "bidirectional formatting character U+2068"},
		{"pop directional isolate", "urn:li:corpuser:bob\u2069", "bidirectional formatting character U+2069"},
		{"invalid UTF-8", "urn:li:corpuser:datahub\xff", "not valid UTF-8 at byte 23"},
		{"truncated UTF-8", "urn:li:corpuser:datahub\xe2\x82", "not valid UTF-8"},
		{"UTF-8 encoded surrogate", "urn:li:corpuser:datahub\xed\xa0\x80", "not valid UTF-8"},
		{"replacement character", "urn:li:corpuser:datahub\ufffd", "U+FFFD"},
		{"browse path delimiter", "urn:li:corpuser:bob\u241f", "␟"},
		{"trailing space", "urn:li:corpuser:datahub ", "ends with whitespace"},
		{"control character in a nested URN", "urn:li:dataset:(urn:li:dataPlatform:hi\x00ve,x,PROD)", "control character"},
		{"malformed nested URN", "urn:li:dataset:(urn:li:dataPlatform:,x,PROD)", `key part "urn:li:dataPlatform:": empty id`},
		{"nested URN with an unbalanced tuple", "urn:li:dataJob:(urn:li:dataFlow:(airflow,dag,x),urn:li:dataFlow:(a,b)", "unbalanced"},
		{"nesting too deep", nest(9), "nested more than 8 deep"},
		{"nesting within bounds", nest(7), ""},
		// The limit is DataHub's: 512 bytes URL-encoded, where ":" is %3A.
		{"512 bytes encoded", "urn:li:corpuser:" + strings.Repeat("a", 490), ""},
		{"513 bytes encoded", "urn:li:corpuser:" + strings.Repeat("a", 491), "longer than 512 bytes when URL-encoded (513)"},
		{"short but long once encoded", "urn:li:corpuser:" + strings.Repeat(">", 200), "longer than 512 bytes"},
		{"multi-byte characters count encoded", "urn:li:corpuser:" + strings.Repeat("é", 82), "(514)"},
		{"a megabyte", "urn:li:corpuser:" + strings.Repeat("a", 1<<20), "longer than 512 bytes"},
		{"long schemaField URNs are DataHub's exception", "urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive," + strings.Repeat("a", 600) + ",PROD),col)", ""},
		{"other non-ASCII text", "urn:li:corpuser:josé␇ünïcødé", ""},
		{"inner spaces", "urn:li:dataset:(urn:li:dataPlatform:hive,my table,PROD)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseURN(tt.in)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseURN: %v", err)
				}
				return
			}
			if err == nil || KindOf(err) != Invalid || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseURN error = %v, want Invalid containing %q", err, tt.wantErr)
			}
			// The message is safe to show: printable, valid, short.
			msg := err.Error()
			if !utf8.ValidString(msg) || len(msg) > 400 || strings.ContainsFunc(msg, func(r rune) bool {
				return !unicode.IsPrint(r) && r != ' '
			}) {
				t.Errorf("unsafe error message (%d bytes): %q", len(msg), msg)
			}
		})
	}
}

func TestQuoteURN(t *testing.T) {
	long := "urn:li:corpuser:" + strings.Repeat("é", 100)
	tests := []struct{ in, want string }{
		{"urn:li:corpuser:x\x00", `"urn:li:corpuser:x\x00"`},
		{"urn:li:corpuser:\u202ex", `"urn:li:corpuser:\u202ex"`},
		// cut on a character boundary, never inside "é"
		{long, `"urn:li:corpuser:` + strings.Repeat("é", 42) + `"… (216 bytes)`},
	}
	for _, tt := range tests {
		if got := QuoteURN(tt.in); got != tt.want {
			t.Errorf("QuoteURN(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzParseURN checks that the parser never panics and that whatever it
// accepts round-trips through NewURN.
func FuzzParseURN(f *testing.F) {
	for _, s := range []string{
		"urn:li:corpuser:jdoe",
		"urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)",
		"urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123)",
		"urn:li:x:((((", "urn:li::", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURN(s)
		if err != nil {
			if KindOf(err) != Invalid {
				t.Fatalf("ParseURN(%q) error of kind %v", s, KindOf(err))
			}
			return
		}
		if u.String() != s {
			t.Fatalf("String() = %q, want %q", u, s)
		}
		parts := u.Parts()
		if len(parts) > 1 {
			if got := NewURN(u.EntityType(), parts...); got != s {
				t.Fatalf("NewURN(%q, %q) = %q, want %q", u.EntityType(), parts, got, s)
			}
		}
	})
}

func TestErrors(t *testing.T) {
	base := Errorf(NotFound, "aspect %s of %s not found", "status", "urn:li:tag:x")
	err := WithOp("read", base)
	if KindOf(err) != NotFound || err.Error() != "read: aspect status of urn:li:tag:x not found" {
		t.Errorf("WithOp = %v (%v)", err, KindOf(err))
	}
	if Message(WithOp("write", errorString("disk on fire"))) != "internal error" {
		t.Errorf("internal causes must not reach users")
	}
}
