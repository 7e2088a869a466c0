package main

import (
	"encoding/json"
	"testing"
)

// TestGraphQLRemovedUsersAndGroups checks what DataHub answers for a user or
// group URN whatever is stored for it: the entity, with the aspects that are
// stored (none for a removed or unknown one) and exists telling them apart.
func TestGraphQLRemovedUsersAndGroups(t *testing.T) {
	const (
		user  = "urn:li:corpuser:jdoe"
		group = "urn:li:corpGroup:bfoo"
		ghost = "urn:li:corpuser:nobody"
		gone  = "urn:li:corpuser:soft"
	)
	const userQuery = `query($urn: String!) { corpUser(urn: $urn) { urn type username exists properties { firstName } info { active }
		editableProperties { displayName } status globalTags { tags { tag { urn } } } } }`
	const groupQuery = `query($urn: String!) { corpGroup(urn: $urn) { urn type name exists properties { displayName } info { displayName }
		editableProperties { description } ownership { owners { type } } } }`
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			for _, p := range []map[string]any{
				mcp("corpuser", user, "corpUserInfo", map[string]any{"active": true, "firstName": "John", "displayName": "John Doe"}),
				mcp("corpGroup", group, "corpGroupInfo", map[string]any{"displayName": "Bfoo", "admins": []string{}, "members": []string{}, "groups": []string{}}),
				mcp("corpuser", gone, "corpUserInfo", map[string]any{"active": true, "firstName": "Soft"}),
				mcp("corpuser", gone, "status", map[string]any{"removed": true}),
			} {
				srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": p})
			}
			// Stored, before removal.
			d := srv.gqlData(t, userQuery, map[string]any{"urn": user})
			if got := asJSON(d["corpUser"]); got != `{"editableProperties":null,"exists":true,"globalTags":null,"info":{"active":true},"properties":{"firstName":"John"},"status":null,"type":"CORP_USER","urn":"urn:li:corpuser:jdoe","username":"jdoe"}` {
				t.Errorf("stored user = %s", got)
			}

			if r := srv.gqlData(t, `mutation($urn: String!) { removeUser(urn: $urn) }`, map[string]any{"urn": user}); asJSON(r) != `{"removeUser":true}` {
				t.Fatalf("removeUser = %s", asJSON(r))
			}
			if r := srv.gqlData(t, `mutation($urn: String!) { removeGroup(urn: $urn) }`, map[string]any{"urn": group}); asJSON(r) != `{"removeGroup":true}` {
				t.Fatalf("removeGroup = %s", asJSON(r))
			}
			for _, c := range []struct{ name, urn, want string }{
				{"removed user", user, `{"editableProperties":null,"exists":false,"globalTags":null,"info":null,"properties":null,"status":null,"type":"CORP_USER","urn":"urn:li:corpuser:jdoe","username":"jdoe"}`},
				{"unknown user", ghost, `{"editableProperties":null,"exists":false,"globalTags":null,"info":null,"properties":null,"status":null,"type":"CORP_USER","urn":"urn:li:corpuser:nobody","username":"nobody"}`},
				{"soft-deleted user", gone, `{"editableProperties":null,"exists":true,"globalTags":null,"info":{"active":true},"properties":{"firstName":"Soft"},"status":null,"type":"CORP_USER","urn":"urn:li:corpuser:soft","username":"soft"}`},
				{"URN of another type", "urn:li:corpGroup:bfoo", `null`},
			} {
				if got := asJSON(srv.gqlData(t, userQuery, map[string]any{"urn": c.urn})["corpUser"]); got != c.want {
					t.Errorf("%s: corpUser = %s\nwant %s", c.name, got, c.want)
				}
			}
			for _, c := range []struct{ name, urn, want string }{
				{"removed group", group, `{"editableProperties":null,"exists":false,"info":null,"name":"bfoo","ownership":null,"properties":null,"type":"CORP_GROUP","urn":"urn:li:corpGroup:bfoo"}`},
				{"unknown group", "urn:li:corpGroup:nogroup", `{"editableProperties":null,"exists":false,"info":null,"name":"nogroup","ownership":null,"properties":null,"type":"CORP_GROUP","urn":"urn:li:corpGroup:nogroup"}`},
				{"URN of another type", user, `null`},
			} {
				if got := asJSON(srv.gqlData(t, groupQuery, map[string]any{"urn": c.urn})["corpGroup"]); got != c.want {
					t.Errorf("%s: corpGroup = %s\nwant %s", c.name, got, c.want)
				}
			}
		})
	}
}

// TestGraphQLIsNativeUser checks that isNativeUser is computed as DataHub
// computes it, from the user's stored credentials: true for the root user
// and any user with a password, null for users without credentials, whether
// read one by one or in a list.
func TestGraphQLIsNativeUser(t *testing.T) {
	const native, external = "urn:li:corpuser:jdoe", "urn:li:corpuser:ldapuser"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := startAuthServer(t, st.args...)
			reader, _ := s.cliToken(t, "reader")
			for _, p := range []map[string]any{
				mcp("corpuser", native, "corpUserInfo", map[string]any{"active": true, "displayName": "John"}),
				mcp("corpuser", native, "corpUserCredentials", map[string]any{"salt": "c2FsdA", "hashedPassword": "aGFzaA"}),
				mcp("corpuser", external, "corpUserInfo", map[string]any{"active": true, "displayName": "From LDAP"}),
			} {
				if st, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": p}); st != 200 {
					t.Fatalf("ingest: %d %s", st, b)
				}
			}
			want := map[string]string{
				"urn:li:corpuser:datahub": "true", native: "true", external: "null", "urn:li:corpuser:reader": "null",
			}
			for urn, w := range want {
				// As any user sees them: the answer reveals no credentials.
				for _, token := range []string{s.admin, reader} {
					r := s.gql(t, token, `query($urn: String!) { corpUser(urn: $urn) { isNativeUser } }`, map[string]any{"urn": urn})
					var u struct {
						IsNativeUser json.RawMessage `json:"isNativeUser"`
					}
					if len(r.Errors) > 0 || json.Unmarshal(r.Data["corpUser"], &u) != nil || string(u.IsNativeUser) != w {
						t.Errorf("%s: corpUser = %s %+v, want isNativeUser %s", urn, r.Data["corpUser"], r.Errors, w)
					}
				}
			}
			var list struct {
				Users []struct {
					Urn          string          `json:"urn"`
					IsNativeUser json.RawMessage `json:"isNativeUser"`
				} `json:"users"`
			}
			s.mustGQL(t, s.admin, `{ listUsers(input: {start: 0, count: 100}) { users { urn isNativeUser } } }`, nil, "listUsers", &list)
			seen := 0
			for _, u := range list.Users {
				if w, ok := want[u.Urn]; ok {
					seen++
					if string(u.IsNativeUser) != w {
						t.Errorf("listUsers: %s isNativeUser %s, want %s", u.Urn, u.IsNativeUser, w)
					}
				}
			}
			if seen != len(want)-1 { // reader, who has only a token, is not stored
				t.Errorf("listUsers lists %d of the %d stored users: %+v", seen, len(want)-1, list.Users)
			}
		})
	}
}
