// Command raftapi is the raftapi server: a Kubernetes-style API server
// whose storage is its own Raft log.
//
//	raftapi serve [flags]    run a node (with no flags: a single node
//	                         keeping its data in ./raftapi-data)
//	raftapi help             list every command; "raftapi CMD -h" shows
//	                         CMD's flags
//
// Exit status: 0 on success and when help was asked for, 1 when the command
// failed, 2 when the command line was wrong (no or unknown command, a bad
// flag); then the error and the usage go to stderr.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

func main() {
	// Everything the server writes (state, logs, snapshots, keys) is for
	// its owner only.
	syscall.Umask(0o077)
	os.Exit(exitStatus(run(os.Args[1:]), os.Stdout, os.Stderr))
}

// commands maps each sub-command's name to the function that runs it with
// the arguments after that name.
var commands = map[string]func(args []string) error{
	"serve":    serve,
	"snapshot": snapshotCmd,
	"members":  membersCmd,
	"status":   statusCmd,
	"leave":    leaveCmd,
	"token":    tokenCmd,
}

// run runs the command line args (without the program name).
func run(args []string) error {
	if len(args) == 0 {
		return &usageError{err: errors.New("no command given"), usage: usage}
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return &usageError{err: flag.ErrHelp, usage: usage}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return &usageError{err: fmt.Errorf("unknown command %q", args[0]), usage: usage}
	}
	return cmd(args[1:])
}

// exitStatus reports err on stdout or stderr and returns the process's exit
// status: 0 for no error and for a help request (its usage goes to stdout),
// 2 for a *usageError, 1 for anything else.
func exitStatus(err error, stdout, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var uerr *usageError
	if !errors.As(err, &uerr) {
		fmt.Fprintln(stderr, "raftapi:", err)
		return 1
	}
	if errors.Is(uerr, flag.ErrHelp) {
		fmt.Fprintln(stdout, uerr.usage)
		return 0
	}
	fmt.Fprintf(stderr, "raftapi: %v\n\n%s\n", uerr.err, uerr.usage)
	return 2
}

// usageError is a mistake in the command line, or a request for help when
// it wraps flag.ErrHelp. It carries the usage text of the command that was
// being parsed.
type usageError struct {
	err   error
	usage string
}

// Error returns the underlying error's message, without the usage text.
func (e *usageError) Error() string { return e.err.Error() }

// Unwrap returns the underlying error, so errors.Is(err, flag.ErrHelp)
// tells a help request from a mistake.
func (e *usageError) Unwrap() error { return e.err }

// parseFlags parses args with fs, which must use flag.ContinueOnError, and
// returns a *usageError holding fs's usage under synopsis when parsing
// fails or -h/--help is given. The flag package prints nothing itself.
func parseFlags(fs *flag.FlagSet, synopsis string, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return &usageError{err: err, usage: flagUsage(fs, synopsis)}
	}
	return nil
}

// flagUsage returns synopsis followed by the defaults of fs's flags.
func flagUsage(fs *flag.FlagSet, synopsis string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\nflags:\n", synopsis)
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return strings.TrimSuffix(b.String(), "\n")
}

const usage = `usage: raftapi <command> [flags]

commands:
  serve              run a node (see raftapi serve -h)
  snapshot save      stream a consistent snapshot from a running node to a file
  snapshot restore   prepare a data directory from a snapshot file
  members            list the cluster's members (--kubeconfig FILE)
  status             leader, term, indexes and member health (--kubeconfig FILE)
  leave              make a node leave the cluster and stop (--kubeconfig FILE)
  token              print the cluster's join token (--data-dir DIR); token generate: a new secret
  help               print this text; raftapi <command> -h prints a command's flags`
