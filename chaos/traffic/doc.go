// Package traffic is the clients of a chaos run: a register workload
// (per-key Most Recent gets, creates, updates with a resourceVersion
// precondition, deletes), a list workload (Most Recent, Exact and
// NotOlderThan lists, paginated or not) and watchers (resuming from the
// last resourceVersion they saw after any disconnect, some with
// bookmarks, some starting with sendInitialEvents). Clients spread their
// requests over every node and record each operation in a
// history.Recorder with its outcome: ok, failed (definitely not applied)
// or unknown. They speak the public Kubernetes HTTP API with net/http,
// configmaps serving as registers whose data value is unique per write.
package traffic
