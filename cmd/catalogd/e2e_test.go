package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/registry"
)

// TestSamplesRoundTrip replays every DataHub sample file through the HTTP
// endpoints and reads every entity back through entitiesV2, /entities and
// /aspects, comparing with what was sent.
func TestSamplesRoundTrip(t *testing.T) {
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			srv := startServer(t, db.args...)
			replay := replaySamples(t, srv)
			checkRoundTrip(t, srv, replay)
		})
	}
}

func replaySamples(t *testing.T, srv *testServer) *sampleReplay {
	t.Helper()
	dir := samplesDir(t)
	r := newSampleReplay(srv)
	for _, f := range sampleFiles(t, dir) {
		r.postFile(t, f)
	}
	for _, f := range []string{"data-platforms.yaml", "root-user.yaml", "root-user-editable-info.yaml", "ownership-types.yaml"} {
		r.postBootstrapYAML(t, filepath.Join(dir, "bootstrap", f))
	}
	return r
}

func checkRoundTrip(t *testing.T, srv *testServer, r *sampleReplay) {
	reg := registry.Default()
	urns := make([]string, 0, len(r.sent))
	for u := range r.sent {
		urns = append(urns, u)
	}
	sort.Strings(urns)
	checked := 0
	for _, urn := range urns {
		entityType := r.entity[urn]
		ent := reg.Entity(entityType)
		if ent == nil {
			t.Errorf("%s: entity type %q not in the registry", urn, entityType)
			continue
		}
		byName := r.sent[urn]

		v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(urn), nil))
		if v2["urn"] != urn || v2["entityName"] != ent.Name {
			t.Errorf("entitiesV2 %s: urn %v entityName %v", urn, v2["urn"], v2["entityName"])
		}
		aspects, _ := v2["aspects"].(map[string]any)
		if _, ok := aspects[ent.KeyAspect]; !ok {
			t.Errorf("entitiesV2 %s: key aspect %s missing", urn, ent.KeyAspect)
		}
		var snapshot map[string]any
		if ent.Snapshot != "" {
			snapshot = decode(t, srv.mustDo(t, 200, "GET", "/entities/"+pathEscape(urn), nil))
		}
		for name, a := range byName {
			spec := reg.Aspect(name)
			if spec == nil || spec.Timeseries {
				continue
			}
			env, _ := aspects[name].(map[string]any)
			if env == nil || !equivalent(a.value, env["value"]) {
				t.Errorf("entitiesV2 %s aspect %s:\n sent %s\n got  %s", urn, name, jsonString(a.value), jsonString(env["value"]))
			}
			got := decode(t, srv.mustDo(t, 200, "GET", "/aspects/"+pathEscape(urn)+"?aspect="+name+"&version=0", nil))
			inner, _ := got["aspect"].(map[string]any)
			if !equivalent(a.value, inner[spec.WireName]) || got["version"] != json.Number("0") {
				t.Errorf("/aspects %s aspect %s: got %s", urn, name, jsonString(got))
			}
			if snapshot != nil && slices.Contains(ent.SnapshotAspects, name) {
				if !snapshotHas(snapshot, ent.Snapshot, spec.WireName, a.value) {
					t.Errorf("/entities %s: aspect %s missing or different: %s", urn, spec.WireName, jsonString(snapshot))
				}
			}
			checked++
		}
	}
	if checked < 700 {
		t.Errorf("only %d aspects checked; the samples hold far more", checked)
	}
	t.Logf("%d entities, %d aspects read back through entitiesV2, /aspects and /entities", len(urns), checked)

	// Batch read, with URNs that carry commas and parentheses.
	ids := make([]string, 0, 5)
	for _, u := range urns {
		if strings.HasPrefix(u, "urn:li:dataset:") && len(ids) < 5 {
			ids = append(ids, pathEscape(u))
		}
	}
	batch := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2?ids=List("+strings.Join(ids, ",")+")&aspects=List(datasetKey,ownership)", nil))
	results, _ := batch["results"].(map[string]any)
	if len(results) != len(ids) {
		t.Errorf("batch entitiesV2: %d results for %d ids: %s", len(results), len(ids), jsonString(batch))
	}
}

func snapshotHas(doc map[string]any, snapshotName, wire string, sent any) bool {
	value, _ := doc["value"].(map[string]any)
	snap, _ := value[snapshotName].(map[string]any)
	list, _ := snap["aspects"].([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		if v, ok := m[wire]; ok {
			return equivalent(sent, v)
		}
	}
	return false
}
