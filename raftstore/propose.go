package raftstore

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/raft"
	"github.com/raftapi/raftapi/fsm"
)

// errNotLeader marks an Unavailable error that means "this node is not the
// leader, nothing was appended": safe to retry on the leader.
var errNotLeader = errors.New("not the leader")

// Create stores obj under key, which must not exist. The returned object
// carries the revision the create committed at.
func (s *Store) Create(ctx context.Context, key string, obj []byte) (Object, error) {
	return s.write(ctx, &fsm.Command{Type: fsm.CmdCreate, Key: key, Object: obj})
}

// Update replaces key's object; key must exist and the preconditions hold.
func (s *Store) Update(ctx context.Context, key string, obj []byte, pre Preconditions) (Object, error) {
	return s.write(ctx, &fsm.Command{Type: fsm.CmdUpdate, Key: key, Object: obj, Preconditions: pre})
}

// Delete removes key; it must exist and the preconditions hold. The
// returned object is the deleted one, stamped with the deletion's revision.
func (s *Store) Delete(ctx context.Context, key string, pre Preconditions) (Object, error) {
	return s.write(ctx, &fsm.Command{Type: fsm.CmdDelete, Key: key, Preconditions: pre})
}

// Compact drops the history below rev: reads and watches at older
// revisions fail with ErrCodeExpired afterwards. The leader also compacts
// on its own to keep the configured retention window.
func (s *Store) Compact(ctx context.Context, rev uint64) error {
	_, err := s.propose(ctx, (&fsm.Command{Type: fsm.CmdCompact, Revision: rev}).Encode())
	return err
}

func (s *Store) write(ctx context.Context, cmd *fsm.Command) (Object, error) {
	res, err := s.proposeObserved(ctx, cmd)
	if err != nil {
		s.own.forget(cmd.Key)
		return Object{}, err
	}
	if res.Err != nil {
		return Object{}, fromRejection(res.Err)
	}
	if res.Object == nil && stampsObject(cmd.Type) {
		// Forwarded, and the leader left out what it stored (omitStamped).
		if res.Object, err = fsm.StampResourceVersion(cmd.Object, res.Rev); err != nil {
			return Object{}, &Error{Code: ErrCodeUnknownOutcome, Key: cmd.Key, Msg: "committed object not restamped", Err: err}
		}
		s.restamped.Add(1)
	}
	obj := Object{Key: cmd.Key, Rev: res.Rev, Data: res.Object}
	s.rememberOwn(cmd.Type, obj)
	return obj, nil
}

// rememberOwn keeps a write this node answered for its later NotOlderThan
// reads (see ownWrites). A leader applied the write before answering, so
// its own state serves them and it keeps nothing.
func (s *Store) rememberOwn(t fsm.CommandType, obj Object) {
	if s.raft.State() == raft.Leader {
		return
	}
	if t == fsm.CmdDelete {
		s.own.deleted(obj.Key, obj.Rev, s.fsm.Applied())
		return
	}
	s.own.wrote(obj, s.fsm.Applied())
}

func fromRejection(e *fsm.Error) error {
	code := map[fsm.Code]ErrorCode{
		fsm.CodeNotFound:      ErrCodeNotFound,
		fsm.CodeAlreadyExists: ErrCodeAlreadyExists,
		fsm.CodeConflict:      ErrCodeConflict,
		fsm.CodeInvalid:       ErrCodeInvalid,
	}[e.Code]
	if code == 0 {
		code = ErrCodeInvalid
	}
	return &Error{Code: code, Key: e.Key, Msg: e.Msg, Err: e}
}

// propose gets data committed through the leader, retrying only while the
// outcome is definitely "not applied" (no leader yet, not the leader),
// until ApplyTimeout or the caller's deadline.
func (s *Store) propose(ctx context.Context, data []byte) (*fsm.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ApplyTimeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		res, err := s.proposeOnce(ctx, data)
		if err == nil && res != nil {
			raiseTo(&s.acked, res.Rev)
		}
		if err == nil || !errors.Is(err, errNotLeader) {
			return res, err
		}
		if backoff(ctx, attempt) != nil {
			return nil, err
		}
	}
}

func (s *Store) proposeOnce(ctx context.Context, data []byte) (*fsm.Result, error) {
	if s.closed.Load() {
		return nil, &Error{Code: ErrCodeUnavailable, Err: ErrClosed}
	}
	if s.raft.State() == raft.Leader {
		return s.applyLocal(ctx, data)
	}
	return s.forward(ctx, data)
}

// applyLocal proposes on this node, which believes it is the leader.
func (s *Store) applyLocal(ctx context.Context, data []byte) (*fsm.Result, error) {
	timeout := s.cfg.ApplyTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	f := s.raft.Apply(data, timeout)
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case <-done:
		return applyResult(f)
	case <-ctx.Done():
		return nil, &Error{Code: ErrCodeUnknownOutcome, Msg: "deadline while waiting for commit", Err: ctx.Err()}
	}
}

// classifyApplyError separates raft errors that mean "never appended"
// from those after which the entry may still commit.
func classifyApplyError(err error) error {
	switch {
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipTransferInProgress):
		return &Error{Code: ErrCodeUnavailable, Msg: err.Error(), Err: errNotLeader}
	case errors.Is(err, raft.ErrEnqueueTimeout):
		return &Error{Code: ErrCodeUnavailable, Msg: "leader too busy to accept the write", Err: err}
	default:
		// ErrLeadershipLost, ErrRaftShutdown, ErrAbortedByRestore, timeouts:
		// the entry may have been appended and may yet commit.
		return &Error{Code: ErrCodeUnknownOutcome, Msg: "outcome unknown", Err: err}
	}
}

// forward sends the command to the leader and returns its result: with
// the other commands this node is forwarding at the same time (see
// forwarder), or alone to a leader that does not take them together.
func (s *Store) forward(ctx context.Context, data []byte) (*fsm.Result, error) {
	addr, _ := s.raft.LeaderWithID()
	if addr == "" {
		return nil, errNoLeader()
	}
	if s.forwards.together(string(addr)) {
		return s.forwards.forward(ctx, string(addr), data)
	}
	return s.forwardAlone(ctx, string(addr), data)
}

func errNoLeader() error {
	return &Error{Code: ErrCodeUnavailable, Msg: "no leader", Err: errNotLeader}
}

// forwardAlone sends one command to the leader at addr in an RPC of its
// own.
func (s *Store) forwardAlone(ctx context.Context, addr string, data []byte) (*fsm.Result, error) {
	reply, sent, err := s.peers.call(ctx, addr, rpcApply+"?"+omitStamped, data)
	if err != nil {
		return nil, forwardFailed(sent, err)
	}
	return fromReply(reply)
}

// forwardFailed is what a forward that failed with err means for its
// commands: never seen by the leader (retryable) unless it was sent.
func forwardFailed(sent bool, err error) error {
	if !sent {
		return &Error{Code: ErrCodeUnavailable, Msg: "leader unreachable", Err: errNotLeader}
	}
	return &Error{Code: ErrCodeUnknownOutcome, Msg: "lost the leader's answer", Err: err}
}

// fromReply is the result or error of a forwarded command as the leader
// answered it: an error when the command may not have been applied, a
// result (which may hold a rejection) when it was.
func fromReply(reply rpcReply) (*fsm.Result, error) {
	if reply.Err != nil && (reply.Err.NotLeader || reply.Err.Code == ErrCodeUnavailable || reply.Err.Code == ErrCodeUnknownOutcome) {
		return nil, fromWire(reply.Err)
	}
	res := &fsm.Result{Rev: reply.Rev, Object: reply.Object}
	if reply.Err != nil {
		res.Err = &fsm.Error{Code: toFSMCode(reply.Err.Code), Key: reply.Err.Key, Msg: reply.Err.Msg}
	}
	return res, nil
}

func toFSMCode(c ErrorCode) fsm.Code {
	switch c {
	case ErrCodeNotFound:
		return fsm.CodeNotFound
	case ErrCodeAlreadyExists:
		return fsm.CodeAlreadyExists
	case ErrCodeConflict:
		return fsm.CodeConflict
	}
	return fsm.CodeInvalid
}

// backoff waits before retrying an attempt that found no leader: 10ms
// doubling up to 200ms, or until ctx ends.
func backoff(ctx context.Context, attempt int) error {
	t := time.NewTimer(min(10*time.Millisecond<<min(attempt, 5), 200*time.Millisecond))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
