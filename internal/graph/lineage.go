package graph

import (
	"context"
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
	// a direct upstream or downstream).
	Hops int
	// Path lists the URNs of one shortest path, from the start URN to URN
	// inclusive, so len(Path) == Hops+1.
	Path []string
	// Relationship names the edge that reached URN on Path, e.g. DownstreamOf.
	Relationship string
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
// up to maxHops hops away (maxHops <= 0: no limit). Each entity appears once,
// at its shortest distance, and urn itself never appears, even on a cycle.
// Within one hop level nodes come in a stable order: by the order of their
// parents, then by relationship and URN.
func (s *Service) Lineage(ctx context.Context, urn string, dir Direction, maxHops int) ([]LineageNode, error) {
	if dir != Upstream && dir != Downstream {
		return nil, catalog.Errorf(catalog.Invalid, "lineage direction %v: want upstream or downstream", dir)
	}
	start, err := catalog.ParseURN(urn)
	if err != nil {
		return nil, err
	}
	type node struct {
		urn  string
		path []string
	}
	visited := map[string]bool{urn: true}
	frontier := []node{{urn: start.String(), path: []string{start.String()}}}
	var out []LineageNode
	for hop := 1; len(frontier) > 0 && (maxHops <= 0 || hop <= maxHops); hop++ {
		urns := make([]string, len(frontier))
		for i, n := range frontier {
			urns[i] = n.urn
		}
		neighbours, err := s.neighbours(ctx, urns, dir)
		if err != nil {
			return nil, fmt.Errorf("%s lineage of %s, hop %d: %w", dir, urn, hop, err)
		}
		var next []node
		for i, parent := range frontier {
			for _, nb := range neighbours[i] {
				if visited[nb.urn] {
					continue
				}
				visited[nb.urn] = true
				if len(out) >= s.maxNodes {
					return nil, catalog.Errorf(catalog.TooLarge, "%s lineage of %s exceeds %d entities; ask for fewer hops", dir, urn, s.maxNodes)
				}
				// A fresh slice per node: siblings must not share a backing array.
				path := make([]string, len(parent.path)+1)
				copy(path, parent.path)
				path[len(parent.path)] = nb.urn
				out = append(out, LineageNode{URN: nb.urn, Hops: hop, Path: path, Relationship: nb.relationship})
				next = append(next, node{urn: nb.urn, path: path})
			}
		}
		frontier = next
	}
	return out, nil
}

type neighbour struct{ urn, relationship string }

// neighbours returns, for each of urns, its lineage neighbours in direction
// dir, in a stable order. The lookups run concurrently, bounded by the
// service's parallelism, because each is one small indexed query.
func (s *Service) neighbours(ctx context.Context, urns []string, dir Direction) ([][]neighbour, error) {
	out := make([][]neighbour, len(urns))
	if len(urns) == 1 {
		nb, err := s.neighboursOf(ctx, urns[0], dir)
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
				nb, err := s.neighboursOf(ctx, urns[i], dir)
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
func (s *Service) neighboursOf(ctx context.Context, urn string, dir Direction) ([]neighbour, error) {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return nil, err
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
				out = append(out, neighbour{e.Destination, e.Relationship})
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
				out = append(out, neighbour{e.Source, e.Relationship})
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
