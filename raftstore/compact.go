package raftstore

import (
	"context"
	"time"
)

// revSample records the applied index at a moment, so the leader can turn
// "older than the retention window" into a revision. Every node samples,
// so a new leader knows the past too.
type revSample struct {
	at  time.Time
	rev uint64
}

// compactLoop proposes, while leader, a compaction to the newest revision
// older than HistoryRetention (or HistoryMaxRevisions behind).
func (s *Store) compactLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.CompactionInterval)
	defer t.Stop()
	var samples []revSample
	for {
		select {
		case <-s.stopCh:
			return
		case now := <-t.C:
			samples = append(samples, revSample{at: now, rev: s.fsm.Applied()})
			var boundary uint64
			samples, boundary = compactionBoundary(samples, now, s.cfg.HistoryRetention)
			if s.cfg.HistoryMaxRevisions > 0 && s.fsm.Applied() > s.cfg.HistoryMaxRevisions {
				boundary = max(boundary, s.fsm.Applied()-s.cfg.HistoryMaxRevisions)
			}
			s.maybeCompact(boundary)
		}
	}
}

// compactionBoundary returns the revision of the newest sample at least
// retention old, and the samples still needed later.
func compactionBoundary(samples []revSample, now time.Time, retention time.Duration) ([]revSample, uint64) {
	var boundary uint64
	i := 0
	for i < len(samples) && now.Sub(samples[i].at) >= retention {
		boundary = samples[i].rev
		i++
	}
	if i > 0 {
		// Keep the last expired sample: it stays the boundary until a newer
		// one expires.
		i--
	}
	return samples[i:], boundary
}

func (s *Store) maybeCompact(boundary uint64) {
	if !s.IsLeader() || boundary <= s.fsm.Compacted() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ApplyTimeout)
	defer cancel()
	if err := s.Compact(ctx, boundary); err != nil {
		s.cfg.Logger.Warn("compaction failed", "boundary", boundary, "err", err)
	}
}
