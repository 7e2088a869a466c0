package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// updateLineage edits lineage where DataHub keeps it: a dataset's upstreams
// in its upstreamLineage, a chart's and a dashboard's in their info aspect,
// a data job's inputs and outputs in its dataJobInputOutput. An edge from a
// data job to a dataset is an output of the job; every other edge is an
// upstream of its downstream end. Edges the UI adds are marked
// {"source": "UI"}, as DataHub marks them.

// lineageSlot names the list of edges of one kind of upstream in an aspect,
// and the older list of bare URNs that DataHub still reads and clears.
type lineageSlot struct{ edges, legacy string }

// lineageTargets says, per downstream entity type other than dataset, which
// aspect holds its upstreams, whether that aspect must already exist (it
// has required fields an edit cannot make up), and where each type of
// upstream goes.
var lineageTargets = map[string]struct {
	aspect    string
	mustExist bool
	slots     map[string]lineageSlot
}{
	"chart": {"chartInfo", true, map[string]lineageSlot{"dataset": {"inputEdges", "inputs"}}},
	"dashboard": {"dashboardInfo", true, map[string]lineageSlot{
		"chart": {"chartEdges", "charts"}, "dataset": {"datasetEdges", "datasets"}}},
	"dataJob": {"dataJobInputOutput", false, map[string]lineageSlot{
		"dataset": {"inputDatasetEdges", "inputDatasets"}, "dataJob": {"inputDatajobEdges", "inputDatajobs"}}},
}

// jobOutputs is where a data job lists the datasets it writes.
var jobOutputs = lineageSlot{"outputDatasetEdges", "outputDatasets"}

// lineageEdits collects, per entity, the URNs to add to and remove from
// each slot of its lineage aspect.
type lineageEdits struct {
	order []string // entities in the order first met, for a stable write
	by    map[string]*lineageEdit
}

type lineageEdit struct {
	add, remove map[lineageSlot][]string
	// upstreams of a dataset, which keeps them in upstreamLineage.
	addUp, removeUp []string
}

func (e *lineageEdits) of(urn string) *lineageEdit {
	if e.by == nil {
		e.by = map[string]*lineageEdit{}
	}
	x, ok := e.by[urn]
	if !ok {
		x = &lineageEdit{add: map[lineageSlot][]string{}, remove: map[lineageSlot][]string{}}
		e.by[urn] = x
		e.order = append(e.order, urn)
	}
	return x
}

// UpdateLineage adds and removes lineage edges in one write: all of them or
// none. The caller needs EDIT_LINEAGE (or EDIT_ENTITY) on both ends of every
// edge, as in DataHub. Both ends of an added edge must exist; an edge may be
// removed from an existing downstream even when its upstream is gone.
func (r *mutationResolver) UpdateLineage(ctx context.Context, in model.UpdateLineageInput) (*bool, error) {
	var edits lineageEdits
	var ends []string
	need := map[string]bool{} // URNs that must exist
	for _, list := range []struct {
		edges []*model.LineageEdge
		add   bool
	}{{in.EdgesToAdd, true}, {in.EdgesToRemove, false}} {
		for _, e := range list.edges {
			if e == nil {
				continue
			}
			down, up := e.DownstreamUrn, e.UpstreamUrn
			for _, u := range []string{down, up} {
				if _, err := catalog.ParseURN(u); err != nil {
					return nil, err
				}
				if !slices.Contains(ends, u) {
					ends = append(ends, u)
				}
			}
			need[down] = true
			if list.add {
				need[up] = true
			}
			if err := edits.edge(down, up, list.add); err != nil {
				return nil, err
			}
		}
	}
	for _, u := range ends {
		if !need[u] {
			continue
		}
		ok, err := r.loaderOf(ctx).exists(ctx, u)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, invalidf("Cannot update lineage: entity %s does not exist", u)
		}
	}
	ctx, err := r.delegate(ctx, "edit lineage of the entity", ends, "EDIT_LINEAGE")
	if err != nil {
		return nil, err
	}
	props := make([]catalog.Proposal, 0, len(edits.order))
	for _, urn := range edits.order {
		props = append(props, lineageProposal(ctx, urn, edits.by[urn]))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// edge records the edge up → down, refusing the kinds of edges DataHub
// cannot store. Only added edges are checked for the upstream's type, as in
// DataHub: removing an edge that is not there changes nothing.
func (e *lineageEdits) edge(down, up string, add bool) error {
	dt, ut := urnType(down), urnType(up)
	put := func(x *lineageEdit, slot lineageSlot, urn string) {
		if add {
			x.add[slot] = append(x.add[slot], urn)
		} else {
			x.remove[slot] = append(x.remove[slot], urn)
		}
	}
	switch {
	case ut == "dataJob" && dt == "dataset":
		put(e.of(up), jobOutputs, down)
	case dt == "dataset":
		if add && ut != "dataset" {
			return invalidf("Cannot add %s as an upstream of dataset %s: a dataset's upstreams are datasets or data jobs", up, down)
		}
		x := e.of(down)
		if add {
			x.addUp = append(x.addUp, up)
		} else {
			x.removeUp = append(x.removeUp, up)
		}
	default:
		t, ok := lineageTargets[dt]
		if !ok {
			return invalidf("Cannot edit the lineage of %s: lineage is edited on datasets, charts, dashboards and data jobs", down)
		}
		slot, ok := t.slots[ut]
		if !ok {
			if add {
				return invalidf("Cannot add %s as an upstream of %s %s", up, dt, down)
			}
			return nil
		}
		put(e.of(down), slot, up)
	}
	return nil
}

// lineageProposal is the edit of urn's lineage aspect that applies x.
func lineageProposal(ctx context.Context, urn string, x *lineageEdit) catalog.Proposal {
	st := stamp(ctx)
	newEdge := func(src, dst string) map[string]any {
		return map[string]any{"sourceUrn": src, "destinationUrn": dst, "created": st, "lastModified": st,
			"properties": map[string]any{"source": "UI"}}
	}
	dt := urnType(urn)
	if dt == "dataset" {
		return editedObject(urn, "upstreamLineage", func(m map[string]any, _ bool) error {
			ups, _ := m["upstreams"].([]any)
			for _, u := range x.addUp {
				if slices.ContainsFunc(ups, func(v any) bool { return jsonString(asObject(v), "dataset") == u }) {
					continue
				}
				ups = append(ups, map[string]any{"dataset": u, "type": "TRANSFORMED", "auditStamp": st, "created": st,
					"properties": map[string]any{"source": "UI"}})
			}
			m["upstreams"] = withoutAny(ups, func(v any) bool { return slices.Contains(x.removeUp, jsonString(asObject(v), "dataset")) })
			return nil
		})
	}
	// Any other entity edge put here is a chart, a dashboard or a data job.
	aspect, mustExist := lineageTargets[dt].aspect, lineageTargets[dt].mustExist
	return editedObject(urn, aspect, func(m map[string]any, found bool) error {
		if !found && mustExist {
			return invalidf("Cannot update the lineage of %s: it has no %s", urn, aspect)
		}
		if aspect == "dataJobInputOutput" {
			// Required by the schema.
			for _, f := range []string{"inputDatasets", "outputDatasets"} {
				if _, ok := m[f]; !ok {
					m[f] = []any{}
				}
			}
		}
		slots := map[lineageSlot]bool{}
		for s := range x.add {
			slots[s] = true
		}
		for s := range x.remove {
			slots[s] = true
		}
		for s := range slots {
			edges, _ := m[s.edges].([]any)
			legacy, _ := m[s.legacy].([]any)
			for _, u := range x.add[s] {
				there := slices.ContainsFunc(edges, func(v any) bool { return jsonString(asObject(v), "destinationUrn") == u }) ||
					slices.ContainsFunc(legacy, func(v any) bool { return refersTo(v, u) })
				if !there {
					edges = append(edges, newEdge(urn, u))
				}
			}
			rm := x.remove[s]
			m[s.edges] = withoutAny(edges, func(v any) bool { return slices.Contains(rm, jsonString(asObject(v), "destinationUrn")) })
			if _, ok := m[s.legacy]; ok {
				m[s.legacy] = withoutAny(legacy, func(v any) bool { return slices.ContainsFunc(rm, func(u string) bool { return refersTo(v, u) }) })
			}
		}
		return nil
	})
}

// refersTo reports whether v, a URN or a union holding one (a chart's
// inputs), is urn.
func refersTo(v any, urn string) bool {
	switch x := v.(type) {
	case string:
		return x == urn
	case map[string]any:
		for _, w := range x {
			if w == urn {
				return true
			}
		}
	}
	return false
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// editedObject is an UPSERT of one aspect, edited as a JSON object inside
// the write transaction like edited, by an fn that may refuse the change
// with an error. The object is empty when the aspect is absent.
func editedObject(urn, aspect string, fn func(m map[string]any, found bool) error) catalog.Proposal {
	return catalog.Proposal{EntityType: urnType(urn), EntityURN: urn, ChangeType: catalog.Upsert, AspectName: aspect, ContentType: "application/json",
		Edit: func(cur json.RawMessage) (json.RawMessage, error) {
			m := map[string]any{}
			if cur != nil {
				if err := jsonUnmarshal(cur, &m); err != nil {
					return nil, fmt.Errorf("decode %s of %s: %w", aspect, urn, err)
				}
				if m == nil {
					m = map[string]any{}
				}
			}
			if err := fn(m, cur != nil); err != nil {
				return nil, err
			}
			return json.Marshal(m)
		}}
}
