package auth

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Privileges named by catalogd's checks (DataHub's names).
const (
	PrivViewEntity          = "VIEW_ENTITY_PAGE"
	PrivGetEntity           = "GET_ENTITY_PRIVILEGE"
	PrivSearch              = "SEARCH_PRIVILEGE"
	PrivEditEntity          = "EDIT_ENTITY"
	PrivDeleteEntity        = "DELETE_ENTITY"
	PrivViewDatasetProfile  = "VIEW_DATASET_PROFILE"
	PrivViewDatasetUsage    = "VIEW_DATASET_USAGE"
	PrivViewDatasetOps      = "VIEW_DATASET_OPERATIONS"
	PrivViewDashboardUsage  = "VIEW_DASHBOARD_USAGE"
	PrivGetTimeseriesAspect = "GET_TIMESERIES_ASPECT_PRIVILEGE"
	PrivRestoreIndices      = "RESTORE_INDICES_PRIVILEGE"
	PrivGetAnalytics        = "GET_ANALYTICS_PRIVILEGE"
	PrivGetPlatformEvents   = "GET_PLATFORM_EVENTS"
	PrivGetTimeline         = "GET_TIMELINE_PRIVILEGE"
	PrivManagePolicies      = "MANAGE_POLICIES"
	PrivManageIngestion     = "MANAGE_INGESTION"
	PrivManageSecrets       = "MANAGE_SECRETS"
	PrivManageAccessTokens  = "MANAGE_ACCESS_TOKENS"
	PrivGeneratePersonal    = "GENERATE_PERSONAL_ACCESS_TOKENS"
	PrivManageUsers         = "MANAGE_USERS_AND_GROUPS"
	PrivManageCredentials   = "MANAGE_USER_CREDENTIALS"
	PrivManageTags          = "MANAGE_TAGS"
	// PrivManageGlobalAnnouncements allows creating, editing and deleting posts.
	PrivManageGlobalAnnouncements = "MANAGE_GLOBAL_ANNOUNCEMENTS"
	PrivManageGlossaries          = "MANAGE_GLOSSARIES"
	PrivManageDomains             = "MANAGE_DOMAINS"
)

// defaultPolicies are DataHub's bootstrap policies (policies.json).
//
//go:embed default_policies.json
var defaultPolicies []byte

// Resource is what a privilege is checked against. The zero Resource means
// "some resource": the check passes when any policy grants the privilege.
type Resource struct {
	Type string // entity type, e.g. dataset
	URN  string
}

// policy is a dataHubPolicyInfo prepared for evaluation.
type policy struct {
	urn      string
	platform bool
	// unscoped says a metadata policy names no resources at all, so that
	// it grants even where no resource is given.
	unscoped   bool
	privileges map[string]bool
	users      map[string]bool
	groups     map[string]bool
	roles      map[string]bool
	allUsers   bool
	allGroups  bool
	owners     bool
	// ownerTypes, when not nil, limits owners to those of these ownership
	// types (resourceOwnersTypes).
	ownerTypes map[string]bool
	res        resourceFilter
}

// resourceFilter is a DataHubResourceFilter: all resources, or those that
// meet every criterion. A criterion on a field or with a condition catalogd
// does not know makes the filter select nothing, so that a policy never
// grants more than intended.
type resourceFilter struct {
	all      bool
	criteria []criterion
	unknown  bool
}

// Resource fields a criterion can test, as DataHub names them (TYPE and
// URN are the older names of RESOURCE_TYPE and RESOURCE_URN).
const (
	fieldType      = "RESOURCE_TYPE"
	fieldURN       = "RESOURCE_URN"
	fieldDomain    = "DOMAIN"
	fieldTag       = "TAG"
	fieldContainer = "CONTAINER"
	fieldOwner     = "OWNER"
	fieldInstance  = "DATA_PLATFORM_INSTANCE"
	fieldGroups    = "GROUP_MEMBERSHIP"
)

var fieldNames = map[string]string{
	"TYPE": fieldType, fieldType: fieldType, "URN": fieldURN, fieldURN: fieldURN,
	fieldDomain: fieldDomain, fieldTag: fieldTag, fieldContainer: fieldContainer,
	fieldOwner: fieldOwner, fieldInstance: fieldInstance, fieldGroups: fieldGroups,
}

// criterion is a PolicyMatchCriterion: the resource's values of field
// compared with values under condition (EQUALS, STARTS_WITH, NOT_EQUALS).
type criterion struct {
	field, condition string
	values           []string
}

// test applies the condition to the resource's values of the field; entity
// types compare without case, as policies name them either way.
func (c criterion) test(have []string) bool {
	eq := func(a, b string) bool { return a == b }
	if c.field == fieldType {
		eq = strings.EqualFold
	}
	anyMatch := func(match func(h, v string) bool) bool {
		for _, h := range have {
			for _, v := range c.values {
				if match(h, v) {
					return true
				}
			}
		}
		return false
	}
	switch c.condition {
	case "STARTS_WITH":
		return anyMatch(func(h, v string) bool { return len(h) >= len(v) && eq(h[:len(v)], v) })
	case "NOT_EQUALS":
		return !anyMatch(eq)
	}
	return anyMatch(eq)
}

// matches reports whether r meets the filter, reading the resource's
// aspects through fields only when a criterion needs them.
func (f *resourceFilter) matches(ctx context.Context, r Resource, fields *resourceFields) (bool, error) {
	if f.all || r == (Resource{}) {
		return true, nil
	}
	if f.unknown || len(f.criteria) == 0 {
		return false, nil
	}
	for _, c := range f.criteria {
		have, err := fields.values(ctx, c.field)
		if err != nil {
			return false, err
		}
		if !c.test(have) {
			return false, nil
		}
	}
	return true, nil
}

// maxAncestors bounds the walk up domain and container hierarchies, which
// nothing stops from holding a cycle.
const maxAncestors = 16

// resourceFields resolves the fields of one resource that criteria test,
// reading its aspects at most once per authorization check.
type resourceFields struct {
	s      *Service
	r      Resource
	loaded map[string][]string
	walked map[string]bool // fields whose values include their ancestors
	// ownerTypes holds the ownership type URN of each owner, in the order
	// of loaded[fieldOwner].
	ownerTypes []string
}

// ownedBy reports whether actor, or a group of pr, owns the resource under
// one of the ownership types of some policy in types (a nil set: any type).
func (f *resourceFields) ownedBy(ctx context.Context, actor string, pr *principal, types []map[string]bool) (bool, error) {
	owners, err := f.values(ctx, fieldOwner)
	if err != nil {
		return false, err
	}
	for i, o := range owners {
		if o != actor && !pr.groups[o] {
			continue
		}
		for _, set := range types {
			if set == nil || set[f.ownerTypes[i]] {
				return true, nil
			}
		}
	}
	return false, nil
}

func (f *resourceFields) values(ctx context.Context, field string) ([]string, error) {
	switch field {
	case fieldType:
		return []string{f.r.Type}, nil
	case fieldURN:
		return []string{f.r.URN}, nil
	}
	if f.loaded == nil {
		if err := f.load(ctx); err != nil {
			return nil, err
		}
	}
	if parent := hierarchies[field]; parent != "" && !f.walked[field] {
		all, err := f.ancestors(ctx, f.loaded[field], parent)
		if err != nil {
			return nil, err
		}
		f.loaded[field] = all
		f.walked[field] = true
	}
	return f.loaded[field], nil
}

// hierarchies names, for the fields whose values have parents, the aspect
// of a value that names its parent.
var hierarchies = map[string]string{fieldDomain: "domainProperties", fieldContainer: "container"}

// resourceAspects is what the aspects read for criteria hold, decoded
// together: each aspect fills its own members.
type resourceAspects struct {
	Domains []string `json:"domains"`
	Tags    []struct {
		Tag string `json:"tag"`
	} `json:"tags"`
	Container string `json:"container"`
	Owners    []struct {
		Owner   string `json:"owner"`
		TypeURN string `json:"typeUrn"`
	} `json:"owners"`
	Instance     string   `json:"instance"`
	ParentDomain string   `json:"parentDomain"`
	Groups       []string `json:"groups"`
	NativeGroups []string `json:"nativeGroups"`
}

// load reads the resource's domains, tags, container, owners, platform
// instance and (a user's) groups, the fields DataHub's policy engine
// resolves; values adds the
// domains and containers above them when a criterion asks.
func (f *resourceFields) load(ctx context.Context) error {
	urn := f.r.URN
	if urn == "" {
		// A resource known by its type alone has no aspects to test.
		f.loaded, f.walked = map[string][]string{}, map[string]bool{}
		return nil
	}
	m, err := f.s.db.LatestAspects(ctx, []string{urn}, []string{"domains", "globalTags", "container", "ownership", "dataPlatformInstance", "groupMembership", "nativeGroupMembership"})
	if err != nil {
		return fmt.Errorf("read %s for policy criteria: %w", urn, err)
	}
	out := map[string][]string{}
	for _, a := range m[urn] {
		var v resourceAspects
		if err := json.Unmarshal(a.Value, &v); err != nil {
			return fmt.Errorf("decode %s of %s: %w", a.Name, urn, err)
		}
		out[fieldDomain] = append(out[fieldDomain], v.Domains...)
		for _, t := range v.Tags {
			out[fieldTag] = append(out[fieldTag], t.Tag)
		}
		for _, o := range v.Owners {
			out[fieldOwner] = append(out[fieldOwner], o.Owner)
			f.ownerTypes = append(f.ownerTypes, o.TypeURN)
		}
		if v.Container != "" {
			out[fieldContainer] = append(out[fieldContainer], v.Container)
		}
		if v.Instance != "" {
			out[fieldInstance] = append(out[fieldInstance], v.Instance)
		}
		out[fieldGroups] = append(append(out[fieldGroups], v.Groups...), v.NativeGroups...)
	}
	f.loaded, f.walked = out, map[string]bool{}
	return nil
}

// ancestors returns urns and, level by level, the parents their aspect
// names (a domain's parentDomain, a container's container).
func (f *resourceFields) ancestors(ctx context.Context, urns []string, aspect string) ([]string, error) {
	seen := map[string]bool{}
	for _, u := range urns {
		seen[u] = true
	}
	out, level := urns, urns
	for depth := 0; depth < maxAncestors && len(level) > 0; depth++ {
		m, err := f.s.db.LatestAspects(ctx, level, []string{aspect})
		if err != nil {
			return nil, fmt.Errorf("read parents for policy criteria: %w", err)
		}
		var next []string
		for _, u := range level {
			for _, a := range m[u] {
				var v resourceAspects
				if err := json.Unmarshal(a.Value, &v); err != nil {
					return nil, fmt.Errorf("decode %s of %s: %w", a.Name, u, err)
				}
				for _, p := range []string{v.ParentDomain, v.Container} {
					if p != "" && !seen[p] {
						seen[p] = true
						next = append(next, p)
					}
				}
			}
		}
		out, level = append(out, next...), next
	}
	return out, nil
}

// policyInfo is the part of dataHubPolicyInfo evaluation reads.
type policyInfo struct {
	Type       string   `json:"type"`
	State      string   `json:"state"`
	Privileges []string `json:"privileges"`
	Actors     struct {
		Users          []string `json:"users"`
		Groups         []string `json:"groups"`
		Roles          []string `json:"roles"`
		AllUsers       bool     `json:"allUsers"`
		AllGroups      bool     `json:"allGroups"`
		ResourceOwners bool     `json:"resourceOwners"`
		// ResourceOwnersTypes limits resourceOwners to owners of these
		// ownership types.
		ResourceOwnersTypes []string `json:"resourceOwnersTypes"`
	} `json:"actors"`
	Resources *struct {
		Type         string        `json:"type"`
		Resources    []string      `json:"resources"`
		AllResources bool          `json:"allResources"`
		Filter       *policyFilter `json:"filter"`
	} `json:"resources"`
}

// policyFilter is a PolicyMatchFilter.
type policyFilter struct {
	Criteria []struct {
		Field     string   `json:"field"`
		Values    []string `json:"values"`
		Condition string   `json:"condition"`
	} `json:"criteria"`
}

func set(vals []string) map[string]bool {
	m := make(map[string]bool, len(vals))
	for _, v := range vals {
		m[v] = true
	}
	return m
}

// compile prepares a stored policy; inactive ones return nil.
func compile(urn string, raw []byte) (*policy, error) {
	var in policyInfo
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("decode policy %s: %w", urn, err)
	}
	if !strings.EqualFold(in.State, "ACTIVE") {
		return nil, nil
	}
	p := &policy{
		urn: urn, platform: strings.EqualFold(in.Type, "PLATFORM"), privileges: set(in.Privileges),
		users: set(in.Actors.Users), groups: set(in.Actors.Groups), roles: set(in.Actors.Roles),
		allUsers: in.Actors.AllUsers, allGroups: in.Actors.AllGroups, owners: in.Actors.ResourceOwners,
	}
	if len(in.Actors.ResourceOwnersTypes) > 0 {
		p.ownerTypes = set(in.Actors.ResourceOwnersTypes)
	}
	r := in.Resources
	p.unscoped = r == nil
	switch {
	case p.platform || r == nil:
		p.res.all = true
	case r.AllResources:
		p.res.all = true
	default:
		p.res = compileFilter(r.Type, r.Resources, r.Filter)
	}
	return p, nil
}

// compileFilter prepares a resource filter as DataHub's policy engine reads
// it: the filter's criteria when there is a filter; otherwise the legacy
// type and URN list. (DataHub reads the URN list only alongside a type, so
// that a list alone selects everything; here it selects what it names.)
func compileFilter(typ string, urns []string, filter *policyFilter) resourceFilter {
	var f resourceFilter
	if filter == nil {
		if typ != "" {
			f.criteria = append(f.criteria, criterion{field: fieldType, condition: "EQUALS", values: []string{typ}})
		}
		if len(urns) > 0 {
			f.criteria = append(f.criteria, criterion{field: fieldURN, condition: "EQUALS", values: urns})
		}
	} else {
		for _, c := range filter.Criteria {
			field, ok := fieldNames[strings.ToUpper(c.Field)]
			cond := strings.ToUpper(c.Condition)
			if cond == "" {
				cond = "EQUALS"
			}
			if !ok || (cond != "EQUALS" && cond != "STARTS_WITH" && cond != "NOT_EQUALS") {
				f.unknown = true
				continue
			}
			f.criteria = append(f.criteria, criterion{field: field, condition: cond, values: c.Values})
		}
	}
	// A filter that names nothing selects everything, as in DataHub.
	f.all = len(f.criteria) == 0 && !f.unknown
	return f
}

// principal is what an actor is a member of.
type principal struct {
	groups map[string]bool
	roles  map[string]bool
}

// policySnapshot is the set of active policies with the principals resolved
// so far against it.
type policySnapshot struct {
	loaded      time.Time
	byPrivilege map[string][]*policy
	all         []*policy
	mu          sync.Mutex
	principals  map[string]*principal
}

// policyCache reloads policies when they are older than ttl or invalidated.
type policyCache struct {
	svc  *Service
	ttl  time.Duration
	mu   sync.Mutex // serialises reloads
	cur  *policySnapshot
	curM sync.RWMutex
}

func (c *policyCache) snapshot(ctx context.Context) (*policySnapshot, error) {
	c.curM.RLock()
	snap := c.cur
	c.curM.RUnlock()
	if snap != nil && c.svc.now().Sub(snap.loaded) < c.ttl {
		return snap, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.curM.RLock()
	snap = c.cur
	c.curM.RUnlock()
	if snap != nil && c.svc.now().Sub(snap.loaded) < c.ttl {
		return snap, nil
	}
	snap, err := c.svc.loadPolicies(ctx)
	if err != nil {
		return nil, err
	}
	c.curM.Lock()
	c.cur = snap
	c.curM.Unlock()
	return snap, nil
}

// invalidate makes the next check reload policies and memberships.
func (c *policyCache) invalidate() {
	c.curM.Lock()
	c.cur = nil
	c.curM.Unlock()
}

// InvalidatePolicies drops cached policies and memberships, for writers that
// change them outside this package's API.
func (s *Service) InvalidatePolicies() { s.policies.invalidate() }

const policyPrefix = "urn:li:dataHubPolicy:"

func (s *Service) loadPolicies(ctx context.Context) (*policySnapshot, error) {
	snap := &policySnapshot{loaded: s.now(), byPrivilege: map[string][]*policy{}, principals: map[string]*principal{}}
	const page = 1000
	for off := 0; ; off += page {
		rows, err := s.db.ScanLatest(ctx, catalog.ScanQuery{URNLike: policyPrefix + "%", Aspect: "dataHubPolicyInfo", Offset: off, Limit: page})
		if err != nil {
			return nil, fmt.Errorf("load policies: %w", err)
		}
		for _, r := range rows {
			p, err := compile(r.URN, r.Value)
			if err != nil {
				return nil, err
			}
			if p == nil {
				continue
			}
			snap.all = append(snap.all, p)
			for priv := range p.privileges {
				snap.byPrivilege[priv] = append(snap.byPrivilege[priv], p)
			}
		}
		if len(rows) < page {
			return snap, nil
		}
	}
}

// principalOf resolves the groups and roles of actor, once per snapshot.
func (s *Service) principalOf(ctx context.Context, snap *policySnapshot, actor string) (*principal, error) {
	snap.mu.Lock()
	p := snap.principals[actor]
	snap.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p = &principal{groups: map[string]bool{}, roles: map[string]bool{}}
	m, err := s.db.LatestAspects(ctx, []string{actor}, []string{"groupMembership", "nativeGroupMembership", "roleMembership"})
	if err != nil {
		return nil, fmt.Errorf("read memberships of %s: %w", actor, err)
	}
	for _, a := range m[actor] {
		var v struct {
			Groups       []string `json:"groups"`
			NativeGroups []string `json:"nativeGroups"`
			Roles        []string `json:"roles"`
		}
		if err := json.Unmarshal(a.Value, &v); err != nil {
			return nil, fmt.Errorf("decode %s of %s: %w", a.Name, actor, err)
		}
		for _, g := range append(v.Groups, v.NativeGroups...) {
			p.groups[g] = true
		}
		for _, r := range v.Roles {
			p.roles[r] = true
		}
	}
	// A group's role is its members' too.
	if len(p.groups) > 0 {
		groups := make([]string, 0, len(p.groups))
		for g := range p.groups {
			groups = append(groups, g)
		}
		gm, err := s.db.LatestAspects(ctx, groups, []string{"roleMembership"})
		if err != nil {
			return nil, fmt.Errorf("read roles of the groups of %s: %w", actor, err)
		}
		for g, as := range gm {
			for _, a := range as {
				var v struct {
					Roles []string `json:"roles"`
				}
				if err := json.Unmarshal(a.Value, &v); err != nil {
					return nil, fmt.Errorf("decode %s of %s: %w", a.Name, g, err)
				}
				for _, r := range v.Roles {
					p.roles[r] = true
				}
			}
		}
	}
	snap.mu.Lock()
	if len(snap.principals) > 10_000 {
		clear(snap.principals)
	}
	snap.principals[actor] = p
	snap.mu.Unlock()
	return p, nil
}

// appliesTo reports whether p names actor (directly, by group, by role or
// as all users); owners are checked separately, against the resource.
func (p *policy) appliesTo(actor string, pr *principal) bool {
	if p.allUsers || p.users[actor] {
		return true
	}
	if p.allGroups && len(pr.groups) > 0 {
		return true
	}
	for g := range pr.groups {
		if p.groups[g] {
			return true
		}
	}
	for r := range pr.roles {
		if p.roles[r] {
			return true
		}
	}
	return false
}

// Allowed reports whether actor holds any of privs on r.
func (s *Service) Allowed(ctx context.Context, actor string, r Resource, privs ...string) (bool, error) {
	if actor == catalog.SystemActor || s.cfg.Disabled {
		return true, nil
	}
	snap, err := s.policies.snapshot(ctx)
	if err != nil {
		return false, err
	}
	pr, err := s.principalOf(ctx, snap, actor)
	if err != nil {
		return false, err
	}
	// The ownership types of the owner policies that would grant, nil
	// for any type.
	var ownerTypes []map[string]bool
	fields := &resourceFields{s: s, r: r}
	for _, priv := range privs {
		for _, p := range snap.byPrivilege[priv] {
			applies := p.appliesTo(actor, pr)
			if !applies && !(p.owners && r.URN != "") {
				continue
			}
			if !p.platform {
				ok, err := p.res.matches(ctx, r, fields)
				if err != nil {
					return false, err
				}
				if !ok {
					continue
				}
			}
			if applies {
				return true, nil
			}
			ownerTypes = append(ownerTypes, p.ownerTypes)
		}
	}
	if len(ownerTypes) == 0 {
		return false, nil
	}
	// Only now, on the path that would otherwise deny, read the owners.
	return fields.ownedBy(ctx, actor, pr, ownerTypes)
}

// GrantedPrivileges lists, sorted, every privilege the active policies give
// actor on r, or with r nil on no resource in particular: then, as in
// DataHub's policy engine, only platform policies and metadata policies
// that name no resources count.
func (s *Service) GrantedPrivileges(ctx context.Context, actor string, r *Resource) ([]string, error) {
	snap, err := s.policies.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	pr, err := s.principalOf(ctx, snap, actor)
	if err != nil {
		return nil, err
	}
	var res Resource
	if r != nil {
		res = *r
	}
	fields := &resourceFields{s: s, r: res}
	granted := map[string]bool{}
	for _, p := range snap.all {
		applies := p.appliesTo(actor, pr)
		if !applies && !(p.owners && res.URN != "") {
			continue
		}
		if !p.platform {
			if r == nil {
				if !p.unscoped {
					continue
				}
			} else if ok, err := p.res.matches(ctx, res, fields); err != nil {
				return nil, err
			} else if !ok {
				continue
			}
		}
		if !applies {
			owned, err := fields.ownedBy(ctx, actor, pr, []map[string]bool{p.ownerTypes})
			if err != nil {
				return nil, err
			}
			if !owned {
				continue
			}
		}
		for priv := range p.privileges {
			granted[priv] = true
		}
	}
	out := make([]string, 0, len(granted))
	for priv := range granted {
		out = append(out, priv)
	}
	slices.Sort(out)
	return out, nil
}

// Require is Allowed that fails with Forbidden, naming what was refused.
func (s *Service) Require(ctx context.Context, actor string, r Resource, what string, privs ...string) error {
	ok, err := s.Allowed(ctx, actor, r, privs...)
	if err != nil {
		return err
	}
	if !ok {
		return catalog.Errorf(catalog.Forbidden, "%s is unauthorized to %s", actor, what)
	}
	return nil
}

// PlatformPrivileges returns which of privs actor holds on some resource.
func (s *Service) PlatformPrivileges(ctx context.Context, actor string, privs []string) (map[string]bool, error) {
	out := make(map[string]bool, len(privs))
	for _, p := range privs {
		ok, err := s.Allowed(ctx, actor, Resource{}, p)
		if err != nil {
			return nil, err
		}
		out[p] = ok
	}
	return out, nil
}

// bootstrapEntities are the entities DataHub creates at its first start
// besides policies: the roles Admin, Editor and Reader, which the default
// policies grant to, the system ownership types, the home page modules and
// default template, and the global settings naming that template.
//
//go:embed bootstrap_entities.json
var bootstrapEntities []byte

// seedEntities writes each bootstrap entity whose aspect is not stored, so
// that a store made by an older version gains them too and no later edit is
// overwritten. Stamped ones get created and lastModified stamps of now. A
// merged one is shared with other settings: the top-level fields its stored
// value lacks are added. One seeded "with" a merged field is written only
// when that field is being added, so that what goes with it (the home page's
// default template and modules) arrives once and stays deleted when deleted.
func (s *Service) seedEntities(ctx context.Context) error {
	var defs []struct {
		EntityType string         `json:"entityType"`
		URN        string         `json:"urn"`
		Aspect     string         `json:"aspect"`
		Stamped    bool           `json:"stamped"`
		Merge      bool           `json:"merge"`
		With       string         `json:"with"`
		Value      map[string]any `json:"value"`
	}
	if err := json.Unmarshal(bootstrapEntities, &defs); err != nil {
		return fmt.Errorf("decode bootstrap entities: %w", err)
	}
	var urns, aspects []string
	for _, d := range defs {
		urns = append(urns, d.URN)
		if !slices.Contains(aspects, d.Aspect) {
			aspects = append(aspects, d.Aspect)
		}
	}
	have, err := s.db.LatestAspects(ctx, urns, aspects)
	if err != nil {
		return fmt.Errorf("look for bootstrap entities: %w", err)
	}
	stored := func(urn, aspect string) (map[string]any, bool, error) {
		i := slices.IndexFunc(have[urn], func(a catalog.Aspect) bool { return a.Name == aspect })
		if i < 0 {
			return nil, false, nil
		}
		var v map[string]any
		if err := json.Unmarshal(have[urn][i].Value, &v); err != nil {
			return nil, false, fmt.Errorf("decode %s of %s: %w", aspect, urn, err)
		}
		return v, true, nil
	}
	// The merged fields this start adds.
	adding := map[string]bool{}
	for _, d := range defs {
		if !d.Merge {
			continue
		}
		cur, _, err := stored(d.URN, d.Aspect)
		if err != nil {
			return err
		}
		for k := range d.Value {
			if _, ok := cur[k]; !ok {
				adding[k] = true
			}
		}
	}
	var props []catalog.Proposal
	for _, d := range defs {
		if d.With != "" && !adding[d.With] {
			continue
		}
		cur, ok, err := stored(d.URN, d.Aspect)
		if err != nil {
			return err
		}
		if ok && !d.Merge {
			continue
		}
		if d.Stamped {
			st := map[string]any{"time": s.now().UnixMilli(), "actor": catalog.SystemActor}
			d.Value["created"], d.Value["lastModified"] = st, st
		}
		if !ok {
			props = append(props, proposal(d.EntityType, d.URN, d.Aspect, d.Value))
			continue
		}
		missing := false
		for k, v := range d.Value {
			if _, ok := cur[k]; !ok {
				cur[k], missing = v, true
			}
		}
		if missing {
			props = append(props, proposal(d.EntityType, d.URN, d.Aspect, cur))
		}
	}
	if len(props) == 0 {
		return nil
	}
	if _, err := s.ingest.Ingest(preauthorized(ctx), catalog.SystemActor, props); err != nil {
		return fmt.Errorf("write bootstrap entities: %w", err)
	}
	return nil
}

// seedPolicies writes DataHub's default policies when no policy exists.
func (s *Service) seedPolicies(ctx context.Context) error {
	rows, err := s.db.ScanLatest(ctx, catalog.ScanQuery{URNLike: policyPrefix + "%", Limit: 1})
	if err != nil {
		return fmt.Errorf("look for policies: %w", err)
	}
	if len(rows) > 0 {
		return nil
	}
	var defs []struct {
		URN  string          `json:"urn"`
		Info json.RawMessage `json:"info"`
	}
	if err := json.Unmarshal(defaultPolicies, &defs); err != nil {
		return fmt.Errorf("decode default policies: %w", err)
	}
	props := make([]catalog.Proposal, len(defs))
	for i, d := range defs {
		props[i] = catalog.Proposal{EntityType: "dataHubPolicy", EntityURN: d.URN, AspectName: "dataHubPolicyInfo",
			ChangeType: catalog.Upsert, Value: d.Info, ContentType: "application/json"}
	}
	if _, err := s.ingest.Ingest(preauthorized(ctx), catalog.SystemActor, props); err != nil {
		return fmt.Errorf("write default policies: %w", err)
	}
	s.policies.invalidate()
	return nil
}
