// Package namespace runs the namespace lifecycle, as kube-controller-
// manager's namespace controller and kube-apiserver's system-namespaces
// controller do together:
//
//   - the system namespaces (default, kube-system, kube-public,
//     kube-node-lease) are created when missing;
//   - a namespace being deleted (Terminating) has its content deleted
//     through the registry, as a client's DELETE of each object would,
//     with the default propagation; objects held by finalizers are waited
//     for;
//   - once it is empty, its spec.finalizers are cleared and, when no
//     metadata.finalizers are left, the namespace is removed.
//
// Algorithm: every node runs a Controller; each second, and at once when
// the registry marks a namespace for deletion (Kick), the leader lists the
// namespaces (local read) and finalizes those with a deletionTimestamp.
//
// Guarantees under leader change: the controller keeps no state; a new
// leader finds every Terminating namespace on its first reconcile. Its
// writes to namespaces carry the revision read as a precondition, so a
// deposed leader's late write fails instead of undoing a newer one, and
// content deletes go through the registry with its own preconditions.
// Creation of a namespace object in a Terminating namespace is refused by
// the registry's admission (403), so content cannot reappear behind the
// controller's back.
package namespace
