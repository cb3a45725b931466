package raftstore

import (
	"net"
	"time"

	"github.com/hashicorp/raft"
)

// raftStreamLayer is raft's StreamLayer over the peer mux: it accepts the
// connections whose first byte is protoRaft and dials with that byte.
type raftStreamLayer struct {
	*subListener
	advertise net.Addr
	dial      func(string, time.Duration) (net.Conn, error)
}

var _ raft.StreamLayer = (*raftStreamLayer)(nil)

// Dial implements raft.StreamLayer.
func (l *raftStreamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return dialPeer(l.dial, string(addr), protoRaft, timeout)
}

// Addr returns the advertised address, which raft sends to its peers.
func (l *raftStreamLayer) Addr() net.Addr { return l.advertise }
