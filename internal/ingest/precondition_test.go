package ingest

import (
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

func TestCheckPreconditions(t *testing.T) {
	stored := &slot{cur: catalog.Aspect{Created: catalog.AuditStamp{Time: 1_700_000_000_000}}, max: 2, exists: true}
	tests := []struct {
		name    string
		change  catalog.ChangeType
		slot    *slot
		headers map[string]string
		want    catalog.Kind // 0 (Internal): no error
	}{
		{"version matches", catalog.Upsert, stored, map[string]string{"If-Version-Match": "3"}, 0},
		{"header names are not case-sensitive", catalog.Upsert, stored, map[string]string{"if-version-match": "3"}, 0},
		{"stale version", catalog.Upsert, stored, map[string]string{"If-Version-Match": "2"}, catalog.Precondition},
		{"no value is version -1", catalog.Upsert, nil, map[string]string{"If-Version-Match": "-1"}, 0},
		{"a create expects no value", catalog.Create, stored, map[string]string{"If-Version-Match": "-1"}, 0},
		{"modified since before the write", catalog.Upsert, stored, map[string]string{"If-Modified-Since": "2023-11-14T22:13:19Z"}, 0},
		{"not modified since the write", catalog.Upsert, stored, map[string]string{"If-Modified-Since": "2023-11-14T22:13:20Z"}, catalog.Precondition},
		{"unmodified since the write", catalog.Upsert, stored, map[string]string{"If-Unmodified-Since": "2023-11-14T22:13:20Z"}, 0},
		{"modified after the instant", catalog.Upsert, stored, map[string]string{"If-Unmodified-Since": "2023-11-14T22:13:19.999Z"}, catalog.Precondition},
		{"never modified is before any instant", catalog.Upsert, nil, map[string]string{"If-Modified-Since": "1970-01-01T00:00:00Z"}, catalog.Precondition},
		{"not an instant", catalog.Upsert, stored, map[string]string{"If-Modified-Since": "Tue, 14 Nov 2023 22:13:20 GMT"}, catalog.Invalid},
		{"other headers are no condition", catalog.Upsert, stored, map[string]string{"X-Trace": "1"}, 0},
	}
	for _, tc := range tests {
		p := &prepared{src: &catalog.Proposal{Headers: tc.headers}, change: tc.change, urn: "urn:li:tag:t", aspect: &catalog.AspectSpec{Name: "tagProperties"}}
		err := checkPreconditions(p, tc.slot)
		if tc.want == 0 {
			if err != nil {
				t.Errorf("%s: %v, want no error", tc.name, err)
			}
			continue
		}
		if err == nil || catalog.KindOf(err) != tc.want {
			t.Errorf("%s: error %v, want kind %s", tc.name, err, tc.want)
		}
	}
}
