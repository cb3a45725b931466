package raftstore

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/raft"
)

// Status is a node's view of the cluster, for health checks and metrics.
type Status struct {
	Name          string    `json:"name"`
	State         string    `json:"state"` // Leader, Follower, Candidate, Shutdown
	Term          uint64    `json:"term"`
	LeaderID      string    `json:"leaderID"`
	LeaderAddr    string    `json:"leaderAddr"`
	CommitIndex   uint64    `json:"commitIndex"`
	AppliedIndex  uint64    `json:"appliedIndex"` // applied to the FSM: the node's current revision
	Compacted     uint64    `json:"compacted"`    // history boundary
	LastContact   time.Time `json:"lastContact"`
	LeaderChanges uint64    `json:"leaderChanges"`
	// Rejoining: the node started without the raft state of an admitted
	// member and does not vote until the leader has admitted it.
	Rejoining bool `json:"rejoining,omitempty"`
	Watchers  int  `json:"watchers"`
	// StateBytes and LogBytes are the sizes of the state database and
	// the raft log database on disk: filled by StatusWithDisk only, as
	// Status serves health checks many times a second.
	StateBytes int64 `json:"stateBytes,omitempty"`
	LogBytes   int64 `json:"logBytes,omitempty"`
	// SnapshotIndex is the last index the node's newest snapshot covers
	// (0 before the first): a start replays the entries after it.
	// Filled by StatusWithDisk only.
	SnapshotIndex uint64 `json:"snapshotIndex,omitempty"`
}

// Status returns the node's current view.
func (s *Store) Status() Status {
	addr, id := s.raft.LeaderWithID()
	return Status{
		Name:          s.cfg.Name,
		State:         s.raft.State().String(),
		Term:          s.raft.CurrentTerm(),
		LeaderID:      string(id),
		LeaderAddr:    string(addr),
		CommitIndex:   s.raft.CommitIndex(),
		AppliedIndex:  s.ownState(),
		Compacted:     s.fsm.Compacted(),
		LastContact:   s.raft.LastContact(),
		LeaderChanges: s.leaderChanges.Load(),
		Rejoining:     s.rejoining.Load(),
		Watchers:      s.hub.count(),
	}
}

// StatusWithDisk is Status with the sizes of the node's databases and
// the index of its newest snapshot.
func (s *Store) StatusWithDisk() Status {
	st := s.Status()
	st.StateBytes = fileSize(filepath.Join(s.cfg.DataDir, stateFile))
	st.LogBytes = dirSize(filepath.Join(s.cfg.DataDir, walDir))
	st.SnapshotIndex, _ = s.lastSnapshotIndex()
	return st
}

// Name returns the node's name.
func (s *Store) Name() string { return s.cfg.Name }

// IsLeader reports whether this node currently believes it is the leader.
func (s *Store) IsLeader() bool { return s.raft.State() == raft.Leader }

// Revision returns the node's applied index: the resourceVersion of its
// current state, which shows every write this node has answered.
func (s *Store) Revision() uint64 { return s.ownState() }

// Raft exposes the raft node to the cluster layer (membership changes).
func (s *Store) Raft() *raft.Raft { return s.raft }

// WaitForLeader blocks until the node knows a leader.
func (s *Store) WaitForLeader(ctx context.Context) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if addr, _ := s.raft.LeaderWithID(); addr != "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// observeLeader counts leader changes.
func (s *Store) observeLeader() {
	defer s.wg.Done()
	ch := make(chan raft.Observation, 16)
	obs := raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	s.raft.RegisterObserver(obs)
	defer s.raft.DeregisterObserver(obs)
	for {
		select {
		case <-ch:
			s.leaderChanges.Add(1)
		case <-s.stopCh:
			return
		}
	}
}

// dirSize is the total size of the files in dir, 0 when it cannot be
// read.
func dirSize(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// fileSize is the size of the file at path, 0 when it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
