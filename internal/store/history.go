package store

import (
	"context"

	"github.com/catalogd/catalogd/internal/catalog"
)

// AspectVersions returns every stored version of every versioned aspect of
// urn, in (aspect, version) order, for timelines.
func (r reader) AspectVersions(ctx context.Context, urn string) ([]catalog.Aspect, error) {
	var out []catalog.Aspect
	err := r.snapshot(ctx, func(q querier) error {
		rr := reader{db: r.db, q: q}
		var err error
		out, err = rr.queryAspects(ctx, "SELECT "+aspectCols+" FROM metadata_aspect_v2 WHERE urn = ? ORDER BY aspect, version", urn)
		return err
	})
	if err != nil {
		return nil, r.db.fail(ctx, err, "load versions of %s", urn)
	}
	return out, nil
}
