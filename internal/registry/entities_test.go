package registry_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/catalogd/catalogd/internal/registry"
)

// dataHubEntities is DataHub's entity registry (metadata-models
// entity-registry.yml): every entity type with its key aspect and the key
// aspect's fields in URN tuple order.
var dataHubEntities = []struct {
	name, keyAspect string
	keyFields       []string
}{
	{"dataPlatform", "dataPlatformKey", []string{"platformName"}},
	{"role", "roleKey", []string{"id"}},
	{"dataset", "datasetKey", []string{"platform", "name", "origin"}},
	{"dataHubPolicy", "dataHubPolicyKey", []string{"id"}},
	{"dataJob", "dataJobKey", []string{"flow", "jobId"}},
	{"dataFlow", "dataFlowKey", []string{"orchestrator", "flowId", "cluster"}},
	{"dataProcess", "dataProcessKey", []string{"name", "orchestrator", "origin"}},
	{"dataProcessInstance", "dataProcessInstanceKey", []string{"id"}},
	{"chart", "chartKey", []string{"dashboardTool", "chartId"}},
	{"dashboard", "dashboardKey", []string{"dashboardTool", "dashboardId"}},
	{"notebook", "notebookKey", []string{"notebookTool", "notebookId"}},
	{"corpuser", "corpUserKey", []string{"username"}},
	{"corpGroup", "corpGroupKey", []string{"name"}},
	{"domain", "domainKey", []string{"id"}},
	{"container", "containerKey", []string{"guid"}},
	{"tag", "tagKey", []string{"name"}},
	{"glossaryTerm", "glossaryTermKey", []string{"name"}},
	{"glossaryNode", "glossaryNodeKey", []string{"name"}},
	{"dataHubIngestionSource", "dataHubIngestionSourceKey", []string{"id"}},
	{"dataHubSecret", "dataHubSecretKey", []string{"id"}},
	{"dataHubExecutionRequest", "dataHubExecutionRequestKey", []string{"id"}},
	{"assertion", "assertionKey", []string{"assertionId"}},
	{"dataHubRetention", "dataHubRetentionKey", []string{"entityName", "aspectName"}},
	{"dataPlatformInstance", "dataPlatformInstanceKey", []string{"platform", "instance"}},
	{"mlModel", "mlModelKey", []string{"platform", "name", "origin"}},
	{"mlModelGroup", "mlModelGroupKey", []string{"platform", "name", "origin"}},
	{"mlModelDeployment", "mlModelDeploymentKey", []string{"platform", "name", "origin"}},
	{"mlFeatureTable", "mlFeatureTableKey", []string{"platform", "name"}},
	{"mlFeature", "mlFeatureKey", []string{"featureNamespace", "name"}},
	{"mlPrimaryKey", "mlPrimaryKeyKey", []string{"featureNamespace", "name"}},
	{"telemetry", "telemetryKey", []string{"name"}},
	{"dataHubAccessToken", "dataHubAccessTokenKey", []string{"id"}},
	{"test", "testKey", []string{"id"}},
	{"dataHubUpgrade", "dataHubUpgradeKey", []string{"id"}},
	{"inviteToken", "inviteTokenKey", []string{"id"}},
	{"schemaField", "schemaFieldKey", []string{"parent", "fieldPath"}},
	{"globalSettings", "globalSettingsKey", []string{"id"}},
	{"versionSet", "versionSetKey", []string{"id", "entityType"}},
	{"incident", "incidentKey", []string{"id"}},
	{"dataHubRole", "dataHubRoleKey", []string{"id"}},
	{"post", "postKey", []string{"id"}},
	{"dataHubStepState", "dataHubStepStateKey", []string{"id"}},
	{"dataHubView", "dataHubViewKey", []string{"id"}},
	{"erModelRelationship", "erModelRelationshipKey", []string{"id"}},
	{"query", "queryKey", []string{"id"}},
	{"dataProduct", "dataProductKey", []string{"id"}},
	{"application", "applicationKey", []string{"id"}},
	{"ownershipType", "ownershipTypeKey", []string{"id"}},
	{"businessAttribute", "businessAttributeKey", []string{"id"}},
	{"dataContract", "dataContractKey", []string{"id"}},
	{"dataHubPersona", "dataHubPersonaKey", []string{"id"}},
	{"dataHubAction", "dataHubActionKey", []string{"id"}},
	{"entityType", "entityTypeKey", []string{"id"}},
	{"dataType", "dataTypeKey", []string{"id"}},
	{"structuredProperty", "structuredPropertyKey", []string{"id"}},
	{"form", "formKey", []string{"id"}},
	{"dataHubConnection", "dataHubConnectionKey", []string{"id"}},
	{"platformResource", "platformResourceKey", []string{"id"}},
	{"dataHubOpenAPISchema", "dataHubOpenAPISchemaKey", []string{"id"}},
	// Added in DataHub 1.2 for the customisable home page.
	{"dataHubPageTemplate", "dataHubPageTemplateKey", []string{"id"}},
	{"dataHubPageModule", "dataHubPageModuleKey", []string{"id"}},
}

// TestDataHubEntityTypes checks that the generated registry holds exactly
// DataHub's entity types, each with its key aspect, whose schema has the key
// fields, and that every aspect an entity lists has a schema.
func TestDataHubEntityTypes(t *testing.T) {
	r := registry.Default()
	if len(dataHubEntities) != 61 {
		t.Fatalf("the table lists %d entity types, DataHub has 61", len(dataHubEntities))
	}
	want := map[string]bool{}
	for _, w := range dataHubEntities {
		want[w.name] = true
		e := r.Entity(w.name)
		if e == nil {
			t.Errorf("entity type %s: not in the registry", w.name)
			continue
		}
		if e.Name != w.name {
			t.Errorf("entity type %s: registered as %q", w.name, e.Name)
		}
		if e.KeyAspect != w.keyAspect {
			t.Errorf("entity type %s: key aspect %q, want %q", w.name, e.KeyAspect, w.keyAspect)
		}
		if !slices.Equal(e.KeyFields, w.keyFields) {
			t.Errorf("entity type %s: key fields %v, want %v", w.name, e.KeyFields, w.keyFields)
		}
		key := r.Aspect(w.keyAspect)
		if key == nil {
			t.Errorf("entity type %s: key aspect %s has no schema", w.name, w.keyAspect)
			continue
		}
		if !r.EntityHasAspect(w.name, w.keyAspect) {
			t.Errorf("entity type %s: does not carry its key aspect %s", w.name, w.keyAspect)
		}
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal([]byte(key.Schema), &schema); err != nil {
			t.Fatalf("key aspect %s: schema: %v", w.keyAspect, err)
		}
		for _, f := range w.keyFields {
			if schema.Properties[f] == nil {
				t.Errorf("entity type %s: key field %s is not a field of %s", w.name, f, w.keyAspect)
			}
		}
		if len(schema.Properties) != len(w.keyFields) {
			t.Errorf("entity type %s: %s has %d fields, want %d", w.name, w.keyAspect, len(schema.Properties), len(w.keyFields))
		}
		for _, a := range e.Aspects {
			if r.Aspect(a) == nil {
				t.Errorf("entity type %s: aspect %s has no schema", w.name, a)
			}
		}
	}
	for _, e := range r.Entities() {
		if !want[e.Name] {
			t.Errorf("entity type %s is in the registry but not in DataHub's", e.Name)
		}
	}
}
