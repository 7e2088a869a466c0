package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestGraphQLConcurrentEdits sends many label and owner mutations of one
// dataset at once, as several people editing it in the UI do: each reads
// and rewrites a whole aspect, so unless the rewrite happens on the value
// current in the write transaction, a later write undoes an earlier one.
func TestGraphQLConcurrentEdits(t *testing.T) {
	const n = 16
	const dataset = "urn:li:dataset:(urn:li:dataPlatform:hive,edits.concurrent,PROD)"
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			props := []any{mcp("dataset", dataset, "datasetProperties", map[string]any{"name": "concurrent"})}
			for i := range n {
				props = append(props,
					mcp("tag", fmt.Sprintf("urn:li:tag:t%d", i), "tagProperties", map[string]any{"name": fmt.Sprintf("t%d", i)}),
					mcp("glossaryTerm", fmt.Sprintf("urn:li:glossaryTerm:g%d", i), "glossaryTermInfo", map[string]any{"definition": "d", "termSource": "INTERNAL"}),
					mcp("corpuser", fmt.Sprintf("urn:li:corpuser:u%d", i), "corpUserInfo", map[string]any{"active": true}))
			}
			if status, b := srv.call(t, "", "POST", "/aspects?action=ingestProposalBatch", map[string]any{"proposals": props}); status != 200 {
				t.Fatalf("ingest: %d %s", status, b)
			}

			const addTag = `mutation addTag($input: TagAssociationInput!) { addTag(input: $input) }`
			const addTerm = `mutation addTerm($input: TermAssociationInput!) { addTerm(input: $input) }`
			const addOwner = `mutation addOwner($input: AddOwnerInput!) { addOwner(input: $input) }`
			var wg sync.WaitGroup
			for i := range n {
				for _, m := range []struct{ query, field string }{
					{addTag, "tagUrn"}, {addTerm, "termUrn"}, {addOwner, "ownerUrn"},
				} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						in := map[string]any{"resourceUrn": dataset}
						switch m.field {
						case "tagUrn":
							in[m.field] = fmt.Sprintf("urn:li:tag:t%d", i)
						case "termUrn":
							in[m.field] = fmt.Sprintf("urn:li:glossaryTerm:g%d", i)
						default:
							in[m.field], in["ownerEntityType"], in["type"] = fmt.Sprintf("urn:li:corpuser:u%d", i), "CORP_USER", "TECHNICAL_OWNER"
						}
						if r := srv.gql(t, m.query, map[string]any{"input": in}); len(r.Errors) > 0 {
							t.Errorf("%s %v: %v", m.field, in[m.field], r.Errors)
						}
					}()
				}
			}
			wg.Wait()

			status, b := srv.call(t, "", "GET", "/entitiesV2/"+pathEscape(dataset)+"?aspects=List(globalTags,glossaryTerms,ownership)", nil)
			if status != 200 {
				t.Fatalf("read back: %d %s", status, b)
			}
			var got struct {
				Aspects struct {
					GlobalTags struct {
						Value struct{ Tags []struct{ Tag string } }
					} `json:"globalTags"`
					GlossaryTerms struct {
						Value struct{ Terms []struct{ URN string } }
					} `json:"glossaryTerms"`
					Ownership struct {
						Value struct{ Owners []struct{ Owner string } }
					} `json:"ownership"`
				}
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			var tags, terms, owners []string
			for _, x := range got.Aspects.GlobalTags.Value.Tags {
				tags = append(tags, x.Tag)
			}
			for _, x := range got.Aspects.GlossaryTerms.Value.Terms {
				terms = append(terms, x.URN)
			}
			for _, x := range got.Aspects.Ownership.Value.Owners {
				owners = append(owners, x.Owner)
			}
			for i := range n {
				for _, c := range []struct {
					have []string
					want string
				}{
					{tags, fmt.Sprintf("urn:li:tag:t%d", i)},
					{terms, fmt.Sprintf("urn:li:glossaryTerm:g%d", i)},
					{owners, fmt.Sprintf("urn:li:corpuser:u%d", i)},
				} {
					if !slices.Contains(c.have, c.want) {
						t.Errorf("%s lost: have %v", c.want, c.have)
					}
				}
			}
		})
	}
}
