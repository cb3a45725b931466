// Package registrytest holds an in-memory registry.Storage, so that the
// registry and the layers above it can be tested without raft or bbolt.
//
// Storage reproduces raftstore's observable semantics on one node: every
// write stamps metadata.resourceVersion with its revision, rejections are
// *raftstore.Error values with raftstore's codes, reads honour
// ReadOptions (Exact reads and lists from a kept history, Expired below
// Compact's boundary), lists page with raftstore's continue-token format,
// and watches replay history, filter by predicate with raftstore's
// transitions, bookmark on request and never block writers.
//
// Where it knowingly differs from raftstore:
//   - revisions are a counter of successful writes: a rejected write or a
//     compaction does not consume one, as it consumes a raft index;
//   - a write on a context that has already ended fails with Unavailable
//     (nothing was applied) instead of possibly UnknownOutcome;
//   - a Conflict carries the key's current revision in Error.Rev, as
//     raftstore.Error documents (raftstore itself leaves it 0).
package registrytest
