package auth

import (
	"context"
	"slices"

	"github.com/catalogd/catalogd/internal/catalog"
)

// SecretAspects are never served by a read API, whoever asks: they hold
// credentials. The list is explicit because the schemas are shared with
// DataHub and carry no such annotation. (A personal token's entity is keyed
// by a salted hash of the token, which reveals nothing and is the id used
// to revoke it, so dataHubAccessToken needs no entry.)
var SecretAspects = map[string]bool{
	"corpUserCredentials": true,
	// The invite token, encrypted: whoever has it may sign up.
	"inviteToken": true,
	// A secret's value, encrypted: only the ingestion executor reads it,
	// to fill recipes in; its name and description are listed by
	// listSecrets.
	"dataHubSecretValue": true,
}

// FilterReader wraps the store handed to the read APIs so that secret
// aspects look absent. Writes pass through unchanged.
type FilterReader struct {
	catalog.Store
}

// LatestAspects implements catalog.Reader without secret aspects.
func (f FilterReader) LatestAspects(ctx context.Context, urns []string, names []string) (map[string][]catalog.Aspect, error) {
	if len(names) > 0 {
		kept := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return SecretAspects[n] })
		if len(kept) == 0 {
			// Only secrets asked for: an empty list would mean "all".
			return map[string][]catalog.Aspect{}, nil
		}
		names = kept
	}
	m, err := f.Store.LatestAspects(ctx, urns, names)
	if err != nil {
		return nil, err
	}
	for u, as := range m {
		if slices.ContainsFunc(as, func(a catalog.Aspect) bool { return SecretAspects[a.Name] }) {
			as = slices.DeleteFunc(as, func(a catalog.Aspect) bool { return SecretAspects[a.Name] })
			if len(as) == 0 {
				delete(m, u)
			} else {
				m[u] = as
			}
		}
	}
	return m, nil
}

// AspectVersion implements catalog.Reader: a secret aspect is not found.
func (f FilterReader) AspectVersion(ctx context.Context, urn, name string, version int64) (catalog.Aspect, error) {
	if SecretAspects[name] {
		return catalog.Aspect{}, catalog.Errorf(catalog.NotFound, "aspect %s of %s not found", name, urn)
	}
	return f.Store.AspectVersion(ctx, urn, name, version)
}

// ScanLatest implements catalog.Reader without secret aspects.
func (f FilterReader) ScanLatest(ctx context.Context, q catalog.ScanQuery) ([]catalog.Aspect, error) {
	if SecretAspects[q.Aspect] {
		return nil, nil
	}
	rows, err := f.Store.ScanLatest(ctx, q)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(rows, func(a catalog.Aspect) bool { return SecretAspects[a.Name] }), nil
}

// CountScan implements catalog.Reader: a secret aspect has no rows.
func (f FilterReader) CountScan(ctx context.Context, q catalog.ScanQuery) (int, error) {
	if SecretAspects[q.Aspect] {
		return 0, nil
	}
	return f.Store.CountScan(ctx, q)
}

// RunAspects implements catalog.Reader without secret aspects.
func (f FilterReader) RunAspects(ctx context.Context, q catalog.RunAspectQuery) ([]catalog.Aspect, error) {
	rows, err := f.Store.RunAspects(ctx, q)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(rows, func(a catalog.Aspect) bool { return SecretAspects[a.Name] }), nil
}
