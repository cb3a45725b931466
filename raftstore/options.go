package raftstore

import "github.com/raftapi/raftapi/fsm"

// Consistency is how fresh a read must be.
type Consistency uint8

// Read consistency levels (see DESIGN.md, "Reads").
const (
	// MostRecent is a quorum read: the node obtains a read index from the
	// leader and serves its local state once it has applied that index.
	// It is the zero value.
	MostRecent Consistency = iota
	// Any serves this node's local state without waiting.
	Any
	// NotOlderThan serves local state once the node has applied
	// ReadOptions.Revision, waiting a bounded time for it.
	NotOlderThan
	// Exact serves the state as of ReadOptions.Revision from the history.
	Exact
)

func (c Consistency) String() string {
	return [...]string{"MostRecent", "Any", "NotOlderThan", "Exact"}[c]
}

// ReadOptions select the state a read sees.
type ReadOptions struct {
	Consistency Consistency
	// Revision is the revision for NotOlderThan and Exact.
	Revision uint64
}

// Preconditions restrict an update or delete; zero fields are unchecked.
type Preconditions = fsm.Preconditions

// Object is a stored object: its key, the revision that last changed it
// and its JSON with metadata.resourceVersion set to that revision.
type Object = fsm.Object

// Predicate reports whether an object (its JSON) matches a filter. nil
// matches everything.
type Predicate func(obj []byte) bool

func (p Predicate) matches(obj []byte) bool { return p == nil || p(obj) }

// ListOptions select a page of a list.
type ListOptions struct {
	ReadOptions
	// Limit is the maximum number of items; 0 means all.
	Limit int64
	// Continue is the token of a previous page. It carries the revision,
	// so ReadOptions must be zero when it is set.
	Continue string
	// Predicate filters items; a page still holds up to Limit matches.
	Predicate Predicate
	// SkipCount leaves RemainingItemCount unset: a caller that reads
	// every page (a controller's pass) does not pay for counting the
	// rest of the range on each one.
	SkipCount bool
}

// ListResult is one page of a list.
type ListResult struct {
	Items []Object
	// Revision is the revision the whole list is served at.
	Revision uint64
	// Continue is the token for the next page, "" on the last one.
	Continue string
	// RemainingItemCount is the number of items after this page; set only
	// with a continue token, no predicate and no SkipCount.
	RemainingItemCount *int64
}

// WatchOptions select what a watch streams.
type WatchOptions struct {
	// Revision: stream every change after it. 0 means "from now": changes
	// after the node's applied index when the watch starts.
	Revision uint64
	// Predicate filters by object; transitions become Added (starts
	// matching) and Deleted (stops matching) events.
	Predicate Predicate
	// Recursive watches every key with the given key as prefix; otherwise
	// only the exact key.
	Recursive bool
}

// StampResourceVersion returns obj, a JSON object, with
// metadata.resourceVersion set to rev, as the store stamps every write.
func StampResourceVersion(obj []byte, rev uint64) ([]byte, error) {
	return fsm.StampResourceVersion(obj, rev)
}

// EqualButResourceVersion reports whether two stored forms of an object
// are the same bytes but for metadata.resourceVersion: an update that
// stores one in place of the other changes nothing.
func EqualButResourceVersion(a, b []byte) bool {
	return fsm.EqualButResourceVersion(a, b)
}
