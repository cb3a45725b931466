package raftstore

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/hashicorp/raft"
)

// Config configures one node of the replicated store.
type Config struct {
	// Name is this node's raft server ID; unique in the cluster.
	Name string
	// DataDir holds the raft log, snapshots and the state file.
	DataDir string
	// PeerListen is the host:port the peer service binds (raft, forwarded
	// writes, read index). Ignored when PeerListener is set.
	PeerListen string
	// PeerListener, if set, is used instead of binding PeerListen; an
	// embedding program can hand over a listener it already owns.
	PeerListener net.Listener
	// PeerDialer, if set, opens connections to other nodes' peer addresses
	// instead of plain TCP (an embedding program can add TLS or route
	// through its own network). The protocol byte is written after it.
	PeerDialer func(addr string, timeout time.Duration) (net.Conn, error)
	// PeerIdentity, if set, authenticates every connection accepted on the
	// peer address before anything is read from it, within
	// PeerHandshakeTimeout: it returns the name of the node the connection
	// proves to be (for example from a verified TLS client certificate).
	// A connection it refuses, or whose node is not a server of this
	// node's raft configuration, is closed at once. A node without a
	// configuration yet (a new node waiting to be added by a leader)
	// accepts any proven node. Nil accepts every connection, for peer
	// networks the embedding program secures itself.
	PeerIdentity func(net.Conn) (string, error)
	// PeerVouched, if set, admits proven nodes outside this node's raft
	// configuration, which lags behind the leader's while the node
	// catches up: a node restarted after a member was added must accept
	// that member as its leader. Gossip membership, authenticated with the
	// cluster's key, vouches for such nodes.
	PeerVouched func(name string) bool
	// NodeInfo, if set, returns JSON describing this node that members
	// asking for its status (PeerStatus) receive, e.g. its API address.
	NodeInfo func() []byte
	// PeerHandshakeTimeout bounds how long an accepted peer connection may
	// take to authenticate and name its protocol. Default 3 seconds.
	PeerHandshakeTimeout time.Duration
	// PeerAdvertise is the address other nodes dial; defaults to the bound
	// address.
	PeerAdvertise string
	// InitialCluster maps node names to peer addresses for the first start
	// of a static cluster; it must include this node. Empty means a
	// single-node cluster of this node. Ignored when DataDir already holds
	// raft state.
	InitialCluster map[string]string

	// DeferBootstrap leaves a node without raft state unbootstrapped:
	// it waits for Bootstrap (gossip discovery forming a new cluster) or to
	// be added to a running cluster by its leader. InitialCluster is then
	// ignored.
	DeferBootstrap bool

	// HistoryRetention is how long past revisions stay readable (Exact
	// reads, continue tokens, watch resumption). Default 5 minutes.
	HistoryRetention time.Duration
	// HistoryMaxRevisions additionally bounds the window by count; 0 means
	// no count bound.
	HistoryMaxRevisions uint64
	// CompactionInterval is how often the leader considers compacting.
	// Default HistoryRetention/10, at least one second.
	CompactionInterval time.Duration
	// WaitTimeout bounds how long a NotOlderThan or Exact read waits for a
	// revision this node has not applied yet. Default 3 seconds.
	WaitTimeout time.Duration
	// ApplyTimeout bounds a write from proposal to result. Default 10s.
	ApplyTimeout time.Duration
	// ReadIndexTimeout bounds obtaining a read index for a Most Recent
	// read, including waiting for a leader to be known. Default 5s.
	ReadIndexTimeout time.Duration
	// WatchBuffer is the number of events a watcher may lag behind before
	// it stops being offered events and catches up from the history
	// instead (see Watch). Default 1024.
	WatchBuffer int
	// WatchRecentEvents is the number of latest events a node keeps in
	// memory, shared by its watches: a watch that starts from a revision
	// they cover, or fell behind and catches up, takes its events from
	// them rather than from the history in the state file. Default 8192;
	// negative keeps none.
	WatchRecentEvents int

	// HeartbeatTimeout, ElectionTimeout and LeaderLeaseTimeout tune raft;
	// zero keeps raft's defaults (1s, 1s, 500ms).
	HeartbeatTimeout   time.Duration
	ElectionTimeout    time.Duration
	LeaderLeaseTimeout time.Duration
	// CommitTimeout is how long the leader lets followers go without
	// learning its commit index when no new entries flow (raft waits
	// between one and two of it). A follower's Most Recent read waits for
	// it to learn the read index, so this bounds such a read's latency
	// after a write — and an update or delete through a follower reads the
	// object first: one client updating through a follower did 58/s at
	// 10ms, 169/s at 2ms. The price is an empty AppendEntries to each
	// follower every 2-4ms on an idle cluster. Default 2ms (raft's own is
	// 50ms).
	CommitTimeout time.Duration
	// SnapshotThreshold is how many new log entries make a snapshot due;
	// zero keeps raft's default (8192). Raft checks it every
	// SnapshotInterval.
	SnapshotThreshold uint64
	// SnapshotInterval is how often raft checks whether a snapshot is due;
	// zero keeps raft's default (120s, jittered).
	SnapshotInterval time.Duration
	// TrailingLogs is how many entries stay in the log after a snapshot;
	// zero keeps raft's default (10240).
	TrailingLogs uint64
	// MaxReplayEntries is how many applied entries may follow the newest
	// snapshot before the node takes one, so that a start, which replays
	// them, stays short (replaybound.go). Zero means
	// DefaultMaxReplayEntries.
	MaxReplayEntries uint64
	// ReplayCheckInterval is how often the node compares its log with
	// MaxReplayEntries; zero means 5s.
	ReplayCheckInterval time.Duration

	// Logger receives the store's and raft's logs; nil discards them.
	Logger *slog.Logger
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Name == "" {
		return out, fmt.Errorf("raftstore: config: Name is required")
	}
	if out.DataDir == "" {
		return out, fmt.Errorf("raftstore: config: DataDir is required")
	}
	if out.PeerListener == nil && out.PeerListen == "" {
		return out, fmt.Errorf("raftstore: config: PeerListen is required")
	}
	if len(out.InitialCluster) > 0 {
		if _, ok := out.InitialCluster[out.Name]; !ok {
			return out, fmt.Errorf("raftstore: config: InitialCluster lacks this node %q", out.Name)
		}
	}
	setDefault(&out.HistoryRetention, 5*time.Minute)
	setDefault(&out.CompactionInterval, max(out.HistoryRetention/10, time.Second))
	setDefault(&out.WaitTimeout, 3*time.Second)
	setDefault(&out.ApplyTimeout, 10*time.Second)
	setDefault(&out.ReadIndexTimeout, 5*time.Second)
	setDefault(&out.CommitTimeout, 2*time.Millisecond)
	setDefault(&out.PeerHandshakeTimeout, 3*time.Second)
	setDefault(&out.ReplayCheckInterval, 5*time.Second)
	if out.MaxReplayEntries == 0 {
		out.MaxReplayEntries = DefaultMaxReplayEntries
	}
	rd := raft.DefaultConfig()
	setDefault(&out.HeartbeatTimeout, rd.HeartbeatTimeout)
	setDefault(&out.ElectionTimeout, rd.ElectionTimeout)
	if out.WatchBuffer <= 0 {
		out.WatchBuffer = 1024
	}
	switch {
	case out.WatchRecentEvents == 0:
		out.WatchRecentEvents = 8192
	case out.WatchRecentEvents < 0:
		out.WatchRecentEvents = 0
	}
	if out.PeerDialer == nil {
		out.PeerDialer = func(addr string, timeout time.Duration) (net.Conn, error) {
			return net.DialTimeout("tcp", addr, timeout)
		}
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return out, nil
}

// DefaultMaxReplayEntries is MaxReplayEntries when it is not set: about
// 3.6 s of a start at 1 KiB entries.
const DefaultMaxReplayEntries = 200_000

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}
