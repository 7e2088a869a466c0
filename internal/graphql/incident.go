package graphql

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// Incidents are entities of their own (incidentInfo) pointing at the
// assets they are on (edges IncidentOn), which the assets' incidents
// fields follow back. Raising or editing one takes the right to edit the
// incidents of those assets, as in DataHub.

// delegate checks that the caller may act on every one of urns with one
// of privs (or EDIT_ENTITY) and returns ctx marked so that the writes this
// authorizes go through.
func (r *Resolver) delegate(ctx context.Context, what string, urns []string, privs ...string) (context.Context, error) {
	if r.auth == nil {
		return ctx, nil
	}
	if err := r.auth.RequireOn(ctx, actorOf(ctx), what, urns, privs...); err != nil {
		return nil, err
	}
	return auth.Delegated(ctx), nil
}

// incidentPriorityNumbers are the stored numbers of the priorities.
var incidentPriorityNumbers = map[model.IncidentPriority]int32{
	model.IncidentPriorityCritical: 0, model.IncidentPriorityHigh: 1, model.IncidentPriorityMedium: 2, model.IncidentPriorityLow: 3,
}

// RaiseIncident raises an incident on one or more assets and returns its
// URN.
func (r *mutationResolver) RaiseIncident(ctx context.Context, in model.RaiseIncidentInput) (*string, error) {
	resources := uniq(in.ResourceUrns)
	if in.ResourceUrn != nil && !slices.Contains(resources, *in.ResourceUrn) {
		resources = append(resources, *in.ResourceUrn)
	}
	if len(resources) == 0 {
		return nil, invalidf("At least 1 resource urn must be defined to raise an incident.")
	}
	if in.Type == model.IncidentTypeCustom && deref(in.CustomType) == "" {
		return nil, invalidf("Failed to create incident: customType is required for a CUSTOM incident")
	}
	if err := r.checkResources(ctx, resources); err != nil {
		return nil, err
	}
	ctx, err := r.delegate(ctx, "raise an incident on the resource", resources, "EDIT_ENTITY_INCIDENTS")
	if err != nil {
		return nil, err
	}
	st := stamp(ctx)
	info := models.IncidentInfo{
		Type: models.IncidentType(in.Type), CustomType: in.CustomType, Title: in.Title, Description: in.Description,
		Entities: resources, StartedAt: in.StartedAt, Created: st,
		Source:    &models.IncidentSource{Type: models.IncidentSourceTypeManual},
		Status:    incidentStatus(in.Status, st),
		Assignees: incidentAssignees(in.AssigneeUrns, st),
	}
	if in.Source != nil {
		info.Source.Type = models.IncidentSourceType(in.Source.Type)
	}
	if in.Priority != nil {
		info.Priority = ptr(incidentPriorityNumbers[*in.Priority])
	}
	urn := catalog.NewURN("incident", uuid.NewString())
	p, err := proposal(urn, "incidentInfo", info)
	if err != nil {
		return nil, err
	}
	p.ChangeType = catalog.CreateEntity
	if err := r.write(ctx, append([]catalog.Proposal{p}, r.summarize(urn, info, nil)...)...); err != nil {
		return nil, err
	}
	return &urn, nil
}

// checkResources fails unless every urn is well formed and stored.
func (r *Resolver) checkResources(ctx context.Context, urns []string) error {
	for _, u := range urns {
		if ok, err := r.existsAnyType(ctx, u); err != nil {
			return err
		} else if !ok {
			return invalidf("Entity %s does not exist", u)
		}
	}
	return nil
}

func incidentStatus(in *model.IncidentStatusInput, st models.AuditStamp) models.IncidentStatus {
	if in == nil {
		return models.IncidentStatus{State: models.IncidentState(model.IncidentStateActive), LastUpdated: st}
	}
	out := models.IncidentStatus{State: models.IncidentState(in.State), Message: in.Message, LastUpdated: st}
	if in.Stage != nil {
		out.Stage = ptr(models.IncidentStage(*in.Stage))
	}
	return out
}

func incidentAssignees(urns []string, st models.AuditStamp) []models.IncidentAssignee {
	if urns == nil {
		return nil
	}
	out := make([]models.IncidentAssignee, 0, len(urns))
	for _, u := range uniq(urns) {
		out = append(out, models.IncidentAssignee{Actor: u, AssignedAt: st})
	}
	return out
}

// incidentOf returns the stored incidentInfo of urn; a missing incident is
// NOT_FOUND with DataHub's message.
func (r *Resolver) incidentOf(ctx context.Context, urn string) (models.IncidentInfo, error) {
	var info models.IncidentInfo
	if _, err := catalog.ParseURN(urn); err != nil {
		return info, err
	}
	v, err := r.loaderOf(ctx).Aspect(ctx, urn, "incidentInfo")
	if err != nil {
		return info, err
	}
	if v == nil || urnType(urn) != "incident" {
		return info, catalog.Errorf(catalog.NotFound, "Failed to update incident. Incident does not exist.")
	}
	return info, remarshal(v, &info)
}

// UpdateIncidentStatus sets the state, stage and message of an incident.
func (r *mutationResolver) UpdateIncidentStatus(ctx context.Context, urn string, in model.IncidentStatusInput) (*bool, error) {
	info, err := r.incidentOf(ctx, urn)
	if err != nil {
		return nil, err
	}
	ctx, err = r.delegate(ctx, "update the incidents of the resource", info.Entities, "EDIT_ENTITY_INCIDENTS")
	if err != nil {
		return nil, err
	}
	st := stamp(ctx)
	next := info
	next.Status = models.IncidentStatus{State: models.IncidentState(in.State), LastUpdated: st}
	err = r.write(ctx, append([]catalog.Proposal{edited(urn, "incidentInfo", func(v *models.IncidentInfo, found bool) bool {
		if !found {
			return false
		}
		stage := v.Status.Stage
		if in.Stage != nil {
			stage = ptr(models.IncidentStage(*in.Stage))
		}
		msg := v.Status.Message
		if in.Message != nil {
			msg = in.Message
		}
		v.Status = models.IncidentStatus{State: models.IncidentState(in.State), Stage: stage, Message: msg, LastUpdated: st}
		return true
	})}, r.summarize(urn, next, info.Entities)...)...)
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// UpdateIncident changes an incident: title, description, status, the
// assets it is on, and (as given, absent clearing them) its priority and
// assignees.
func (r *mutationResolver) UpdateIncident(ctx context.Context, urn string, in model.UpdateIncidentInput) (*bool, error) {
	info, err := r.incidentOf(ctx, urn)
	if err != nil {
		return nil, err
	}
	if in.ResourceUrns != nil && len(in.ResourceUrns) == 0 {
		return nil, invalidf("resourceUrns cannot be empty if provided")
	}
	if err := r.checkResources(ctx, in.ResourceUrns); err != nil {
		return nil, err
	}
	ctx, err = r.delegate(ctx, "update the incidents of the resource", uniq(append(slices.Clone(info.Entities), in.ResourceUrns...)), "EDIT_ENTITY_INCIDENTS")
	if err != nil {
		return nil, err
	}
	st := stamp(ctx)
	next := info
	if in.Status != nil {
		next.Status = incidentStatus(in.Status, st)
	}
	if len(in.ResourceUrns) > 0 {
		next.Entities = uniq(in.ResourceUrns)
	}
	next.Priority = nil
	if in.Priority != nil {
		next.Priority = ptr(incidentPriorityNumbers[*in.Priority])
	}
	err = r.write(ctx, append([]catalog.Proposal{edited(urn, "incidentInfo", func(v *models.IncidentInfo, found bool) bool {
		if !found {
			return false
		}
		if in.Title != nil {
			v.Title = in.Title
		}
		if in.Description != nil {
			v.Description = in.Description
		}
		if in.StartedAt != nil {
			v.StartedAt = in.StartedAt
		}
		if in.Status != nil {
			v.Status = incidentStatus(in.Status, st)
		}
		if len(in.ResourceUrns) > 0 {
			v.Entities = uniq(in.ResourceUrns)
		}
		v.Priority = nil
		if in.Priority != nil {
			v.Priority = ptr(incidentPriorityNumbers[*in.Priority])
		}
		v.Assignees = incidentAssignees(in.AssigneeUrns, st)
		return true
	})}, r.summarize(urn, next, info.Entities)...)...)
	if err != nil {
		return nil, err
	}
	return yes, nil
}

// summarize returns the edits of the incidentsSummary of the assets an
// incident was on (before) and is on (info.Entities), as DataHub keeps it:
// the incident among the active ones of its assets, or the resolved ones,
// and off the assets it left. Assets whose type has no summary are left
// out.
func (r *Resolver) summarize(incident string, info models.IncidentInfo, before []string) []catalog.Proposal {
	detail := models.IncidentSummaryDetails{Urn: incident, Type: string(info.Type), CreatedAt: info.Created.Time, Priority: info.Priority}
	if info.Type == models.IncidentType(model.IncidentTypeCustom) && info.CustomType != nil {
		detail.Type = *info.CustomType
	}
	resolved := info.Status.State == models.IncidentState(model.IncidentStateResolved)
	if resolved {
		detail.ResolvedAt = ptr(info.Status.LastUpdated.Time)
	}
	var out []catalog.Proposal
	for _, asset := range uniq(append(slices.Clone(before), info.Entities...)) {
		ent := r.reg.Entity(urnType(asset))
		if ent == nil || !slices.Contains(ent.Aspects, "incidentsSummary") {
			continue
		}
		on := slices.Contains(info.Entities, asset)
		out = append(out, edited(asset, "incidentsSummary", func(s *models.IncidentsSummary, found bool) bool {
			other := func(d models.IncidentSummaryDetails) bool { return d.Urn == incident }
			s.ActiveIncidentDetails = slices.DeleteFunc(s.ActiveIncidentDetails, other)
			s.ResolvedIncidentDetails = slices.DeleteFunc(s.ResolvedIncidentDetails, other)
			s.ActiveIncidents = slices.DeleteFunc(s.ActiveIncidents, func(u string) bool { return u == incident })
			s.ResolvedIncidents = slices.DeleteFunc(s.ResolvedIncidents, func(u string) bool { return u == incident })
			switch {
			case !on:
			case resolved:
				s.ResolvedIncidentDetails = append(s.ResolvedIncidentDetails, detail)
			default:
				s.ActiveIncidentDetails = append(s.ActiveIncidentDetails, detail)
			}
			if s.ActiveIncidentDetails == nil {
				s.ActiveIncidentDetails = []models.IncidentSummaryDetails{}
			}
			if s.ResolvedIncidentDetails == nil {
				s.ResolvedIncidentDetails = []models.IncidentSummaryDetails{}
			}
			return found || on
		}))
	}
	return out
}
