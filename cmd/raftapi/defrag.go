package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/raftapi/raftapi/cluster"
)

func newDefragCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "defrag --data-dir DIR",
		Short: "Compact a stopped node's state database",
		Long: `Compact the state database of a stopped node. bbolt never gives freed
pages back to the file system, so a node that once held much more data
than now keeps its file's size; defrag rewrites the file densely and
renames it into place (a crash leaves the old file or the new one). The
raft log, a write-ahead log, drops whole segment files by itself (a
raft.db of an earlier release is compacted too until the node's next
start moves it). The node must be stopped: a running node's directory is
refused.
Offline only, unlike etcd's online defrag: the state database is written
on every apply, and a copy of it would block writes for its duration.`,
		Example: `  raftapi defrag --data-dir /var/lib/raftapi`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := cluster.Defrag(dir)
			for _, r := range res {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s -> %s\n", r.File, byteSize(r.Before), byteSize(r.After))
			}
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "data-dir", cluster.DefaultDataDir, "data directory of the stopped node")
	_ = cmd.MarkFlagDirname("data-dir")
	return cmd
}
