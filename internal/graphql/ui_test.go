package graphql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/validator"

	generated "github.com/catalogd/catalogd/gen/graphql"
	"github.com/catalogd/catalogd/internal/contract"
)

// uiOperations reads DataHub's web UI operations from ../shared/datahub-ui,
// skipping the test when they are absent.
func uiOperations(t *testing.T) []contract.UIOperation {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "datahub-ui")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("DataHub's web UI documents not found in ../shared/datahub-ui")
	}
	ops, err := contract.UIOperations(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestUIOperationsValidate validates every operation of DataHub's web UI,
// with the fragments it spreads, against the schema the server serves: an
// operation that does not validate is rejected whole, and the page that sends
// it shows nothing.
func TestUIOperationsValidate(t *testing.T) {
	ops := uiOperations(t)
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	var failed []string
	for _, op := range ops {
		if errs := validator.Validate(schema, op.Doc); len(errs) > 0 {
			failed = append(failed, op.File+": "+op.Name+": "+errs[0].Message)
		}
	}
	if len(failed) > 0 {
		t.Errorf("%d of %d UI operations valid; %d fail:\n%s", len(ops)-len(failed), len(ops), len(failed), strings.Join(failed, "\n"))
	}
}
