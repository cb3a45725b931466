package api

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

// fieldManager returns the field manager of what h serves.
func (h *handler) fieldManager() (*managedfields.FieldManager, error) {
	fm, err := h.server.fields.get(h.res, h.subresourceName())
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return fm, nil
}

// trackUpdate records, in obj's metadata.managedFields, the fields the
// write of obj over live gives to the request's manager (an "Update"
// entry). managedFields the client set itself are kept when they are
// valid, as kube-apiserver does; that is how clients migrate ownership.
func (h *handler) trackUpdate(live, obj runtime.Object, wp *writeParams) (runtime.Object, error) {
	fm, err := h.fieldManager()
	if err != nil {
		return nil, err
	}
	// live comes from decodeStored or objectConverter.New, which set its
	// kind; a decoded request body may lack one.
	obj.GetObjectKind().SetGroupVersionKind(h.res.GroupVersionKind())
	return fm.UpdateNoErrors(live, obj, wp.manager), nil
}

// trackCreate is trackUpdate for a new object.
func (h *handler) trackCreate(obj runtime.Object, wp *writeParams) (runtime.Object, error) {
	empty, err := objectConverter{res: h.res}.New(h.res.GroupVersionKind())
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return h.trackUpdate(empty, obj, wp)
}
