//go:build unix

package ingestion

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup starts cmd in a process group of its own, so that
// stopping it stops what it started too (DataHub's CLI runs connectors in
// child processes).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// stopGrace is how long a stopped run has to exit after SIGTERM before it
// is killed.
const stopGrace = 5 * time.Second

// stopProcess asks cmd's process group to terminate, and kills it unless
// the returned timer is stopped (once the process has exited) within
// stopGrace.
func stopProcess(cmd *exec.Cmd) *time.Timer {
	pid := cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	return time.AfterFunc(stopGrace, func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
}
