package registry_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/catalogd/catalogd/internal/registry"
)

func TestRemoveReference(t *testing.T) {
	const gone = "urn:li:corpuser:gone"
	tests := []struct {
		name, aspect, path, ref string
		value                   string
		want                    string // "" when the aspect must be deleted
		changed                 bool
	}{
		{
			name: "an owner entry goes whole", aspect: "ownership", path: "/owners/*/owner", ref: gone,
			value:   `{"owners":[{"owner":"urn:li:corpuser:gone","type":"DATAOWNER"},{"owner":"urn:li:corpuser:kept","type":"TECHNICAL_OWNER"}],"lastModified":{"time":1,"actor":"urn:li:corpuser:x"}}`,
			want:    `{"lastModified":{"actor":"urn:li:corpuser:x","time":1},"owners":[{"owner":"urn:li:corpuser:kept","type":"TECHNICAL_OWNER"}]}`,
			changed: true,
		},
		{
			name: "the last owner leaves an empty list", aspect: "ownership", path: "/owners/*/owner", ref: gone,
			value: `{"owners":[{"owner":"urn:li:corpuser:gone","type":"DATAOWNER"}]}`, want: `{"owners":[]}`, changed: true,
		},
		{
			name: "a URN leaves an array of URNs", aspect: "groupMembership", path: "/groups/*", ref: "urn:li:corpGroup:g1",
			value: `{"groups":["urn:li:corpGroup:g1","urn:li:corpGroup:g2"]}`, want: `{"groups":["urn:li:corpGroup:g2"]}`, changed: true,
		},
		{
			name: "an optional field is removed", aspect: "glossaryTermInfo", path: "/parentNode", ref: "urn:li:glossaryNode:n",
			value: `{"definition":"d","parentNode":"urn:li:glossaryNode:n","termSource":"INTERNAL"}`, want: `{"definition":"d","termSource":"INTERNAL"}`, changed: true,
		},
		{
			name: "a required field that is the whole aspect deletes it", aspect: "container", path: "/container", ref: "urn:li:container:c",
			value: `{"container":"urn:li:container:c"}`, changed: true,
		},
		{
			name: "an optional record whose required field held it goes", aspect: "businessAttributes", path: "/businessAttribute/businessAttributeUrn", ref: "urn:li:businessAttribute:b",
			value: `{"businessAttribute":{"businessAttributeUrn":"urn:li:businessAttribute:b"}}`, want: `{}`, changed: true,
		},
		{
			name: "nested arrays", aspect: "editableSchemaMetadata", path: "/editableSchemaFieldInfo/*/globalTags/tags/*/tag", ref: "urn:li:tag:t",
			value:   `{"editableSchemaFieldInfo":[{"fieldPath":"a","globalTags":{"tags":[{"tag":"urn:li:tag:t"},{"tag":"urn:li:tag:u"}]}},{"fieldPath":"b"}]}`,
			want:    `{"editableSchemaFieldInfo":[{"fieldPath":"a","globalTags":{"tags":[{"tag":"urn:li:tag:u"}]}},{"fieldPath":"b"}]}`,
			changed: true,
		},
		{
			name: "another URN is left alone", aspect: "ownership", path: "/owners/*/owner", ref: gone,
			value: `{"owners":[{"owner":"urn:li:corpuser:kept","type":"DATAOWNER"}]}`, want: `{"owners":[{"owner":"urn:li:corpuser:kept","type":"DATAOWNER"}]}`,
		},
		{
			name: "a path the value does not have", aspect: "glossaryTermInfo", path: "/parentNode", ref: "urn:li:glossaryNode:n",
			value: `{"definition":"d","termSource":"INTERNAL"}`, want: `{"definition":"d","termSource":"INTERNAL"}`,
		},
	}
	reg := registry.Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := json.NewDecoder(bytes.NewReader([]byte(tt.value)))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if _, err := reg.Normalize(tt.aspect, v); err != nil {
				t.Fatalf("the test's value is not valid: %v", err)
			}
			out, changed, drop, err := reg.RemoveReference(tt.aspect, v, tt.path, tt.ref)
			if err != nil {
				t.Fatalf("RemoveReference: %v", err)
			}
			if changed != tt.changed {
				t.Errorf("changed = %v, want %v", changed, tt.changed)
			}
			if tt.want == "" {
				if !drop {
					t.Errorf("the aspect is kept as %v, want it deleted", out)
				}
				return
			}
			if drop {
				t.Fatalf("the aspect is deleted, want %s", tt.want)
			}
			got, _ := json.Marshal(out)
			if string(got) != tt.want {
				t.Errorf("value = %s\nwant    %s", got, tt.want)
			}
			if _, err := reg.Normalize(tt.aspect, out); err != nil {
				t.Errorf("the value left is not valid: %v", err)
			}
		})
	}
}
