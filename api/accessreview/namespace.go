package accessreview

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// matchNamespace does what kube-apiserver's create handler does with the
// namespace of a posted object before the review sees it: an object of a
// cluster-scoped review (ns "") loses its namespace; an object of a
// namespaced review without one takes the request's, and one with
// another is refused with 400.
func matchNamespace(m *metav1.ObjectMeta, ns string) error {
	switch {
	case m.Namespace == ns:
	case m.Namespace == "":
		m.Namespace = ns
	case ns == "":
		m.Namespace = ""
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}
