package raftstore

import "fmt"

// WatchEventType is the kind of a watch event.
type WatchEventType uint8

// Watch event types.
const (
	// Added: the object was created, or started matching the predicate.
	Added WatchEventType = iota + 1
	// Modified: the object changed and matches before and after.
	Modified
	// Deleted: the object was deleted, or stopped matching the predicate
	// (then Object is its new state).
	Deleted
	// Bookmark: progress; every change up to Rev has been delivered.
	Bookmark
	// WatchError: the watch cannot continue; Err says why (an *Error with
	// ErrCodeExpired when the history it needs is gone). It is the last
	// event before the channel closes.
	WatchError
)

func (t WatchEventType) String() string {
	switch t {
	case Added:
		return "ADDED"
	case Modified:
		return "MODIFIED"
	case Deleted:
		return "DELETED"
	case Bookmark:
		return "BOOKMARK"
	case WatchError:
		return "ERROR"
	}
	return fmt.Sprintf("WatchEventType(%d)", uint8(t))
}

// WatchEvent is one event of a watch. Object is the object after the change
// (for a deletion: its last state stamped with the deletion's revision),
// Prev the object before it (nil if none). For Bookmark only Rev is set.
type WatchEvent struct {
	Type   WatchEventType
	Key    string
	Rev    uint64
	Object []byte
	Prev   []byte
	Err    error
}
