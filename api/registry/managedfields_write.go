package registry

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

// fieldManager returns the field manager of what h serves.
func (s *Store) fieldManager() (*managedfields.FieldManager, error) {
	fm, err := s.reg.fields.get(s.res, s.subresourceName())
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return fm, nil
}

// trackUpdate records, in obj's metadata.managedFields, the fields the
// write of obj over live gives to the request's manager (an "Update"
// entry). managedFields the client set itself are kept when they are
// valid, as kube-apiserver does; that is how clients migrate ownership.
func (s *Store) trackUpdate(live, obj runtime.Object, wp *writeParams) (runtime.Object, error) {
	fm, err := s.fieldManager()
	if err != nil {
		return nil, err
	}
	// live comes from decodeStored or objectConverter.New, which set its
	// kind; a decoded request body may lack one.
	obj.GetObjectKind().SetGroupVersionKind(s.res.GroupVersionKind())
	return fm.UpdateNoErrors(live, obj, wp.Manager), nil
}

// trackCreate is trackUpdate for a new object.
func (s *Store) trackCreate(obj runtime.Object, wp *writeParams) (runtime.Object, error) {
	empty, err := objectConverter{res: s.res}.New(s.res.GroupVersionKind())
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return s.trackUpdate(empty, obj, wp)
}
