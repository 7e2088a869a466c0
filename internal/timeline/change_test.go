package timeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)"

func decodeTest(t *testing.T, s string) any {
	t.Helper()
	if s == "" {
		return nil
	}
	v, err := decode([]byte(s))
	if err != nil {
		t.Fatalf("bad test value %s: %v", s, err)
	}
	return v
}

// line renders an event as "CATEGORY OPERATION target {params} SEMVER: description",
// target being the modifier, or the entity URN when there is none.
func line(e ChangeEvent) string {
	target := e.Modifier
	if target == "" {
		target = e.EntityURN
	} else if e.EntityURN != ds {
		target = e.EntityURN + " " + target
	}
	var ps []string
	for _, p := range e.Params {
		ps = append(ps, fmt.Sprintf("%s=%v", p.Key, p.Value))
	}
	return fmt.Sprintf("%s %s %s {%s} %s: %s", e.Category, e.Operation, target, strings.Join(ps, " "), e.SemVer, e.Description)
}

func TestChanges(t *testing.T) {
	field := func(path, typ, extra string) string {
		return `{"fieldPath":"` + path + `","nativeDataType":"` + typ + `"` + extra + `}`
	}
	schema := func(fields ...string) string { return `{"fields":[` + strings.Join(fields, ",") + `]}` }
	f := func(p string) string { return SchemaFieldURN(ds, p) }
	tests := []struct {
		name, aspect, from, to string
		want                   []string
	}{{
		name: "tags added and removed, in URN order", aspect: "globalTags",
		from: `{"tags":[{"tag":"urn:li:tag:b"},{"tag":"urn:li:tag:a"}]}`,
		to:   `{"tags":[{"tag":"urn:li:tag:c"},{"tag":"urn:li:tag:a"}]}`,
		want: []string{
			"TAG REMOVE urn:li:tag:b {tagUrn=urn:li:tag:b} MINOR: Tag 'b' removed from entity '" + ds + "'.",
			"TAG ADD urn:li:tag:c {tagUrn=urn:li:tag:c} MINOR: Tag 'c' added to entity '" + ds + "'.",
		},
	}, {
		name: "terms of a new aspect", aspect: "glossaryTerms",
		to:   `{"terms":[{"urn":"urn:li:glossaryTerm:pii"}]}`,
		want: []string{"GLOSSARY_TERM ADD urn:li:glossaryTerm:pii {termUrn=urn:li:glossaryTerm:pii} MINOR: Term 'pii' added to entity '" + ds + "'."},
	}, {
		name: "owners: type changed, removed, added", aspect: "ownership",
		from: `{"owners":[{"owner":"urn:li:corpuser:a","type":"DATAOWNER"},{"owner":"urn:li:corpuser:b","type":"DATAOWNER"}]}`,
		to:   `{"owners":[{"owner":"urn:li:corpuser:a","type":"TECHNICAL_OWNER","typeUrn":"urn:li:ownershipType:tech"},{"owner":"urn:li:corpGroup:c","type":"DATAOWNER"}]}`,
		want: []string{
			"OWNER ADD urn:li:corpGroup:c {ownerUrn=urn:li:corpGroup:c ownerType=DATAOWNER} MINOR: 'c' added as a `DATAOWNER` of '" + ds + "'.",
			"OWNER MODIFY TECHNICAL_OWNER {ownerUrn=urn:li:corpuser:a ownerType=TECHNICAL_OWNER ownerTypeUrn=urn:li:ownershipType:tech} PATCH: 'a''s ownership type changed from 'DATAOWNER' to 'TECHNICAL_OWNER' for '" + ds + "'.",
			"OWNER REMOVE urn:li:corpuser:b {ownerUrn=urn:li:corpuser:b ownerType=DATAOWNER} MINOR: 'b' removed as a `DATAOWNER` of '" + ds + "'.",
		},
	}, {
		name: "links", aspect: "institutionalMemory",
		from: `{"elements":[{"url":"https://a","description":"old"},{"url":"https://b","description":"b"}]}`,
		to:   `{"elements":[{"url":"https://a","description":"new"}]}`,
		want: []string{
			"DOCUMENTATION MODIFY https://a {} PATCH: Documentation of Institutional Memory 'https://a' of  '" + ds + "' has been changed from 'old' to 'new'.",
			"DOCUMENTATION REMOVE https://b {} MINOR: Institutional Memory 'https://b' with documentation of '" + ds + "' has been removed: 'b'",
		},
	}, {
		name: "description added", aspect: "datasetProperties", from: `{"customProperties":{}}`, to: `{"description":"d"}`,
		want: []string{"DOCUMENTATION ADD " + ds + " {description=d} MINOR: Documentation for '" + ds + "' has been added: 'd'."},
	}, {
		name: "description changed", aspect: "editableDatasetProperties", from: `{"description":"a"}`, to: `{"description":"b"}`,
		want: []string{"DOCUMENTATION MODIFY " + ds + " {description=b} MINOR: Documentation of '" + ds + "' has been changed from 'a' to 'b'."},
	}, {
		name: "description removed", aspect: "editableDatasetProperties", from: `{"description":"a"}`, to: `{}`,
		want: []string{"DOCUMENTATION REMOVE " + ds + " {description=a} MINOR: Documentation for '" + ds + "' has been removed: 'a'."},
	}, {
		name: "other properties change nothing", aspect: "datasetProperties", from: `{"description":"a"}`, to: `{"description":"a","name":"n"}`,
	}, {
		name: "term definition", aspect: "glossaryTermInfo", from: `{"definition":"a"}`, to: `{"definition":"b"}`,
		want: []string{"DOCUMENTATION MODIFY " + ds + " {} MINOR: Documentation of '" + ds + "' has been changed from 'a' to 'b'."},
	}, {
		name: "domain changed", aspect: "domains", from: `{"domains":["urn:li:domain:a"]}`, to: `{"domains":["urn:li:domain:b"]}`,
		want: []string{
			"DOMAIN REMOVE urn:li:domain:a {domainUrn=urn:li:domain:a} NONE: ",
			"DOMAIN ADD urn:li:domain:b {domainUrn=urn:li:domain:b} NONE: ",
		},
	}, {
		name: "domain unset", aspect: "domains", from: `{"domains":["urn:li:domain:a"]}`, to: `{"domains":[]}`,
		want: []string{"DOMAIN REMOVE urn:li:domain:a {domainUrn=urn:li:domain:a} NONE: "},
	}, {
		name: "soft delete", aspect: "status", from: `{"removed":false}`, to: `{"removed":true}`,
		want: []string{"LIFECYCLE SOFT_DELETE " + ds + " {} NONE: "},
	}, {
		name: "every status write not removed is a reinstatement", aspect: "status", to: `{"removed":false}`,
		want: []string{"LIFECYCLE REINSTATE " + ds + " {} NONE: "},
	}, {
		name: "deprecated", aspect: "deprecation", from: `{"deprecated":false}`, to: `{"deprecated":true,"note":"n"}`,
		want: []string{"DEPRECATION MODIFY " + ds + " {status=DEPRECATED} NONE: "},
	}, {
		name: "deprecation note only", aspect: "deprecation", from: `{"deprecated":true,"note":"a"}`, to: `{"deprecated":true,"note":"b"}`,
	}, {
		name: "entity created", aspect: "datasetKey", to: `{"name":"db.t"}`,
		want: []string{"LIFECYCLE CREATE " + ds + " {} NONE: "},
	}, {
		name: "entity deleted", aspect: "datasetKey", from: `{"name":"db.t"}`,
		want: []string{"LIFECYCLE HARD_DELETE " + ds + " {} NONE: "},
	}, {
		name: "run completed", aspect: "dataProcessInstanceRunEvent",
		to:   `{"timestampMillis":1,"status":"COMPLETE","attempt":2,"result":{"type":"FAILURE","nativeResultType":"FAIL"}}`,
		want: []string{"RUN COMPLETED " + ds + " {attempt=2 runResult=FAILURE} NONE: "},
	}, {
		name: "run started", aspect: "dataProcessInstanceRunEvent", to: `{"timestampMillis":1,"status":"STARTED"}`,
		want: []string{"RUN STARTED " + ds + " {} NONE: "},
	}, {
		name: "assertion run completed", aspect: "assertionRunEvent",
		to:   `{"timestampMillis":1,"runId":"r1","asserteeUrn":"urn:li:dataset:x","assertionUrn":"urn:li:assertion:a","status":"COMPLETE","result":{"type":"FAILURE"}}`,
		want: []string{"RUN COMPLETED " + ds + " {asserteeUrn=urn:li:dataset:x assertionResult=FAILURE runId=r1 runResult=COMPLETE} NONE: "},
	}, {
		name: "assertion run not complete", aspect: "assertionRunEvent",
		to: `{"timestampMillis":1,"runId":"r1","asserteeUrn":"urn:li:dataset:x","assertionUrn":"urn:li:assertion:a","status":"RUNNING"}`,
	}, {
		name: "business attribute: documentation, terms and tags", aspect: "businessAttributeInfo",
		from: `{"fieldPath":"email","name":"email","description":"a"}`,
		to:   `{"fieldPath":"email","name":"email","description":"b","glossaryTerms":{"terms":[{"urn":"urn:li:glossaryTerm:pii"}]},"globalTags":{"tags":[{"tag":"urn:li:tag:t"}]}}`,
		want: []string{
			"DOCUMENTATION MODIFY email {} MINOR: Documentation for the businessAttribute 'email' has been updated from 'a' to 'b'.",
			"GLOSSARY_TERM ADD urn:li:glossaryTerm:pii {termUrn=urn:li:glossaryTerm:pii} MINOR: Term 'pii' added to entity '" + ds + "'.",
			"TAG ADD urn:li:tag:t {tagUrn=urn:li:tag:t} MINOR: Tag 't' added to entity '" + ds + "'.",
		},
	}, {
		name: "business attribute documentation removed", aspect: "businessAttributeInfo",
		from: `{"fieldPath":"email","name":"email","description":"a"}`, to: `{"fieldPath":"email","name":"email"}`,
		want: []string{"DOCUMENTATION REMOVE email {} MINOR: Documentation for the businessAttribute 'email' has been removed: 'a'"},
	}, {
		name: "key of a type without lifecycle events", aspect: "corpUserKey", to: `{"username":"u"}`,
	}, {
		name: "aspect without change events", aspect: "browsePaths", to: `{"paths":["/a"]}`,
	}, {
		name: "schema of a new dataset: fields, their documentation, tags and terms, primary keys", aspect: "schemaMetadata",
		to: `{"primaryKeys":["id"],"fields":[` + field("[version=2.0].[type=struct].[type=long].id", "bigint", `,"nullable":true,"description":"key"`) + `,` +
			field("name", "string", `,"globalTags":{"tags":[{"tag":"urn:li:tag:pii"}]},"glossaryTerms":{"terms":[{"urn":"urn:li:glossaryTerm:n"}]}`) + `]}`,
		want: []string{
			"TECHNICAL_SCHEMA ADD " + f("[version=2.0].[type=struct].[type=long].id") + " {fieldPath=[version=2.0].[type=struct].[type=long].id fieldUrn=" + f("[version=2.0].[type=struct].[type=long].id") + " nullable=true modificationCategory=OTHER} MINOR: A forwards & backwards compatible change due to the newly added field 'id'.",
			"DOCUMENTATION ADD " + f("[version=2.0].[type=struct].[type=long].id") + " {description=key} MINOR: The description 'key' for the field '[version=2.0].[type=struct].[type=long].id' has been added.",
			"TECHNICAL_SCHEMA ADD " + f("name") + " {fieldPath=name fieldUrn=" + f("name") + " nullable=false modificationCategory=OTHER} MINOR: A forwards & backwards compatible change due to the newly added field 'name'.",
			"TAG ADD " + f("name") + " urn:li:tag:pii {fieldPath=name parentUrn=" + ds + " tagUrn=urn:li:tag:pii} MINOR: Tag 'pii' added to entity '" + f("name") + "'.",
			"GLOSSARY_TERM ADD " + f("name") + " urn:li:glossaryTerm:n {fieldPath=name parentUrn=" + ds + " termUrn=urn:li:glossaryTerm:n} MINOR: Term 'n' added to entity '" + f("name") + "'.",
			"TECHNICAL_SCHEMA MODIFY " + f("id") + " {fieldPath=id fieldUrn=" + f("id") + " nullable=false modificationCategory=OTHER} MAJOR: A backwards incompatible change due to addition of the primary key field 'id'",
		},
	}, {
		name: "schema: a rename, a type change, a removal, an addition", aspect: "schemaMetadata",
		from: schema(field("a", "int", `,"description":"x"`), field("b", "int", ""), field("c", "string", "")),
		to:   schema(field("a2", "int", `,"description":"x"`), field("b", "bigint", ""), field("d", "date", "")),
		want: []string{
			"TECHNICAL_SCHEMA MODIFY " + f("a") + " {fieldPath=a fieldUrn=" + f("a") + " nullable=false modificationCategory=RENAME} MINOR: A forwards & backwards compatible change due to renaming of the field 'a to a2'.",
			"TECHNICAL_SCHEMA MODIFY " + f("b") + " {fieldPath=b fieldUrn=" + f("b") + " nullable=false modificationCategory=TYPE_CHANGE} MAJOR: A backwards incompatible change due to native datatype of the field 'b' changed from 'int' to 'bigint'.",
			"TECHNICAL_SCHEMA REMOVE " + f("c") + " {fieldPath=c fieldUrn=" + f("c") + " nullable=false modificationCategory=OTHER} MAJOR: A backwards incompatible change due to removal of field: 'c'.",
			"TECHNICAL_SCHEMA ADD " + f("d") + " {fieldPath=d fieldUrn=" + f("d") + " nullable=false modificationCategory=OTHER} MINOR: A forwards & backwards compatible change due to the newly added field 'd'.",
		},
	}, {
		name: "schema: field description changed, field tag removed", aspect: "schemaMetadata",
		from: schema(field("a", "int", `,"description":"x","globalTags":{"tags":[{"tag":"urn:li:tag:t"}]}`)),
		to:   schema(field("a", "int", `,"description":"y"`)),
		want: []string{
			"DOCUMENTATION MODIFY " + f("a") + " {description=y} PATCH: The description for the field 'a' has been changed from 'x' to 'y'.",
			"TAG REMOVE " + f("a") + " urn:li:tag:t {fieldPath=a parentUrn=" + ds + " tagUrn=urn:li:tag:t} MINOR: Tag 't' removed from entity '" + f("a") + "'.",
		},
	}, {
		name: "field paths with reserved characters are encoded in field URNs", aspect: "schemaMetadata",
		to: schema(field("a(b,c)", "int", "")),
		want: []string{
			"TECHNICAL_SCHEMA ADD urn:li:schemaField:(" + ds + ",a%28b%2Cc%29) {fieldPath=a(b,c) fieldUrn=urn:li:schemaField:(" + ds + ",a%28b%2Cc%29) nullable=false modificationCategory=OTHER} MINOR: A forwards & backwards compatible change due to the newly added field 'a(b,c)'.",
		},
	}, {
		name: "editable schema: documentation, then tags, then terms; the field is the parent", aspect: "editableSchemaMetadata",
		from: `{"editableSchemaFieldInfo":[{"fieldPath":"a","description":"x"}]}`,
		to:   `{"editableSchemaFieldInfo":[{"fieldPath":"a","description":"y","glossaryTerms":{"terms":[{"urn":"urn:li:glossaryTerm:g"}]}},{"fieldPath":"b","globalTags":{"tags":[{"tag":"urn:li:tag:t"}]}}]}`,
		want: []string{
			"DOCUMENTATION MODIFY " + f("a") + " a {description=y} PATCH: Documentation for the field 'a' of '" + f("a") + "' has been updated from 'x' to 'y'.",
			"TAG ADD " + f("b") + " urn:li:tag:t {fieldPath=b parentUrn=" + f("b") + " tagUrn=urn:li:tag:t} MINOR: Tag 't' added to entity '" + f("b") + "'.",
			"GLOSSARY_TERM ADD " + f("a") + " urn:li:glossaryTerm:g {fieldPath=a parentUrn=" + f("a") + " termUrn=urn:li:glossaryTerm:g} MINOR: Term 'g' added to entity '" + f("a") + "'.",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Changes(ds, tc.aspect, decodeTest(t, tc.from), decodeTest(t, tc.to)) {
				got = append(got, line(e))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestAppendTransactions(t *testing.T) {
	txs := []Transaction{{
		Timestamp: 5, Actor: "urn:li:corpuser:a", SemVer: "0.0.0-computed", SemVerChange: Minor, VersionStamp: "globalTags:0",
		Events: []ChangeEvent{{EntityURN: ds, Category: Tag, Operation: Add, Modifier: "urn:li:tag:t", SemVer: Minor,
			Params: []Param{{"tagUrn", "urn:li:tag:t"}, {"nullable", true}}, Description: describe("Tag '%s' <%s>", "t", "&")}},
		RawDiff: []PatchOp{{Op: "add", Path: "/tags", Value: []any{}}},
	}}
	want := `[{"timestamp":5,"actor":"urn:li:corpuser:a","semVer":"0.0.0-computed","semVerChange":"MINOR","changeEvents":[` +
		`{"entityUrn":"` + ds + `","category":"TAG","operation":"ADD","modifier":"urn:li:tag:t","parameters":{"tagUrn":"urn:li:tag:t","nullable":true},"semVerChange":"MINOR","description":"Tag 't' <&>"}]` +
		`,"rawDiff":[{"op":"add","path":"/tags","value":[]}],"versionStamp":"globalTags:0"}]`
	got := AppendTransactions(nil, txs, true)
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Errorf("invalid JSON")
	}
}

// TestBusinessAttributeOfField checks the events of a schema field's
// business attribute attached, replaced (no event, as in DataHub) and
// detached.
func TestBusinessAttributeOfField(t *testing.T) {
	fieldURN := SchemaFieldURN(ds, "email")
	attr := func(u string) string {
		return `{"businessAttribute":{"businessAttributeUrn":"` + u + `"}}`
	}
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"attached", "", attr("urn:li:businessAttribute:a"), []string{"BUSINESS_ATTRIBUTE ADD " + fieldURN + " urn:li:businessAttribute:a {parentUrn=" + fieldURN +
			" businessAttributeUrn=urn:li:businessAttribute:a datasetUrn=" + ds + "} MINOR: BusinessAttribute 'a' added to entity '" + fieldURN + "'."}},
		{"replaced", attr("urn:li:businessAttribute:a"), attr("urn:li:businessAttribute:b"), nil},
		{"detached", attr("urn:li:businessAttribute:a"), `{}`, []string{"BUSINESS_ATTRIBUTE REMOVE " + fieldURN + " urn:li:businessAttribute:a {parentUrn=" + fieldURN +
			" businessAttributeUrn=urn:li:businessAttribute:a datasetUrn=" + ds + "} MINOR: BusinessAttribute 'a' removed from entity '" + fieldURN + "'."}},
	}
	for _, tc := range tests {
		var got []string
		for _, e := range Changes(fieldURN, "businessAttributes", decodeTest(t, tc.from), decodeTest(t, tc.to)) {
			got = append(got, line(e))
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: events:\n%s\nwant:\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
