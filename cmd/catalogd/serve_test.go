package main

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/testproc"
)

// TestServeFailureStopsBackgroundWork checks that serve, failing after it
// started its background work (here: its address is taken), returns with
// none of it running: a pruner left behind used the store after serve had
// closed it, for as long as the process lived.
func TestServeFailureStopsBackgroundWork(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	stderr := &syncBuffer{}
	err = run(context.Background(), []string{"catalogd", "serve", "--auth=false", "--addr", taken.Addr().String(), "--data-dir", t.TempDir()},
		func(string) string { return "" }, io.Discard, stderr)
	if err == nil || !strings.Contains(err.Error(), "listen on") {
		t.Fatalf("serve on a taken address: %v, want a listen error\n%s", err, stderr)
	}
	if stacks := testproc.GoroutineStacks(); strings.Contains(stacks, "events.(*Stream).Prune") {
		t.Errorf("the event pruner still runs after serve returned:\n%s", stacks)
	}
}
