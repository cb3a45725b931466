package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/raftapi/raftapi/cluster"
)

func newSnapshotCmd() *cobra.Command {
	cmd := groupCmd("snapshot", "Save, inspect and restore backups")
	cmd.Long = `A snapshot is a consistent copy of a node's whole state at one revision
(resourceVersion), streamed from a running node. It restores into a new
data directory, for one node or for every node of a new cluster.`
	cmd.Example = `  raftapi snapshot save backup.db --kubeconfig d1/admin.kubeconfig
  raftapi snapshot status backup.db
  raftapi snapshot restore backup.db --data-dir restored --name n1`
	cmd.AddCommand(newSnapshotSaveCmd(), newSnapshotStatusCmd(), newSnapshotRestoreCmd())
	return cmd
}

func newSnapshotSaveCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "save FILE",
		Short: "Stream a consistent snapshot from a running node to FILE",
		Long: `Stream a snapshot of the node's state at a Most Recent point (a quorum
read) into FILE. The file is written beside its final name, synced and
checked, then renamed: FILE never holds a partial snapshot.`,
		Example: `  raftapi snapshot save backup.db --kubeconfig d1/admin.kubeconfig`,
		Args:    exactArgs("FILE"),
	}
	cf := addClientFlags(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "give up after this long")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		server, hc, err := cf.client(0)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		info, err := cluster.SaveSnapshot(ctx, hc, server, args[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "saved snapshot %s: revision %d, %d bytes\n", args[0], info.Revision, info.Size)
		return nil
	}
	return cmd
}

func newSnapshotStatusCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status FILE",
		Short: "Check a snapshot file and show its revision, objects and size",
		Long: `Check that FILE is a complete snapshot and show its revision (the
resourceVersion it was taken at), the number of objects, the number of
change records kept for reads at past revisions, the history boundary,
its size and its SHA-256 hash. A node need not run.`,
		Example: `  raftapi snapshot status backup.db
  raftapi snapshot status backup.db -o json`,
		Args: exactArgs("FILE"),
	}
	checkOutput := outputFlag(cmd, &output, "table", "json")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := checkOutput(); err != nil {
			return err
		}
		st, err := cluster.InspectSnapshot(args[0])
		if err != nil {
			return err
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), st)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "revision:   %d\nobjects:    %d\nchanges:    %d\ncompacted:  %d\nsize:       %d bytes (%s)\nsha256:     %s\n",
			st.Revision, st.Objects, st.Changes, st.Compacted, st.Size, byteSize(st.Size), st.SHA256)
		return nil
	}
	return cmd
}

func newSnapshotRestoreCmd() *cobra.Command {
	var cfg cluster.RestoreConfig
	var initial string
	cmd := &cobra.Command{
		Use:   "restore FILE --data-dir DIR",
		Short: "Prepare a new data directory from a snapshot file",
		Long: `Prepare a new, empty data directory from a snapshot, for the node --name.
For a cluster, restore the same snapshot once per node with the same
--initial-cluster and --token, then start every node with its --name and
--data-dir. History before the snapshot's revision is not restored: reads
and watches at older resourceVersions answer 410 Gone.`,
		Example: `  # A single node
  raftapi snapshot restore backup.db --data-dir restored --name n1
  raftapi serve --name n1 --data-dir restored

  # Node n1 of a new three-node cluster
  raftapi snapshot restore backup.db --data-dir d1 --name n1 --token "$TOKEN" \
    --initial-cluster n1=127.0.0.1:7081,n2=127.0.0.1:7082,n3=127.0.0.1:7083`,
		Args: exactArgs("FILE"),
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.DataDir, "data-dir", cluster.DefaultDataDir, "new data directory to prepare (must not exist or be empty)")
	fs.StringVar(&cfg.Name, "name", cluster.DefaultName, "name of the node that will serve --data-dir")
	fs.StringVar(&cfg.PeerListen, "peer-listen", cluster.DefaultPeerListen, "that node's peer address, for a single-node cluster")
	fs.StringVar(&initial, "initial-cluster", "", "the restored cluster: name=host:port,... (peer addresses); empty: the single node --name at --peer-listen")
	fs.StringVar(&cfg.Token, "token", "", "the restored cluster's join token, the same for every node (required for several nodes); stored in --data-dir")
	_ = cmd.MarkFlagDirname("data-dir")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var err error
		if cfg.InitialCluster, err = cluster.ParseInitialCluster(initial); err != nil {
			return &usageError{err: err}
		}
		rev, err := cluster.RestoreSnapshot(args[0], cfg)
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		fmt.Fprintf(out, "restored snapshot %s at revision %d into %s\n", args[0], rev, cfg.DataDir)
		fmt.Fprintf(out, "start the node with: raftapi serve --name %s --data-dir %s (and the same --peer-listen; the token is stored in the data dir)\n", cfg.Name, cfg.DataDir)
		return nil
	}
	return cmd
}
