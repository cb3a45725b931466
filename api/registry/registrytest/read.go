package registrytest

import (
	"bytes"
	"context"
	"time"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// Get returns key's object at the consistency of opts. MostRecent, Any
// and NotOlderThan read the current state; Exact reads the history. A
// missing key is NotFound with Rev set to the revision served.
func (s *Storage) Get(ctx context.Context, key string, opts registry.ReadOptions) (Object, error) {
	at, err := s.beginRead(ctx, opts)
	if err != nil {
		return Object{}, err
	}
	defer s.mu.Unlock()
	o, ok := s.objectAtLocked(key, at)
	if !ok {
		return Object{}, &raftstore.Error{Code: raftstore.ErrCodeNotFound, Key: key, Rev: s.servedLocked(at)}
	}
	return cloneObject(o), nil
}

// beginRead waits until the state satisfies opts and returns, with s.mu
// held, the historical revision to read at (0: the current state).
func (s *Storage) beginRead(ctx context.Context, opts registry.ReadOptions) (uint64, error) {
	rev, err := s.prepareRead(ctx, opts)
	if err != nil {
		return 0, err
	}
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	at := s.historicalLocked(rev)
	if at != 0 && at < s.compacted {
		s.mu.Unlock()
		return 0, expired(rev)
	}
	return at, nil
}

// prepareRead checks opts and waits for the revision they need; it
// returns the revision an Exact read asks for (0 otherwise).
func (s *Storage) prepareRead(ctx context.Context, opts registry.ReadOptions) (uint64, error) {
	switch opts.Consistency {
	case raftstore.NotOlderThan:
		return 0, s.waitForRevision(ctx, opts.Revision)
	case raftstore.Exact:
		if opts.Revision == 0 {
			return 0, badRequest("an exact read needs a revision")
		}
		return opts.Revision, s.waitForRevision(ctx, opts.Revision)
	}
	return 0, nil
}

// historicalLocked maps a requested revision to one the history must
// serve: 0 or a revision at or past the current one is the current state.
func (s *Storage) historicalLocked(rev uint64) uint64 {
	if rev >= s.rev {
		return 0
	}
	return rev
}

// servedLocked is the revision a read at at (0: current) is served at.
func (s *Storage) servedLocked(at uint64) uint64 {
	if at == 0 {
		return s.rev
	}
	return at
}

// waitForRevision waits, at most Options.WaitTimeout, for a write at rev;
// it fails with TooLargeResourceVersion after that.
func (s *Storage) waitForRevision(ctx context.Context, rev uint64) error {
	timer := time.NewTimer(s.opts.WaitTimeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		cur, changed := s.rev, s.changed
		s.mu.Unlock()
		if cur >= rev {
			return nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return tooLarge(rev)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func cloneObject(o Object) Object {
	o.Data = bytes.Clone(o.Data)
	return o
}
