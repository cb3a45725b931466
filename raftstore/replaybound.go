package raftstore

import (
	"errors"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
)

// A start replays the log after the newest snapshot: raft reads those
// entries twice, and each read costs about 18 µs of a 1 KiB entry (see
// DESIGN.md, "What a start costs"). raft itself snapshots only when its
// check, every SnapshotInterval (two to four minutes), finds
// SnapshotThreshold new entries, so after a bulk load the entries no
// snapshot covers can be most of the log: 700,000 of them made a follower
// holding a million objects take 14.3 s to start. replayBoundLoop takes a
// snapshot as soon as more than MaxReplayEntries follow the newest one,
// looking every ReplayCheckInterval, so a start replays at most about
// that many plus what one interval writes, at the price of a snapshot
// (the whole state written once) every MaxReplayEntries writes under a
// sustained load, where raft's own check would take one every two to
// four minutes.

// replayBoundLoop bounds what a start replays; see above.
func (s *Store) replayBoundLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.ReplayCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopCh:
			return
		case <-t.C:
			s.boundReplay()
		}
	}
}

// boundReplay takes a snapshot if more than MaxReplayEntries applied
// entries follow the newest one.
func (s *Store) boundReplay() {
	defer s.replayChecks.Add(1)
	snap, ok := s.lastSnapshotIndex()
	applied := s.raft.AppliedIndex()
	if !ok || applied <= snap || applied-snap <= s.cfg.MaxReplayEntries {
		return
	}
	start := time.Now()
	err := s.raft.Snapshot().Error()
	switch {
	case err == nil:
		s.cfg.Logger.Info("took a snapshot to bound the log a start replays", "entries", applied-snap, "took", time.Since(start))
	case errors.Is(err, raft.ErrNothingNewToSnapshot), errors.Is(err, raft.ErrRaftShutdown):
	default:
		s.cfg.Logger.Warn("snapshot to bound the log a start replays failed", "entries", applied-snap, "err", err)
	}
}

// lastSnapshotIndex is the index the newest snapshot covers (0 before
// the first); ok is false when raft does not say.
func (s *Store) lastSnapshotIndex() (uint64, bool) {
	snap, err := strconv.ParseUint(s.raft.Stats()["last_snapshot_index"], 10, 64)
	return snap, err == nil
}
