package codec

import (
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

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
			if err := res.Schema.Stored(u.Object); err != nil {
				return nil, err
			}
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
		content, err := res.Schema.ToStorage(u.Object)
		if err != nil {
			return nil, err
		}
		obj = &unstructured.Unstructured{Object: content}
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

// ServedData returns the JSON of a stored object in the version res
// serves: the stored bytes themselves unless res is stored as another
// version or has a Schema to coerce them to.
func ServedData(res *resource.Resource, data []byte) ([]byte, error) {
	switch {
	case res.Schema != nil:
		out, err := ServedItems(res, [][]byte{data})
		if err != nil {
			return nil, err
		}
		return out[0], nil
	case res.StoredAs != nil:
		return encodeJSON(decodeConverted(res, data))
	}
	return data, nil
}

// ServedItems is ServedData for the items of a list: the objects a
// resource's Schema must convert are converted in one call (one
// ConversionReview for a webhook, as kube-apiserver sends a list's).
func ServedItems(res *resource.Resource, items [][]byte) ([][]byte, error) {
	out := make([][]byte, len(items))
	if res.Schema == nil {
		for i, data := range items {
			b, err := ServedData(res, data)
			if err != nil {
				return nil, err
			}
			out[i] = b
		}
		return out, nil
	}
	c, cached := res.Schema.(servedCache)
	var missing []int
	for i, data := range items {
		if cached {
			if b, ok := c.CachedServed(data); ok {
				out[i] = b
				continue
			}
		}
		missing = append(missing, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	objs := make([]map[string]any, len(missing))
	for j, i := range missing {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(items[i]); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		objs[j] = u.Object // integers as int64, as DecodeStored gives them
	}
	if err := res.Schema.StoredAll(objs); err != nil {
		return nil, err
	}
	for j, i := range missing {
		b, err := json.Marshal(objs[j])
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if cached {
			b = b[:len(b):len(b)] // shared from now on: an append must copy
			c.RememberServed(items[i], b)
		}
		out[i] = b
	}
	return out, nil
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
