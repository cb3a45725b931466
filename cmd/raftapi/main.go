// Command raftapi is the raftapi server: a Kubernetes-style API server
// whose storage is its own Raft log.
//
//	raftapi serve [flags]    run a node (with no flags: a single node
//	                         keeping its data in ./raftapi-data)
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "raftapi:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return serve(nil)
	}
	switch args[0] {
	case "serve":
		return serve(args[1:])
	case "snapshot":
		return snapshotCmd(args[1:])
	case "members":
		return membersCmd(args[1:])
	case "leave":
		return leaveCmd(args[1:])
	case "status":
		return statusCmd(args[1:])
	case "help", "-h", "--help":
		fmt.Println(usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

const usage = `usage: raftapi <command> [flags]

commands:
  serve              run a node (see raftapi serve -h)
  snapshot save      stream a consistent snapshot from a running node to a file
  snapshot restore   prepare a data directory from a snapshot file
  members            list the cluster's members (--server URL)
  status             leader, term, indexes and member health (--server URL)
  leave              make a node leave the cluster and stop (--server URL)`
