package raftstore

import (
	"path/filepath"
	"time"

	"github.com/hashicorp/raft"
)

// A member new to the configuration starts with nothing, and raft brings
// it up to date from the first entry its leader still holds: the newest
// snapshot and the entries after it when the log was truncated, or else
// every entry from the first. Snapshots are taken every
// SnapshotThreshold entries but checked for only every SnapshotInterval
// (two to four minutes by default), so after a burst of writes the log
// can hold hundreds of thousands of entries no snapshot covers, and the
// newcomer would receive, store and apply each of them.
//
// So before the leader adds a member it may take a snapshot, when that
// costs less than the replay it saves (snapshotWorthIt):
//
//   - The log was never truncated: the newcomer would replay the whole
//     history. A snapshot is taken once that is more than TrailingLogs
//     entries (what raft keeps after a snapshot for followers that lag,
//     and so considers a fair replay). 200,000 ConfigMaps of 1 KiB
//     written in under two minutes took a new member 7.3 to 7.5 s to
//     catch up by replay, and left it a log as large as its state; with
//     the snapshot the add took 1.1 to 1.2 s and the newcomer caught up
//     5.2 to 5.5 s later (6.4 to 6.8 s in all), holding 447 MiB on disk
//     instead of 728.
//   - The log was truncated: the newcomer receives the newest snapshot
//     anyway, and a fresh one only spares it the entries after that
//     snapshot, at the price of writing the whole state once more. That
//     pays only when those entries are large beside the state: a fresh
//     snapshot of a 2.1 GiB state (a million ConfigMaps) took 11.5 s,
//     which is the time a newcomer replays about 425 MiB of entries in
//     (27,000 entries/s of 1.4 KiB), a fifth of the state. A snapshot is
//     taken when the entries to replay hold more than a quarter of the
//     state's bytes.
//
// The snapshot truncates the log to its TrailingLogs last entries below
// the snapshot, and the newcomer receives the snapshot and only the
// entries after it. The configuration change waits for the snapshot.

// snapshotForNewcomer takes a snapshot before name is added, if this
// node leads, name is not a member yet, and snapshotWorthIt says so. It
// logs what it did; a failed snapshot leaves the newcomer to the log, as
// before.
func (s *Store) snapshotForNewcomer(name string) {
	if !s.IsLeader() || s.isMember(name) {
		return
	}
	b := s.newcomerBacklog()
	if !b.snapshotWorthIt(s.trailingLogs()) {
		return
	}
	start := time.Now()
	if err := s.raft.Snapshot().Error(); err != nil && err != raft.ErrNothingNewToSnapshot {
		s.cfg.Logger.Warn("snapshot for a new member failed; it will replay the log", "member", name, "entries", b.replay, "err", err)
		return
	}
	s.cfg.Logger.Info("took a snapshot for a new member", "member", name, "entries", b.replay, "took", time.Since(start))
}

// backlog is what a member starting empty would receive from this
// node's log.
type backlog struct {
	// replay is how many entries it would replay: those after the newest
	// snapshot when the log was truncated, else all of them.
	replay uint64
	// truncated: the log no longer starts at its first entry, so the
	// newcomer receives the newest snapshot in any case.
	truncated bool
	// replayBytes estimates the entries' size (the log's bytes per entry
	// times replay); stateBytes is the state file's size.
	replayBytes, stateBytes int64
}

// snapshotWorthIt reports whether a fresh snapshot costs the newcomer
// less than the replay it spares (see above).
func (b backlog) snapshotWorthIt(trailing uint64) bool {
	if b.replay <= trailing {
		return false
	}
	if !b.truncated {
		return true
	}
	return b.replayBytes > b.stateBytes/4
}

// isMember reports whether name is in the raft configuration (true when
// the configuration cannot be read: nothing is done for it then).
func (s *Store) isMember(name string) bool {
	members, err := s.Members()
	if err != nil {
		return true
	}
	for _, m := range members {
		if m.Name == name {
			return true
		}
	}
	return false
}

// newcomerBacklog is the backlog a member added now would start with.
func (s *Store) newcomerBacklog() backlog {
	last := s.raft.LastIndex()
	first, err := s.logs.FirstIndex()
	if err != nil || first <= 1 {
		return backlog{replay: last}
	}
	b := backlog{truncated: true, stateBytes: fileSize(filepath.Join(s.cfg.DataDir, stateFile))}
	snap, ok := s.lastSnapshotIndex()
	if !ok || snap >= last {
		return b
	}
	b.replay = last - snap
	if last >= first {
		perEntry := dirSize(filepath.Join(s.cfg.DataDir, walDir)) / int64(last-first+1)
		b.replayBytes = perEntry * int64(b.replay)
	}
	return b
}

// trailingLogs is the TrailingLogs raft runs with.
func (s *Store) trailingLogs() uint64 {
	if s.cfg.TrailingLogs > 0 {
		return s.cfg.TrailingLogs
	}
	return raft.DefaultConfig().TrailingLogs
}
