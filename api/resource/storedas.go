package resource

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// StoredAs describes a resource whose objects are kept in the form of
// another version, kube-apiserver's storage version: events.k8s.io/v1
// events are stored as core/v1 events. Both resources use the same storage
// keys, so an object written through one is read, listed and watched
// through the other with the same resourceVersion.
//
// Everything evaluated on stored bytes sees the stored form: the paths of
// Fields and the cells of Columns point into it, as kube-apiserver's field
// selectors and printers work on its internal type whatever the version of
// the request. Responses carry the served form.
type StoredAs struct {
	// Group and Plural name the resource whose storage keys are used
	// ("/registry/<Group, or core>/<Plural>/...").
	Group, Plural string
	// Version and Kind are the apiVersion and kind of stored objects.
	Version, Kind string
	// New returns an empty object of the stored Go type.
	New func() runtime.Object
	// ToStored converts an object of the resource's Go type to the stored
	// Go type. It must not lose information: FromStored(ToStored(obj))
	// equals obj.
	ToStored func(served runtime.Object) (runtime.Object, error)
	// FromStored converts an object of the stored Go type to the
	// resource's Go type, losing nothing either.
	FromStored func(stored runtime.Object) (runtime.Object, error)
}

// StorageGroupVersionKind is the group, version and kind of the resource's
// stored objects: its own unless StoredAs says otherwise.
func (r *Resource) StorageGroupVersionKind() schema.GroupVersionKind {
	if r.StoredAs == nil {
		return r.GroupVersionKind()
	}
	return schema.GroupVersionKind{Group: r.StoredAs.Group, Version: r.StoredAs.Version, Kind: r.StoredAs.Kind}
}

// storagePlural is the plural segment of storage keys.
func (r *Resource) storagePlural() string {
	if r.StoredAs == nil {
		return r.Plural
	}
	return r.StoredAs.Plural
}

// ConvertTo adapts a conversion between two concrete Go types to the
// signature of the StoredAs functions; an object of another type than
// From is reported as an error.
func ConvertTo[From, To runtime.Object](convert func(From) To) func(runtime.Object) (runtime.Object, error) {
	return func(obj runtime.Object) (runtime.Object, error) {
		in, ok := obj.(From)
		if !ok {
			var want From
			return nil, fmt.Errorf("resource: cannot convert %T, want %T", obj, want)
		}
		return convert(in), nil
	}
}
