package codec

import (
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/resource"
)

// Objects move through the API in two forms: the stored form, JSON bytes
// with apiVersion and kind, and the working form, the resource's Go type
// (or *unstructured.Unstructured for untyped resources). A resource stored
// as another version (resource.StoredAs) converts between the two; its
// responses carry servedData, never the stored bytes.

// DecodeStored returns the working form of a stored object.
func DecodeStored(res *resource.Resource, data []byte) (runtime.Object, error) {
	if !res.Typed() {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if res.Schema != nil {
			res.Schema.Stored(u.Object)
		}
		return u, nil
	}
	if res.StoredAs != nil {
		return decodeConverted(res, data)
	}
	obj := res.New()
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	return obj, nil
}

// decodeConverted returns the working form of an object stored as another
// version: decoded in the stored Go type, then converted.
func decodeConverted(res *resource.Resource, data []byte) (runtime.Object, error) {
	stored := res.StoredAs.New()
	if err := json.Unmarshal(data, stored); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj, err := res.StoredAs.FromStored(stored)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	return obj, nil
}

// EncodeStored returns the stored form of obj.
func EncodeStored(res *resource.Resource, obj runtime.Object) ([]byte, error) {
	obj.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	if u, ok := obj.(*unstructured.Unstructured); ok && res.Schema != nil && res.Schema.StorageVersion() != res.Version {
		obj = inStorageVersion(res, u)
	}
	if res.StoredAs != nil {
		stored, err := res.StoredAs.ToStored(obj)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		stored.GetObjectKind().SetGroupVersionKind(res.StorageGroupVersionKind())
		obj = stored
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return b, nil
}

// inStorageVersion returns u as stored: with the apiVersion of the
// resource's storage version (the None conversion), u itself unchanged.
func inStorageVersion(res *resource.Resource, u *unstructured.Unstructured) *unstructured.Unstructured {
	content := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		content[k] = v
	}
	content["apiVersion"] = schema.GroupVersion{Group: res.Group, Version: res.Schema.StorageVersion()}.String()
	return &unstructured.Unstructured{Object: content}
}

// ServedData returns the JSON of a stored object in the version res
// serves: the stored bytes themselves unless res is stored as another
// version or has a Schema to coerce them to.
func ServedData(res *resource.Resource, data []byte) ([]byte, error) {
	switch {
	case res.Schema != nil:
		c, cached := res.Schema.(servedCache)
		if cached {
			if b, ok := c.CachedServed(data); ok {
				return b, nil
			}
		}
		b, err := encodeJSON(DecodeStored(res, data))
		if err == nil && cached {
			b = b[:len(b):len(b)] // shared from now on: an append must copy
			c.RememberServed(data, b)
		}
		return b, err
	case res.StoredAs != nil:
		return encodeJSON(decodeConverted(res, data))
	}
	return data, nil
}

// servedCache is implemented by Schemas that remember the served form of
// the stored objects they coerced; the result must not be modified.
type servedCache interface {
	CachedServed(stored []byte) ([]byte, bool)
	RememberServed(stored, served []byte)
}

// encodeJSON returns the JSON of obj, decoded with err.
func encodeJSON(obj runtime.Object, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return b, nil
}

// Accessor returns obj's metadata; every object the API handles has it.
func Accessor(obj runtime.Object) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err) // only resource types with ObjectMeta are registered
	}
	return m
}

// ContentMap returns the JSON content of a stored object.
func ContentMap(data []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}
