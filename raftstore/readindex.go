package raftstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// readIndex returns an index that every write acknowledged before the call
// is at or below: the leader's commit index, confirmed by a quorum after
// the call started. Concurrent callers share rounds.
func (s *Store) readIndex(ctx context.Context) (uint64, error) {
	return s.reads.do(ctx)
}

// readIndexRound runs one round for every caller that joined it: locally
// on the leader, through the leader's peer RPC on a follower.
func (s *Store) readIndexRound(ctx context.Context) (uint64, error) {
	for attempt := 0; ; attempt++ {
		idx, err := s.readIndexOnce(ctx)
		if err == nil || !errors.Is(err, errNotLeader) {
			return idx, err
		}
		if backoff(ctx, attempt) != nil {
			return 0, err
		}
	}
}

// readIndexOnce asks the current leader once; errNotLeader means no leader
// is known or it stepped down, so a retry may succeed.
func (s *Store) readIndexOnce(ctx context.Context) (uint64, error) {
	if s.raft.State() == raft.Leader {
		return s.leaderReadIndex(ctx)
	}
	addr, _ := s.raft.LeaderWithID()
	if addr == "" {
		return 0, &Error{Code: ErrCodeUnavailable, Msg: "no leader for a consistent read", RetryAfter: time.Second, Err: errNotLeader}
	}
	callCtx, stop := whileLeader(ctx, addr, s.leaderAddr)
	reply, _, err := s.peers.call(callCtx, string(addr), rpcReadIndex, nil)
	changed := errors.Is(context.Cause(callCtx), errLeaderChanged)
	stop()
	if err != nil && changed {
		// The leader asked is gone (a crashed host may never answer):
		// ask the new one rather than wait out the round's timeout.
		return 0, &Error{Code: ErrCodeUnavailable, Msg: "the leader changed during a read index", RetryAfter: time.Second, Err: errNotLeader}
	}
	if err != nil {
		return 0, &Error{Code: ErrCodeUnavailable, Msg: "read index from leader", Err: err, RetryAfter: time.Second}
	}
	if reply.Err != nil {
		return 0, fromWire(reply.Err)
	}
	return reply.Index, nil
}

// errLeaderChanged cancels a call to a leader this node no longer follows.
var errLeaderChanged = errors.New("raftstore: the leader changed")

// leaderPoll is how often whileLeader looks at the leader.
const leaderPoll = 50 * time.Millisecond

// leaderAddr is the address of the leader this node knows, "" for none.
func (s *Store) leaderAddr() raft.ServerAddress {
	addr, _ := s.raft.LeaderWithID()
	return addr
}

// whileLeader returns a context that ends with ctx, or with cause
// errLeaderChanged once leader() is no longer addr, and a function that
// releases it.
func whileLeader(ctx context.Context, addr raft.ServerAddress, leader func() raft.ServerAddress) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		t := time.NewTicker(leaderPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if leader() != addr {
					cancel(errLeaderChanged)
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(nil) }
}

// leaderReadIndex is the leader's half of ReadIndex: it needs an entry of
// its own term committed (so its commit index is current), reads the
// commit index, then confirms with a quorum that it is still the leader.
func (s *Store) leaderReadIndex(ctx context.Context) (uint64, error) {
	if s.raft.State() != raft.Leader {
		return 0, &Error{Code: ErrCodeUnavailable, Msg: "not the leader", Err: errNotLeader}
	}
	if err := s.ensureTermCommitted(); err != nil {
		return 0, err
	}
	idx := s.raft.CommitIndex()
	if err := waitFuture(ctx, s.raft.VerifyLeader()); err != nil {
		return 0, &Error{Code: ErrCodeUnavailable, Msg: "leadership not confirmed", Err: err, RetryAfter: time.Second}
	}
	return idx, nil
}

// ensureTermCommitted makes sure an entry of the current term is committed
// (raft's no-op on election, or a barrier) before a read index is given.
func (s *Store) ensureTermCommitted() error {
	term := s.raft.CurrentTerm()
	if s.committedTerm.Load() == term {
		return nil
	}
	if err := s.raft.Barrier(s.cfg.ApplyTimeout).Error(); err != nil {
		return &Error{Code: ErrCodeUnavailable, Msg: "commit an entry of the new term", Err: err, RetryAfter: time.Second}
	}
	s.committedTerm.Store(term)
	return nil
}

func waitFuture(ctx context.Context, f raft.Future) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// rounds batches concurrent callers of fn: a caller joins the next round to
// start, never one already running, so every round begins after each of
// its callers arrived (which a linearizable read needs).
type rounds struct {
	fn func(ctx context.Context) (uint64, error)
	// timeout bounds one round, which runs on no caller's context.
	timeout time.Duration

	mu      sync.Mutex
	next    *round
	running bool
}

type round struct {
	done  chan struct{}
	index uint64
	err   error
}

func (b *rounds) do(ctx context.Context) (uint64, error) {
	b.mu.Lock()
	if b.next == nil {
		b.next = &round{done: make(chan struct{})}
	}
	r := b.next
	if !b.running {
		b.running = true
		go b.run()
	}
	b.mu.Unlock()
	select {
	case <-r.done:
		return r.index, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func (b *rounds) run() {
	for {
		b.mu.Lock()
		r := b.next
		b.next = nil
		if r == nil {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
		r.index, r.err = b.fn(ctx)
		cancel()
		close(r.done)
	}
}
