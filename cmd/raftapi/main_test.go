package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommandLine runs the real binary, since exit statuses and which
// stream the usage goes to are the behaviour under test. No case gets as
// far as starting a server; each runs in an empty directory under a
// deadline in case one does.
func TestCommandLine(t *testing.T) {
	bin := buildBinary(t)
	tests := []struct {
		name   string
		args   []string
		status int
		stream string   // "stdout" or "stderr": where the text goes; the other stays empty
		want   []string // substrings of that stream
	}{
		{"no command", nil, 2, "stderr", []string{"no command given", "usage: raftapi <command>"}},
		{"-h", []string{"-h"}, 0, "stdout", []string{"usage: raftapi <command>", "serve"}},
		{"--help", []string{"--help"}, 0, "stdout", []string{"usage: raftapi <command>"}},
		{"help", []string{"help"}, 0, "stdout", []string{"usage: raftapi <command>"}},
		{"unknown command", []string{"frobnicate"}, 2, "stderr", []string{`unknown command "frobnicate"`, "usage: raftapi <command>"}},
		{"serve -h", []string{"serve", "-h"}, 0, "stdout", []string{"usage: raftapi serve", "-data-dir"}},
		{"serve --help", []string{"serve", "--help"}, 0, "stdout", []string{"usage: raftapi serve", "-data-dir"}},
		{"serve bad flag", []string{"serve", "--bogus-flag"}, 2, "stderr", []string{"-bogus-flag", "usage: raftapi serve", "-data-dir"}},
		{"serve bad flag value", []string{"serve", "--history-retention", "soon"}, 2, "stderr", []string{"history-retention", "usage: raftapi serve"}},
		{"status -h", []string{"status", "-h"}, 0, "stdout", []string{"usage: raftapi status", "-server"}},
		{"members -h", []string{"members", "-h"}, 0, "stdout", []string{"usage: raftapi members", "-server"}},
		{"leave --help", []string{"leave", "--help"}, 0, "stdout", []string{"usage: raftapi leave", "-server"}},
		{"status bad flag", []string{"status", "--bogus-flag"}, 2, "stderr", []string{"-bogus-flag", "usage: raftapi status"}},
		{"snapshot -h", []string{"snapshot", "-h"}, 0, "stdout", []string{"raftapi snapshot save", "raftapi snapshot restore"}},
		{"snapshot save -h", []string{"snapshot", "save", "-h"}, 0, "stdout", []string{"usage: raftapi snapshot save", "-server"}},
		{"snapshot restore -h", []string{"snapshot", "restore", "-h"}, 0, "stdout", []string{"usage: raftapi snapshot restore", "-data-dir"}},
		{"snapshot without subcommand", []string{"snapshot"}, 2, "stderr", []string{"missing subcommand", "raftapi snapshot save"}},
		{"snapshot unknown subcommand", []string{"snapshot", "load"}, 2, "stderr", []string{`unknown subcommand "load"`}},
		{"snapshot save without FILE", []string{"snapshot", "save"}, 2, "stderr", []string{"want exactly one FILE", "usage: raftapi snapshot save"}},
		// Nothing listens on port 1: the command runs and fails.
		{"command fails", []string{"status", "--server", "http://127.0.0.1:1"}, 1, "stderr", []string{"raftapi: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, stdout, stderr := runBinary(t, bin, tt.args...)
			if status != tt.status {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tt.status, stdout, stderr)
			}
			got, other := stdout, stderr
			if tt.stream == "stderr" {
				got, other = stderr, stdout
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s lacks %q:\n%s", tt.stream, w, got)
				}
			}
			if other != "" {
				t.Errorf("the other stream is not empty:\n%s", other)
			}
		})
	}
}

// buildBinary builds cmd/raftapi into a temporary directory and returns its
// path. It skips the test when the go command is not on PATH.
func buildBinary(t *testing.T) string {
	t.Helper()
	goCmd := goCommand(t)
	bin := filepath.Join(t.TempDir(), "raftapi")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goCmd, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// goCommand returns the path of the go command, skipping the test when
// there is none.
func goCommand(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	return path
}

// runBinary runs bin with args in an empty directory and returns its exit
// status and output. It fails the test if bin does not exit within 30s.
func runBinary(t *testing.T, bin string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var outBuf, errBuf bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Stdout, cmd.Stderr = &outBuf, &errBuf
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("raftapi %q did not exit within the deadline", args)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("run raftapi %q: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), outBuf.String(), errBuf.String()
}
