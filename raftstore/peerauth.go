package raftstore

import (
	"errors"
	"fmt"
	"net"

	"github.com/hashicorp/raft"
)

// errNotMember refuses a proven node that is not in the configuration.
var errNotMember = errors.New("not a member of this node's raft configuration")

// admitPeer authenticates an accepted peer connection with
// Config.PeerIdentity and admits it only from a member of the raft
// configuration (any proven node while this node has none yet).
func (s *Store) admitPeer(conn net.Conn) error {
	if s.cfg.PeerIdentity == nil {
		return nil
	}
	name, err := s.cfg.PeerIdentity(conn)
	if err != nil {
		return err
	}
	if !s.admitsMember(name) && (s.cfg.PeerVouched == nil || !s.cfg.PeerVouched(name)) {
		return fmt.Errorf("node %q: %w", name, errNotMember)
	}
	return nil
}

// admitsMember reports whether name is a server of the latest raft
// configuration, or this node has no configuration yet.
func (s *Store) admitsMember(name string) bool {
	r := s.raftReady.Load()
	if r == nil {
		return false
	}
	f := r.GetConfiguration()
	if f.Error() != nil {
		return false
	}
	servers := f.Configuration().Servers
	if len(servers) == 0 {
		return true
	}
	for _, srv := range servers {
		if srv.ID == raft.ServerID(name) {
			return true
		}
	}
	return false
}
