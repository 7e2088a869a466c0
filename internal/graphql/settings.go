package graphql

import (
	"context"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// platformDelegate checks that the caller holds a platform privilege and
// returns ctx marked so that the writes it authorizes go through: global
// settings are managed by feature privileges, not by editing the settings
// entity.
func (r *Resolver) platformDelegate(ctx context.Context, what, priv string) (context.Context, error) {
	if r.auth == nil {
		return ctx, nil
	}
	if err := r.auth.Require(ctx, actorOf(ctx), auth.Resource{}, what, priv); err != nil {
		return nil, err
	}
	return auth.Delegated(ctx), nil
}

// DocPropagationSettings reads whether column documentation propagates;
// without stored settings it does not, as DataHub answers.
func (r *queryResolver) DocPropagationSettings(ctx context.Context) (*model.DocPropagationSettings, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, globalSettingsURN, "globalSettingsInfo")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	dp, ok := m["docPropagation"].(map[string]any)
	if !ok {
		return &model.DocPropagationSettings{DocColumnPropagation: ptr(false)}, nil
	}
	col, ok := dp["columnPropagationEnabled"].(bool)
	if !ok {
		col = true // the field's default
	}
	return &model.DocPropagationSettings{DocColumnPropagation: &col}, nil
}

// UpdateDocPropagationSettings turns column documentation propagation on
// or off (MANAGE_FEATURES).
func (r *mutationResolver) UpdateDocPropagationSettings(ctx context.Context, in model.UpdateDocPropagationSettingsInput) (bool, error) {
	ctx, err := r.platformDelegate(ctx, "manage features", "MANAGE_FEATURES")
	if err != nil {
		return false, err
	}
	err = r.editAspect(ctx, globalSettingsURN, "globalSettingsInfo", nil, func(m map[string]any) {
		dp, ok := m["docPropagation"].(map[string]any)
		if !ok {
			dp = map[string]any{"enabled": true}
		}
		if in.DocColumnPropagation != nil {
			dp["columnPropagationEnabled"] = *in.DocColumnPropagation
		} else {
			delete(dp, "columnPropagationEnabled")
		}
		m["docPropagation"] = dp
	})
	if err != nil {
		return false, err
	}
	return true, nil
}
