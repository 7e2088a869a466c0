package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// dataHubAppDir is a build of DataHub's web app (see the README):
// CATALOGD_TEST_UI_DIR, by default ui/dist beside the project like the
// samples; browser tests of the real app skip without it.
func dataHubAppDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CATALOGD_TEST_UI_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "ui", "dist")
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Skipf("DataHub's web app not built at %s: %v", dir, err)
	}
	return dir
}

// TestBrowserDataHubSearchPage opens DataHub's own web app, served by
// catalogd with the samples loaded, on the search page: it must show the
// results with the filters by DataHub's names and the browse sidebar, whose
// entity type, platform and folders open as a user clicks them.
func TestBrowserDataHubSearchPage(t *testing.T) {
	app := dataHubAppDir(t)
	ctx := newBrowser(t)
	srv := startServer(t, "--ui", app)
	replaySamples(t, srv)
	// The caller has dismissed the app's tours, which would cover the page.
	var states []any
	for _, id := range []string{"global-welcome-to-datahub", "search-results-filters", "search-results-filters-v2-intro",
		"search-results-advanced-search", "search-results-browse-sidebar", "search-results-edit-button"} {
		states = append(states, map[string]any{"id": "urn:li:corpuser:datahub-" + id, "properties": []any{map[string]any{"key": "state", "value": "COMPLETE"}}})
	}
	srv.gqlData(t, `mutation($in: BatchUpdateStepStatesInput!) { batchUpdateStepStates(input: $in) { results { succeeded } } }`,
		map[string]any{"in": map[string]any{"states": states}})

	// Without authentication any caller is datahub; the app only needs to
	// see the actor cookie to consider itself signed in.
	mustRun(t, ctx, chromedp.Navigate(srv.URL+"/robots.txt"))
	mustRun(t, ctx, chromedp.Evaluate[any](`document.cookie = "actor=urn:li:corpuser:datahub; path=/"`))
	mustRun(t, ctx, chromedp.Navigate(srv.URL+"/search?query=customer"))

	text := func(what, js string) string {
		t.Helper()
		return waitFor[string](t, ctx, what, js)
	}
	shown := text("the result count", `(() => { const m = document.body.innerText.match(/Showing \d+ - \d+ of [1-9]\d* results/); return m ? m[0] : null })()`)
	t.Logf("search page: %s", shown)
	for _, label := range []string{"Platform", "Owned By", "Tag", "Glossary Term"} {
		text("the filter "+label, `[...document.querySelectorAll("button, [role=button], div")].some(e => e.childElementCount <= 3 && e.innerText && e.innerText.trim() === `+jsString(label)+`) ? "yes" : null`)
	}
	// The sidebar (the page's left column) lists the entity types found;
	// opening Datasets lists their platforms, opening one lists its folders.
	inSidebar := func(label string) string {
		return `[...document.querySelectorAll("*")].filter(e => e.childElementCount === 0 && e.textContent.trim() === ` + jsString(label) +
			` && e.getBoundingClientRect().left < 280 && e.getBoundingClientRect().top > 100)`
	}
	for _, step := range []struct{ open, then string }{{"", "Datasets"}, {"Datasets", "PostgreSQL"}, {"PostgreSQL", "pagila"}} {
		if step.open != "" {
			// A node opens by its arrow, the last icon of its row.
			mustRun(t, ctx, chromedp.Evaluate[any](inSidebar(step.open)+`.forEach(e => {
				let row = e;
				while (row.parentElement && row.querySelectorAll("svg").length === 0) row = row.parentElement;
				const icons = row.querySelectorAll("svg");
				icons[icons.length - 1].dispatchEvent(new MouseEvent("click", {bubbles: true}));
			})`))
		}
		text("the sidebar's "+step.then, `(`+inSidebar(step.then)+`.length > 0 && "yes") || null`)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
