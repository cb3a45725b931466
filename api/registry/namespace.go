package registry

import (
	"context"
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/resource"
)

// SystemNamespaces exist from bootstrap and are recreated if missing.
var SystemNamespaces = []string{
	metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease,
}

var namespacesGR = schema.GroupResource{Resource: "namespaces"}

// NamespaceKey is the storage key of a namespace; NamespaceKey("") is the
// prefix of them all.
func NamespaceKey(name string) string { return "/registry/core/namespaces/" + name }

func isNamespace(obj runtime.Object) bool {
	_, ok := obj.(*corev1.Namespace)
	return ok
}

// setTerminating moves a namespace being deleted to the Terminating phase.
func setTerminating(obj runtime.Object) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		ns.Status.Phase = corev1.NamespaceTerminating
	}
}

// holdsItself reports whether an object's own spec keeps it from being
// removed: a namespace with spec.finalizers left.
func holdsItself(obj runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	return ok && len(ns.Spec.Finalizers) > 0
}

// admitNamespace checks that namespace ns can take a new object name of
// res: it must exist (404) and not be terminating (403). A missing system
// namespace is created on the spot, unless the write is a dry run (which
// writes nothing and takes it as existing, as it will).
func (r *Registry) admitNamespace(ctx context.Context, res *resource.Resource, ns, name string, dryRun bool) error {
	obj, err := r.getNamespace(ctx, ns)
	if IsNotFound(err) && isSystemNamespace(ns) {
		if dryRun {
			return nil
		}
		if err = r.EnsureNamespace(ctx, ns); err == nil {
			return nil
		}
	}
	if IsNotFound(err) {
		return apierrors.NewNotFound(namespacesGR, ns)
	}
	if err != nil {
		return storeError(err, res, name)
	}
	terminating, err := r.namespaces.terminating(ns, obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if terminating {
		return builtin.NamespaceTerminatingError(res.GroupResource(), name, ns)
	}
	return nil
}

// getNamespace reads a namespace, locally first and then at the newest
// revision, so that a namespace created through another node is found.
func (r *Registry) getNamespace(ctx context.Context, ns string) (Object, error) {
	obj, err := r.storage.Get(ctx, NamespaceKey(ns), ReadOptions{Consistency: Any})
	if IsNotFound(err) {
		obj, err = r.storage.Get(ctx, NamespaceKey(ns), ReadOptions{Consistency: MostRecent})
	}
	return obj, err
}

// EnsureNamespace creates namespace ns, as the system namespaces are
// created at bootstrap, unless it exists.
func (r *Registry) EnsureNamespace(ctx context.Context, ns string) error {
	n := &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: ns, UID: types.UID(r.opts.NewUID()),
			CreationTimestamp: metav1.NewTime(r.opts.Now()),
			Labels:            map[string]string{corev1.LabelMetadataName: ns},
		},
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
	data, err := json.Marshal(n)
	if err != nil {
		return err
	}
	_, err = r.storage.Create(ctx, NamespaceKey(ns), data)
	if IsAlreadyExists(err) {
		return nil
	}
	return err
}

func isSystemNamespace(ns string) bool { return slices.Contains(SystemNamespaces, ns) }

// isNamespaceResource reports whether res is the core/v1 namespaces
// resource.
func isNamespaceResource(res *resource.Resource) bool {
	return res.Group == "" && res.Plural == "namespaces"
}
