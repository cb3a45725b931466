package openapi

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
)

// untypedObject is what every object of a resource without a Go type has;
// the rest of it is unknown.
type untypedObject struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata,omitempty"`
}

// SwaggerDoc describes the fields of untypedObject.
func (untypedObject) SwaggerDoc() map[string]string {
	return map[string]string{
		"metadata": "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
	}
}

// untypedList is the list of objects of a resource without a Go type,
// items aside.
type untypedList struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ListMeta `json:"metadata,omitempty"`
}

// SwaggerDoc describes the fields of untypedList.
func (untypedList) SwaggerDoc() map[string]string {
	return map[string]string{
		"metadata": "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#lists-and-simple-lists",
	}
}

// defineUntyped defines the object and list schemas of a resource without
// a Go type and returns their names. The object keeps unknown fields.
func (b *builder) defineUntyped(r *resource.Resource) (object, list string) {
	gvk := r.GroupVersionKind()
	object = untypedName(gvk)
	if _, ok := b.defs[object]; !ok {
		s := b.object(reflect.TypeFor[untypedObject]())
		s.AddExtension(extPreserveUnknownFields, true)
		b.defs[object] = &s
	}
	list = untypedName(gvk.GroupVersion().WithKind(listKind(r)))
	b.defineList(list, object, r)
	return object, list
}

// defineList defines, under name, a list of r's objects whose schema is
// the definition called object, unless name is defined already.
func (b *builder) defineList(name, object string, r *resource.Resource) {
	if _, ok := b.defs[name]; ok {
		return
	}
	s := b.object(reflect.TypeFor[untypedList]())
	s.SetProperty("items", b.annotated(arrayOf(b.ref(object)), "List of "+r.Plural+".", nil))
	s.Required = append(s.Required, "items")
	b.defs[name] = &s
}

// listKind is the kind of the resource's lists.
func listKind(r *resource.Resource) string {
	if r.ListKind != "" {
		return r.ListKind
	}
	return r.Kind + "List"
}
