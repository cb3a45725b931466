package compose

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newProject returns a project for compose.yaml with a unique name, free
// host ports, a free network and a fresh token, after skipping the test
// where it cannot run. Its cleanup always takes the project down.
func newProject(ctx context.Context, t *testing.T) *project {
	t.Helper()
	if os.Getenv("RAFTAPI_IMAGE") == "" {
		t.Skip("RAFTAPI_IMAGE is not set: build the image and run this test with make test-deploy")
	}
	if _, err := docker(ctx, quickCall, "info"); err != nil {
		t.Skipf("no Docker engine answers: %v", err)
	}
	compose, version, err := composeCommand(ctx)
	if err != nil {
		t.Skipf("no Docker Compose: %v", err)
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("the compose test drives the cluster with kubectl too: %v", err)
	}
	file, err := filepath.Abs("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := &project{t: t, compose: compose, file: file, name: "raftapi-test-" + randomHex(t, 4),
		net: freeNetwork(ctx, t), ports: freePorts(t, len(services))}
	p.env = p.composeEnv(randomHex(t, 32))
	t.Cleanup(p.down)
	t.Logf("%s %s: project %s, network %s.0/24, API ports %v, image %s",
		strings.Join(compose, " "), version, p.name, p.net, p.ports, os.Getenv("RAFTAPI_IMAGE"))
	return p
}

// randomHex returns n random bytes in hex.
func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// freePorts returns n distinct ports free on 127.0.0.1 just now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// freeNetwork returns the first three octets of a /24 in 10.213.0.0/16
// that overlaps no Docker network and no address of this host.
func freeNetwork(ctx context.Context, t *testing.T) string {
	t.Helper()
	used := usedPrefixes(ctx, t)
	for range 100 {
		x, err := rand.Int(rand.Reader, big.NewInt(254))
		if err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprintf("10.213.%d", x.Int64()+1)
		candidate := netip.MustParsePrefix(s + ".0/24")
		if !overlapsAny(candidate, used) {
			return s
		}
	}
	t.Fatalf("no free /24 in 10.213.0.0/16 (in use: %v)", used)
	return ""
}

// overlapsAny reports whether p overlaps one of used.
func overlapsAny(p netip.Prefix, used []netip.Prefix) bool {
	for _, u := range used {
		if p.Overlaps(u) {
			return true
		}
	}
	return false
}

// usedPrefixes lists the subnets of every Docker network and the
// networks of this host's addresses.
func usedPrefixes(ctx context.Context, t *testing.T) []netip.Prefix {
	t.Helper()
	var out []string
	ids, err := docker(ctx, quickCall, "network", "ls", "-q")
	if err != nil {
		t.Fatal(err)
	}
	if ids := strings.Fields(ids); len(ids) > 0 {
		args := append([]string{"network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}} {{end}}"}, ids...)
		subnets, err := docker(ctx, quickCall, args...)
		if err != nil {
			t.Fatal(err)
		}
		out = strings.Fields(subnets)
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		out = append(out, a.String())
	}
	var used []netip.Prefix
	for _, s := range out {
		if p, err := netip.ParsePrefix(s); err == nil {
			used = append(used, p.Masked())
		}
	}
	return used
}
