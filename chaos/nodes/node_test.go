package nodes

import (
	"slices"
	"testing"

	"github.com/raftapi/raftapi/chaos/netns"
)

// TestNodesRunSecure checks that every node is started with the run's
// token, the same on every start (a wiped node derives the same CAs from
// it), and is reached over https.
func TestNodesRunSecure(t *testing.T) {
	nw := &netns.Network{Hosts: []netns.Host{{Name: "n1", NS: "ns1", IP: "10.0.0.11"}, {Name: "n2", NS: "ns2", IP: "10.0.0.12"}}}
	c := New(Config{Binary: "/bin/raftapi", Dir: t.TempDir(), Network: nw, Token: "s3cret"})
	for _, n := range c.Nodes() {
		if want := "https://" + n.Host.IP + ":" + apiPort; n.API != want {
			t.Errorf("%s: API %s, want %s", n.Name, n.API, want)
		}
		argv := n.args(c.cfg, c.nodes)
		i := slices.Index(argv, "--token")
		if i < 0 || i+1 == len(argv) || argv[i+1] != "s3cret" {
			t.Errorf("%s: no --token s3cret in %v", n.Name, argv)
		}
		if slices.Contains(argv, "--insecure-http") {
			t.Errorf("%s: started with --insecure-http: %v", n.Name, argv)
		}
	}
}
