package registry

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A delete's propagation policy reaches the garbage collector as one of
// two finalizers on the object being deleted, the rule of kube-apiserver's
// generic store (deletionFinalizersForGarbageCollection):
//
//   - Orphan: the "orphan" finalizer; the collector removes the owner
//     references to the object from its dependents, then the finalizer.
//   - Foreground: the "foregroundDeletion" finalizer; the collector deletes
//     the dependents and removes the finalizer once no dependent with
//     blockOwnerDeletion is left.
//   - Background, the default of every resource here: no finalizer; the
//     object goes at once and the collector deletes the dependents after.
//
// An explicit option wins over a finalizer already on the object (a second
// delete may switch policy), which wins over the resource default.

// deletionFinalizers returns the finalizers m should carry once a delete
// with opts is accepted, and whether they differ, as a set, from the
// current ones.
func deletionFinalizers(m metav1.Object, opts *metav1.DeleteOptions) ([]string, bool) {
	orphan, foreground := shouldOrphanDependents(m, opts), shouldDeleteDependents(m, opts)
	var out []string
	for _, f := range m.GetFinalizers() {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if sameSet(out, m.GetFinalizers()) {
		return m.GetFinalizers(), false
	}
	return out, true
}

// shouldOrphanDependents reports whether the delete orphans the dependents.
func shouldOrphanDependents(m metav1.Object, opts *metav1.DeleteOptions) bool {
	//lint:ignore SA1019 the deprecated field is still part of the API and takes precedence, as in kube-apiserver
	if o := opts.OrphanDependents; o != nil {
		return *o
	}
	if p := opts.PropagationPolicy; p != nil {
		return *p == metav1.DeletePropagationOrphan
	}
	return PolicyFromFinalizers(m) == metav1.DeletePropagationOrphan
}

// shouldDeleteDependents reports whether the delete waits for the
// dependents (foreground).
func shouldDeleteDependents(m metav1.Object, opts *metav1.DeleteOptions) bool {
	//lint:ignore SA1019 the deprecated field is still part of the API and takes precedence, as in kube-apiserver
	if opts.OrphanDependents != nil {
		return false
	}
	if p := opts.PropagationPolicy; p != nil {
		return *p == metav1.DeletePropagationForeground
	}
	return PolicyFromFinalizers(m) == metav1.DeletePropagationForeground
}

// PolicyFromFinalizers returns the policy the first propagation finalizer
// of m stands for, Background when it has none.
func PolicyFromFinalizers(m metav1.Object) metav1.DeletionPropagation {
	for _, f := range m.GetFinalizers() {
		switch f {
		case metav1.FinalizerOrphanDependents:
			return metav1.DeletePropagationOrphan
		case metav1.FinalizerDeleteDependents:
			return metav1.DeletePropagationForeground
		}
	}
	return metav1.DeletePropagationBackground
}

// sameSet reports whether a and b hold the same strings, ignoring order
// and repeats.
func sameSet(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	for _, s := range b {
		if !slices.Contains(a, s) {
			return false
		}
	}
	return true
}
