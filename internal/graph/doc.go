// Package graph answers lineage questions over the relationship edges the
// ingest pipeline derives from aspects.
//
// Which relationships count as lineage, and which way each one points, is not
// written down here: it comes from the x-relationship annotations of the
// model, through the registry. An annotation marked isLineage makes its edges
// lineage edges. By default the destination of such an edge is upstream of its
// source (a dataset's upstreamLineage yields "dataset DownstreamOf upstream");
// an annotation with isUpstream=false points the other way (a dataJob's
// outputs yield "job Produces dataset", and the dataset is downstream of the
// job). So the upstreams of a node are the destinations of its outgoing
// isUpstream edges plus the sources of its incoming isUpstream=false edges,
// and the downstreams are the mirror image.
//
// Lineage walks the graph breadth first, one hop level at a time, so that a
// node is always reported at its shortest distance and with one shortest path.
// Every node is visited once, which makes the walk safe on cyclic graphs, and
// the edge lookups of a whole level run concurrently because the store
// answers one URN per query.
package graph
