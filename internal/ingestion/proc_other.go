//go:build !unix

package ingestion

import (
	"os/exec"
	"time"
)

func setProcessGroup(*exec.Cmd) {}

// stopProcess kills cmd's process.
func stopProcess(cmd *exec.Cmd) *time.Timer {
	_ = cmd.Process.Kill()
	return time.NewTimer(0)
}
