package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

// referencePage is how many incoming edges one read of the graph returns
// while looking for the entities that name a deleted one.
const referencePage = 1000

// removeReferences takes urn, an entity the request has just deleted, out
// of the aspects of other entities that name it, as DataHub's reference
// removal does after a hard delete: each aspect whose relationship
// annotations allow urn's entity type is rewritten without urn at the
// annotated paths (see registry.RemoveReference), or deleted when nothing
// valid is left of it. The aspects are found through the graph's incoming
// edges, and among the entities the request wrote before, whose edges are
// not rewritten yet. The changes are part of the request: they commit or
// roll back with the delete, are audited, and reindex the entities.
func (a *applier) removeReferences(ctx context.Context, urn string) error {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return err
	}
	typ := u.EntityType()
	seen := map[string]bool{urn: true}
	var sources []string
	add := func(src string) {
		if !seen[src] {
			seen[src] = true
			sources = append(sources, src)
		}
	}
	for _, src := range a.order {
		add(src)
	}
	for start := 0; ; start += referencePage {
		edges, total, err := a.tx.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Incoming, Start: start, Count: referencePage})
		if err != nil {
			return err
		}
		for _, e := range edges {
			add(e.Source)
		}
		if len(edges) < referencePage || start+len(edges) >= total {
			break
		}
	}
	var missing []string
	for _, src := range sources {
		if _, ok := a.state[src]; !ok {
			missing = append(missing, src)
		}
	}
	if len(missing) > 0 {
		cur, err := a.tx.Current(ctx, missing)
		if err != nil {
			return err
		}
		for _, src := range missing {
			m := make(map[string]*slot, len(cur[src]))
			for name, c := range cur[src] {
				m[name] = &slot{cur: c.Aspect, max: c.MaxVersion, exists: true, stored: true}
			}
			a.state[src] = m
		}
	}
	for _, src := range sources {
		if err := a.removeReferencesFrom(ctx, src, urn, typ); err != nil {
			return err
		}
	}
	return nil
}

// removeReferencesFrom takes ref, an entity of type typ, out of the aspects
// of src.
func (a *applier) removeReferencesFrom(ctx context.Context, src, ref, typ string) error {
	slots := a.state[src]
	if len(slots) == 0 {
		return nil
	}
	su, err := catalog.ParseURN(src)
	if err != nil {
		return nil // not an entity the store could hold
	}
	ent := a.svc.reg.Entity(su.EntityType())
	if ent == nil {
		return nil
	}
	names := make([]string, 0, len(slots))
	for name := range slots {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := slots[name]
		spec := a.svc.reg.Aspect(name)
		// A key names the entity itself: a URN in it is part of the
		// entity's identity, not a reference that can go.
		if s == nil || !s.exists || spec == nil || spec.Timeseries || name == ent.KeyAspect || !bytesContain(s.cur.Value, ref) {
			continue
		}
		var v any
		changed, drop := false, false
		for _, rel := range spec.Relationships {
			if len(rel.EntityTypes) > 0 && !containsFold(rel.EntityTypes, typ) {
				continue
			}
			if v == nil {
				// Decoded afresh: RemoveReference edits in place and
				// s.value may be shared.
				if v, err = decodeJSON(s.cur.Value); err != nil {
					return fmt.Errorf("decode stored %s of %s: %w", name, src, err)
				}
			}
			out, ch, dr, err := a.svc.reg.RemoveReference(name, v, rel.Path, ref)
			if err != nil {
				// As in DataHub, such an aspect keeps the reference
				// rather than become invalid.
				slog.WarnContext(ctx, "reference to a deleted entity kept", "entity", src, "aspect", name, "reference", ref, "err", err)
				changed, drop = false, false
				break
			}
			if ch {
				changed = true
			}
			if dr {
				drop = true
				break
			}
			v = out
		}
		if !changed {
			continue
		}
		a.touch(src, ent)
		if drop {
			if err := a.flush(ctx); err != nil {
				return err
			}
			if err := a.deleteAspect(ctx, src, ent.Name, name); err != nil {
				return err
			}
			continue
		}
		if v, err = a.svc.reg.Normalize(name, v); err != nil {
			slog.WarnContext(ctx, "reference to a deleted entity kept", "entity", src, "aspect", name, "reference", ref, "err", err)
			continue
		}
		canon, err := canonicalJSON(v)
		if err != nil {
			return err
		}
		sm, err := systemMetadata(nil, a.now)
		if err != nil {
			return err
		}
		if err := a.put(ctx, src, name, v, canon, sm); err != nil {
			return err
		}
	}
	return nil
}

// bytesContain reports whether the JSON value b holds s, as a quick test
// before decoding it. A URN written with escapes would be missed, but
// values are stored in canonical JSON, which escapes no URN character.
func bytesContain(b []byte, s string) bool {
	return bytes.Contains(b, []byte(s))
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// KeyedReferenceFinder finds the entities whose aspects name an entity in a
// keyed searchable field (catalog.SearchableSpec.KeyPath), such as the
// values of a structured property on assets: the graph has no edge for
// those, the search index has a field.
type KeyedReferenceFinder interface {
	// FindKeyedReferences returns up to count URNs of entities whose
	// search documents hold a keyed field for urn, soft-deleted ones
	// included.
	FindKeyedReferences(ctx context.Context, urn string, count int) ([]string, error)
}

// WithKeyedReferenceFinder makes the service take a deleted entity out of
// the keyed fields that name it (structured property values), which f
// finds, once the delete has committed.
func WithKeyedReferenceFinder(f KeyedReferenceFinder) Option {
	return func(s *Service) { s.keyed = f }
}

// keyedPage is how many entities one round of removeKeyedReferences edits.
const keyedPage = 100

// removeKeyedReferences takes urn, a deleted entity, out of the keyed
// fields that name it, as the system, a page of entities at a time, as
// DataHub does once a structured property is deleted. It runs after the
// delete committed: the search index that finds the entities may lag the
// store, and a round that finds nothing left to remove ends it. Failures
// are logged, the delete stands.
func (s *Service) removeKeyedReferences(ctx context.Context, urn string) {
	for range 1000 {
		srcs, err := s.keyed.FindKeyedReferences(ctx, urn, keyedPage)
		if err != nil {
			slog.ErrorContext(ctx, "find the entities naming a deleted entity", "urn", urn, "err", err)
			return
		}
		var props []catalog.Proposal
		for _, src := range srcs {
			props = append(props, s.keyedRemovals(src, urn)...)
		}
		if len(props) == 0 {
			return
		}
		res, err := s.Ingest(ctx, catalog.SystemActor, props)
		if err != nil {
			slog.ErrorContext(ctx, "remove the values naming a deleted entity", "urn", urn, "err", err)
			return
		}
		if res.Written == 0 {
			return
		}
	}
}

// keyedRemovals are the edits that take ref out of the keyed fields of the
// aspects of src.
func (s *Service) keyedRemovals(src, ref string) []catalog.Proposal {
	u, err := catalog.ParseURN(src)
	if err != nil {
		return nil
	}
	ent := s.reg.Entity(u.EntityType())
	if ent == nil {
		return nil
	}
	var props []catalog.Proposal
	for _, name := range ent.Aspects {
		spec := s.reg.Aspect(name)
		if spec == nil || spec.Timeseries {
			continue
		}
		var keyed []catalog.SearchableSpec
		for _, ss := range spec.Searchable {
			if ss.KeyPath != "" && strings.HasSuffix(ss.Path, "/*") && !strings.Contains(strings.TrimSuffix(ss.Path, "/*"), "*") {
				keyed = append(keyed, ss)
			}
		}
		if len(keyed) == 0 {
			continue
		}
		props = append(props, catalog.Proposal{EntityType: ent.Name, EntityURN: src, AspectName: name, ChangeType: catalog.Upsert,
			Edit: func(cur json.RawMessage) (json.RawMessage, error) {
				if cur == nil || !bytes.Contains(cur, []byte(ref)) {
					return nil, nil
				}
				v, err := decodeJSON(cur)
				if err != nil {
					return nil, err
				}
				changed := false
				for _, ss := range keyed {
					if withoutKeyed(v, registry.CompilePath(strings.TrimSuffix(ss.Path, "/*")), registry.CompilePath(ss.KeyPath), ref) {
						changed = true
					}
				}
				if !changed {
					return nil, nil
				}
				return canonicalJSON(v)
			}})
	}
	return props
}

// withoutKeyed removes from the array at path in v the elements whose
// value at key is ref, reporting whether it removed any.
func withoutKeyed(v any, path, key registry.Path, ref string) bool {
	if len(path) == 0 {
		return false
	}
	for _, seg := range path[:len(path)-1] {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		v = m[seg]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	last := path[len(path)-1]
	list, ok := m[last].([]any)
	if !ok {
		return false
	}
	kept := slices.DeleteFunc(slices.Clone(list), func(e any) bool {
		ks := key.Extract(e)
		return len(ks) == 1 && ks[0] == ref
	})
	if len(kept) == len(list) {
		return false
	}
	m[last] = kept
	return true
}
