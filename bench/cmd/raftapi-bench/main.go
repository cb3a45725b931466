// Command raftapi-bench measures a cluster of real raftapi processes
// through their HTTP API, and, for comparison, an etcd cluster doing the
// same work with raw key-value requests.
//
//	raftapi-bench cluster   the figures of make bench-cluster
//	raftapi-bench scale     the figures of make bench-scale
//	raftapi-bench conversion the figures of make bench-conversion
//
// Each prints a markdown table and writes report.md, report.json and
// report.html into its output directory. It exits 1 when a figure had
// errors or no operations. Every process it starts and every directory
// it makes is removed at exit, on Ctrl-C and on error too.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(run(os.Args[1:])) }

// commands are the subcommands; etcd-member is internal: the etcd
// cluster's members are this binary started with it.
var commands = map[string]func(ctx context.Context, args []string) int{
	"cluster":     clusterCmd,
	"scale":       scaleCmd,
	"conversion":  conversionCmd,
	"etcd-member": etcdMemberCmd,
}

func run(args []string) int {
	if len(args) == 0 || commands[args[0]] == nil {
		fmt.Fprintln(os.Stderr, "usage: raftapi-bench cluster|scale|conversion [flags]   (-h for a command's flags)")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends the program at once
	}()
	return commands[args[0]](ctx, args[1:])
}
