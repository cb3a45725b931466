package cluster

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestHealthSingleNode(t *testing.T) {
	n := startSingleNode(t)
	cases := []struct {
		name, path string
		code       int
		contains   []string
		excludes   []string
	}{
		{"readyz", "/readyz", 200, []string{"ok"}, []string{"[+]"}},
		{"readyz verbose", "/readyz?verbose", 200,
			[]string{"[+]ping ok\n", "[+]raft ok\n", "[+]raft-leader ok\n", "[+]raft-caught-up ok\n", "readyz check passed\n"}, nil},
		{"livez verbose", "/livez?verbose", 200,
			[]string{"[+]ping ok\n", "[+]raft ok\n", "livez check passed\n"}, []string{"raft-leader"}},
		{"healthz verbose", "/healthz?verbose", 200, []string{"[+]raft-leader ok\n", "healthz check passed\n"}, nil},
		{"exclude", "/readyz?verbose&exclude=raft-leader&exclude=raft-caught-up", 200,
			[]string{"[+]ping ok\n", "[+]raft-leader excluded: ok\n", "[+]raft-caught-up excluded: ok\n"}, nil},
		{"exclude unknown", "/readyz?verbose&exclude=nope", 200,
			[]string{`warn: some health checks cannot be excluded: no matches for "nope"`}, nil},
		{"one check", "/readyz/raft-leader", 200, []string{"ok"}, nil},
		{"one live check", "/livez/raft", 200, []string{"ok"}, nil},
		{"check not on livez", "/livez/raft-leader", 404, nil, nil},
		{"unknown check", "/readyz/nope", 404, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := httpDo(t, n, http.MethodGet, c.path, "")
			if code != c.code {
				t.Fatalf("GET %s: %d, want %d\n%s", c.path, code, c.code, body)
			}
			for _, s := range c.contains {
				if !strings.Contains(body, s) {
					t.Errorf("GET %s lacks %q:\n%s", c.path, s, body)
				}
			}
			for _, s := range c.excludes {
				if strings.Contains(body, s) {
					t.Errorf("GET %s has %q:\n%s", c.path, s, body)
				}
			}
		})
	}
}

// TestReadyzWithoutQuorum opens one member of a three-node static cluster
// whose other members never start: it is alive but never ready.
func TestReadyzWithoutQuorum(t *testing.T) {
	peer := freeAddr(t)
	n, err := Start(Config{
		Name: "a", DataDir: t.TempDir(), Listen: "127.0.0.1:0", PeerListen: peer,
		InitialCluster: map[string]string{"a": peer, "b": freeAddr(t), "c": freeAddr(t)}, Token: testToken,
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { stopNode(t, n) })
	// Once the node has stood for election it has waited out a leader;
	// without a quorum it never wins.
	pollUntil(t, "candidate", func() (bool, string) {
		st := n.Store().Status()
		return st.State == "Candidate", st.State
	})
	assertNotReadyButLive(t, n)
	if code, body := httpDo(t, n, http.MethodGet, "/readyz?verbose", ""); !strings.Contains(body, "[-]raft-caught-up failed: reason withheld\n") {
		t.Errorf("/readyz: %d, want raft-caught-up failed:\n%s", code, body)
	}
	code, body := httpDo(t, n, http.MethodGet, "/readyz?exclude=raft-leader&exclude=raft-caught-up&exclude=poststarthook/system-namespaces&exclude=poststarthook/rbac/bootstrap-roles", "")
	if code != http.StatusOK || body != "ok" {
		t.Errorf("/readyz excluding the raft checks: %d %q", code, body)
	}
}

// TestReadyzLosesLeader runs a three-node cluster, stops two nodes and
// checks that the survivor, caught up long ago, is no longer ready because
// it knows no leader.
func TestReadyzLosesLeader(t *testing.T) {
	names := []string{"a", "b", "c"}
	nodes := startStatic(t, names...)
	for _, name := range names {
		pollUntil(t, name+" ready", func() (bool, string) {
			code, body := httpDo(t, nodes[name], http.MethodGet, "/readyz?verbose", "")
			return code == http.StatusOK, body
		})
	}
	survivor := ""
	for _, name := range names {
		if !nodes[name].Store().IsLeader() && survivor == "" {
			survivor = name
			continue
		}
		stopNode(t, nodes[name])
	}
	n := nodes[survivor]
	pollUntil(t, "leader lost", func() (bool, string) {
		st := n.Store().Status()
		return st.LeaderID == "", "leader " + st.LeaderID
	})
	assertNotReadyButLive(t, n)
	if code, body := httpDo(t, n, http.MethodGet, "/readyz?verbose", ""); !strings.Contains(body, "[+]raft-caught-up ok\n") {
		t.Errorf("/readyz: %d, want raft-caught-up still ok:\n%s", code, body)
	}
}

func assertNotReadyButLive(t *testing.T, n *Node) {
	t.Helper()
	code, body := httpDo(t, n, http.MethodGet, "/readyz", "")
	if code != http.StatusInternalServerError || !strings.Contains(body, "[-]raft-leader failed: reason withheld\n") ||
		!strings.HasSuffix(body, "readyz check failed\n") {
		t.Errorf("/readyz: %d, want 500 with raft-leader failed:\n%s", code, body)
	}
	code, body = httpDo(t, n, http.MethodGet, "/readyz/raft-leader", "")
	if code != http.StatusInternalServerError || !strings.Contains(body, "no leader known") {
		t.Errorf("/readyz/raft-leader: %d %q", code, body)
	}
	if code, body := httpDo(t, n, http.MethodGet, "/livez", ""); code != http.StatusOK || body != "ok" {
		t.Errorf("/livez: %d %q", code, body)
	}
}

// freeAddr returns a loopback address with a port free a moment ago. Nodes
// of a static cluster need their peer addresses before they start.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
