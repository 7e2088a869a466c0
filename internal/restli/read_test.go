package restli

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// TestWriteEntityResponses holds the hand-written entitiesV2 bodies to what
// encoding/json made of the same values, for single and batch reads,
// including stored values that are not compact or not valid JSON.
func TestWriteEntityResponses(t *testing.T) {
	aspect := func(name, value, sysMD string) envelopedAspect {
		a := envelopedAspect{Name: name, Type: "VERSIONED", Value: json.RawMessage(value),
			Created: catalog.AuditStamp{Time: 1700000000123, Actor: "urn:li:corpuser:<x&y>"}}
		if sysMD != "" {
			a.SystemMetadata = json.RawMessage(sysMD)
		}
		return a
	}
	responses := map[string]entityResponse{
		"canonical": {URN: "urn:li:dataset:(urn:li:dataPlatform:hive,a.b,PROD)", EntityName: "dataset", Aspects: map[string]envelopedAspect{
			"status":            aspect("status", `{"removed":false}`, `{"lastObserved":1,"runId":"no-run-id-provided"}`),
			"datasetProperties": aspect("datasetProperties", `{"description":"é 😀 <b>\u2028","name":"a\"b"}`, ""),
			"datasetKey":        aspect("datasetKey", `{"name":"a.b","origin":"PROD","platform":"urn:li:dataPlatform:hive"}`, ""),
		}},
		"spaced": {URN: "urn:li:tag:t", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagProperties": aspect("tagProperties", " {\"name\" : \"t\",\n \"description\": \"a  b\" } ", "{ }"),
		}},
		"empty value": {URN: "urn:li:tag:e", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagKey": aspect("tagKey", "", ""),
		}},
		"nil value": {URN: "urn:li:tag:n", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagKey": {Name: "tagKey", Type: "VERSIONED"},
		}},
		"no aspects": {URN: "urn:li:corpuser:u", EntityName: "corpuser", Aspects: map[string]envelopedAspect{}},
		"invalid value": {URN: "urn:li:tag:bad", EntityName: "tag", Aspects: map[string]envelopedAspect{
			"tagProperties": aspect("tagProperties", `{"name":`, ""),
		}},
	}
	for name, resp := range responses {
		t.Run(name, func(t *testing.T) {
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			writeJSON(want, 200, resp)
			writeEntityResponses(got, &resp, nil, nil)
			if got.Body.String() != want.Body.String() || got.Code != want.Code || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Errorf("single: got %d %q\n%s\nencoding/json: %d %q\n%s", got.Code, got.Header().Get("Content-Type"), got.Body, want.Code, want.Header().Get("Content-Type"), want.Body)
			}
		})
	}
	batch := map[string]entityResponse{}
	for _, name := range []string{"canonical", "spaced", "no aspects"} {
		batch[responses[name].URN] = responses[name]
	}
	errs := map[string]any{"urn:li:bad": errorBody{Status: 400, Message: "bad <urn>", ExceptionClass: exceptionClass}}
	for name, b := range map[string]map[string]entityResponse{
		"batch":              batch,
		"empty batch":        {},
		"batch with invalid": {"urn:li:tag:bad": responses["invalid value"], "urn:li:tag:t": responses["spaced"]},
	} {
		t.Run(name, func(t *testing.T) {
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			writeJSON(want, 200, map[string]any{"results": b, "errors": errs, "statuses": map[string]any{}})
			writeEntityResponses(got, nil, b, errs)
			if got.Body.String() != want.Body.String() || got.Code != want.Code {
				t.Errorf("got %d\n%s\nencoding/json: %d\n%s", got.Code, got.Body, want.Code, want.Body)
			}
		})
	}
}
