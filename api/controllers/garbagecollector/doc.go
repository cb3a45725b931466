// Package garbagecollector deletes objects whose owners are gone and carries
// out the propagation policy of deletes (registry.PolicyFromFinalizers), as
// kube-controller-manager's garbage collector does:
//
//   - an object being deleted with the "orphan" finalizer has the owner
//     references to it removed from its dependents, then the finalizer;
//   - an object being deleted with the "foregroundDeletion" finalizer has
//     its dependents deleted (in foreground when they have dependents of
//     their own) and loses the finalizer once no dependent with
//     blockOwnerDeletion is left;
//   - an object none of whose owners exists is deleted; one with some
//     owners gone and some present only loses the references to the gone
//     ones.
//
// Every node runs it; only the raft leader acts. Each pass rebuilds the
// whole picture from a Most Recent list of every resource that can be
// deleted, so a new leader simply starts with a pass and finishes what the
// old one left. It decodes only the listed objects that mention owner
// references or finalizers, and then reads by key the owners they name:
// the other objects give it no work (a pass over 20,000 ConfigMaps, 1% of
// them owned, went from about 205 ms to 82 ms in BenchmarkPass). Between
// passes the leader reads the changes committed since it last looked (a
// watch from that revision, stopped once caught up) and makes another
// pass when one of them matters; it also passes again a tick after a
// failed pass, on becoming leader, and every gcResync (longer when a pass
// is slow: see resyncAfter). A change
// history compacted away means a pass too: the pass's fresh list covers
// whatever the history no longer holds.
//
// Owners are matched by uid: an owner is absent when no object of its
// kind, name (and, for a namespaced kind, the dependent's namespace) with
// that uid exists, confirmed by a Most Recent read before anything is
// deleted or unlinked because of it. Every write carries a revision and
// uid precondition and is retried on a conflict with a fresh read, so a
// deposed leader's late write fails instead of undoing a newer one.
//
// Guarantees under leader change: the collector keeps no state that must
// survive a leader; a deposed leader's pass stops at its next Most Recent
// read (which fails off the leader) or at its next write (whose
// preconditions fail once anyone changed the object), and the new leader
// starts with a full pass. Nothing is deleted for an owner a quorum read
// has not shown absent.
//
// The collector is a client of the registry: deletes go through
// registry.Store.Delete, so the finalizers a propagation policy calls for
// are set by the code that serves DELETE; metadata edits (owner
// references, finalizers) are read-modify-write cycles on the registry's
// Storage with revision and uid preconditions.
package garbagecollector
