package api

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

// systemNamespaces exist from bootstrap and are recreated if missing.
var systemNamespaces = []string{
	metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease,
}

var namespacesGR = schema.GroupResource{Resource: "namespaces"}

// namespaceKey is the storage key of a namespace.
func namespaceKey(name string) string { return "/registry/core/namespaces/" + name }

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

// admit checks that namespace ns can take a new object: it must exist
// (404) and not be terminating (403). A missing system namespace is
// created on the spot.
func (l *namespaceLifecycle) admit(ctx context.Context, res *resource.Resource, ns, name string) error {
	data, err := l.get(ctx, ns)
	if raftstore.IsNotFound(err) && isSystemNamespace(ns) {
		if err = l.ensure(ctx, ns); err == nil {
			return nil
		}
	}
	if raftstore.IsNotFound(err) {
		return apierrors.NewNotFound(namespacesGR, ns)
	}
	if err != nil {
		return storeError(err, res, name)
	}
	var n corev1.Namespace
	if err := json.Unmarshal(data, &n); err != nil {
		return apierrors.NewInternalError(err)
	}
	if n.DeletionTimestamp != nil || n.Status.Phase == corev1.NamespaceTerminating {
		return builtin.NamespaceTerminatingError(res.GroupResource(), name, ns)
	}
	return nil
}

// get reads a namespace, locally first and then at the newest revision,
// so that a namespace created through another node is found.
func (l *namespaceLifecycle) get(ctx context.Context, ns string) ([]byte, error) {
	obj, err := l.store.Get(ctx, namespaceKey(ns), raftstore.ReadOptions{Consistency: raftstore.Any})
	if raftstore.IsNotFound(err) {
		obj, err = l.store.Get(ctx, namespaceKey(ns), raftstore.ReadOptions{Consistency: raftstore.MostRecent})
	}
	return obj.Data, err
}

func isSystemNamespace(ns string) bool {
	for _, s := range systemNamespaces {
		if s == ns {
			return true
		}
	}
	return false
}

// namespaceResource returns the registered core/v1 namespaces resource.
func (s *Server) namespaceResource() *resource.Resource {
	return s.registry.Get(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
}
