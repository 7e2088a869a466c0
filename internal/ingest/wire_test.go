package ingest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

func TestDecodeRecord(t *testing.T) {
	reg := registry.Default()
	tests := []struct {
		name    string
		in      string
		want    []string // aspect names
		wantErr string
	}{
		{"mcp value form", `{"entityType":"tag","entityUrn":"urn:li:tag:x","changeType":"UPSERT","aspectName":"tagProperties","aspect":{"value":"{\"name\":\"x\"}","contentType":"application/json"}}`, []string{"tagProperties"}, ""},
		{"mcp json form", `{"entityType":"tag","entityUrn":"urn:li:tag:x","changeType":"UPSERT","aspectName":"tagProperties","aspect":{"json":{"name":"x"}},"systemMetadata":null}`, []string{"tagProperties"}, ""},
		{"mce pegasus2avro", `{"auditHeader":null,"proposedSnapshot":{"com.linkedin.pegasus2avro.metadata.snapshot.TagSnapshot":{"urn":"urn:li:tag:x","aspects":[{"com.linkedin.pegasus2avro.tag.TagProperties":{"name":"x","description":null}},{"com.linkedin.pegasus2avro.common.Status":{"removed":false}}]}},"proposedDelta":null}`, []string{"tagProperties", "status"}, ""},
		{"mce unknown aspect", `{"proposedSnapshot":{"com.linkedin.metadata.snapshot.TagSnapshot":{"urn":"urn:li:tag:x","aspects":[{"com.linkedin.Nope":{}}]}}}`, nil, "unknown aspect record"},
		{"not json", `{`, nil, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := DecodeRecord(reg, []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.AspectName)
				if p.EntityURN != "urn:li:tag:x" || p.EntityType != "tag" || len(p.Value) == 0 {
					t.Errorf("proposal %+v", p)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("aspects %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzDecodeProposal feeds arbitrary bytes to the proposal decoder and the
// preparation step: they must never panic and must fail only with Invalid.
func FuzzDecodeProposal(f *testing.F) {
	for _, s := range []string{
		`{"entityType":"dataset","entityUrn":"urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)","changeType":"UPSERT","aspectName":"status","aspect":{"value":"{\"removed\":true}","contentType":"application/json"}}`,
		`{"entityType":"tag","entityKeyAspect":{"value":"{\"name\":\"t\"}"},"changeType":"UPSERT","aspectName":"tagProperties","aspect":{"json":{"name":"t"}}}`,
		`{"entityType":"chart","entityUrn":"urn:li:chart:(looker,1)","changeType":"DELETE","aspectName":"chartInfo"}`,
		`{}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"entityType":null,"entityUrn":"u","aspect":{"value":"","contentType":null,"json":null},"entityKeyAspect":null,"systemMetadata":{"runId":"r","n":1.5},"headers":{"a":"b"},"auditHeader":[1]}`,
		`{"aspectName":"a","aspectName":"b","aspect":{"json":{"x":[1,2]},"contentType":"application/json"},"systemMetadata":null,"headers":null}`,
		`{"aspect":{"Value":"{}"}}`, `{"aspect":{"value":"{}","value":null}}`, `{"changeType":1}`, `{"entityUrn":"\u00e9\ud83d\ude00"}`,
	} {
		f.Add([]byte(s))
	}
	s := New(registry.Default(), nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		// The fast decoder gives what encoding/json gives, or declines.
		if fast, ok := decodeProposalFast(b); ok {
			slow, err := decodeProposalSlow(b)
			if err != nil {
				t.Fatalf("fast decoder accepted %q, encoding/json: %v", b, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("decoding %q: fast %#v, encoding/json %#v", b, fast, slow)
			}
		}
		p, err := DecodeProposal(b)
		if err != nil {
			if catalog.KindOf(err) != catalog.Invalid {
				t.Fatalf("DecodeProposal error of kind %v: %v", catalog.KindOf(err), err)
			}
			return
		}
		if _, err := s.prepare(&p, 1); err != nil && catalog.KindOf(err) != catalog.Invalid {
			t.Fatalf("prepare error of kind %v: %v", catalog.KindOf(err), err)
		}
	})
}
