package graphql

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// The resolvers of graphql/governance.graphqls. Where DataHub checks a
// platform privilege before an operation (Manage Domains to move a domain,
// Manage Ownership Types, Manage Policies to assign roles) they check it
// here too; every write is also checked by the ingest pipeline like any
// other.

// Platform privileges these resolvers check, DataHub's names.
const (
	privManageOwnershipTypes = "MANAGE_GLOBAL_OWNERSHIP_TYPES"
)

// requirePlatform fails with Forbidden unless the caller holds one of privs
// on some resource; a server without an auth service grants everything.
func (r *Resolver) requirePlatform(ctx context.Context, what string, privs ...string) error {
	if r.auth == nil {
		return nil
	}
	return r.auth.Require(ctx, actorOf(ctx), auth.Resource{}, what, privs...)
}

// --- domains ---

// domainInfo is the part of domainProperties these resolvers read.
type domainInfo struct {
	Name         string `json:"name"`
	ParentDomain string `json:"parentDomain"`
}

// domainsUnder lists the domains whose parent is parent ("" for the top
// level), with their names.
func (r *Resolver) domainsUnder(ctx context.Context, parent string) (map[string]string, error) {
	out := map[string]string{}
	const scanPage = 1000
	for off := 0; ; off += scanPage {
		rows, err := r.store.ScanLatest(ctx, catalog.ScanQuery{URNLike: "urn:li:domain:%", Aspect: "domainProperties", Offset: off, Limit: scanPage})
		if err != nil {
			return nil, err
		}
		for _, a := range rows {
			var d domainInfo
			if err := jsonUnmarshal(a.Value, &d); err != nil {
				return nil, err
			}
			if d.ParentDomain == parent {
				out[a.URN] = d.Name
			}
		}
		if len(rows) < scanPage {
			return out, nil
		}
	}
}

// nameTaken reports whether a domain other than self named name is under
// parent, which DataHub refuses so that a domain's path names it.
func (r *Resolver) nameTaken(ctx context.Context, parent, name, self string) (bool, error) {
	siblings, err := r.domainsUnder(ctx, parent)
	if err != nil {
		return false, err
	}
	for u, n := range siblings {
		if u != self && strings.EqualFold(n, name) {
			return true, nil
		}
	}
	return false, nil
}

// MoveDomain moves a domain under another domain, or to the top level.
func (r *mutationResolver) MoveDomain(ctx context.Context, in model.MoveDomainInput) (*bool, error) {
	if err := r.requirePlatform(ctx, "manage domains", auth.PrivManageDomains); err != nil {
		return nil, err
	}
	if _, err := catalog.ParseURN(in.ResourceUrn); err != nil {
		return nil, err
	}
	if urnType(in.ResourceUrn) != "domain" {
		return nil, invalidf("Resource is not a domain.")
	}
	a, err := r.loaderOf(ctx).stored(ctx, in.ResourceUrn, "domainProperties")
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, invalidf("Domain properties do not exist.")
	}
	var cur domainInfo
	if err := jsonUnmarshal(a.Value, &cur); err != nil {
		return nil, err
	}
	parent := deref(in.ParentDomain)
	if parent != "" {
		if _, err := catalog.ParseURN(parent); err != nil {
			return nil, err
		}
		if urnType(parent) != "domain" {
			return nil, invalidf("Parent entity is not a domain.")
		}
		ok, err := r.loaderOf(ctx).exists(ctx, parent)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, invalidf("Parent entity does not exist.")
		}
		// A domain under its own subdomain would be a cycle, which no
		// path from the top reaches.
		chain, err := r.parentChain(ctx, parent, "domainProperties", "parentDomain")
		if err != nil {
			return nil, err
		}
		if parent == in.ResourceUrn || slices.Contains(chain, in.ResourceUrn) {
			return nil, invalidf("Cannot move domain %s under itself or one of its subdomains.", in.ResourceUrn)
		}
	}
	if taken, err := r.nameTaken(ctx, parent, cur.Name, in.ResourceUrn); err != nil {
		return nil, err
	} else if taken {
		return nil, catalog.Errorf(catalog.Conflict, "\"%s\" already exists in the destination domain. Please pick a unique name.", cur.Name)
	}
	err = r.write(ctx, edited(in.ResourceUrn, "domainProperties", func(m *map[string]any, found bool) bool {
		if !found || *m == nil {
			return false
		}
		if parent != "" {
			(*m)["parentDomain"] = parent
		} else {
			delete(*m, "parentDomain")
		}
		return true
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// DeleteDomain deletes a domain, taking the entities in it out of it;
// refused while other domains are under it, as in DataHub.
func (r *mutationResolver) DeleteDomain(ctx context.Context, urn string) (*bool, error) {
	if err := r.mustExist(ctx, urn, "domain"); err != nil {
		return nil, err
	}
	children, _, err := r.store.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Incoming, Relationships: []string{"IsPartOf"}, Count: 1})
	if err != nil {
		return nil, err
	}
	if len(children) > 0 {
		return nil, invalidf("Cannot delete domain %s which has child domains", urn)
	}
	// The entities in it leave it with the delete.
	return r.remove(ctx, urn, "domain")
}

// deleteWithReferences takes an entity out of the aspects that name it the
// way refs do, as the system, and then deletes it as the caller, whose
// delete finds no reference of its own left to remove. As in DataHub, the
// references go whether or not the caller may edit the entities that hold
// them: being allowed to delete an entity is being allowed to let go of it.
func (r *Resolver) deleteWithReferences(ctx context.Context, del catalog.Proposal, refs []catalog.Proposal) error {
	if len(refs) > 0 {
		res, err := r.ingest.Ingest(ctx, catalog.SystemActor, refs)
		r.loaderOf(ctx).forget(res.URNs...)
		if err != nil {
			return err
		}
	}
	return r.write(ctx, del)
}

// BatchSetDomain puts every resource in the domain, or out of any domain
// when none is given, in one write: all of them or none.
func (r *mutationResolver) BatchSetDomain(ctx context.Context, in model.BatchSetDomainInput) (*bool, error) {
	domains := []string{}
	if d := deref(in.DomainUrn); d != "" {
		if err := r.mustExist(ctx, d, "domain"); err != nil {
			return nil, err
		}
		domains = append(domains, d)
	}
	var p proposals
	for _, res := range in.Resources {
		if res == nil {
			continue
		}
		if err := r.mustExist(ctx, res.ResourceUrn); err != nil {
			return nil, err
		}
		p.add(res.ResourceUrn, "domains", map[string]any{"domains": domains})
	}
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return yes, nil
}

// referencing lists the entities whose aspect links to urn by the
// relationship rel.
func (r *Resolver) referencing(ctx context.Context, urn, rel, aspect string) ([]string, error) {
	edges, _, err := r.store.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Incoming, Relationships: []string{rel}, Count: maxRelated})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range edges {
		if e.SourceAspect == aspect && !slices.Contains(out, e.Source) {
			out = append(out, e.Source)
		}
	}
	return out, nil
}

// withoutAny returns the JSON array v without the items drop matches,
// never nil.
func withoutAny(v any, drop func(any) bool) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, x := range list {
		if !drop(x) {
			out = append(out, x)
		}
	}
	return out
}

// --- related glossary terms ---

// relatedTermsField is the member of glossaryRelatedTerms a relationship
// type edits: Is A relations are isRelatedTerms, Has A hasRelatedTerms.
func relatedTermsField(t model.TermRelationshipType) string {
	if t == model.TermRelationshipTypeIsA {
		return "isRelatedTerms"
	}
	return "hasRelatedTerms"
}

// checkTerm fails unless urn is a glossary term that exists, in DataHub's
// words.
func (r *Resolver) checkTerm(ctx context.Context, urn string) error {
	if _, err := catalog.ParseURN(urn); err != nil {
		return err
	}
	ok := urnType(urn) == "glossaryTerm"
	if ok {
		var err error
		if ok, err = r.loaderOf(ctx).exists(ctx, urn); err != nil {
			return err
		}
	}
	if !ok {
		return invalidf("Failed to update %s. %s either does not exist or is not a glossaryTerm.", urn, urn)
	}
	return nil
}

// AddRelatedTerms adds Is A or Has A relations from a term to others.
func (r *mutationResolver) AddRelatedTerms(ctx context.Context, in model.RelatedTermsInput) (*bool, error) {
	if err := r.checkTerm(ctx, in.Urn); err != nil {
		return nil, err
	}
	for _, t := range in.TermUrns {
		switch {
		case t == in.Urn:
			return nil, invalidf("Failed to update %s. Tried to create related term with itself.", in.Urn)
		case urnType(t) != "glossaryTerm":
			return nil, invalidf("Failed to update %s. %s is not a glossaryTerm.", in.Urn, t)
		}
		if _, err := catalog.ParseURN(t); err != nil {
			return nil, err
		}
		ok, err := r.loaderOf(ctx).exists(ctx, t)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, invalidf("Failed to update %s. %s does not exist.", in.Urn, t)
		}
	}
	field := relatedTermsField(in.RelationshipType)
	err := r.write(ctx, edited(in.Urn, "glossaryRelatedTerms", func(m *map[string]any, _ bool) bool {
		if *m == nil {
			*m = map[string]any{}
		}
		list, _ := (*m)[field].([]any)
		changed := false
		for _, t := range in.TermUrns {
			if !slices.Contains(list, any(t)) {
				list = append(list, t)
				changed = true
			}
		}
		(*m)[field] = list
		return changed
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// RemoveRelatedTerms removes Is A or Has A relations from a term.
func (r *mutationResolver) RemoveRelatedTerms(ctx context.Context, in model.RelatedTermsInput) (*bool, error) {
	if err := r.checkTerm(ctx, in.Urn); err != nil {
		return nil, err
	}
	a, err := r.loaderOf(ctx).stored(ctx, in.Urn, "glossaryRelatedTerms")
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, invalidf("Related Terms for this Urn do not exist: %s", in.Urn)
	}
	field := relatedTermsField(in.RelationshipType)
	var cur map[string]json.RawMessage
	if err := jsonUnmarshal(a.Value, &cur); err != nil {
		return nil, err
	}
	if _, ok := cur[field]; !ok {
		return nil, invalidf("Failed to remove from GlossaryRelatedTerms as they do not exist for this Glossary Term")
	}
	err = r.write(ctx, edited(in.Urn, "glossaryRelatedTerms", func(m *map[string]any, found bool) bool {
		if !found || *m == nil {
			return false
		}
		(*m)[field] = withoutAny((*m)[field], func(v any) bool { s, _ := v.(string); return slices.Contains(in.TermUrns, s) })
		return true
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// --- ownership types ---

// systemOwnershipType reports whether urn is one of the ownership types
// DataHub creates itself (id __system__...), which are never removed.
func systemOwnershipType(urn string) bool {
	return strings.HasPrefix(urnPart(urn, 0), "__system__")
}

// ListOwnershipTypes lists the ownership types by name, leaving out those
// marked removed, as DataHub's search does.
func (r *queryResolver) ListOwnershipTypes(ctx context.Context, in model.ListOwnershipTypesInput) (*model.ListOwnershipTypesResult, error) {
	if len(in.Filters) > 0 {
		return nil, invalidf("ownership types cannot be filtered")
	}
	const prefix = "urn:li:ownershipType:"
	removed := map[string]bool{}
	rows, err := r.store.ScanLatest(ctx, catalog.ScanQuery{URNLike: prefix + "%", Aspect: "status", Limit: maxRelated})
	if err != nil {
		return nil, err
	}
	for _, a := range rows {
		var st struct {
			Removed bool `json:"removed"`
		}
		if err := jsonUnmarshal(a.Value, &st); err != nil {
			return nil, err
		}
		removed[a.URN] = st.Removed
	}
	rows, err = r.store.ScanLatest(ctx, catalog.ScanQuery{URNLike: prefix + "%", Aspect: "ownershipTypeInfo", Limit: maxRelated})
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimSpace(deref(in.Query)))
	type item struct{ urn, name string }
	var kept []item
	for _, a := range rows {
		var info struct {
			Name string `json:"name"`
		}
		if err := jsonUnmarshal(a.Value, &info); err != nil {
			return nil, err
		}
		if removed[a.URN] || (q != "" && q != "*" && !strings.Contains(strings.ToLower(info.Name), q)) {
			continue
		}
		kept = append(kept, item{a.URN, info.Name})
	}
	slices.SortFunc(kept, func(a, b item) int { return strings.Compare(a.name, b.name) })
	start, count := page(in.Start, in.Count, 20)
	out := &model.ListOwnershipTypesResult{Start: start, Total: len(kept), OwnershipTypes: []*model.OwnershipTypeEntity{}}
	for _, it := range window(kept, start, count) {
		out.OwnershipTypes = append(out.OwnershipTypes, &model.OwnershipTypeEntity{Urn: it.urn})
	}
	out.Count = len(out.OwnershipTypes)
	urns := make([]string, len(out.OwnershipTypes))
	for i, o := range out.OwnershipTypes {
		urns[i] = o.Urn
	}
	r.loaderOf(ctx).Want(urns...)
	return out, nil
}

// CreateOwnershipType creates a custom ownership type with a new id.
func (r *mutationResolver) CreateOwnershipType(ctx context.Context, in model.CreateOwnershipTypeInput) (*model.OwnershipTypeEntity, error) {
	if err := r.requirePlatform(ctx, "manage ownership types", privManageOwnershipTypes); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, invalidf("an ownership type needs a name")
	}
	id := uuid.NewString()
	urn, err := r.create(ctx, "ownershipType", "Ownership Type", &id, func(urn string, p *proposals) {
		st := stamp(ctx)
		p.add(urn, "ownershipTypeInfo", map[string]any{"name": in.Name, "description": in.Description, "created": st, "lastModified": st})
	})
	if err != nil {
		return nil, err
	}
	return &model.OwnershipTypeEntity{Urn: *urn}, nil
}

// UpdateOwnershipType changes the name or description of an ownership
// type; fields left out keep their value.
func (r *mutationResolver) UpdateOwnershipType(ctx context.Context, urn string, in model.UpdateOwnershipTypeInput) (*model.OwnershipTypeEntity, error) {
	if err := r.requirePlatform(ctx, "manage ownership types", privManageOwnershipTypes); err != nil {
		return nil, err
	}
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	a, err := r.loaderOf(ctx).stored(ctx, urn, "ownershipTypeInfo")
	if err != nil {
		return nil, err
	}
	if a == nil || urnType(urn) != "ownershipType" {
		return nil, invalidf("Failed to update Ownership Type. Ownership Type with urn %s does not exist.", urn)
	}
	st := stamp(ctx)
	err = r.write(ctx, edited(urn, "ownershipTypeInfo", func(m *map[string]any, found bool) bool {
		if !found || *m == nil {
			return false
		}
		if in.Name != nil {
			(*m)["name"] = *in.Name
		}
		if in.Description != nil {
			(*m)["description"] = *in.Description
		}
		(*m)["lastModified"] = st
		return true
	}))
	if err != nil {
		return nil, err
	}
	return &model.OwnershipTypeEntity{Urn: urn}, nil
}

// DeleteOwnershipType deletes an ownership type. A system one is only
// marked removed, as in DataHub; a custom one is deleted and, unless
// deleteReferences is false, the ownerships that name it lose those owners.
func (r *mutationResolver) DeleteOwnershipType(ctx context.Context, urn string, deleteReferences *bool) (*bool, error) {
	if err := r.requirePlatform(ctx, "manage ownership types", privManageOwnershipTypes); err != nil {
		return nil, err
	}
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	if urnType(urn) != "ownershipType" {
		return nil, invalidf("%s is not an ownershipType URN", urn)
	}
	if systemOwnershipType(urn) {
		var p proposals
		p.add(urn, "status", map[string]any{"removed": true})
		if err := r.write(ctx, p.list...); err != nil {
			return nil, err
		}
		return yes, nil
	}
	ok, err := r.loaderOf(ctx).exists(ctx, urn)
	if err != nil {
		return nil, err
	}
	if !ok {
		// Nothing to delete: DataHub answers true too.
		return yes, nil
	}
	// Unlike DataHub's removal of references, which would only drop
	// the type from each owner, the owners of this type go.
	var props []catalog.Proposal
	keep := deleteReferences != nil && !*deleteReferences
	if !keep {
		refs, err := r.referencing(ctx, urn, "ownershipType", "ownership")
		if err != nil {
			return nil, err
		}
		for _, src := range refs {
			props = append(props, edited(src, "ownership", func(m *map[string]any, found bool) bool {
				if !found || *m == nil {
					return false
				}
				(*m)["owners"] = withoutAny((*m)["owners"], func(v any) bool {
					o, _ := v.(map[string]any)
					return jsonString(o, "typeUrn") == urn
				})
				return true
			}))
		}
	}
	del := catalog.Proposal{EntityType: "ownershipType", EntityURN: urn, ChangeType: catalog.Delete, AspectName: "ownershipTypeKey", KeepReferences: keep}
	if err := r.deleteWithReferences(ctx, del, props); err != nil {
		return nil, err
	}
	return yes, nil
}

// --- roles ---

// BatchAssignRole gives each actor (a user or group) the role, replacing
// the one they had, or takes their role away when roleUrn is absent. As in
// DataHub, actors that do not exist are skipped.
func (r *mutationResolver) BatchAssignRole(ctx context.Context, in model.BatchAssignRoleInput) (*bool, error) {
	if err := r.requirePlatform(ctx, "assign roles", auth.PrivManagePolicies); err != nil {
		return nil, err
	}
	roles := []string{}
	if role := deref(in.RoleUrn); role != "" {
		if _, err := catalog.ParseURN(role); err != nil {
			return nil, err
		}
		ok := urnType(role) == "dataHubRole"
		if ok {
			var err error
			if ok, err = r.loaderOf(ctx).exists(ctx, role); err != nil {
				return nil, err
			}
		}
		if !ok {
			return nil, invalidf("Role %s does not exist. Skipping batch role assignment", role)
		}
		roles = append(roles, role)
	}
	var p proposals
	for _, actor := range in.Actors {
		if _, err := catalog.ParseURN(actor); err != nil {
			return nil, err
		}
		if t := urnType(actor); t != "corpuser" && t != "corpGroup" {
			return nil, invalidf("%s is not a corpuser or corpGroup URN", actor)
		}
		ok, err := r.loaderOf(ctx).exists(ctx, actor)
		if err != nil {
			return nil, err
		}
		if ok {
			p.add(actor, "roleMembership", map[string]any{"roles": roles})
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return yes, nil
}

// --- users ---

// UpdateUserStatus suspends or reactivates a user.
func (r *mutationResolver) UpdateUserStatus(ctx context.Context, urn string, status model.CorpUserStatus) (*string, error) {
	if err := r.requirePlatform(ctx, "manage users and groups", auth.PrivManageUsers); err != nil {
		return nil, err
	}
	if err := r.mustExist(ctx, urn, "corpuser"); err != nil {
		return nil, err
	}
	var p proposals
	p.add(urn, "corpUserStatus", map[string]any{"status": string(status), "lastModified": stamp(ctx)})
	if p.err != nil {
		return nil, p.err
	}
	if err := r.write(ctx, p.list...); err != nil {
		return nil, err
	}
	return &urn, nil
}

// --- the caller's settings ---

// editSettings edits the caller's corpUserSettings; a user who has none
// starts from DataHub's default (the full home page).
func (r *Resolver) editSettings(ctx context.Context, fn func(m map[string]any)) (*bool, error) {
	user := actorOf(ctx)
	if urnType(user) != "corpuser" {
		return nil, invalidf("only a user has settings")
	}
	err := r.editAspect(ctx, user, "corpUserSettings", func() map[string]any {
		return map[string]any{"appearance": map[string]any{"showSimplifiedHomepage": false}}
	}, func(m map[string]any) {
		if _, ok := m["appearance"].(map[string]any); !ok {
			m["appearance"] = map[string]any{"showSimplifiedHomepage": false}
		}
		fn(m)
	})
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// userSettingFields maps a UserSetting to its field of appearance.
var userSettingFields = map[model.UserSetting]string{
	model.UserSettingShowSimplifiedHomepage: "showSimplifiedHomepage",
	model.UserSettingShowThemeV2:            "showThemeV2",
}

// UpdateUserSetting sets one of the caller's appearance settings.
func (r *mutationResolver) UpdateUserSetting(ctx context.Context, in model.UpdateUserSettingInput) (*bool, error) {
	field, ok := userSettingFields[in.Name]
	if !ok {
		return nil, invalidf("User Setting name %s not currently supported", in.Name)
	}
	return r.editSettings(ctx, func(m map[string]any) {
		m["appearance"].(map[string]any)[field] = in.Value
	})
}

// --- service accounts ---

// Service accounts as DataHub keeps them.
const (
	privManageServiceAccounts = "MANAGE_SERVICE_ACCOUNTS"
	serviceAccountPrefix      = "urn:li:corpuser:service_"
	serviceAccountSubType     = "SERVICE_ACCOUNT"
)

// serviceAccountOf reads the service account urn, nil when urn is not one.
func (r *Resolver) serviceAccountOf(ctx context.Context, urn string) (*model.ServiceAccount, error) {
	if !strings.HasPrefix(urn, serviceAccountPrefix) {
		return nil, nil
	}
	l := r.loaderOf(ctx)
	sub, err := l.stored(ctx, urn, "subTypes")
	if err != nil || sub == nil {
		return nil, err
	}
	var st struct {
		TypeNames []string `json:"typeNames"`
	}
	if err := jsonUnmarshal(sub.Value, &st); err != nil {
		return nil, err
	}
	if !slices.Contains(st.TypeNames, serviceAccountSubType) {
		return nil, nil
	}
	sa := &model.ServiceAccount{Urn: urn, Type: model.EntityTypeCorpUser, Name: strings.TrimPrefix(urn, serviceAccountPrefix)}
	info, err := l.stored(ctx, urn, "corpUserInfo")
	if err != nil {
		return nil, err
	}
	if info != nil {
		var v struct {
			DisplayName *string `json:"displayName"`
			Title       *string `json:"title"`
		}
		if err := jsonUnmarshal(info.Value, &v); err != nil {
			return nil, err
		}
		sa.DisplayName, sa.Description = v.DisplayName, v.Title
		sa.UpdatedAt = ptr(info.Created.Time)
	}
	// The stamp of the first version of the sub-type, written at creation
	// and never changed, says who made the account and when.
	if first, err := r.store.AspectVersion(ctx, urn, "subTypes", 1); err == nil {
		sa.CreatedAt, sa.CreatedBy = ptr(first.Created.Time), nilIfEmpty(ptr(first.Created.Actor))
	} else if catalog.KindOf(err) != catalog.NotFound {
		return nil, err
	} else {
		sa.CreatedAt, sa.CreatedBy = ptr(sub.Created.Time), nilIfEmpty(ptr(sub.Created.Actor))
	}
	return sa, nil
}

// CreateServiceAccount creates a service account named service_<new id>.
func (r *mutationResolver) CreateServiceAccount(ctx context.Context, in model.CreateServiceAccountInput) (*model.ServiceAccount, error) {
	// Managing service accounts is the whole right: it takes no right to
	// edit users.
	ctx, err := r.platformDelegate(ctx, "create service accounts", privManageServiceAccounts)
	if err != nil {
		return nil, err
	}
	id := "service_" + uuid.NewString()
	display := deref(in.DisplayName)
	if display == "" {
		display = id
	}
	urn, err := r.create(ctx, "corpuser", "Service Account", &id, func(urn string, p *proposals) {
		info := map[string]any{"active": true, "displayName": display}
		if in.Description != nil {
			info["title"] = *in.Description
		}
		p.add(urn, "corpUserInfo", info)
		p.add(urn, "subTypes", map[string]any{"typeNames": []string{serviceAccountSubType}})
	})
	if err != nil {
		return nil, err
	}
	return &model.ServiceAccount{Urn: *urn, Type: model.EntityTypeCorpUser, Name: id, DisplayName: in.DisplayName, Description: in.Description,
		CreatedBy: ptr(actorOf(ctx)), CreatedAt: ptr(now())}, nil
}

// DeleteServiceAccount deletes a service account; its tokens stop working
// with it, since a token's user must exist.
func (r *mutationResolver) DeleteServiceAccount(ctx context.Context, urn string) (*bool, error) {
	ctx, err := r.platformDelegate(ctx, "delete service accounts", privManageServiceAccounts)
	if err != nil {
		return nil, err
	}
	sa, err := r.serviceAccountOf(ctx, urn)
	if err != nil {
		return nil, err
	}
	if sa == nil {
		return nil, catalog.Errorf(catalog.NotFound, "Service account %s does not exist", urn)
	}
	return r.remove(ctx, urn, "corpuser")
}

// GetServiceAccount returns a service account, null when urn names none.
func (r *queryResolver) GetServiceAccount(ctx context.Context, urn string) (*model.ServiceAccount, error) {
	if err := r.requirePlatform(ctx, "view service accounts", privManageServiceAccounts); err != nil {
		return nil, err
	}
	return r.serviceAccountOf(ctx, urn)
}

// ListServiceAccounts lists the service accounts by display name.
func (r *queryResolver) ListServiceAccounts(ctx context.Context, in model.ListServiceAccountsInput) (*model.ListServiceAccountsResult, error) {
	if err := r.requirePlatform(ctx, "view service accounts", privManageServiceAccounts); err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimSpace(deref(in.Query)))
	var all []*model.ServiceAccount
	const scanPage = 1000
	for off := 0; ; off += scanPage {
		rows, err := r.store.ScanLatest(ctx, catalog.ScanQuery{URNLike: serviceAccountPrefix + "%", Aspect: "subTypes", KeysOnly: true, Offset: off, Limit: scanPage})
		if err != nil {
			return nil, err
		}
		urns := make([]string, len(rows))
		for i, a := range rows {
			urns[i] = a.URN
		}
		r.loaderOf(ctx).Want(urns...)
		for _, u := range urns {
			sa, err := r.serviceAccountOf(ctx, u)
			if err != nil {
				return nil, err
			}
			if sa == nil {
				continue
			}
			if q != "" && q != "*" && !strings.Contains(strings.ToLower(sa.Name), q) && !strings.Contains(strings.ToLower(deref(sa.DisplayName)), q) {
				continue
			}
			all = append(all, sa)
		}
		if len(rows) < scanPage {
			break
		}
	}
	slices.SortFunc(all, func(a, b *model.ServiceAccount) int {
		if c := strings.Compare(strings.ToLower(deref(a.DisplayName)), strings.ToLower(deref(b.DisplayName))); c != 0 {
			return c
		}
		return strings.Compare(a.Urn, b.Urn)
	})
	start, count := page(in.Start, in.Count, 20)
	items := nonNil(window(all, start, count))
	return &model.ListServiceAccountsResult{Start: start, Count: len(items), Total: len(all), ServiceAccounts: items}, nil
}
