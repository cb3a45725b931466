package registry

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/resource"
)

// objectConverter is the runtime.ObjectConvertor and ObjectCreater a
// resource's field manager works with. A field manager converts between
// the served version and its hub, which for our resources is the served
// version itself; the conversions it needs are therefore between the
// resource's Go type and its unstructured form. Another version is not
// registered, which tells the field manager to drop managedFields entries
// recorded in it.
type objectConverter struct {
	res *resource.Resource
}

var (
	_ runtime.ObjectConvertor = objectConverter{}
	_ runtime.ObjectCreater   = objectConverter{}
)

// ConvertToVersion returns a copy of in in the working form of the
// resource, when target is the resource's group/version.
func (c objectConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	gvk := c.res.GroupVersionKind()
	if want, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{gvk}); !ok || want != gvk {
		return nil, runtime.NewNotRegisteredGVKErrForTarget("raftapi", gvk, target)
	}
	if in.GetObjectKind().GroupVersionKind() != gvk && !in.GetObjectKind().GroupVersionKind().Empty() {
		return nil, runtime.NewNotRegisteredErrForKind("raftapi", in.GetObjectKind().GroupVersionKind())
	}
	u, isUnstructured := in.(runtime.Unstructured)
	switch {
	case !c.res.Typed() && isUnstructured:
		out := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(u.UnstructuredContent())}
		out.SetGroupVersionKind(gvk)
		return out, nil
	case !c.res.Typed():
		return nil, fmt.Errorf("unexpected %T for untyped %s", in, c.res.GroupResource())
	case isUnstructured:
		out := c.res.New()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), out); err != nil {
			return nil, err
		}
		out.GetObjectKind().SetGroupVersionKind(gvk)
		return out, nil
	}
	out := in.DeepCopyObject()
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return out, nil
}

// Convert is not used by field managers.
func (c objectConverter) Convert(in, out, context any) error {
	return fmt.Errorf("raftapi: conversion of %T to %T is not supported", in, out)
}

// ConvertFieldLabel is not used by field managers.
func (c objectConverter) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return "", "", fmt.Errorf("raftapi: field label conversion is not supported")
}

// New returns an empty object of the resource.
func (c objectConverter) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	if kind != c.res.GroupVersionKind() {
		return nil, runtime.NewNotRegisteredErrForKind("raftapi", kind)
	}
	if !c.res.Typed() {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(kind)
		return u, nil
	}
	obj := c.res.New()
	obj.GetObjectKind().SetGroupVersionKind(kind)
	return obj, nil
}

// noDefaults is the field managers' defaulter: defaults are applied by
// each resource's strategy when the merged object is admitted.
type noDefaults struct{}

// Default implements runtime.ObjectDefaulter.
func (noDefaults) Default(runtime.Object) {}
