package auth

import (
	"context"

	"github.com/catalogd/catalogd/internal/ingest"
)

var _ ingest.Authorizer = (*Service)(nil)

// entityPrivileges are the entities only a platform privilege may write:
// they control access or run code, so owning one grants nothing.
var entityPrivileges = map[string]string{
	"dataHubPolicy":          PrivManagePolicies,
	"dataHubAccessToken":     PrivManageAccessTokens,
	"dataHubIngestionSource": PrivManageIngestion,
	"dataHubSecret":          PrivManageSecrets,
	// A run executes its recipe's command on the server.
	"dataHubExecutionRequest": PrivManageIngestion,
	"dataHubRole":             PrivManagePolicies,
	"inviteToken":             PrivManagePolicies,
	"post":                    PrivManageGlobalAnnouncements,
	"test":                    "MANAGE_TESTS",
	"dataHubConnection":       "MANAGE_CONNECTIONS",
}

// aspectPrivileges are the specific edit privileges DataHub checks for an
// aspect, each an alternative to EDIT_ENTITY.
var aspectPrivileges = map[string]string{
	"globalTags":                  "EDIT_ENTITY_TAGS",
	"glossaryTerms":               "EDIT_ENTITY_GLOSSARY_TERMS",
	"ownership":                   "EDIT_ENTITY_OWNERS",
	"institutionalMemory":         "EDIT_ENTITY_DOC_LINKS",
	"status":                      "EDIT_ENTITY_STATUS",
	"domains":                     "EDIT_DOMAINS_PRIVILEGE",
	"deprecation":                 "EDIT_DEPRECATION_PRIVILEGE",
	"upstreamLineage":             "EDIT_LINEAGE",
	"editableSchemaMetadata":      "EDIT_DATASET_COL_DESCRIPTION",
	"corpUserEditableInfo":        "EDIT_USER_PROFILE",
	"editableDatasetProperties":   "EDIT_ENTITY_DOCS",
	"editableChartProperties":     "EDIT_ENTITY_DOCS",
	"editableDashboardProperties": "EDIT_ENTITY_DOCS",
	"structuredProperties":        "EDIT_ENTITY_PROPERTIES",
	"applications":                "EDIT_ENTITY_APPLICATIONS_PRIVILEGE",
}

// managerPrivileges are platform privileges that allow writing every entity
// of a type (a glossary manager may edit any term).
var managerPrivileges = map[string]string{
	"tag":           PrivManageTags,
	"glossaryTerm":  PrivManageGlossaries,
	"glossaryNode":  PrivManageGlossaries,
	"domain":        PrivManageDomains,
	"corpuser":      PrivManageUsers,
	"corpGroup":     PrivManageUsers,
	"ownershipType": "MANAGE_GLOBAL_OWNERSHIP_TYPES",
	// Governance entities, each managed by its platform privilege.
	"structuredProperty": "MANAGE_STRUCTURED_PROPERTIES",
	"form":               "MANAGE_DOCUMENTATION_FORMS",
	"businessAttribute":  "MANAGE_BUSINESS_ATTRIBUTE",
	"dataProduct":        "MANAGE_DATA_PRODUCTS",
}

// selfAspects are the aspects of a user that the user may always write on
// themselves: DataHub writes a user's own settings without a privilege.
var selfAspects = map[string]bool{"corpUserSettings": true}

// AuthorizeChanges implements ingest.Authorizer: every change of a request
// must be allowed, or the whole request is refused with Forbidden.
func (s *Service) AuthorizeChanges(ctx context.Context, actor string, changes []ingest.Change) error {
	if isPreauthorized(ctx) {
		return nil
	}
	type key struct{ urn, aspect string }
	done := make(map[key]bool, len(changes))
	for _, c := range changes {
		k := key{c.URN, c.Aspect}
		if c.Deleted {
			k.aspect = "\x00delete:" + c.Aspect
		}
		if done[k] {
			continue
		}
		done[k] = true
		r := Resource{Type: c.EntityType, URN: c.URN}
		var privs []string
		what := "modify entity " + c.URN
		switch {
		case selfAspects[c.Aspect] && c.URN == actor && !c.Key:
			continue
		case entityPrivileges[c.EntityType] != "":
			privs = []string{entityPrivileges[c.EntityType]}
		case c.Aspect == "corpUserCredentials":
			privs = []string{PrivManageCredentials}
		case c.Aspect == "roleMembership":
			// A role grants what its policies do, so giving one is managing
			// policies: an editor of a user must not make them an admin.
			privs = []string{PrivManagePolicies}
		case c.Deleted && c.Key:
			// As in DataHub, a manager of domains (glossaries, tags...) may
			// delete them.
			privs = []string{PrivDeleteEntity}
			if p := managerPrivileges[c.EntityType]; p != "" {
				privs = append(privs, p)
			}
			what = "delete entity " + c.URN
		default:
			privs = []string{PrivEditEntity}
			if p := aspectPrivileges[c.Aspect]; p != "" {
				privs = append(privs, p)
			}
			if p := managerPrivileges[c.EntityType]; p != "" {
				privs = append(privs, p)
			}
		}
		if err := s.Require(ctx, actor, r, what, privs...); err != nil {
			return err
		}
	}
	return nil
}
