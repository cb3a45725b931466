package raftstore

// LeaderGets is how many reads s asked the leader to answer.
func (s *Store) LeaderGets() uint64 { return s.leaderGets.Load() }
