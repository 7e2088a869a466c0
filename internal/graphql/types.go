package graphql

import (
	"sort"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// Short names of the entity model types, for the generic resolvers.
type (
	datasetT      = model.Dataset
	chartT        = model.Chart
	dashboardT    = model.Dashboard
	dataFlowT     = model.DataFlow
	dataJobT      = model.DataJob
	mlModelT      = model.MLModel
	containerT    = model.Container
	domainT       = model.Domain
	tagT          = model.Tag
	glossaryTermT = model.GlossaryTerm
	glossaryNodeT = model.GlossaryNode
	dataPlatformT = model.DataPlatform
	corpUserT     = model.CorpUser
	corpGroupT    = model.CorpGroup
)

// entityTypes maps registry entity names to GraphQL entity types.
var entityTypes = map[string]model.EntityType{
	"dataset":              model.EntityTypeDataset,
	"chart":                model.EntityTypeChart,
	"dashboard":            model.EntityTypeDashboard,
	"corpuser":             model.EntityTypeCorpUser,
	"corpGroup":            model.EntityTypeCorpGroup,
	"glossaryTerm":         model.EntityTypeGlossaryTerm,
	"glossaryNode":         model.EntityTypeGlossaryNode,
	"tag":                  model.EntityTypeTag,
	"container":            model.EntityTypeContainer,
	"domain":               model.EntityTypeDomain,
	"dataFlow":             model.EntityTypeDataFlow,
	"dataJob":              model.EntityTypeDataJob,
	"mlModel":              model.EntityTypeMlmodel,
	"mlModelGroup":         model.EntityTypeMlmodelGroup,
	"mlFeature":            model.EntityTypeMlfeature,
	"mlFeatureTable":       model.EntityTypeMlfeatureTable,
	"mlPrimaryKey":         model.EntityTypeMlprimaryKey,
	"dataPlatform":         model.EntityTypeDataPlatform,
	"dataPlatformInstance": model.EntityTypeDataPlatformInstance,
	"dataProduct":          model.EntityTypeDataProduct,
	"notebook":             model.EntityTypeNotebook,
	"assertion":            model.EntityTypeAssertion,
	"schemaField":          model.EntityTypeSchemaField,
	"ownershipType":        model.EntityTypeCustomOwnershipType,
}

// entityNames is the inverse of entityTypes.
var entityNames = func() map[model.EntityType]string {
	m := make(map[model.EntityType]string, len(entityTypes))
	for n, t := range entityTypes {
		m[t] = n
	}
	return m
}()

// entityTypeOf returns the GraphQL entity type of a URN, OTHER when the
// entity has no GraphQL type.
func entityTypeOf(urn string) model.EntityType {
	if t, ok := entityTypes[urnType(urn)]; ok {
		return t
	}
	return model.EntityTypeOther
}

// urnType returns the entity type named in urn ("" when malformed).
func urnType(urn string) string {
	rest, ok := strings.CutPrefix(urn, "urn:li:")
	if !ok {
		return ""
	}
	t, _, _ := strings.Cut(rest, ":")
	return t
}

// urnParts returns the key parts of urn (nil when malformed).
func urnParts(urn string) []string {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return nil
	}
	return u.Parts()
}

// urnPart returns the i-th key part of urn, "" when there is none.
func urnPart(urn string, i int) string {
	p := urnParts(urn)
	if i < len(p) {
		return p[i]
	}
	return ""
}

// entityOf returns the GraphQL object for urn, nil when its entity type has
// no GraphQL type here.
func entityOf(urn string) model.Entity {
	switch urnType(urn) {
	case "dataset":
		return &model.Dataset{Urn: urn}
	case "chart":
		return &model.Chart{Urn: urn}
	case "dashboard":
		return &model.Dashboard{Urn: urn}
	case "dataFlow":
		return &model.DataFlow{Urn: urn}
	case "dataJob":
		return &model.DataJob{Urn: urn}
	case "mlModel":
		return &model.MLModel{Urn: urn}
	case "container":
		return &model.Container{Urn: urn}
	case "domain":
		return &model.Domain{Urn: urn}
	case "tag":
		return &model.Tag{Urn: urn}
	case "glossaryTerm":
		return &model.GlossaryTerm{Urn: urn}
	case "glossaryNode":
		return &model.GlossaryNode{Urn: urn}
	case "dataPlatform":
		return &model.DataPlatform{Urn: urn}
	case "corpuser":
		return &model.CorpUser{Urn: urn}
	case "corpGroup":
		return &model.CorpGroup{Urn: urn}
	}
	return nil
}

// entitiesOf returns the GraphQL objects of urns, leaving out those without
// a GraphQL type.
func entitiesOf(urns []string) []model.Entity {
	out := make([]model.Entity, 0, len(urns))
	for _, u := range urns {
		if e := entityOf(u); e != nil {
			out = append(out, e)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// nonEmpty returns a pointer to s, nil when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// customProperties turns a property map into entries sorted by key, so that
// answers are stable.
func customProperties(m map[string]string, urn string) []*model.CustomPropertiesEntry {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*model.CustomPropertiesEntry, len(keys))
	for i, k := range keys {
		out[i] = &model.CustomPropertiesEntry{Key: k, Value: ptr(m[k]), AssociatedUrn: urn}
	}
	return out
}
