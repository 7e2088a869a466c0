package meili

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/meilisearch/meilisearch-go"

	"github.com/catalogd/catalogd/internal/catalog"
)

var testFields = []catalog.SearchField{
	{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true, Autocomplete: true},
	{Name: "description", Type: "TEXT", Boost: 1, QueryByDefault: true},
	{Name: "platform", Type: "URN", Boost: 0.1, Filter: true},
	{Name: "tags", Type: "URN", Filter: true},
	{Name: "rowCount", Type: "COUNT"},
	{Name: "hasOwners", Type: "BOOLEAN"},
	{Name: "customProperties.team", Type: "KEYWORD"},
	{Name: "urn", Type: "URN", Boost: 1, QueryByDefault: true},
}

func TestNameRoundTrip(t *testing.T) {
	for _, name := range []string{"name", "customProperties.team", "a_b", "__x", "fieldPaths", "é.ü", "a-b c", "_entityType", ""} {
		enc := encodeName(name)
		if !regexp.MustCompile(`^[A-Za-z0-9_]*$`).MatchString(enc) {
			t.Errorf("encodeName(%q) = %q: not [A-Za-z0-9_]", name, enc)
		}
		dec, ok := decodeName(enc)
		if !ok || dec != name {
			t.Errorf("decodeName(encodeName(%q)) = %q, %v", name, dec, ok)
		}
		for _, attr := range []string{textAttr(name), exactAttr(name)} {
			if got, ok := fieldOfAttr(attr); !ok || got != name {
				t.Errorf("fieldOfAttr(%q) = %q, %v; want %q", attr, got, ok, name)
			}
		}
	}
	// Distinct names never share an encoding.
	if encodeName("a.b") == encodeName("a_b") || encodeName("a_2eb") == encodeName("a.b") {
		t.Error("encodeName is not injective")
	}
	if got := encodeName("customProperties.team"); got != "customProperties_2eteam" {
		t.Errorf("encodeName = %q", got)
	}
	if _, ok := decodeName("a_zz"); ok {
		t.Error("decodeName accepted a bad escape")
	}
}

func TestExactRoundTrip(t *testing.T) {
	long := strings.Repeat("x", maxExact+1)
	for _, s := range []string{"", "kafka", "urn:li:dataPlatform:kafka", "Foo Bar", " padded ", "100%", "a~b", "ﬁ", "日本", `q"uo\te`} {
		enc := encodeExact(s)
		if enc != strings.ToLower(strings.TrimSpace(enc)) {
			t.Errorf("encodeExact(%q) = %q: changed by normalization", s, enc)
		}
		for _, r := range enc {
			if r > 0x7e {
				t.Errorf("encodeExact(%q) = %q: not ASCII", s, enc)
			}
		}
		if dec, ok := decodeExact(enc); !ok || dec != s {
			t.Errorf("decodeExact(encodeExact(%q)) = %q, %v", s, dec, ok)
		}
	}
	if encodeExact("Foo") == encodeExact("foo") {
		t.Error("exact encoding folds case")
	}
	if got := encodeExact("urn:li:corpuser:Jdoe"); got != "urn:li:corpuser:%4adoe" {
		t.Errorf("encodeExact = %q", got)
	}
	enc := encodeExact(long)
	if !strings.HasPrefix(enc, hashedPrefix) || len(enc) > maxExact {
		t.Errorf("long value encoded as %q", enc)
	}
	if _, ok := decodeExact(enc); ok {
		t.Error("decodeExact decoded a digest")
	}
	if encodeExact(long) == encodeExact(long+"y") {
		t.Error("digests collide")
	}
}

func TestDocID(t *testing.T) {
	urn := "urn:li:dataset:(urn:li:dataPlatform:kafka,Orders,PROD)"
	id := docID(urn)
	if !regexp.MustCompile(`^[a-f0-9]{64}$`).MatchString(id) {
		t.Errorf("docID = %q", id)
	}
	if docID(urn) != id || docID(urn+"x") == id {
		t.Error("docID is not a function of the URN")
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:        `"plain"`,
		`with space`:   `"with space"`,
		`say "hi"`:     `"say \"hi\""`,
		`back\slash`:   `"back\\slash"`,
		`tail\`:        `"tail\\"`,
		`\"`:           `"\\\""`,
		"new\nline":    "\"new\nline\"",
		`AND OR NOT (`: `"AND OR NOT ("`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func crit(field, cond string, values ...string) catalog.Criterion {
	return catalog.Criterion{Field: field, Condition: cond, Values: values}
}

func neg(c catalog.Criterion) catalog.Criterion { c.Negated = true; return c }

func TestTranslate(t *testing.T) {
	s := newSchema(testFields, nil)
	tests := []struct {
		name   string
		filter catalog.Filter
		want   string
	}{
		{"empty", catalog.Filter{}, ""},
		{"equal string is exact", catalog.Filter{Or: [][]catalog.Criterion{{crit("platform", "EQUAL", "urn:li:dataPlatform:Kafka")}}},
			`x_platform = "urn:li:data%50latform:%4bafka"`},
		{"default condition is EQUAL", catalog.Filter{Or: [][]catalog.Criterion{{crit("platform", "", "kafka")}}},
			`x_platform = "kafka"`},
		{"equal several values", catalog.Filter{Or: [][]catalog.Criterion{{crit("tags", "EQUAL", "a", "B")}}},
			`x_tags IN ["a", "%42"]`},
		{"in", catalog.Filter{Or: [][]catalog.Criterion{{crit("tags", "IN", "a", "b")}}},
			`x_tags IN ["a", "b"]`},
		{"iequal on raw values", catalog.Filter{Or: [][]catalog.Criterion{{crit("name", "IEQUAL", `My "Table"`)}}},
			`t_name = "My \"Table\""`},
		{"dotted field", catalog.Filter{Or: [][]catalog.Criterion{{crit("customProperties.team", "EQUAL", "core")}}},
			`x_customProperties_2eteam = "core"`},
		{"number equal", catalog.Filter{Or: [][]catalog.Criterion{{crit("rowCount", "EQUAL", "10", "x")}}},
			`t_rowCount = 10`},
		{"number equal not a number", catalog.Filter{Or: [][]catalog.Criterion{{crit("rowCount", "EQUAL", "x")}}},
			`_urn NOT EXISTS`},
		{"bool", catalog.Filter{Or: [][]catalog.Criterion{{crit("hasOwners", "EQUAL", "TRUE")}}},
			`t_hasOwners = true`},
		{"removed pseudo-field", catalog.Filter{Or: [][]catalog.Criterion{{crit("removed", "EQUAL", "true")}}},
			`t_removed = true`},
		{"ranges use the first value", catalog.Filter{Or: [][]catalog.Criterion{{
			crit("rowCount", "GREATER_THAN", "1", "7"), crit("rowCount", "GREATER_THAN_OR_EQUAL_TO", "1.5"),
			crit("rowCount", "LESS_THAN", "-2"), crit("rowCount", "LESS_THAN_OR_EQUAL_TO", "1e3")}}},
			`(t_rowCount > 1) AND (t_rowCount >= 1.5) AND (t_rowCount < -2) AND (t_rowCount <= 1000)`},
		{"exists and is null", catalog.Filter{Or: [][]catalog.Criterion{{crit("tags", "EXISTS"), crit("platform", "IS_NULL")}}},
			`(t_tags EXISTS) AND (t_platform NOT EXISTS)`},
		{"negated", catalog.Filter{Or: [][]catalog.Criterion{{neg(crit("platform", "EQUAL", "kafka"))}}},
			`NOT (x_platform = "kafka")`},
		{"or of ands", catalog.Filter{Or: [][]catalog.Criterion{
			{crit("platform", "EQUAL", "kafka"), crit("rowCount", "GREATER_THAN", "3")},
			{crit("tags", "EQUAL", "pii")}}},
			`((x_platform = "kafka") AND (t_rowCount > 3)) OR (x_tags = "pii")`},
		{"unknown field never matches", catalog.Filter{Or: [][]catalog.Criterion{{crit("nope", "EQUAL", "x"), crit("tags", "EXISTS")}}},
			`_urn NOT EXISTS`},
		{"unknown field negated always matches", catalog.Filter{Or: [][]catalog.Criterion{{neg(crit("nope", "EQUAL", "x")), crit("tags", "EXISTS")}}},
			`t_tags EXISTS`},
		{"unknown field is null", catalog.Filter{Or: [][]catalog.Criterion{{crit("nope", "IS_NULL")}}}, ``},
		{"a false group drops out", catalog.Filter{Or: [][]catalog.Criterion{{crit("nope", "EQUAL", "x")}, {crit("tags", "EXISTS")}}},
			`t_tags EXISTS`},
		{"contain relaxes to exists", catalog.Filter{Or: [][]catalog.Criterion{{crit("name", "CONTAIN", "ord"), crit("platform", "EQUAL", "kafka")}}},
			`(t_name EXISTS) AND (x_platform = "kafka")`},
		{"negated end_with relaxes to true", catalog.Filter{Or: [][]catalog.Criterion{{neg(crit("name", "END_WITH", "s"))}}}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := validate(tt.filter); err != nil {
				t.Fatal(err)
			}
			if got := s.translate(tt.filter).String(); got != tt.want {
				t.Errorf("translate = %s\nwant        %s", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, f := range []catalog.Filter{
		{Or: [][]catalog.Criterion{{crit("rowCount", "GREATER_THAN", "ten")}}},
		{Or: [][]catalog.Criterion{{crit("rowCount", "LESS_THAN")}}},
		{Or: [][]catalog.Criterion{{crit("name", "LIKE", "x")}}},
	} {
		if err := validate(f); catalog.KindOf(err) != catalog.Invalid {
			t.Errorf("validate(%v) = %v, want Invalid", f, err)
		}
	}
	if err := validate(catalog.Filter{Or: [][]catalog.Criterion{{crit("name", "start_with", "x")}}}); err != nil {
		t.Errorf("lower-case condition: %v", err)
	}
}

func TestEval(t *testing.T) {
	s := newSchema(testFields, nil)
	doc := map[string][]any{
		"name":     {"Orders Daily"},
		"tags":     {"urn:li:tag:PII", "urn:li:tag:gold"},
		"rowCount": {float64(42)},
	}
	values := func(f string) []any { return doc[f] }
	tests := []struct {
		c    catalog.Criterion
		want bool
	}{
		{crit("name", "CONTAIN", "ders Da"), true},
		{crit("name", "CONTAIN", "orders"), true}, // substring tests ignore case
		{crit("name", "START_WITH", "ORD"), true},
		{crit("tags", "END_WITH", ":pii"), true},
		{crit("name", "START_WITH", "Orders"), true},
		{crit("name", "END_WITH", "Daily"), true},
		{crit("tags", "END_WITH", ":gold"), true},
		{crit("tags", "END_WITH", ":silver", ":PII"), true},
		{neg(crit("tags", "CONTAIN", "PII")), false},
		{crit("platform", "CONTAIN", "x"), false},
		{neg(crit("platform", "CONTAIN", "x")), true},
		{crit("name", "EQUAL", "Orders Daily"), true},
		{crit("name", "EQUAL", "orders daily"), false},
		{crit("name", "IEQUAL", "orders DAILY"), true},
		{crit("rowCount", "EQUAL", "42.0"), true},
		{crit("rowCount", "GREATER_THAN", "41"), true},
		{crit("rowCount", "LESS_THAN", "42"), false},
		{crit("rowCount", "LESS_THAN_OR_EQUAL_TO", "42"), true},
		{crit("rowCount", "GREATER_THAN", "50", "1"), false}, // Values[0] only
		{crit("tags", "EXISTS"), true},
		{crit("platform", "IS_NULL"), true},
		{crit("nope", "IS_NULL"), true},
		{crit("nope", "EQUAL", "x"), false},
	}
	for _, tt := range tests {
		f := catalog.Filter{Or: [][]catalog.Criterion{{tt.c}}}
		if got := s.eval(f, values); got != tt.want {
			t.Errorf("eval(%+v) = %v, want %v", tt.c, got, tt.want)
		}
	}
	or := catalog.Filter{Or: [][]catalog.Criterion{{crit("nope", "EQUAL", "x")}, {crit("name", "START_WITH", "Ord")}}}
	if !s.eval(or, values) {
		t.Error("eval of a disjunction")
	}
	if !s.eval(catalog.Filter{}, values) {
		t.Error("empty filter must match")
	}
}

func TestBrowseFields(t *testing.T) {
	locs, anc, prefixes := browseFields([]string{"/prod/kafka", "prod/kafka/", "/dev/Hive/db/t", "/top", "/", ""}, 2)
	if want := []string{"/prod/kafka", "/dev/%48ive/db/t", "/top"}; !reflect.DeepEqual(locs, want) {
		t.Errorf("locs = %q, want %q", locs, want)
	}
	if want := []string{"/", "/prod", "/dev", "/dev/%48ive", "/dev/%48ive/db"}; !reflect.DeepEqual(anc, want) {
		t.Errorf("anc = %q, want %q", anc, want)
	}
	want := map[int][]string{1: {"/prod", "/dev", "/top"}, 2: {"/prod/kafka", "/dev/%48ive"}}
	if !reflect.DeepEqual(prefixes, want) {
		t.Errorf("prefixes = %v, want %v", prefixes, want)
	}
	for _, tt := range []struct {
		parent []string
		prefix string
		name   string
		ok     bool
	}{
		{nil, "/prod", "prod", true},
		{[]string{"prod"}, "/prod/kafka", "kafka", true},
		{[]string{"prod"}, "/dev/kafka", "", false},
		{[]string{"prod"}, "/prod", "", false},
	} {
		name, ok := childGroup(tt.parent, tt.prefix)
		if name != tt.name || ok != tt.ok {
			t.Errorf("childGroup(%q, %q) = %q, %v", tt.parent, tt.prefix, name, ok)
		}
	}
}

func TestDocumentAndSettings(t *testing.T) {
	e := &Engine{schema: newSchema(testFields, nil), opts: options{maxDepth: 3, maxTotalHits: 10000, maxFacetValues: 100}}
	e.searchFields, e.autoFields = e.schema.rankedFields()
	if want := []string{"name", "description", "urn"}; !reflect.DeepEqual(e.searchFields, want) {
		t.Errorf("searchFields = %q, want %q (by boost)", e.searchFields, want)
	}
	if want := []string{"name"}; !reflect.DeepEqual(e.autoFields, want) {
		t.Errorf("autoFields = %q", e.autoFields)
	}
	d := e.document(catalog.Document{
		URN: "urn:li:dataset:x", EntityType: "dataset", Removed: true,
		Fields: map[string][]any{"name": {"SampleX", "a_b"}, "rowCount": {float64(3), "4", "n/a"}, "hasOwners": {true},
			"undeclared": {"v"}, "urn": {"ignored"}},
		BrowsePaths: []string{"/prod/x"},
	})
	want := map[string]any{
		"id": docID("urn:li:dataset:x"), "_urn": "urn:li:dataset:x", "_type": "dataset", "_typeX": "dataset", "_removed": true,
		"t_name": []any{"SampleX", "a_b"}, "x_name": []string{"%53ample%58", "a_b"}, "w_name": []string{"samplex sample x", "a b"},
		"t_rowCount":  []any{float64(3), float64(4)},
		"t_hasOwners": []any{true},
		"t_urn":       []any{"urn:li:dataset:x"}, "x_urn": []string{"urn:li:dataset:x"}, "w_urn": []string{"urn li dataset x"},
		"t_entityType": []any{"dataset"}, "x_entityType": []string{"dataset"},
		"t___entityType": []any{"dataset"}, "x___entityType": []string{"dataset"},
		"t_removed": []any{true},
		"_loc":      []string{"/prod/x"}, "_anc": []string{"/", "/prod"}, "_bp1": []string{"/prod"}, "_bp2": []string{"/prod/x"},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("document = %#v\nwant %#v", d, want)
	}
	st := e.settings()
	if want := []string{"w_name", "w_description", "w_urn"}; !reflect.DeepEqual(st.SearchableAttributes, want) {
		t.Errorf("searchable = %q", st.SearchableAttributes)
	}
	for _, a := range []string{"_urn", "_typeX", "_removed", "_loc", "_anc", "_bp1", "_bp3", "x_platform", "t_rowCount", "t_removed"} {
		found := false
		for _, f := range st.FilterableAttributes {
			found = found || f == a
		}
		if !found {
			t.Errorf("%s is not filterable", a)
		}
	}
	base := e.baseFilter([]string{"dataset", "corpGroup"}, true)
	if got, want := base.String(), `(_typeX IN ["dataset", "corp%47roup"]) AND (_removed = false)`; got != want {
		t.Errorf("baseFilter = %s, want %s", got, want)
	}
	if named := e.baseFilter(nil, false); named.String() != "" {
		t.Errorf("baseFilter without hiding = %s", named)
	}
}

// TestKeyedFields covers the families of keyed fields (structured property
// values): their documents' object attribute, filterable whole, the filters
// on one member, and the Go-side evaluation of what Meilisearch cannot
// filter, on a hit read back from that object.
func TestKeyedFields(t *testing.T) {
	keyed := []catalog.SearchField{{Name: "structuredProperties", Type: "KEYWORD", Filter: true}}
	e := &Engine{schema: newSchema(testFields, keyed), opts: options{maxDepth: 3, maxTotalHits: 10000, maxFacetValues: 100}}
	d := e.document(catalog.Document{URN: "urn:li:dataset:k", EntityType: "dataset", Fields: map[string][]any{
		"structuredProperties.io_acryl_retention": {float64(90), json.Number("30.5")},
		"structuredProperties.team":               {"Payments"},
		"otherFamily.team":                        {"x"},
	}})
	want := map[string]any{
		"t_io__acryl__retention": []any{float64(90), 30.5}, "x_io__acryl__retention": []string{"90", "30.5"},
		"t_team": []any{"Payments"}, "x_team": []string{"%50ayments"},
	}
	if got := d["k_structuredProperties"]; !reflect.DeepEqual(got, want) {
		t.Errorf("keyed attribute = %#v\nwant %#v", got, want)
	}
	for a := range d {
		if strings.Contains(a, "otherFamily") {
			t.Errorf("a field of no declared family was indexed as %s", a)
		}
	}
	filterable := e.settings().FilterableAttributes
	if !slices.Contains(filterable, "k_structuredProperties") {
		t.Errorf("k_structuredProperties is not filterable: %q", filterable)
	}

	tests := []struct {
		name string
		c    catalog.Criterion
		want string
	}{
		{"equal is exact", crit("structuredProperties.team", "EQUAL", "Payments"), `k_structuredProperties.x_team = "%50ayments"`},
		{"equal a number", crit("structuredProperties.io_acryl_retention", "EQUAL", "90"), `k_structuredProperties.x_io__acryl__retention = "90"`},
		{"range", crit("structuredProperties.io_acryl_retention", "GREATER_THAN", "60"), `k_structuredProperties.t_io__acryl__retention > 60`},
		{"exists", crit("structuredProperties.team", "EXISTS"), `k_structuredProperties.t_team EXISTS`},
		{"iequal", crit("structuredProperties.team", "IEQUAL", "payments"), `k_structuredProperties.t_team = "payments"`},
		{"a family not declared", crit("otherFamily.team", "EQUAL", "x"), `_urn NOT EXISTS`},
		{"the family itself is no field", crit("structuredProperties", "EXISTS"), `_urn NOT EXISTS`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := catalog.Filter{Or: [][]catalog.Criterion{{tt.c}}}
			if got := e.schema.translate(f).String(); got != tt.want {
				t.Errorf("translate = %s\nwant        %s", got, tt.want)
			}
		})
	}

	// A hit as Meilisearch returns it: the document's attributes as JSON.
	hit := meilisearch.Hit{}
	for k, v := range d {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		hit[k] = b
	}
	values := func(field string) []any { return e.schema.hitValues(hit, field) }
	for _, tt := range []struct {
		c    catalog.Criterion
		want bool
	}{
		{crit("structuredProperties.team", "CONTAIN", "pay"), true},
		{crit("structuredProperties.team", "END_WITH", "x"), false},
		{crit("structuredProperties.io_acryl_retention", "GREATER_THAN", "60"), true},
		{crit("structuredProperties.io_acryl_retention", "EQUAL", "30.5"), true},
		{crit("structuredProperties.owner", "EXISTS"), false},
	} {
		if got := e.schema.eval(catalog.Filter{Or: [][]catalog.Criterion{{tt.c}}}, values); got != tt.want {
			t.Errorf("eval %+v = %v, want %v", tt.c, got, tt.want)
		}
	}
}
