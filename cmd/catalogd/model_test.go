package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

// TestEveryAspectRoundTrip writes an example value of every aspect of every
// entity type of the registry, built from the aspect's schema alone, through
// ingestProposalBatch, and reads each one back unchanged: versioned aspects
// through entitiesV2 and GraphQL (every field showing them, or the entity's
// aspects field), timeseries aspects through getTimeseriesAspectValues.
// It then finds every entity through search by its type, and again after the
// search index was emptied and rebuilt by restoreIndices.
func TestEveryAspectRoundTrip(t *testing.T) {
	reg := registry.Default()
	// DataHub's registry has 61 entity types (59, and the home page's
	// templates and modules since 1.2), which carry 516 aspects in all (key
	// aspects included).
	if n := len(reg.Entities()); n != 61 {
		t.Errorf("the registry has %d entity types, DataHub's has 61", n)
	}
	// One set of examples per union member of the largest union, so that
	// every member of every union is written once.
	sets := []*exampleSet{newExampleSet(t, reg, 0)}
	if sets[0].count() != 516 {
		t.Errorf("the registry's entity types carry %d aspects, DataHub's carry 516", sets[0].count())
	}
	for v := 1; v < sets[0].choices; v++ {
		sets = append(sets, newExampleSet(t, reg, v))
	}
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			dataDir := t.TempDir()
			srv := startServer(t, append([]string{"--data-dir", dataDir}, db.args...)...)
			checked, total, shown := 0, 0, 0
			shows := newGraphqlShows()
			for _, ex := range sets {
				c, s := roundTrip(t, srv, reg, ex, shows)
				checked += c
				shown += s
				total += ex.count()
			}
			if checked != total {
				t.Errorf("%d of %d aspects read back", checked, total)
			}
			t.Logf("%d entity types, %d aspects in %d variants written and read back, %d stored values compared with GraphQL; %d text searches", len(reg.Entities()), checked, len(sets), shown, len(sets[0].textQueries()))

			findAll := func(when string) {
				t.Helper()
				for _, ex := range sets {
					for _, e := range reg.Entities() {
						res := srv.search(t, map[string]any{"input": "*", "entity": e.Name})
						if !slices.Contains(res.Entities, ex.urn(e.Name)) {
							t.Errorf("%s: search for %s entities finds %v, not %s", when, e.Name, res.Entities, ex.urn(e.Name))
						}
					}
				}
				for _, q := range sets[0].textQueries() {
					res := srv.search(t, map[string]any{"input": q.input, "entity": q.entity})
					if !slices.Contains(res.Entities, sets[0].urn(q.entity)) {
						t.Errorf("%s: search %q for %s entities (field %s) finds %v", when, q.input, q.entity, q.field, res.Entities)
					}
				}
			}
			findAll("after ingest")
			emptySearchIndex(t, storeDSN(db, dataDir))
			if res := srv.search(t, map[string]any{"input": "*", "entities": []string{}}); res.NumEntities != 0 {
				t.Fatalf("emptied index still finds %d entities", res.NumEntities)
			}
			srv.mustDo(t, 200, "POST", "/operations?action=restoreIndices", map[string]any{"start": 0, "batchSize": 100000})
			findAll("after restoreIndices")
		})
	}
}

// roundTrip writes the examples of every entity type, one batch per entity,
// reads them back through entitiesV2 and GraphQL, and returns how many
// aspects came back unchanged and how many stored values GraphQL showed.
func roundTrip(t *testing.T, srv *testServer, reg *registry.Registry, ex *exampleSet, shows *graphqlShows) (checked, shown int) {
	t.Helper()
	srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": ex.propertyDefinition()})
	for _, e := range reg.Entities() {
		urn := ex.urn(e.Name)
		aspects := append([]string{e.KeyAspect}, e.Aspects...)
		var props []any
		for _, a := range aspects {
			props = append(props, mcp(e.Name, urn, a, ex.value(e.Name, a)))
		}
		if st, b := srv.do(t, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": props}); st != 200 {
			t.Errorf("%s: ingestProposalBatch: %d %s", urn, st, b)
			continue
		}
		v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(urn), nil))
		got, _ := v2["aspects"].(map[string]any)
		shown += shows.check(t, srv, e.Name, urn, got)
		for _, a := range aspects {
			want := canonical(t, ex.value(e.Name, a))
			var have any
			if reg.Aspect(a).Timeseries {
				have = latestTimeseries(t, srv, e.Name, urn, a)
			} else if env, ok := got[a].(map[string]any); ok {
				have = env["value"]
			}
			if auth.SecretAspects[a] {
				// never served by a read API
				want = nil
			}
			if !reflect.DeepEqual(want, have) {
				t.Errorf("%s %s: read back\n %s\nwant\n %s", urn, a, jsonString(have), jsonString(want))
				continue
			}
			checked++
		}
	}
	return checked, shown
}

// latestTimeseries returns the newest value of a timeseries aspect, decoded.
func latestTimeseries(t *testing.T, srv *testServer, entity, urn, aspect string) any {
	t.Helper()
	r := getTimeseries(t, srv, map[string]any{"urn": urn, "entity": entity, "aspect": aspect, "limit": 1})
	if len(r.Value.Values) == 0 {
		return nil
	}
	return canonical(t, json.RawMessage(r.Value.Values[0].Aspect.Value))
}

// canonical returns v as encoding/json decodes it with UseNumber.
func canonical(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// exampleSet builds example values from the registry's schemas: one URN per
// entity type and one value per aspect, every field present (a recursive
// type stops at its first repetition), arrays and maps with one element, and
// URN fields with a URN of the entity type the schema or the aspect's
// relationships name. Set number variant takes the variant'th member of
// unions and symbol of enums (modulo their number) and its own URNs.
type exampleSet struct {
	t       *testing.T
	reg     *registry.Registry
	variant int
	choices int // members of the largest union
	urns    map[string]string
	values  map[string]any // entity/aspect
	texts   []textQuery
	texted  map[string]bool // entities with a text query
}

type textQuery struct{ entity, field, input string }

func newExampleSet(t *testing.T, reg *registry.Registry, variant int) *exampleSet {
	x := &exampleSet{t: t, reg: reg, variant: variant, urns: map[string]string{}, values: map[string]any{}, texted: map[string]bool{}}
	for _, e := range reg.Entities() {
		for _, a := range append([]string{e.KeyAspect}, e.Aspects...) {
			x.values[e.Name+"/"+a] = x.build(e.Name, a)
		}
	}
	return x
}

func (x *exampleSet) value(entity, aspect string) any { return x.values[entity+"/"+aspect] }

// count is the number of entity aspects, one value each.
func (x *exampleSet) count() int { return len(x.values) }

func (x *exampleSet) textQueries() []textQuery { return x.texts }

// urn returns the example URN of an entity type, built from an example of
// its key aspect; entity types outside the registry get a one-part URN.
func (x *exampleSet) urn(entity string) string {
	if u, ok := x.urns[entity]; ok {
		return u
	}
	e := x.reg.Entity(entity)
	if e == nil {
		return catalog.NewURN(entity, "roundtrip")
	}
	x.urns[entity] = "" // a key that refers to its own entity type
	key, _ := x.keyValue(e).(map[string]any)
	u, err := registry.URNFromKey(e, key)
	if err != nil {
		x.t.Fatalf("%s: URN from example key %v: %v", entity, key, err)
	}
	x.urns[entity] = u
	return u
}

func (x *exampleSet) keyValue(e *catalog.EntitySpec) any {
	spec := x.reg.Aspect(e.KeyAspect)
	b := x.builder(e.Name, spec)
	b.key = true
	return b.build(b.root, "")
}

func (x *exampleSet) build(entity, aspect string) any {
	e := x.reg.Entity(entity)
	if aspect == e.KeyAspect {
		key, err := registry.KeyFromURN(e, mustParseURN(x.t, x.urn(entity)))
		if err != nil {
			x.t.Fatal(err)
		}
		return key
	}
	b := x.builder(entity, x.reg.Aspect(aspect))
	v := b.build(b.root, "")
	// The first free-text field of the entity gives a search for it.
	for _, s := range b.spec.Searchable {
		if x.texted[entity] || !s.QueryByDefault {
			continue
		}
		switch s.FieldType {
		case "TEXT", "TEXT_PARTIAL", "WORD_GRAM", "KEYWORD":
		default:
			continue
		}
		if got := registry.Extract(v, s.Path); len(got) > 0 {
			if str, ok := got[0].(string); ok && !strings.HasPrefix(str, "urn:") {
				x.texts = append(x.texts, textQuery{entity: entity, field: s.FieldName, input: str})
				x.texted[entity] = true
			}
		}
	}
	return v
}

func mustParseURN(t *testing.T, s string) catalog.URN {
	t.Helper()
	u, err := catalog.ParseURN(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// builder builds one aspect's example value.
type builder struct {
	x      *exampleSet
	entity string
	spec   *catalog.AspectSpec
	root   map[string]any
	defs   map[string]any
	rels   map[string]string // relationship path -> first destination entity type
	stack  []string          // named types being built
	key    bool              // building a key: strings without spaces
}

func (x *exampleSet) builder(entity string, spec *catalog.AspectSpec) *builder {
	var root map[string]any
	if err := json.Unmarshal([]byte(spec.Schema), &root); err != nil {
		x.t.Fatalf("aspect %s: schema: %v", spec.Name, err)
	}
	defs, _ := root["$defs"].(map[string]any)
	b := &builder{x: x, entity: entity, spec: spec, root: root, defs: defs, rels: map[string]string{}}
	for _, r := range spec.Relationships {
		b.rels[r.Path] = r.EntityTypes[0]
	}
	return b
}

// build returns an example of schema s at path (a spec path: field names,
// "*" for array elements and map values, member keys for unions), or nil
// when s repeats a named type being built.
func (b *builder) build(s map[string]any, path string) any {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		if slices.Contains(b.stack, name) {
			return nil
		}
		def, _ := b.defs[name].(map[string]any)
		if def == nil {
			b.x.t.Fatalf("aspect %s: unresolved %s", b.spec.Name, ref)
		}
		b.stack = append(b.stack, name)
		defer func() { b.stack = b.stack[:len(b.stack)-1] }()
		return b.build(def, path)
	}
	field := path[strings.LastIndexByte(path, '/')+1:]
	switch s["type"] {
	case "object":
		props, _ := s["properties"].(map[string]any)
		if s["x-union"] == true {
			keys := sortedKeys(props)
			b.x.choices = max(b.x.choices, len(keys))
			for i := range keys {
				k := keys[(b.x.variant+i)%len(keys)]
				if v := b.build(props[k].(map[string]any), path+"/"+k); v != nil {
					return map[string]any{k: v}
				}
			}
			return nil
		}
		if addl, ok := s["additionalProperties"].(map[string]any); ok && len(props) == 0 {
			v := b.build(addl, path+"/*")
			if v == nil {
				return map[string]any{}
			}
			return map[string]any{"k1": v}
		}
		out := map[string]any{}
		for _, k := range sortedKeys(props) {
			if v := b.build(props[k].(map[string]any), path+"/"+k); v != nil {
				out[k] = v
			}
		}
		return out
	case "array":
		items, _ := s["items"].(map[string]any)
		if v := b.build(items, path+"/*"); v != nil {
			return []any{v}
		}
		return []any{}
	case "string":
		if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
			return enum[b.x.variant%len(enum)]
		}
		if s["format"] == "urn" {
			if b.spec.Name == "structuredProperties" && path == "/properties/*/propertyUrn" {
				return b.x.property()
			}
			return b.x.urn(b.urnType(s, path))
		}
		if b.key {
			return fmt.Sprintf("rt%d_%s_%s", b.x.variant, b.entity, field)
		}
		return "roundtrip " + b.entity + " " + field
	case "integer":
		if s["format"] == "int32" {
			return json.Number("42")
		}
		return json.Number("1700000000000")
	case "number":
		return json.Number("0.5")
	case "boolean":
		// false, so that status.removed does not hide the entity
		return false
	}
	b.x.t.Fatalf("aspect %s: %s: unsupported schema %v", b.spec.Name, path, s)
	return nil
}

// property is the structured property the set's structuredProperties
// examples give values of. Values are checked against their property, so
// it is one that exists before them (see propertyDefinition) rather than
// the set's example structuredProperty, whose definition is an example
// too.
func (x *exampleSet) property() string {
	return catalog.NewURN("structuredProperty", fmt.Sprintf("roundtrip.v%d", x.variant))
}

// propertyDefinition is a proposal defining property(): it applies to
// every entity type and takes values of the type the set's examples give
// it.
func (x *exampleSet) propertyDefinition() map[string]any {
	valueType := "urn:li:dataType:datahub.string"
	for _, e := range x.reg.Entities() {
		if v, ok := x.value(e.Name, "structuredProperties").(map[string]any); ok {
			if len(registry.Extract(v, "/properties/*/values/*/double")) > 0 {
				valueType = "urn:li:dataType:datahub.number"
			}
			break
		}
	}
	var types []string
	for _, e := range x.reg.Entities() {
		types = append(types, "urn:li:entityType:datahub."+e.Name)
	}
	return mcp("structuredProperty", x.property(), "propertyDefinition", map[string]any{
		"qualifiedName": strings.TrimPrefix(x.property(), "urn:li:structuredProperty:"), "valueType": valueType, "entityTypes": types})
}

// urnType is the entity type an example URN at path names: the schema's
// x-urn-entity, else the first destination of a relationship at path, else
// corpuser.
func (b *builder) urnType(s map[string]any, path string) string {
	if t, ok := s["x-urn-entity"].(string); ok && t != "" {
		return t
	}
	if t, ok := b.rels[path]; ok {
		return t
	}
	return "corpuser"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestIngestConnectorRecords loads records of the forms DataHub's connectors
// and emitters write (aspect.json from the file sink, aspect.value from the
// REST emitter, legacy snapshots) for entity types beyond the classic ones —
// process runs, platform resources, structured properties, data products,
// model deployments, notebooks, business attributes, incidents, applications
// — with catalogd ingest into a local store, and reads every aspect back
// from a server on that store, with the graph edges and search documents
// they give.
func TestIngestConnectorRecords(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "connectors", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/connectors files: %v", err)
	}
	data := t.TempDir()
	stdout, stderr, err := runCLI(t, append([]string{"ingest", "--quiet", "--data-dir", data}, files...)...)
	if err != nil || !strings.Contains(stdout, " 0 failures") {
		t.Fatalf("ingest: %v\n%s\n%s", err, stdout, stderr)
	}
	srv := startServer(t, "--data-dir", data)
	reg := registry.Default()

	type key struct{ urn, aspect string }
	latest := map[key]any{}
	series := map[key]int{}
	entity := map[string]string{}
	for _, f := range files {
		var recs []struct {
			EntityType string `json:"entityType"`
			EntityURN  string `json:"entityUrn"`
			AspectName string `json:"aspectName"`
			Aspect     struct {
				JSON  json.RawMessage `json:"json"`
				Value string          `json:"value"`
			} `json:"aspect"`
			Snapshot map[string]struct {
				URN     string                       `json:"urn"`
				Aspects []map[string]json.RawMessage `json:"aspects"`
			} `json:"proposedSnapshot"`
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &recs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range recs {
			for name, snap := range r.Snapshot {
				for _, a := range snap.Aspects {
					for wire, raw := range a {
						latest[key{snap.URN, reg.AspectByWireName(wire).Name}] = decodeAny(t, raw)
					}
				}
				entity[snap.URN] = reg.EntityBySnapshot(name).Name
			}
			if r.Snapshot != nil {
				continue
			}
			raw := []byte(r.Aspect.JSON)
			if len(raw) == 0 {
				raw = []byte(r.Aspect.Value)
			}
			k := key{r.EntityURN, r.AspectName}
			entity[r.EntityURN] = r.EntityType
			if reg.Aspect(r.AspectName).Timeseries {
				series[k]++
			} else {
				latest[k] = decodeAny(t, raw)
			}
		}
	}
	for k, want := range latest {
		got := decode(t, srv.mustDo(t, 200, "GET", "/aspects/"+pathEscape(k.urn)+"?aspect="+k.aspect+"&version=0", nil))
		inner, _ := got["aspect"].(map[string]any)
		if have := inner[reg.Aspect(k.aspect).WireName]; !equivalent(want, have) {
			t.Errorf("%s %s: read back %s, sent %s", k.urn, k.aspect, jsonString(have), jsonString(want))
		}
	}
	// The entity types with a legacy snapshot read back as one.
	for k, want := range latest {
		e := reg.Entity(entity[k.urn])
		if e.Snapshot == "" || !slices.Contains(e.SnapshotAspects, k.aspect) {
			continue
		}
		doc := decode(t, srv.mustDo(t, 200, "GET", "/entities/"+pathEscape(k.urn), nil))
		if !snapshotHas(doc, e.Snapshot, reg.Aspect(k.aspect).WireName, want) {
			t.Errorf("/entities %s: aspect %s missing or different: %s", k.urn, k.aspect, jsonString(doc))
		}
	}
	for k, n := range series {
		r := getTimeseries(t, srv, map[string]any{"urn": k.urn, "entity": entity[k.urn], "aspect": k.aspect})
		if len(r.Value.Values) != n {
			t.Errorf("%s %s: %d timeseries values, sent %d", k.urn, k.aspect, len(r.Value.Values), n)
		}
	}

	const (
		orders   = "urn:li:dataset:(urn:li:dataPlatform:postgres,shop.public.orders,PROD)"
		run      = "urn:li:dataProcessInstance:5c1f0e2d9a7b4c11a3e2b1f0c9d8e7a6"
		incident = "urn:li:incident:0c9f3b2e-1d4a-4f6b-9e8d-7a6b5c4d3e2f"
		app      = "urn:li:application:checkout"
	)
	edges := []struct {
		urn, types string
		want       string
	}{
		{orders, "types=List(IncidentOn)", incident},
		{orders, "types=List(Consumes)", run},
		{app, "types=List(AssociatedWith)", orders},
	}
	for _, e := range edges {
		page := relationships(t, srv, "INCOMING", e.urn, e.types)
		if !slices.Contains(page.Entities, e.want) {
			t.Errorf("INCOMING %s of %s: %v, want %s among them", e.types, e.urn, page.Entities, e.want)
		}
	}
	searches := []struct{ entity, input, want string }{
		{"incident", "operational", incident},
		{"application", "checkout", app},
		{"businessAttribute", "customer_email", "urn:li:businessAttribute:customer_email"},
		{"platformResource", "*", "urn:li:platformResource:7d1e4c2b9f8a6e5d4c3b2a1f0e9d8c7b"},
		{"dataProcessInstance", "*", run},
	}
	for _, s := range searches {
		if res := srv.search(t, map[string]any{"input": s.input, "entity": s.entity}); !slices.Contains(res.Entities, s.want) {
			t.Errorf("search %q for %s entities: %v, want %s", s.input, s.entity, res.Entities, s.want)
		}
	}
}
