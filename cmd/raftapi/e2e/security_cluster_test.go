package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSecurityStaticCluster forms a three-node static cluster from a
// token, replicates a write, and shows that a member cannot come back with
// another token: not on its data directory (refused at start) and not on a
// fresh one (its peers refuse it); with the right token it rejoins.
func TestSecurityStaticCluster(t *testing.T) {
	token := strings.TrimSpace(run(t, binary, "token", "generate"))
	nodes := secStartStatic(t, "s", 3, token)
	secCheckReplicates(t, nodes, "static-before")
	initial := secInitial(nodes)
	s3 := nodes[2]

	t.Run("same-data-dir-other-token-refused", func(t *testing.T) {
		s3.stop()
		from := s3.logSize()
		s3.start(t, "--token", "another-cluster-secret")
		secWaitFailed(t, s3, from, "--token differs from the token of the cluster")
	})
	t.Run("fresh-data-dir-other-token-never-joins", func(t *testing.T) {
		rogue := secNewNode(t, s3.name, false)
		rogue.peer = s3.peer
		marks := secLogMarks(nodes[:2])
		rogue.start(t, "--initial-cluster", initial, "--token", "another-cluster-secret")
		rogueAnon := secAnonymous(t, rogue.config(t))
		// Synchronise on the survivors having refused the rogue's
		// connections, then watch for a while longer.
		secWaitLog(t, nodes[:2], marks, "peer connection refused")
		leader, _ := secWaitLeader(t, nodes[:2])
		secHolds(t, 5*time.Second, "the cluster without its member", func() error {
			if r, err := secDo(rogueAnon, http.MethodGet, "https://"+rogue.api+"/readyz"); err == nil && r.code == http.StatusOK {
				return fmt.Errorf("the rogue node is ready")
			}
			got, err := leader.members(t)
			if err != nil {
				return err
			}
			if want := secNames(nodes); !slices.Equal(got, want) {
				return fmt.Errorf("members %v, want %v", got, want)
			}
			return nil
		})
		secMustKubectl(t, nodes[0].kubeconfig(t), "create", "configmap", "written-while-rogue", "--from-literal=k=v")
		rogue.stop()
	})
	t.Run("right-token-rejoins", func(t *testing.T) {
		s3.start(t, "--token", token)
		secWaitReady(t, s3)
		secWaitLeader(t, nodes)
		secEventually(t, 30*time.Second, "s3 reads the write made while it was away", func() error {
			_, err := secClientset(t, s3.config(t)).CoreV1().ConfigMaps("default").Get(context.Background(), "written-while-rogue", metav1.GetOptions{})
			return err
		})
	})
}

// TestSecurityGossipCluster forms a three-node gossip cluster whose first
// node was given a bare secret and the others the full token it prints,
// replicates a write, and shows that a node with a wrong token never
// becomes a member and a node without one does not start.
func TestSecurityGossipCluster(t *testing.T) {
	secret := "gossip-e2e-" + secRandom(t)
	var nodes []*secNode
	for i := range 3 {
		nodes = append(nodes, secNewNode(t, fmt.Sprintf("g%d", i+1), true))
	}
	g1 := nodes[0]
	g1.start(t, "--bootstrap-expect", "3", "--token", secret)
	g1.kubeconfig(t)
	full := strings.TrimSpace(run(t, binary, "token", "--data-dir", g1.data))
	if !strings.HasPrefix(full, "K10") || !strings.HasSuffix(full, "::server:"+secret) {
		t.Fatalf("raftapi token prints %q, want K10<hash>::server:%s", full, secret)
	}
	for _, n := range nodes[1:] {
		n.start(t, "--bootstrap-expect", "3", "--join", g1.gossip, "--token", full)
	}
	for _, n := range nodes {
		secWaitReady(t, n)
	}
	secWaitMembers(t, nodes, secNames(nodes))
	secWaitLeader(t, nodes)
	secCheckReplicates(t, nodes, "gossip")
	join := g1.gossip + "," + nodes[1].gossip

	t.Run("wrong-token-never-member", func(t *testing.T) {
		g4 := secNewNode(t, "g4", true)
		marks := secLogMarks(nodes)
		g4.start(t, "--join", join, "--token", "not-"+secret)
		g4Anon := secAnonymous(t, g4.config(t))
		// Synchronise on the cluster having refused g4's gossip.
		secWaitLog(t, nodes, marks, "decrypt")
		secHolds(t, 10*time.Second, "g4 stays out", func() error {
			if !g4.running() {
				return nil
			}
			if r, err := secDo(g4Anon, http.MethodGet, "https://"+g4.api+"/readyz"); err == nil && r.code == http.StatusOK {
				return fmt.Errorf("g4 is ready")
			}
			for _, n := range nodes {
				got, err := n.members(t)
				if err != nil {
					return err
				}
				if want := secNames(nodes); !slices.Equal(got, want) {
					return fmt.Errorf("%s lists members %v, want %v", n.name, got, want)
				}
			}
			return nil
		})
		g4.stop()
	})
	t.Run("wrong-secret-in-full-token-refused", func(t *testing.T) {
		g5 := secNewNode(t, "g5", true)
		hash, _, _ := strings.Cut(full, "::")
		g5.start(t, "--join", join, "--token", hash+"::server:not-"+secret)
		secWaitFailed(t, g5, 0, "does not match the CAs its secret derives")
	})
	t.Run("missing-token-refused", func(t *testing.T) {
		g6 := secNewNode(t, "g6", true)
		g6.start(t, "--join", join)
		secWaitFailed(t, g6, 0, "needs --token")
	})
}

// secCheckReplicates writes a config map with kubectl through the first
// node and reads it on the second with client-go and on the others with
// kubectl, each with its own node's admin kubeconfig.
func secCheckReplicates(t *testing.T, nodes []*secNode, name string) {
	t.Helper()
	value := secRandom(t)
	secMustKubectl(t, nodes[0].kubeconfig(t), "create", "configmap", name, "--from-literal=k="+value)
	cs := secClientset(t, nodes[1].config(t))
	secEventually(t, 30*time.Second, nodes[1].name+" reads the write with client-go", func() error {
		cm, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data["k"] != value {
			return fmt.Errorf("k = %q, want %q", cm.Data["k"], value)
		}
		return nil
	})
	for _, n := range nodes[2:] {
		secEventually(t, 30*time.Second, n.name+" reads the write with kubectl", func() error {
			out, err := secKubectl(n.kubeconfig(t), "get", "configmap", name, "-o", "jsonpath={.data.k}")
			if err != nil {
				return secWrapOut(err, out)
			}
			if out != value {
				return fmt.Errorf("k = %q, want %q", out, value)
			}
			return nil
		})
	}
}

// secWaitMembers waits until every node lists want as the raft members.
func secWaitMembers(t *testing.T, nodes []*secNode, want []string) {
	t.Helper()
	for _, n := range nodes {
		secEventually(t, secFormTimeout, n.name+" lists the members", func() error {
			got, err := n.members(t)
			if err != nil {
				return err
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("members %v, want %v", got, want)
			}
			return nil
		})
	}
}

// secWaitFailed waits for n to exit with a failure whose log, from byte
// from on, says want.
func secWaitFailed(t *testing.T, n *secNode, from int64, want string) {
	t.Helper()
	if !n.waitExit(60 * time.Second) {
		t.Fatalf("%s still runs; want it to refuse to start with %q", n.name, want)
	}
	if code := n.cmd.ProcessState.ExitCode(); code == 0 {
		t.Errorf("%s exited with status 0", n.name)
	}
	out := n.log(from)
	if !strings.Contains(out, want) {
		t.Errorf("%s's output does not say %q:\n%s", n.name, want, tail(out, 2000))
	}
	t.Logf("%s refused to start: %s", n.name, strings.TrimSpace(tail(out, 400)))
}

// secLogMarks returns the length of each node's log, to read what follows.
func secLogMarks(nodes []*secNode) []int64 {
	marks := make([]int64, len(nodes))
	for i, n := range nodes {
		marks[i] = n.logSize()
	}
	return marks
}

// secWaitLog waits until one of nodes logs something containing want
// (case-insensitively) after its mark.
func secWaitLog(t *testing.T, nodes []*secNode, marks []int64, want string) {
	t.Helper()
	secEventually(t, 60*time.Second, "a node logs "+want, func() error {
		for i, n := range nodes {
			for _, l := range strings.Split(n.log(marks[i]), "\n") {
				if strings.Contains(strings.ToLower(l), strings.ToLower(want)) {
					t.Logf("%s logged: %s", n.name, tail(l, 300))
					return nil
				}
			}
		}
		return fmt.Errorf("not logged yet")
	})
}

// secInitial is the --initial-cluster value naming nodes.
func secInitial(nodes []*secNode) string {
	var parts []string
	for _, n := range nodes {
		parts = append(parts, n.name+"="+n.peer)
	}
	return strings.Join(parts, ",")
}

// secRandom is a short random hex string.
func secRandom(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
