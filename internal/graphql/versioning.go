package graphql

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// Versions of an asset are tied together by a version set
// (urn:li:versionSet:(id,entityType)): each version carries a
// versionProperties naming the set, its label and a sort id, and the set's
// versionSetProperties points at the latest version. As in DataHub, sort
// ids are eight capital letters counted up from AAAAAAAA, a newly linked
// version is the latest, and unlinking the latest makes the one before it
// latest, or removes the set when none is left.

const (
	initialSortID     = "AAAAAAAA"
	generatedVersions = "ALPHANUMERIC_GENERATED_BY_DATAHUB"
)

// nextSortID counts id up by one in base 26 (A to Z), wrapping from
// ZZZZZZZZ to AAAAAAAA as DataHub does.
func nextSortID(id string) (string, error) {
	if len(id) != len(initialSortID) || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", invalidf("version sort id %q is not eight capital letters", id)
	}
	b := []byte(id)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 'Z' {
			b[i]++
			return string(b), nil
		}
		b[i] = 'A'
	}
	return string(b), nil
}

// versionSetOf checks that urn is a version set URN and returns the entity
// type its versions have.
func versionSetOf(urn string) (string, error) {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return "", err
	}
	if u.EntityType() != "versionSet" || len(u.Parts()) != 2 {
		return "", invalidf("Version Set urn %s must be of type Version Set.", urn)
	}
	return u.Parts()[1], nil
}

// storedInto decodes the stored aspect name of urn into v, reporting whether
// there is one.
func (r *Resolver) storedInto(ctx context.Context, urn, name string, v any) (bool, error) {
	a, err := r.loaderOf(ctx).stored(ctx, urn, name)
	if err != nil || a == nil {
		return false, err
	}
	return true, jsonUnmarshal(a.Value, v)
}

// LinkAssetVersion makes an asset the latest version of a version set,
// creating the set with its first version. Linking an asset already in the
// set changes nothing and answers null, as in DataHub. The caller needs
// EDIT_ENTITY on both the set and the asset.
func (r *mutationResolver) LinkAssetVersion(ctx context.Context, in model.LinkVersionInput) (*model.VersionSet, error) {
	vs, entity := in.VersionSet, in.LinkedEntity
	setType, err := versionSetOf(vs)
	if err != nil {
		return nil, err
	}
	if err := r.mustExist(ctx, entity); err != nil {
		return nil, err
	}
	if ctx, err = r.requireVersioning(ctx, vs, entity); err != nil {
		return nil, err
	}
	if urnType(entity) != setType {
		return nil, invalidf("Entity type must match Version Set's specified type: %s invalid type: %s", setType, urnType(entity))
	}
	if strings.TrimSpace(in.Version) == "" {
		return nil, invalidf("a version needs a label")
	}
	var cur models.VersionProperties
	if ok, err := r.storedInto(ctx, entity, "versionProperties", &cur); err != nil {
		return nil, err
	} else if ok {
		if cur.VersionSet == vs {
			return nil, nil
		}
		return nil, catalog.Errorf(catalog.Conflict, "Version already exists for specified entity: %s for a different Version Set: %s", entity, cur.VersionSet)
	}
	var set models.VersionSetProperties
	hasSet, err := r.storedInto(ctx, vs, "versionSetProperties", &set)
	if err != nil {
		return nil, err
	}
	sortID, prev := initialSortID, ""
	if hasSet {
		if set.VersioningScheme != generatedVersions {
			return nil, invalidf("Only versioning scheme supported is %s", generatedVersions)
		}
		var latest models.VersionProperties
		if ok, err := r.storedInto(ctx, set.Latest, "versionProperties", &latest); err != nil {
			return nil, err
		} else if ok {
			if sortID, err = nextSortID(latest.SortId); err != nil {
				return nil, err
			}
			prev = set.Latest
		}
	}
	st := stamp(ctx)
	scheme := models.VersioningScheme(generatedVersions)
	vp := models.VersionProperties{
		VersionSet: vs, SortId: sortID, VersioningScheme: &scheme, Comment: in.Comment, IsLatest: yes,
		Version:                  models.VersionTag{VersionTag: ptr(in.Version), MetadataAttribution: &models.MetadataAttribution{Time: st.Time, Actor: st.Actor}},
		MetadataCreatedTimestamp: &st, Aliases: []models.VersionTag{},
	}
	if in.SourceTimestamp != nil {
		// DataHub's stand-in for an unknown principal.
		actor := "urn:li:corpuser:UNKNOWN"
		if c := deref(in.SourceCreator); strings.HasPrefix(c, "urn:li:corpuser:") {
			actor = c
		} else if c != "" {
			actor = catalog.NewURN("corpuser", c)
		}
		vp.SourceCreatedTimestamp = &models.AuditStamp{Time: *in.SourceTimestamp, Actor: actor}
	}
	var p proposals
	p.add(vs, "versionSetProperties", models.VersionSetProperties{Latest: entity, VersioningScheme: scheme, CustomProperties: map[string]string{}})
	if p.err != nil {
		return nil, p.err
	}
	props := p.list
	// The set's latest must still be the one this read: a version linked
	// in between would get the same sort id.
	props[0].Edit = func(cur json.RawMessage) (json.RawMessage, error) {
		var now models.VersionSetProperties
		if cur != nil {
			if err := jsonUnmarshal(cur, &now); err != nil {
				return nil, err
			}
		}
		if (cur != nil) != hasSet || now.Latest != set.Latest {
			return nil, catalog.Errorf(catalog.Conflict, "version set %s changed while linking %s; try again", vs, entity)
		}
		return props[0].Value, nil
	}
	props = append(props, edited(entity, "versionProperties", func(v *models.VersionProperties, found bool) bool {
		*v = vp
		return true
	}))
	if prev != "" && prev != entity {
		props = append(props, edited(prev, "versionProperties", func(v *models.VersionProperties, found bool) bool {
			if !found {
				return false
			}
			v.IsLatest = ptr(false)
			return true
		}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return &model.VersionSet{Urn: vs}, nil
}

// UnlinkAssetVersion takes an asset out of its version set. When it was the
// latest, the version before it (by sort id) becomes the latest, or the set
// is removed when no version is left. An asset in no set changes nothing
// and answers null, as in DataHub.
func (r *mutationResolver) UnlinkAssetVersion(ctx context.Context, in model.UnlinkVersionInput) (*model.VersionSet, error) {
	vs, entity := deref(in.VersionSet), deref(in.UnlinkedEntity)
	if vs == "" || entity == "" {
		return nil, invalidf("unlinkAssetVersion needs a versionSet and an unlinkedEntity")
	}
	if _, err := versionSetOf(vs); err != nil {
		return nil, err
	}
	if _, err := catalog.ParseURN(entity); err != nil {
		return nil, err
	}
	ctx, err := r.requireVersioning(ctx, vs, entity)
	if err != nil {
		return nil, err
	}
	var cur models.VersionProperties
	if ok, err := r.storedInto(ctx, entity, "versionProperties", &cur); err != nil || !ok {
		return nil, err
	}
	if cur.VersionSet != vs {
		return nil, invalidf("Version is not linked to specified version set: %s but is linked to: %s", vs, cur.VersionSet)
	}
	var set models.VersionSetProperties
	if ok, err := r.storedInto(ctx, vs, "versionSetProperties", &set); err != nil {
		return nil, err
	} else if !ok {
		return nil, catalog.Errorf(catalog.Internal, "Version Set Properties must exist if entity version exists: %s", vs)
	}
	props := []catalog.Proposal{{EntityType: urnType(entity), EntityURN: entity, ChangeType: catalog.Delete, AspectName: "versionProperties"}}
	if set.Latest == entity {
		prev, err := r.previousVersion(ctx, vs, entity, cur.SortId)
		if err != nil {
			return nil, err
		}
		if prev == "" {
			ent := r.reg.Entity("versionSet")
			if ent == nil {
				return nil, catalog.Errorf(catalog.Internal, "no versionSet entity in the registry")
			}
			props = append(props, catalog.Proposal{EntityType: ent.Name, EntityURN: vs, ChangeType: catalog.Delete, AspectName: ent.KeyAspect})
		} else {
			props = append(props,
				edited(vs, "versionSetProperties", func(v *models.VersionSetProperties, _ bool) bool {
					v.Latest = prev
					return true
				}),
				edited(prev, "versionProperties", func(v *models.VersionProperties, found bool) bool {
					if !found {
						return false
					}
					v.IsLatest = yes
					return true
				}))
		}
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return &model.VersionSet{Urn: vs}, nil
}

// requireVersioning checks that the caller may edit both the version set
// and the asset, as DataHub asks before linking or unlinking; the writes
// that follow, including those on the set's other versions, then go
// through.
func (r *Resolver) requireVersioning(ctx context.Context, vs, entity string) (context.Context, error) {
	if _, err := r.requireEdit(ctx, vs, "update entities "+vs+" and "+entity, nil); err != nil {
		return nil, err
	}
	return r.requireEdit(ctx, entity, "update entities "+vs+" and "+entity, nil)
}

// previousVersion is the version of the set vs with the greatest sort id
// below sortID, other than entity; "" when there is none.
func (r *Resolver) previousVersion(ctx context.Context, vs, entity, sortID string) (string, error) {
	urns, err := r.incoming(ctx, vs, "VersionOf")
	if err != nil {
		return "", err
	}
	best, bestID := "", ""
	for _, u := range urns {
		if u == entity {
			continue
		}
		var v models.VersionProperties
		if ok, err := r.storedInto(ctx, u, "versionProperties", &v); err != nil {
			return "", err
		} else if !ok || v.VersionSet != vs {
			continue
		}
		if v.SortId < sortID && v.SortId > bestID {
			best, bestID = u, v.SortId
		}
	}
	return best, nil
}
