package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

// adminClient talks to one node's HTTP API.
type adminClient struct {
	server string
	http   *http.Client
}

// adminFlags parses the flags of the admin command name ("members",
// "status", "leave").
func adminFlags(name string, args []string) (*adminClient, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	cf := addClientFlags(fs)
	if err := parseFlags(fs, "raftapi "+name+" [--kubeconfig FILE] [--server URL]", args); err != nil {
		return nil, err
	}
	server, hc, err := cf.client(60 * time.Second)
	if err != nil {
		return nil, err
	}
	return &adminClient{server: server, http: hc}, nil
}

func (c *adminClient) do(method, path string, out any) error {
	req, err := http.NewRequest(method, c.server+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}

// memberList is the part of a MemberList the commands print.
type memberList struct {
	Items []struct {
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
		} `json:"status"`
	} `json:"items"`
}

func membersCmd(args []string) error {
	c, err := adminFlags("members", args)
	if err != nil {
		return err
	}
	var l memberList
	if err := c.do(http.MethodGet, "/apis/raftapi.io/v1/members", &l); err != nil {
		return err
	}
	printMembers(os.Stdout, &l)
	return nil
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

func statusCmd(args []string) error {
	c, err := adminFlags("status", args)
	if err != nil {
		return err
	}
	var st struct {
		Name         string `json:"name"`
		State        string `json:"state"`
		Term         uint64 `json:"term"`
		LeaderID     string `json:"leaderID"`
		CommitIndex  uint64 `json:"commitIndex"`
		AppliedIndex uint64 `json:"appliedIndex"`
		Compacted    uint64 `json:"compacted"`
	}
	if err := c.do(http.MethodGet, "/raftapi/v1/status", &st); err != nil {
		return err
	}
	fmt.Printf("node:       %s (%s)\nleader:     %s\nterm:       %d\ncommit:     %d\napplied:    %d\ncompacted:  %d\n\n",
		st.Name, st.State, st.LeaderID, st.Term, st.CommitIndex, st.AppliedIndex, st.Compacted)
	var l memberList
	if err := c.do(http.MethodGet, "/apis/raftapi.io/v1/members", &l); err != nil {
		return err
	}
	printMembers(os.Stdout, &l)
	return nil
}

func leaveCmd(args []string) error {
	c, err := adminFlags("leave", args)
	if err != nil {
		return err
	}
	if err := c.do(http.MethodPost, "/raftapi/v1/leave", nil); err != nil {
		return err
	}
	fmt.Println("left the cluster")
	return nil
}
