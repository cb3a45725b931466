package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/raftapi/raftapi/cluster"
	"github.com/raftapi/raftapi/pki"
)

// newTokenCmd builds "raftapi token": it prints the join token of the
// cluster whose node keeps its data in --data-dir; "token generate" makes
// a new strong secret to start a cluster with.
func newTokenCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print the cluster's join token, or generate a new one",
		Long: `Print the join token stored in a node's data directory
(K10<ca-hash>::server:<secret>): other nodes join the cluster with it
(--token or --token-file), and clients can pin the cluster CA by its hash.
"raftapi token generate" prints a new random secret to start a cluster
with.`,
		Example: `  raftapi token --data-dir d1
  TOKEN=$(raftapi token generate)`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tok, err := cluster.ReadToken(dir)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), tok)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "data-dir", cluster.DefaultDataDir, "data directory of a node of the cluster")
	_ = cmd.MarkFlagDirname("data-dir")
	cmd.AddCommand(&cobra.Command{
		Use:     "generate",
		Short:   "Print a new random secret for a new cluster's --token",
		Example: `  TOKEN=$(raftapi token generate)`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), pki.NewSecret())
			return nil
		},
	})
	return cmd
}
