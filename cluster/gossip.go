package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/memberlist"
)

// nodeMeta is what each node gossips about itself.
type nodeMeta struct {
	Peer  string `json:"peer"`
	API   string `json:"api"`
	Voter bool   `json:"voter"`
	// State is true once the node belongs to a raft cluster (has raft
	// state); a node that gossips false while it is a voter was wiped.
	State bool `json:"state"`
	// Leaving is announced before a graceful leave, so the leader removes
	// the node at once instead of waiting for it to count as dead.
	Leaving bool `json:"leaving,omitempty"`
}

// gossipState is the membership state of one gossip member.
type gossipState int

const (
	memberAlive gossipState = iota
	memberDead              // failed or left: memberlist's events do not tell which
)

// gossipMember is the latest gossip about one node.
type gossipMember struct {
	name  string
	meta  nodeMeta
	state gossipState
	since time.Time // when state last changed
}

// gossip wraps memberlist: it publishes this node's metadata and keeps a
// table of every member seen, including the ones that left or died.
type gossip struct {
	list   *memberlist.Memberlist
	logger *slog.Logger
	meta   atomic.Pointer[nodeMeta]
	metaMu sync.Mutex // serializes setMeta's check and store

	mu      sync.Mutex
	members map[string]*gossipMember
}

// deadNodeReclaimTime is how long a dead member's name stays reserved for
// its old address.
const deadNodeReclaimTime = 2 * time.Second

// gossipConfig is what startGossip needs.
type gossipConfig struct {
	name      string
	listen    string
	advertise string
	key       []byte
	meta      nodeMeta
	logger    *slog.Logger
}

func startGossip(c gossipConfig) (*gossip, error) {
	g := &gossip{logger: c.logger, members: map[string]*gossipMember{}}
	g.meta.Store(&c.meta)
	mc := memberlist.DefaultLANConfig()
	mc.Name = c.name
	host, port, err := splitHostPort(c.listen)
	if err != nil {
		return nil, fmt.Errorf("cluster: gossip listen address: %w", err)
	}
	mc.BindAddr, mc.BindPort = host, port
	mc.AdvertiseAddr, mc.AdvertisePort = host, port
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		// No one can dial 0.0.0.0: memberlist advertises the host's
		// first private address instead.
		mc.AdvertiseAddr = ""
	}
	if c.advertise != "" {
		if mc.AdvertiseAddr, mc.AdvertisePort, err = splitHostPort(c.advertise); err != nil {
			return nil, fmt.Errorf("cluster: gossip advertise address: %w", err)
		}
	}
	mc.SecretKey = c.key
	// A node replaced under the same name (new machine, new address) must
	// be able to rejoin once the old one is dead; memberlist's default
	// never lets a new address take over a known name until the dead node
	// is reaped (GossipToTheDeadTime, 30s).
	mc.DeadNodeReclaimTime = deadNodeReclaimTime
	mc.Delegate = g
	mc.Events = g
	// No prefix: the line becomes one slog record with its own time.
	mc.Logger = log.New(slogLineWriter{c.logger}, "", 0)
	if g.list, err = memberlist.Create(mc); err != nil {
		return nil, fmt.Errorf("cluster: start gossip: %w", err)
	}
	return g, nil
}

func splitHostPort(s string) (string, int, error) {
	host, p, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	return host, port, err
}

// join contacts the given gossip addresses; it succeeds if any answers.
func (g *gossip) join(addrs []string) error {
	_, err := g.list.Join(addrs)
	return err
}

// absent returns the addresses that no live member gossips from. This
// node counts as live, so a --join list naming every node (as a
// StatefulSet's does) does not make it join itself. A host name is
// resolved to compare it; one that does not resolve is absent.
func (g *gossip) absent(addrs []string) []string {
	live := map[string]bool{}
	for _, m := range g.list.Members() {
		live[m.Address()] = true
	}
	var out []string
	for _, a := range addrs {
		if !live[a] && !liveByName(a, live) {
			out = append(out, a)
		}
	}
	return out
}

// liveByName reports whether host:port names a host whose address, with
// that port, is in live.
func liveByName(addr string, live map[string]bool) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || net.ParseIP(host) != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil {
		return false
	}
	for _, ip := range ips {
		if live[net.JoinHostPort(ip, port)] {
			return true
		}
	}
	return false
}

// setMeta changes this node's metadata and pushes it to the others. Once
// the node announced that it is leaving, it stays so: the membership
// loop, which may have checked that the node was not leaving just before
// Leave announced it, must not take the announcement back.
func (g *gossip) setMeta(m nodeMeta) {
	g.metaMu.Lock()
	old := g.meta.Load()
	if old != nil && (*old == m || old.Leaving && !m.Leaving) {
		g.metaMu.Unlock()
		return
	}
	g.meta.Store(&m)
	g.metaMu.Unlock()
	if err := g.list.UpdateNode(2 * time.Second); err != nil {
		g.logger.Debug("gossip metadata update", "err", err)
	}
}

// snapshot returns a copy of the member table.
func (g *gossip) snapshot() map[string]gossipMember {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]gossipMember, len(g.members))
	for n, m := range g.members {
		out[n] = *m
	}
	return out
}

// alive reports whether node name is an alive member.
func (g *gossip) alive(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.members[name]
	return ok && m.state == memberAlive
}

func (g *gossip) leave(timeout time.Duration) error { return g.list.Leave(timeout) }

func (g *gossip) shutdown() error { return g.list.Shutdown() }

// record notes the latest news about node n.
func (g *gossip) record(n *memberlist.Node, state gossipState) {
	var meta nodeMeta
	if err := json.Unmarshal(n.Meta, &meta); err != nil {
		g.logger.Warn("undecodable gossip metadata", "node", n.Name, "err", err)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.members[n.Name]
	if !ok {
		m = &gossipMember{name: n.Name}
		g.members[n.Name] = m
	}
	if !ok || m.state != state {
		m.since = time.Now()
	}
	m.meta, m.state = meta, state
}

// NodeMeta implements memberlist.Delegate.
func (g *gossip) NodeMeta(limit int) []byte {
	b, _ := json.Marshal(g.meta.Load())
	if len(b) > limit {
		g.logger.Error("gossip metadata too large", "size", len(b), "limit", limit)
		return nil
	}
	return b
}

// NotifyMsg, GetBroadcasts, LocalState and MergeRemoteState implement
// memberlist.Delegate; raftapi gossips nothing but node metadata.
func (g *gossip) NotifyMsg([]byte)                           {}
func (g *gossip) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (g *gossip) LocalState(join bool) []byte                { return nil }
func (g *gossip) MergeRemoteState(buf []byte, join bool)     {}

// NotifyJoin implements memberlist.EventDelegate.
func (g *gossip) NotifyJoin(n *memberlist.Node) { g.record(n, memberAlive) }

// NotifyUpdate implements memberlist.EventDelegate.
func (g *gossip) NotifyUpdate(n *memberlist.Node) { g.record(n, memberAlive) }

// NotifyLeave implements memberlist.EventDelegate: the node failed or
// left. (memberlist does not set Node.State before notifying, so the two are
// told apart by the Leaving flag the node gossiped before leaving.)
func (g *gossip) NotifyLeave(n *memberlist.Node) { g.record(n, memberDead) }

// slogLineWriter turns each line memberlist logs ("[WARN] memberlist:
// msg") into one slog record at its level: debug, or warn and error for
// its own.
type slogLineWriter struct{ l *slog.Logger }

// lineLevels are memberlist's level prefixes.
var lineLevels = []struct {
	prefix string
	level  slog.Level
}{{"[ERR]", slog.LevelError}, {"[ERROR]", slog.LevelError}, {"[WARN]", slog.LevelWarn}, {"[INFO]", slog.LevelDebug}, {"[DEBUG]", slog.LevelDebug}}

func (w slogLineWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	level := slog.LevelDebug
	for _, l := range lineLevels {
		if strings.HasPrefix(msg, l.prefix) {
			level, msg = l.level, strings.TrimSpace(strings.TrimPrefix(msg, l.prefix))
			break
		}
	}
	w.l.Log(context.Background(), level, strings.TrimPrefix(msg, "memberlist: "))
	return len(p), nil
}
