package registry

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// resetForSubresource applies the status rule to obj, the replacement of
// old: through the main resource of a resource with a status subresource
// the stored status stays; through /status only status (and the managed
// fields computed for the write) changes.
func (s *Store) resetForSubresource(obj, old runtime.Object) (runtime.Object, error) {
	switch {
	case s.sub == nil && s.res.HasSubresource(statusResource):
		return keepContent(s.res, obj, old, func(next, prev map[string]any) {
			copyField(next, prev, "status")
		})
	case s.subresourceName() == statusResource:
		managed := codec.Accessor(obj).GetManagedFields()
		out, err := keepContent(s.res, obj, old, func(next, prev map[string]any) {
			status, ok := next["status"]
			for k := range next {
				delete(next, k)
			}
			for k, v := range prev {
				next[k] = v
			}
			if ok {
				next["status"] = status
			} else {
				delete(next, "status")
			}
		})
		if err != nil {
			return nil, err
		}
		codec.Accessor(out).SetManagedFields(managed)
		return out, nil
	}
	return obj, nil
}

// keepContent returns obj with its JSON content rewritten by edit, given
// old's.
func keepContent(res *resource.Resource, obj, old runtime.Object, edit func(next, prev map[string]any)) (runtime.Object, error) {
	next, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	prev, err := runtime.DefaultUnstructuredConverter.ToUnstructured(old)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	edit(next, runtime.DeepCopyJSON(prev))
	if !res.Typed() {
		return &unstructured.Unstructured{Object: next}, nil
	}
	out := res.New()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(next, out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	return out, nil
}

// copyField sets next[k] to prev[k], or removes it when prev has none.
func copyField(next, prev map[string]any, k string) {
	if v, ok := prev[k]; ok {
		next[k] = v
	} else {
		delete(next, k)
	}
}
