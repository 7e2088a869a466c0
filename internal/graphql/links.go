package graphql

import (
	"context"
	"net/url"
	"slices"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// AddLink adds a link to an entity's institutionalMemory (the documentation
// tab's links), as DataHub does: a link whose URL is there already is not
// added again, and the label is kept as the link's description.
func (r *mutationResolver) AddLink(ctx context.Context, in model.AddLinkInput) (*bool, error) {
	if err := r.checkLink(ctx, in.LinkURL, in.ResourceUrn); err != nil {
		return nil, err
	}
	err := r.write(ctx, edited(in.ResourceUrn, "institutionalMemory", func(v *models.InstitutionalMemory, _ bool) bool {
		if slices.ContainsFunc(v.Elements, func(e models.InstitutionalMemoryMetadata) bool { return e.Url == in.LinkURL }) {
			return false
		}
		v.Elements = append(v.Elements, models.InstitutionalMemoryMetadata{Url: in.LinkURL, Description: in.Label, CreateStamp: stamp(ctx)})
		return true
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// RemoveLink removes every link with the URL from an entity's
// institutionalMemory.
func (r *mutationResolver) RemoveLink(ctx context.Context, in model.RemoveLinkInput) (*bool, error) {
	if err := r.checkLink(ctx, in.LinkURL, in.ResourceUrn); err != nil {
		return nil, err
	}
	err := r.write(ctx, edited(in.ResourceUrn, "institutionalMemory", func(v *models.InstitutionalMemory, found bool) bool {
		n := len(v.Elements)
		v.Elements = slices.DeleteFunc(v.Elements, func(e models.InstitutionalMemoryMetadata) bool { return e.Url == in.LinkURL })
		return found && len(v.Elements) != n
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// checkLink refuses a link that is not an absolute URL, or an entity that
// does not exist.
func (r *mutationResolver) checkLink(ctx context.Context, link, resource string) error {
	if u, err := url.Parse(link); err != nil || u.Scheme == "" || u.Host == "" && u.Opaque == "" {
		return invalidf("Failed to change institutional memory for resource %s: %q is not a URL", resource, link)
	}
	return r.mustExist(ctx, resource)
}

// BatchUpdateDeprecation marks entities deprecated (with a note, a
// decommission time and a replacement) or not, all of them or none.
func (r *mutationResolver) BatchUpdateDeprecation(ctx context.Context, in model.BatchUpdateDeprecationInput) (*bool, error) {
	if in.Replacement != nil && *in.Replacement != "" {
		if err := r.mustExist(ctx, *in.Replacement); err != nil {
			return nil, err
		}
	}
	var p proposals
	for i, res := range in.Resources {
		if res == nil {
			return nil, invalidf("resources[%d] is null", i)
		}
		if err := r.mustExist(ctx, res.ResourceUrn); err != nil {
			return nil, err
		}
		p.add(res.ResourceUrn, "deprecation", models.Deprecation{Deprecated: in.Deprecated, Note: deref(in.Note),
			DecommissionTime: in.DecommissionTime, Actor: actorOf(ctx), Replacement: nilIfEmpty(in.Replacement)})
	}
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return yes, nil
}
