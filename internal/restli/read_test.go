package restli

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// TestEncodeEntityResponses holds the hand-written entitiesV2 bodies to what
// encoding/json makes of the same values, for single and batch reads, and
// checks that a stored value that is not JSON is an internal error rather
// than a broken body.
func TestEncodeEntityResponses(t *testing.T) {
	aspect := func(name, value, sysMD string) envelopedAspect {
		a := envelopedAspect{Name: name, Type: "VERSIONED", Value: json.RawMessage(value),
			Created: catalog.AuditStamp{Time: 1700000000123, Actor: "urn:li:corpuser:<x&y>"}}
		if sysMD != "" {
			a.SystemMetadata = json.RawMessage(sysMD)
		}
		return a
	}
	valid := map[string]entityResponse{
		"canonical": {URN: "urn:li:dataset:(urn:li:dataPlatform:hive,a.b,PROD)", EntityName: "dataset", Aspects: map[string]envelopedAspect{
			"status":            aspect("status", `{"removed":false}`, `{"lastObserved":1,"runId":"no-run-id-provided"}`),
			"datasetProperties": aspect("datasetProperties", `{"description":"é 😀 <b>\u2028","name":"a\"b"}`, ""),
			"datasetKey":        aspect("datasetKey", `{"name":"a.b","origin":"PROD","platform":"urn:li:dataPlatform:hive"}`, ""),
		}},
		"spaced": {URN: "urn:li:tag:t", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagProperties": aspect("tagProperties", " {\"name\" : \"t\",\n \"description\": \"a  b\" } ", "{ }"),
		}},
		"nil value": {URN: "urn:li:tag:n", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagKey": {Name: "tagKey", Type: "VERSIONED"},
		}},
		"no aspects": {URN: "urn:li:corpuser:u", EntityName: "corpuser", Aspects: map[string]envelopedAspect{}},
	}
	invalid := map[string]entityResponse{
		"empty value": {URN: "urn:li:tag:e", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagKey": aspect("tagKey", "", ""),
		}},
		"truncated value": {URN: "urn:li:tag:bad", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagProperties": aspect("tagProperties", `{"name":`, ""),
		}},
		"invalid system metadata": {URN: "urn:li:tag:bad", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagProperties": aspect("tagProperties", `{"name":"t"}`, `{runId}`),
		}},
	}
	errs := map[string]any{"urn:li:bad": errorBody{Status: 400, Message: "bad <urn>", ExceptionClass: exceptionClass}}
	batch := map[string]entityResponse{}
	for _, resp := range valid {
		batch[resp.URN] = resp
	}
	for name, resp := range valid {
		t.Run(name, func(t *testing.T) {
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			writeJSON(want, 200, resp)
			body, err := resp.appendJSON(nil)
			writeEncoded(got, httptest.NewRequest("GET", "/entitiesV2/x", nil), body, err)
			if got.Body.String() != want.Body.String() || got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Errorf("got %d %q\n%s\nencoding/json: %d %q\n%s", got.Code, got.Header().Get("Content-Type"), got.Body, want.Code, want.Header().Get("Content-Type"), want.Body)
			}
		})
	}
	for name, b := range map[string]map[string]entityResponse{"batch": batch, "empty batch": {}} {
		t.Run(name, func(t *testing.T) {
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			writeJSON(want, 200, map[string]any{"results": b, "errors": errs, "statuses": map[string]any{}})
			body, err := appendBatch(b, errs)
			writeEncoded(got, httptest.NewRequest("GET", "/entitiesV2", nil), body, err)
			if got.Body.String() != want.Body.String() || got.Code != want.Code {
				t.Errorf("got %d\n%s\nencoding/json: %d\n%s", got.Code, got.Body, want.Code, want.Body)
			}
		})
	}
	for name, resp := range invalid {
		t.Run(name, func(t *testing.T) {
			for _, single := range []bool{true, false} {
				got := httptest.NewRecorder()
				if single {
					body, err := resp.appendJSON(nil)
					writeEncoded(got, httptest.NewRequest("GET", "/entitiesV2/x", nil), body, err)
				} else {
					b := map[string]entityResponse{"urn:li:tag:t": valid["spaced"], resp.URN: resp}
					body, err := appendBatch(b, errs)
					writeEncoded(got, httptest.NewRequest("GET", "/entitiesV2", nil), body, err)
				}
				var body errorBody
				if err := json.Unmarshal(got.Body.Bytes(), &body); err != nil || got.Code != 500 || body.Status != 500 || body.ExceptionClass != exceptionClass {
					t.Errorf("single %v: got %d %s, want a 500 rest.li error body", single, got.Code, got.Body)
				}
			}
		})
	}
}
