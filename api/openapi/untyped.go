package openapi

import (
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"

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
		b.defs[object] = b.untypedObject(r)
	}
	list = untypedName(gvk.GroupVersion().WithKind(listKind(r)))
	b.defineList(list, object, r)
	if fields := selectableFields(r); fields != nil {
		b.defs[object].AddExtension(extSelectableFields, fields)
		b.defs[list].AddExtension(extSelectableFields, fields)
	}
	return object, list
}

// selectableFields is the x-kubernetes-selectable-fields extension of a
// custom resource: the fields its field selectors take beside metadata's,
// as kube-apiserver publishes them; nil for none.
func selectableFields(r *resource.Resource) []any {
	if r.Schema == nil || len(r.Fields) == 0 {
		return nil
	}
	names := make([]string, 0, len(r.Fields))
	for name := range r.Fields {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]any, len(names))
	for i, name := range names {
		out[i] = map[string]any{"fieldPath": name}
	}
	return out
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

// untypedObject is the schema of the objects of a resource without a Go
// type: its Schema's, with apiVersion, kind and metadata as every object
// has them, as kube-apiserver publishes custom resources; without a
// Schema, any object with those.
func (b *builder) untypedObject(r *resource.Resource) *spec.Schema {
	base := b.object(reflect.TypeFor[untypedObject]())
	var s *spec.Schema
	if r.Schema != nil {
		s = r.Schema.OpenAPI(b.v3)
	}
	switch {
	case s == nil && r.Schema != nil:
		// A custom resource whose schema has nothing to publish here
		// (Swagger 2.0 of one that keeps unknown fields): kube-apiserver
		// publishes a bare object, since kubectl would refuse unknown
		// fields next to declared properties.
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	case s == nil:
		base.AddExtension(extPreserveUnknownFields, true)
		return &base
	}
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		s.SetProperty(k, base.Properties[k])
	}
	b.addEmbeddedMeta(s, &base)
	return s
}

// addEmbeddedMeta gives every x-kubernetes-embedded-resource object in s
// the apiVersion, kind and metadata properties of base, apiVersion and
// kind required; Swagger 2.0 leaves objects keeping unknown fields alone,
// since kubectl would then refuse their unknown fields.
func (b *builder) addEmbeddedMeta(s *spec.Schema, base *spec.Schema) {
	for k, p := range s.Properties {
		b.addEmbeddedMeta(&p, base)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		b.addEmbeddedMeta(s.Items.Schema, base)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		b.addEmbeddedMeta(s.AdditionalProperties.Schema, base)
	}
	if keep, _ := s.Extensions.GetBool(extPreserveUnknownFields); keep && !b.v3 {
		return
	}
	if embedded, _ := s.Extensions.GetBool(extEmbeddedResource); !embedded {
		return
	}
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		s.SetProperty(k, base.Properties[k])
	}
	for _, k := range []string{"kind", "apiVersion"} {
		if !slices.Contains(s.Required, k) {
			s.Required = append(s.Required, k)
		}
	}
}
