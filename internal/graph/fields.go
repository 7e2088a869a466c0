package graph

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Column-level (fine-grained) lineage links the fields of datasets, as
// schemaField entities. The model states it inside the aspects of the
// datasets and jobs that hold it (upstreamLineage.fineGrainedLineages,
// dataJobInputOutput.fineGrainedLineages: lists of upstream and downstream
// field URNs), and the walk reads it there: a field's upstreams are the
// upstream fields of the entries naming it downstream, in its dataset's
// upstreamLineage or in the jobs producing its dataset; its downstreams are
// found through the edges that name the field as a fine-grained upstream
// (datasets) or the jobs consuming its dataset. As in DataHub, field
// lineage goes from field to field: the jobs in between are not hops.

// fieldLineageRelationship is the name DataHub gives field-to-field edges.
const fieldLineageRelationship = "DownstreamOf"

type fineGrained struct {
	Upstreams   []string `json:"upstreams"`
	Downstreams []string `json:"downstreams"`
}

// fineGrainedOf reads the fine-grained lineage entries of aspect on urns.
func (s *Service) fineGrainedOf(ctx context.Context, urns []string, aspect string) ([]fineGrained, error) {
	if len(urns) == 0 {
		return nil, nil
	}
	rows, err := s.r.LatestAspects(ctx, urns, []string{aspect})
	if err != nil {
		return nil, err
	}
	var out []fineGrained
	for _, u := range urns {
		for _, a := range rows[u] {
			var v struct {
				FineGrainedLineages []fineGrained `json:"fineGrainedLineages"`
			}
			if json.Unmarshal(a.Value, &v) == nil {
				out = append(out, v.FineGrainedLineages...)
			}
		}
	}
	return out, nil
}

// fieldNeighbours returns the fields upstream or downstream of the field
// urn (a schemaField URN whose first key part is its parent).
func (s *Service) fieldNeighbours(ctx context.Context, field catalog.URN, dir Direction) ([]neighbour, error) {
	parts := field.Parts()
	if len(parts) != 2 {
		return nil, nil
	}
	urn, parent := field.String(), parts[0]
	// The entities whose aspects may name the field: for upstreams its
	// dataset and the jobs producing it; for downstreams the datasets with
	// an edge to the field and the jobs consuming its dataset.
	var datasets, jobs []string
	if dir == Upstream {
		datasets = []string{parent}
		edges, _, err := s.r.Edges(ctx, catalog.EdgeQuery{URN: parent, Direction: catalog.Incoming, Relationships: []string{"Produces"}})
		if err != nil {
			return nil, err
		}
		for _, e := range edges {
			jobs = append(jobs, e.Source)
		}
	} else {
		edges, _, err := s.r.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Incoming, Relationships: []string{fieldLineageRelationship}})
		if err != nil {
			return nil, err
		}
		for _, e := range edges {
			if e.SourceAspect == "upstreamLineage" && !slices.Contains(datasets, e.Source) {
				datasets = append(datasets, e.Source)
			}
		}
		edges, _, err = s.r.Edges(ctx, catalog.EdgeQuery{URN: parent, Direction: catalog.Incoming, Relationships: []string{"Consumes"}})
		if err != nil {
			return nil, err
		}
		for _, e := range edges {
			jobs = append(jobs, e.Source)
		}
	}
	entries, err := s.fineGrainedOf(ctx, datasets, "upstreamLineage")
	if err != nil {
		return nil, err
	}
	more, err := s.fineGrainedOf(ctx, jobs, "dataJobInputOutput")
	if err != nil {
		return nil, err
	}
	var out []neighbour
	seen := map[string]bool{urn: true}
	for _, fg := range append(entries, more...) {
		from, to := fg.Downstreams, fg.Upstreams
		if dir == Downstream {
			from, to = fg.Upstreams, fg.Downstreams
		}
		if !slices.Contains(from, urn) {
			continue
		}
		for _, t := range to {
			if !seen[t] {
				seen[t] = true
				out = append(out, neighbour{urn: t, relationship: fieldLineageRelationship})
			}
		}
	}
	return out, nil
}
