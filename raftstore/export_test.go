package raftstore

import "net/http"

// LeaderGets is how many reads s asked the leader to answer.
func (s *Store) LeaderGets() uint64 { return s.leaderGets.Load() }

// Restamped is how many forwarded writes s stamped itself.
func (s *Store) Restamped() uint64 { return s.restamped.Load() }

// ForwardRPCs is how many rpcApplyMany requests s sent.
func (s *Store) ForwardRPCs() uint64 { return s.forwards.rpcs.Load() }

// ReplayChecks is how many times s compared its log with
// MaxReplayEntries.
func (s *Store) ReplayChecks() uint64 { return s.replayChecks.Load() }

// LastSnapshotIndex is the index of s's newest snapshot (0: none); ok is
// false when raft does not say.
func (s *Store) LastSnapshotIndex() (uint64, bool) { return s.lastSnapshotIndex() }

// Term is the raft term s is in.
func (s *Store) Term() uint64 { return s.raft.CurrentTerm() }

// ServeAsEarlierRelease makes s answer rpcApplyMany with 404, as a node
// of a release without it does.
func (s *Store) ServeAsEarlierRelease() { s.withoutApplyMany.Store(true) }

// OutBuffer is how many events a watch hands its reader ahead.
const OutBuffer = outBuffer

// ReplayChunk is how many events a watch reads from the history at once.
const ReplayChunk = replayChunk

// PipelineErr is what s's raft transport answers a request for an
// AppendEntries pipeline: an error when pipelining is off.
func (s *Store) PipelineErr() error {
	_, err := s.transport.AppendEntriesPipeline("peer", "127.0.0.1:1")
	return err
}

// ApplyMany is what s, as the leader, answers to cmds forwarded together:
// for each, the revision it committed at and the code of its error or
// rejection (0 for none).
func (s *Store) ApplyMany(cmds [][]byte) ([]uint64, []ErrorCode) {
	r, _ := http.NewRequest(http.MethodPost, rpcApplyMany, nil)
	replies := s.applyMany(r, cmds)
	revs, codes := make([]uint64, len(replies)), make([]ErrorCode, len(replies))
	for i, reply := range replies {
		revs[i] = reply.Rev
		if reply.Err != nil {
			codes[i] = reply.Err.Code
		}
	}
	return revs, codes
}
