package netns

import (
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// Host is one node's place on the network.
type Host struct {
	Name string // node name, n1...
	NS   string // network namespace
	IP   string // its address on the bridge
	veth string // host end of its veth pair
}

// Network is the bridge and the namespaces of one run.
type Network struct {
	ID     string // short run name used in every interface and namespace name
	Bridge string
	HostIP string // the root namespace's address on the bridge
	Hosts  []Host
	subnet string // first three octets
}

var idChars = regexp.MustCompile(`[^a-z0-9]`)

// New plans the network of run name with n nodes; nothing is created yet.
// The subnet is 10.213.X.0/24 with X from a hash of the name, an unusual
// range so it does not collide with the machine's own.
func New(name string, n int) *Network {
	id := idChars.ReplaceAllString(strings.ToLower(name), "")
	if len(id) > 6 {
		id = id[:6]
	}
	if id == "" {
		id = "chaos"
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	nw := &Network{ID: id, Bridge: "rch-" + id, subnet: fmt.Sprintf("10.213.%d", 16+h.Sum32()%224)}
	nw.HostIP = nw.subnet + ".1"
	for i := 1; i <= n; i++ {
		nw.Hosts = append(nw.Hosts, Host{Name: fmt.Sprintf("n%d", i), NS: fmt.Sprintf("rch-%s-n%d", id, i),
			IP: fmt.Sprintf("%s.%d", nw.subnet, 10+i), veth: fmt.Sprintf("rch-%s-%d", id, i)})
	}
	return nw
}

// Preflight reports why this machine cannot run the harness: not root,
// or no network namespaces.
func Preflight() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("netns: needs root (network namespaces, veth, iptables)")
	}
	probe := fmt.Sprintf("rch-probe-%d", os.Getpid())
	if _, err := run("ip", "netns", "add", probe); err != nil {
		return err
	}
	_, err := run("ip", "netns", "del", probe)
	return err
}

// Create removes what a crashed run of the same name left behind, then
// creates the bridge, lets traffic cross it (the host's FORWARD chain may
// drop bridged traffic), and creates each node's namespace and veth.
func (nw *Network) Create() error {
	nw.Destroy()
	cidr := "/24"
	if err := runAll([][]string{
		{"ip", "link", "add", nw.Bridge, "type", "bridge"},
		{"ip", "addr", "add", nw.HostIP + cidr, "dev", nw.Bridge},
		{"ip", "link", "set", nw.Bridge, "up"},
		{"iptables", "-I", "FORWARD", "1", "-i", nw.Bridge, "-o", nw.Bridge, "-m", "comment", "--comment", nw.comment(), "-j", "ACCEPT"},
	}); err != nil {
		return err
	}
	for _, h := range nw.Hosts {
		if err := nw.createHost(h, cidr); err != nil {
			return err
		}
	}
	return nil
}

func (nw *Network) createHost(h Host, cidr string) error {
	return runAll([][]string{
		{"ip", "netns", "add", h.NS},
		{"ip", "link", "add", h.veth, "type", "veth", "peer", "name", "eth0", "netns", h.NS},
		{"ip", "link", "set", h.veth, "master", nw.Bridge, "up"},
		{"ip", "-n", h.NS, "addr", "add", h.IP + cidr, "dev", "eth0"},
		{"ip", "-n", h.NS, "link", "set", "eth0", "up"},
		{"ip", "-n", h.NS, "link", "set", "lo", "up"},
		inNS(h.NS, "iptables", "-N", chain),
		inNS(h.NS, "iptables", "-A", "INPUT", "-j", chain),
	})
}

// Destroy removes the namespaces, veths, bridge and FORWARD rule of this
// run name, whatever exists of them; it is safe to call more than once.
func (nw *Network) Destroy() {
	for _, h := range nw.Hosts {
		killInside(h.NS)
		_, _ = run("ip", "netns", "del", h.NS)
		_, _ = run("ip", "link", "del", h.veth)
	}
	_, _ = run("ip", "link", "del", nw.Bridge)
	for {
		if _, err := run("iptables", "-D", "FORWARD", "-i", nw.Bridge, "-o", nw.Bridge, "-m", "comment", "--comment", nw.comment(), "-j", "ACCEPT"); err != nil {
			return
		}
	}
}

// killInside kills whatever still runs in namespace ns: the processes a
// crashed run left behind. Only processes inside this run's own
// namespaces are touched.
func killInside(ns string) {
	out, err := run("ip", "netns", "pids", ns)
	if err != nil {
		return
	}
	for _, f := range strings.Fields(out) {
		if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func (nw *Network) comment() string { return "raftapi-chaos:" + nw.ID }

// Host returns the host of node name.
func (nw *Network) Host(name string) (Host, bool) {
	for _, h := range nw.Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}
