package registry

import (
	"context"

	"github.com/raftapi/raftapi/raftstore"
)

// The registry speaks the store's vocabulary: these are raftstore's own
// types, named here so that the layers above the registry need not
// import the store.
type (
	// Object is a stored object: key, revision and JSON.
	Object = raftstore.Object
	// ListResult is one page of a list.
	ListResult = raftstore.ListResult
	// ReadOptions select the state a read sees.
	ReadOptions = raftstore.ReadOptions
	// Consistency is the state a read sees (MostRecent, Any, ...).
	Consistency = raftstore.Consistency
	// StoreListOptions select a page of a list in the store.
	StoreListOptions = raftstore.ListOptions
	// WatchOptions select what a store watch streams.
	WatchOptions = raftstore.WatchOptions
	// WatchEvent is one change, bookmark or error of a watch.
	WatchEvent = raftstore.WatchEvent
	// Preconditions restrict a store update or delete.
	Preconditions = raftstore.Preconditions
	// Predicate filters objects by their JSON.
	Predicate = raftstore.Predicate
)

// Storage is the slice of the replicated store the registry consumes.
// raftstore.Store implements it through FromRaftstore; registrytest holds
// an in-memory implementation for tests. Every method is safe for
// concurrent use and honours ctx.
//
// Keys are the registry's storage keys (resource.Resource.Key and
// Prefix). Objects are JSON whose metadata.resourceVersion the store
// stamps with the revision of the write that stored them. A read may mark
// an object Stale (api/encryption does, for a value under a key that is
// no longer the first): an update of it is then written even when it
// changes nothing.
//
// Errors are *raftstore.Error values, told apart with raftstore's IsX
// predicates:
//   - Create: AlreadyExists when key exists;
//   - Update and Delete: NotFound when key does not exist, Conflict when a
//     precondition (resourceVersion or UID) does not hold;
//   - every write: Unavailable when the write was not proposed (no
//     leader, closed store), UnknownOutcome when it was proposed and its
//     fate is unknown (leadership lost, timeout) — never retried blindly;
//   - Get: NotFound;
//   - Get and List at NotOlderThan N: TooLargeResourceVersion when
//     this node has not applied N in time;
//   - List at Exact N, a continue token or Watch from N: Expired once N
//     has been compacted (for Watch, as a WatchError event); BadRequest for
//     a malformed continue token.
type Storage interface {
	// Create stores obj at key, which must not exist.
	Create(ctx context.Context, key string, obj []byte) (Object, error)
	// Update replaces the object at key when pre holds.
	Update(ctx context.Context, key string, obj []byte, pre Preconditions) (Object, error)
	// Delete removes the object at key when pre holds and returns its
	// last state.
	Delete(ctx context.Context, key string, pre Preconditions) (Object, error)
	// Get reads the object at key with the consistency of opts.
	Get(ctx context.Context, key string, opts ReadOptions) (Object, error)
	// List reads the objects under prefix, in key order.
	List(ctx context.Context, prefix string, opts StoreListOptions) (*ListResult, error)
	// Watch streams the changes of key (or under it, when
	// opts.Recursive) after opts.Revision; see Watcher.
	Watch(ctx context.Context, key string, opts WatchOptions) (Watcher, error)
	// Revision is the newest revision this node has applied.
	Revision() uint64
	// IsLeader reports whether this node currently leads; controllers
	// act only on the leader.
	IsLeader() bool
}

// Watcher is one open store watch. Its events arrive on ResultChan in
// revision order, without gaps or duplicates; the channel closes when the
// watch ends (Stop, its context ended, cut off for falling behind, or after
// a WatchError event).
type Watcher interface {
	ResultChan() <-chan WatchEvent
	// Stop ends the watch; it may be called more than once.
	Stop()
	// RequestProgress asks for a Bookmark event carrying the newest
	// revision the watch has caught up with.
	RequestProgress()
}

// FromRaftstore returns s as the registry's Storage.
func FromRaftstore(s *raftstore.Store) Storage { return raftStorage{s} }

// raftStorage adapts *raftstore.Store, whose Watch returns its concrete
// watch type.
type raftStorage struct{ *raftstore.Store }

// Watch implements Storage.
func (s raftStorage) Watch(ctx context.Context, key string, opts WatchOptions) (Watcher, error) {
	w, err := s.Store.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return w, nil
}

var (
	_ Storage = raftStorage{}
	_ Watcher = (*raftstore.Watch)(nil)
)

// Read consistencies (see raftstore.Consistency).
const (
	MostRecent   = raftstore.MostRecent
	Any          = raftstore.Any
	NotOlderThan = raftstore.NotOlderThan
	Exact        = raftstore.Exact
)

// Watch event types the registry's clients act on (see
// raftstore.WatchEventType); change events are passed on by type.
const (
	Bookmark   = raftstore.Bookmark
	WatchError = raftstore.WatchError
	Deleted    = raftstore.Deleted
)

// IsNotFound reports whether a Storage error says the key does not exist.
func IsNotFound(err error) bool { return raftstore.IsNotFound(err) }

// IsAlreadyExists reports whether a Storage error says the key exists.
func IsAlreadyExists(err error) bool { return raftstore.IsAlreadyExists(err) }

// IsConflict reports whether a Storage error says a precondition failed.
func IsConflict(err error) bool { return raftstore.IsConflict(err) }

// IsExpired reports whether a Storage error says a revision was compacted.
func IsExpired(err error) bool { return raftstore.IsExpired(err) }
