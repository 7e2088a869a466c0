package auth

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
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
	PrivManagePolicies      = "MANAGE_POLICIES"
	PrivManageIngestion     = "MANAGE_INGESTION"
	PrivManageAccessTokens  = "MANAGE_ACCESS_TOKENS"
	PrivGeneratePersonal    = "GENERATE_PERSONAL_ACCESS_TOKENS"
	PrivManageUsers         = "MANAGE_USERS_AND_GROUPS"
	PrivManageCredentials   = "MANAGE_USER_CREDENTIALS"
	PrivManageTags          = "MANAGE_TAGS"
	PrivManageGlossaries    = "MANAGE_GLOSSARIES"
	PrivManageDomains       = "MANAGE_DOMAINS"
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
	urn        string
	platform   bool
	privileges map[string]bool
	users      map[string]bool
	groups     map[string]bool
	roles      map[string]bool
	allUsers   bool
	allGroups  bool
	owners     bool
	res        resourceFilter
}

// resourceFilter is a DataHubResourceFilter: all resources, or those of the
// listed types and URNs. Criteria catalogd cannot evaluate (domains, tags)
// select nothing, so that they never grant more than intended.
type resourceFilter struct {
	all     bool
	types   map[string]bool
	urns    map[string]bool
	unknown bool
}

func (f *resourceFilter) matches(r Resource) bool {
	if f.all || r == (Resource{}) {
		return true
	}
	if f.unknown {
		return false
	}
	if len(f.types) > 0 && !f.types[strings.ToLower(r.Type)] {
		return false
	}
	if len(f.urns) > 0 {
		if r.URN == "" {
			for u := range f.urns {
				if x, err := catalog.ParseURN(u); err == nil && strings.EqualFold(x.EntityType(), r.Type) {
					return true
				}
			}
			return false
		}
		return f.urns[r.URN]
	}
	return len(f.types) > 0
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
	} `json:"actors"`
	Resources *struct {
		Type         string   `json:"type"`
		Resources    []string `json:"resources"`
		AllResources bool     `json:"allResources"`
		Filter       *struct {
			Criteria []struct {
				Field     string   `json:"field"`
				Values    []string `json:"values"`
				Condition string   `json:"condition"`
			} `json:"criteria"`
		} `json:"filter"`
	} `json:"resources"`
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
	r := in.Resources
	switch {
	case p.platform || r == nil:
		p.res.all = true
	case r.AllResources:
		p.res.all = true
	default:
		p.res.types, p.res.urns = map[string]bool{}, map[string]bool{}
		if r.Type != "" {
			p.res.types[strings.ToLower(r.Type)] = true
		}
		for _, u := range r.Resources {
			p.res.urns[u] = true
		}
		if r.Filter != nil {
			for _, c := range r.Filter.Criteria {
				if c.Condition != "" && !strings.EqualFold(c.Condition, "EQUALS") {
					p.res.unknown = true
					continue
				}
				switch strings.ToUpper(c.Field) {
				case "TYPE", "RESOURCE_TYPE":
					for _, v := range c.Values {
						p.res.types[strings.ToLower(v)] = true
					}
				case "URN", "RESOURCE_URN":
					for _, v := range c.Values {
						p.res.urns[v] = true
					}
				default:
					p.res.unknown = true
				}
			}
		}
		if len(p.res.types) == 0 && len(p.res.urns) == 0 && !p.res.unknown {
			// A filter that names nothing selects everything, as in DataHub.
			p.res.all = true
		}
	}
	return p, nil
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
	ownerCheck := false
	for _, priv := range privs {
		for _, p := range snap.byPrivilege[priv] {
			if !p.platform && !p.res.matches(r) {
				continue
			}
			if p.appliesTo(actor, pr) {
				return true, nil
			}
			if p.owners && r.URN != "" {
				ownerCheck = true
			}
		}
	}
	if !ownerCheck {
		return false, nil
	}
	// Only now, on the path that would otherwise deny, read the owners.
	return s.owns(ctx, actor, pr, r.URN)
}

// owns reports whether actor, or one of its groups, owns urn.
func (s *Service) owns(ctx context.Context, actor string, pr *principal, urn string) (bool, error) {
	m, err := s.db.LatestAspects(ctx, []string{urn}, []string{"ownership"})
	if err != nil {
		return false, fmt.Errorf("read owners of %s: %w", urn, err)
	}
	for _, a := range m[urn] {
		var v struct {
			Owners []struct {
				Owner string `json:"owner"`
			} `json:"owners"`
		}
		if err := json.Unmarshal(a.Value, &v); err != nil {
			return false, fmt.Errorf("decode ownership of %s: %w", urn, err)
		}
		for _, o := range v.Owners {
			if o.Owner == actor || pr.groups[o.Owner] {
				return true, nil
			}
		}
	}
	return false, nil
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
