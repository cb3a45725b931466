// Package check validates a recorded history (package history) against
// the guarantees raftapi promises, from the history alone:
//
//   - linearizable: the register workload, per key of each resource, with
//     porcupine; a write with an unknown outcome may or may not have taken
//     effect, and an answer from a node not serving the resource says
//     nothing.
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
//     definitely failed, one write has one resourceVersion, and a node
//     stops serving a resource only while it restarts.
//
// Every resource (configmaps, a custom resource) is stored in one raft log
// whose index is the resourceVersion: the watch and list checks work on
// each resource's changes, while one resourceVersion must be one change
// across resources and a Most Recent list of any resource must not be
// older than a write of any.
//
// Every checker returns a Result with the first anomalies explained.
package check
