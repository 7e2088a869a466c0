package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

// Direction says which way a lineage walk goes.
type Direction int

// The lineage directions.
const (
	Upstream   Direction = iota + 1 // towards the sources of the data
	Downstream                      // towards its consumers
)

func (d Direction) String() string {
	switch d {
	case Upstream:
		return "upstream"
	case Downstream:
		return "downstream"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// LineageNode is one entity reached by a lineage walk.
type LineageNode struct {
	URN string
	// Hops is the length of the shortest lineage path from the start (1 for
	// a direct upstream or downstream); entities walked through as
	// IgnoredAsHop do not count.
	Hops int
	// Path lists the URNs of one shortest path, from the start URN to URN
	// inclusive; it is Paths[0].
	Path []string
	// Paths lists the shortest paths found (at most MaxPaths), each from
	// the start URN to URN inclusive.
	Paths [][]string
	// Degrees lists, ascending, every distance at which the walk met URN.
	Degrees []int
	// Relationship names the edge that reached URN on Path, e.g. DownstreamOf.
	Relationship string
	// edge is the Properties of the edge that reached URN on Path, which
	// Stamps decodes.
	edge json.RawMessage
	// Explored reports that the walk looked for URN's own neighbours.
	Explored bool
	// IgnoredAsHop reports an entity that Query.IgnoreAsHops let the walk
	// pass through without counting a hop.
	IgnoredAsHop bool
	// TruncatedChildren reports that Query.PerHopLimit left some of URN's
	// neighbours out.
	TruncatedChildren bool
}

// MaxPaths bounds the paths kept per node: the number of shortest paths
// grows exponentially with the width of a graph, and a client shows a few.
const MaxPaths = 20

// Query asks for a lineage walk.
type Query struct {
	URN       string
	Direction Direction
	// MaxHops bounds the distance (<= 0: no bound).
	MaxHops int
	// StartTimeMillis and EndTimeMillis, when EndTimeMillis > 0, keep only
	// the edges whose recorded createdOn or updatedOn falls within
	// [StartTimeMillis, EndTimeMillis], plus those that record neither and
	// the manual ones, as DataHub's graph filters edges by time.
	StartTimeMillis, EndTimeMillis int64
	// PerHopLimit, when > 0, bounds how many new neighbours of each entity
	// one hop explores (DataHub's entitiesExploredPerHopLimit).
	PerHopLimit int
	// IgnoreAsHops names entity types (lower case), each with the platform
	// URNs it applies to (none: every platform), whose entities the walk
	// passes through without counting a hop (DataHub's ignoreAsHops).
	IgnoreAsHops map[string][]string
}

// Defaults of a Service.
const (
	DefaultMaxNodes    = 100_000
	DefaultParallelism = 8
)

// Service walks lineage over a store's edges. It is safe for concurrent use.
type Service struct {
	r        catalog.Reader
	rules    map[string]*entityRules // entity type → what to look up for it
	lineage  map[lineageKey][]lineageSpec
	maxNodes int
	parallel int
}

// Option configures a Service.
type Option func(*Service)

// WithMaxNodes bounds the number of nodes one walk may collect (default
// DefaultMaxNodes); a walk that would exceed it fails rather than answering
// with a silently partial graph.
func WithMaxNodes(n int) Option { return func(s *Service) { s.maxNodes = n } }

// WithParallelism sets how many edge lookups of one hop level run at once
// (default DefaultParallelism, matching the store's smallest connection pool).
func WithParallelism(n int) Option { return func(s *Service) { s.parallel = n } }

// entityRules are the relationship names to ask the store for, per lookup
// direction, when walking from a node of one entity type.
type entityRules struct {
	// For upstream walks: outgoing isUpstream edges and incoming
	// isUpstream=false edges; for downstream walks the mirror image.
	upOut, upIn, downOut, downIn []string
}

// lineageKey identifies the annotation(s) an edge may come from: the stored
// edge knows its source aspect and relationship name.
type lineageKey struct{ aspect, relationship string }

type lineageSpec struct {
	upstream  bool
	destTypes map[string]bool // empty: any entity type
}

// New returns a lineage service reading edges from r, with the lineage
// relationships of reg's model.
func New(r catalog.Reader, reg *registry.Registry, opts ...Option) *Service {
	s := &Service{
		r:        r,
		rules:    map[string]*entityRules{},
		lineage:  map[lineageKey][]lineageSpec{},
		maxNodes: DefaultMaxNodes,
		parallel: DefaultParallelism,
	}
	for _, o := range opts {
		o(s)
	}
	if s.parallel < 1 {
		s.parallel = 1
	}
	// Keyed by lower-cased name: URNs and annotations do not always agree
	// on the case of entity types (corpuser, corpUser).
	rule := func(entity string) *entityRules {
		k := strings.ToLower(entity)
		r := s.rules[k]
		if r == nil {
			r = &entityRules{}
			s.rules[k] = r
		}
		return r
	}
	entities := reg.Entities()
	for i := range reg.Aspects() {
		a := &reg.Aspects()[i]
		for _, rel := range a.Relationships {
			if !rel.IsLineage {
				continue
			}
			spec := lineageSpec{upstream: rel.IsUpstream, destTypes: map[string]bool{}}
			for _, t := range rel.EntityTypes {
				spec.destTypes[strings.ToLower(t)] = true
			}
			k := lineageKey{a.Name, rel.Name}
			s.lineage[k] = append(s.lineage[k], spec)
			// Sources: the entities carrying the aspect.
			for j := range entities {
				if !reg.EntityHasAspect(entities[j].Name, a.Name) {
					continue
				}
				r := rule(entities[j].Name)
				if rel.IsUpstream {
					r.upOut = addName(r.upOut, rel.Name)
				} else {
					r.downOut = addName(r.downOut, rel.Name)
				}
			}
			// Destinations: the entity types the annotation allows, or all.
			for j := range entities {
				name := entities[j].Name
				if len(spec.destTypes) > 0 && !spec.destTypes[strings.ToLower(name)] {
					continue
				}
				r := rule(name)
				if rel.IsUpstream {
					r.downIn = addName(r.downIn, rel.Name)
				} else {
					r.upIn = addName(r.upIn, rel.Name)
				}
			}
		}
	}
	return s
}

func addName(list []string, name string) []string {
	if slices.Contains(list, name) {
		return list
	}
	list = append(list, name)
	sort.Strings(list)
	return list
}

// LineageRelationships returns the names of the relationships that lineage
// walks follow, sorted.
func (s *Service) LineageRelationships() []string {
	var out []string
	for k := range s.lineage {
		out = addName(out, k.relationship)
	}
	return out
}

// Lineage returns the entities upstream or downstream of urn, nearest first,
// up to maxHops hops away (maxHops <= 0: no limit). It is Walk with no time
// bounds, limits or pass-through types.
func (s *Service) Lineage(ctx context.Context, urn string, dir Direction, maxHops int) ([]LineageNode, error) {
	return s.Walk(ctx, Query{URN: urn, Direction: dir, MaxHops: maxHops})
}

// Walk returns the entities upstream or downstream of q.URN, nearest first.
// Each entity appears once, at its shortest distance, and the start itself
// never appears, even on a cycle. Within one hop level nodes come in a
// stable order: by the order of their parents, then by relationship and URN.
func (s *Service) Walk(ctx context.Context, q Query) ([]LineageNode, error) {
	dir := q.Direction
	if dir != Upstream && dir != Downstream {
		return nil, catalog.Errorf(catalog.Invalid, "lineage direction %v: want upstream or downstream", dir)
	}
	if q.EndTimeMillis > 0 && q.StartTimeMillis > q.EndTimeMillis {
		return nil, catalog.Errorf(catalog.Invalid, "lineage start time %d is after its end time %d", q.StartTimeMillis, q.EndTimeMillis)
	}
	start, err := catalog.ParseURN(q.URN)
	if err != nil {
		return nil, err
	}
	urn := start.String()
	var out []LineageNode
	index := map[string]int{} // URN → position in out
	paths := map[string][][]string{urn: {{urn}}}
	frontier := []string{urn}
	for hop := 1; len(frontier) > 0 && (q.MaxHops <= 0 || hop <= q.MaxHops); hop++ {
		var next []string
		// Entities passed through as no hop are expanded within the same
		// hop, their neighbours at the same distance.
		for level := frontier; len(level) > 0; {
			neighbours, err := s.neighbours(ctx, level, dir, &q)
			if err != nil {
				return nil, fmt.Errorf("%s lineage of %s, hop %d: %w", dir, urn, hop, err)
			}
			var same []string
			for i, parent := range level {
				added := 0
				for _, nb := range neighbours[i] {
					if nb.urn == urn {
						continue
					}
					if at, ok := index[nb.urn]; ok {
						n := &out[at]
						if n.Hops == hop {
							n.Paths = extendPaths(n.Paths, paths[parent], nb.urn)
							paths[nb.urn] = n.Paths
						}
						if !slices.Contains(n.Degrees, hop) {
							n.Degrees = append(n.Degrees, hop)
							sort.Ints(n.Degrees)
						}
						continue
					}
					if q.PerHopLimit > 0 && added >= q.PerHopLimit {
						if at, ok := index[parent]; ok {
							out[at].TruncatedChildren = true
						}
						continue
					}
					added++
					if len(out) >= s.maxNodes {
						return nil, catalog.Errorf(catalog.TooLarge, "%s lineage of %s exceeds %d entities; ask for fewer hops", dir, urn, s.maxNodes)
					}
					ps := extendPaths(nil, paths[parent], nb.urn)
					paths[nb.urn] = ps
					n := LineageNode{URN: nb.urn, Hops: hop, Paths: ps, Degrees: []int{hop}, Relationship: nb.relationship,
						edge: nb.edge}
					if s.ignoredAsHop(nb.urn, q.IgnoreAsHops) {
						n.IgnoredAsHop = true
						same = append(same, nb.urn)
					}
					index[nb.urn] = len(out)
					out = append(out, n)
					next = append(next, nb.urn)
				}
			}
			level = same
		}
		if q.MaxHops <= 0 || hop < q.MaxHops {
			for _, u := range next {
				out[index[u]].Explored = true
			}
		}
		frontier = next
	}
	for i := range out {
		out[i].Path = out[i].Paths[0]
	}
	return out, nil
}

// extendPaths appends to dst each of parents extended by urn, up to MaxPaths
// in all. Every path is a fresh slice: siblings must not share a backing
// array.
func extendPaths(dst, parents [][]string, urn string) [][]string {
	for _, p := range parents {
		if len(dst) >= MaxPaths {
			break
		}
		path := make([]string, len(p)+1)
		copy(path, p)
		path[len(p)] = urn
		dst = append(dst, path)
	}
	return dst
}

// ignoredAsHop reports whether urn is of a type (and platform) the walk
// passes through without counting a hop.
func (s *Service) ignoredAsHop(urn string, ignore map[string][]string) bool {
	if len(ignore) == 0 {
		return false
	}
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return false
	}
	platforms, ok := ignore[strings.ToLower(u.EntityType())]
	if !ok {
		return false
	}
	if len(platforms) == 0 {
		return true
	}
	p := PlatformOf(urn)
	return p != "" && slices.Contains(platforms, p)
}

// PlatformOf returns the data platform URN an entity's URN names, "" when
// it names none: a dataset's first key part, a dataFlow's orchestrator, a
// dataJob's flow's, a chart's or dashboard's tool.
func PlatformOf(urn string) string {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return ""
	}
	parts := u.Parts()
	if len(parts) == 0 {
		return ""
	}
	switch strings.ToLower(u.EntityType()) {
	case "datajob":
		return PlatformOf(parts[0])
	case "dataset", "mlmodel", "mlmodelgroup":
		return parts[0]
	case "dataflow", "chart", "dashboard":
		return "urn:li:dataPlatform:" + parts[0]
	}
	return ""
}

// Stamps decodes, from the edge that reached URN on Path, the times and
// actors it records (zero when its source stated none) and whether it was
// drawn by hand in the UI (properties.source "UI"). It is a method, not
// fields filled by the walk, because a walk may reach 10,000 entities of
// which a page shows a few: decoding every edge was a tenth of the time of
// such a lineage (BenchmarkUIPages).
func (n LineageNode) Stamps() (created, updated catalog.AuditStamp, manual bool) {
	m := catalog.Edge{Properties: n.edge}.Meta()
	return catalog.AuditStamp{Time: m.CreatedOn, Actor: m.CreatedActor}, catalog.AuditStamp{Time: m.UpdatedOn, Actor: m.UpdatedActor},
		m.Properties["source"] == "UI"
}

type neighbour struct {
	urn, relationship string
	edge              json.RawMessage
}

// newNeighbour is the neighbour other reached by e, or false when q's time
// bounds leave e out.
func newNeighbour(other string, e catalog.Edge, q *Query) (neighbour, bool) {
	nb := neighbour{urn: other, relationship: e.Relationship, edge: e.Properties}
	if q == nil || q.EndTimeMillis <= 0 {
		return nb, true
	}
	m := e.Meta()
	if m.Properties["source"] == "UI" || (m.CreatedOn == 0 && m.UpdatedOn == 0) {
		return nb, true
	}
	in := func(t int64) bool { return t > 0 && t >= q.StartTimeMillis && t <= q.EndTimeMillis }
	return nb, in(m.CreatedOn) || in(m.UpdatedOn)
}

// neighbours returns, for each of urns, its lineage neighbours in direction
// dir, in a stable order. The lookups run concurrently, bounded by the
// service's parallelism, because each is one small indexed query.
func (s *Service) neighbours(ctx context.Context, urns []string, dir Direction, q *Query) ([][]neighbour, error) {
	out := make([][]neighbour, len(urns))
	if len(urns) == 1 {
		nb, err := s.neighboursOf(ctx, urns[0], dir, q)
		out[0] = nb
		return out, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	work := make(chan int)
	for range min(s.parallel, len(urns)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				nb, err := s.neighboursOf(ctx, urns[i], dir, q)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
					continue
				}
				out[i] = nb
			}
		}()
	}
feed:
	for i := range urns {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// neighboursOf asks the store for the lineage edges of one node: at most two
// queries, restricted to the relationship names that can be lineage for the
// node's entity type, then filtered on the annotations the edges came from.
func (s *Service) neighboursOf(ctx context.Context, urn string, dir Direction, q *Query) ([]neighbour, error) {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(u.EntityType(), "schemaField") {
		return s.fieldNeighbours(ctx, u, dir)
	}
	rules := s.rules[strings.ToLower(u.EntityType())]
	if rules == nil {
		return nil, nil
	}
	// "upstream" edges point from the downstream node to the upstream one.
	outNames, inNames, wantUpstreamFlag := rules.upOut, rules.upIn, true
	if dir == Downstream {
		outNames, inNames, wantUpstreamFlag = rules.downOut, rules.downIn, false
	}
	var out []neighbour
	if len(outNames) > 0 {
		edges, _, err := s.r.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Outgoing, Relationships: outNames})
		if err != nil {
			return nil, err
		}
		for _, e := range edges {
			// Outgoing: an isUpstream edge leads upstream, isUpstream=false downstream.
			if s.isLineage(e, wantUpstreamFlag) {
				if nb, ok := newNeighbour(e.Destination, e, q); ok {
					out = append(out, nb)
				}
			}
		}
	}
	if len(inNames) > 0 {
		edges, _, err := s.r.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Incoming, Relationships: inNames})
		if err != nil {
			return nil, err
		}
		for _, e := range edges {
			// Incoming: the other way round.
			if s.isLineage(e, !wantUpstreamFlag) {
				if nb, ok := newNeighbour(e.Source, e, q); ok {
					out = append(out, nb)
				}
			}
		}
	}
	return out, nil
}

// isLineage reports whether e was derived from a lineage annotation with the
// given isUpstream flag. The relationship name alone is not enough: Consumes
// from dataJobInputOutput's field lists, say, is not lineage, while Consumes
// from its dataset lists is.
func (s *Service) isLineage(e catalog.Edge, upstream bool) bool {
	dest, err := catalog.ParseURN(e.Destination)
	if err != nil {
		return false
	}
	for _, spec := range s.lineage[lineageKey{e.SourceAspect, e.Relationship}] {
		if spec.upstream == upstream && (len(spec.destTypes) == 0 || spec.destTypes[strings.ToLower(dest.EntityType())]) {
			return true
		}
	}
	return false
}
