package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// badURNs are URNs every entry point must refuse with a 400: each prints
// like, or stands for, a URN that is not the one sent.
var badURNs = []struct{ name, urn string }{
	{"NUL", "urn:li:corpuser:datahub\x00"},
	{"escape character", "urn:li:corpuser:data\x1bhub"},
	{"C1 control", "urn:li:corpuser:datahub\u0085"},
	{"bidirectional override", "urn:li:corpuser:\u202ebuhatad"},
	{"bidirectional isolate", "urn:li:corpuser:datahub\u2066"},
	{"invalid UTF-8", "urn:li:corpuser:datahub\xff"},
	{"UTF-8 encoded surrogate", "urn:li:corpuser:datahub\xed\xa0\x80"},
	{"replacement character", "urn:li:corpuser:datahub\ufffd"},
	{"browse path delimiter", "urn:li:corpuser:data␟hub"},
	{"trailing space", "urn:li:corpuser:datahub "},
	{"over 512 bytes URL-encoded", "urn:li:corpuser:" + strings.Repeat("a", 500)},
	{"a megabyte", "urn:li:corpuser:" + strings.Repeat("a", 1<<20)},
	{"malformed nested URN", "urn:li:dataset:(urn:li:dataPlatform:,x,PROD)"},
	{"NUL in a nested URN", "urn:li:dataset:(urn:li:dataPlatform:hive\x00,x,PROD)"},
}

// jsonText encodes s as a JSON string literal byte for byte: unlike
// encoding/json it leaves invalid UTF-8 as it is, as a careless client
// would send it.
func jsonText(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// entityOf is the entity type a URN names, for the proposals that carry it.
func entityOf(urn string) string {
	if strings.HasPrefix(urn, "urn:li:dataset:") {
		return "dataset"
	}
	return "corpuser"
}

// allURNs lists every entity the server's search knows.
func allURNs(t *testing.T, srv *testServer) []string {
	t.Helper()
	var urns []string
	for _, entity := range []string{"corpuser", "dataset", "tag", "dataPlatform"} {
		urns = append(urns, srv.search(t, map[string]any{"entity": entity, "input": "*", "count": 1000}).Metadata.URNs...)
	}
	slices.Sort(urns)
	return urns
}

// TestBadURNsRefused sends each bad URN through every entry point that takes
// a URN — rest.li proposals (by URN and by key aspect), batches, legacy
// snapshots, OpenAPI v3, reads by path, GraphQL mutations, URN-valued aspect
// fields and the ingest command — and checks that each answers 400 and that
// nothing is written: the NUL "datahub" does not become a second user.
func TestBadURNsRefused(t *testing.T) {
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			srv := startServer(t, db.args...)
			const good = "urn:li:dataset:(urn:li:dataPlatform:hive,urn_checks,PROD)"
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": mcp("dataset", good, "globalTags",
				map[string]any{"tags": []any{map[string]any{"tag": "urn:li:tag:keep"}}})})
			before := allURNs(t, srv)
			tagsBefore := jsonString(readAspect(t, srv, good, "globalTags"))

			refused := func(t *testing.T, what string, status int, body []byte) {
				t.Helper()
				if status != 400 {
					t.Errorf("%s: status %d, want 400: %.300s", what, status, body)
				}
			}
			for _, bad := range badURNs {
				t.Run(bad.name, func(t *testing.T) {
					u, ent := jsonText(bad.urn), entityOf(bad.urn)
					proposal := `{"entityType":"` + ent + `","entityUrn":` + u + `,"changeType":"UPSERT","aspectName":"status","aspect":{"value":"{\"removed\":false}","contentType":"application/json"}}`
					status, body := srv.do(t, "POST", "/aspects?action=ingestProposal", []byte(`{"proposal":`+proposal+`}`))
					refused(t, "ingestProposal", status, body)

					// A batch with a good proposal first writes neither.
					first := `{"entityType":"dataset","entityUrn":"urn:li:dataset:(urn:li:dataPlatform:hive,never_written,PROD)","changeType":"UPSERT","aspectName":"status","aspect":{"value":"{\"removed\":false}","contentType":"application/json"}}`
					status, body = srv.do(t, "POST", "/aspects?action=ingestProposalBatch", []byte(`{"proposals":[`+first+`,`+proposal+`]}`))
					refused(t, "ingestProposalBatch", status, body)

					snapshot := "com.linkedin.metadata.snapshot.CorpUserSnapshot"
					if ent == "dataset" {
						snapshot = "com.linkedin.metadata.snapshot.DatasetSnapshot"
					}
					status, body = srv.do(t, "POST", "/entities?action=ingest", []byte(`{"entity":{"value":{"`+snapshot+`":{"urn":`+u+`,"aspects":[{"com.linkedin.common.Status":{"removed":false}}]}}}}`))
					refused(t, "entities?action=ingest", status, body)

					if name, ok := strings.CutPrefix(bad.urn, "urn:li:corpuser:"); ok {
						// The same URN built from a key aspect.
						key := jsonText(`{"username":` + jsonText(name) + `}`)
						status, body = srv.do(t, "POST", "/aspects?action=ingestProposal", []byte(`{"proposal":{"entityType":"corpuser","entityKeyAspect":{"value":`+key+`,"contentType":"application/json"},"changeType":"UPSERT","aspectName":"status","aspect":{"value":"{\"removed\":false}","contentType":"application/json"}}}`))
						refused(t, "ingestProposal by key aspect", status, body)
					}

					status, body = srv.do(t, "POST", "/openapi/v3/entity/"+ent+"?async=false", []byte(`[{"urn":`+u+`,"status":{"value":{"removed":false}}}]`))
					refused(t, "OpenAPI v3 POST", status, body)

					// As a value of a URN-typed aspect field.
					tag := strings.Replace(bad.urn, "urn:li:corpuser:", "urn:li:tag:", 1)
					value := jsonText(`{"tags":[{"tag":` + jsonText(tag) + `}]}`)
					status, body = srv.do(t, "POST", "/aspects?action=ingestProposal", []byte(`{"proposal":{"entityType":"dataset","entityUrn":"`+good+`","changeType":"UPSERT","aspectName":"globalTags","aspect":{"value":`+value+`,"contentType":"application/json"}}}`))
					refused(t, "tag URN in globalTags", status, body)

					if len(bad.urn) < 64<<10 { // longer URLs are refused by the HTTP server itself
						esc := pathEscape(bad.urn)
						for _, read := range [][2]string{{"/entitiesV2/", ""}, {"/aspects/", "?aspect=status"}, {"/entities/", ""}, {"/openapi/v3/entity/" + ent + "/", ""}} {
							status, body = srv.do(t, "GET", read[0]+esc+read[1], nil)
							refused(t, "GET "+read[0]+"<urn>", status, body)
						}
					}

					// GraphQL, whose decoder turns invalid UTF-8 into U+FFFD.
					ops := map[string]string{"addTag": `{"query":"mutation($t: String!) { addTag(input: {tagUrn: $t, resourceUrn: \"` + good + `\"}) }","variables":{"t":` + jsonText(tag) + `}}`}
					if id, ok := strings.CutPrefix(tag, "urn:li:tag:"); ok {
						ops["createTag"] = `{"query":"mutation($id: String!) { createTag(input: {id: $id, name: \"n\"}) }","variables":{"id":` + jsonText(id) + `}}`
					}
					for name, query := range ops {
						status, _, b := srv.graphqlRaw(t, "/api/graphql", []byte(query), nil)
						r := decode(t, b)
						errs, _ := r["errors"].([]any)
						if status != 200 || len(errs) == 0 {
							t.Errorf("GraphQL %s: status %d, want 200 with an error: %.300s", name, status, b)
							continue
						}
						if ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any); fmt.Sprint(ext["code"]) != "400" {
							t.Errorf("GraphQL %s: error %v, want code 400", name, errs[0])
						}
					}
				})
			}

			// The ingest command, into the server and into a local store.
			var file strings.Builder
			file.WriteString("[")
			for i, bad := range badURNs {
				if i > 0 {
					file.WriteString(",")
				}
				file.WriteString(`{"entityType":"` + entityOf(bad.urn) + `","entityUrn":` + jsonText(bad.urn) + `,"changeType":"UPSERT","aspectName":"status","aspect":{"json":{"removed":false}}}`)
			}
			file.WriteString("]")
			path := filepath.Join(t.TempDir(), "bad.json")
			if err := os.WriteFile(path, []byte(file.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%d of %d records failed", len(badURNs), len(badURNs))
			for _, mode := range [][]string{{"--server", srv.URL}, append([]string{"--data-dir", t.TempDir()}, db.args...)} {
				if stdout, _, err := runCLI(t, append(append([]string{"ingest", "--quiet"}, mode...), path)...); err == nil || err.Error() != want {
					t.Errorf("ingest %s: error %v, want %q\n%s", mode[0], err, want, stdout)
				}
			}

			if after := allURNs(t, srv); !slices.Equal(after, before) {
				t.Errorf("entities after the refused writes:\n  %q\nwant, as before:\n  %q", after, before)
			}
			if got := jsonString(readAspect(t, srv, good, "globalTags")); got != tagsBefore {
				t.Errorf("globalTags changed by refused writes: %s, want %s", got, tagsBefore)
			}
		})
	}
}

// TestInvalidUTF8Refused checks that invalid UTF-8 anywhere in a write is
// refused, as DataHub's JSON parser refuses it, rather than stored with
// U+FFFD in place of the bytes the client sent.
func TestInvalidUTF8Refused(t *testing.T) {
	srv := startServer(t)
	const urn = "urn:li:dataset:(urn:li:dataPlatform:hive,utf8,PROD)"
	value := jsonText(`{"description":"caf` + "\xe9" + `"}`) // Latin-1, not UTF-8
	for _, req := range []struct{ name, path, body string }{
		{"ingestProposal", "/aspects?action=ingestProposal", `{"proposal":{"entityType":"dataset","entityUrn":"` + urn + `","changeType":"UPSERT","aspectName":"editableDatasetProperties","aspect":{"value":` + value + `,"contentType":"application/json"}}}`},
		{"OpenAPI v3", "/openapi/v3/entity/dataset?async=false", `[{"urn":"` + urn + `","editableDatasetProperties":{"value":{"description":"caf` + "\xe9" + `"}}}]`},
	} {
		status, body := srv.do(t, "POST", req.path, []byte(req.body))
		if status != 400 || !strings.Contains(string(body), "not valid UTF-8") {
			t.Errorf("%s: status %d, want 400 naming the invalid UTF-8: %s", req.name, status, body)
		}
	}
	srv.mustDo(t, 404, "GET", "/aspects/"+pathEscape(urn)+"?aspect=editableDatasetProperties", nil)

	path := filepath.Join(t.TempDir(), "latin1.json")
	if err := os.WriteFile(path, []byte(`[{"entityType":"dataset","entityUrn":"`+urn+`","changeType":"UPSERT","aspectName":"editableDatasetProperties","aspect":{"json":{"description":"caf`+"\xe9"+`"}}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range [][]string{{"--server", srv.URL}, {"--data-dir", t.TempDir()}} {
		stdout, _, err := runCLI(t, append(append([]string{"ingest", "--quiet"}, mode...), path)...)
		if err == nil || !strings.Contains(stdout, "not valid UTF-8") {
			t.Errorf("ingest %s: error %v, want the record refused as not valid UTF-8:\n%s", mode[0], err, stdout)
		}
	}
	srv.mustDo(t, 404, "GET", "/aspects/"+pathEscape(urn)+"?aspect=editableDatasetProperties", nil)
}
