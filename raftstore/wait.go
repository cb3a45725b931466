package raftstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
)

// applyNotifier wakes goroutines waiting for the FSM to advance.
type applyNotifier struct {
	mu sync.Mutex
	ch chan struct{}
}

func newApplyNotifier() *applyNotifier { return &applyNotifier{ch: make(chan struct{})} }

// wait returns a channel closed at the next notify.
func (n *applyNotifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ch
}

func (n *applyNotifier) notify() {
	n.mu.Lock()
	close(n.ch)
	n.ch = make(chan struct{})
	n.mu.Unlock()
}

// noopPoll is how often a waiter re-checks raft's applied index when the
// index it waits for is an entry the FSM never sees (a raft no-op or
// barrier), which wakes no FSM notification.
const noopPoll = 2 * time.Millisecond

// waitForIndex returns once the local state reflects every log entry up to
// index. The FSM only sees command and configuration entries, so when raft
// has applied past index the target is the last such entry at or below it.
func (s *Store) waitForIndex(ctx context.Context, index uint64) error {
	for {
		ch := s.notifier.wait()
		s.fsm.Need(index)
		if s.fsmReached(index) {
			return nil
		}
		t := time.NewTimer(noopPoll)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		t.Stop()
	}
}

func (s *Store) fsmReached(index uint64) bool {
	applied := s.fsm.Applied()
	if applied >= index {
		return true
	}
	if s.raft.AppliedIndex() < index {
		return false
	}
	return applied >= s.lastFSMEntryAtOrBelow(index)
}

// lastFSMEntryAtOrBelow walks the local log back from index to the last
// entry the FSM is given. An entry missing from the log was compacted into a
// snapshot, which the FSM state already covers.
func (s *Store) lastFSMEntryAtOrBelow(index uint64) uint64 {
	for i := index; i > 0; i-- {
		var l raft.Log
		if err := s.logs.GetLog(i, &l); err != nil {
			return 0
		}
		if l.Type == raft.LogCommand || l.Type == raft.LogConfiguration {
			return i
		}
	}
	return 0
}

// waitForRevision waits, at most WaitTimeout, for the node to have applied
// rev; it fails with ErrCodeTooLargeResourceVersion after that.
func (s *Store) waitForRevision(ctx context.Context, rev uint64) error {
	if s.fsm.Need(rev) >= rev {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, s.cfg.WaitTimeout)
	defer cancel()
	if err := s.waitForIndex(wctx, rev); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Code: ErrCodeTooLargeResourceVersion, Rev: rev, Current: s.fsm.Applied(), RetryAfter: time.Second,
			Msg: "Too large resource version"}
	}
	return nil
}

// ownState makes this node's state show every write it has answered, as
// far as it has applied them, and returns its applied index. The FSM may
// hold applied entries uncommitted for a moment (fsm.WithCommitDelay);
// a client that got an answer from this node and then reads from it, even
// at Any, must see its write as it did before that delay existed. On a
// follower the answered write may not be applied yet: the read then sees
// what it saw before, and the FSM commits the entry as soon as it comes.
func (s *Store) ownState() uint64 { return s.fsm.Need(s.acked.Load()) }

// ownKeys is ownState for a read of the keys starting with prefix: it
// commits only when an uncommitted change is on such a key
// (fsm.FSM.NeedPrefix), so that reads of other keys, such as an
// admission's read of a namespace, leave the FSM's batching alone.
func (s *Store) ownKeys(prefix string) { s.fsm.NeedPrefix(prefix, s.acked.Load()) }

// raiseTo raises v to at least n.
func raiseTo(v *atomic.Uint64, n uint64) {
	for {
		cur := v.Load()
		if cur >= n || v.CompareAndSwap(cur, n) {
			return
		}
	}
}
