package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGraphQLHTTPAudit runs the GraphQL-over-HTTP server audits of the npm
// package graphql-http (pinned in internal/graphql/audit/package-lock.json)
// against the real server and fails on any MUST-level failure. It skips when
// node or the installed package is missing; `make test` installs it.
func TestGraphQLHTTPAudit(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: the graphql-http audit needs Node.js")
	}
	dir := filepath.Join("..", "..", "internal", "graphql", "audit")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "graphql-http")); err != nil {
		t.Skipf("graphql-http not installed: run 'npm ci' in %s (make test does)", dir)
	}
	srv := startServer(t)
	cmd := exec.Command(node, "audit.mjs", srv.URL+"/api/graphql")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("graphql-http audit:\n%s", out)
	if err != nil {
		t.Fatalf("graphql-http audit failed: %v", err)
	}
}
