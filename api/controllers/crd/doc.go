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
//
// Guarantees under leader change: every step is derived from the stored
// state and written with the revision read as a precondition, so a new
// leader resumes where the old one stopped; a step repeated by two leaders
// in turn is harmless (deleting a deleted instance is a NotFound, a stale
// status write a Conflict, both ignored and retried on the next pass).
package crd
