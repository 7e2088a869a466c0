package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// testApp is the small web app the browser tests serve with --ui: it sends
// the requests DataHub's app sends to sign in, up and out.
var testApp = filepath.Join("testdata", "webapp")

// startUIServer starts a server with authentication on, serving the test app.
func startUIServer(t *testing.T, args ...string) *authServer {
	t.Helper()
	return startAuthServer(t, append([]string{"--ui", testApp}, args...)...)
}

// fillForm types values into the test app's form fields and submits it.
func fillForm(t *testing.T, ctx context.Context, values map[string]string) {
	t.Helper()
	var acts []chromedp.Action[chromedp.Void]
	for id, v := range values {
		acts = append(acts, chromedp.WaitVisible(chromedp.CSS("#"+id)), chromedp.SetValue(chromedp.CSS("#"+id), v))
	}
	acts = append(acts, chromedp.Click(chromedp.CSS("#submit")))
	if err := chromedp.Do(ctx, acts...); err != nil {
		t.Fatalf("fill form: %v", err)
	}
}

// waitFor evaluates expr until it yields a non-null value, across page
// loads (a poll inside the page ends when the page navigates away).
func waitFor[T any](t *testing.T, ctx context.Context, what, expr string) T {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[*T](expr))
		if err == nil && v != nil {
			return *v
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// signedInAs waits for the test app's home page to say who is signed in.
func signedInAs(t *testing.T, ctx context.Context, srv *authServer) string {
	t.Helper()
	return waitFor[string](t, ctx, "the home page", `(() => {
		const e = document.getElementById("whoami") || document.getElementById("error");
		return e && e.textContent ? (e.id === "error" ? "error: " : "") + e.textContent : null;
	})()`)
}

// pageGraphQL runs a GraphQL request from the current page with its
// cookies and returns the status and body.
func pageGraphQL(t *testing.T, ctx context.Context, query string) (int, string) {
	t.Helper()
	type answer struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
	q, _ := json.Marshal(query)
	r, err := chromedp.Run(ctx, chromedp.Evaluate[answer](`window.graphql(`+string(q)+`)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("graphql from the page: %v", err)
	}
	return r.Status, r.Body
}

// tagExists reports whether the tag id was created (has its properties),
// asking as the root user.
func tagExists(t *testing.T, s *authServer, id string) bool {
	t.Helper()
	status, b := s.call(t, bearer(s.admin), "GET", "/entitiesV2/"+pathEscape("urn:li:tag:"+id)+"?aspects=List(tagProperties)", nil)
	if status != http.StatusOK && status != http.StatusNotFound {
		t.Fatalf("read tag %s: %d %s", id, status, b)
	}
	return strings.Contains(string(b), `"tagProperties"`)
}

// TestBrowserSignIn signs in through the app's form, uses the cookie
// session for GraphQL, has a page of another origin try a write with it,
// and signs out.
func TestBrowserSignIn(t *testing.T) {
	ctx := newBrowser(t)
	s := startUIServer(t)

	// An app route without a session: the app sends the browser to /login.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/dataset/x")); err != nil {
		t.Fatal(err)
	}
	fillForm(t, ctx, map[string]string{"username": "datahub", "password": testRootPassword})
	if who := signedInAs(t, ctx, s); who != "urn:li:corpuser:datahub" {
		t.Fatalf("after signing in the app shows %q", who)
	}
	if loc := mustRun(t, ctx, chromedp.Location()); loc != s.URL+"/dataset/x" {
		t.Errorf("after signing in the browser is at %s, want back at /dataset/x", loc)
	}
	// The session cookie is out of the page's reach; the actor cookie is not.
	cookies := mustRun(t, ctx, chromedp.Evaluate[string](`document.cookie`))
	if strings.Contains(cookies, "PLAY_SESSION") || !strings.Contains(cookies, "actor=urn:li:corpuser:datahub") {
		t.Errorf("the page sees the cookies %q", cookies)
	}

	// The cookie authenticates GraphQL: the button's query answers.
	mustRun(t, ctx, chromedp.Click(chromedp.CSS("#me")))
	result, err := chromedp.Run(ctx, chromedp.Poll[string](`document.getElementById("result").textContent || null`,
		chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil || !strings.HasPrefix(result, "200 ") || !strings.Contains(result, `"urn":"urn:li:corpuser:datahub"`) {
		t.Fatalf("me query from the app: %q, %v", result, err)
	}

	// A page of another origin (same site: another port) sends a write the
	// browser accompanies with the session cookie. It is refused; the same
	// write from the app's own page is not.
	const write = `mutation { createTag(input: {id: "%s", name: "%s"}) }`
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		body, _ := json.Marshal(map[string]string{"query": fmt.Sprintf(write, "forged", "forged")})
		fmt.Fprintf(w, `<!DOCTYPE html><title>elsewhere</title><script>
fetch(%q, {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: %q})
  .finally(() => { document.title = "sent"; });
</script>`, s.URL+"/api/v2/graphql", body)
	}))
	defer evil.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(evil.URL)); err != nil {
		t.Fatal(err)
	}
	waitFor[bool](t, ctx, "the page of another origin", `document.title === "sent" || null`)
	if tagExists(t, s, "forged") {
		t.Errorf("a page of another origin wrote with the session cookie")
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	signedInAs(t, ctx, s)
	if status, body := pageGraphQL(t, ctx, fmt.Sprintf(write, "own", "own")); status != 200 || strings.Contains(body, "errors") {
		t.Fatalf("the app's own write: %d %s", status, body)
	}
	if !tagExists(t, s, "own") {
		t.Errorf("the app's own write did not store the tag")
	}

	// Signing out ends the session: back at the sign-in page, GraphQL refuses.
	mustRun(t, ctx, chromedp.Click(chromedp.CSS("#logout")))
	waitFor[bool](t, ctx, "the sign-in page after signing out", `(location.pathname === "/login" && !!document.getElementById("username")) || null`)
	if status, body := pageGraphQL(t, ctx, `{ me { corpUser { urn } } }`); status != 401 {
		t.Errorf("GraphQL after signing out: %d %s", status, body)
	}
	if cookies := mustRun(t, ctx, chromedp.Evaluate[string](`document.cookie`)); strings.Contains(cookies, "actor=") {
		t.Errorf("the actor cookie survived signing out: %q", cookies)
	}
}

// TestBrowserInviteAndReset signs a new user up with an invite link, then
// resets their password with a reset link, through the app's forms.
func TestBrowserInviteAndReset(t *testing.T) {
	ctx := newBrowser(t)
	s := startUIServer(t)
	var invite struct{ InviteToken string }
	s.mustGQL(t, s.admin, `mutation { createInviteToken(input: {}) { inviteToken } }`, nil, "createInviteToken", &invite)

	const user = "urn:li:corpuser:ada@example.com"
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/signup?invite_token="+invite.InviteToken)); err != nil {
		t.Fatal(err)
	}
	fillForm(t, ctx, map[string]string{"fullName": "Ada Lovelace", "email": "ada@example.com", "title": "Analyst", "password": "first password"})
	if who := signedInAs(t, ctx, s); who != user {
		t.Fatalf("after signing up the app shows %q", who)
	}
	if status, body := pageGraphQL(t, ctx, `{ me { corpUser { urn properties { fullName email title } } } }`); status != 200 ||
		!strings.Contains(body, `"fullName":"Ada Lovelace"`) || !strings.Contains(body, `"title":"Analyst"`) {
		t.Fatalf("the new user's own view: %d %s", status, body)
	}
	mustRun(t, ctx, chromedp.Click(chromedp.CSS("#logout")))
	waitFor[bool](t, ctx, "the sign-in page after signing out", `(location.pathname === "/login" && !!document.getElementById("username")) || null`)

	var reset struct{ ResetToken string }
	s.mustGQL(t, s.admin, `mutation($u: String!) { createNativeUserResetToken(input: {userUrn: $u}) { resetToken } }`,
		map[string]any{"u": user}, "createNativeUserResetToken", &reset)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/reset?reset_token="+reset.ResetToken)); err != nil {
		t.Fatal(err)
	}
	fillForm(t, ctx, map[string]string{"email": "ada@example.com", "password": "second password"})
	if who := signedInAs(t, ctx, s); who != user {
		t.Fatalf("after the reset the app shows %q", who)
	}
	// The new password works, the old one and the used link do not.
	s.login(t, "ada@example.com", "second password")
	if st, b := s.call(t, "", "POST", "/logIn", map[string]string{"username": "ada@example.com", "password": "first password"}); st != 401 {
		t.Errorf("old password: %d %s", st, b)
	}
	if st, b := s.call(t, "", "POST", "/resetNativeUserCredentials", map[string]string{
		"email": "ada@example.com", "password": "third password", "resetToken": reset.ResetToken}); st != 400 {
		t.Errorf("reset link used twice: %d %s", st, b)
	}
}

// plainGet fetches path without following redirects or checking the API
// contract (the app's files are not part of it).
func plainGet(t *testing.T, base, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestUIServesApp checks what --ui answers without a browser: the app's
// files with their caching, index.html for the app's routes, and the API's
// own answers for API paths.
func TestUIServesApp(t *testing.T) {
	s := startUIServer(t)
	cases := []struct {
		name, path        string
		header            map[string]string
		status            int
		contains, cache   string
		encoding, typePfx string
	}{
		{name: "index", path: "/", status: 200, contains: "catalogd test app", cache: "no-cache", typePfx: "text/html"},
		{name: "app route", path: "/dataset/urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)/Schema", status: 200, contains: "catalogd test app", cache: "no-cache"},
		{name: "hashed asset", path: "/assets/app-7d41e0b5.js", status: 200, contains: "actor", cache: "public, max-age=31536000, immutable", typePfx: "text/javascript"},
		{name: "gzipped asset", path: "/assets/app-7d41e0b5.js", header: map[string]string{"Accept-Encoding": "gzip"}, status: 200, encoding: "gzip"},
		{name: "missing asset falls back to the app", path: "/assets/nope.js", status: 200, contains: "catalogd test app"},
		{name: "no escape from the directory", path: "/../ui_test.go", status: 200, contains: "catalogd test app"},
		{name: "unknown API path", path: "/entitiesV2x", status: 200, contains: "catalogd test app"},
		{name: "API root is not the app's", path: "/openapi/v9/nothing", status: 401},
		{name: "API answers", path: "/health", status: 200, contains: "OK"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := plainGet(t, s.URL, c.path, c.header)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %.200s", resp.StatusCode, c.status, body)
			}
			if c.encoding != "" && resp.Header.Get("Content-Encoding") != c.encoding {
				t.Errorf("Content-Encoding %q, want %q", resp.Header.Get("Content-Encoding"), c.encoding)
			}
			if !strings.Contains(body, c.contains) {
				t.Errorf("body lacks %q: %.200s", c.contains, body)
			}
			if c.cache != "" && resp.Header.Get("Cache-Control") != c.cache {
				t.Errorf("Cache-Control %q, want %q", resp.Header.Get("Cache-Control"), c.cache)
			}
			if c.typePfx != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), c.typePfx) {
				t.Errorf("Content-Type %q, want %s...", resp.Header.Get("Content-Type"), c.typePfx)
			}
		})
	}
	if err := run(context.Background(), []string{"catalogd", "serve", "--ui", t.TempDir(), "--data-dir", t.TempDir()},
		func(string) string { return "" }, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "index.html") {
		t.Errorf("serving a directory without index.html: %v", err)
	}
}

// send sends a request with the given cookies and headers, not following
// redirects, and returns the response and its body.
func send(t *testing.T, method, url, body string, cookies []*http.Cookie, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	c := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestSessionCookies checks the cookie session's rules request by request:
// which cookies a sign-in sets, that both must agree, which writes count
// as cross-origin, and where /authenticate and the explorer send a browser.
func TestSessionCookies(t *testing.T) {
	s := startUIServer(t)
	login, _ := send(t, "POST", s.URL+"/logIn", `{"username":"datahub","password":"`+testRootPassword+`"}`, nil, nil)
	byName := map[string]*http.Cookie{}
	for _, c := range login.Cookies() {
		byName[c.Name] = c
	}
	sess, actor := byName["PLAY_SESSION"], byName["actor"]
	if sess == nil || actor == nil || !sess.HttpOnly || actor.HttpOnly || actor.Value != "urn:li:corpuser:datahub" ||
		sess.Path != "/" || sess.SameSite != http.SameSiteLaxMode || sess.MaxAge < 23*3600 {
		t.Fatalf("sign-in cookies: %+v", login.Cookies())
	}
	me := `{"query":"{ me { corpUser { urn } } }"}`
	write := `{"query":"mutation { createTag(input: {id: \"t1\", name: \"t1\"}) }"}`
	other := &http.Cookie{Name: "actor", Value: "urn:li:corpuser:someone"}
	cases := []struct {
		name    string
		body    string
		cookies []*http.Cookie
		header  map[string]string
		status  int
	}{
		{"both cookies", me, []*http.Cookie{sess, actor}, nil, 200},
		{"session cookie alone", me, []*http.Cookie{sess}, nil, 401},
		{"actor cookie of someone else", me, []*http.Cookie{sess, other}, nil, 401},
		{"forged session", me, []*http.Cookie{{Name: "PLAY_SESSION", Value: "x.y.z"}, actor}, nil, 401},
		{"write from the same origin", write, []*http.Cookie{sess, actor}, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": s.URL}, 200},
		{"write from another site", write, []*http.Cookie{sess, actor}, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"write from the same site, another origin", write, []*http.Cookie{sess, actor}, map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"write with a foreign Origin (older browser)", write, []*http.Cookie{sess, actor}, map[string]string{"Origin": "http://evil.example"}, 403},
		{"write without browser headers (a script)", write, []*http.Cookie{sess, actor}, nil, 200},
		{"bearer token from another site", write, nil, map[string]string{"Authorization": "Bearer " + s.admin, "Sec-Fetch-Site": "cross-site"}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := send(t, "POST", s.URL+"/api/v2/graphql", c.body, c.cookies, c.header)
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d: %.300s", resp.StatusCode, c.status, body)
			}
		})
	}
	// Another site cannot sign the browser in (login CSRF).
	resp, body := send(t, "POST", s.URL+"/logIn", `{"username":"datahub","password":"`+testRootPassword+`"}`, nil,
		map[string]string{"Sec-Fetch-Site": "cross-site"})
	if resp.StatusCode != 403 || len(resp.Cookies()) != 0 {
		t.Errorf("cross-site sign-in: %d %v %s", resp.StatusCode, resp.Cookies(), body)
	}

	redirects := []struct {
		name, path string
		cookies    []*http.Cookie
		location   string
	}{
		{"no session", "/authenticate?redirect_uri=%2Fsearch%3Fq%3Dx", nil, "/login?redirect_uri=%2Fsearch%3Fq%3Dx"},
		{"session", "/authenticate?redirect_uri=%2Fsearch%3Fq%3Dx", []*http.Cookie{sess, actor}, "/search?q=x"},
		{"another site", "/authenticate?redirect_uri=https%3A%2F%2Fevil.example%2F", []*http.Cookie{sess, actor}, "/"},
		{"scheme-relative", "/authenticate?redirect_uri=%2F%2Fevil.example", []*http.Cookie{sess, actor}, "/"},
		{"sign out", "/logOut", []*http.Cookie{sess, actor}, "/login"},
	}
	for _, c := range redirects {
		t.Run(c.name, func(t *testing.T) {
			resp, _ := send(t, "GET", s.URL+c.path, "", c.cookies, nil)
			if resp.StatusCode != 302 || resp.Header.Get("Location") != c.location {
				t.Errorf("%s: %d to %q, want 302 to %q", c.path, resp.StatusCode, resp.Header.Get("Location"), c.location)
			}
		})
	}

	// The explorer offers to sign in without a session, and says who is
	// signed in with one.
	_, page := send(t, "GET", s.URL+"/api/graphiql", "", nil, nil)
	if !strings.Contains(page, `id="signin"`) || !strings.Contains(page, "Authorization") || !strings.Contains(page, "catalogd token create") {
		t.Errorf("explorer without a session lacks the sign-in form or the token hint:\n%s", page)
	}
	_, page = send(t, "GET", s.URL+"/api/graphiql", "", []*http.Cookie{sess, actor}, nil)
	if strings.Contains(page, `id="signin"`) || !strings.Contains(page, "Signed in as <strong>urn:li:corpuser:datahub</strong>") {
		t.Errorf("explorer with a session:\n%s", page)
	}
}

// TestBrowserGraphiQLSignIn opens the explorer without a session, signs in
// from its page, and runs a query with the session.
func TestBrowserGraphiQLSignIn(t *testing.T) {
	ctx := newBrowser(t)
	s := startAuthServer(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/api/graphiql"), chromedp.WaitVisible(chromedp.CSS("#signin")),
		chromedp.SetValue(chromedp.CSS(`#signin input[name="username"]`), "datahub"),
		chromedp.SetValue(chromedp.CSS(`#signin input[name="password"]`), "wrong password"),
		chromedp.Click(chromedp.CSS(`#signin button`))); err != nil {
		t.Fatalf("sign-in form: %v\n%s", err, s.stderr)
	}
	if msg := waitFor[string](t, ctx, "the refusal", `document.getElementById("signin-error").textContent || null`); !strings.Contains(msg, "Invalid username or password") {
		t.Errorf("wrong password shows %q", msg)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#signin input[name="password"]`), testRootPassword),
		chromedp.Click(chromedp.CSS(`#signin button`))); err != nil {
		t.Fatal(err)
	}
	who := waitFor[string](t, ctx, "the signed-in page", `(document.getElementById("session") || {}).textContent || null`)
	if !strings.Contains(who, "urn:li:corpuser:datahub") {
		t.Errorf("after signing in the explorer shows %q", who)
	}
	const editor = `.graphiql-query-editor .CodeMirror`
	err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(editor)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector(`+"`"+editor+"`"+`).CodeMirror.setValue("{ me { corpUser { urn } } }")`),
		chromedp.Click(chromedp.CSS(`.graphiql-execute-button`)))
	if err != nil {
		t.Fatal(err)
	}
	result := waitFor[string](t, ctx, "the result", `(() => {
		const cm = document.querySelector(".graphiql-response .CodeMirror");
		const v = cm && cm.CodeMirror.getValue();
		return v && v.includes("corpUser") ? v : null;
	})()`)
	if !strings.Contains(result, `"urn": "urn:li:corpuser:datahub"`) {
		t.Errorf("result pane shows %s", result)
	}
}

// TestNativeUsers covers the native-user operations' rules through the API:
// who may create invite and reset tokens, what an invite token is worth
// once replaced, acceptRole, and who may edit a profile.
func TestNativeUsers(t *testing.T) {
	s := startAuthServer(t)
	reader, _ := s.cliToken(t, "reader")
	s.denied(t, reader, `mutation { createInviteToken(input: {}) { inviteToken } }`, nil, "createInviteToken")
	s.denied(t, reader, `{ getInviteToken(input: {}) { inviteToken } }`, nil, "getInviteToken")
	s.denied(t, reader, `mutation { createNativeUserResetToken(input: {userUrn: "urn:li:corpuser:datahub"}) { resetToken } }`, nil, "createNativeUserResetToken")

	type tok struct{ InviteToken string }
	var first, again, role tok
	s.mustGQL(t, s.admin, `{ getInviteToken(input: {}) { inviteToken } }`, nil, "getInviteToken", &first)
	s.mustGQL(t, s.admin, `{ getInviteToken(input: {}) { inviteToken } }`, nil, "getInviteToken", &again)
	if first.InviteToken == "" || again != first {
		t.Fatalf("getInviteToken twice: %q then %q", first.InviteToken, again.InviteToken)
	}
	// Invite tokens are never served by the read APIs.
	if st, b := s.call(t, bearer(s.admin), "POST", "/entities?action=searchAcrossEntities", map[string]any{"input": "*", "start": 0, "count": 100}); st != 200 || strings.Contains(string(b), first.InviteToken) {
		t.Errorf("search shows the invite token: %d %s", st, b)
	}
	var replaced tok
	s.mustGQL(t, s.admin, `mutation { createInviteToken(input: {}) { inviteToken } }`, nil, "createInviteToken", &replaced)
	signUp := func(email, invite string) (int, []byte) {
		return s.call(t, "", "POST", "/signUp", map[string]string{"fullName": "N", "email": email, "title": "T", "password": "long enough", "inviteToken": invite})
	}
	if st, b := signUp("old@example.com", first.InviteToken); st != 400 {
		t.Errorf("sign-up with a replaced invite: %d %s", st, b)
	}
	for _, c := range []struct {
		name, email string
		status      int
	}{{"not an email", "not-an-email", 400}, {"the root user's name", "datahub", 400}, {"new", "new@example.com", 200}, {"twice", "new@example.com", 409}} {
		if st, b := signUp(c.email, replaced.InviteToken); st != c.status {
			t.Errorf("sign-up %s: %d, want %d: %s", c.name, st, c.status, b)
		}
	}

	// An invite token for a role grants it to whoever accepts it.
	const roleURN = "urn:li:dataHubRole:Editor"
	s.mustGQL(t, s.admin, `mutation($r: String) { createInviteToken(input: {roleUrn: $r}) { inviteToken } }`, map[string]any{"r": roleURN}, "createInviteToken", &role)
	if st, b := signUp("editor@example.com", role.InviteToken); st != 200 {
		t.Fatalf("sign-up with a role invite: %d %s", st, b)
	}
	editor := s.login(t, "editor@example.com", "long enough")
	s.mustGQL(t, editor, `mutation($t: String!) { acceptRole(input: {inviteToken: $t}) }`, map[string]any{"t": role.InviteToken}, "", nil)
	st, b := s.call(t, bearer(s.admin), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:editor@example.com")+"?aspects=List(roleMembership)", nil)
	if st != 200 || !strings.Contains(string(b), roleURN) {
		t.Errorf("role after acceptRole: %d %s", st, b)
	}

	// A user edits their own profile; another user may not.
	const update = `mutation($u: String!) { updateCorpUserProperties(urn: $u, input: {title: "Editor in chief", slack: "@ed"}) { urn editableProperties { title slack } } }`
	var out struct {
		EditableProperties struct{ Title, Slack string }
	}
	s.mustGQL(t, editor, update, map[string]any{"u": "urn:li:corpuser:editor@example.com"}, "updateCorpUserProperties", &out)
	if out.EditableProperties.Title != "Editor in chief" || out.EditableProperties.Slack != "@ed" {
		t.Errorf("own profile after the update: %+v", out)
	}
	s.denied(t, editor, update, map[string]any{"u": "urn:li:corpuser:new@example.com"}, "updateCorpUserProperties")
	s.mustGQL(t, s.admin, update, map[string]any{"u": "urn:li:corpuser:new@example.com"}, "updateCorpUserProperties", nil)

	// Reset tokens are for native users only.
	s.cliToken(t, "external")
	if r := s.gql(t, s.admin, `mutation { createNativeUserResetToken(input: {userUrn: "urn:li:corpuser:external"}) { resetToken } }`, nil); len(r.Errors) == 0 {
		t.Errorf("reset token of a user without a password: %+v", r.Data)
	}
}

// TestTrack records the web app's analytics events as usage events, refuses
// the server's own event types, and drops events when analytics is off.
func TestTrack(t *testing.T) {
	for _, c := range []struct {
		name     string
		env      map[string]string
		recorded bool
	}{{"on", nil, true}, {"off", map[string]string{"DATAHUB_ANALYTICS_ENABLED": "false"}, false}} {
		t.Run(c.name, func(t *testing.T) {
			s := startAuthServerEnv(t, c.env)
			reader, _ := s.cliToken(t, "reader")
			const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,tracked,PROD)"
			if st, b := s.call(t, bearer(reader), "POST", "/track", map[string]any{"type": "EntityViewEvent", "entityUrn": ds, "entityType": "dataset"}); st != 200 {
				t.Fatalf("track: %d %s", st, b)
			}
			for _, forged := range []string{"LogInEvent", "EntityEvent", "", "not a type"} {
				if st, b := s.call(t, bearer(reader), "POST", "/track", map[string]any{"type": forged}); st != 400 {
					t.Errorf("track %q: %d %s", forged, st, b)
				}
			}
			if st, b := s.call(t, "", "POST", "/track", map[string]any{"type": "PageViewEvent"}); st != 401 {
				t.Errorf("track without credentials: %d %s", st, b)
			}
			st, b := s.call(t, bearer(s.admin), "POST", "/openapi/v1/events/audit/search", map[string]any{"eventTypes": []string{"EntityViewEvent"}})
			if st != 200 {
				t.Fatalf("search: %d %s", st, b)
			}
			got := strings.Contains(string(b), ds) && strings.Contains(string(b), "urn:li:corpuser:reader")
			if got != c.recorded {
				t.Errorf("event recorded %v, want %v: %s", got, c.recorded, b)
			}
		})
	}
}
