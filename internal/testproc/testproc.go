// Package testproc lets tests check what their own process still holds
// after the code under test says it has let go: open files and running
// goroutines. It imports only the standard library, so that any package's
// tests can use it, the store's own included.
package testproc

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// OpenFiles lists the files under dir this process has open, as Linux
// shows them in /proc/self/fd. The error says they cannot be listed here.
func OpenFiles(dir string) ([]string, error) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	var open []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			open = append(open, target)
		}
	}
	return open, nil
}

// GoroutineStacks returns the stacks of every goroutine of this process.
func GoroutineStacks() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}
