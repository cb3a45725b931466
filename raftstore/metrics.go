package raftstore

import (
	"context"
	"time"

	"github.com/raftapi/raftapi/fsm"
)

// Observer receives the store's events that metrics count or time. The
// store calls it from the goroutines doing the work: WriteDone from every
// Create, Update and Delete caller once its outcome is known, WatchEventSent
// from every watch's goroutine each time it hands a non-error event
// (Added, Modified, Deleted, Bookmark) to its reader, WatchCaughtUp from a
// watch's goroutine each time it starts reading what it missed after
// falling behind. Calls run concurrently with each other and must return
// quickly without blocking.
type Observer interface {
	// WriteDone reports one write: op is "create", "update" or "delete",
	// d the time from the call to its result, err its error (nil on
	// success; a rejection such as a conflict is an error too).
	WriteDone(op string, d time.Duration, err error)
	// WatchEventSent reports one event delivered to a watch's reader.
	WatchEventSent()
	// WatchCaughtUp reports a watch that fell WatchBuffer events behind
	// and reads the events it missed from the history.
	WatchCaughtUp()
}

// observerBox lets an interface value live in an atomic.Pointer.
type observerBox struct{ o Observer }

// SetObserver installs o; nil removes the current one. It may be called at
// any time, concurrently with everything else.
func (s *Store) SetObserver(o Observer) {
	if o == nil {
		s.observer.Store(nil)
		return
	}
	s.observer.Store(&observerBox{o: o})
}

func (s *Store) loadObserver() Observer {
	if b := s.observer.Load(); b != nil {
		return b.o
	}
	return nil
}

// proposeObserved proposes cmd and reports the write to the observer.
func (s *Store) proposeObserved(ctx context.Context, cmd *fsm.Command) (*fsm.Result, error) {
	start := time.Now()
	res, err := s.propose(ctx, cmd.Encode())
	if o := s.loadObserver(); o != nil {
		werr := err
		if werr == nil && res != nil && res.Err != nil {
			werr = res.Err
		}
		o.WriteDone(cmd.Type.String(), time.Since(start), werr)
	}
	return res, err
}

// watchEventSent reports a delivered watch event to the observer.
func (s *Store) watchEventSent(t WatchEventType) {
	if t == WatchError {
		return
	}
	if o := s.loadObserver(); o != nil {
		o.WatchEventSent()
	}
}

// watchCaughtUp reports a watch catching up to the observer.
func (s *Store) watchCaughtUp() {
	if o := s.loadObserver(); o != nil {
		o.WatchCaughtUp()
	}
}

// DBSize returns the size in bytes of the node's state file (the bbolt
// database holding current objects and the history window), or 0 once the
// store is closed.
func (s *Store) DBSize() int64 { return s.fsm.Size() }
