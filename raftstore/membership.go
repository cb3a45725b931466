package raftstore

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/hashicorp/raft"
)

// Member is one server of the raft configuration.
type Member struct {
	Name     string `json:"name"`
	PeerAddr string `json:"peerAddr"`
	Voter    bool   `json:"voter"`
}

// membershipTimeout bounds one configuration change.
const membershipTimeout = 10 * time.Second

// HasState reports whether this node belongs to a cluster: it had raft state
// when opened, bootstrapped one, or has since been added by a leader.
func (s *Store) HasState() bool {
	if s.hasState.Load() {
		return true
	}
	if s.raft.LastIndex() > 0 {
		s.hasState.Store(true)
		return true
	}
	return false
}

// PeerAddr is the peer address this node advertises.
func (s *Store) PeerAddr() string { return s.advertise }

// Bootstrap forms a new cluster of the given voters (name -> peer address)
// on a node opened with DeferBootstrap and no raft state. Every node of the
// new cluster must bootstrap with the same set.
func (s *Store) Bootstrap(voters map[string]string) error {
	var conf raft.Configuration
	names := make([]string, 0, len(voters))
	for n := range voters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		conf.Servers = append(conf.Servers, raft.Server{ID: raft.ServerID(n), Address: raft.ServerAddress(voters[n]), Suffrage: raft.Voter})
	}
	if err := s.raft.BootstrapCluster(conf).Error(); err != nil {
		return fmt.Errorf("raftstore: bootstrap: %w", err)
	}
	s.hasState.Store(true)
	return s.finishRejoin("bootstrapped a new cluster", 0)
}

// Members returns the latest raft configuration.
func (s *Store) Members() ([]Member, error) {
	f := s.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("raftstore: read configuration: %w", err)
	}
	var out []Member
	for _, srv := range f.Configuration().Servers {
		out = append(out, Member{Name: string(srv.ID), PeerAddr: string(srv.Address), Voter: srv.Suffrage == raft.Voter})
	}
	return out, nil
}

// AddNonvoter adds a server that receives the log but does not vote, or
// updates its address. Leader only. A newcomer may wait for a snapshot
// first (see snapshotForNewcomer).
func (s *Store) AddNonvoter(name, addr string) error {
	s.snapshotForNewcomer(name)
	return s.configChange("add non-voter "+name, s.raft.AddNonvoter(raft.ServerID(name), raft.ServerAddress(addr), 0, membershipTimeout))
}

// AddVoter adds a voting server, promotes a non-voter, or updates a
// voter's address. Leader only. A newcomer may wait for a snapshot
// first (see snapshotForNewcomer).
func (s *Store) AddVoter(name, addr string) error {
	s.snapshotForNewcomer(name)
	return s.configChange("add voter "+name, s.raft.AddVoter(raft.ServerID(name), raft.ServerAddress(addr), 0, membershipTimeout))
}

// RemoveMember removes a server from the configuration. Leader only.
func (s *Store) RemoveMember(name string) error {
	return s.configChange("remove "+name, s.raft.RemoveServer(raft.ServerID(name), 0, membershipTimeout))
}

// TransferLeadership hands leadership to another voter. Leader only.
func (s *Store) TransferLeadership() error {
	return s.configChange("transfer leadership", s.raft.LeadershipTransfer())
}

func (s *Store) configChange(what string, f raft.Future) error {
	err := f.Error()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, raft.ErrNotLeader):
		return &Error{Code: ErrCodeUnavailable, Msg: what, Err: errNotLeader}
	}
	return &Error{Code: ErrCodeUnavailable, Msg: what, Err: err}
}

// Stats returns raft's own statistics (for status and metrics).
func (s *Store) Stats() map[string]string { return s.raft.Stats() }
