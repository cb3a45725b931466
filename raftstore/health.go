package raftstore

import "context"

// ReadIndex returns the leader's commit index, confirmed by a quorum after
// the call started: every write acknowledged before the call is at or
// below it. It fails with ErrCodeUnavailable when no leader can confirm
// one within ReadIndexTimeout. Health checks use it to learn how far a
// node must apply before it is caught up.
func (s *Store) ReadIndex(ctx context.Context) (uint64, error) {
	return s.readIndex(ctx)
}

// CaughtUp reports whether the node's state reflects every log entry up to
// index, including when index is a raft entry the state machine never sees
// (an election no-op or barrier).
func (s *Store) CaughtUp(index uint64) bool { return s.fsmReached(index) }
