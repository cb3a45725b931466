// Package crd runs the controllers of CustomResourceDefinitions that
// kube-apiserver runs in its apiextensions server, on the leader only:
//
//   - Naming and establishing: a CRD's requested names are checked against
//     the other CRDs of its group and the built-in resources
//     (apiextensions.AcceptNames); status.acceptedNames and the
//     NamesAccepted condition are written, and Established becomes True in
//     the same write once the names are accepted (every node serves a CRD
//     whose names are accepted, from its own committed state).
//   - Cleanup: a CRD being deleted carries the
//     customresourcecleanup.apiextensions.k8s.io finalizer (added by its
//     strategy on the first delete). The controller sets Terminating,
//     deletes every instance through the registry (one log entry per
//     object, so finalizers and ownerReference propagation apply), waits
//     until none is left, then removes the finalizer, which removes the
//     CRD.
//   - Storage version migration, which kube-apiserver leaves to an
//     external migrator: when status.storedVersions holds versions other
//     than the storage version, every stored object in another version is
//     rewritten in the storage version (one log entry each, paced by a
//     token bucket shared by all migrations, a pause between pages of the
//     scan), then storedVersions is trimmed to the storage version. The
//     StorageVersionMigrated condition shows it: False Migrating with a
//     count, True Migrated at the end, False MigrationFailed when an
//     object cannot be converted (retried with backoff, storedVersions
//     kept). See migrate.go.
//
// Guarantees under leader change: every step is derived from the stored
// state and written with the revision read as a precondition, so a new
// leader resumes where the old one stopped; a step repeated by two leaders
// in turn is harmless (deleting a deleted instance is a NotFound, a stale
// status write a Conflict, both ignored and retried on the next pass).
// A migration keeps no progress but the stored objects themselves: a new
// leader scans again and skips the objects already in the storage
// version. Each rewrite has the object's revision as its precondition, so
// a client's write in between is never overwritten (the object is read
// again and rewritten only if still in another version), and
// storedVersions is trimmed only after a full scan that started under the
// current spec, checked again by the precondition of the status write.
package crd
