package restli

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzSplitProposalBatch holds the one-pass splitter of ingestProposalBatch
// to what DecodeParams decodes: when it accepts a body, DecodeParams
// accepts it too, with the same proposals.
func FuzzSplitProposalBatch(f *testing.F) {
	for _, s := range []string{
		`{"proposals":[{"entityType":"dataset"},{"a":[1,2]}],"async":"false"}`,
		`{"proposals":[],"async":true}`, `{"proposals":null}`, `{"async":1,"proposals":[]}`,
		`{"proposals":[{}],"proposals":[1, "x"]}`, `{"Proposals":[]}`, `{"proposals":[{}],"extra":1}`,
		` { "proposals" : [ {"x" : "\u00e9"} ] } `, `{}`, `[]`, `{"proposals":[{}]}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		raws, ok := splitProposalBatch(body)
		if !ok {
			return
		}
		var params struct {
			Proposals []json.RawMessage `json:"proposals"`
			Async     asyncParam        `json:"async"`
		}
		if err := DecodeParams(body, &params); err != nil {
			t.Fatalf("split %q, DecodeParams: %v", body, err)
		}
		if params.Proposals == nil || !reflect.DeepEqual(raws, params.Proposals) {
			t.Fatalf("split %q into %q, DecodeParams gives %q", body, raws, params.Proposals)
		}
	})
}
