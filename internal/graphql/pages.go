package graphql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/catalogd/catalogd/gen/models"
	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// The home page is a page template (dataHubPageTemplate) whose rows hold
// page modules (dataHubPageModule). GLOBAL templates and modules are shared
// and managed with the Manage Home Page Templates privilege; PERSONAL ones
// belong to the user who made them, who alone may change or delete them.
// The template everyone sees is the global settings' homePage.defaultTemplate
// unless a user picked their own (corpUserSettings.homePage.pageTemplate).

const privManageHomePageTemplates = "MANAGE_HOME_PAGE_TEMPLATES"

// defaultPageModules are the modules seeded at first start, which the
// seeded default template and the UI's built-in layouts name, so they
// cannot be deleted.
var defaultPageModules = []string{
	"urn:li:dataHubPageModule:your_assets",
	"urn:li:dataHubPageModule:top_domains",
	"urn:li:dataHubPageModule:assets",
	"urn:li:dataHubPageModule:child_hierarchy",
	"urn:li:dataHubPageModule:data_products",
	"urn:li:dataHubPageModule:related_terms",
	"urn:li:dataHubPageModule:platforms",
	"urn:li:dataHubPageModule:lineage",
	"urn:li:dataHubPageModule:columns",
}

// moduleParams names, for each module type that is configured, the member
// of params it takes; the other types show what the UI computes and are
// only seeded, never created through the API.
var moduleParams = map[model.DataHubPageModuleType]string{
	model.DataHubPageModuleTypeLink:            "linkParams",
	model.DataHubPageModuleTypeRichText:        "richTextParams",
	model.DataHubPageModuleTypeAssetCollection: "assetCollectionParams",
	model.DataHubPageModuleTypeHierarchy:       "hierarchyViewParams",
}

// canManageHomePageTemplates reports whether the caller holds Manage Home
// Page Templates.
func (r *Resolver) canManageHomePageTemplates(ctx context.Context) (bool, error) {
	if r.auth == nil {
		return true, nil
	}
	has, err := r.auth.PlatformPrivileges(ctx, actorOf(ctx), []string{privManageHomePageTemplates})
	if err != nil {
		return false, err
	}
	return has[privManageHomePageTemplates], nil
}

// mayChangePage checks that the caller may write what, a template or module
// of the given scope (the stored one, then the one asked for) made by
// creator: global ones need the privilege, personal ones their creator.
func (r *Resolver) mayChangePage(ctx context.Context, what, urn string, global bool, creator string) error {
	if global {
		ok, err := r.canManageHomePageTemplates(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return catalog.Errorf(catalog.Forbidden, "Unauthorized to change the global %s %s: it needs the %s privilege.", what, urn, privManageHomePageTemplates)
		}
		return nil
	}
	if creator != "" && creator != actorOf(ctx) {
		return catalog.Errorf(catalog.Forbidden, "Unauthorized to change the personal %s %s: only its creator %s may.", what, urn, creator)
	}
	return nil
}

// pageURN returns the URN the upsert writes: the one given, which must be
// of entity type entity, or a new one.
func pageURN(in *string, entity string) (string, error) {
	if deref(in) == "" {
		return catalog.NewURN(entity, uuid.NewString()), nil
	}
	u, err := catalog.ParseURN(*in)
	if err != nil {
		return "", invalidf("urn: %v", err)
	}
	if u.EntityType() != entity {
		return "", invalidf("urn: %s is not a %s URN", *in, entity)
	}
	return u.String(), nil
}

// checkURNOf fails unless s is a stored entity of type entity; field names
// the input field in the message.
func (r *Resolver) checkURNOf(ctx context.Context, field, s, entity, what string) error {
	u, err := catalog.ParseURN(s)
	if err != nil {
		return invalidf("%s: %v", field, err)
	}
	if u.EntityType() != entity {
		return invalidf("%s: %s is not a %s URN", field, s, entity)
	}
	ok, err := r.loaderOf(ctx).exists(ctx, s)
	if err != nil {
		return err
	}
	if !ok {
		return invalidf("%s: %s %s does not exist", field, what, s)
	}
	return nil
}

func (r *Resolver) pageTemplateOf(ctx context.Context, urn string) (*models.DataHubPageTemplateProperties, error) {
	return aspectOf[models.DataHubPageTemplateProperties](ctx, r.loaderOf(ctx), urn, "dataHubPageTemplateProperties")
}

func (r *Resolver) pageModuleOf(ctx context.Context, urn string) (*models.DataHubPageModuleProperties, error) {
	return aspectOf[models.DataHubPageModuleProperties](ctx, r.loaderOf(ctx), urn, "dataHubPageModuleProperties")
}

// UpsertPageTemplate creates a page template or replaces the rows, scope
// and surface of an existing one. Every module in the rows must exist.
func (r *mutationResolver) UpsertPageTemplate(ctx context.Context, in model.UpsertPageTemplateInput) (*model.DataHubPageTemplate, error) {
	urn, err := pageURN(in.Urn, "dataHubPageTemplate")
	if err != nil {
		return nil, err
	}
	cur, err := r.pageTemplateOf(ctx, urn)
	if err != nil {
		return nil, err
	}
	if cur != nil {
		if err := r.mayChangePage(ctx, "page template", urn, cur.Visibility.Scope == models.PageTemplateScopeGlobal, cur.Created.Actor); err != nil {
			return nil, err
		}
	}
	if err := r.mayChangePage(ctx, "page template", urn, in.Scope == model.PageTemplateScopeGlobal, ""); err != nil {
		return nil, err
	}
	rows := make([]models.DataHubPageTemplateRow, 0, len(in.Rows))
	for i, row := range in.Rows {
		mods := make([]string, 0, len(row.Modules))
		for j, m := range row.Modules {
			if err := r.checkURNOf(ctx, fmt.Sprintf("rows[%d].modules[%d]", i, j), m, "dataHubPageModule", "page module"); err != nil {
				return nil, err
			}
			mods = append(mods, m)
		}
		rows = append(rows, models.DataHubPageTemplateRow{Modules: mods})
	}
	var summary *models.DataHubPageTemplateAssetSummary
	if in.AssetSummary != nil {
		summary = &models.DataHubPageTemplateAssetSummary{SummaryElements: []models.SummaryElement{}}
		for i, e := range in.AssetSummary.SummaryElements {
			el := models.SummaryElement{ElementType: models.SummaryElementType(e.ElementType)}
			switch sp := deref(e.StructuredPropertyUrn); {
			case e.ElementType == model.SummaryElementTypeStructuredProperty && sp == "":
				return nil, invalidf("assetSummary.summaryElements[%d]: a STRUCTURED_PROPERTY element needs structuredPropertyUrn", i)
			case e.ElementType != model.SummaryElementTypeStructuredProperty && sp != "":
				return nil, invalidf("assetSummary.summaryElements[%d]: structuredPropertyUrn is only for a STRUCTURED_PROPERTY element, not %s", i, e.ElementType)
			case sp != "":
				if err := r.checkURNOf(ctx, fmt.Sprintf("assetSummary.summaryElements[%d].structuredPropertyUrn", i), sp, "structuredProperty", "structured property"); err != nil {
					return nil, err
				}
				el.StructuredPropertyUrn = &sp
			}
			summary.SummaryElements = append(summary.SummaryElements, el)
		}
	}
	st := stamp(ctx)
	err = r.write(auth.Preauthorized(ctx), edited(urn, "dataHubPageTemplateProperties", func(v *models.DataHubPageTemplateProperties, found bool) bool {
		if !found {
			v.Created = st
		}
		v.Rows = rows
		v.AssetSummary = summary
		v.Surface = models.DataHubPageTemplateSurface{SurfaceType: models.PageTemplateSurfaceType(in.SurfaceType)}
		v.Visibility = models.DataHubPageTemplateVisibility{Scope: models.PageTemplateScope(in.Scope)}
		v.LastModified = st
		return true
	}))
	if err != nil {
		return nil, err
	}
	return &model.DataHubPageTemplate{Urn: urn}, nil
}

// DeletePageTemplate deletes a page template and clears it from the
// settings of the users whose home page it was. The instance's default
// template cannot be deleted: everyone without their own would lose their
// home page.
func (r *mutationResolver) DeletePageTemplate(ctx context.Context, in model.DeletePageTemplateInput) (bool, error) {
	if _, err := pageURN(&in.Urn, "dataHubPageTemplate"); err != nil || in.Urn == "" {
		return false, cmpErr(err, invalidf("urn is required"))
	}
	cur, err := r.pageTemplateOf(ctx, in.Urn)
	if err != nil {
		return false, err
	}
	if cur == nil {
		return false, catalog.Errorf(catalog.NotFound, "Attempted to delete a page template that does not exist with urn %s", in.Urn)
	}
	if def, err := r.defaultHomeTemplate(ctx); err != nil {
		return false, err
	} else if def == in.Urn {
		return false, catalog.Errorf(catalog.Conflict, "Attempted to delete the default page template %s: make another template the default first", in.Urn)
	}
	if err := r.mayChangePage(ctx, "page template", in.Urn, cur.Visibility.Scope == models.PageTemplateScopeGlobal, cur.Created.Actor); err != nil {
		return false, err
	}
	// The delete itself takes the template out of the users' settings
	// that name it (HasPersonalPageTemplate), in the same transaction.
	del := catalog.Proposal{EntityType: "dataHubPageTemplate", EntityURN: in.Urn, ChangeType: catalog.Delete, AspectName: "dataHubPageTemplateKey"}
	if err := r.write(auth.Preauthorized(ctx), del); err != nil {
		return false, err
	}
	return true, nil
}

// cmpErr returns the first non-nil error.
func cmpErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// defaultHomeTemplate is the URN of the instance's default home page
// template, "" when none is set.
func (r *Resolver) defaultHomeTemplate(ctx context.Context) (string, error) {
	v, err := aspectOf[models.GlobalSettingsInfo](ctx, r.loaderOf(ctx), globalSettingsURN, "globalSettingsInfo")
	if err != nil || v == nil || v.HomePage == nil {
		return "", err
	}
	return v.HomePage.DefaultTemplate, nil
}

// moduleParamsOf checks that in carries the params of type typ and no
// others, and returns them as stored.
func moduleParamsOf(typ model.DataHubPageModuleType, in *model.PageModuleParamsInput) (models.DataHubPageModuleParams, error) {
	var out models.DataHubPageModuleParams
	want, ok := moduleParams[typ]
	if !ok {
		return out, invalidf("type: a %s module cannot be created or changed; the configurable types are LINK, RICH_TEXT, ASSET_COLLECTION and HIERARCHY", typ)
	}
	given := map[string]bool{}
	if in != nil {
		given = map[string]bool{"linkParams": in.LinkParams != nil, "richTextParams": in.RichTextParams != nil,
			"assetCollectionParams": in.AssetCollectionParams != nil, "hierarchyViewParams": in.HierarchyViewParams != nil}
	}
	if !given[want] {
		return out, invalidf("params.%s is required for a %s module", want, typ)
	}
	for _, name := range []string{"linkParams", "richTextParams", "assetCollectionParams", "hierarchyViewParams"} {
		if given[name] && name != want {
			return out, invalidf("params.%s is not for a %s module, which takes params.%s", name, typ, want)
		}
	}
	checkURNs := func(field string, urns []string) error {
		for i, u := range urns {
			if _, err := catalog.ParseURN(u); err != nil {
				return invalidf("params.%s.assetUrns[%d]: %v", field, i, err)
			}
		}
		return nil
	}
	switch want {
	case "linkParams":
		p := in.LinkParams
		if strings.TrimSpace(p.LinkURL) == "" {
			return out, invalidf("params.linkParams.linkUrl must not be empty")
		}
		out.LinkParams = &models.LinkModuleParams{LinkUrl: p.LinkURL, ImageUrl: nilIfEmpty(p.ImageURL), Description: nilIfEmpty(p.Description)}
	case "richTextParams":
		out.RichTextParams = &models.RichTextModuleParams{Content: in.RichTextParams.Content}
	case "assetCollectionParams":
		p := in.AssetCollectionParams
		if err := checkURNs(want, p.AssetUrns); err != nil {
			return out, err
		}
		out.AssetCollectionParams = &models.AssetCollectionModuleParams{AssetUrns: slices.Clone(p.AssetUrns), DynamicFilterJson: nilIfEmpty(p.DynamicFilterJSON)}
		if out.AssetCollectionParams.AssetUrns == nil {
			out.AssetCollectionParams.AssetUrns = []string{}
		}
	case "hierarchyViewParams":
		p := in.HierarchyViewParams
		if err := checkURNs(want, p.AssetUrns); err != nil {
			return out, err
		}
		out.HierarchyViewParams = &models.HierarchyModuleParams{AssetUrns: slices.Clone(p.AssetUrns), ShowRelatedEntities: p.ShowRelatedEntities,
			RelatedEntitiesFilterJson: nilIfEmpty(p.RelatedEntitiesFilterJSON)}
	}
	return out, nil
}

// UpsertPageModule creates a page module or replaces an existing one.
func (r *mutationResolver) UpsertPageModule(ctx context.Context, in model.UpsertPageModuleInput) (*model.DataHubPageModule, error) {
	urn, err := pageURN(in.Urn, "dataHubPageModule")
	if err != nil {
		return nil, err
	}
	cur, err := r.pageModuleOf(ctx, urn)
	if err != nil {
		return nil, err
	}
	if cur != nil {
		if err := r.mayChangePage(ctx, "page module", urn, cur.Visibility.Scope == models.PageModuleScopeGlobal, cur.Created.Actor); err != nil {
			return nil, err
		}
	}
	if err := r.mayChangePage(ctx, "page module", urn, in.Scope == model.PageModuleScopeGlobal, ""); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, invalidf("name must not be empty")
	}
	params, err := moduleParamsOf(in.Type, in.Params)
	if err != nil {
		return nil, err
	}
	st := stamp(ctx)
	err = r.write(auth.Preauthorized(ctx), edited(urn, "dataHubPageModuleProperties", func(v *models.DataHubPageModuleProperties, found bool) bool {
		if !found {
			v.Created = st
		}
		v.Name = in.Name
		v.Type = models.DataHubPageModuleType(in.Type)
		v.Visibility = models.DataHubPageModuleVisibility{Scope: models.PageModuleScope(in.Scope)}
		v.Params = params
		v.LastModified = st
		return true
	}))
	if err != nil {
		return nil, err
	}
	return &model.DataHubPageModule{Urn: urn}, nil
}

// DeletePageModule deletes a page module and takes it out of the rows of
// the templates that show it (a row left empty goes too). The seeded
// modules cannot be deleted.
func (r *mutationResolver) DeletePageModule(ctx context.Context, in model.DeletePageModuleInput) (bool, error) {
	if _, err := pageURN(&in.Urn, "dataHubPageModule"); err != nil || in.Urn == "" {
		return false, cmpErr(err, invalidf("urn is required"))
	}
	if slices.Contains(defaultPageModules, in.Urn) {
		return false, catalog.Errorf(catalog.Conflict, "Cannot delete default page module with urn %s", in.Urn)
	}
	cur, err := r.pageModuleOf(ctx, in.Urn)
	if err != nil {
		return false, err
	}
	if cur == nil {
		return false, catalog.Errorf(catalog.NotFound, "Attempted to delete a page module that does not exist with urn %s", in.Urn)
	}
	if err := r.mayChangePage(ctx, "page module", in.Urn, cur.Visibility.Scope == models.PageModuleScopeGlobal, cur.Created.Actor); err != nil {
		return false, err
	}
	templates, err := r.referencing(ctx, in.Urn, "ContainedIn", "dataHubPageTemplateProperties")
	if err != nil {
		return false, err
	}
	var refs []catalog.Proposal
	for _, t := range templates {
		refs = append(refs, edited(t, "dataHubPageTemplateProperties", func(v *models.DataHubPageTemplateProperties, found bool) bool {
			if !found {
				return false
			}
			rows := v.Rows[:0]
			for _, row := range v.Rows {
				row.Modules = slices.DeleteFunc(row.Modules, func(m string) bool { return m == in.Urn })
				if len(row.Modules) > 0 {
					rows = append(rows, row)
				}
			}
			v.Rows = rows
			return true
		}))
	}
	// One request: the rows edited here (a row left empty goes, which the
	// delete's own reference removal would keep) and the delete.
	del := catalog.Proposal{EntityType: "dataHubPageModule", EntityURN: in.Urn, ChangeType: catalog.Delete, AspectName: "dataHubPageModuleKey"}
	if err := r.write(auth.Preauthorized(ctx), append(refs, del)...); err != nil {
		return false, err
	}
	return true, nil
}

// UpdateUserHomePageSettings sets or clears the caller's own home page
// template and adds to the announcements the caller dismissed.
func (r *mutationResolver) UpdateUserHomePageSettings(ctx context.Context, in model.UpdateUserHomePageSettingsInput) (*bool, error) {
	tmpl := deref(in.PageTemplate)
	remove := deref(in.RemovePageTemplate)
	if tmpl != "" && remove {
		return nil, invalidf("give either pageTemplate or removePageTemplate, not both")
	}
	if tmpl != "" {
		if err := r.checkURNOf(ctx, "pageTemplate", tmpl, "dataHubPageTemplate", "page template"); err != nil {
			return nil, err
		}
		t, err := r.pageTemplateOf(ctx, tmpl)
		if err != nil {
			return nil, err
		}
		if t != nil && t.Visibility.Scope == models.PageTemplateScopePersonal && t.Created.Actor != actorOf(ctx) {
			return nil, catalog.Errorf(catalog.Forbidden, "pageTemplate: %s is the personal template of %s", tmpl, t.Created.Actor)
		}
	}
	for i, a := range in.NewDismissedAnnouncements {
		if _, err := catalog.ParseURN(a); err != nil {
			return nil, invalidf("newDismissedAnnouncements[%d]: %v", i, err)
		}
	}
	return r.editSettings(ctx, func(m map[string]any) {
		hp, _ := m["homePage"].(map[string]any)
		if hp == nil {
			hp = map[string]any{}
		}
		switch {
		case tmpl != "":
			hp["pageTemplate"] = tmpl
		case remove:
			delete(hp, "pageTemplate")
		}
		if len(in.NewDismissedAnnouncements) > 0 {
			list, _ := hp["dismissedAnnouncements"].([]any)
			for _, a := range in.NewDismissedAnnouncements {
				if !slices.Contains(list, any(a)) {
					list = append(list, a)
				}
			}
			hp["dismissedAnnouncements"] = list
		}
		if len(hp) > 0 {
			m["homePage"] = hp
		} else {
			delete(m, "homePage")
		}
	})
}

// GlobalHomePageSettings is the instance's default home page template,
// from the global settings; none when it is unset or no longer exists.
func (r *queryResolver) GlobalHomePageSettings(ctx context.Context) (*model.GlobalHomePageSettings, error) {
	def, err := r.defaultHomeTemplate(ctx)
	if err != nil {
		return nil, err
	}
	out := &model.GlobalHomePageSettings{}
	if def == "" {
		return out, nil
	}
	ok, err := r.loaderOf(ctx).exists(ctx, def)
	if err != nil {
		return nil, err
	}
	if ok {
		out.DefaultTemplate = &model.DataHubPageTemplate{Urn: def}
	}
	return out, nil
}
