package graphql

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// VersionedDataset is a dataset as of a version stamp, as the schema tab
// shows an older schema version picked from getSchemaVersionList. As in
// DataHub it is null when the dataset does not exist.
func (r *queryResolver) VersionedDataset(ctx context.Context, urn string, versionStamp *string) (*model.VersionedDataset, error) {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return nil, err
	}
	if u.EntityType() != "dataset" {
		return nil, invalidf("urn %s is not a dataset", urn)
	}
	if _, err := parseVersionStamp(deref(versionStamp)); err != nil {
		return nil, err
	}
	l := r.loaderOf(ctx)
	ok, err := l.exists(ctx, urn)
	if err != nil || !ok {
		return nil, err
	}
	obj := &model.VersionedDataset{Urn: urn}
	l.mu.Lock()
	if l.stamps == nil {
		l.stamps = map[*model.VersionedDataset]string{}
	}
	l.stamps[obj] = deref(versionStamp)
	l.mu.Unlock()
	return obj, nil
}

// parseVersionStamp reads DataHub's version stamp, "aspect:version" pairs
// joined by ";" (the timeline's versionStamp); an aspect it does not name is
// read at its latest version.
func parseVersionStamp(stamp string) (map[string]int64, error) {
	out := map[string]int64{}
	if strings.TrimSpace(stamp) == "" {
		return out, nil
	}
	for _, part := range strings.Split(stamp, ";") {
		name, v, ok := strings.Cut(part, ":")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || name == "" || err != nil || n < 0 {
			return nil, invalidf("versionStamp %q: %q is not aspect:version", stamp, part)
		}
		out[name] = n
	}
	return out, nil
}

// versionedAspect reads aspect name of obj at the version its stamp gives,
// nil when the dataset had none then.
func (r *Resolver) versionedAspect(ctx context.Context, obj model.Entity, name string) (*catalog.Aspect, error) {
	l := r.loaderOf(ctx)
	var stamp string
	if vd, ok := obj.(*model.VersionedDataset); ok {
		l.mu.Lock()
		stamp = l.stamps[vd]
		l.mu.Unlock()
	}
	versions, err := parseVersionStamp(stamp)
	if err != nil {
		return nil, err
	}
	v, ok := versions[name]
	if !ok || v == 0 {
		return l.stored(ctx, obj.EntityURN(), name)
	}
	a, err := r.store.AspectVersion(ctx, obj.EntityURN(), name, v)
	if err != nil {
		return nil, notFoundIsNil(err)
	}
	return &a, nil
}

// VersionedSchema resolves VersionedDataset.schema: the fields of
// schemaMetadata at the stamp's version, with when that version was last
// observed.
func (r *computed) VersionedSchema(ctx context.Context, obj model.Entity) (*model.Schema, error) {
	a, err := r.versionedAspect(ctx, obj, "schemaMetadata")
	if err != nil || a == nil {
		return nil, err
	}
	val, err := decodeJSON(a.Value)
	if err != nil {
		return nil, err
	}
	scope := model.NewScope(obj.EntityURN(), r.loaderOf(ctx), a.Version)
	out := &model.Schema{Fields: []*model.SchemaField{}}
	m, _ := val.(map[string]any)
	fields, _ := m["fields"].([]any)
	for _, f := range fields {
		out.Fields = append(out.Fields, model.NewSchemaField(f, scope))
	}
	var sm struct {
		LastObserved *int64 `json:"lastObserved"`
	}
	if len(a.SystemMetadata) > 0 && json.Unmarshal(a.SystemMetadata, &sm) == nil {
		out.LastObserved = sm.LastObserved
	}
	return out, nil
}

// VersionedEditableSchemaMetadata resolves
// VersionedDataset.editableSchemaMetadata at the stamp's version.
func (r *computed) VersionedEditableSchemaMetadata(ctx context.Context, obj model.Entity) (*model.EditableSchemaMetadata, error) {
	a, err := r.versionedAspect(ctx, obj, "editableSchemaMetadata")
	if err != nil || a == nil {
		return nil, err
	}
	val, err := decodeJSON(a.Value)
	if err != nil {
		return nil, err
	}
	return model.NewEditableSchemaMetadata(val, model.NewScope(obj.EntityURN(), r.loaderOf(ctx), a.Version)), nil
}
