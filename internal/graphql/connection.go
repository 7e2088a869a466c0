package graphql

import (
	"context"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// UpsertConnection creates or replaces a connection to a platform, its
// JSON blob kept encrypted.
func (r *mutationResolver) UpsertConnection(ctx context.Context, in model.UpsertDataHubConnectionInput) (*model.DataHubConnection, error) {
	if r.auth == nil {
		return nil, catalog.Errorf(catalog.Unavailable, "connections need the authentication service")
	}
	if in.JSON == nil {
		return nil, invalidf("A connection of type JSON needs json")
	}
	if p, err := catalog.ParseURN(in.PlatformUrn); err != nil {
		return nil, err
	} else if p.EntityType() != "dataPlatform" {
		return nil, invalidf("%s is not a data platform URN", in.PlatformUrn)
	}
	id := deref(in.ID)
	if id == "" {
		id = uuid.NewString()
	}
	urn := catalog.NewURN("dataHubConnection", id)
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	sealed, err := r.auth.SealConnection(in.JSON.Blob)
	if err != nil {
		return nil, err
	}
	details := map[string]any{"type": string(in.Type), "json": map[string]any{"encryptedBlob": sealed}}
	if in.Name != nil {
		details["name"] = *in.Name
	}
	var p proposals
	p.add(urn, "dataHubConnectionDetails", details)
	p.add(urn, "dataPlatformInstance", map[string]any{"platform": in.PlatformUrn})
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return &model.DataHubConnection{Urn: urn}, nil
}

// DataHubJSONConnectionBlob is a connection's JSON blob, decrypted for
// those who manage connections.
func (r *computed) DataHubJSONConnectionBlob(ctx context.Context, obj *model.DataHubJSONConnection) (string, error) {
	v, _ := model.ValueOf(obj)
	m, _ := v.(map[string]any)
	sealed := jsonString(m, "encryptedBlob")
	if sealed == "" || r.auth == nil {
		return "", nil
	}
	return r.auth.OpenConnection(ctx, actorOf(ctx), sealed)
}
