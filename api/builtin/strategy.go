package builtin

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// typed adapts functions over one Go type to resource.Strategy. A nil
// function does nothing (or finds nothing wrong). An object of another
// type is left alone by the Prepare methods and reported as an internal
// error by the Validate methods: the API layer always passes the
// resource's own type, so that is a bug, not a bad request.
type typed[T runtime.Object] struct {
	prepareCreate  func(obj T)
	prepareUpdate  func(obj, old T)
	validate       func(obj T) field.ErrorList
	validateUpdate func(obj, old T) field.ErrorList
	canonicalize   func(obj T)
}

var _ resource.Strategy = typed[runtime.Object]{}

// PrepareForCreate implements resource.Strategy.
func (s typed[T]) PrepareForCreate(obj runtime.Object) {
	if o, ok := obj.(T); ok && s.prepareCreate != nil {
		s.prepareCreate(o)
	}
}

// PrepareForUpdate implements resource.Strategy.
func (s typed[T]) PrepareForUpdate(obj, old runtime.Object) {
	o, ok := obj.(T)
	p, okOld := old.(T)
	if ok && okOld && s.prepareUpdate != nil {
		s.prepareUpdate(o, p)
	}
}

// Validate implements resource.Strategy.
func (s typed[T]) Validate(obj runtime.Object) field.ErrorList {
	o, ok := obj.(T)
	if !ok {
		return wrongType[T](obj)
	}
	if s.validate == nil {
		return nil
	}
	return s.validate(o)
}

// ValidateUpdate implements resource.Strategy.
func (s typed[T]) ValidateUpdate(obj, old runtime.Object) field.ErrorList {
	o, ok := obj.(T)
	if !ok {
		return wrongType[T](obj)
	}
	p, ok := old.(T)
	if !ok {
		return wrongType[T](old)
	}
	if s.validateUpdate == nil {
		return nil
	}
	return s.validateUpdate(o, p)
}

// Canonicalize normalises an object after validation, once its name is
// final (after generateName). kube-apiserver calls it on create and
// update; it is not part of resource.Strategy, so callers look for it with
// a type assertion.
func (s typed[T]) Canonicalize(obj runtime.Object) {
	if o, ok := obj.(T); ok && s.canonicalize != nil {
		s.canonicalize(o)
	}
}

func wrongType[T runtime.Object](obj runtime.Object) field.ErrorList {
	var want T
	return field.ErrorList{field.InternalError(field.NewPath("kind"), fmt.Errorf("builtin: got object of type %T, want %T", obj, want))}
}
