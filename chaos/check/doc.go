// Package check validates a recorded history (package history) against
// the guarantees raftapi promises, from the history alone:
//
//   - linearizable: the register workload, per key, with porcupine; a write
//     with an unknown outcome may or may not have taken effect.
//   - watch: per watcher, against the merged history of every watcher and
//     every acknowledged write: ordered, unique, reliable (no gaps), atomic
//     (one change per resourceVersion, the same for everyone), resumable,
//     bookmarkable, and an initial-events-end bookmark after all initial
//     events.
//   - list: an Exact list equals the state reconstructed at its
//     resourceVersion, all pages of a paginated list share one
//     resourceVersion and together equal that state, NotOlderThan lists are
//     never older than asked, Most Recent lists are never older than a
//     write acknowledged before they began.
//   - observations: nothing is read that nobody wrote, or whose write
//     definitely failed, and one write has one resourceVersion.
//
// Every checker returns a Result with the first anomalies explained.
package check
