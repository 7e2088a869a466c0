package restli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/ingest"
)

// asyncParam accepts the async flag as DataHub clients send it: a string
// ("true", "false", "unset") or a boolean. Ingest is always synchronous here —
// it is fast enough — so the flag is accepted and otherwise ignored.
type asyncParam struct{}

func (asyncParam) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v.(type) {
	case string, bool, nil:
		return nil
	}
	return fmt.Errorf("async must be a string or boolean")
}

func (h *Handler) ingestProposal(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var params struct {
		Proposal json.RawMessage `json:"proposal"`
		Async    asyncParam      `json:"async"`
	}
	if err := DecodeParams(body, &params); err != nil {
		return nil, err
	}
	if len(params.Proposal) == 0 {
		return nil, catalog.Errorf(catalog.Invalid, "parameter proposal is required")
	}
	p, err := ingest.DecodeProposal(params.Proposal)
	if err != nil {
		return nil, err
	}
	res, err := h.ingest.Ingest(ctx, h.actor(r), []catalog.Proposal{p})
	if err != nil {
		return nil, err
	}
	return res.URNs[0], nil
}

func (h *Handler) ingestProposalBatch(ctx context.Context, r *http.Request, body []byte) (any, error) {
	raws, ok := splitProposalBatch(body)
	if !ok {
		var params struct {
			Proposals []json.RawMessage `json:"proposals"`
			Async     asyncParam        `json:"async"`
		}
		if err := DecodeParams(body, &params); err != nil {
			return nil, err
		}
		if params.Proposals == nil {
			return nil, catalog.Errorf(catalog.Invalid, "parameter proposals is required")
		}
		raws = params.Proposals
	}
	props := make([]catalog.Proposal, len(raws))
	for i, raw := range raws {
		p, err := ingest.DecodeProposal(raw)
		if err != nil {
			return nil, catalog.WithOp(fmt.Sprintf("proposal %d", i), err)
		}
		props[i] = p
	}
	if _, err := h.ingest.Ingest(ctx, h.actor(r), props); err != nil {
		return nil, err
	}
	return "success", nil
}

// splitProposalBatch splits well-formed ingestProposalBatch parameters
// into the proposals' JSON, in one pass over the body, giving what
// DecodeParams gives; ok is false for anything else (malformed JSON, other
// parameters, a missing or null proposals, an async that is not a string,
// boolean or null), which DecodeParams then decodes or words the error of.
func splitProposalBatch(body []byte) (raws []json.RawMessage, ok bool) {
	ok = fastjson.Members(body, func(k string, v fastjson.Cursor) bool {
		switch k {
		case "proposals":
			raws = []json.RawMessage{} // a later member replaces an earlier one
			return v.Array(func(e fastjson.Cursor) bool {
				raw, ok := e.Raw()
				raws = append(raws, raw)
				return ok
			})
		case "async":
			raw, ok := v.Raw()
			if !ok {
				return false
			}
			switch raw[0] {
			case '"', 't', 'f', 'n':
				return true
			}
		}
		return false
	})
	return raws, ok && raws != nil
}

// snapshotEntity is the Entity record of the legacy ingest action.
type snapshotEntity struct {
	Value json.RawMessage `json:"value"`
}

func (h *Handler) ingestSnapshot(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var params struct {
		Entity         *snapshotEntity `json:"entity"`
		SystemMetadata map[string]any  `json:"systemMetadata"`
	}
	if err := DecodeParams(body, &params); err != nil {
		return nil, err
	}
	if params.Entity == nil || len(params.Entity.Value) == 0 {
		return nil, catalog.Errorf(catalog.Invalid, "parameter entity with a snapshot value is required")
	}
	props, err := ingest.DecodeSnapshot(h.reg, params.Entity.Value, params.SystemMetadata)
	if err != nil {
		return nil, err
	}
	if _, err := h.ingest.Ingest(ctx, h.actor(r), props); err != nil {
		return nil, err
	}
	return nil, nil
}

func (h *Handler) batchIngestSnapshots(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var params struct {
		Entities       []snapshotEntity `json:"entities"`
		SystemMetadata []map[string]any `json:"systemMetadata"`
	}
	if err := DecodeParams(body, &params); err != nil {
		return nil, err
	}
	if params.SystemMetadata != nil && len(params.SystemMetadata) != len(params.Entities) {
		return nil, catalog.Errorf(catalog.Invalid, "entities and systemMetadata must have the same length (%d != %d)", len(params.Entities), len(params.SystemMetadata))
	}
	var props []catalog.Proposal
	for i, e := range params.Entities {
		var sm map[string]any
		if params.SystemMetadata != nil {
			sm = params.SystemMetadata[i]
		}
		ps, err := ingest.DecodeSnapshot(h.reg, e.Value, sm)
		if err != nil {
			return nil, catalog.WithOp(fmt.Sprintf("entity %d", i), err)
		}
		props = append(props, ps...)
	}
	if _, err := h.ingest.Ingest(ctx, h.actor(r), props); err != nil {
		return nil, err
	}
	return nil, nil
}

func (h *Handler) deleteEntity(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var params struct {
		URN string `json:"urn"`
	}
	if err := DecodeParams(body, &params); err != nil {
		return nil, err
	}
	u, err := catalog.ParseURN(params.URN)
	if err != nil {
		return nil, err
	}
	rows, tsRows, err := h.ingest.DeleteEntity(ctx, h.actor(r), u)
	if err != nil {
		return nil, err
	}
	return map[string]any{"urn": u.String(), "rows": rows, "timeseriesRows": tsRows}, nil
}
