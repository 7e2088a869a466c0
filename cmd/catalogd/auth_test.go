package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catalogd/catalogd/internal/contract"
	"github.com/catalogd/catalogd/openapi"
	"github.com/golang-jwt/jwt/v5"
)

// Credentials of the auth-enabled test servers.
const (
	testSigningKey   = "test-signing-key-not-for-production"
	testRootPassword = "root-password-for-tests"
	testSystemSecret = "test-system-secret"
)

// authServer is a server with authentication on and the tokens of its users.
type authServer struct {
	*testServer
	dataDir  string
	storeArg []string // --store DSN when not the SQLite file in dataDir
	env      map[string]string
	admin    string // session token of the root user
}

// startAuthServer starts a server with authentication on, fixed secrets
// and the root user logged in.
func startAuthServer(t *testing.T, args ...string) *authServer {
	t.Helper()
	return startAuthServerEnv(t, nil, args...)
}

// startAuthServerEnv is startAuthServer with more environment variables.
func startAuthServerEnv(t *testing.T, more map[string]string, args ...string) *authServer {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{
		"DATAHUB_TOKEN_SERVICE_SIGNING_KEY": testSigningKey,
		"CATALOGD_ROOT_PASSWORD":            testRootPassword,
		"DATAHUB_SYSTEM_CLIENT_SECRET":      testSystemSecret,
	}
	maps.Copy(env, more)
	srv := startServerEnv(t, env, append([]string{"--auth=true", "--data-dir", dir}, args...)...)
	s := &authServer{testServer: srv, dataDir: dir, env: env}
	if i := slices.Index(args, "--store"); i >= 0 {
		s.storeArg = args[i : i+2]
	}
	s.admin = s.login(t, "datahub", testRootPassword)
	return s
}

// login returns a session token, failing the test on any other answer.
func (s *authServer) login(t testing.TB, user, password string) string {
	t.Helper()
	status, b := s.call(t, "", "POST", "/logIn", map[string]string{"username": user, "password": password})
	if status != 200 {
		t.Fatalf("login %s: %d %s", user, status, b)
	}
	var out struct {
		AccessToken string `json:"accessToken"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.AccessToken == "" {
		t.Fatalf("login %s: %s", user, b)
	}
	return out.AccessToken
}

// cliToken creates a personal token with "catalogd token create" on the
// server's store, returning the token and its id.
func (s *authServer) cliToken(t testing.TB, user string) (token, id string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"catalogd", "token", "create", "--user", user, "--data-dir", s.dataDir}, s.storeArg...),
		func(k string) string { return s.env[k] }, &stdout, &stderr)
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`token ([0-9a-f]{64}) for`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("token create printed no id: %s", stderr.String())
	}
	return strings.TrimSpace(stdout.String()), m[1]
}

// call sends a request with the given Authorization header value ("" for
// none); body is JSON-encoded unless it is []byte.
func (s *testServer) call(t testing.TB, authorization, method, path string, body any) (int, []byte) {
	t.Helper()
	status, b, _ := s.callH(t, authorization, method, path, body)
	return status, b
}

func (s *testServer) callH(t testing.TB, authorization, method, path string, body any) (int, []byte, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, ok := body.([]byte)
		if !ok {
			var err error
			if b, err = json.Marshal(body); err != nil {
				t.Fatal(err)
			}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "catalogd-test/1.0")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

func bearer(token string) string { return "Bearer " + token }

// signed mints a token with the server's key and the given claims.
func signed(t testing.TB, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(testSigningKey))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const walkDataset = "urn:li:dataset:(urn:li:dataPlatform:hive,auth.walk,PROD)"

// walkRun is the ingestion run the route walk describes and rolls back.
const walkRun = "auth-walk-run"

// mcp is a proposal writing an aspect value.
func mcp(entityType, urn, aspect string, value any) map[string]any {
	b, _ := json.Marshal(value)
	return map[string]any{"entityType": entityType, "entityUrn": urn, "changeType": "UPSERT", "aspectName": aspect,
		"aspect": map[string]any{"value": string(b), "contentType": "application/json"}}
}

// routeCase is one request of the route walk.
type routeCase struct {
	method, path string // path with a concrete URN and query
	body         any
	// privileged routes (writes, admin operations) answer 403 to a reader.
	privileged bool
	// ok lists statuses other than 2xx that count as success for a caller
	// allowed in (e.g. 405 for GET on GraphQL, 400 for an action catalogd
	// documents but rejects).
	ok []int
}

// routeCases has a sample request for every operation of openapi.yaml,
// keyed as the walk enumerates them.
func routeCases() map[string]routeCase {
	ds := walkDataset
	enc := pathEscape(ds)
	del := func(n string) string {
		return fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,auth.delete%s,PROD)", n)
	}
	snapshot := map[string]any{"com.linkedin.metadata.snapshot.DatasetSnapshot": map[string]any{
		"urn": ds, "aspects": []any{map[string]any{"com.linkedin.common.Status": map[string]any{"removed": false}}}}}
	restore := map[string]any{"urn": ds}
	cases := map[string]routeCase{
		"GET /api/graphiql":     {method: "GET", path: "/api/graphiql"},
		"GET /api/graphql":      {method: "GET", path: "/api/graphql", ok: []int{405}},
		"GET /aspects/{urn}":    {method: "GET", path: "/aspects/" + enc + "?aspect=status&version=0"},
		"GET /config":           {method: "GET", path: "/config"},
		"GET /entities/{urn}":   {method: "GET", path: "/entities/" + enc},
		"GET /entitiesV2":       {method: "GET", path: "/entitiesV2?ids=List(" + enc + ")"},
		"GET /entitiesV2/{urn}": {method: "GET", path: "/entitiesV2/" + enc},
		"GET /health":           {method: "GET", path: "/health"},
		"GET /metrics":          {method: "GET", path: "/metrics", privileged: true},
		"GET /openapi.json":     {method: "GET", path: "/openapi.json"},
		"GET /relationships":    {method: "GET", path: "/relationships?direction=OUTGOING&urn=" + enc + "&types=OwnedBy"},
		"GET /restli/docs":      {method: "GET", path: "/restli/docs"},
		"POST /api/gms/operations?action=restoreIndices": {method: "POST", path: "/api/gms/operations?action=restoreIndices", body: restore, privileged: true},
		"POST /api/graphql":    {method: "POST", path: "/api/graphql", body: map[string]any{"query": "{ me { corpUser { urn } } }"}},
		"POST /api/v2/graphql": {method: "POST", path: "/api/v2/graphql", body: map[string]any{"query": "{ me { corpUser { urn } } }"}},
		"POST /aspects?action=getTimeseriesAspectValues": {method: "POST", path: "/aspects?action=getTimeseriesAspectValues",
			body: map[string]any{"urn": ds, "entity": "dataset", "aspect": "datasetProfile"}},
		"POST /aspects?action=ingestProposal": {method: "POST", path: "/aspects?action=ingestProposal", privileged: true,
			body: map[string]any{"proposal": mcp("dataset", ds, "status", map[string]any{"removed": false})}},
		"POST /aspects?action=ingestProposalBatch": {method: "POST", path: "/aspects?action=ingestProposalBatch", privileged: true,
			body: map[string]any{"proposals": []any{mcp("dataset", ds, "status", map[string]any{"removed": false})}}},
		"POST /aspects?action=restoreIndices": {method: "POST", path: "/aspects?action=restoreIndices", body: restore, privileged: true},
		"POST /entities?action=autocomplete":  {method: "POST", path: "/entities?action=autocomplete", body: map[string]any{"query": "auth", "entity": "dataset", "limit": 5}},
		"POST /entities?action=batchIngest": {method: "POST", path: "/entities?action=batchIngest", privileged: true,
			body: map[string]any{"entities": []any{map[string]any{"value": snapshot}}}},
		"POST /entities?action=browse":               {method: "POST", path: "/entities?action=browse", body: map[string]any{"path": "/", "entity": "dataset", "start": 0, "limit": 10}},
		"POST /entities?action=delete":               {method: "POST", path: "/entities?action=delete", privileged: true, body: map[string]any{"urn": del("restli")}},
		"POST /entities?action=ingest":               {method: "POST", path: "/entities?action=ingest", privileged: true, body: map[string]any{"entity": map[string]any{"value": snapshot}}},
		"POST /entities?action=listUrns":             {method: "POST", path: "/entities?action=listUrns", body: map[string]any{"entity": "dataset", "start": 0, "count": 10}},
		"POST /entities?action=exists":               {method: "POST", path: "/entities?action=exists", body: map[string]any{"urn": ds}},
		"POST /entities?action=search":               {method: "POST", path: "/entities?action=search", body: map[string]any{"input": "auth", "entity": "dataset", "start": 0, "count": 10}},
		"POST /entities?action=searchAcrossEntities": {method: "POST", path: "/entities?action=searchAcrossEntities", body: map[string]any{"input": "auth", "start": 0, "count": 10}},
		"POST /gms/operations?action=restoreIndices": {method: "POST", path: "/gms/operations?action=restoreIndices", body: restore, privileged: true},
		"POST /logIn":                          {method: "POST", path: "/logIn", body: map[string]any{"username": "datahub", "password": testRootPassword}},
		"POST /openapi/v1/events/audit/search": {method: "POST", path: "/openapi/v1/events/audit/search", body: map[string]any{}, privileged: true},
		"GET /logOut":                          {method: "GET", path: "/logOut"},
		"GET /authenticate":                    {method: "GET", path: "/authenticate?redirect_uri=%2Fsearch"},
		"GET /sso":                             {method: "GET", path: "/sso"},
		"POST /track":                          {method: "POST", path: "/track", body: map[string]any{"type": "PageViewEvent", "originPath": "/"}},
		"GET /callback/oidc":                   {method: "GET", path: "/callback/oidc?code=c&state=s"},
		// Public, and refusing these tokens whoever asks.
		"POST /signUp": {method: "POST", path: "/signUp", ok: []int{400}, body: map[string]any{
			"fullName": "Walker", "email": "walker@example.com", "title": "Tester", "password": "a long password", "inviteToken": "not-an-invite"}},
		"POST /resetNativeUserCredentials": {method: "POST", path: "/resetNativeUserCredentials", ok: []int{400}, body: map[string]any{
			"email": "datahub", "password": "a long password", "resetToken": "not-a-reset-token"}},
		"GET /openapi/v1/events/poll":              {method: "GET", path: "/openapi/v1/events/poll?topic=PlatformEvent_v1&pollTimeoutSeconds=0", privileged: true},
		"GET /openapi/v2/timeline/v1/{urn}":        {method: "GET", path: "/openapi/v2/timeline/v1/" + enc + "?categories=TAG"},
		"POST /openapi/openlineage/api/v1/lineage": {method: "POST", path: "/openapi/openlineage/api/v1/lineage", privileged: true, body: []byte(olEvent)},
		"POST /usageStats?action=batchIngest": {method: "POST", path: "/usageStats?action=batchIngest", privileged: true, body: map[string]any{"buckets": []any{
			map[string]any{"bucket": 1700006400000, "duration": "DAY", "resource": ds, "metrics": map[string]any{"totalSqlQueries": 1}}}}},
		"POST /usageStats?action=query":          {method: "POST", path: "/usageStats?action=query", body: map[string]any{"resource": ds, "duration": "DAY"}},
		"POST /usageStats?action=queryRange":     {method: "POST", path: "/usageStats?action=queryRange", body: map[string]any{"resource": ds, "duration": "DAY", "rangeFromEnd": "ALL"}},
		"POST /operations?action=restoreIndices": {method: "POST", path: "/operations?action=restoreIndices", body: restore, privileged: true},
		"POST /runs?action=list":                 {method: "POST", path: "/runs?action=list", body: map[string]any{"pageOffset": 0, "pageSize": 10}},
		"POST /runs?action=describe":             {method: "POST", path: "/runs?action=describe", body: map[string]any{"runId": walkRun, "start": 0, "count": 10}},
		// A dry run, checked as the real one is: it deletes nothing.
		"POST /runs?action=rollback": {method: "POST", path: "/runs?action=rollback", privileged: true, body: map[string]any{"runId": walkRun, "dryRun": true}},
	}
	// The OpenAPI v2 and v3 entity endpoints: the generic paths (an entity
	// type and aspect not spelled as the generated paths spell them), and
	// the generated paths of datasets and of their status aspect.
	status := map[string]any{"value": map[string]any{"removed": false}}
	patch := map[string]any{"patch": []any{map[string]any{"op": "add", "path": "/removed", "value": false}}}
	for _, v := range []struct{ typ, aspect, prefix string }{{"Dataset", "Status", "/openapi/v3/entity/{entityName}"}, {"dataset", "status", "/openapi/v3/entity/dataset"}} {
		base, one := "/openapi/v3/entity/"+v.typ, "/openapi/v3/entity/"+v.typ+"/"+enc+"/"+v.aspect
		aspectKey := v.prefix + "/{urn}/{aspectName}"
		if v.typ == "dataset" {
			aspectKey = v.prefix + "/{urn}/status"
		}
		for k, rc := range map[string]routeCase{
			"GET " + v.prefix:                                           {method: "GET", path: base + "?count=5"},
			"PATCH " + v.prefix:                                         {method: "PATCH", path: base, privileged: true, body: []any{map[string]any{"urn": ds, "status": map[string]any{"value": patch}}}},
			"POST " + v.prefix + "/batchGet":                            {method: "POST", path: base + "/batchGet", body: []any{map[string]any{"urn": ds}}},
			"HEAD " + v.prefix + "/{urn}":                               {method: "HEAD", path: base + "/" + enc},
			"GET " + aspectKey:                                          {method: "GET", path: one},
			"HEAD " + aspectKey:                                         {method: "HEAD", path: one},
			"DELETE " + aspectKey:                                       {method: "DELETE", path: "/openapi/v3/entity/" + v.typ + "/" + pathEscape(del("v3aspect")) + "/" + v.aspect, privileged: true},
			"POST " + aspectKey:                                         {method: "POST", path: one + "?createIfNotExists=false", privileged: true, body: status},
			"PATCH " + aspectKey:                                        {method: "PATCH", path: one, privileged: true, body: patch},
			"POST " + v.prefix:                                          {method: "POST", path: base + "?async=false", privileged: true, body: []any{map[string]any{"urn": ds, "status": status}}},
			"GET " + v.prefix + "/{urn}":                                {method: "GET", path: base + "/" + enc},
			"DELETE " + v.prefix + "/{urn}":                             {method: "DELETE", path: base + "/" + pathEscape(del("v3"+v.typ)), privileged: true},
			"POST /openapi/v3/entity/scroll":                            {method: "POST", path: "/openapi/v3/entity/scroll?count=5", body: map[string]any{"entities": []string{"dataset"}}},
			"GET /openapi/v2/entity/{entityName}":                       {method: "GET", path: "/openapi/v2/entity/dataset?count=5"},
			"POST /openapi/v2/entity/{entityName}":                      {method: "POST", path: "/openapi/v2/entity/dataset", privileged: true, body: []any{map[string]any{"urn": ds, "aspects": map[string]any{"status": status}}}},
			"POST /openapi/v2/entity/batch/{entityName}":                {method: "POST", path: "/openapi/v2/entity/batch/dataset", body: map[string]any{"urns": []string{ds}}},
			"GET /openapi/v2/entity/{entityName}/{urn}":                 {method: "GET", path: "/openapi/v2/entity/dataset/" + enc},
			"HEAD /openapi/v2/entity/{entityName}/{urn}":                {method: "HEAD", path: "/openapi/v2/entity/dataset/" + enc},
			"DELETE /openapi/v2/entity/{entityName}/{urn}":              {method: "DELETE", path: "/openapi/v2/entity/dataset/" + pathEscape(del("v2")), privileged: true},
			"GET /openapi/v2/entity/{entityName}/{urn}/{aspectName}":    {method: "GET", path: "/openapi/v2/entity/dataset/" + enc + "/status"},
			"HEAD /openapi/v2/entity/{entityName}/{urn}/{aspectName}":   {method: "HEAD", path: "/openapi/v2/entity/dataset/" + enc + "/status"},
			"DELETE /openapi/v2/entity/{entityName}/{urn}/{aspectName}": {method: "DELETE", path: "/openapi/v2/entity/dataset/" + pathEscape(del("v2aspect")) + "/status", privileged: true},
			"POST /openapi/v2/entity/{entityName}/{urn}/{aspectName}":   {method: "POST", path: "/openapi/v2/entity/dataset/" + enc + "/status?createIfNotExists=false", privileged: true, body: map[string]any{"removed": false}},
			"PATCH /openapi/v2/entity/{entityName}/{urn}/{aspectName}":  {method: "PATCH", path: "/openapi/v2/entity/dataset/" + enc + "/status", privileged: true, body: patch},
			"POST /openapi/v2/platform/entities/v1/": {method: "POST", path: "/openapi/v2/platform/entities/v1/", privileged: true,
				body: []any{map[string]any{"entityType": "dataset", "entityUrn": ds, "changeType": "UPSERT", "aspectName": "status", "aspect": map[string]any{"value": map[string]any{"removed": false}}}}},
			"GET /openapi/v3/relationship/{relationshipType}": {method: "GET", path: "/openapi/v3/relationship/OwnedBy"},
			"GET /openapi/v3/relationship/{entityName}/{urn}": {method: "GET", path: "/openapi/v3/relationship/dataset/" + enc},
			"GET /openapi/v2/relationship/{relationshipType}": {method: "GET", path: "/openapi/v2/relationship/OwnedBy"},
			"GET /openapi/v2/relationship/{entityName}/{urn}": {method: "GET", path: "/openapi/v2/relationship/dataset/" + enc},
		} {
			cases[k] = rc
		}
	}
	return cases
}

// walkRoutes enumerates every operation of the OpenAPI document (one per
// rest.li action), with whether it is public (security: []). Of the paths
// generated for every entity type and aspect, which share their handlers
// with the generic ones, those of datasets and their status aspect stand
// for the others.
func walkRoutes(t *testing.T) (keys []string, public map[string]bool) {
	v, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	var gen struct {
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Entities, &gen); err != nil {
		t.Fatal(err)
	}
	public = map[string]bool{}
	for path, item := range v.Doc().Paths.Map() {
		if _, generated := gen.Paths[path]; generated && path != "/openapi/v3/entity/scroll" &&
			!slices.Contains([]string{"", "/batchGet", "/{urn}", "/{urn}/status"}, strings.TrimPrefix(path, "/openapi/v3/entity/dataset")) {
			continue
		}
		for method, op := range item.Operations() {
			pub := op.Security != nil && len(*op.Security) == 0
			acts := v.Actions(method, path)
			if len(acts) == 0 {
				k := method + " " + path
				keys, public[k] = append(keys, k), pub
			}
			for _, a := range acts {
				k := method + " " + path + "?action=" + a.Name
				keys, public[k] = append(keys, k), pub
			}
		}
	}
	sort.Strings(keys)
	return keys, public
}

// TestAuthRouteWalk sends a request to every operation in openapi.yaml with
// no credentials, bad, expired and revoked tokens, a reader's token and an
// admin's, and checks 401 / 403 / success as each deserves.
func TestAuthRouteWalk(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) { testAuthRouteWalk(t, st.args) })
	}
}

func testAuthRouteWalk(t *testing.T, storeArgs []string) {
	s := startAuthServer(t, storeArgs...)
	cases := routeCases()
	keys, public := walkRoutes(t)
	for _, k := range keys {
		if _, ok := cases[k]; !ok {
			t.Errorf("route %s has no sample request in routeCases: add one", k)
		}
	}
	// Fixtures: the dataset the reads look at and the ones the deletes remove.
	for _, u := range []string{walkDataset, "urn:li:dataset:(urn:li:dataPlatform:hive,auth.deletev3,PROD)", "urn:li:dataset:(urn:li:dataPlatform:hive,auth.deleterestli,PROD)"} {
		if st, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposal",
			map[string]any{"proposal": mcp("dataset", u, "status", map[string]any{"removed": false})}); st != 200 {
			t.Fatalf("seed %s: %d %s", u, st, b)
		}
	}
	// The ingestion run the runs actions name.
	run := mcp("dataset", "urn:li:dataset:(urn:li:dataPlatform:hive,auth.run,PROD)", "status", map[string]any{"removed": false})
	run["systemMetadata"] = map[string]any{"runId": walkRun}
	if st, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": run}); st != 200 {
		t.Fatalf("seed run: %d %s", st, b)
	}
	if st, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("dataset", walkDataset, "datasetProfile",
		map[string]any{"timestampMillis": time.Now().UnixMilli(), "rowCount": 3})}); st != 200 {
		t.Fatalf("seed profile: %d %s", st, b)
	}

	reader, _ := s.cliToken(t, "reader")
	revoked, revokedID := s.cliToken(t, "leaver")
	// The token works, and is cached, until its entity is deleted.
	if st, b := s.call(t, bearer(revoked), "GET", "/entitiesV2/"+pathEscape(walkDataset), nil); st != 200 {
		t.Fatalf("fresh token: %d %s", st, b)
	}
	if st, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": map[string]any{
		"entityType": "dataHubAccessToken", "entityUrn": "urn:li:dataHubAccessToken:" + revokedID,
		"changeType": "DELETE", "aspectName": "dataHubAccessTokenKey"}}); st != 200 {
		t.Fatalf("revoke: %d %s", st, b)
	}
	now := time.Now()
	expired := signed(t, jwt.MapClaims{"actorType": "USER", "actorId": "datahub", "type": "SESSION", "version": "1",
		"sub": "datahub", "iss": "datahub-metadata-service", "jti": "x", "exp": now.Add(-time.Minute).Unix()})
	forged, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"actorType": "USER", "actorId": "datahub",
		"type": "SESSION", "version": "1", "exp": now.Add(time.Hour).Unix()}).SignedString([]byte("another key"))
	noneAlg, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"actorType": "USER", "actorId": "datahub",
		"type": "SESSION", "version": "1"}).SignedString(jwt.UnsafeAllowNoneSignatureType)

	type who struct {
		name, auth string
		want       func(rc routeCase, public bool, status int) bool
	}
	denied := func(rc routeCase, public bool, status int) bool {
		if public {
			return status < 400 || slices.Contains(rc.ok, status)
		}
		return status == 401
	}
	allowed := func(rc routeCase, status int) bool {
		return status < 400 || slices.Contains(rc.ok, status)
	}
	callers := []who{
		{"no credentials", "", denied},
		{"garbage token", "Bearer not-a-token", denied},
		{"wrong signing key", bearer(forged), denied},
		{"alg none", bearer(noneAlg), denied},
		{"expired token", bearer(expired), denied},
		{"revoked token", bearer(revoked), denied},
		{"wrong system secret", "Basic __datahub_system:guess", denied},
		{"reader", bearer(reader), func(rc routeCase, public bool, status int) bool {
			if rc.privileged && !public {
				return status == 403
			}
			return allowed(rc, status)
		}},
		{"admin", bearer(s.admin), func(rc routeCase, _ bool, status int) bool { return allowed(rc, status) }},
		{"system client", "Basic __datahub_system:" + testSystemSecret, func(rc routeCase, _ bool, status int) bool { return allowed(rc, status) }},
	}
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range keys {
				rc, ok := cases[k]
				if !ok {
					continue
				}
				status, b := s.call(t, c.auth, rc.method, rc.path, rc.body)
				if !c.want(rc, public[k], status) {
					t.Errorf("%s %s: status %d: %.300s", rc.method, rc.path, status, b)
				}
			}
		})
	}
}

// TestAuthSecretsNeverServed checks that credentials are never returned by
// a read API and that tokens and passwords never reach the logs.
func TestAuthSecretsNeverServed(t *testing.T) {
	s := startAuthServer(t, "--log-level", "debug")
	admin := bearer(s.admin)
	root := pathEscape("urn:li:corpuser:datahub")
	for _, path := range []string{
		"/entitiesV2/" + root,
		"/entitiesV2/" + root + "?aspects=List(corpUserCredentials)",
		"/entitiesV2?ids=List(" + root + ")",
		"/entities/" + root,
		"/openapi/v3/entity/corpuser/" + root,
	} {
		st, b := s.call(t, admin, "GET", path, nil)
		if st != 200 {
			t.Errorf("GET %s: %d %s", path, st, b)
		}
		if bytes.Contains(b, []byte("corpUserCredentials")) || bytes.Contains(b, []byte("hashedPassword")) || bytes.Contains(b, []byte("argon2")) {
			t.Errorf("GET %s served credentials: %s", path, b)
		}
	}
	if st, b := s.call(t, admin, "GET", "/aspects/"+root+"?aspect=corpUserCredentials&version=0", nil); st != 404 {
		t.Errorf("aspect read of credentials: %d %s", st, b)
	}
	st, b := s.call(t, admin, "POST", "/api/graphql", map[string]any{"query": `{ corpUser(urn: "urn:li:corpuser:datahub") { urn } }`})
	if st != 200 || bytes.Contains(b, []byte("hashedPassword")) {
		t.Errorf("graphql: %d %s", st, b)
	}
	// A failed login with a password, and requests with tokens, leave
	// neither in the logs.
	s.call(t, "", "POST", "/logIn", map[string]string{"username": "datahub", "password": "a-wrong-password-123"})
	logs := s.stderr.String() + s.stdout.String()
	for _, secret := range []string{s.admin, testRootPassword, "a-wrong-password-123", testSystemSecret, testSigningKey} {
		if strings.Contains(logs, secret) {
			t.Errorf("a secret appears in the server's output")
		}
	}
}

// TestAuthLoginThrottle checks that the sixth failed login in a row is
// refused, even with the right password, and says when to retry.
func TestAuthLoginThrottle(t *testing.T) {
	s := startAuthServer(t)
	for i := 0; i < 5; i++ {
		st, b := s.call(t, "", "POST", "/logIn", map[string]string{"username": "datahub", "password": fmt.Sprintf("wrong-%d", i)})
		if i < 4 && st != 401 {
			t.Fatalf("failed login %d: %d %s", i, st, b)
		}
	}
	st, b, h := s.callH(t, "", "POST", "/logIn", map[string]string{"username": "datahub", "password": testRootPassword})
	if st != 429 || h.Get("Retry-After") == "" {
		t.Fatalf("login after five failures: %d (Retry-After %q) %s", st, h.Get("Retry-After"), b)
	}
	// Another user is not affected.
	if st, b := s.call(t, "", "POST", "/logIn", map[string]string{"username": "someone", "password": "x-wrong"}); st != 401 {
		t.Fatalf("other user: %d %s", st, b)
	}
}

// TestAuthGeneratedSecrets checks the zero-setup start: with nothing
// configured the root password and system secret are generated, printed or
// kept once, and work.
func TestAuthGeneratedSecrets(t *testing.T) {
	dir := t.TempDir()
	srv := startServerEnv(t, nil, "--auth=true", "--data-dir", dir)
	out := srv.stdout.String()
	m := regexp.MustCompile(`password (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no generated root password printed: %s", out)
	}
	s := &authServer{testServer: srv, dataDir: dir}
	s.login(t, "datahub", m[1])
	secret, err := readFileString(dir + "/" + systemSecretFile)
	if err != nil {
		t.Fatalf("system secret not kept: %v", err)
	}
	if st, b := s.call(t, "Basic "+strings.TrimSpace(secret), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:datahub"), nil); st != 200 {
		t.Fatalf("system client: %d %s", st, b)
	}
	if strings.Contains(secret, "JohnSnowKnowsNothing") {
		t.Fatal("the system secret is DataHub's well-known default")
	}
}

func readFileString(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// statelessToken returns a stateless (not stored) token of the user named
// name, which it asks for itself through GraphQL's getAccessToken (which
// mints tokens for its caller only).
func (s *authServer) statelessToken(t testing.TB, name string) string {
	t.Helper()
	var got struct {
		AccessToken string `json:"accessToken"`
	}
	s.mustGQL(t, sessionToken(t, name), `query($u: String!) { getAccessToken(input: {type: PERSONAL, actorUrn: $u, duration: ONE_HOUR}) { accessToken } }`,
		map[string]any{"u": "urn:li:corpuser:" + name}, "getAccessToken", &got)
	return got.AccessToken
}

// sessionToken returns a session token of the user named name, as POST
// /logIn issues them.
func sessionToken(t testing.TB, name string) string {
	return signed(t, jwt.MapClaims{"actorType": "USER", "actorId": name, "type": "SESSION", "version": "1",
		"sub": name, "iss": "datahub-metadata-service", "jti": name, "exp": time.Now().Add(time.Hour).Unix()})
}

// setUserStatus writes a user's corpUserStatus as the root user.
func (s *authServer) setUserStatus(t testing.TB, user, status string) {
	t.Helper()
	s.ingestAsAdmin(t, mcp("corpuser", user, "corpUserStatus", map[string]any{"status": status,
		"lastModified": map[string]any{"time": time.Now().UnixMilli(), "actor": "urn:li:corpuser:datahub"}}))
}

func (s *authServer) ingestAsAdmin(t testing.TB, proposal map[string]any) {
	t.Helper()
	if st, b := s.call(t, bearer(s.admin), "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal}); st != 200 {
		t.Fatalf("ingest %v: %d %s", proposal, st, b)
	}
}

// expectStatus checks the status each token gets for a read.
func (s *authServer) expectStatus(t testing.TB, step string, want int, tokens map[string]string) {
	t.Helper()
	for name, tok := range tokens {
		if st, b := s.call(t, bearer(tok), "GET", "/entitiesV2/"+pathEscape("urn:li:corpuser:datahub"), nil); st != want {
			t.Errorf("%s: %s token answered %d, want %d: %.200s", step, name, st, want, b)
		}
	}
}

// TestAuthTokensEndWithUser checks that a user's personal and session
// tokens stop working with the next request once the user is suspended,
// soft-deleted, removed (removeUser) or hard-deleted, though the server has
// them cached, and work again when a suspension or soft deletion is undone,
// as in DataHub (403 "Actor is not active").
func TestAuthTokensEndWithUser(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) { testAuthTokensEndWithUser(t, st.args) })
	}
}

func testAuthTokensEndWithUser(t *testing.T, storeArgs []string) {
	s := startAuthServer(t, storeArgs...)
	tokensOf := func(name string) map[string]string {
		personal, _ := s.cliToken(t, name)
		return map[string]string{"personal": personal, "stateless": s.statelessToken(t, name), "session": sessionToken(t, name)}
	}
	const user = "urn:li:corpuser:suspendable"
	tokens := tokensOf("suspendable")
	s.expectStatus(t, "fresh", 200, tokens)

	s.setUserStatus(t, user, "SUSPENDED")
	s.expectStatus(t, "suspended", 403, tokens)
	s.setUserStatus(t, user, "ACTIVE")
	s.expectStatus(t, "reactivated", 200, tokens)

	s.ingestAsAdmin(t, mcp("corpuser", user, "status", map[string]any{"removed": true}))
	s.expectStatus(t, "soft-deleted", 403, tokens)
	s.ingestAsAdmin(t, mcp("corpuser", user, "status", map[string]any{"removed": false}))
	s.expectStatus(t, "restored", 200, tokens)

	s.mustGQL(t, s.admin, `mutation($u: String!) { removeUser(urn: $u) }`, map[string]any{"u": user}, "removeUser", nil)
	s.expectStatus(t, "removed", 403, tokens)

	deleted := tokensOf("deleted")
	s.expectStatus(t, "fresh", 200, deleted)
	if st, b := s.call(t, bearer(s.admin), "POST", "/entities?action=delete", map[string]any{"urn": "urn:li:corpuser:deleted"}); st != 200 {
		t.Fatalf("hard delete: %d %s", st, b)
	}
	s.expectStatus(t, "hard-deleted", 403, deleted)
}

// TestAuthReplicasAgree checks, on two servers sharing one PostgreSQL
// database, that a token revoked or a user suspended through one of them is
// refused by the other with the very next request, though it had the token
// cached.
func TestAuthReplicasAgree(t *testing.T) {
	dsn := os.Getenv("CATALOGD_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("CATALOGD_TEST_POSTGRES not set")
	}
	db := freshPostgres(t, dsn)
	a := startAuthServer(t, "--store", db)
	b := startAuthServer(t, "--store", db)
	const create = `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:replicated", duration: ONE_DAY, name: "r"}) { accessToken metadata { id } } }`
	a.cliToken(t, "replicated") // creates the user
	var tok struct {
		AccessToken string `json:"accessToken"`
		Metadata    struct{ ID string }
	}
	a.mustGQL(t, a.admin, create, nil, "createAccessToken", &tok)
	session := sessionToken(t, "replicated")
	b.expectStatus(t, "fresh", 200, map[string]string{"personal": tok.AccessToken, "session": session})

	a.mustGQL(t, a.admin, `mutation($id: String!) { revokeAccessToken(tokenId: $id) }`, map[string]any{"id": tok.Metadata.ID}, "revokeAccessToken", nil)
	b.expectStatus(t, "revoked on the other replica", 401, map[string]string{"personal": tok.AccessToken})

	a.setUserStatus(t, "urn:li:corpuser:replicated", "SUSPENDED")
	b.expectStatus(t, "suspended on the other replica", 403, map[string]string{"session": session})
}

// logInFrom posts a login with the given client and answers the status.
func (s *authServer) logInFrom(t testing.TB, c *http.Client, user, password string) int {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"username": user, "password": password})
	resp, err := c.Post(s.URL+"/logIn", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// clientFrom is an HTTP client whose connections come from the local
// address ip (any of 127.0.0.0/8 reaches the server), with a cookie jar
// when jar is true.
func clientFrom(t testing.TB, ip string, jar bool) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
	if jar {
		j, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Jar = j
	}
	return c
}

// TestAuthLoginParallel checks that failed logins are counted atomically:
// of 60 wrong passwords sent at once exactly five are checked (401) and the
// rest refused without a check (429).
func TestAuthLoginParallel(t *testing.T) {
	s := startAuthServer(t)
	c := clientFrom(t, "127.0.0.1", false)
	const n = 60
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- s.logInFrom(t, c, "datahub", fmt.Sprintf("wrong-password-%d", i))
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for st := range statuses {
		count[st]++
	}
	if count[401] != 5 || count[429] != n-5 {
		t.Errorf("of %d parallel wrong passwords: %v; want 5 checked (401), the rest refused (429)", n, count)
	}
}

// TestAuthLoginLockoutSparesUser checks that failures caused by others do
// not lock a user out: a client that logged in before (its device cookie)
// and a client from another address log in while the attacker's address is
// locked out, and neither a forged cookie nor one issued for another user
// lifts a lockout.
func TestAuthLoginLockoutSparesUser(t *testing.T) {
	s := startAuthServer(t)
	user := clientFrom(t, "127.0.0.1", true) // the admin's browser, at the attacker's address (a shared proxy)
	if st := s.logInFrom(t, user, "datahub", testRootPassword); st != 200 {
		t.Fatalf("first login: %d", st)
	}
	attacker := clientFrom(t, "127.0.0.1", true)
	for i := range 6 {
		if st := s.logInFrom(t, attacker, "datahub", fmt.Sprintf("guess-%d", i)); st != 401 && st != 429 {
			t.Fatalf("guess %d: %d", i, st)
		}
	}
	if st := s.logInFrom(t, attacker, "datahub", testRootPassword); st != 429 {
		t.Errorf("attacker's address after six failures: %d, want 429", st)
	}
	u, _ := url.Parse(s.URL + "/logIn")
	attacker.Jar.SetCookies(u, []*http.Cookie{{Name: "catalogd_device", Value: strings.Repeat("A", 43)}})
	if st := s.logInFrom(t, attacker, "datahub", testRootPassword); st != 429 {
		t.Errorf("attacker with a forged device cookie: %d, want 429", st)
	}

	if st := s.logInFrom(t, user, "datahub", testRootPassword); st != 200 {
		t.Errorf("the user's client during the attacker's lockout: %d, want 200", st)
	}
	// A cookie is good for the user it was issued to only.
	for i := range 6 {
		s.logInFrom(t, attacker, "other", fmt.Sprintf("guess-%d", i))
	}
	if st := s.logInFrom(t, user, "other", "a-password"); st != 429 {
		t.Errorf("datahub's device cookie logging in as another locked-out user: %d, want 429", st)
	}
	if st := s.logInFrom(t, clientFrom(t, "127.0.0.2", false), "datahub", testRootPassword); st != 200 {
		t.Errorf("another address during the attacker's lockout: %d, want 200", st)
	}
	// The user's client has a budget of its own.
	for i := range 5 {
		if st := s.logInFrom(t, user, "datahub", fmt.Sprintf("typo-%d", i)); st != 401 {
			t.Errorf("the user's typo %d: %d, want 401", i, st)
		}
	}
	if st := s.logInFrom(t, user, "datahub", testRootPassword); st != 429 {
		t.Errorf("the user's client after five typos of its own: %d, want 429", st)
	}
}
