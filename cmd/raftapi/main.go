// Command raftapi is the raftapi server: a Kubernetes-style API server
// whose storage is its own Raft log, and the tools to operate it.
//
//	raftapi serve [flags]    run a node (with no flags: a single node
//	                         keeping its data in ./raftapi-data)
//	raftapi --help           list every command; "raftapi CMD --help"
//	                         shows CMD's flags and examples
//
// Exit status: 0 on success and when help was asked for, 1 when the command
// failed, 2 when the command line was wrong (an unknown command, a bad flag
// or argument); then the error goes to stderr with where to find help.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	// Everything the server writes (state, logs, snapshots, keys) is for
	// its owner only.
	syscall.Umask(0o077)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args (without the program name) and returns
// the process's exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	return exitStatus(err, cmd, stderr)
}

// exitStatus reports err on stderr and returns the exit status: 0 for no
// error, 2 for a mistake in the command line, 1 for anything else.
func exitStatus(err error, cmd *cobra.Command, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if isUsageError(err) {
		path := "raftapi"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(stderr, "raftapi: %v\nSee '%s --help' for usage.\n", err, path)
		return 2
	}
	fmt.Fprintln(stderr, "raftapi:", err)
	return 1
}

// usageError is a mistake in the command line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a *usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// isUsageError reports whether err is a mistake in the command line: ours,
// or cobra's own for an unknown command (which it finds before any of our
// code runs).
func isUsageError(err error) bool {
	var uerr *usageError
	return errors.As(err, &uerr) || strings.HasPrefix(err.Error(), "unknown command ")
}
