package raftstore

// LeaderGets is how many reads s asked the leader to answer.
func (s *Store) LeaderGets() uint64 { return s.leaderGets.Load() }

// Restamped is how many forwarded writes s stamped itself.
func (s *Store) Restamped() uint64 { return s.restamped.Load() }

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
