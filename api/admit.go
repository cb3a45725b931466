package api

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

var metadataPath = field.NewPath("metadata")

// nameFunc returns the resource's name validation.
func nameFunc(res *resource.Resource) validation.ValidateNameFunc {
	if res.ValidateName != nil {
		return res.ValidateName
	}
	return validation.NameIsDNSSubdomain
}

// admitCreate fills the server-owned metadata of a new object, runs the
// resource's strategy and validates the result.
func (h *handler) admitCreate(ctx context.Context, obj runtime.Object, ns string) error {
	m := accessor(obj)
	if h.res.Namespaced {
		if m.GetNamespace() != "" && m.GetNamespace() != ns {
			return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		m.SetNamespace(ns)
	} else {
		m.SetNamespace("")
	}
	m.SetUID(typesUID(h.server.opts.NewUID()))
	m.SetCreationTimestamp(metav1.NewTime(h.server.opts.Now()))
	m.SetResourceVersion("")
	m.SetGeneration(1)
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetSelfLink("")
	st := h.res.GetStrategy()
	st.PrepareForCreate(obj)
	errs := validation.ValidateObjectMetaAccessor(m, h.res.Namespaced, nameFunc(h.res), metadataPath)
	errs = append(errs, st.Validate(obj)...)
	errs = append(errs, h.validateSize(obj)...)
	if len(errs) > 0 {
		return apierrors.NewInvalid(h.res.GroupKind(), m.GetName(), errs)
	}
	return nil
}

// admitUpdate carries the server-owned metadata of old into obj, its
// replacement, runs the strategy and validates the change.
func (h *handler) admitUpdate(obj, old runtime.Object) error {
	m, om := accessor(obj), accessor(old)
	if m.GetUID() == "" {
		m.SetUID(om.GetUID())
	}
	if h.res.Namespaced && m.GetNamespace() == "" {
		m.SetNamespace(om.GetNamespace())
	}
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	m.SetDeletionTimestamp(om.GetDeletionTimestamp())
	m.SetDeletionGracePeriodSeconds(om.GetDeletionGracePeriodSeconds())
	m.SetGeneration(om.GetGeneration())
	m.SetResourceVersion(om.GetResourceVersion())
	m.SetSelfLink("")
	st := h.strategy()
	st.PrepareForUpdate(obj, old)
	errs := validation.ValidateObjectMetaAccessor(m, h.res.Namespaced, nameFunc(h.res), metadataPath)
	errs = append(errs, validation.ValidateObjectMetaAccessorUpdate(m, om, metadataPath)...)
	errs = append(errs, st.ValidateUpdate(obj, old)...)
	errs = append(errs, h.validateSize(obj)...)
	if len(errs) > 0 {
		return apierrors.NewInvalid(h.res.GroupKind(), m.GetName(), errs)
	}
	return nil
}

// validateSize enforces the resource's object size limit.
func (h *handler) validateSize(obj runtime.Object) field.ErrorList {
	if h.res.MaxSize <= 0 {
		return nil
	}
	data, err := encodeStored(h.res, obj)
	if err != nil || len(data) <= h.res.MaxSize {
		return nil
	}
	return field.ErrorList{field.TooLong(field.NewPath(""), "", h.res.MaxSize)}
}

// bumpGeneration increments obj's generation and returns its new stored
// form; the caller has found its spec changed.
func (h *handler) bumpGeneration(obj runtime.Object) ([]byte, error) {
	m := accessor(obj)
	m.SetGeneration(m.GetGeneration() + 1)
	return encodeStored(h.res, obj)
}

func conflictf(h *handler, name, format string, args ...any) error {
	return apierrors.NewConflict(h.res.GroupResource(), name, fmt.Errorf(format, args...))
}

// canonicalizer is implemented by strategies that normalise an object
// once its name is final (after generateName).
type canonicalizer interface {
	Canonicalize(obj runtime.Object)
}

func (h *handler) canonicalize(obj runtime.Object) {
	if c, ok := h.res.GetStrategy().(canonicalizer); ok {
		c.Canonicalize(obj)
	}
}
