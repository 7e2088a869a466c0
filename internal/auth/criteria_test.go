package auth_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/catalogd/catalogd/internal/auth"
	"github.com/catalogd/catalogd/internal/catalog"
)

// TestResourceCriteria checks each kind of resource criterion a policy can
// carry against two datasets: one in a domain (under a parent domain), a
// container (under a parent container) and a platform instance, tagged
// and owned; the other with none of these.
func TestResourceCriteria(t *testing.T) {
	svc, ing := setup(t)
	ctx := context.Background()
	const (
		dsA       = "urn:li:dataset:(urn:li:dataPlatform:hive,sales.orders,PROD)"
		dsB       = "urn:li:dataset:(urn:li:dataPlatform:kafka,events,PROD)"
		finance   = "urn:li:domain:finance"
		payments  = "urn:li:domain:payments"
		db        = "urn:li:container:db"
		schema    = "urn:li:container:schema"
		pii       = "urn:li:tag:pii"
		alice     = "urn:li:corpuser:alice"
		instance  = "urn:li:dataPlatformInstance:(urn:li:dataPlatform:hive,prod)"
		privilege = auth.PrivEditEntity
	)
	if _, err := ing.Ingest(ctx, auth.RootUser, []catalog.Proposal{
		upsert("domain", finance, "domainProperties", map[string]any{"name": "Finance"}),
		upsert("domain", payments, "domainProperties", map[string]any{"name": "Payments", "parentDomain": finance}),
		upsert("container", db, "containerProperties", map[string]any{"name": "db"}),
		upsert("container", schema, "container", map[string]any{"container": db}),
		upsert("dataset", dsA, "domains", map[string]any{"domains": []string{payments}}),
		upsert("dataset", dsA, "container", map[string]any{"container": schema}),
		upsert("dataset", dsA, "globalTags", map[string]any{"tags": []any{map[string]any{"tag": pii}}}),
		upsert("dataset", dsA, "ownership", map[string]any{"owners": []any{map[string]any{"owner": alice, "type": "DATAOWNER"}}}),
		upsert("dataset", dsA, "dataPlatformInstance", map[string]any{"platform": "urn:li:dataPlatform:hive", "instance": instance}),
		upsert("dataset", dsB, "status", map[string]any{"removed": false}),
	}); err != nil {
		t.Fatal(err)
	}
	crit := func(field, condition string, values ...string) map[string]any {
		return map[string]any{"field": field, "condition": condition, "values": values}
	}
	filter := func(cs ...map[string]any) map[string]any {
		return map[string]any{"filter": map[string]any{"criteria": append([]map[string]any{}, cs...)}}
	}
	tests := []struct {
		name      string
		resources map[string]any
		a, b      bool
	}{
		{"domain", filter(crit("DOMAIN", "EQUALS", payments)), true, false},
		{"parent domain", filter(crit("DOMAIN", "EQUALS", finance)), true, false},
		{"tag", filter(crit("TAG", "EQUALS", pii)), true, false},
		{"other tag", filter(crit("TAG", "EQUALS", "urn:li:tag:public")), false, false},
		{"not tagged", filter(crit("TAG", "NOT_EQUALS", pii)), false, true},
		{"urn prefix", filter(crit("RESOURCE_URN", "STARTS_WITH", "urn:li:dataset:(urn:li:dataPlatform:hive,")), true, false},
		{"legacy urn field", filter(crit("URN", "EQUALS", dsB)), false, true},
		{"parent container", filter(crit("CONTAINER", "EQUALS", db)), true, false},
		{"platform instance", filter(crit("DATA_PLATFORM_INSTANCE", "EQUALS", instance)), true, false},
		{"owner", filter(crit("OWNER", "EQUALS", alice)), true, false},
		{"type and domain", filter(crit("TYPE", "EQUALS", "DATASET"), crit("DOMAIN", "EQUALS", payments)), true, false},
		{"type or other domain", filter(crit("TYPE", "EQUALS", "dataset"), crit("DOMAIN", "EQUALS", "urn:li:domain:hr")), false, false},
		{"condition defaults to EQUALS", filter(map[string]any{"field": "TAG", "values": []string{pii}}), true, false},
		{"unknown field", filter(crit("COLOR", "EQUALS", "red")), false, false},
		{"legacy type and resources", map[string]any{"type": "dataset", "resources": []string{dsB}}, false, true},
		{"legacy type", map[string]any{"type": "dataset"}, true, true},
		{"legacy resources alone", map[string]any{"resources": []string{dsA}}, true, false},
		{"empty filter", filter(), true, true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A user and a policy per case, so that cases do not grant
			// each other anything.
			user := fmt.Sprintf("urn:li:corpuser:criteria-%d", i)
			policy := map[string]any{"displayName": tc.name, "description": "test", "type": "METADATA", "state": "ACTIVE",
				"privileges": []string{privilege}, "actors": map[string]any{"users": []string{user}}, "resources": tc.resources}
			if _, err := ing.Ingest(ctx, auth.RootUser, []catalog.Proposal{upsert("dataHubPolicy", fmt.Sprintf("urn:li:dataHubPolicy:criteria-%d", i), "dataHubPolicyInfo", policy)}); err != nil {
				t.Fatal(err)
			}
			svc.InvalidatePolicies()
			for _, c := range []struct {
				urn  string
				want bool
			}{{dsA, tc.a}, {dsB, tc.b}} {
				got, err := svc.Allowed(ctx, user, auth.Resource{Type: "dataset", URN: c.urn}, privilege)
				if err != nil || got != c.want {
					t.Errorf("Allowed(%s) = %v, %v; want %v", c.urn, got, err, c.want)
				}
			}
		})
	}
}

// TestGroupMembershipCriterion checks the GROUP_MEMBERSHIP field: a user
// resource's groups, joined either way (groupMembership from ingestion,
// nativeGroupMembership from DataHub's own UI).
func TestGroupMembershipCriterion(t *testing.T) {
	svc, ing := setup(t)
	ctx := context.Background()
	const (
		admin   = "urn:li:corpuser:group-admin"
		bob     = "urn:li:corpuser:bob"
		carol   = "urn:li:corpuser:carol"
		dave    = "urn:li:corpuser:dave"
		finance = "urn:li:corpGroup:finance"
	)
	policy := map[string]any{"displayName": "finance profiles", "description": "test", "type": "METADATA", "state": "ACTIVE",
		"privileges": []string{"EDIT_USER_PROFILE"}, "actors": map[string]any{"users": []string{admin}},
		"resources": map[string]any{"filter": map[string]any{"criteria": []any{
			map[string]any{"field": "GROUP_MEMBERSHIP", "condition": "EQUALS", "values": []string{finance}}}}}}
	if _, err := ing.Ingest(ctx, auth.RootUser, []catalog.Proposal{
		upsert("corpuser", bob, "groupMembership", map[string]any{"groups": []string{finance}}),
		upsert("corpuser", carol, "nativeGroupMembership", map[string]any{"nativeGroups": []string{finance}}),
		upsert("corpuser", dave, "corpUserInfo", map[string]any{"active": true}),
		upsert("dataHubPolicy", "urn:li:dataHubPolicy:group-criterion", "dataHubPolicyInfo", policy),
	}); err != nil {
		t.Fatal(err)
	}
	svc.InvalidatePolicies()
	for _, c := range []struct {
		urn  string
		want bool
	}{{bob, true}, {carol, true}, {dave, false}} {
		got, err := svc.Allowed(ctx, admin, auth.Resource{Type: "corpuser", URN: c.urn}, "EDIT_USER_PROFILE")
		if err != nil || got != c.want {
			t.Errorf("Allowed(%s) = %v, %v; want %v", c.urn, got, err, c.want)
		}
	}
}

// TestResourceOwnersTypes checks that a policy for a resource's owners
// limited to some ownership types grants only to owners of those types,
// directly or through a group, and one without types to every owner.
func TestResourceOwnersTypes(t *testing.T) {
	svc, ing := setup(t)
	ctx := context.Background()
	const (
		ds        = "urn:li:dataset:(urn:li:dataPlatform:hive,owned,PROD)"
		business  = "urn:li:ownershipType:__system__business_owner"
		technical = "urn:li:ownershipType:__system__technical_owner"
		alice     = "urn:li:corpuser:alice" // technical owner
		bob       = "urn:li:corpuser:bob"   // business owner
		carol     = "urn:li:corpuser:carol" // in a group that is a business owner
		dave      = "urn:li:corpuser:dave"  // owns nothing
		stewards  = "urn:li:corpGroup:stewards"
	)
	owner := func(urn, typ string) map[string]any {
		return map[string]any{"owner": urn, "type": "CUSTOM", "typeUrn": typ}
	}
	ownersPolicy := func(priv string, types []string) map[string]any {
		actors := map[string]any{"resourceOwners": true}
		if types != nil {
			actors["resourceOwnersTypes"] = types
		}
		return map[string]any{"displayName": priv, "description": "test", "type": "METADATA", "state": "ACTIVE",
			"privileges": []string{priv}, "actors": actors, "resources": map[string]any{"allResources": true}}
	}
	if _, err := ing.Ingest(ctx, auth.RootUser, []catalog.Proposal{
		upsert("dataset", ds, "ownership", map[string]any{"owners": []any{owner(alice, technical), owner(bob, business), owner(stewards, business)}}),
		upsert("corpuser", carol, "nativeGroupMembership", map[string]any{"nativeGroups": []string{stewards}}),
		upsert("dataHubPolicy", "urn:li:dataHubPolicy:business-owners", "dataHubPolicyInfo", ownersPolicy("TEST_BUSINESS_OWNERS", []string{business})),
		upsert("dataHubPolicy", "urn:li:dataHubPolicy:all-owners", "dataHubPolicyInfo", ownersPolicy("TEST_ALL_OWNERS", nil)),
	}); err != nil {
		t.Fatal(err)
	}
	svc.InvalidatePolicies()
	for _, c := range []struct {
		user          string
		business, all bool
	}{{alice, false, true}, {bob, true, true}, {carol, true, true}, {dave, false, false}} {
		for _, p := range []struct {
			priv string
			want bool
		}{{"TEST_BUSINESS_OWNERS", c.business}, {"TEST_ALL_OWNERS", c.all}} {
			got, err := svc.Allowed(ctx, c.user, auth.Resource{Type: "dataset", URN: ds}, p.priv)
			if err != nil || got != p.want {
				t.Errorf("Allowed(%s, %s) = %v, %v; want %v", c.user, p.priv, got, err, p.want)
			}
			privs, err := svc.GrantedPrivileges(ctx, c.user, &auth.Resource{Type: "dataset", URN: ds})
			if err != nil || slices.Contains(privs, p.priv) != p.want {
				t.Errorf("GrantedPrivileges(%s) = %v, %v; want %s: %v", c.user, privs, err, p.priv, p.want)
			}
		}
	}
}
