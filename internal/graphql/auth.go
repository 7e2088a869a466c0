package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// The resolvers of graphql/auth.graphqls: access tokens, policies and
// ingestion sources. They convert between the GraphQL types and the stored
// aspects and leave every decision (privileges, storage, audit) to
// auth.Service.

// authService returns the auth service, or fails when the server has none.
func (r *Resolver) authService() (*auth.Service, error) {
	if r.auth == nil {
		return nil, &catalog.Error{Kind: catalog.Internal, Msg: "no auth service configured"}
	}
	return r.auth, nil
}

// platformPrivileges answers me.platformPrivileges from the policies.
func (r *Resolver) platformPrivileges(ctx context.Context, actor string) (*model.PlatformPrivileges, error) {
	if r.auth == nil {
		return &model.PlatformPrivileges{
			ViewAnalytics: true, ManagePolicies: true, ManageIdentities: true, GeneratePersonalAccessTokens: true,
			ManageIngestion: true, ManageSecrets: true, ManageDomains: true, ManageTests: true, ManageGlossaries: true,
			ManageUserCredentials: true, ManageTags: true, CreateDomains: true, CreateTags: true,
			ManageGlobalViews: true, ManageOwnershipTypes: true, ManageGlobalAnnouncements: true, ManageHomePageTemplates: true,
		}, nil
	}
	has, err := r.auth.PlatformPrivileges(ctx, actor, []string{
		"VIEW_ANALYTICS", auth.PrivManagePolicies, auth.PrivManageUsers, auth.PrivGeneratePersonal, auth.PrivManageIngestion,
		"MANAGE_SECRETS", auth.PrivManageDomains, "MANAGE_TESTS", auth.PrivManageGlossaries, auth.PrivManageCredentials,
		auth.PrivManageTags, "CREATE_DOMAINS", "CREATE_TAGS", "MANAGE_GLOBAL_VIEWS", "MANAGE_GLOBAL_OWNERSHIP_TYPES",
		auth.PrivManageGlobalAnnouncements, privManageHomePageTemplates,
	})
	if err != nil {
		return nil, err
	}
	return &model.PlatformPrivileges{
		ViewAnalytics: has["VIEW_ANALYTICS"], ManagePolicies: has[auth.PrivManagePolicies],
		ManageIdentities: has[auth.PrivManageUsers], GeneratePersonalAccessTokens: has[auth.PrivGeneratePersonal],
		ManageIngestion: has[auth.PrivManageIngestion], ManageSecrets: has["MANAGE_SECRETS"],
		ManageDomains: has[auth.PrivManageDomains], ManageTests: has["MANAGE_TESTS"],
		ManageGlossaries: has[auth.PrivManageGlossaries], ManageUserCredentials: has[auth.PrivManageCredentials],
		ManageTags: has[auth.PrivManageTags],
		// DataHub grants creation with management.
		CreateDomains:     has["CREATE_DOMAINS"] || has[auth.PrivManageDomains],
		CreateTags:        has["CREATE_TAGS"] || has[auth.PrivManageTags],
		ManageGlobalViews: has["MANAGE_GLOBAL_VIEWS"], ManageOwnershipTypes: has["MANAGE_GLOBAL_OWNERSHIP_TYPES"],
		ManageGlobalAnnouncements: has[auth.PrivManageGlobalAnnouncements],
		ManageHomePageTemplates:   has[privManageHomePageTemplates],
	}, nil
}

// tokenMetadata is the stored token entity of m, whose fields are read from
// its aspects.
func tokenMetadata(m auth.TokenMeta) *model.AccessTokenMetadata {
	return &model.AccessTokenMetadata{Urn: m.URN}
}

func (r *mutationResolver) CreateAccessToken(ctx context.Context, in model.CreateAccessTokenInput) (*model.AccessToken, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	ttl, err := auth.ParseDuration(string(in.Duration))
	if err != nil {
		return nil, err
	}
	if in.Type == model.AccessTokenTypeServiceAccount {
		sa, err := r.serviceAccountOf(ctx, in.ActorUrn)
		if err != nil {
			return nil, err
		}
		if sa == nil {
			return nil, invalidf("%s is not a service account", in.ActorUrn)
		}
	}
	desc := ""
	if in.Description != nil {
		desc = *in.Description
	}
	token, meta, err := a.CreateAccessToken(ctx, actorOf(ctx), in.ActorUrn, in.Name, desc, ttl)
	if err != nil {
		return nil, err
	}
	return &model.AccessToken{AccessToken: token, Metadata: tokenMetadata(meta)}, nil
}

func (r *mutationResolver) RevokeAccessToken(ctx context.Context, tokenID string) (bool, error) {
	a, err := r.authService()
	if err != nil {
		return false, err
	}
	if err := a.RevokeAccessToken(ctx, actorOf(ctx), tokenID); err != nil {
		return false, err
	}
	return true, nil
}

func (r *queryResolver) ListAccessTokens(ctx context.Context, in model.ListAccessTokenInput) (*model.ListAccessTokenResult, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	var actor, owner string
	for _, f := range in.Filters {
		v := filterValue(f)
		switch f.Field {
		case "actorUrn":
			actor = v
		case "ownerUrn":
			owner = v
		default:
			return nil, invalidf("unsupported access token filter %q (want actorUrn or ownerUrn)", f.Field)
		}
	}
	start, count := page(in.Start, in.Count, 20)
	// Owner filtering happens here, so list everything the caller may see
	// first and page after.
	all, _, err := a.ListAccessTokens(ctx, actorOf(ctx), actor, 0, 1<<30)
	if err != nil {
		return nil, err
	}
	var kept []*model.AccessTokenMetadata
	for _, m := range all {
		if owner == "" || m.OwnerURN == owner {
			kept = append(kept, tokenMetadata(m))
		}
	}
	items := nonNil(window(kept, start, count))
	return &model.ListAccessTokenResult{Start: start, Count: len(items), Total: len(kept), Tokens: items}, nil
}

func (r *queryResolver) GetAccessToken(ctx context.Context, in model.GetAccessTokenInput) (*model.AccessToken, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	ttl, err := auth.ParseDuration(string(in.Duration))
	if err != nil {
		return nil, err
	}
	// As in DataHub, getAccessToken mints a token for its caller only, even
	// for a caller who may manage tokens: such a token is not stored, so no
	// one could list or revoke it. createAccessToken makes stored tokens for
	// others.
	caller := actorOf(ctx)
	if in.ActorUrn != caller {
		return nil, catalog.Errorf(catalog.Forbidden, "%s may not generate an access token for %s", caller, in.ActorUrn)
	}
	token, err := a.IssueToken(ctx, caller, in.ActorUrn, string(in.Type), ttl)
	if err != nil {
		return nil, err
	}
	return &model.AccessToken{AccessToken: token}, nil
}

// filterValue is the single value a facet filter names.
func filterValue(f *model.FacetFilterInput) string {
	if f.Value != nil {
		return *f.Value
	}
	if len(f.Values) > 0 {
		return f.Values[0]
	}
	return ""
}

// policyInfo builds a dataHubPolicyInfo value from the GraphQL input.
func policyInfo(in model.PolicyUpdateInput) map[string]any {
	desc := ""
	if in.Description != nil {
		desc = *in.Description
	}
	actors := map[string]any{}
	if a := in.Actors; a != nil {
		actors = map[string]any{"users": nonNil(a.Users), "groups": nonNil(a.Groups),
			"resourceOwners": a.ResourceOwners, "allUsers": a.AllUsers, "allGroups": a.AllGroups}
		if len(a.ResourceOwnersTypes) > 0 {
			actors["resourceOwnersTypes"] = a.ResourceOwnersTypes
		}
	}
	info := map[string]any{"displayName": in.Name, "description": desc, "type": string(in.Type), "state": string(in.State),
		"privileges": nonNil(in.Privileges), "actors": actors}
	if rs := in.Resources; rs != nil {
		res := map[string]any{}
		if rs.Type != nil {
			res["type"] = *rs.Type
		}
		if rs.Resources != nil {
			res["resources"] = rs.Resources
		}
		if rs.AllResources != nil {
			res["allResources"] = *rs.AllResources
		}
		if rs.Filter != nil {
			var crit []any
			for _, c := range rs.Filter.Criteria {
				crit = append(crit, map[string]any{"field": c.Field, "values": nonNil(c.Values), "condition": string(c.Condition)})
			}
			res["filter"] = map[string]any{"criteria": nonNil(crit)}
		}
		info["resources"] = res
	}
	return info
}

func (r *mutationResolver) CreatePolicy(ctx context.Context, in model.PolicyUpdateInput) (*string, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	urn, err := a.PutPolicy(ctx, actorOf(ctx), "", policyInfo(in))
	if err != nil {
		return nil, err
	}
	return &urn, nil
}

func (r *mutationResolver) UpdatePolicy(ctx context.Context, urn string, in model.PolicyUpdateInput) (*string, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	urn, err = a.PutPolicy(ctx, actorOf(ctx), urn, policyInfo(in))
	if err != nil {
		return nil, err
	}
	return &urn, nil
}

func (r *mutationResolver) DeletePolicy(ctx context.Context, urn string) (*string, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	if err := a.DeletePolicy(ctx, actorOf(ctx), urn); err != nil {
		return nil, err
	}
	return &urn, nil
}

// storedPolicy is dataHubPolicyInfo as stored.
type storedPolicy struct {
	DisplayName string   `json:"displayName"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	State       string   `json:"state"`
	Privileges  []string `json:"privileges"`
	Editable    *bool    `json:"editable"`
	Actors      struct {
		Users               []string `json:"users"`
		Groups              []string `json:"groups"`
		Roles               []string `json:"roles"`
		ResourceOwners      bool     `json:"resourceOwners"`
		ResourceOwnersTypes []string `json:"resourceOwnersTypes"`
		AllUsers            bool     `json:"allUsers"`
		AllGroups           bool     `json:"allGroups"`
	} `json:"actors"`
	Resources *struct {
		Type         *string  `json:"type"`
		Resources    []string `json:"resources"`
		AllResources *bool    `json:"allResources"`
		Filter       *struct {
			Criteria []struct {
				Field     string   `json:"field"`
				Values    []string `json:"values"`
				Condition string   `json:"condition"`
			} `json:"criteria"`
		} `json:"filter"`
	} `json:"resources"`
}

func policyOf(s auth.Stored) (*model.Policy, error) {
	var v storedPolicy
	if err := json.Unmarshal(s.Value, &v); err != nil {
		return nil, fmt.Errorf("decode policy %s: %w", s.URN, err)
	}
	p := &model.Policy{
		Urn: s.URN, Type: model.PolicyType(strings.ToUpper(v.Type)), Name: v.DisplayName, State: model.PolicyState(strings.ToUpper(v.State)),
		Privileges: nonNil(v.Privileges), Editable: v.Editable == nil || *v.Editable,
		Actors: &model.ActorFilter{Users: v.Actors.Users, Groups: v.Actors.Groups, Roles: v.Actors.Roles,
			ResourceOwners: v.Actors.ResourceOwners, ResourceOwnersTypes: v.Actors.ResourceOwnersTypes,
			AllUsers: v.Actors.AllUsers, AllGroups: v.Actors.AllGroups},
	}
	if v.Description != "" {
		p.Description = &v.Description
	}
	if rs := v.Resources; rs != nil {
		p.Resources = &model.ResourceFilter{Type: rs.Type, Resources: rs.Resources, AllResources: rs.AllResources}
		if rs.Filter != nil {
			f := &model.PolicyMatchFilter{}
			for _, c := range rs.Filter.Criteria {
				mc := &model.PolicyMatchCriterion{Field: c.Field, Condition: model.PolicyMatchCondition(c.Condition), Values: []*model.PolicyMatchCriterionValue{}}
				if mc.Condition == "" {
					mc.Condition = model.PolicyMatchConditionEquals
				}
				for _, val := range c.Values {
					mc.Values = append(mc.Values, &model.PolicyMatchCriterionValue{Value: val})
				}
				f.Criteria = append(f.Criteria, mc)
			}
			p.Resources.Filter = f
		}
	}
	return p, nil
}

func (r *queryResolver) ListPolicies(ctx context.Context, in model.ListPoliciesInput) (*model.ListPoliciesResult, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	stored, err := a.ListPolicies(ctx, actorOf(ctx))
	if err != nil {
		return nil, err
	}
	q := ""
	if in.Query != nil {
		q = strings.ToLower(strings.TrimSpace(*in.Query))
	}
	var kept []*model.Policy
	for _, s := range stored {
		p, err := policyOf(s)
		if err != nil {
			return nil, err
		}
		if q != "" && q != "*" && !strings.Contains(strings.ToLower(p.Name), q) &&
			(p.Description == nil || !strings.Contains(strings.ToLower(*p.Description), q)) {
			continue
		}
		if !policyMatches(p, in.OrFilters) {
			continue
		}
		kept = append(kept, p)
	}
	start, count := page(in.Start, in.Count, 20)
	items := nonNil(window(kept, start, count))
	return &model.ListPoliciesResult{Start: start, Count: len(items), Total: len(kept), Policies: items}, nil
}

// policyMatches applies orFilters on the fields DataHub's UI filters by:
// state, type, privileges, users, groups.
func policyMatches(p *model.Policy, or []*model.AndFilterInput) bool {
	if len(or) == 0 {
		return true
	}
	field := func(name string) []string {
		switch name {
		case "state":
			return []string{string(p.State)}
		case "type":
			return []string{string(p.Type)}
		case "privileges":
			return p.Privileges
		case "users":
			return p.Actors.Users
		case "groups":
			return p.Actors.Groups
		}
		return nil
	}
	for _, and := range or {
		ok := true
		for _, f := range and.And {
			vals := f.Values
			if f.Value != nil {
				vals = append(vals, *f.Value)
			}
			hit := false
			for _, have := range field(f.Field) {
				for _, want := range vals {
					if strings.EqualFold(have, want) {
						hit = true
					}
				}
			}
			if f.Negated != nil && *f.Negated {
				hit = !hit
			}
			ok = ok && hit
		}
		if ok {
			return true
		}
	}
	return false
}

// sourceInfo builds a dataHubIngestionSourceInfo value from the GraphQL
// input (the stored aspect has no description, so it is dropped).
func sourceInfo(in model.UpdateIngestionSourceInput) map[string]any {
	info := map[string]any{"name": in.Name, "type": in.Type}
	if c := in.Config; c != nil {
		cfg := map[string]any{"recipe": c.Recipe, "executorId": c.ExecutorID}
		if c.Version != nil {
			cfg["version"] = *c.Version
		}
		if c.DebugMode != nil {
			cfg["debugMode"] = *c.DebugMode
		}
		if len(c.ExtraArgs) > 0 {
			extra := map[string]any{}
			for _, e := range c.ExtraArgs {
				if e != nil && e.Value != nil {
					extra[e.Key] = *e.Value
				}
			}
			cfg["extraArgs"] = extra
		}
		info["config"] = cfg
	}
	if s := in.Schedule; s != nil {
		info["schedule"] = map[string]any{"interval": s.Interval, "timezone": s.Timezone}
	}
	return info
}

func (r *mutationResolver) CreateIngestionSource(ctx context.Context, in model.UpdateIngestionSourceInput) (*string, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	urn, err := a.PutIngestionSource(ctx, actorOf(ctx), "", sourceInfo(in))
	if err != nil {
		return nil, err
	}
	return &urn, nil
}

func (r *mutationResolver) UpdateIngestionSource(ctx context.Context, urn string, in model.UpdateIngestionSourceInput) (*string, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	urn, err = a.PutIngestionSource(ctx, actorOf(ctx), urn, sourceInfo(in))
	if err != nil {
		return nil, err
	}
	return &urn, nil
}

func (r *queryResolver) ListIngestionSources(ctx context.Context, in model.ListIngestionSourcesInput) (*model.ListIngestionSourcesResult, error) {
	a, err := r.authService()
	if err != nil {
		return nil, err
	}
	stored, err := a.ListIngestionSources(ctx, actorOf(ctx))
	if err != nil {
		return nil, err
	}
	q := ""
	if in.Query != nil {
		q = strings.ToLower(strings.TrimSpace(*in.Query))
	}
	// The filters name the info aspect's search fields (the web app hides
	// sourceType SYSTEM and picks by sourceExecutorId), read at the paths
	// the schema gives them.
	paths := map[string]string{}
	if spec := r.reg.Aspect("dataHubIngestionSourceInfo"); spec != nil {
		for _, f := range spec.Searchable {
			paths[f.FieldName] = f.Path
		}
	}
	for _, f := range in.Filters {
		if _, ok := paths[f.Field]; !ok {
			return nil, invalidf("unsupported ingestion source filter %q", f.Field)
		}
	}
	var kept []*model.IngestionSource
	for _, s := range stored {
		var v map[string]any
		if err := json.Unmarshal(s.Value, &v); err != nil {
			return nil, fmt.Errorf("decode ingestion source %s: %w", s.URN, err)
		}
		if name := jsonString(v, "name"); q != "" && q != "*" && !strings.Contains(strings.ToLower(name), q) {
			continue
		}
		if !facetsMatch(in.Filters, func(field string) string { return jsonString(v, splitPath(paths[field])...) }) {
			continue
		}
		kept = append(kept, &model.IngestionSource{Urn: s.URN})
	}
	start, count := page(in.Start, in.Count, 20)
	items := nonNil(window(kept, start, count))
	for _, it := range items {
		r.loaderOf(ctx).Want(it.Urn)
	}
	return &model.ListIngestionSourcesResult{Start: start, Count: len(items), Total: len(kept), IngestionSources: items}, nil
}

// facetsMatch reports whether a value whose field values valueOf reads
// passes every filter (an absent field has the value "").
func facetsMatch(filters []*model.FacetFilterInput, valueOf func(field string) string) bool {
	for _, f := range filters {
		v := valueOf(f.Field)
		hit := false
		for _, want := range f.Values {
			hit = hit || want == v
		}
		if f.Value != nil {
			hit = hit || *f.Value == v
		}
		if f.Negated != nil && *f.Negated {
			hit = !hit
		}
		if !hit {
			return false
		}
	}
	return true
}

// ingestionSource is the ingestion source urn, nil when none is stored.
func (r *Resolver) ingestionSource(ctx context.Context, urn string) (*model.IngestionSource, error) {
	a, err := r.loaderOf(ctx).stored(ctx, urn, "dataHubIngestionSourceInfo")
	if err != nil || a == nil {
		return nil, err
	}
	return &model.IngestionSource{Urn: urn}, nil
}
