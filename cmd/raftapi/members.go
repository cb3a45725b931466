package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/raftapi/raftapi/cluster"
)

// memberList is the part of a MemberList the commands print.
type memberList struct {
	Items []member `json:"items"`
}

type member struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Status struct {
		PeerAddress  string `json:"peerAddress"`
		APIAddress   string `json:"apiAddress"`
		Suffrage     string `json:"suffrage"`
		Role         string `json:"role"`
		AppliedIndex uint64 `json:"appliedIndex"`
		Healthy      bool   `json:"healthy"`
		Term         uint64 `json:"term"`
		Leader       string `json:"leader"`
		DBSize       int64  `json:"dbSize"`
	} `json:"status"`
}

// membersURL lists the members, each with its own status.
const membersURL = "/apis/raftapi.io/v1/members"

func (c *adminClient) members() (*memberList, error) {
	var l memberList
	if err := c.do(http.MethodGet, membersURL, nil, &l); err != nil {
		return nil, err
	}
	sort.Slice(l.Items, func(i, j int) bool { return l.Items[i].Metadata.Name < l.Items[j].Metadata.Name })
	return &l, nil
}

// newMembersCmd builds "raftapi members" and its sub-commands.
func newMembersCmd() *cobra.Command {
	list := newMembersListCmd()
	cmd := &cobra.Command{
		Use:   "members",
		Short: "List, add, remove and promote the cluster's members",
		Long: `List, add, remove and promote the members of the cluster's raft
configuration. Any node answers; changes are made by the leader.

Without a sub-command, members lists the members (as "members list").`,
		Example: `  raftapi members list --kubeconfig d1/admin.kubeconfig
  raftapi members add n4 --peer-address 127.0.0.1:7084 --kubeconfig d1/admin.kubeconfig
  raftapi members remove n4 --kubeconfig d1/admin.kubeconfig`,
		Args: noArgs,
		RunE: list.RunE,
	}
	cmd.Flags().AddFlagSet(list.Flags())
	cmd.AddCommand(list, newMembersAddCmd(), newMembersRemoveCmd(), newMembersPromoteCmd())
	return cmd
}

func newMembersListCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the members with their role, health and applied index",
		Long: `List the members of the raft configuration. Each member is asked for
its own status over the peer channel: a member that does not answer is
shown unhealthy.`,
		Example: `  raftapi members list --kubeconfig d1/admin.kubeconfig
  raftapi members list -o json`,
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
		l, err := c.members()
		if err != nil {
			return err
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), l)
		}
		printMembers(cmd.OutOrStdout(), l)
		return nil
	}
	return cmd
}

func printMembers(w io.Writer, l *memberList) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tSUFFRAGE\tHEALTHY\tAPPLIED\tPEER\tAPI")
	for _, m := range l.Items {
		s := m.Status
		fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%d\t%s\t%s\n", m.Metadata.Name, s.Role, s.Suffrage, s.Healthy, s.AppliedIndex, s.PeerAddress, s.APIAddress)
	}
	tw.Flush()
}

func newMembersAddCmd() *cobra.Command {
	var req cluster.AddMemberRequest
	cmd := &cobra.Command{
		Use:   "add NAME --peer-address HOST:PORT",
		Short: "Add a member to the cluster",
		Long: `Add a member to the raft configuration, as a voter or, with --learner, as
a non-voter that receives the log and can be promoted once it has caught
up. Then start the new node with the printed command line: the whole
--initial-cluster (itself included) and --initial-cluster-state existing.

Adding a voter changes the quorum at once: with a 3-node cluster, a fourth
voter that has not started yet leaves room for only one more failure.
Adding a learner first and promoting it avoids that.`,
		Example: `  raftapi members add n4 --peer-address 127.0.0.1:7084 --kubeconfig d1/admin.kubeconfig
  raftapi members add n4 --peer-address 10.0.0.4:7080 --learner`,
		Args: exactArgs("NAME"),
	}
	cf := addClientFlags(cmd)
	cmd.Flags().StringVar(&req.PeerAddress, "peer-address", "", "the new member's peer address (its --peer-listen or --peer-advertise)")
	cmd.Flags().BoolVar(&req.Learner, "learner", false, "add as a non-voting learner, to promote later (raftapi members promote)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		req.Name = args[0]
		if req.PeerAddress == "" {
			return usagef("--peer-address is required")
		}
		c, err := newAdminClient(cf)
		if err != nil {
			return err
		}
		if err := c.do(http.MethodPost, cluster.MembersPath, req, nil); err != nil {
			return err
		}
		kind := "voter"
		if req.Learner {
			kind = "learner"
		}
		out := cmd.OutOrStdout()
		fmt.Fprintf(out, "added member %s (%s) at %s\n", req.Name, kind, req.PeerAddress)
		if l, err := c.members(); err == nil {
			fmt.Fprintf(out, "start it with:\n  raftapi serve --name %s --peer-listen %s --initial-cluster %s --initial-cluster-state existing --token TOKEN\n",
				req.Name, req.PeerAddress, initialCluster(l, req.Name, req.PeerAddress))
		}
		return nil
	}
	return cmd
}

// initialCluster renders the members as an --initial-cluster value, with
// the member just added (name at peer) whether or not the list holds it
// yet: the node that served the list reads its own raft configuration,
// which may not have the new entry when another node committed it.
func initialCluster(l *memberList, name, peer string) string {
	parts := []string{}
	for _, m := range l.Items {
		if m.Metadata.Name != name {
			parts = append(parts, m.Metadata.Name+"="+m.Status.PeerAddress)
		}
	}
	parts = append(parts, name+"="+peer)
	return strings.Join(parts, ",")
}

func newMembersRemoveCmd() *cobra.Command {
	cmd := memberActionCmd(http.MethodDelete, "", "removed member %s\n")
	cmd.Use = "remove NAME"
	cmd.Short = "Remove a member from the cluster"
	cmd.Long = `Remove a member from the raft configuration. A removed node that still
runs no longer takes part; stop it and wipe its data directory before
adding it again. In a gossip cluster, a member that is alive in gossip is
refused (the leader would add it back): make it leave instead.`
	cmd.Example = `  raftapi members remove n4 --kubeconfig d1/admin.kubeconfig`
	return cmd
}

func newMembersPromoteCmd() *cobra.Command {
	cmd := memberActionCmd(http.MethodPost, "/promote", "promoted member %s to voter\n")
	cmd.Use = "promote NAME"
	cmd.Short = "Make a learner a voting member"
	cmd.Long = `Promote a learner (a non-voter added with members add --learner) to a
voter. Refused until the learner answers and has caught up with the
leader.`
	cmd.Example = `  raftapi members promote n4 --kubeconfig d1/admin.kubeconfig`
	return cmd
}

// memberActionCmd is a command that sends method to the member NAME's
// admin path (with suffix) and reports done (a format taking NAME).
func memberActionCmd(method, suffix, done string) *cobra.Command {
	cmd := &cobra.Command{Args: exactArgs("NAME")}
	cf := addClientFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c, err := newAdminClient(cf)
		if err != nil {
			return err
		}
		if err := c.do(method, cluster.MembersPath+"/"+url.PathEscape(args[0])+suffix, nil, nil); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), done, args[0])
		return nil
	}
	return cmd
}

// writeJSON writes v indented.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
