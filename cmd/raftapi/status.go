package main

import (
	"fmt"
	"io"
	"net/http"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/raftapi/raftapi/cluster"
)

// nodeStatus is the raft status of the node asked.
type nodeStatus struct {
	Name         string `json:"name"`
	State        string `json:"state"`
	Term         uint64 `json:"term"`
	LeaderID     string `json:"leaderID"`
	CommitIndex  uint64 `json:"commitIndex"`
	AppliedIndex uint64 `json:"appliedIndex"`
	Compacted    uint64 `json:"compacted"`
}

func newStatusCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show every member's leader, term, applied index, database size and health",
		Long: `Show the raft status of the node asked (state, term, commit and applied
index, history boundary), then one line per member as that member reports
itself over the peer channel: its role, the leader it follows, its term,
applied index, database size on disk, and whether it is healthy (answers
and knows a leader). A member that does not answer is unhealthy.`,
		Example: `  raftapi status --kubeconfig d1/admin.kubeconfig
  raftapi status --server https://127.0.0.1:8082 --kubeconfig d1/admin.kubeconfig -o json`,
		Args: noArgs,
	}
	cf := addClientFlags(cmd)
	checkOutput := outputFlag(cmd, &output, "table", "json")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := checkOutput(); err != nil {
			return err
		}
		c, err := newAdminClient(cf)
		if err != nil {
			return err
		}
		var st nodeStatus
		if err := c.do(http.MethodGet, cluster.StatusPath, nil, &st); err != nil {
			return err
		}
		l, err := c.members()
		if err != nil {
			return err
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), map[string]any{"node": st, "members": l.Items})
		}
		printStatus(cmd.OutOrStdout(), &st, l)
		return nil
	}
	return cmd
}

func printStatus(w io.Writer, st *nodeStatus, l *memberList) {
	fmt.Fprintf(w, "node:       %s (%s)\nleader:     %s\nterm:       %d\ncommit:     %d\napplied:    %d\ncompacted:  %d\n\n",
		st.Name, st.State, st.LeaderID, st.Term, st.CommitIndex, st.AppliedIndex, st.Compacted)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tSUFFRAGE\tLEADER\tTERM\tAPPLIED\tDB SIZE\tHEALTHY\tAPI")
	for _, m := range l.Items {
		s := m.Status
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%t\t%s\n", m.Metadata.Name, s.Role, s.Suffrage, s.Leader, s.Term, s.AppliedIndex, byteSize(s.DBSize), s.Healthy, s.APIAddress)
	}
	tw.Flush()
}

// byteSize renders n bytes for people: 512 B, 1.5 MiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func newLeaveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "leave",
		Short: "Make a node leave the cluster and stop",
		Long: `Make the node the client talks to (the kubeconfig's server, or --server)
leave the cluster: it hands leadership over if it leads, the leader removes
it from the raft configuration, and it stops. Works for static and gossip
clusters. The cluster's last voter cannot leave.`,
		Example: `  raftapi leave --server https://127.0.0.1:8083 --kubeconfig d1/admin.kubeconfig`,
		Args:    noArgs,
	}
	cf := addClientFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		c, err := newAdminClient(cf)
		if err != nil {
			return err
		}
		var st nodeStatus
		_ = c.do(http.MethodGet, cluster.StatusPath, nil, &st)
		if err := c.do(http.MethodPost, cluster.LeavePath, nil, nil); err != nil {
			return err
		}
		if st.Name != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "node %s left the cluster and is stopping\n", st.Name)
		} else {
			fmt.Fprintln(cmd.OutOrStdout(), "left the cluster")
		}
		return nil
	}
	return cmd
}
