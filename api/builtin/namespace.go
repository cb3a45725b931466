package builtin

import (
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// namespaces describes core/v1 namespaces. Namespace names are DNS-1123
// labels; status is written only through the status subresource and
// spec.finalizers only through the finalize subresource.
func namespaces() *resource.Resource {
	return &resource.Resource{
		Version:    "v1",
		Kind:       "Namespace",
		ListKind:   "NamespaceList",
		Plural:     "namespaces",
		Singular:   "namespace",
		ShortNames: []string{"ns"},
		New:        func() runtime.Object { return &corev1.Namespace{} },
		NewList:    func() runtime.Object { return &corev1.NamespaceList{} },
		Columns: []resource.Column{
			column("Status", "The status of the namespace", 0, stringCell("status.phase")),
		},
		Fields:       map[string]string{"status.phase": "status.phase"},
		Strategy:     namespaceStrategy(),
		ValidateName: apivalidation.ValidateNamespaceName,
		Subresources: []resource.Subresource{
			{Name: "status", Strategy: NamespaceStatusStrategy()},
			{Name: "finalize", Verbs: []string{"update"}, Strategy: NamespaceFinalizeStrategy()},
		},
	}
}

// namespaceStrategy is the strategy of the namespaces resource itself.
func namespaceStrategy() typed[*corev1.Namespace] {
	return typed[*corev1.Namespace]{
		prepareCreate: prepareNamespaceCreate,
		prepareUpdate: prepareNamespaceUpdate,
		validate:      validateNamespace,
		validateUpdate: func(ns, _ *corev1.Namespace) field.ErrorList {
			return validateNamespace(ns)
		},
		canonicalize: setNamespaceNameLabel,
	}
}

// prepareNamespaceCreate makes a new namespace Active and gives it the
// kubernetes finalizer, whatever the client sent as status.
func prepareNamespaceCreate(ns *corev1.Namespace) {
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	if !hasNamespaceFinalizer(ns, FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, FinalizerKubernetes)
	}
	setNamespaceNameLabel(ns)
}

// prepareNamespaceUpdate keeps what a plain update may not change: the
// status and spec.finalizers.
func prepareNamespaceUpdate(ns, old *corev1.Namespace) {
	ns.Spec.Finalizers = old.Spec.Finalizers
	ns.Status = old.Status
	setNamespaceNameLabel(ns)
}

// setNamespaceNameLabel sets the kubernetes.io/metadata.name label to the
// namespace's name, once the name is known. Clients cannot remove or
// change it.
func setNamespaceNameLabel(ns *corev1.Namespace) {
	if ns.Name == "" {
		return
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

// validateNamespace checks spec.finalizers and metadata.finalizers. The
// spec errors name the list, not the entry, as kube-apiserver's do.
func validateNamespace(ns *corev1.Namespace) field.ErrorList {
	errs := validateMetaFinalizers(&ns.ObjectMeta)
	fldPath := field.NewPath("spec", "finalizers")
	for _, f := range ns.Spec.Finalizers {
		errs = append(errs, validateFinalizerName(string(f), fldPath)...)
	}
	return errs
}

func hasNamespaceFinalizer(ns *corev1.Namespace, f corev1.FinalizerName) bool {
	for _, g := range ns.Spec.Finalizers {
		if g == f {
			return true
		}
	}
	return false
}
