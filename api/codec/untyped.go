package codec

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// untypedScheme creates and types the objects of resources without a Go
// type: every kind is an *unstructured.Unstructured.
type untypedScheme struct{}

// New implements runtime.ObjectCreater.
func (untypedScheme) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// ObjectKinds implements runtime.ObjectTyper.
func (untypedScheme) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return []schema.GroupVersionKind{obj.GetObjectKind().GroupVersionKind()}, false, nil
}

// Recognizes implements runtime.ObjectTyper.
func (untypedScheme) Recognizes(schema.GroupVersionKind) bool { return true }
