package api

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/resource"
)

// subresourceRoutes registers item/{sub} for each subresource of res: get
// reads the object, update and patch write through the subresource.
func (s *Server) subresourceRoutes(res *resource.Resource, item string) {
	for i := range res.Subresources {
		sub := &res.Subresources[i]
		h := &handler{server: s, res: res, sub: sub}
		path := item + "/" + sub.Name
		for _, verb := range sub.ServedVerbs() {
			switch verb {
			case "get":
				s.router.HandleFunc(path, h.get).Methods(http.MethodGet)
			case "update":
				s.router.HandleFunc(path, h.update).Methods(http.MethodPut)
			case "patch":
				s.router.HandleFunc(path, h.patch).Methods(http.MethodPatch)
			}
		}
	}
}

// subresourceName is the subresource h serves, "" for the resource.
func (h *handler) subresourceName() string {
	if h.sub == nil {
		return mainResource
	}
	return h.sub.Name
}

// strategy is the write strategy of what h serves.
func (h *handler) strategy() resource.Strategy {
	if h.sub != nil {
		return h.sub.GetStrategy()
	}
	return h.res.GetStrategy()
}

// resetForSubresource applies the status rule to obj, the replacement of
// old: through the main resource of a resource with a status subresource
// the stored status stays; through /status only status (and the managed
// fields computed for the write) changes.
func (h *handler) resetForSubresource(obj, old runtime.Object) (runtime.Object, error) {
	switch {
	case h.sub == nil && h.res.HasSubresource(statusResource):
		return h.keepContent(obj, old, func(next, prev map[string]any) {
			copyField(next, prev, "status")
		})
	case h.subresourceName() == statusResource:
		managed := accessor(obj).GetManagedFields()
		out, err := h.keepContent(obj, old, func(next, prev map[string]any) {
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
		accessor(out).SetManagedFields(managed)
		return out, nil
	}
	return obj, nil
}

// keepContent returns obj with its JSON content rewritten by edit, given
// old's.
func (h *handler) keepContent(obj, old runtime.Object, edit func(next, prev map[string]any)) (runtime.Object, error) {
	next, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	prev, err := runtime.DefaultUnstructuredConverter.ToUnstructured(old)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	edit(next, runtime.DeepCopyJSON(prev))
	if !h.res.Typed() {
		return &unstructured.Unstructured{Object: next}, nil
	}
	out := h.res.New()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(next, out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out.GetObjectKind().SetGroupVersionKind(h.res.GroupVersionKind())
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
