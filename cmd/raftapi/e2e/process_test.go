package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// process is one running raftapi server process.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has exited
}

// spawn starts the binary with args, appending its output to dir/log.
func spawn(t *testing.T, dir string, args []string) process {
	t.Helper()
	log, err := os.OpenFile(filepath.Join(dir, "log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p := process{cmd: exec.Command(binary, args...), exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = log, log
	if err := p.cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("start raftapi %s: %v", strings.Join(args, " "), err)
	}
	go func() { _ = p.cmd.Wait(); log.Close(); close(p.exited) }()
	return p
}

func (p process) signal(sig syscall.Signal) { _ = p.cmd.Process.Signal(sig) }

// kill sends SIGKILL and waits for the process to exit.
func (p process) kill() {
	p.signal(syscall.SIGKILL)
	<-p.exited
}

func (p process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// waitExit waits for the process to exit by itself within timeout.
func (p process) waitExit(timeout time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(timeout):
		return false
	}
}

// logTail logs the end of a process's log when the test failed.
func logTail(t *testing.T, name, dir string) {
	if !t.Failed() {
		return
	}
	if b, err := os.ReadFile(filepath.Join(dir, "log")); err == nil {
		t.Logf("log of %s:\n%s", name, tail(string(b), 3000))
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// run runs a command to completion and returns its standard output; a
// failure ends the test with both outputs.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
