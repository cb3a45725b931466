package main

import (
	"flag"
	"fmt"

	"github.com/raftapi/raftapi/cluster"
	"github.com/raftapi/raftapi/pki"
)

// tokenCmd prints the join token of the cluster whose node keeps its data
// in --data-dir, or with "generate" a new strong secret to start a cluster
// with.
func tokenCmd(args []string) error {
	if len(args) > 0 && args[0] == "generate" {
		fs := flag.NewFlagSet("token generate", flag.ContinueOnError)
		if err := parseFlags(fs, "raftapi token generate", args[1:]); err != nil {
			return err
		}
		fmt.Println(pki.NewSecret())
		return nil
	}
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	dir := fs.String("data-dir", cluster.DefaultDataDir, "data directory of a node of the cluster")
	if err := parseFlags(fs, "raftapi token [--data-dir DIR] | raftapi token generate", args); err != nil {
		return err
	}
	tok, err := cluster.ReadToken(*dir)
	if err != nil {
		return err
	}
	fmt.Println(tok)
	return nil
}
