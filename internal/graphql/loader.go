package graphql

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/registry"
)

// loader caches, for one request, the latest aspects of every URN the
// request reads, and is the request's model.Source. URNs an answer refers to
// are recorded as wanted (Want, prime); the first read of a wanted URN
// fetches it together with every other wanted one, in one store query, so
// that the owners of a dataset or the hits of a search cost one query, not
// one each. A read of a URN nobody wanted fetches that URN alone: a lineage
// page wants its 1,000 entities, and reading the one actor of its edges
// must not load all of them when the page selects only their URNs. A read
// waits for a URN being fetched by another resolver instead of fetching it
// again. It is safe for concurrent use by the resolvers of one request.
type loader struct {
	store catalog.Reader
	reg   *registry.Registry
	// natives reports which of some users are native (see
	// auth.Service.NativeUsers); nil when the server has no auth service.
	natives func(ctx context.Context, users []string) (map[string]bool, error)

	mu      sync.Mutex
	entries map[string]*entry
	wanted  []string
	wantSet map[string]bool // the URNs in wanted
	keys    map[string]map[string]any
	native  map[string]*nativeEntry
	// stamps holds the version stamp of each VersionedDataset the request
	// returned: the generated type carries only its URN.
	stamps map[*model.VersionedDataset]string
}

// nativeEntry is whether one user is native: nil when the user has no
// credentials.
type nativeEntry struct {
	done   chan struct{}
	native *bool
	err    error
}

// entry is the stored state of one URN: its latest aspects by name.
type entry struct {
	done    chan struct{}
	aspects map[string]catalog.Aspect
	err     error

	mu      sync.Mutex
	decoded map[string]any // aspect name → decoded value, see aspect
}

func newLoader(store catalog.Reader, reg *registry.Registry, natives func(context.Context, []string) (map[string]bool, error)) *loader {
	return &loader{store: store, reg: reg, natives: natives, entries: map[string]*entry{}, keys: map[string]map[string]any{}, native: map[string]*nativeEntry{}}
}

type loaderKey struct{}

func withLoader(ctx context.Context, l *loader) context.Context {
	return context.WithValue(ctx, loaderKey{}, l)
}

// loaderOf returns the request's loader. Outside a request (a resolver
// called directly) it returns a fresh one, which is correct but uncached.
func (r *Resolver) loaderOf(ctx context.Context) *loader {
	if l, ok := ctx.Value(loaderKey{}).(*loader); ok {
		return l
	}
	return newLoader(r.store, r.reg, r.nativeUsers())
}

// Want implements model.Source: it records urns to fetch with the next
// read of an uncached URN.
func (l *loader) Want(urns ...string) {
	l.mu.Lock()
	for _, u := range urns {
		if u != "" && l.entries[u] == nil && !l.wantSet[u] {
			if l.wantSet == nil {
				l.wantSet = map[string]bool{}
			}
			l.wanted = append(l.wanted, u)
			l.wantSet[u] = true
		}
	}
	l.mu.Unlock()
}

// prime fetches, in one store query, every URN of urns not yet cached, with
// every wanted one.
func (l *loader) prime(ctx context.Context, urns []string) {
	l.fetch(ctx, urns, true)
}

// fetch fetches, in one store query, every URN of urns not yet cached, and
// every wanted one when withWanted.
func (l *loader) fetch(ctx context.Context, urns []string, withWanted bool) {
	l.mu.Lock()
	batch := urns
	if withWanted {
		batch = append(l.wanted, urns...)
		l.wanted, l.wantSet = nil, nil
	}
	var missing []string
	var fresh []*entry
	for _, u := range batch {
		if u == "" || l.entries[u] != nil {
			continue
		}
		e := &entry{done: make(chan struct{})}
		l.entries[u] = e
		missing = append(missing, u)
		fresh = append(fresh, e)
	}
	l.mu.Unlock()
	if len(missing) == 0 {
		return
	}
	rows, err := l.store.LatestAspects(ctx, missing, nil)
	for i, u := range missing {
		e := fresh[i]
		e.err = err
		if err == nil {
			as := rows[u]
			e.aspects = make(map[string]catalog.Aspect, len(as))
			for _, a := range as {
				e.aspects[a.Name] = a
			}
		}
		close(e.done)
	}
}

// get returns the cached state of urn, fetching it when needed, with every
// wanted URN when it is one of them.
func (l *loader) get(ctx context.Context, urn string) (*entry, error) {
	l.mu.Lock()
	e := l.entries[urn]
	wanted := l.wantSet[urn]
	l.mu.Unlock()
	if e == nil {
		l.fetch(ctx, []string{urn}, wanted)
		l.mu.Lock()
		e = l.entries[urn]
		l.mu.Unlock()
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// forget drops urns from the cache, after a mutation wrote them, so that the
// rest of the request reads the new state.
func (l *loader) forget(urns ...string) {
	l.mu.Lock()
	for _, u := range urns {
		delete(l.entries, u)
		delete(l.native, u)
	}
	l.mu.Unlock()
}

// exists reports whether anything is stored for urn.
func (l *loader) exists(ctx context.Context, urn string) (bool, error) {
	e, err := l.get(ctx, urn)
	if err != nil {
		return false, err
	}
	return len(e.aspects) > 0, nil
}

// Key implements model.Source: the key aspect of urn, made from the URN.
func (l *loader) Key(urn string) map[string]any {
	l.mu.Lock()
	k, ok := l.keys[urn]
	l.mu.Unlock()
	if ok {
		return k
	}
	u, err := catalog.ParseURN(urn)
	if err == nil {
		k, err = registry.KeyFromURN(l.reg.Entity(u.EntityType()), u)
	}
	if err != nil {
		k = nil
	}
	l.mu.Lock()
	l.keys[urn] = k
	l.mu.Unlock()
	return k
}

// keyAspect returns the name of the key aspect of urn's entity type, "" when
// the type is unknown.
func (l *loader) keyAspect(urn string) string {
	if spec := l.reg.Entity(urnType(urn)); spec != nil {
		return spec.KeyAspect
	}
	return ""
}

// Aspect implements model.Source: the latest value of aspect name of urn,
// decoded once per request, nil when none is stored. The key aspect is made
// from the URN, stored or not, as DataHub makes it.
func (l *loader) Aspect(ctx context.Context, urn, name string) (any, error) {
	if name == l.keyAspect(urn) {
		if k := l.Key(urn); k != nil {
			return k, nil
		}
		return nil, nil
	}
	e, err := l.get(ctx, urn)
	if err != nil {
		return nil, err
	}
	a, ok := e.aspects[name]
	if !ok {
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.decoded[name]; ok {
		return v, nil
	}
	v, ok := fastjson.Decode(a.Value)
	if !ok {
		if err := jsonUnmarshalNumber(a.Value, &v); err != nil {
			return nil, catalog.WithOp("decode aspect "+name+" of "+urn, err)
		}
	}
	if e.decoded == nil {
		e.decoded = map[string]any{}
	}
	e.decoded[name] = v
	return v, nil
}

// stored returns the latest stored row of aspect name of urn, nil when none.
func (l *loader) stored(ctx context.Context, urn, name string) (*catalog.Aspect, error) {
	e, err := l.get(ctx, urn)
	if err != nil {
		return nil, err
	}
	a, ok := e.aspects[name]
	if !ok {
		return nil, nil
	}
	return &a, nil
}

// aspectOf decodes the latest value of one aspect of urn into a T, nil when
// the aspect is absent.
func aspectOf[T any](ctx context.Context, l *loader, urn, name string) (*T, error) {
	a, err := l.stored(ctx, urn, name)
	if err != nil || a == nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(a.Value, v); err != nil {
		return nil, catalog.WithOp("decode aspect "+name+" of "+urn, err)
	}
	return v, nil
}

// isNative reports whether user is a native user, nil when the user has no
// credentials or the server has no auth service. The first call asks about
// every user the request has read so far with one query, so that a list of
// users costs one query, not one per user.
func (l *loader) isNative(ctx context.Context, user string) (*bool, error) {
	if l.natives == nil {
		return nil, nil
	}
	l.mu.Lock()
	e := l.native[user]
	if e == nil {
		batch := []string{user}
		for u := range l.entries {
			if u != user && l.native[u] == nil && urnType(u) == "corpuser" {
				batch = append(batch, u)
			}
		}
		fresh := make([]*nativeEntry, len(batch))
		for i, u := range batch {
			fresh[i] = &nativeEntry{done: make(chan struct{})}
			l.native[u] = fresh[i]
		}
		e = fresh[0]
		l.mu.Unlock()
		flags, err := l.natives(ctx, batch)
		for i, u := range batch {
			fresh[i].err = err
			if v, ok := flags[u]; ok {
				fresh[i].native = &v
			}
			close(fresh[i].done)
		}
	} else {
		l.mu.Unlock()
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return e.native, e.err
}
