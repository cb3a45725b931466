package registry

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/resource"
)

// objectConverter is the runtime.ObjectConvertor and ObjectCreater a
// resource's field manager works with. A field manager converts between
// the served version and its hub, which for our resources is the served
// version itself; the conversions it needs are therefore between the
// resource's Go type and its unstructured form, and, for a custom
// resource served in several versions, between those versions (through
// the resource's Schema, the CRD's conversion), so that managedFields
// entries recorded in another version keep their owners as
// kube-apiserver's do. A version not served is not registered, which
// tells the field manager to drop the entries recorded in it.
type objectConverter struct {
	res *resource.Resource
	// others are the other served versions of res's kind, converted by
	// res.Schema; nil for a resource served in one version or typed.
	others []schema.GroupVersionKind
}

var (
	_ runtime.ObjectConvertor = objectConverter{}
	_ runtime.ObjectCreater   = objectConverter{}
)

// registered reports whether gvk is res's or one of the other versions'.
func (c objectConverter) registered(gvk schema.GroupVersionKind) bool {
	return gvk == c.res.GroupVersionKind() || slices.Contains(c.others, gvk)
}

// ConvertToVersion returns a copy of in in the working form of the
// resource, when target is the resource's group/version, or converted to
// another served version of a custom resource.
func (c objectConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	gvk := c.res.GroupVersionKind()
	want, ok := target.KindForGroupVersionKinds(append([]schema.GroupVersionKind{gvk}, c.others...))
	if !ok || !c.registered(want) {
		return nil, runtime.NewNotRegisteredGVKErrForTarget("raftapi", gvk, target)
	}
	from := in.GetObjectKind().GroupVersionKind()
	if !from.Empty() && !c.registered(from) {
		return nil, runtime.NewNotRegisteredErrForKind("raftapi", from)
	}
	if want != gvk || (!from.Empty() && from != gvk) {
		return c.convertVersion(in, want)
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

// convertVersion converts in, an unstructured object of one of the
// resource's versions (res's own when it names none), to want through
// the resource's conversion.
func (c objectConverter) convertVersion(in runtime.Object, want schema.GroupVersionKind) (runtime.Object, error) {
	u, ok := in.(runtime.Unstructured)
	if !ok || c.res.Schema == nil {
		return nil, fmt.Errorf("unexpected %T for %s", in, c.res.GroupResource())
	}
	content := u.UnstructuredContent()
	if in.GetObjectKind().GroupVersionKind().Empty() {
		content = maps.Clone(content)
		content["apiVersion"] = c.res.APIVersion()
	}
	converted, err := c.res.Schema.ConvertTo(content, want.Version)
	if err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(converted)}
	out.SetGroupVersionKind(want)
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
	if !c.registered(kind) {
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
