package graphql

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/search"
)

// Forms ask for metadata on assets: a form (formInfo) lists prompts, each
// asking for a structured property; assigning it to an asset adds it to
// the asset's forms aspect as incomplete, and answering its prompts moves
// them, and then the form, to completed. A verification form, once
// complete, can be verified.

func formPrompts(in []*model.CreatePromptInput) ([]models.FormPrompt, error) {
	out := make([]models.FormPrompt, 0, len(in))
	for _, p := range in {
		if p.StructuredPropertyParams == nil {
			return nil, invalidf("Provided prompt with type STRUCTURED_PROPERTY or FIELDS_STRUCTURED_PROPERTY and no structured property params")
		}
		id := deref(p.ID)
		if id == "" {
			id = uuid.NewString()
		}
		out = append(out, models.FormPrompt{Id: id, Title: p.Title, Description: p.Description, Type: models.FormPromptType(p.Type),
			StructuredPropertyParams: &models.StructuredPropertyParams{Urn: p.StructuredPropertyParams.Urn}, Required: p.Required})
	}
	return out, nil
}

// CreateForm creates a form, owned by its creator.
func (r *mutationResolver) CreateForm(ctx context.Context, in model.CreateFormInput) (*model.Form, error) {
	prompts, err := formPrompts(in.Prompts)
	if err != nil {
		return nil, err
	}
	info := models.FormInfo{Name: in.Name, Description: in.Description, Prompts: prompts, Actors: &models.FormActorAssignment{Owners: ptr(true)}}
	if in.Type != nil {
		info.Type = ptr(models.FormType(*in.Type))
	} else {
		info.Type = ptr(models.FormType(model.FormTypeCompletion))
	}
	if a := in.Actors; a != nil {
		info.Actors = &models.FormActorAssignment{Owners: a.Owners, Users: uniq(a.Users), Groups: uniq(a.Groups)}
		if a.Owners == nil {
			info.Actors.Owners = ptr(false)
		}
	}
	urn, err := r.create(ctx, "form", "Form", nilIfEmpty(in.ID), func(urn string, p *proposals) {
		p.add(urn, "formInfo", info)
		p.add(urn, "ownership", creatorOwnership(ctx))
	})
	if err != nil {
		return nil, err
	}
	return &model.Form{Urn: *urn}, nil
}

// formInfoOf returns a stored form's info.
func (r *Resolver) formInfoOf(ctx context.Context, urn string) (models.FormInfo, error) {
	var info models.FormInfo
	if _, err := catalog.ParseURN(urn); err != nil {
		return info, err
	}
	v, err := r.loaderOf(ctx).Aspect(ctx, urn, "formInfo")
	if err != nil {
		return info, err
	}
	if v == nil || urnType(urn) != "form" {
		return info, invalidf("Form %s does not exist.", urn)
	}
	return info, remarshal(v, &info)
}

// UpdateForm changes a form: name, description, type, prompts added or
// removed, actors added or removed.
func (r *mutationResolver) UpdateForm(ctx context.Context, in model.UpdateFormInput) (*model.Form, error) {
	if _, err := r.formInfoOf(ctx, in.Urn); err != nil {
		return nil, err
	}
	added, err := formPrompts(in.PromptsToAdd)
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, edited(in.Urn, "formInfo", func(f *models.FormInfo, found bool) bool {
		if !found {
			return false
		}
		if in.Name != nil {
			f.Name = *in.Name
		}
		if in.Description != nil {
			f.Description = in.Description
		}
		if in.Type != nil {
			f.Type = ptr(models.FormType(*in.Type))
		}
		f.Prompts = slices.DeleteFunc(f.Prompts, func(p models.FormPrompt) bool { return slices.Contains(in.PromptsToRemove, p.Id) })
		f.Prompts = append(f.Prompts, added...)
		if a := in.Actors; a != nil {
			if f.Actors == nil {
				f.Actors = &models.FormActorAssignment{}
			}
			if a.Owners != nil {
				f.Actors.Owners = a.Owners
			}
			f.Actors.Users = slices.DeleteFunc(uniq(append(f.Actors.Users, a.UsersToAdd...)), func(u string) bool { return slices.Contains(a.UsersToRemove, u) })
			f.Actors.Groups = slices.DeleteFunc(uniq(append(f.Actors.Groups, a.GroupsToAdd...)), func(g string) bool { return slices.Contains(a.GroupsToRemove, g) })
		}
		return true
	}))
	if err != nil {
		return nil, err
	}
	return &model.Form{Urn: in.Urn}, nil
}

// DeleteForm deletes a form and takes it off the assets it was assigned to.
func (r *mutationResolver) DeleteForm(ctx context.Context, in model.DeleteFormInput) (bool, error) {
	assets, err := r.formAssets(ctx, in.Urn)
	if err != nil {
		return false, err
	}
	if _, err := r.remove(ctx, in.Urn, "form"); err != nil {
		return false, err
	}
	if err := r.unassignForm(ctx, in.Urn, assets); err != nil {
		return false, err
	}
	return true, nil
}

// formAssets returns the assets a form is assigned to, from their search
// documents.
func (r *Resolver) formAssets(ctx context.Context, form string) ([]string, error) {
	if r.search == nil {
		return nil, nil
	}
	var out []string
	for _, field := range []string{"incompleteForms", "completedForms", "verifiedForms"} {
		res, err := r.search.Search(ctx, search.SearchParams{Input: "*", Count: maxListed, Filter: &search.FilterInput{Or: []search.ConjunctionInput{{And: []search.CriterionInput{
			{Field: field, Values: []string{form}}, {Field: search.FieldRemoved, Values: []string{"true", "false"}}}}}}})
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			out = append(out, h.URN)
		}
	}
	return uniq(out), nil
}

// BatchAssignForm assigns a form to assets, as incomplete where not
// already assigned.
func (r *mutationResolver) BatchAssignForm(ctx context.Context, in model.BatchAssignFormInput) (*bool, error) {
	if _, err := r.formInfoOf(ctx, in.FormUrn); err != nil {
		return nil, err
	}
	for _, u := range in.EntityUrns {
		if ok, err := r.existsAnyType(ctx, u); err != nil {
			return nil, err
		} else if !ok {
			return nil, invalidf("Entity %s does not exist. Skipping batch form assignment", u)
		}
	}
	var props []catalog.Proposal
	for _, u := range uniq(in.EntityUrns) {
		props = append(props, edited(u, "forms", func(f *models.Forms, _ bool) bool {
			normalizeForms(f)
			if formIndex(f.IncompleteForms, in.FormUrn) >= 0 || formIndex(f.CompletedForms, in.FormUrn) >= 0 {
				return false
			}
			f.IncompleteForms = append(f.IncompleteForms, models.FormAssociation{Urn: in.FormUrn,
				IncompletePrompts: []models.FormPromptAssociation{}, CompletedPrompts: []models.FormPromptAssociation{}})
			return true
		}))
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// BatchRemoveForm takes a form off assets.
func (r *mutationResolver) BatchRemoveForm(ctx context.Context, in model.BatchRemoveFormInput) (bool, error) {
	if _, err := catalog.ParseURN(in.FormUrn); err != nil {
		return false, err
	}
	if err := r.unassignForm(ctx, in.FormUrn, in.EntityUrns); err != nil {
		return false, err
	}
	return true, nil
}

func (r *Resolver) unassignForm(ctx context.Context, form string, assets []string) error {
	var props []catalog.Proposal
	for _, u := range uniq(assets) {
		if _, err := catalog.ParseURN(u); err != nil {
			return err
		}
		props = append(props, edited(u, "forms", func(f *models.Forms, found bool) bool {
			normalizeForms(f)
			n := len(f.IncompleteForms) + len(f.CompletedForms) + len(f.Verifications)
			drop := func(a models.FormAssociation) bool { return a.Urn == form }
			f.IncompleteForms = slices.DeleteFunc(f.IncompleteForms, drop)
			f.CompletedForms = slices.DeleteFunc(f.CompletedForms, drop)
			f.Verifications = slices.DeleteFunc(f.Verifications, func(v models.FormVerificationAssociation) bool { return v.Form == form })
			return found && n != len(f.IncompleteForms)+len(f.CompletedForms)+len(f.Verifications)
		}))
	}
	return r.write(ctx, props...)
}

func normalizeForms(f *models.Forms) {
	if f.IncompleteForms == nil {
		f.IncompleteForms = []models.FormAssociation{}
	}
	if f.CompletedForms == nil {
		f.CompletedForms = []models.FormAssociation{}
	}
}

func formIndex(list []models.FormAssociation, form string) int {
	return slices.IndexFunc(list, func(a models.FormAssociation) bool { return a.Urn == form })
}

// SubmitFormPrompt answers a structured property prompt of a form on an
// asset: the property gets the values, the prompt is complete, and the
// form too once all its required prompts are.
func (r *mutationResolver) SubmitFormPrompt(ctx context.Context, urn string, in model.SubmitFormPromptInput) (*bool, error) {
	info, err := r.formInfoOf(ctx, in.FormUrn)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(info.Prompts, func(p models.FormPrompt) bool { return p.Id == in.PromptID })
	if i < 0 {
		return nil, invalidf("Form %s has no prompt %s", in.FormUrn, in.PromptID)
	}
	prompt := info.Prompts[i]
	if in.Type != model.FormPromptTypeStructuredProperty {
		return nil, invalidf("Answering %s prompts is not supported by catalogd; only STRUCTURED_PROPERTY prompts are", in.Type)
	}
	if in.StructuredPropertyParams == nil || prompt.StructuredPropertyParams == nil || in.StructuredPropertyParams.StructuredPropertyUrn != prompt.StructuredPropertyParams.Urn {
		return nil, invalidf("Prompt %s asks for structured property %v", in.PromptID, prompt.StructuredPropertyParams)
	}
	if _, err := catalog.ParseURN(urn); err != nil {
		return nil, err
	}
	cur, err := r.loaderOf(ctx).Aspect(ctx, urn, "forms")
	if err != nil {
		return nil, err
	}
	var forms models.Forms
	if err := remarshal(cur, &forms); err != nil || (formIndex(forms.IncompleteForms, in.FormUrn) < 0 && formIndex(forms.CompletedForms, in.FormUrn) < 0) {
		return nil, invalidf("Form %s has not been assigned to entity %s", in.FormUrn, urn)
	}
	values, err := propertyValues(in.StructuredPropertyParams)
	if err != nil {
		return nil, err
	}
	st := stamp(ctx)
	property := in.StructuredPropertyParams.StructuredPropertyUrn
	props := []catalog.Proposal{
		edited(urn, "structuredProperties", func(v *models.StructuredProperties, _ bool) bool {
			v.Properties = slices.DeleteFunc(v.Properties, func(a models.StructuredPropertyValueAssignment) bool { return a.PropertyUrn == property })
			v.Properties = append(v.Properties, models.StructuredPropertyValueAssignment{PropertyUrn: property, Values: values, Created: &st, LastModified: &st})
			return true
		}),
		edited(urn, "forms", func(f *models.Forms, _ bool) bool {
			normalizeForms(f)
			var a models.FormAssociation
			if j := formIndex(f.IncompleteForms, in.FormUrn); j >= 0 {
				a = f.IncompleteForms[j]
				f.IncompleteForms = slices.Delete(f.IncompleteForms, j, j+1)
			} else if j := formIndex(f.CompletedForms, in.FormUrn); j >= 0 {
				a = f.CompletedForms[j]
				f.CompletedForms = slices.Delete(f.CompletedForms, j, j+1)
			} else {
				a = models.FormAssociation{Urn: in.FormUrn}
			}
			isPrompt := func(p models.FormPromptAssociation) bool { return p.Id == in.PromptID }
			a.IncompletePrompts = slices.DeleteFunc(a.IncompletePrompts, isPrompt)
			a.CompletedPrompts = append(slices.DeleteFunc(a.CompletedPrompts, isPrompt), models.FormPromptAssociation{Id: in.PromptID, LastModified: st})
			if a.IncompletePrompts == nil {
				a.IncompletePrompts = []models.FormPromptAssociation{}
			}
			complete := true
			for _, p := range info.Prompts {
				if deref(p.Required) && !slices.ContainsFunc(a.CompletedPrompts, func(c models.FormPromptAssociation) bool { return c.Id == p.Id }) {
					complete = false
				}
			}
			if complete {
				f.CompletedForms = append(f.CompletedForms, a)
			} else {
				f.IncompleteForms = append(f.IncompleteForms, a)
			}
			return true
		}),
	}
	if err := r.write(ctx, props...); err != nil {
		return nil, err
	}
	return yes, nil
}

// VerifyForm verifies a completed verification form on an asset.
func (r *mutationResolver) VerifyForm(ctx context.Context, in model.VerifyFormInput) (*bool, error) {
	info, err := r.formInfoOf(ctx, in.FormUrn)
	if err != nil {
		return nil, err
	}
	if info.Type == nil || *info.Type != models.FormType(model.FormTypeVerification) {
		return nil, invalidf("Form %s is not of type VERIFICATION. Cannot verify form.", in.FormUrn)
	}
	cur, err := r.loaderOf(ctx).Aspect(ctx, in.EntityUrn, "forms")
	if err != nil {
		return nil, err
	}
	var forms models.Forms
	if err := remarshal(cur, &forms); err != nil || formIndex(forms.CompletedForms, in.FormUrn) < 0 {
		return nil, invalidf("Form %s has not been completed on entity %s. Cannot verify form.", in.FormUrn, in.EntityUrn)
	}
	st := stamp(ctx)
	err = r.write(ctx, edited(in.EntityUrn, "forms", func(f *models.Forms, _ bool) bool {
		normalizeForms(f)
		f.Verifications = append(slices.DeleteFunc(f.Verifications, func(v models.FormVerificationAssociation) bool { return v.Form == in.FormUrn }),
			models.FormVerificationAssociation{Form: in.FormUrn, LastModified: &st})
		return true
	}))
	if err != nil {
		return nil, err
	}
	return yes, nil
}
