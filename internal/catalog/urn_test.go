package catalog

import (
	"reflect"
	"strings"
	"testing"
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
