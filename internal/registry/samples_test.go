package registry_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/registry"
)

const samplesDir = "../../../shared/datahub-samples"

// TestGeneratedRegistry loads the real generated registry and compiles every
// aspect schema.
func TestGeneratedRegistry(t *testing.T) {
	r := registry.Default()
	if err := r.CompileAll(); err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Entities() {
		if !r.EntityHasAspect(e.Name, e.KeyAspect) {
			t.Errorf("entity %s lacks its key aspect", e.Name)
		}
	}
}

// TestSamples normalises and validates every aspect of the real DataHub files
// in ../shared/datahub-samples against the generated registry. Aspects that
// have no schema yet are logged, not failed.
func TestSamples(t *testing.T) {
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skip("no ../shared/datahub-samples")
	}
	if m, _ := filepath.Glob("../../schemas/aspects/*.json"); len(m) == 0 {
		t.Skip("no schemas/aspects/*.json yet")
	}
	r := registry.Default()
	var files []string
	_ = filepath.Walk(samplesDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	missing := map[string]int{}
	checked, failed := 0, 0
	check := func(where, aspect string, v any) {
		if r.Aspect(aspect) == nil {
			missing[aspect]++
			return
		}
		checked++
		if _, err := r.Normalize(aspect, v); err != nil {
			failed++
			if failed <= 60 {
				t.Errorf("%s: %v", where, err)
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.UseNumber()
		var recs []any
		if err := dec.Decode(&recs); err != nil {
			t.Logf("%s: not a JSON array: %v", f, err)
			continue
		}
		name := filepath.Base(f)
		for i, rec := range recs {
			m, _ := rec.(map[string]any)
			where := name + "[" + itoa(i) + "]"
			switch {
			case m["proposedSnapshot"] != nil:
				snap, _ := m["proposedSnapshot"].(map[string]any)
				for fqn, body := range snap {
					if r.EntityBySnapshot(fqn) == nil {
						missing["snapshot "+registry.StripAvroNamespace(fqn)]++
					}
					bm, _ := body.(map[string]any)
					aspects, _ := bm["aspects"].([]any)
					for j, a := range aspects {
						am, _ := a.(map[string]any)
						for wire, v := range am {
							spec := r.AspectByWireName(wire)
							if spec == nil {
								missing["wire "+registry.StripAvroNamespace(wire)]++
								continue
							}
							check(where+" aspects["+itoa(j)+"] "+spec.Name, spec.Name, v)
						}
					}
				}
			case m["changeType"] == "PATCH":
				// a JSON Patch, not an aspect value
			case m["aspectName"] != nil:
				aspect, _ := m["aspectName"].(string)
				am, _ := m["aspect"].(map[string]any)
				var v any
				if s, ok := am["value"].(string); ok {
					d := json.NewDecoder(strings.NewReader(s))
					d.UseNumber()
					if err := d.Decode(&v); err != nil {
						t.Errorf("%s: aspect.value: %v", where, err)
						continue
					}
				} else {
					v = am["json"]
				}
				check(where+" "+aspect, aspect, v)
			case m["urn"] != nil && m["info"] != nil: // bootstrap/policies.json
				check(where+" dataHubPolicyInfo", "dataHubPolicyInfo", m["info"])
			}
		}
	}
	var names []string
	for k := range missing {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("no schema for %s (%d values)", k, missing[k])
	}
	t.Logf("%d aspect values checked, %d failed, %d kinds without schema", checked, failed, len(missing))
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// BenchmarkNormalizeDemoSchemaMetadata normalises a real legacy-MCE
// schemaMetadata (BigQuery, from demo_data.json) with the generated registry.
func BenchmarkNormalizeDemoSchemaMetadata(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(samplesDir, "demo_data.json"))
	if err != nil {
		b.Skip("no demo_data.json")
	}
	r := registry.Default()
	if r.Aspect("schemaMetadata") == nil {
		b.Skip("no schemaMetadata schema")
	}
	var recs []map[string]map[string]struct {
		Aspects []map[string]json.RawMessage `json:"aspects"`
	}
	if err := json.Unmarshal(raw, &recs); err != nil {
		b.Fatal(err)
	}
	var src []byte
	nfields := 0
	for _, rec := range recs {
		for _, snap := range rec["proposedSnapshot"] {
			for _, a := range snap.Aspects {
				if v, ok := a["com.linkedin.pegasus2avro.schema.SchemaMetadata"]; ok && src == nil {
					var probe struct{ Fields []any }
					_ = json.Unmarshal(v, &probe)
					if len(probe.Fields) >= 18 && len(probe.Fields) <= 30 {
						src, nfields = v, len(probe.Fields)
					}
				}
			}
		}
	}
	if src == nil {
		b.Skip("no schemaMetadata of about 20 fields")
	}
	b.Logf("%d fields, %d bytes", nfields, len(src))
	const batch = 256
	vals := make([]any, batch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%batch == 0 {
			b.StopTimer()
			for j := range vals {
				dec := json.NewDecoder(strings.NewReader(string(src)))
				dec.UseNumber()
				vals[j] = nil
				if err := dec.Decode(&vals[j]); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
		if _, err := r.Normalize("schemaMetadata", vals[i%batch]); err != nil {
			b.Fatal(err)
		}
	}
}
