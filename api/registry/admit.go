package registry

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/codec"
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
func (s *Store) admitCreate(ctx context.Context, obj runtime.Object, ns string) error {
	m := codec.Accessor(obj)
	if a, ok := s.res.GetStrategy().(createAdmitter); ok {
		if err := a.AdmitCreate(s.res.GroupResource(), m.GetName()); err != nil {
			return err
		}
	}
	if s.res.Namespaced {
		if m.GetNamespace() != "" && m.GetNamespace() != ns {
			return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		m.SetNamespace(ns)
	} else {
		m.SetNamespace("")
	}
	m.SetUID(types.UID(s.reg.opts.NewUID()))
	m.SetCreationTimestamp(metav1.NewTime(s.reg.opts.Now()))
	m.SetResourceVersion("")
	if s.res.TracksGeneration {
		m.SetGeneration(1)
	}
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetSelfLink("")
	st := s.res.GetStrategy()
	st.PrepareForCreate(obj)
	errs := validation.ValidateObjectMetaAccessor(m, s.res.Namespaced, nameFunc(s.res), metadataPath)
	errs = append(errs, st.Validate(obj)...)
	errs = append(errs, validateSize(s.res, obj)...)
	if len(errs) > 0 {
		return apierrors.NewInvalid(s.res.GroupKind(), m.GetName(), errs)
	}
	fitManagedFields(s.res, obj)
	return nil
}

// admitUpdate carries the server-owned metadata of old into obj, its
// replacement, runs the strategy and validates the change.
func (s *Store) admitUpdate(obj, old runtime.Object) error {
	m, om := codec.Accessor(obj), codec.Accessor(old)
	if m.GetUID() == "" {
		m.SetUID(om.GetUID())
	}
	if s.res.Namespaced && m.GetNamespace() == "" {
		m.SetNamespace(om.GetNamespace())
	}
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	m.SetDeletionTimestamp(om.GetDeletionTimestamp())
	m.SetDeletionGracePeriodSeconds(om.GetDeletionGracePeriodSeconds())
	m.SetGeneration(om.GetGeneration())
	m.SetResourceVersion(om.GetResourceVersion())
	m.SetSelfLink("")
	st := s.strategy()
	st.PrepareForUpdate(obj, old)
	errs := validation.ValidateObjectMetaAccessor(m, s.res.Namespaced, nameFunc(s.res), metadataPath)
	errs = append(errs, validation.ValidateObjectMetaAccessorUpdate(m, om, metadataPath)...)
	errs = append(errs, st.ValidateUpdate(obj, old)...)
	errs = append(errs, validateSize(s.res, obj)...)
	if len(errs) > 0 {
		return apierrors.NewInvalid(s.res.GroupKind(), m.GetName(), errs)
	}
	fitManagedFields(s.res, obj)
	return nil
}

// admitHook asks the resource's own admission check (resource.AdmitFunc)
// about a write of the resource itself, obj replacing old (nil on
// create); subresource writes do not ask it.
func (s *Store) admitHook(ctx context.Context, obj, old runtime.Object) error {
	if s.sub != nil || s.res.Admit == nil {
		return nil
	}
	return s.res.Admit(ctx, obj, old)
}

// validateSize enforces the resource's object size limit.
func validateSize(res *resource.Resource, obj runtime.Object) field.ErrorList {
	if res.MaxSize <= 0 {
		return nil
	}
	data, err := codec.EncodeStored(res, obj)
	if err != nil || len(data) <= res.MaxSize {
		return nil
	}
	return field.ErrorList{field.TooLong(field.NewPath(""), "", res.MaxSize)}
}

// bumpGeneration increments obj's generation and returns its new stored
// form; the caller has found its spec changed.
func bumpGeneration(res *resource.Resource, obj runtime.Object) ([]byte, error) {
	m := codec.Accessor(obj)
	m.SetGeneration(m.GetGeneration() + 1)
	return codec.EncodeStored(res, obj)
}

func conflictf(res *resource.Resource, name, format string, args ...any) error {
	return apierrors.NewConflict(res.GroupResource(), name, fmt.Errorf(format, args...))
}

// createAdmitter is implemented by strategies that may refuse every
// create of their resource for now (a custom resource whose definition is
// being deleted); the error is a Status error.
type createAdmitter interface {
	AdmitCreate(gr schema.GroupResource, name string) error
}

// deletePreparer is implemented by strategies that edit an object on the
// first request to delete it, before its finalizers are looked at (a
// CustomResourceDefinition gains the finalizer that deletes its
// instances).
type deletePreparer interface {
	PrepareForDelete(obj runtime.Object)
}

// warner is implemented by strategies that warn the client about what
// they accept (kube-apiserver's WarningsOnCreate and WarningsOnUpdate):
// the warnings go out as Warning headers.
type warner interface {
	WarningsOnCreate(obj runtime.Object) []string
	WarningsOnUpdate(obj, old runtime.Object) []string
}

// addWarnings adds to wp the warnings not already there.
func addWarnings(wp *writeParams, warnings []string) {
	for _, w := range warnings {
		if !slices.Contains(wp.warnings, w) {
			wp.warnings = append(wp.warnings, w)
		}
	}
}

// canonicalizer is implemented by strategies that normalise an object
// once its name is final (after generateName).
type canonicalizer interface {
	Canonicalize(obj runtime.Object)
}

func canonicalize(res *resource.Resource, obj runtime.Object) {
	if c, ok := res.GetStrategy().(canonicalizer); ok {
		c.Canonicalize(obj)
	}
}
