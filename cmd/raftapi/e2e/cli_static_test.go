package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tryRun runs the binary with args under a deadline and returns its exit
// status and output.
func tryRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var o, e bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("raftapi %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

// cliMember is a member as "raftapi members list -o json" prints it.
type cliMember struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Status struct {
		PeerAddress  string `json:"peerAddress"`
		APIAddress   string `json:"apiAddress"`
		Suffrage     string `json:"suffrage"`
		Healthy      bool   `json:"healthy"`
		AppliedIndex uint64 `json:"appliedIndex"`
		Term         uint64 `json:"term"`
		Leader       string `json:"leader"`
		DBSize       int64  `json:"dbSize"`
	} `json:"status"`
}

// cliMembers lists the members through the CLI, asking node nd.
func cliMembers(t *testing.T, kubeconfig string, nd *node) (map[string]cliMember, error) {
	t.Helper()
	code, out, errOut := tryRun(t, "members", "list", "-o", "json", "--kubeconfig", kubeconfig, "--server", nd.url())
	if code != 0 {
		return nil, fmt.Errorf("members list: exit %d: %s", code, errOut)
	}
	var l struct {
		Items []cliMember `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		return nil, err
	}
	m := map[string]cliMember{}
	for _, it := range l.Items {
		m[it.Metadata.Name] = it
	}
	return m, nil
}

// waitCLIMembers polls, from every node in askers, until check holds for
// the member list.
func waitCLIMembers(t *testing.T, kubeconfig string, askers []*node, what string, check func(map[string]cliMember) error) {
	t.Helper()
	for _, nd := range askers {
		deadline := time.Now().Add(60 * time.Second)
		for {
			m, err := cliMembers(t, kubeconfig, nd)
			if err == nil {
				err = check(m)
			}
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s, asking %s: %v", what, nd.name, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// allHealthy checks that exactly names are members, each healthy, with an
// API address, a term, a leader, an applied index and a database size.
func allHealthy(names ...string) func(map[string]cliMember) error {
	return func(m map[string]cliMember) error {
		if len(m) != len(names) {
			return fmt.Errorf("members %v, want %v", keys(m), names)
		}
		for _, n := range names {
			s, ok := m[n]
			if !ok {
				return fmt.Errorf("no member %s in %v", n, keys(m))
			}
			st := s.Status
			if !st.Healthy || st.APIAddress == "" || st.AppliedIndex == 0 || st.Term == 0 || st.Leader == "" || st.DBSize == 0 {
				return fmt.Errorf("member %s: %+v", n, st)
			}
		}
		return nil
	}
}

func keys(m map[string]cliMember) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestStaticClusterOperations drives a static cluster (no gossip) with
// the CLI: every node reports every member healthy with its API address;
// a learner is added, started with --initial-cluster-state existing,
// promoted, written through and removed; a node leaves; the rest stops
// with SIGTERM in well under 5 s per node.
func TestStaticClusterOperations(t *testing.T) {
	c := startCluster(t, 3)
	kc := c.nodes[0].kubeconfig()
	waitCLIMembers(t, kc, c.nodes, "every member healthy", allHealthy("n1", "n2", "n3"))
	code, out, errOut := tryRun(t, "status", "--kubeconfig", kc, "--server", c.nodes[1].url())
	if code != 0 || !strings.Contains(out, "DB SIZE") || strings.Count(out, "true") != 3 {
		t.Fatalf("raftapi status: exit %d\n%s%s", code, out, errOut)
	}

	n4 := &node{name: "n4", dir: t.TempDir(), api: freeAddr(t), peer: freeAddr(t)}
	out = run(t, binary, "members", "add", "n4", "--peer-address", n4.peer, "--learner", "--kubeconfig", kc, "--server", c.nodes[2].url())
	if !strings.Contains(out, "--initial-cluster-state existing") || !strings.Contains(out, "n4="+n4.peer) {
		t.Fatalf("members add does not say how to start the node:\n%s", out)
	}
	if code, _, errOut := tryRun(t, "members", "add", "n4", "--peer-address", n4.peer, "--kubeconfig", kc); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("adding n4 twice: exit %d: %s", code, errOut)
	}
	initial := fmt.Sprintf("n1=%s,n2=%s,n3=%s,n4=%s", c.nodes[0].peer, c.nodes[1].peer, c.nodes[2].peer, n4.peer)
	c.nodes = append(c.nodes, n4)
	c.startNodeArgs(3, initial, "--initial-cluster-state", "existing")
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, _, errOut := tryRun(t, "members", "promote", "n4", "--kubeconfig", kc)
		if code == 0 {
			break
		}
		if code != 1 || time.Now().After(deadline) {
			t.Fatalf("members promote n4: exit %d: %s", code, errOut)
		}
		time.Sleep(200 * time.Millisecond)
	}
	waitCLIMembers(t, kc, c.nodes, "n4 a healthy voter", func(m map[string]cliMember) error {
		if err := allHealthy("n1", "n2", "n3", "n4")(m); err != nil {
			return err
		}
		if s := m["n4"].Status.Suffrage; s != "Voter" {
			return fmt.Errorf("n4 is a %s", s)
		}
		return nil
	})
	run(t, "kubectl", "--kubeconfig", kc, "--server", n4.url(), "create", "configmap", "via-n4", "--from-literal=k=v")

	run(t, binary, "members", "remove", "n4", "--kubeconfig", kc)
	waitCLIMembers(t, kc, c.nodes[:3], "n4 removed", allHealthy("n1", "n2", "n3"))
	n4.kill()

	out = run(t, binary, "leave", "--kubeconfig", kc, "--server", c.nodes[2].url())
	if !strings.Contains(out, "n3 left the cluster") {
		t.Fatalf("raftapi leave: %s", out)
	}
	if !c.nodes[2].waitExit(30 * time.Second) {
		t.Fatal("n3 still running after raftapi leave")
	}
	waitCLIMembers(t, kc, c.nodes[:2], "n3 gone", allHealthy("n1", "n2"))
	run(t, "kubectl", "--kubeconfig", kc, "--server", c.nodes[1].url(), "get", "configmap", "via-n4")

	start := time.Now()
	for _, nd := range c.nodes[:2] {
		nd.signal(syscall.SIGTERM)
	}
	for _, nd := range c.nodes[:2] {
		if !nd.waitExit(15 * time.Second) {
			t.Fatalf("%s still running %v after SIGTERM", nd.name, time.Since(start))
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the cluster took %v to stop", took)
	}
	t.Logf("the static cluster stopped in %v", time.Since(start))
}

// TestStaticRestartNewPeerAddress restarts a node of a static cluster on
// another peer address: the others record it, and it serves again.
func TestStaticRestartNewPeerAddress(t *testing.T) {
	c := startCluster(t, 3)
	kc := c.nodes[0].kubeconfig()
	waitCLIMembers(t, kc, c.nodes[:1], "every member healthy", allHealthy("n1", "n2", "n3"))
	n3 := c.nodes[2]
	n3.signal(syscall.SIGTERM)
	if !n3.waitExit(15 * time.Second) {
		t.Fatal("n3 did not stop")
	}
	n3.peer = freeAddr(t)
	c.restart(2)
	waitCLIMembers(t, kc, c.nodes, "n3 at its new address", func(m map[string]cliMember) error {
		if err := allHealthy("n1", "n2", "n3")(m); err != nil {
			return err
		}
		if got := m["n3"].Status.PeerAddress; got != n3.peer {
			return fmt.Errorf("n3's peer address %s, want %s", got, n3.peer)
		}
		return nil
	})
	run(t, "kubectl", "--kubeconfig", kc, "--server", n3.url(), "create", "configmap", "after-move", "--from-literal=k=v")
}

// TestRestoredIdentityRefused: a node started on a data directory
// restored for another name refuses at once, in one sentence saying what
// to run, without a Go stack.
func TestRestoredIdentityRefused(t *testing.T) {
	c := startCluster(t, 1)
	file := filepath.Join(t.TempDir(), "backup.db")
	run(t, binary, "snapshot", "save", file, "--kubeconfig", c.nodes[0].kubeconfig())
	out := run(t, binary, "snapshot", "status", file)
	if !strings.Contains(out, "revision:") || !strings.Contains(out, "sha256:") {
		t.Fatalf("snapshot status:\n%s", out)
	}
	dir := filepath.Join(t.TempDir(), "restored")
	run(t, binary, "snapshot", "restore", file, "--data-dir", dir, "--name", "alpha", "--peer-listen", freeAddr(t))
	code, _, errOut := tryRun(t, "serve", "--name", "beta", "--data-dir", dir, "--listen", freeAddr(t), "--peer-listen", freeAddr(t))
	if code != 1 || !strings.Contains(errOut, `members are alpha, not "beta"`) || !strings.Contains(errOut, "raftapi snapshot restore --name beta") {
		t.Fatalf("serve on another name's restored directory: exit %d:\n%s", code, errOut)
	}
	var errLines []string
	for _, l := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(l, "raftapi: ") {
			errLines = append(errLines, l)
		}
	}
	if strings.Contains(errOut, "goroutine ") || len(errLines) != 1 {
		t.Fatalf("the refusal is not one error line:\n%s", errOut)
	}
}

// TestVersionStamped: the binary under test, built by make build, carries
// the version and commit the Makefile stamps, and --version agrees.
func TestVersionStamped(t *testing.T) {
	var v struct {
		Version, Commit, GoVersion, Platform string
	}
	if err := json.Unmarshal([]byte(run(t, binary, "version", "-o", "json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Version == "" || v.Version == "dev" || len(v.Commit) != 40 || !strings.HasPrefix(v.GoVersion, "go") {
		t.Fatalf("version not stamped: %+v", v)
	}
	if line := run(t, binary, "--version"); !strings.Contains(line, v.Version) || !strings.Contains(line, v.Commit) {
		t.Fatalf("--version %q disagrees with version %+v", line, v)
	}
}
