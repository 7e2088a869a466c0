package graphql

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
	"github.com/catalogd/catalogd/internal/usage"
)

// This file holds the computed fields that read other entities: those
// pointing at the entity (assertions, incidents, runs, children), searches
// scoped to it, and its timeseries.

// maxRelated bounds the entities pointing at one entity that a field reads.
const maxRelated = 1000

// incoming returns the sources of the edges named rel that point at urn,
// at most maxRelated of them.
func (r *Resolver) incoming(ctx context.Context, urn string, rel ...string) ([]string, error) {
	edges, _, err := r.store.Edges(ctx, catalog.EdgeQuery{URN: urn, Direction: catalog.Incoming, Relationships: rel, Count: maxRelated})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(edges))
	seen := map[string]bool{}
	for _, e := range edges {
		if !seen[e.Source] {
			seen[e.Source] = true
			out = append(out, e.Source)
		}
	}
	r.loaderOf(ctx).Want(out...)
	return out, nil
}

// removed reports whether urn is soft-deleted.
func (r *Resolver) removed(ctx context.Context, urn string) (bool, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, urn, "status")
	if err != nil {
		return false, err
	}
	m, _ := v.(map[string]any)
	b, _ := m["removed"].(bool)
	return b, nil
}

// Assertions lists the assertions of the entity (incoming Asserts edges),
// without soft-deleted ones unless asked.
func (r *computed) Assertions(ctx context.Context, obj model.Entity, start, count *int, includeSoftDeleted *bool) (*model.EntityAssertionsResult, error) {
	urns, err := r.incoming(ctx, obj.EntityURN(), "Asserts")
	if err != nil {
		return nil, err
	}
	if !deref(includeSoftDeleted) {
		if urns, err = r.withoutRemoved(ctx, urns); err != nil {
			return nil, err
		}
	}
	s, c := page(start, count, 200)
	out := &model.EntityAssertionsResult{Start: s, Total: len(urns), Assertions: []*model.Assertion{}}
	for _, u := range window(urns, s, c) {
		out.Assertions = append(out.Assertions, &model.Assertion{Urn: u})
	}
	out.Count = len(out.Assertions)
	return out, nil
}

func (r *Resolver) withoutRemoved(ctx context.Context, urns []string) ([]string, error) {
	out := urns[:0:0]
	for _, u := range urns {
		gone, err := r.removed(ctx, u)
		if err != nil {
			return nil, err
		}
		if !gone {
			out = append(out, u)
		}
	}
	return out, nil
}

// incidentPriorities maps incidentInfo.priority to DataHub's enum.
var incidentPriorities = map[int64]model.IncidentPriority{
	0: model.IncidentPriorityCritical, 1: model.IncidentPriorityHigh, 2: model.IncidentPriorityMedium, 3: model.IncidentPriorityLow,
}

// IncidentPriority maps the stored priority number to DataHub's enum.
func (r *computed) IncidentPriority(ctx context.Context, obj model.Entity) (*model.IncidentPriority, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, obj.EntityURN(), "incidentInfo")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	n, ok := jsonInt(m["priority"])
	if !ok {
		return nil, nil
	}
	if p, ok := incidentPriorities[n]; ok {
		return &p, nil
	}
	return nil, nil
}

func jsonInt(v any) (int64, bool) {
	switch x := v.(type) {
	case interface{ Int64() (int64, error) }:
		n, err := x.Int64()
		return n, err == nil
	case float64:
		return int64(x), true
	}
	return 0, false
}

func jsonString(m map[string]any, path ...string) string {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[p]
	}
	s, _ := v.(string)
	return s
}

// incident is the part of an incident the incident fields filter on.
type incident struct {
	urn, state, stage string
	priority          *model.IncidentPriority
	assignees         []string
	updated           int64
}

// incidentsOf reads the incidents raised on urn, latest update first.
func (r *Resolver) incidentsOf(ctx context.Context, urn string) ([]incident, error) {
	urns, err := r.incoming(ctx, urn, "IncidentOn")
	if err != nil {
		return nil, err
	}
	l := r.loaderOf(ctx)
	out := make([]incident, 0, len(urns))
	for _, u := range urns {
		v, err := l.Aspect(ctx, u, "incidentInfo")
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		if m == nil {
			continue
		}
		in := incident{urn: u, state: jsonString(m, "status", "state"), stage: jsonString(m, "status", "stage")}
		if st, _ := m["status"].(map[string]any); st != nil {
			lu, _ := st["lastUpdated"].(map[string]any)
			in.updated, _ = jsonInt(lu["time"])
		}
		if n, ok := jsonInt(m["priority"]); ok {
			if p, ok := incidentPriorities[n]; ok {
				in.priority = &p
			}
		}
		as, _ := m["assignees"].([]any)
		for _, a := range as {
			am, _ := a.(map[string]any)
			in.assignees = append(in.assignees, jsonString(am, "actor"))
		}
		out = append(out, in)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].updated > out[j].updated })
	return out, nil
}

// Incidents lists the incidents raised on the entity, latest update first,
// filtered as asked.
func (r *computed) Incidents(ctx context.Context, obj model.Entity, state *model.IncidentState, stage *model.IncidentStage, priority *model.IncidentPriority, assigneeUrns []string, start, count *int) (*model.EntityIncidentsResult, error) {
	all, err := r.incidentsOf(ctx, obj.EntityURN())
	if err != nil {
		return nil, err
	}
	var kept []string
	for _, in := range all {
		if state != nil && in.state != string(*state) || stage != nil && in.stage != string(*stage) ||
			priority != nil && (in.priority == nil || *in.priority != *priority) {
			continue
		}
		if len(assigneeUrns) > 0 && !overlaps(in.assignees, assigneeUrns) {
			continue
		}
		kept = append(kept, in.urn)
	}
	s, c := page(start, count, 20)
	out := &model.EntityIncidentsResult{Start: s, Total: len(kept), Incidents: []*model.Incident{}}
	for _, u := range window(kept, s, c) {
		out.Incidents = append(out.Incidents, &model.Incident{Urn: u})
	}
	out.Count = len(out.Incidents)
	return out, nil
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// Health is, as DataHub computes it, the entity's incident health (failing
// while an incident is active) and, when it has assertions that have run,
// their health (failing when the latest run of one failed).
func (r *computed) Health(ctx context.Context, obj model.Entity) ([]*model.Health, error) {
	urn := obj.EntityURN()
	incidents, err := r.incidentsOf(ctx, urn)
	if err != nil {
		return nil, err
	}
	active := 0
	for _, in := range incidents {
		if in.state == string(model.IncidentStateActive) {
			active++
		}
	}
	out := []*model.Health{}
	if active > 0 {
		plural := ""
		if active > 1 {
			plural = "s"
		}
		out = append(out, &model.Health{Type: model.HealthStatusTypeIncidents, Status: model.HealthStatusFail,
			Message: ptr(fmt.Sprintf("%d active incident%s", active, plural)), Causes: []string{"ACTIVE_INCIDENTS"}})
	} else {
		out = append(out, &model.Health{Type: model.HealthStatusTypeIncidents, Status: model.HealthStatusPass})
	}
	assertions, err := r.incoming(ctx, urn, "Asserts")
	if err != nil || len(assertions) == 0 {
		return out, err
	}
	ran := false
	var failing []string
	for _, a := range assertions {
		vals, err := r.store.Timeseries(ctx, catalog.TimeseriesQuery{URN: a, Aspect: "assertionRunEvent", Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(vals) == 0 {
			continue
		}
		ran = true
		v, err := decodeJSON(vals[0].Value)
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		if jsonString(m, "status") == "COMPLETE" && jsonString(m, "result", "type") == "FAILURE" {
			failing = append(failing, a)
		}
	}
	if !ran {
		return out, nil
	}
	h := &model.Health{Type: model.HealthStatusTypeAssertions, Status: model.HealthStatusPass, Message: ptr("All assertions are passing")}
	if len(failing) > 0 {
		h.Status, h.Causes = model.HealthStatusFail, failing
		h.Message = ptr(fmt.Sprintf("%d of %d assertions are failing", len(failing), len(assertions)))
	}
	return append(out, h), nil
}

// Contract is the data contract of the entity (an incoming ContractFor
// edge), null when there is none.
func (r *computed) Contract(ctx context.Context, obj model.Entity) (*model.DataContract, error) {
	urns, err := r.incoming(ctx, obj.EntityURN(), "ContractFor")
	if err != nil || len(urns) == 0 {
		return nil, err
	}
	return &model.DataContract{Urn: urns[0]}, nil
}

// runs pages process instances, newest created first.
func (r *Resolver) runs(ctx context.Context, urns []string, start, count *int) (*model.DataProcessInstanceResult, error) {
	l := r.loaderOf(ctx)
	created := make(map[string]int64, len(urns))
	for _, u := range urns {
		v, err := l.Aspect(ctx, u, "dataProcessInstanceProperties")
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		c, _ := m["created"].(map[string]any)
		created[u], _ = jsonInt(c["time"])
	}
	sort.SliceStable(urns, func(i, j int) bool { return created[urns[i]] > created[urns[j]] })
	s, c := page(start, count, 20)
	page := window(urns, s, c)
	out := &model.DataProcessInstanceResult{Start: &s, Count: ptr(len(page)), Total: ptr(len(urns)), Runs: make([]*model.DataProcessInstance, len(page))}
	for i, u := range page {
		out.Runs[i] = &model.DataProcessInstance{Urn: u}
	}
	return out, nil
}

// DataJobRuns lists the runs of a job (process instances of it).
func (r *computed) DataJobRuns(ctx context.Context, obj model.Entity, start, count *int) (*model.DataProcessInstanceResult, error) {
	urns, err := r.incoming(ctx, obj.EntityURN(), "InstanceOf")
	if err != nil {
		return nil, err
	}
	return r.runs(ctx, urns, start, count)
}

// DatasetRuns lists the runs that read the dataset (INCOMING) or wrote it
// (OUTGOING), as DataHub's inputs and outputs filters do.
func (r *computed) DatasetRuns(ctx context.Context, obj model.Entity, start, count *int, direction model.RelationshipDirection) (*model.DataProcessInstanceResult, error) {
	rel := "Produces"
	if direction == model.RelationshipDirectionIncoming {
		rel = "Consumes"
	}
	urns, err := r.incoming(ctx, obj.EntityURN(), rel)
	if err != nil {
		return nil, err
	}
	var runs []string
	for _, u := range urns {
		if urnType(u) == "dataProcessInstance" {
			runs = append(runs, u)
		}
	}
	return r.runs(ctx, runs, start, count)
}

// ChildrenCount counts the terms and nodes directly under a glossary node.
func (r *computed) ChildrenCount(ctx context.Context, obj model.Entity) (*model.GlossaryNodeChildrenCount, error) {
	urns, err := r.incoming(ctx, obj.EntityURN(), "IsPartOf")
	if err != nil {
		return nil, err
	}
	out := &model.GlossaryNodeChildrenCount{}
	for _, u := range urns {
		switch urnType(u) {
		case "glossaryTerm":
			out.TermsCount++
		case "glossaryNode":
			out.NodesCount++
		}
	}
	return out, nil
}

// GlossaryChildrenSearch lists the terms and nodes directly under a
// glossary node.
func (r *computed) GlossaryChildrenSearch(ctx context.Context, obj model.Entity, in model.ScrollAcrossEntitiesInput) (*model.ScrollResults, error) {
	urns, err := r.incoming(ctx, obj.EntityURN(), "IsPartOf")
	if err != nil {
		return nil, err
	}
	var kids []string
	for _, u := range urns {
		if t := urnType(u); t == "glossaryTerm" || t == "glossaryNode" {
			kids = append(kids, u)
		}
	}
	return scrollOf(kids, in.ScrollID, in.Count), nil
}

// scrollOf pages urns as a scroll: the scroll id is the offset of the next
// page.
func scrollOf(urns []string, scrollID *string, count *int) *model.ScrollResults {
	start := 0
	if scrollID != nil {
		start, _ = strconv.Atoi(*scrollID)
	}
	_, c := page(nil, count, 10)
	pageOf := window(urns, start, c)
	out := &model.ScrollResults{Count: len(pageOf), Total: len(urns), SearchResults: make([]*model.SearchResult, 0, len(pageOf))}
	for _, u := range pageOf {
		if e := model.EntityOf(u); e != nil {
			out.SearchResults = append(out.SearchResults, &model.SearchResult{Entity: e, MatchedFields: []*model.MatchedField{}})
		}
	}
	if next := start + len(pageOf); next < len(urns) {
		out.NextScrollID = ptr(strconv.Itoa(next))
	}
	return out
}

// SiblingsSearch lists the entity's siblings (its siblings aspect).
func (r *computed) SiblingsSearch(ctx context.Context, obj model.Entity, in model.ScrollAcrossEntitiesInput) (*model.ScrollResults, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, obj.EntityURN(), "siblings")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	list, _ := m["siblings"].([]any)
	var urns []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			urns = append(urns, s)
		}
	}
	r.loaderOf(ctx).Want(urns...)
	return scrollOf(urns, in.ScrollID, in.Count), nil
}

// VersionsSearch lists the versions of a version set (entities whose
// versionProperties name it).
func (r *computed) VersionsSearch(ctx context.Context, obj model.Entity, in model.SearchAcrossEntitiesInput) (*model.SearchResults, error) {
	urns, err := r.incoming(ctx, obj.EntityURN(), "VersionOf")
	if err != nil {
		return nil, err
	}
	s, c := page(in.Start, in.Count, 10)
	out := &model.SearchResults{Start: s, Total: len(urns), SearchResults: []*model.SearchResult{}}
	for _, u := range window(urns, s, c) {
		if e := model.EntityOf(u); e != nil {
			out.SearchResults = append(out.SearchResults, &model.SearchResult{Entity: e, MatchedFields: []*model.MatchedField{}})
		}
	}
	out.Count = len(out.SearchResults)
	return out, nil
}

// scoped searches the entities whose field (a search field) is urn, as
// DataHub's container, domain and data product entity lists do.
func (r *Resolver) scoped(ctx context.Context, field, urn string, query *string, types []model.EntityType, flat []*model.FacetFilterInput, or []*model.AndFilterInput, start, count *int) (*model.SearchResults, error) {
	ents, err := entityNamesOf(types)
	if err != nil {
		return nil, err
	}
	scope := search.CriterionInput{Field: field, Values: []string{urn}}
	filter := filterOf(flat, or)
	if filter == nil {
		filter = &search.FilterInput{Or: []search.ConjunctionInput{{}}}
	}
	for i := range filter.Or {
		filter.Or[i].And = append(filter.Or[i].And, scope)
	}
	q := deref(query)
	if q == "" {
		q = "*"
	}
	return r.runSearch(ctx, searchSpec{ents: ents, query: q, filter: filter, start: start, count: count})
}

// ContainerEntities lists the entities directly in a container.
func (r *computed) ContainerEntities(ctx context.Context, obj model.Entity, in *model.ContainerEntitiesInput) (*model.SearchResults, error) {
	if in == nil {
		in = &model.ContainerEntitiesInput{}
	}
	return r.scoped(ctx, "container", obj.EntityURN(), in.Query, nil, in.Filters, nil, in.Start, in.Count)
}

// DomainEntities lists the entities of a domain.
func (r *computed) DomainEntities(ctx context.Context, obj model.Entity, in *model.DomainEntitiesInput) (*model.SearchResults, error) {
	if in == nil {
		in = &model.DomainEntitiesInput{}
	}
	return r.scoped(ctx, "domains", obj.EntityURN(), in.Query, nil, in.Filters, nil, in.Start, in.Count)
}

// DataProductEntities lists the assets of a data product (its
// dataProductProperties.assets), searched as asked.
func (r *computed) DataProductEntities(ctx context.Context, obj model.Entity, in *model.SearchAcrossEntitiesInput) (*model.SearchResults, error) {
	if in == nil {
		in = &model.SearchAcrossEntitiesInput{Query: "*"}
	}
	v, err := r.loaderOf(ctx).Aspect(ctx, obj.EntityURN(), "dataProductProperties")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	assets, _ := m["assets"].([]any)
	var urns []string
	for _, a := range assets {
		am, _ := a.(map[string]any)
		if u := jsonString(am, "destinationUrn"); u != "" {
			urns = append(urns, u)
		}
	}
	if len(urns) == 0 {
		s, _ := page(in.Start, in.Count, 10)
		return &model.SearchResults{Start: s, SearchResults: []*model.SearchResult{}}, nil
	}
	ents, err := entityNamesOf(in.Types)
	if err != nil {
		return nil, err
	}
	filter := filterOf(in.Filters, in.OrFilters)
	if filter == nil {
		filter = &search.FilterInput{Or: []search.ConjunctionInput{{}}}
	}
	for i := range filter.Or {
		filter.Or[i].And = append(filter.Or[i].And, search.CriterionInput{Field: "urn", Values: urns})
	}
	return r.runSearch(ctx, searchSpec{ents: ents, query: in.Query, filter: filter, viewURN: in.ViewUrn, flags: in.SearchFlags, start: in.Start, count: in.Count})
}

// Privileges are the caller's privileges on the entity, as DataHub's entity
// pages ask for them: each is whether the caller holds, on this entity, the
// privilege DataHub checks for it (or editing the entity as a whole).
func (r *computed) Privileges(ctx context.Context, obj model.Entity) (*model.EntityPrivileges, error) {
	urn := obj.EntityURN()
	res := auth.Resource{Type: urnType(urn), URN: urn}
	can := func(privs ...string) (*bool, error) {
		if r.auth == nil {
			return ptr(true), nil
		}
		ok, err := r.auth.Allowed(ctx, actorOf(ctx), res, append(privs, auth.PrivEditEntity)...)
		return &ok, err
	}
	out := &model.EntityPrivileges{}
	for _, f := range []struct {
		dst   **bool
		privs []string
	}{
		{&out.CanManageEntity, nil},
		{&out.CanManageChildren, []string{"MANAGE_GLOSSARY_CHILDREN", "MANAGE_ALL_GLOSSARY_CHILDREN"}},
		{&out.CanEditLineage, []string{"EDIT_LINEAGE"}},
		{&out.CanEditEmbed, []string{"EDIT_EMBED"}},
		{&out.CanEditQueries, []string{"EDIT_ENTITY_QUERIES"}},
		{&out.CanEditProperties, []string{"EDIT_ENTITY_PROPERTIES"}},
		{&out.CanEditTags, []string{"EDIT_ENTITY_TAGS"}},
		{&out.CanEditGlossaryTerms, []string{"EDIT_ENTITY_GLOSSARY_TERMS"}},
		{&out.CanEditDescription, []string{"EDIT_ENTITY_DOCS"}},
		{&out.CanEditLinks, []string{"EDIT_ENTITY_DOC_LINKS"}},
		{&out.CanEditDomains, []string{"EDIT_ENTITY_DOMAINS"}},
		{&out.CanEditDataProducts, []string{"EDIT_ENTITY_DATA_PRODUCTS"}},
		{&out.CanEditOwners, []string{"EDIT_ENTITY_OWNERS"}},
		{&out.CanEditIncidents, []string{"EDIT_ENTITY_INCIDENTS"}},
		{&out.CanEditAssertions, []string{"EDIT_ENTITY_ASSERTIONS"}},
		{&out.CanEditDeprecation, []string{"EDIT_ENTITY_DEPRECATION"}},
		{&out.CanEditSchemaFieldTags, []string{"EDIT_DATASET_COL_TAGS"}},
		{&out.CanEditSchemaFieldGlossaryTerms, []string{"EDIT_DATASET_COL_GLOSSARY_TERMS"}},
		{&out.CanEditSchemaFieldDescription, []string{"EDIT_DATASET_COL_DESCRIPTION"}},
		{&out.CanViewDatasetUsage, []string{auth.PrivViewDatasetUsage}},
		{&out.CanViewDatasetProfile, []string{auth.PrivViewDatasetProfile}},
		{&out.CanViewDatasetOperations, []string{auth.PrivViewDatasetOps}},
	} {
		v, err := can(f.privs...)
		if err != nil {
			return nil, err
		}
		*f.dst = v
	}
	return out, nil
}

// RoleIsAssignedToMe reports whether the caller is one of the role's actors
// (users, or groups the caller is in are not counted, as in DataHub).
func (r *computed) RoleIsAssignedToMe(ctx context.Context, obj model.Entity) (bool, error) {
	v, err := r.loaderOf(ctx).Aspect(ctx, obj.EntityURN(), "actors")
	if err != nil {
		return false, err
	}
	m, _ := v.(map[string]any)
	users, _ := m["users"].([]any)
	me := actorOf(ctx)
	for _, u := range users {
		um, _ := u.(map[string]any)
		if jsonString(um, "user") == me {
			return true, nil
		}
	}
	return false, nil
}

// FormActorAssignmentIsAssignedToMe reports whether the caller is one of the
// form's assigned users.
func (r *computed) FormActorAssignmentIsAssignedToMe(ctx context.Context, obj *model.FormActorAssignment) (bool, error) {
	users, _ := member(obj, "users").([]any)
	me := actorOf(ctx)
	for _, u := range users {
		if u == me {
			return true, nil
		}
	}
	return false, nil
}

// timeseries reads values of aspect of urn in [start, end], newest first,
// kept by filter, at most limit.
func (r *Resolver) timeseries(ctx context.Context, urn, aspect string, start, end *int64, filter *model.FilterInput, limit *int) ([]any, []*model.Scope, error) {
	n := 0
	if limit != nil {
		n = *limit
	}
	q := catalog.TimeseriesQuery{URN: urn, Aspect: aspect, Start: deref(start), End: deref(end)}
	if filter == nil && n > 0 {
		q.Limit = n
	} else {
		q.Limit = maxRelated
	}
	vals, err := r.store.Timeseries(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	l := r.loaderOf(ctx)
	var out []any
	var scopes []*model.Scope
	for _, tv := range vals {
		v, err := decodeJSON(tv.Value)
		if err != nil {
			return nil, nil, err
		}
		if filter != nil && !matchesAll(v, filter.And) {
			continue
		}
		s := model.NewScope(urn, l, 0)
		if len(tv.SystemMetadata) > 0 {
			if sm, err := decodeJSON(tv.SystemMetadata); err == nil {
				s = s.WithSystem(sm)
			}
		}
		out = append(out, v)
		scopes = append(scopes, s)
		if n > 0 && len(out) == n {
			break
		}
	}
	return out, scopes, nil
}

// matchesAll reports whether a timeseries value meets every criterion, the
// fields named with dots as DataHub's timeseries filters name them.
func matchesAll(v any, criteria []*model.FacetFilterInput) bool {
	for _, c := range criteria {
		if c == nil {
			continue
		}
		var cur any = v
		for _, p := range strings.Split(c.Field, ".") {
			m, _ := cur.(map[string]any)
			cur = m[p]
		}
		got, _ := cur.(string)
		if n, ok := jsonInt(cur); ok && got == "" {
			got = strconv.FormatInt(n, 10)
		}
		values := c.Values
		if c.Value != nil {
			values = append(values, *c.Value)
		}
		hit := false
		for _, want := range values {
			switch deref(c.Condition) {
			case model.FilterOperatorStartWith:
				hit = strings.HasPrefix(got, want)
			case model.FilterOperatorEndWith:
				hit = strings.HasSuffix(got, want)
			case model.FilterOperatorContain:
				hit = strings.Contains(got, want)
			case model.FilterOperatorIequal:
				hit = strings.EqualFold(got, want)
			default:
				hit = got == want
			}
			if hit {
				break
			}
		}
		if deref(c.Condition) == model.FilterOperatorExists {
			hit = cur != nil
		}
		if hit == deref(c.Negated) {
			return false
		}
	}
	return true
}

// DatasetProfiles lists the dataset's profiles, newest first.
func (r *computed) DatasetProfiles(ctx context.Context, obj model.Entity, start, end *int64, filter *model.FilterInput, limit *int) ([]*model.DatasetProfile, error) {
	vals, scopes, err := r.timeseries(ctx, obj.EntityURN(), "datasetProfile", start, end, filter, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*model.DatasetProfile, len(vals))
	for i, v := range vals {
		out[i] = model.NewDatasetProfile(v, scopes[i])
	}
	return out, nil
}

// Operations lists the dataset's operations, newest first.
func (r *computed) Operations(ctx context.Context, obj model.Entity, start, end *int64, filter *model.FilterInput, limit *int) ([]*model.Operation, error) {
	vals, scopes, err := r.timeseries(ctx, obj.EntityURN(), "operation", start, end, filter, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Operation, len(vals))
	for i, v := range vals {
		out[i] = model.NewOperation(v, scopes[i])
	}
	return out, nil
}

// RunEvents lists an assertion's runs, newest first, with the counts of
// their outcomes.
func (r *computed) RunEvents(ctx context.Context, obj model.Entity, status *model.AssertionRunStatus, start, end *int64, filter *model.FilterInput, limit *int) (*model.AssertionRunEventsResult, error) {
	if status != nil {
		s := string(*status)
		filter = &model.FilterInput{And: append(filterAnd(filter), &model.FacetFilterInput{Field: "status", Values: []string{s}})}
	}
	vals, scopes, err := r.timeseries(ctx, obj.EntityURN(), "assertionRunEvent", start, end, filter, limit)
	if err != nil {
		return nil, err
	}
	out := &model.AssertionRunEventsResult{Total: len(vals), RunEvents: make([]*model.AssertionRunEvent, len(vals))}
	for i, v := range vals {
		out.RunEvents[i] = model.NewAssertionRunEvent(v, scopes[i])
		m, _ := v.(map[string]any)
		switch jsonString(m, "result", "type") {
		case "SUCCESS":
			out.Succeeded++
		case "FAILURE":
			out.Failed++
		}
	}
	return out, nil
}

func filterAnd(f *model.FilterInput) []*model.FacetFilterInput {
	if f == nil {
		return nil
	}
	return f.And
}

// DataProcessInstanceState lists a run's events, newest first.
func (r *computed) DataProcessInstanceState(ctx context.Context, obj model.Entity, start, end *int64, limit *int) ([]*model.DataProcessRunEvent, error) {
	vals, scopes, err := r.timeseries(ctx, obj.EntityURN(), "dataProcessInstanceRunEvent", start, end, nil, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*model.DataProcessRunEvent, len(vals))
	for i, v := range vals {
		out[i] = model.NewDataProcessRunEvent(v, scopes[i])
	}
	return out, nil
}

// usage answers the dataset usage statistics of urn over the time range
// back from now in daily buckets, as DataHub's usage fields ask its usage
// resource.
func (r *Resolver) usage(ctx context.Context, urn string, rng model.TimeRange) (*model.UsageQueryResult, error) {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return nil, err
	}
	q, err := usage.RangeQuery(u, "DAY", string(rng), time.Now())
	if err != nil {
		return nil, err
	}
	res, err := usage.Run(ctx, r.store, q)
	if err != nil {
		return nil, err
	}
	out := &model.UsageQueryResult{Buckets: []*model.UsageAggregation{}, Aggregations: &model.UsageQueryResultAggregations{}}
	for _, b := range res.Buckets {
		m := &model.UsageAggregationMetrics{TotalSQLQueries: intOf(b.Metrics.TotalSQLQueries)}
		for _, q := range b.Metrics.TopSQLQueries {
			m.TopSQLQueries = append(m.TopSQLQueries, ptr(q))
		}
		out.Buckets = append(out.Buckets, &model.UsageAggregation{Bucket: ptr(b.Bucket), Metrics: m})
	}
	agg := out.Aggregations
	agg.TotalSQLQueries = intOf(res.Aggregations.TotalSQLQueries)
	agg.UniqueUserCount = intOf(res.Aggregations.UniqueUserCount)
	for _, c := range res.Aggregations.Users {
		agg.Users = append(agg.Users, &model.UserUsageCounts{User: &model.CorpUser{Urn: c.User}, Count: ptr(int(c.Count)), UserEmail: nonEmpty(c.UserEmail)})
	}
	for _, f := range res.Aggregations.Fields {
		agg.Fields = append(agg.Fields, &model.FieldUsageCounts{FieldName: ptr(f.FieldName), Count: ptr(int(f.Count))})
	}
	return out, nil
}

func intOf(n *int64) *int {
	if n == nil {
		return nil
	}
	return ptr(int(*n))
}

// canViewUsage reports whether the caller may see the entity's usage;
// DataHub answers null to those who may not.
func (r *Resolver) canViewUsage(ctx context.Context, urn string) (bool, error) {
	if r.auth == nil {
		return true, nil
	}
	return r.auth.Allowed(ctx, actorOf(ctx), auth.Resource{Type: urnType(urn), URN: urn}, auth.PrivViewDatasetUsage)
}

// UsageStats aggregates the dataset's usage over the range (a month when
// none is given).
func (r *computed) UsageStats(ctx context.Context, obj model.Entity, _ *string, rng *model.TimeRange) (*model.UsageQueryResult, error) {
	urn := obj.EntityURN()
	if ok, err := r.canViewUsage(ctx, urn); err != nil || !ok {
		return nil, err
	}
	tr := model.TimeRangeMonth
	if rng != nil {
		tr = *rng
	}
	return r.usage(ctx, urn, tr)
}

// maxTopUsers is how many top users DataHub's stats summaries list.
const maxTopUsers = 5

// DatasetStatsSummary summarises the dataset's usage of the last 30 days.
func (r *computed) DatasetStatsSummary(ctx context.Context, obj model.Entity) (*model.DatasetStatsSummary, error) {
	urn := obj.EntityURN()
	if ok, err := r.canViewUsage(ctx, urn); err != nil || !ok {
		return nil, err
	}
	u, err := r.usage(ctx, urn, model.TimeRangeMonth)
	if err != nil {
		return nil, err
	}
	return &model.DatasetStatsSummary{QueryCountLast30Days: u.Aggregations.TotalSQLQueries, UniqueUserCountLast30Days: u.Aggregations.UniqueUserCount, TopUsersLast30Days: topUsers(u)}, nil
}

func topUsers(u *model.UsageQueryResult) []*model.CorpUser {
	out := []*model.CorpUser{}
	for _, c := range u.Aggregations.Users {
		if len(out) == maxTopUsers {
			break
		}
		out = append(out, c.User)
	}
	return out
}

// viewStats summarises the chart or dashboard usage statistics (aspect) of
// urn: the latest view count and the users of the last 30 days.
func (r *Resolver) viewStats(ctx context.Context, urn, aspect string) (views, uniqueUsers *int, top []*model.CorpUser, err error) {
	since := time.Now().Add(-30 * 24 * time.Hour).UnixMilli()
	vals, err := r.store.Timeseries(ctx, catalog.TimeseriesQuery{URN: urn, Aspect: aspect, Limit: maxRelated})
	if err != nil {
		return nil, nil, nil, err
	}
	users := map[string]int{}
	for i, tv := range vals {
		v, err := decodeJSON(tv.Value)
		if err != nil {
			return nil, nil, nil, err
		}
		m, _ := v.(map[string]any)
		if i == 0 {
			if n, ok := jsonInt(m["viewsCount"]); ok {
				views = ptr(int(n))
			}
		}
		if tv.TimestampMillis < since {
			continue
		}
		uc, _ := m["userCounts"].([]any)
		for _, u := range uc {
			um, _ := u.(map[string]any)
			n, _ := jsonInt(um["viewsCount"])
			if user := jsonString(um, "user"); user != "" {
				users[user] += int(n)
			}
		}
	}
	names := make([]string, 0, len(users))
	for u := range users {
		names = append(names, u)
	}
	sort.Slice(names, func(i, j int) bool {
		if users[names[i]] != users[names[j]] {
			return users[names[i]] > users[names[j]]
		}
		return names[i] < names[j]
	})
	top = []*model.CorpUser{}
	for _, u := range names[:min(len(names), maxTopUsers)] {
		top = append(top, &model.CorpUser{Urn: u})
	}
	return views, ptr(len(users)), top, nil
}

// ChartStatsSummary summarises the chart's views.
func (r *computed) ChartStatsSummary(ctx context.Context, obj model.Entity) (*model.ChartStatsSummary, error) {
	views, unique, top, err := r.viewStats(ctx, obj.EntityURN(), "chartUsageStatistics")
	if err != nil {
		return nil, err
	}
	return &model.ChartStatsSummary{ViewCount: views, UniqueUserCountLast30Days: unique, TopUsersLast30Days: top}, nil
}

// DashboardStatsSummary summarises the dashboard's views.
func (r *computed) DashboardStatsSummary(ctx context.Context, obj model.Entity) (*model.DashboardStatsSummary, error) {
	views, unique, top, err := r.viewStats(ctx, obj.EntityURN(), "dashboardUsageStatistics")
	if err != nil {
		return nil, err
	}
	return &model.DashboardStatsSummary{ViewCount: views, UniqueUserCountLast30Days: unique, TopUsersLast30Days: top}, nil
}
