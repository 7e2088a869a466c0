package openlineage

import (
	"context"
	"io"
	"net/http"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/ingest"
)

// Path is where run events are received.
const Path = "/openapi/openlineage/api/v1/lineage"

// Ingester applies proposals as one write.
type Ingester interface {
	Ingest(ctx context.Context, actor string, props []catalog.Proposal) (ingest.Result, error)
}

// Handler serves POST Path: it records the run event of the body, all of
// it or nothing, as actor(r), and answers an empty 200. writeError answers
// errors in the protocol's error format; each proposal is authorized by
// the ingest pipeline.
func Handler(ing Ingester, actor func(*http.Request) string, writeError func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, r, err)
			return
		}
		e, err := Parse(body)
		if err != nil {
			writeError(w, r, err)
			return
		}
		props, err := Convert(e)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if _, err := ing.Ingest(r.Context(), actor(r), props); err != nil {
			writeError(w, r, catalog.WithOp("OpenLineage run event", err))
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}
