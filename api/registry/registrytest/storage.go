package registrytest

import (
	"context"
	"sync"
	"time"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// Options tune a Storage; the zero value keeps every revision, fails
// reads of future revisions at once and never cuts a watcher off.
type Options struct {
	// HistoryMaxRevisions, when non-zero, compacts after every write so
	// that at most this many revisions of history stay readable, like
	// raftstore.Config.HistoryMaxRevisions.
	HistoryMaxRevisions uint64
	// WaitTimeout is how long a NotOlderThan or Exact read of a revision
	// not written yet waits for it before failing with
	// TooLargeResourceVersion; 0 fails at once.
	WaitTimeout time.Duration
	// WatchBuffer, when non-zero, is the number of queued items a watcher
	// may lag behind before it is cut off (its channel closes after the
	// events before the gap), like raftstore.Config.WatchBuffer; 0 queues
	// without bound.
	WatchBuffer int
}

// Storage is an in-memory registry.Storage. All methods are safe for
// concurrent use; one mutex guards the state, the history and the
// watchers' queues, and no method waits for a watcher's reader.
type Storage struct {
	opts Options

	mu        sync.Mutex
	rev       uint64                // revision of the last write
	compacted uint64                // history below it is gone
	current   map[string]Object     // key → newest version
	history   []event               // every change at or above compacted, by revision
	watchers  map[*watcher]struct{} // open watches
	changed   chan struct{}         // closed and replaced at every write
	leader    bool
	closed    bool
}

// Object is a stored object, as registry.Storage returns it.
type Object = registry.Object

var _ registry.Storage = (*Storage)(nil)

// New returns an empty Storage at revision 0 that reports itself leader.
func New() *Storage { return NewWithOptions(Options{}) }

// NewWithOptions returns an empty Storage tuned by opts.
func NewWithOptions(opts Options) *Storage {
	return &Storage{
		opts:     opts,
		current:  map[string]Object{},
		watchers: map[*watcher]struct{}{},
		changed:  make(chan struct{}),
		leader:   true,
	}
}

// Revision returns the revision of the last write (0 before the first).
func (s *Storage) Revision() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rev
}

// IsLeader reports what SetLeader last set; true initially.
func (s *Storage) IsLeader() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leader
}

// SetLeader sets what IsLeader reports. Writes succeed either way, as a
// raftstore follower forwards them to the leader.
func (s *Storage) SetLeader(leader bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leader = leader
}

// Compacted returns the compaction boundary: Exact reads, continue
// tokens and watches below it are Expired.
func (s *Storage) Compacted() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compacted
}

// Compact drops the history below rev (at most the current revision), as
// raftstore.Store.Compact does. A boundary at or below the current one
// changes nothing.
func (s *Storage) Compact(ctx context.Context, rev uint64) error {
	if err := ctx.Err(); err != nil {
		return unavailable(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return closedError()
	}
	s.compactLocked(min(rev, s.rev))
	return nil
}

// Close ends every watch with an Unavailable WatchError; later calls fail
// with Unavailable, as on a closed raftstore.Store. It is safe to call
// more than once.
func (s *Storage) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for w := range s.watchers {
		s.endLocked(w, item{kind: endItem, err: closedError()})
	}
	return nil
}

// begin checks what every call checks first: ctx still live and the
// store open. It returns with s.mu held when err is nil.
func (s *Storage) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return closedError()
	}
	return nil
}

func closedError() *raftstore.Error {
	return &raftstore.Error{Code: raftstore.ErrCodeUnavailable, Err: raftstore.ErrClosed}
}

func unavailable(err error) *raftstore.Error {
	return &raftstore.Error{Code: raftstore.ErrCodeUnavailable, Msg: "not applied", Err: err}
}
