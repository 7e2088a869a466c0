package graphql

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/catalogd/catalogd/internal/catalog"
)

// loader caches, for one request, the latest aspects of every URN the
// request reads. prime fetches the aspects of many URNs with one store query;
// get waits for a URN being fetched by another resolver instead of fetching
// it again. It is safe for concurrent use by the resolvers of one request.
type loader struct {
	store catalog.Reader
	// natives reports which of some users are native (see
	// auth.Service.NativeUsers); nil when the server has no auth service.
	natives func(ctx context.Context, users []string) (map[string]bool, error)

	mu      sync.Mutex
	entries map[string]*entry
	native  map[string]*nativeEntry
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
	aspects map[string]json.RawMessage
	err     error

	mu      sync.Mutex
	decoded map[string]any // aspect name → decoded value, see aspectOf
}

func newLoader(store catalog.Reader, natives func(context.Context, []string) (map[string]bool, error)) *loader {
	return &loader{store: store, natives: natives, entries: map[string]*entry{}, native: map[string]*nativeEntry{}}
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
	return newLoader(r.store, r.nativeUsers())
}

// prime fetches, in one store query, every URN of urns not yet cached.
func (l *loader) prime(ctx context.Context, urns []string) {
	l.mu.Lock()
	var missing []string
	var fresh []*entry
	for _, u := range urns {
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
			e.aspects = make(map[string]json.RawMessage, len(as))
			for _, a := range as {
				e.aspects[a.Name] = a.Value
			}
		}
		close(e.done)
	}
}

// get returns the cached state of urn, fetching it when needed.
func (l *loader) get(ctx context.Context, urn string) (*entry, error) {
	l.mu.Lock()
	e := l.entries[urn]
	l.mu.Unlock()
	if e == nil {
		l.prime(ctx, []string{urn})
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

// aspectOf decodes the latest value of one aspect of urn into a T, nil when
// the aspect is absent. The decoded value is cached for the request and
// shared: callers must not modify it.
func aspectOf[T any](ctx context.Context, l *loader, urn, name string) (*T, error) {
	e, err := l.get(ctx, urn)
	if err != nil {
		return nil, err
	}
	raw, ok := e.aspects[name]
	if !ok {
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.decoded[name].(*T); ok {
		return v, nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, catalog.WithOp("decode aspect "+name+" of "+urn, err)
	}
	if e.decoded == nil {
		e.decoded = map[string]any{}
	}
	e.decoded[name] = v
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
