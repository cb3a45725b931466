package openapi

import (
	"encoding/json"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// openAPITyped is implemented by the apimachinery types whose JSON form is a
// scalar (metav1.Time, metav1.MicroTime, metav1.Duration,
// resource.Quantity, intstr.IntOrString).
type openAPITyped interface {
	OpenAPISchemaType() []string
	OpenAPISchemaFormat() string
}

// openAPIV3OneOf is implemented by the types above whose value may be of
// more than one type (resource.Quantity, intstr.IntOrString).
type openAPIV3OneOf interface {
	OpenAPIV3OneOfTypes() []string
}

var (
	timeType         = reflect.TypeFor[time.Time]()
	rawExtensionType = reflect.TypeFor[runtime.RawExtension]()
	marshalerType    = reflect.TypeFor[json.Marshaler]()
)

// special returns the schema of a struct type whose JSON form is not its
// fields, and whether t is one.
func (b *builder) special(t reflect.Type) (spec.Schema, bool) {
	v := reflect.New(t).Interface()
	if typed, ok := v.(openAPITyped); ok {
		return b.scalarType(typed), true
	}
	switch {
	case t == timeType:
		return primitive("string", "date-time"), true
	case t == rawExtensionType, reflect.PointerTo(t).Implements(marshalerType):
		// Embedded objects and other custom JSON: any object.
		s := primitive("object", "")
		s.AddExtension(extPreserveUnknownFields, true)
		return s, true
	}
	return spec.Schema{}, false
}

// scalarType is the schema of a type that declares its OpenAPI type. One
// that may be an integer or a string (IntOrString, Quantity) is marked
// x-kubernetes-int-or-string; OpenAPI 3.0 lists its types in oneOf.
func (b *builder) scalarType(typed openAPITyped) spec.Schema {
	s := spec.Schema{SchemaProps: spec.SchemaProps{Type: typed.OpenAPISchemaType(), Format: typed.OpenAPISchemaFormat()}}
	oneOf, ok := typed.(openAPIV3OneOf)
	if !ok {
		return s
	}
	types := oneOf.OpenAPIV3OneOfTypes()
	if b.v3 {
		s.Type = nil
		for _, typ := range types {
			s.OneOf = append(s.OneOf, primitive(typ, ""))
		}
	}
	if intOrString(types) {
		s.AddExtension(extIntOrString, true)
	}
	return s
}

// intOrString reports whether types are a string and a number.
func intOrString(types []string) bool {
	var str, num bool
	for _, t := range types {
		switch t {
		case "string":
			str = true
		case "integer", "number":
			num = true
		}
	}
	return str && num
}
