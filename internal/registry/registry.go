// Package registry is the runtime view of the generated registry tables
// (gen/registry): entity and aspect lookups, URN <-> key conversion, the
// compiled aspect validators that normalise incoming values, and the path
// extractors used by search and graph indexing.
package registry

import (
	"fmt"
	"strings"
	"sync"

	genregistry "github.com/catalogd/catalogd/gen/registry"
	"github.com/catalogd/catalogd/internal/catalog"
)

// Registry answers questions about the metadata model. It is immutable and
// safe for concurrent use. Specs it returns point into the registry and must
// not be modified.
type Registry struct {
	entities []catalog.EntitySpec
	aspects  []catalog.AspectSpec

	entityByName     map[string]*catalog.EntitySpec // lower-cased name
	entityBySnapshot map[string]*catalog.EntitySpec
	aspectByName     map[string]*aspectEntry
	aspectByWire     map[string]*aspectEntry
	entityAspects    map[*catalog.EntitySpec]map[string]bool // key aspect included
}

type aspectEntry struct {
	spec *catalog.AspectSpec
	once sync.Once
	root *node
	err  error
}

// New builds a registry from entity and aspect specs. It checks that names
// are unique and that every non-key aspect an entity names exists; aspect
// schemas are compiled on first use (see CompileAll).
func New(entities []catalog.EntitySpec, aspects []catalog.AspectSpec) (*Registry, error) {
	r := &Registry{
		entities:         append([]catalog.EntitySpec(nil), entities...),
		aspects:          append([]catalog.AspectSpec(nil), aspects...),
		entityByName:     make(map[string]*catalog.EntitySpec, len(entities)),
		entityBySnapshot: map[string]*catalog.EntitySpec{},
		aspectByName:     make(map[string]*aspectEntry, len(aspects)),
		aspectByWire:     make(map[string]*aspectEntry, len(aspects)),
		entityAspects:    make(map[*catalog.EntitySpec]map[string]bool, len(entities)),
	}
	for i := range r.aspects {
		a := &r.aspects[i]
		if a.Name == "" {
			return nil, fmt.Errorf("registry: aspect #%d has no name", i)
		}
		if r.aspectByName[a.Name] != nil {
			return nil, fmt.Errorf("registry: duplicate aspect %q", a.Name)
		}
		e := &aspectEntry{spec: a}
		r.aspectByName[a.Name] = e
		if a.WireName != "" {
			if o := r.aspectByWire[a.WireName]; o != nil {
				return nil, fmt.Errorf("registry: aspects %q and %q share the wire name %q", o.spec.Name, a.Name, a.WireName)
			}
			r.aspectByWire[a.WireName] = e
		}
	}
	for i := range r.entities {
		e := &r.entities[i]
		lname := strings.ToLower(e.Name)
		if e.Name == "" {
			return nil, fmt.Errorf("registry: entity #%d has no name", i)
		}
		if r.entityByName[lname] != nil {
			return nil, fmt.Errorf("registry: duplicate entity %q", e.Name)
		}
		if len(e.KeyFields) == 0 {
			return nil, fmt.Errorf("registry: entity %q has no key fields", e.Name)
		}
		r.entityByName[lname] = e
		if e.Snapshot != "" {
			if o := r.entityBySnapshot[e.Snapshot]; o != nil {
				return nil, fmt.Errorf("registry: entities %q and %q share the snapshot %q", o.Name, e.Name, e.Snapshot)
			}
			r.entityBySnapshot[e.Snapshot] = e
		}
		set := map[string]bool{e.KeyAspect: true}
		for _, lists := range [][]string{e.Aspects, e.SnapshotAspects} {
			for _, a := range lists {
				if r.aspectByName[a] == nil && a != e.KeyAspect {
					return nil, fmt.Errorf("registry: entity %q names unknown aspect %q", e.Name, a)
				}
				set[a] = true
			}
		}
		r.entityAspects[e] = set
	}
	return r, nil
}

var (
	defaultOnce sync.Once
	defaultReg  *Registry
)

// Default returns the registry of the generated model (gen/registry), built once.
// It panics if the generated tables are inconsistent, which schemagen prevents.
func Default() *Registry {
	defaultOnce.Do(func() {
		r, err := New(genregistry.Entities, genregistry.Aspects)
		if err != nil {
			panic("registry: generated tables are inconsistent: " + err.Error())
		}
		defaultReg = r
	})
	return defaultReg
}

// Entity returns the entity spec named name (case-insensitively), or nil.
func (r *Registry) Entity(name string) *catalog.EntitySpec {
	if e := r.entityByName[name]; e != nil {
		return e
	}
	return r.entityByName[strings.ToLower(name)]
}

// Aspect returns the aspect spec named name (exactly), or nil.
func (r *Registry) Aspect(name string) *catalog.AspectSpec {
	if e := r.aspectByName[name]; e != nil {
		return e.spec
	}
	return nil
}

// AspectByWireName returns the aspect whose fully qualified Pegasus name is
// fqn, or nil. Avro names (com.linkedin.pegasus2avro.<ns>.<Record>) are accepted.
func (r *Registry) AspectByWireName(fqn string) *catalog.AspectSpec {
	if e := r.aspectByWire[fqn]; e != nil {
		return e.spec
	}
	if s := StripAvroNamespace(fqn); s != fqn {
		if e := r.aspectByWire[s]; e != nil {
			return e.spec
		}
	}
	return nil
}

// EntityBySnapshot returns the entity whose legacy snapshot record is fqn
// (pegasus2avro names accepted), or nil.
func (r *Registry) EntityBySnapshot(fqn string) *catalog.EntitySpec {
	if e := r.entityBySnapshot[fqn]; e != nil {
		return e
	}
	return r.entityBySnapshot[StripAvroNamespace(fqn)]
}

// EntityHasAspect reports whether the entity (case-insensitive) may carry the
// aspect; its key aspect and snapshot aspects included.
func (r *Registry) EntityHasAspect(entity, aspect string) bool {
	e := r.Entity(entity)
	return e != nil && r.entityAspects[e][aspect]
}

// Entities returns every entity spec, in the order given to New (sorted by
// name for the generated registry). The slice must not be modified.
func (r *Registry) Entities() []catalog.EntitySpec { return r.entities }

// Aspects returns every aspect spec, in the order given to New (sorted by
// name for the generated registry). The slice must not be modified.
func (r *Registry) Aspects() []catalog.AspectSpec { return r.aspects }

// StripAvroNamespace removes the "pegasus2avro." segment Avro-encoded records
// carry in their names: com.linkedin.pegasus2avro.common.Status -> com.linkedin.common.Status.
func StripAvroNamespace(name string) string {
	if i := strings.Index(name, "pegasus2avro."); i >= 0 {
		return name[:i] + name[i+len("pegasus2avro."):]
	}
	return name
}

// KeyFromURN binds the parts of urn to the entity's key fields, in KeyFields
// order: a single-field key takes the whole id verbatim; otherwise the id must
// be a tuple with exactly one part per key field (nested URNs stay verbatim).
func KeyFromURN(entity *catalog.EntitySpec, urn catalog.URN) (map[string]any, error) {
	parts, err := keyParts(entity, urn)
	if err != nil {
		return nil, err
	}
	if parts == nil {
		return map[string]any{entity.KeyFields[0]: urn.ID()}, nil
	}
	key := make(map[string]any, len(entity.KeyFields))
	for i, f := range entity.KeyFields {
		key[f] = parts[i]
	}
	return key, nil
}

// CheckURN reports the error KeyFromURN would, without building the key:
// a proposal's URN is checked on every write.
func CheckURN(entity *catalog.EntitySpec, urn catalog.URN) error {
	_, err := keyParts(entity, urn)
	return err
}

// keyParts returns the URN's key parts, one per key field of entity, or nil
// when the key has one field, which takes the whole id.
func keyParts(entity *catalog.EntitySpec, urn catalog.URN) ([]string, error) {
	if entity == nil {
		return nil, catalog.Errorf(catalog.Invalid, "unknown entity type for URN %q", urn.String())
	}
	if !strings.EqualFold(urn.EntityType(), entity.Name) {
		return nil, catalog.Errorf(catalog.Invalid, "URN %q is not a %s URN", urn.String(), entity.Name)
	}
	n := len(entity.KeyFields)
	if n == 1 {
		return nil, nil
	}
	id := urn.ID()
	if len(id) == 0 || id[0] != '(' {
		return nil, catalog.Errorf(catalog.Invalid, "URN %q: a %s URN needs a tuple of %d parts (%s)", urn.String(), entity.Name, n, strings.Join(entity.KeyFields, ","))
	}
	parts := urn.Parts()
	if len(parts) != n {
		return nil, catalog.Errorf(catalog.Invalid, "URN %q: a %s URN needs %d key parts (%s), got %d", urn.String(), entity.Name, n, strings.Join(entity.KeyFields, ","), len(parts))
	}
	return parts, nil
}

// URNFromKey builds the entity's URN from a key aspect value and checks it
// as catalog.ParseURN does.
func URNFromKey(entity *catalog.EntitySpec, key map[string]any) (string, error) {
	if entity == nil {
		return "", catalog.Errorf(catalog.Invalid, "unknown entity type")
	}
	parts := make([]string, len(entity.KeyFields))
	for i, f := range entity.KeyFields {
		v, ok := key[f]
		if !ok || v == nil {
			return "", catalog.Errorf(catalog.Invalid, "%s key: missing field %q", entity.Name, f)
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case fmt.Stringer: // json.Number
			s = x.String()
		case bool, float64, float32, int, int32, int64:
			s = fmt.Sprint(x)
		default:
			return "", catalog.Errorf(catalog.Invalid, "%s key: field %q must be a string, got %s", entity.Name, f, jsonKind(v))
		}
		if s == "" {
			return "", catalog.Errorf(catalog.Invalid, "%s key: field %q is empty", entity.Name, f)
		}
		parts[i] = s
	}
	urn := catalog.NewURN(entity.Name, parts...)
	// The parts are whatever the key aspect held: the URN they make gets
	// the checks of a URN given whole.
	if _, err := catalog.ParseURN(urn); err != nil {
		return "", err
	}
	return urn, nil
}
