package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/registry"
	"gopkg.in/yaml.v3"
)

// sentAspect is the last value the test sent for one aspect of one entity.
type sentAspect struct {
	wire  string // record name as sent in a snapshot, "" for proposals
	value any
}

// sampleReplay posts every DataHub sample file the way DataHub's SDK does —
// snapshots to /entities?action=ingest, proposals in batches to
// /aspects?action=ingestProposalBatch — and remembers what it sent.
type sampleReplay struct {
	srv    *testServer
	sent   map[string]map[string]sentAspect // urn → aspect name or wire name → value
	entity map[string]string                // urn → entity type
}

func newSampleReplay(srv *testServer) *sampleReplay {
	return &sampleReplay{srv: srv, sent: map[string]map[string]sentAspect{}, entity: map[string]string{}}
}

// remember records a sent aspect under its aspect name, so that a later send
// of the same aspect in another form replaces it.
func (r *sampleReplay) remember(urn, key string, a sentAspect) {
	if a.wire != "" {
		if spec := registry.Default().AspectByWireName(a.wire); spec != nil {
			key = spec.Name
		}
	}
	if r.sent[urn] == nil {
		r.sent[urn] = map[string]sentAspect{}
	}
	r.sent[urn][key] = a
}

// sampleFiles lists every JSON metadata file of the samples.
func sampleFiles(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.json", "*/*.json"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

func (r *sampleReplay) postFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]json.RawMessage
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var batch []any
	flush := func() {
		if len(batch) > 0 {
			r.srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": batch, "async": "false"})
			batch = nil
		}
	}
	for i, rec := range recs {
		switch {
		case rec["proposedSnapshot"] != nil:
			flush()
			r.postSnapshot(t, rec)
		case rec["entityType"] != nil:
			p, ok := r.proposal(t, fmt.Sprintf("%s record %d", filepath.Base(path), i), rec)
			if ok {
				batch = append(batch, p)
			}
			if len(batch) == 200 {
				flush()
			}
		case rec["urn"] != nil && rec["info"] != nil: // bootstrap/policies.json
			var urn string
			_ = json.Unmarshal(rec["urn"], &urn)
			batch = append(batch, r.mcp(urn, "dataHubPolicy", "dataHubPolicyInfo", rec["info"]))
		default:
			t.Fatalf("%s record %d: unknown record form", path, i)
		}
	}
	flush()
}

func (r *sampleReplay) postSnapshot(t *testing.T, rec map[string]json.RawMessage) {
	t.Helper()
	body := map[string]any{"entity": map[string]any{"value": rec["proposedSnapshot"]}}
	if sm := rec["systemMetadata"]; sm != nil && string(sm) != "null" {
		body["systemMetadata"] = sm
	}
	r.srv.mustDo(t, 200, "POST", "/entities?action=ingest", body)
	var snap map[string]struct {
		URN     string                       `json:"urn"`
		Aspects []map[string]json.RawMessage `json:"aspects"`
	}
	if err := json.Unmarshal(rec["proposedSnapshot"], &snap); err != nil {
		t.Fatal(err)
	}
	for name, s := range snap {
		r.entity[s.URN] = snapshotEntity(name)
		for _, a := range s.Aspects {
			for wire, v := range a {
				wire = strings.Replace(wire, "pegasus2avro.", "", 1)
				r.remember(s.URN, wire, sentAspect{wire: wire, value: decodeAny(t, v)})
			}
		}
	}
}

// snapshotEntity maps com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot to dataset.
func snapshotEntity(name string) string {
	base := strings.TrimSuffix(name[strings.LastIndex(name, ".")+1:], "Snapshot")
	switch base {
	case "CorpUser":
		return "corpuser"
	case "MLFeature", "MLFeatureTable", "MLModel", "MLPrimaryKey", "MLModelGroup", "MLModelDeployment":
		return "ml" + base[2:]
	}
	return strings.ToLower(base[:1]) + base[1:]
}

func (r *sampleReplay) proposal(t *testing.T, where string, rec map[string]json.RawMessage) (any, bool) {
	t.Helper()
	var p struct {
		EntityType string `json:"entityType"`
		EntityURN  string `json:"entityUrn"`
		ChangeType string `json:"changeType"`
		AspectName string `json:"aspectName"`
		Aspect     struct {
			Value *string         `json:"value"`
			JSON  json.RawMessage `json:"json"`
		} `json:"aspect"`
	}
	raw, _ := json.Marshal(rec)
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	value := p.Aspect.JSON
	if p.Aspect.Value != nil {
		value = json.RawMessage(*p.Aspect.Value)
	}
	out := map[string]any{}
	for k, v := range rec {
		if string(v) != "null" {
			out[k] = v
		}
	}
	// The SDK's REST emitter always serialises the aspect into aspect.value.
	contentType := "application/json"
	r.entity[p.EntityURN] = p.EntityType
	if p.ChangeType == "PATCH" {
		contentType = "application/json-patch+json"
		prev := r.sent[p.EntityURN][p.AspectName].value
		r.remember(p.EntityURN, p.AspectName, sentAspect{value: expectPatched(t, where, prev, decodeAny(t, value))})
	} else {
		r.remember(p.EntityURN, p.AspectName, sentAspect{value: decodeAny(t, value)})
	}
	out["aspect"] = map[string]any{"value": string(value), "contentType": contentType}
	return out, true
}

// expectPatched models, independently of the server, the two patch forms the
// sample files use: /upstreams/<dataset> and DataHub's fine-grained lineage
// view /fineGrainedLineages/<operation>/<downstream>/<query>/<upstream>. Any
// other form fails the test so that a new sample gets a model too.
func expectPatched(t *testing.T, where string, prev, patch any) any {
	t.Helper()
	doc, _ := prev.(map[string]any)
	if doc == nil {
		doc = map[string]any{"upstreams": []any{}}
	}
	ups, _ := doc["upstreams"].([]any)
	fgl, _ := doc["fineGrainedLineages"].([]any)
	for _, o := range patch.([]any) {
		op := o.(map[string]any)
		path, _ := op["path"].(string)
		segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
		switch {
		case op["op"] == "add" && segs[0] == "upstreams" && len(segs) == 2:
			ups = append(ups, op["value"])
		case op["op"] == "add" && segs[0] == "fineGrainedLineages" && len(segs) == 5:
			score := op["value"].(map[string]any)["confidenceScore"]
			found := false
			for _, f := range fgl {
				f := f.(map[string]any)
				if f["downstreams"].([]any)[0] == segs[2] && f["transformOperation"] == segs[1] {
					f["upstreams"] = append(f["upstreams"].([]any), segs[4])
					found = true
				}
			}
			if !found {
				fgl = append(fgl, map[string]any{
					"downstreams": []any{segs[2]}, "upstreams": []any{segs[4]}, "transformOperation": segs[1],
					"upstreamType": "FIELD_SET", "downstreamType": "FIELD", "confidenceScore": score,
				})
			}
		default:
			t.Fatalf("%s: no model for patch operation %v %s", where, op["op"], path)
		}
	}
	doc["upstreams"] = ups
	if fgl != nil {
		doc["fineGrainedLineages"] = fgl
	}
	return doc
}

func (r *sampleReplay) mcp(urn, entityType, aspect string, value json.RawMessage) any {
	r.entity[urn] = entityType
	r.remember(urn, aspect, sentAspect{value: decodeAny(nil, value)})
	return map[string]any{
		"entityType": entityType, "entityUrn": urn, "changeType": "UPSERT", "aspectName": aspect,
		"aspect": map[string]any{"value": string(value), "contentType": "application/json"},
	}
}

// postBootstrapYAML posts the YAML proposal lists a fresh DataHub writes at
// first start, filling their {{&auditStamp}} template placeholders.
func (r *sampleReplay) postBootstrapYAML(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("{{&auditStamp}}"), []byte(`{"time": 1700000000000, "actor": "urn:li:corpuser:__datahub_system"}`))
	var recs []struct {
		EntityURN  string         `yaml:"entityUrn"`
		EntityType string         `yaml:"entityType"`
		AspectName string         `yaml:"aspectName"`
		ChangeType string         `yaml:"changeType"`
		Aspect     map[string]any `yaml:"aspect"`
	}
	if err := yaml.Unmarshal(b, &recs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var batch []any
	for _, rec := range recs {
		v, err := json.Marshal(rec.Aspect)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, r.mcp(rec.EntityURN, rec.EntityType, rec.AspectName, v))
	}
	r.srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": batch})
}

func decodeAny(t testing.TB, b []byte) any {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil && t != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// equivalent reports whether the value read back matches what was sent, up
// to the encoding liberties of DataHub's files: nulls are absent, Avro wrappers
// such as {"string": x} stand for x, pegasus2avro names are plain names, and a
// bare value may stand for a single-member union {"string": x}. It is written
// independently of the server's normaliser on purpose.
func equivalent(sent, got any) bool {
	switch s := sent.(type) {
	case map[string]any:
		if len(s) == 1 {
			for k, v := range s {
				switch k {
				case "string", "array", "long", "int", "boolean", "double", "float", "map", "bytes":
					if equivalent(v, got) {
						return true
					}
				}
			}
		}
		if d, ok := s["fieldDiscriminator"].(string); ok {
			return equivalent(map[string]any{d: s[d]}, got)
		}
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		n := 0
		for k, v := range s {
			if v == nil {
				continue
			}
			n++
			if !equivalent(v, g[strings.Replace(k, "pegasus2avro.", "", 1)]) {
				return false
			}
		}
		return n == len(g)
	case []any:
		g, ok := got.([]any)
		if !ok {
			return false
		}
		var items []any
		for _, v := range s {
			if v != nil {
				items = append(items, v)
			}
		}
		if len(items) != len(g) {
			return false
		}
		for i := range items {
			if !equivalent(items[i], g[i]) {
				return false
			}
		}
		return true
	case string:
		if g, ok := got.(map[string]any); ok && len(g) == 1 {
			return g["string"] == s
		}
		return got == s
	case json.Number:
		g, ok := got.(json.Number)
		return ok && g.String() == s.String()
	}
	return sent == got
}

// pathEscape encodes a URN for a path the way DataHub's Python client does
// (urllib.parse.quote(urn, safe="")).
func pathEscape(urn string) string { return strings.ReplaceAll(url.QueryEscape(urn), "+", "%20") }
