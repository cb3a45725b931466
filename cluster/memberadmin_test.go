package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/raftapi/raftapi/raftstore"
)

// memberStates returns name -> "Voter@addr" / "Nonvoter@addr" from n's
// raft configuration.
func memberStates(t *testing.T, n *Node) map[string]string {
	t.Helper()
	conf, err := n.Store().Members()
	if err != nil {
		t.Fatalf("members: %v", err)
	}
	out := map[string]string{}
	for _, m := range conf {
		out[m.Name] = suffrage(m.Voter) + "@" + m.PeerAddr
	}
	return out
}

// statusReason is the reason of a Status body.
func statusReason(t *testing.T, body string) string {
	t.Helper()
	var st struct {
		Kind, Reason, Message string
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.Kind != "Status" {
		t.Fatalf("not a Status: %s", body)
	}
	return st.Reason
}

// waitMembers polls until every node's configuration is want.
func waitMembers(t *testing.T, nodes []*Node, want map[string]string) {
	t.Helper()
	for _, n := range nodes {
		pollUntil(t, n.cfg.Name+"'s configuration", func() (bool, string) {
			got := memberStates(t, n)
			return fmt.Sprint(got) == fmt.Sprint(want), fmt.Sprint(got)
		})
	}
}

// TestMembersAddPromoteRemove grows a static cluster by a learner through
// a follower's admin endpoint, starts it with JoinExisting, promotes it,
// writes through it, and removes it again; the configuration follows on
// every node, and every refused change answers kube's Status.
func TestMembersAddPromoteRemove(t *testing.T) {
	nodes := startStatic(t, "a", "b", "c")
	a, b, c := nodes["a"], nodes["b"], nodes["c"]
	pollUntil(t, "a leader", func() (bool, string) { return a.Store().Status().LeaderID != "", "" })
	dAddr := freeAddr(t)

	code, body := httpDo(t, b, http.MethodPost, MembersPath, `{"name":"d","peerAddress":"`+dAddr+`","learner":true}`)
	if code != http.StatusCreated {
		t.Fatalf("add d: %d %s", code, body)
	}
	want := memberStates(t, a)
	want["d"] = "Nonvoter@" + dAddr
	waitMembers(t, []*Node{a, b, c}, want)

	// Refused changes.
	for _, tc := range []struct {
		method, path, body string
		code               int
		reason             string
	}{
		{http.MethodPost, MembersPath, `{"name":"a","peerAddress":"127.0.0.1:1"}`, http.StatusConflict, "AlreadyExists"},
		{http.MethodDelete, MembersPath + "/zz", "", http.StatusNotFound, "NotFound"},
		{http.MethodPost, MembersPath + "/a/promote", "", http.StatusConflict, "Conflict"},
		{http.MethodPost, MembersPath + "/d/promote", "", http.StatusConflict, "Conflict"}, // not started yet
		{http.MethodPost, MembersPath, `{"name":"e"}`, http.StatusBadRequest, "BadRequest"},
		{http.MethodPost, MembersPath, `{"name":"e","peerAddress":"x:1","voter":true}`, http.StatusBadRequest, "BadRequest"},
		{http.MethodPut, MembersPath + "/a", "", http.StatusMethodNotAllowed, "MethodNotAllowed"},
	} {
		code, body := httpDo(t, c, tc.method, tc.path, tc.body)
		if code != tc.code || statusReason(t, body) != tc.reason {
			t.Errorf("%s %s %s: %d %s, want %d %s", tc.method, tc.path, tc.body, code, body, tc.code, tc.reason)
		}
	}

	peers := map[string]string{"d": dAddr}
	for name, n := range nodes {
		peers[name] = n.Store().PeerAddr()
	}
	d, err := Start(Config{Name: "d", DataDir: t.TempDir(), Listen: "127.0.0.1:0", PeerListen: dAddr, InitialCluster: peers, JoinExisting: true, Token: testToken})
	if err != nil {
		t.Fatalf("start d: %v", err)
	}
	t.Cleanup(func() { stopNode(t, d) })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := d.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, "d promoted", func() (bool, string) {
		code, body := httpDo(t, a, http.MethodPost, MembersPath+"/d/promote", "")
		return code == http.StatusOK, body
	})
	want["d"] = "Voter@" + dAddr
	waitMembers(t, []*Node{a, b, c, d}, want)
	if code, body := httpDo(t, d, http.MethodPost, "/api/v1/namespaces/default/configmaps", configMap("via-d", "1")); code != http.StatusCreated {
		t.Fatalf("write through d: %d %s", code, body)
	}

	if code, body := httpDo(t, c, http.MethodDelete, MembersPath+"/d", ""); code != http.StatusOK {
		t.Fatalf("remove d: %d %s", code, body)
	}
	delete(want, "d")
	waitMembers(t, []*Node{a, b, c}, want)
}

// TestStaticLeave: a node of a static cluster leaves through the leader,
// the leader itself too (it hands leadership over first), and the last
// voter is refused.
func TestStaticLeave(t *testing.T) {
	nodes := startStatic(t, "a", "b", "c")
	pollUntil(t, "a leader", func() (bool, string) { return nodes["a"].Store().Status().LeaderID != "", "" })
	leader := nodes[nodes["a"].Store().Status().LeaderID]
	var follower, other *Node
	for _, n := range nodes {
		switch {
		case n == leader:
		case follower == nil:
			follower = n
		default:
			other = n
		}
	}
	leave := func(n *Node) error {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		return n.Leave(ctx)
	}
	if err := leave(follower); err != nil {
		t.Fatalf("follower leaves: %v", err)
	}
	if err := leave(leader); err != nil {
		t.Fatalf("leader leaves: %v", err)
	}
	pollUntil(t, "only one member left", func() (bool, string) {
		m := memberStates(t, other)
		return len(m) == 1, fmt.Sprint(m)
	})
	err := leave(other)
	if !raftstore.IsConflict(err) || !strings.Contains(err.Error(), "only voter") {
		t.Fatalf("the last voter leaves: %v, want a conflict", err)
	}
}

// TestRestartWithNewPeerAddress: a static node restarted on another peer
// address gets it recorded in the configuration, and takes part again.
func TestRestartWithNewPeerAddress(t *testing.T) {
	peers := map[string]string{"a": freeAddr(t), "b": freeAddr(t), "c": freeAddr(t)}
	dirs := map[string]string{}
	nodes := map[string]*Node{}
	start := func(name, peerListen string) *Node {
		n, err := Start(Config{Name: name, DataDir: dirs[name], Listen: "127.0.0.1:0", PeerListen: peerListen, InitialCluster: peers, Token: testToken})
		if err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		t.Cleanup(func() { stopNode(t, n) })
		return n
	}
	for name := range peers {
		dirs[name] = t.TempDir()
		nodes[name] = start(name, peers[name])
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := nodes["c"].WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	stopNode(t, nodes["c"])
	moved := freeAddr(t)
	nodes["c"] = start("c", moved)
	want := map[string]string{"a": "Voter@" + peers["a"], "b": "Voter@" + peers["b"], "c": "Voter@" + moved}
	waitMembers(t, []*Node{nodes["a"], nodes["b"]}, want)
	if code, body := httpDo(t, nodes["a"], http.MethodPost, "/api/v1/namespaces/default/configmaps", configMap("after-move", "1")); code != http.StatusCreated {
		t.Fatalf("write: %d %s", code, body)
	}
	rev := nodes["a"].Store().Revision()
	pollUntil(t, "c applies the write", func() (bool, string) {
		got := nodes["c"].Store().Revision()
		return got >= rev, fmt.Sprintf("c at %d, want %d", got, rev)
	})
}
