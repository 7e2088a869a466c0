package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestGraphQLLinksAndDeprecation runs the documentation tab's addLink and
// removeLink and the bulk deprecation of the search page, exactly as the web
// app sends them, and reads the result back through the dataset page.
func TestGraphQLLinksAndDeprecation(t *testing.T) {
	const (
		a       = "urn:li:dataset:(urn:li:dataPlatform:hive,links_a,PROD)"
		b       = "urn:li:dataset:(urn:li:dataPlatform:hive,links_b,PROD)"
		missing = "urn:li:dataset:(urn:li:dataPlatform:hive,links_missing,PROD)"
	)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			for _, u := range []string{a, b} {
				srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(u, "datasetProperties", map[string]any{"name": u})})
			}
			ui := loadUIOps(t, srv)
			fail := func(name string, vars map[string]any, want string) {
				t.Helper()
				r := srv.gql(t, ui.docs.text(t, name), vars)
				if len(r.Errors) == 0 || !strings.Contains(fmt.Sprint(r.Errors[0]["message"]), want) {
					t.Errorf("%s %v: errors %v, want one saying %q", name, vars, r.Errors, want)
				}
			}
			links := func(urn string) []string {
				t.Helper()
				d := ui.run(t, "getDataset", map[string]any{"urn": urn})
				var out []string
				if m, _ := get(t, d, "dataset.institutionalMemory").(map[string]any); m != nil {
					for _, e := range m["elements"].([]any) {
						out = append(out, fmt.Sprintf("%s %s by %v", get(t, e, "url"), get(t, e, "description"), get(t, e, "created.actor")))
					}
				}
				return out
			}

			link := func(url, label string) map[string]any {
				return map[string]any{"input": map[string]any{"linkUrl": url, "label": label, "resourceUrn": a}}
			}
			ui.run(t, "addLink", link("https://wiki.example.com/orders", "Runbook"))
			ui.run(t, "addLink", link("https://wiki.example.com/orders", "Runbook again"))
			ui.run(t, "addLink", link("https://dash.example.com/1", "Dashboard"))
			want := "[https://wiki.example.com/orders Runbook by urn:li:corpuser:datahub https://dash.example.com/1 Dashboard by urn:li:corpuser:datahub]"
			if got := fmt.Sprint(links(a)); got != want {
				t.Errorf("links after adding = %s, want %s (a URL already there is not added again)", got, want)
			}
			fail("addLink", link("not a url", "x"), "is not a URL")
			fail("addLink", map[string]any{"input": map[string]any{"linkUrl": "https://x.example.com", "label": "x", "resourceUrn": missing}}, "does not exist")
			ui.run(t, "removeLink", map[string]any{"input": map[string]any{"linkUrl": "https://wiki.example.com/orders", "resourceUrn": a}})
			if got := fmt.Sprint(links(a)); got != "[https://dash.example.com/1 Dashboard by urn:li:corpuser:datahub]" {
				t.Errorf("links after removing = %s", got)
			}

			deprecate := func(urns ...string) map[string]any {
				var res []any
				for _, u := range urns {
					res = append(res, map[string]any{"resourceUrn": u})
				}
				return map[string]any{"input": map[string]any{"deprecated": true, "note": "use b2", "decommissionTime": 1893456000000,
					"resources": res, "replacement": b}}
			}
			fail("batchUpdateDeprecation", deprecate(a, missing), "does not exist")
			if d := ui.run(t, "getDataset", map[string]any{"urn": a}); get(t, d, "dataset.deprecation") != nil {
				t.Errorf("a batch with a missing entity wrote a deprecation: %v", get(t, d, "dataset.deprecation"))
			}
			ui.run(t, "batchUpdateDeprecation", deprecate(a, b))
			for _, u := range []string{a, b} {
				d := ui.run(t, "getDataset", map[string]any{"urn": u})
				if get(t, d, "dataset.deprecation.deprecated") != true || get(t, d, "dataset.deprecation.note") != "use b2" ||
					get(t, d, "dataset.deprecation.actor") != "urn:li:corpuser:datahub" || get(t, d, "dataset.deprecation.replacement.urn") != b {
					t.Errorf("deprecation of %s = %v", u, get(t, d, "dataset.deprecation"))
				}
			}
		})
	}
}
