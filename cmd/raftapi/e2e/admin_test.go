package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestAdminCommands drives the operator surface of a gossip cluster:
// kubectl get members, raftapi members and status, and raftapi leave.
func TestAdminCommands(t *testing.T) {
	c := newGossipCluster(t)
	c.start("n1", 3)
	c.start("n2", 3, "n1")
	c.start("n3", 3, "n1")
	c.waitVoters("n1,n2,n3", "n1", "n2", "n3")
	// n1's admin kubeconfig; it reaches n3 too, with --server.
	kubeconfig := c.nodes["n1"].kubeconfig()

	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Log("kubectl not on PATH: skipping kubectl get members")
	} else {
		out := run(t, "kubectl", "--kubeconfig", kubeconfig, "get", "members")
		for _, want := range []string{"NAME", "ROLE", "n1", "n2", "n3", "Leader", "Voter"} {
			if !strings.Contains(out, want) {
				t.Fatalf("kubectl get members lacks %q:\n%s", want, out)
			}
		}
	}
	out := run(t, binary, "members", "--kubeconfig", kubeconfig)
	if strings.Count(out, "Voter") != 3 || !strings.Contains(out, "Leader") {
		t.Fatalf("raftapi members:\n%s", out)
	}
	out = run(t, binary, "status", "--kubeconfig", kubeconfig)
	for _, want := range []string{"leader:", "term:", "applied:", "n3"} {
		if !strings.Contains(out, want) {
			t.Fatalf("raftapi status lacks %q:\n%s", want, out)
		}
	}
	run(t, binary, "leave", "--kubeconfig", kubeconfig, "--server", c.nodes["n3"].url())
	if !c.nodes["n3"].waitExit(30 * time.Second) {
		t.Fatal("n3 still running after raftapi leave")
	}
	c.waitVoters("n1,n2", "n1", "n2")
}
