package raftstore

import (
	"context"
	"errors"

	"github.com/raftapi/raftapi/fsm"
)

// Get returns key's object at the requested consistency. A missing key is
// ErrCodeNotFound, with Rev set to the revision the read was served at.
// A NotOlderThan read of a revision a follower has not applied yet is
// answered from the follower's own last write of the key when that is
// recent enough (see ownWrites), else by the leader when it can (see
// getFromLeader).
func (s *Store) Get(ctx context.Context, key string, opts ReadOptions) (Object, error) {
	if opts.Consistency == NotOlderThan && s.fsm.Need(opts.Revision) < opts.Revision && !s.closed.Load() {
		if obj, ok := s.own.get(key, opts.Revision); ok {
			return obj, nil
		}
		if obj, ok, err := s.getFromLeader(ctx, key, opts.Revision); ok {
			return obj, err
		}
	}
	return s.getLocal(ctx, key, opts)
}

// getLocal is Get served from this node's state.
func (s *Store) getLocal(ctx context.Context, key string, opts ReadOptions) (Object, error) {
	s.ownKeys(key)
	rev, err := s.prepareRead(ctx, opts)
	if err != nil {
		return Object{}, err
	}
	var obj Object
	err = s.fsm.View(func(v *fsm.View) error {
		at := servedRevision(v, rev)
		o, ok, err := v.Get(key, at)
		if err != nil {
			return s.viewError(err, rev)
		}
		if !ok {
			served := v.Applied()
			if at != 0 {
				served = at
			}
			return &Error{Code: ErrCodeNotFound, Key: key, Rev: served}
		}
		obj = o
		return nil
	})
	return obj, err
}

// prepareRead waits until the local state satisfies opts and returns the
// historical revision to read at (0: the current state).
func (s *Store) prepareRead(ctx context.Context, opts ReadOptions) (uint64, error) {
	if s.closed.Load() {
		return 0, &Error{Code: ErrCodeUnavailable, Err: ErrClosed}
	}
	switch opts.Consistency {
	case Any:
		return 0, nil
	case NotOlderThan:
		return 0, s.waitForRevision(ctx, opts.Revision)
	case Exact:
		if opts.Revision == 0 {
			return 0, newError(ErrCodeBadRequest, "", "an exact read needs a revision")
		}
		return opts.Revision, s.waitForRevision(ctx, opts.Revision)
	default:
		idx, err := s.readIndex(ctx)
		if err != nil {
			return 0, err
		}
		return 0, s.waitForIndex(ctx, idx)
	}
}

// servedRevision maps a requested revision to one the view can serve: a
// revision past the view's applied index (only possible for an index the
// FSM never saw, such as a raft no-op, already waited for) is the current
// state.
func servedRevision(v *fsm.View, rev uint64) uint64 {
	if rev == 0 || rev >= v.Applied() {
		return 0
	}
	return rev
}

func (s *Store) viewError(err error, rev uint64) error {
	switch {
	case errors.Is(err, fsm.ErrCompacted):
		return &Error{Code: ErrCodeExpired, Rev: rev, Msg: "the requested resourceVersion has been compacted", Err: err}
	case errors.Is(err, fsm.ErrFutureRevision):
		return &Error{Code: ErrCodeTooLargeResourceVersion, Rev: rev, Current: s.fsm.Applied(), Msg: "Too large resource version", Err: err}
	}
	return err
}

// List returns one page of the objects whose keys start with prefix. Every
// page of one list is served at the first page's revision; a continue token
// decides the revision by itself.
func (s *Store) List(ctx context.Context, prefix string, opts ListOptions) (*ListResult, error) {
	after := ""
	if opts.Continue != "" {
		tok, err := decodeContinue(opts.Continue, prefix)
		if err != nil {
			return nil, err
		}
		opts.ReadOptions = ReadOptions{Consistency: Exact, Revision: tok.Rev}
		after = tok.Start
	}
	s.ownKeys(prefix)
	rev, err := s.prepareRead(ctx, opts.ReadOptions)
	if err != nil {
		return nil, err
	}
	var out *ListResult
	err = s.fsm.View(func(v *fsm.View) error {
		var err error
		out, err = listPage(v, prefix, after, servedRevision(v, rev), opts)
		if err != nil {
			err = s.expiredList(v, err, rev, prefix, after)
		}
		return err
	})
	return out, err
}

// expiredList maps a compacted continuation to ErrCodeExpired carrying a
// fresh token that continues from the same key at the current revision.
func (s *Store) expiredList(v *fsm.View, err error, rev uint64, prefix, after string) error {
	err = s.viewError(err, rev)
	var e *Error
	if errors.As(err, &e) && e.Code == ErrCodeExpired && after != "" {
		e.Continue = encodeContinue(v.Applied(), after)
	}
	return err
}

func listPage(v *fsm.View, prefix, after string, rev uint64, opts ListOptions) (*ListResult, error) {
	out := &ListResult{Revision: rev, Items: []Object{}}
	if rev == 0 {
		out.Revision = v.Applied()
	}
	var last string
	full, more := false, false
	err := v.Range(prefix, after, rev, func(o Object) bool {
		if full {
			more = true
			return false
		}
		last = o.Key
		if opts.Predicate.matches(o.Data) {
			out.Items = append(out.Items, o)
		}
		full = opts.Limit > 0 && int64(len(out.Items)) >= opts.Limit
		return true
	})
	if err != nil || !more {
		return out, err
	}
	out.Continue = encodeContinue(out.Revision, last)
	if opts.Predicate == nil && !opts.SkipCount {
		n, err := v.Count(prefix, last, rev)
		if err != nil {
			return nil, err
		}
		out.RemainingItemCount = &n
	}
	return out, nil
}

// Count returns the number of objects whose keys start with prefix in the
// node's current state (a local read, like Any).
func (s *Store) Count(prefix string) (int64, error) {
	s.ownKeys(prefix)
	var n int64
	err := s.fsm.View(func(v *fsm.View) error {
		var err error
		n, err = v.Count(prefix, "", 0)
		return err
	})
	return n, err
}
