package main

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is where Debian's chromium package puts the browser.
const chromiumPath = "/usr/bin/chromium"

// newBrowser starts a headless Chromium with a fresh profile for one test
// and returns a tab's context, skipping the test when there is no browser.
// The flags keep the browser from calling any service on the internet, so
// a page that needs one fails here as it would offline.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("browser tests need Chromium at %s (apt-get install -y chromium): %v", chromiumPath, err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(bcancel)
	// An empty step list starts the browser, so a failure to start is
	// reported here rather than in the first real step.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return bctx
}

// assertSameOrigin fails the test if the page loaded any resource from
// another origin: the explorer and the docs must work with no internet.
func assertSameOrigin(t *testing.T, ctx context.Context, origin string) {
	t.Helper()
	urls, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(e => e.name)`))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, origin+"/") {
			t.Errorf("page loaded %s from another origin", u)
		}
	}
}

// mustRun runs one browser action and returns its value, failing the test
// on an error.
func mustRun[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBrowserGraphiQL(t *testing.T) {
	ctx := newBrowser(t)
	srv := startServer(t)

	// The explorer renders from the embedded bundle: editor, run button.
	const editor = `.graphiql-query-editor .CodeMirror`
	err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/api/graphiql"),
		chromedp.WaitVisible(chromedp.CSS(editor)),
		chromedp.WaitVisible(chromedp.CSS(`.graphiql-execute-button`)),
	)
	if err != nil {
		t.Fatalf("GraphiQL did not render: %v\n%s", err, srv.stderr)
	}
	assertSameOrigin(t, ctx, srv.URL)

	// The query runs only against a real GraphQL endpoint, which is served
	// by another part of catalogd.
	resp, err := http.Post(srv.URL+"/api/graphql", "application/json", strings.NewReader(`{"query":"{ __typename }"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Skipf("POST /api/graphql answers %d: not served yet, so the explorer cannot run a query", resp.StatusCode)
	}

	// CodeMirror 5 keeps its instance on the editor element; setting the
	// text there is what typing does, without depending on key bindings.
	err = chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector(`+"`"+editor+"`"+`).CodeMirror.setValue("{ __typename }")`),
		chromedp.Click(chromedp.CSS(`.graphiql-execute-button`)),
	)
	if err != nil {
		t.Fatalf("running the query: %v\n%s", err, srv.stderr)
	}
	result, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
		const cm = document.querySelector(".graphiql-response .CodeMirror");
		const v = cm && cm.CodeMirror.getValue();
		return v && v.includes("__typename") ? v : null;
	})()`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatalf("running the query: %v\n%s", err, srv.stderr)
	}
	if !strings.Contains(result, `"data"`) || !strings.Contains(result, `"__typename": "Query"`) {
		t.Errorf("result pane shows %s", result)
	}
}

func TestBrowserRestliDocs(t *testing.T) {
	ctx := newBrowser(t)
	srv := startServer(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/restli/docs"), chromedp.WaitVisible(chromedp.CSS(`nav`))); err != nil {
		t.Fatalf("docs page: %v\n%s", err, srv.stderr)
	}
	title := mustRun(t, ctx, chromedp.Title())
	nav := mustRun(t, ctx, chromedp.Text(chromedp.CSS(`nav`)))
	assertSameOrigin(t, ctx, srv.URL)
	if !strings.Contains(title, "REST documentation") {
		t.Errorf("title %q", title)
	}
	for _, want := range []string{"action=ingestProposal", "GET /entitiesV2/{urn}", "GET /entitiesV2"} {
		if !strings.Contains(nav, want) {
			t.Errorf("index lacks %q:\n%s", want, nav)
		}
	}

	// Follow the index link to the ingestProposal action, then its request
	// schema: each lands on a section that says what it should.
	mustRun(t, ctx, chromedp.Click(chromedp.CSS(`nav a[href="#op-aspectsAction-ingestProposal"]`)))
	hash := mustRun(t, ctx, chromedp.Evaluate[string](`location.hash`))
	top := mustRun(t, ctx, chromedp.Evaluate[float64](`document.getElementById("op-aspectsAction-ingestProposal").getBoundingClientRect().top`))
	section := mustRun(t, ctx, chromedp.Text(chromedp.CSS(`#op-aspectsAction-ingestProposal`)))
	if hash != "#op-aspectsAction-ingestProposal" || top < -2 || top > 200 {
		t.Errorf("after the click: hash %q, section top at %vpx", hash, top)
	}
	for _, want := range []string{"POST /aspects?action=ingestProposal", "IngestProposalRequest", "proposal"} {
		if !strings.Contains(section, want) {
			t.Errorf("action section lacks %q:\n%s", want, section)
		}
	}
	mustRun(t, ctx, chromedp.Click(chromedp.CSS(`#op-aspectsAction-ingestProposal a[href="#schema-IngestProposalRequest"]`)))
	hash = mustRun(t, ctx, chromedp.Evaluate[string](`location.hash`))
	schema := mustRun(t, ctx, chromedp.Text(chromedp.CSS(`#schema-IngestProposalRequest`)))
	if hash != "#schema-IngestProposalRequest" || !strings.Contains(schema, "MetadataChangeProposal") {
		t.Errorf("schema link: hash %q, section %q", hash, schema)
	}

	// The entitiesV2 GET has its parameters table.
	op := mustRun(t, ctx, chromedp.Text(chromedp.CSS(`#op-getEntityV2`)))
	for _, want := range []string{"GET /entitiesV2/{urn}", "Parameters", "urn", "aspects", "EntityResponse"} {
		if !strings.Contains(op, want) {
			t.Errorf("entitiesV2 GET section lacks %q:\n%s", want, op)
		}
	}
}
