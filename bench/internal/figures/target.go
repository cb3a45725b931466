package figures

import "context"

// Target is a system under test, seen by numbered clients: client c of a
// figure is always the same connection (or node) of the target, so that
// clients spread over the members the same way on every target.
//
// Keys live in spaces (a namespace, a key prefix); every method may be
// called by many clients at once. Each method returns once the target
// has acknowledged the operation, with an error when it failed.
type Target interface {
	// Name names the target in the report: raftapi, etcd.
	Name() string
	// Prepare makes space ready to hold keys.
	Prepare(ctx context.Context, space string) error
	// Create writes a new key.
	Create(ctx context.Context, c int, space, name, value string) error
	// Update replaces the value of a key client c created or updated last.
	Update(ctx context.Context, c int, space, name, value string) error
	// Delete removes a key.
	Delete(ctx context.Context, c int, space, name string) error
	// Get reads a key: a linearizable read (Most Recent), or with stale a
	// read from the member's own state (Any, resourceVersion=0).
	Get(ctx context.Context, c int, space, name string, stale bool) error
	// List reads every key of space, linearizably, and returns how many
	// it read.
	List(ctx context.Context, c int, space string) (int, error)
	// Watch opens a watch of space's changes from now on for watcher w
	// and returns once the target has accepted it.
	Watch(ctx context.Context, w int, space string) (Stream, error)
}

// Stream is one open watch.
type Stream interface {
	// Next blocks for the next change and returns its key's name; an
	// error means the watch ended.
	Next() (string, error)
	// Close ends the watch.
	Close()
}
