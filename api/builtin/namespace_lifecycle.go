package builtin

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// FinalizerKubernetes is the spec.finalizers entry every namespace gets
// on creation. The namespace lifecycle removes it, through the finalize
// subresource, once everything in the namespace is deleted; a namespace
// is removed from storage only when spec.finalizers is empty.
const FinalizerKubernetes = corev1.FinalizerKubernetes

// immortalNamespaces may never be deleted.
var immortalNamespaces = map[string]bool{
	metav1.NamespaceDefault: true,
	metav1.NamespaceSystem:  true,
	metav1.NamespacePublic:  true,
}

// IsImmortalNamespace reports whether the namespace name may never be
// deleted: default, kube-system and kube-public.
func IsImmortalNamespace(name string) bool { return immortalNamespaces[name] }

// ImmortalNamespaceError is the Forbidden error for deleting an immortal
// namespace.
func ImmortalNamespaceError(name string) *apierrors.StatusError {
	return apierrors.NewForbidden(corev1.Resource("namespaces"), name, fmt.Errorf("this namespace may not be deleted"))
}

// NamespaceTerminatingError is the Forbidden error for creating an object
// named name (possibly "") of resource gr in a Terminating namespace. Its
// cause of type NamespaceTerminating is what clients test for.
func NamespaceTerminatingError(gr schema.GroupResource, name, namespace string) *apierrors.StatusError {
	err := apierrors.NewForbidden(gr, name, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", namespace))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", namespace),
		Field:   "metadata.namespace",
	})
	return err
}

// MarkNamespaceTerminating moves ns to the Terminating phase. The first
// delete of a namespace does this, in the same write that sets its
// deletionTimestamp, instead of removing it.
func MarkNamespaceTerminating(ns *corev1.Namespace) {
	ns.Status.Phase = corev1.NamespaceTerminating
}

// NamespaceFinalized reports whether ns has no spec.finalizers left, so
// that a deleted namespace may be removed from storage.
func NamespaceFinalized(ns *corev1.Namespace) bool { return len(ns.Spec.Finalizers) == 0 }

// RemoveNamespaceFinalizer removes f from ns's spec.finalizers and
// reports whether it was there.
func RemoveNamespaceFinalizer(ns *corev1.Namespace, f corev1.FinalizerName) bool {
	kept := ns.Spec.Finalizers[:0:0]
	for _, g := range ns.Spec.Finalizers {
		if g != f {
			kept = append(kept, g)
		}
	}
	removed := len(kept) != len(ns.Spec.Finalizers)
	ns.Spec.Finalizers = kept
	return removed
}

// NamespaceStatusStrategy is the strategy of the namespaces/status
// subresource: only status changes are kept, and the phase must agree
// with deletionTimestamp.
func NamespaceStatusStrategy() resource.Strategy {
	return typed[*corev1.Namespace]{
		prepareUpdate: func(ns, old *corev1.Namespace) {
			ns.Spec = old.Spec
		},
		validateUpdate: func(ns, _ *corev1.Namespace) field.ErrorList {
			return validateNamespaceStatus(ns)
		},
	}
}

// NamespaceFinalizeStrategy is the strategy of the namespaces/finalize
// subresource: status changes are dropped and spec.finalizers may change.
func NamespaceFinalizeStrategy() resource.Strategy {
	return typed[*corev1.Namespace]{
		prepareUpdate: func(ns, old *corev1.Namespace) {
			ns.Status = old.Status
		},
		validateUpdate: func(ns, _ *corev1.Namespace) field.ErrorList {
			return validateNamespaceFinalize(ns)
		},
	}
}

// validateNamespaceStatus requires Active without a deletionTimestamp and
// Terminating with one. The field path's capital P is kube-apiserver's.
func validateNamespaceStatus(ns *corev1.Namespace) field.ErrorList {
	errs := validateMetaFinalizers(&ns.ObjectMeta)
	fldPath := field.NewPath("status", "Phase")
	if ns.DeletionTimestamp.IsZero() {
		if ns.Status.Phase != corev1.NamespaceActive {
			errs = append(errs, field.Invalid(fldPath, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
		}
	} else if ns.Status.Phase != corev1.NamespaceTerminating {
		errs = append(errs, field.Invalid(fldPath, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	return errs
}

// validateNamespaceFinalize checks each spec.finalizers entry by index,
// then the whole namespace (which checks them again by list, as
// kube-apiserver does).
func validateNamespaceFinalize(ns *corev1.Namespace) field.ErrorList {
	var errs field.ErrorList
	fldPath := field.NewPath("spec", "finalizers")
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, validateFinalizerName(string(f), fldPath.Index(i))...)
	}
	return append(errs, validateNamespace(ns)...)
}
