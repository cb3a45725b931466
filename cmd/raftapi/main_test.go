package main

import (
	"bytes"
	"context"
	"errors"
	"os"
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
		{"no command: help", nil, 0, "stdout", []string{"Usage:", "raftapi [command]", "serve", "members"}},
		{"-h", []string{"-h"}, 0, "stdout", []string{"Usage:", "serve", "Examples:"}},
		{"--help", []string{"--help"}, 0, "stdout", []string{"Usage:", "RAFTAPI_"}},
		{"help", []string{"help"}, 0, "stdout", []string{"Usage:"}},
		{"help serve", []string{"help", "serve"}, 0, "stdout", []string{"raftapi serve [flags]", "--data-dir"}},
		{"unknown command", []string{"frobnicate"}, 2, "stderr", []string{`unknown command "frobnicate"`, "raftapi --help"}},
		{"misspelt command", []string{"serv"}, 2, "stderr", []string{`did you mean serve?`}},
		{"--version", []string{"--version"}, 0, "stdout", []string{"raftapi v9.8.7-test (commit 0123abcd", "go1."}},
		{"version", []string{"version"}, 0, "stdout", []string{"version:   v9.8.7-test", "commit:    0123abcd", "go:        go1."}},
		{"version -o json", []string{"version", "-o", "json"}, 0, "stdout", []string{`"version": "v9.8.7-test"`, `"commit": "0123abcd"`}},
		{"version bad output", []string{"version", "-o", "xml"}, 2, "stderr", []string{`"xml" is neither text nor json`}},
		{"completion bash", []string{"completion", "bash"}, 0, "stdout", []string{"bash completion", "__start_raftapi"}},
		{"completion zsh", []string{"completion", "zsh"}, 0, "stdout", []string{"#compdef raftapi"}},
		{"completion fish", []string{"completion", "fish"}, 0, "stdout", []string{"complete -c raftapi"}},
		{"serve -h", []string{"serve", "-h"}, 0, "stdout", []string{"raftapi serve [flags]", "--data-dir", "--initial-cluster-state", "--config-file", "Examples:"}},
		{"serve --help", []string{"serve", "--help"}, 0, "stdout", []string{"--data-dir"}},
		{"serve bad flag", []string{"serve", "--bogus-flag"}, 2, "stderr", []string{"unknown flag: --bogus-flag", "raftapi serve --help"}},
		{"serve bad flag value", []string{"serve", "--history-retention", "soon"}, 2, "stderr", []string{"history-retention", "raftapi serve --help"}},
		{"serve bad log format", []string{"serve", "--log-format", "xml"}, 2, "stderr", []string{`"xml" is neither text nor json`}},
		{"serve bad cluster state", []string{"serve", "--initial-cluster-state", "old"}, 2, "stderr", []string{`"old" is neither new nor existing`}},
		{"serve stray argument", []string{"serve", "now"}, 2, "stderr", []string{"takes no arguments"}},
		{"serve missing config file", []string{"serve", "--config-file", "nope.yaml"}, 1, "stderr", []string{"--config-file", "nope.yaml"}},
		{"status -h", []string{"status", "-h"}, 0, "stdout", []string{"raftapi status", "--server", "--kubeconfig", "Examples:"}},
		{"members -h", []string{"members", "-h"}, 0, "stdout", []string{"raftapi members", "add", "remove", "promote", "list"}},
		{"members add -h", []string{"members", "add", "-h"}, 0, "stdout", []string{"--peer-address", "--learner", "Examples:"}},
		{"members add without name", []string{"members", "add", "--peer-address", "127.0.0.1:1"}, 2, "stderr", []string{"wants 1 argument"}},
		{"members add without address", []string{"members", "add", "n4"}, 2, "stderr", []string{"--peer-address is required"}},
		{"members unknown", []string{"members", "evict", "n2"}, 2, "stderr", []string{`unknown command "evict"`}},
		{"leave --help", []string{"leave", "--help"}, 0, "stdout", []string{"raftapi leave", "--server"}},
		{"status bad flag", []string{"status", "--bogus-flag"}, 2, "stderr", []string{"--bogus-flag", "raftapi status --help"}},
		{"snapshot", []string{"snapshot"}, 0, "stdout", []string{"save", "restore", "status"}},
		{"snapshot -h", []string{"snapshot", "-h"}, 0, "stdout", []string{"save", "restore", "status"}},
		{"snapshot save -h", []string{"snapshot", "save", "-h"}, 0, "stdout", []string{"raftapi snapshot save FILE", "--server"}},
		{"snapshot restore -h", []string{"snapshot", "restore", "-h"}, 0, "stdout", []string{"raftapi snapshot restore FILE", "--data-dir"}},
		{"snapshot unknown subcommand", []string{"snapshot", "load"}, 2, "stderr", []string{`unknown command "load"`}},
		{"snapshot save without FILE", []string{"snapshot", "save"}, 2, "stderr", []string{"wants 1 argument", "raftapi snapshot save --help"}},
		{"snapshot status of no file", []string{"snapshot", "status", "missing.db"}, 1, "stderr", []string{"missing.db"}},
		{"defrag -h", []string{"defrag", "-h"}, 0, "stdout", []string{"--data-dir", "stopped"}},
		{"defrag of nothing", []string{"defrag", "--data-dir", "."}, 1, "stderr", []string{"holds no node databases"}},
		{"token generate", []string{"token", "generate"}, 0, "stdout", nil},
		{"kubeconfig without server", []string{"kubeconfig", "--token", "some-secret-string-1234"}, 2, "stderr", []string{"--server must be"}},
		{"kubeconfig two tokens", []string{"kubeconfig", "--server", "https://h:1", "--token", "x", "--data-dir", "d"}, 2, "stderr", []string{"exactly one of"}},
		{"kubeconfig from a token", []string{"kubeconfig", "--server", "https://10.0.0.1:6443", "--token", "some-secret-string-1234"}, 0, "stdout", []string{"server: https://10.0.0.1:6443", "client-certificate-data", "certificate-authority-data"}},
		{"env sets a flag", []string{"status"}, 1, "stderr", []string{"no kubeconfig at from-env.kubeconfig"}},
		// Nothing listens on port 1: the command runs and fails.
		{"command fails", []string{"status", "--server", "http://127.0.0.1:1"}, 1, "stderr", []string{"raftapi: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, stdout, stderr := runBinary(t, bin, tt.args...)
			if tt.stream == "stderr" && strings.Contains(stderr, "goroutine ") {
				t.Errorf("a Go stack on stderr:\n%s", stderr)
			}
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
	// Stamped as the Makefile stamps a release.
	out, err := exec.CommandContext(ctx, goCmd, "build", "-o", bin,
		"-ldflags", "-X main.version=v9.8.7-test -X main.commit=0123abcd", ".").CombinedOutput()
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
	cmd.Env = append(os.Environ(), "RAFTAPI_KUBECONFIG=from-env.kubeconfig")
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
