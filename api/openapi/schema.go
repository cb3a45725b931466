package openapi

import (
	"reflect"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// schemaOf is the schema of a value of Go type t where it appears (a field,
// an item, a map value): a $ref for named structs, inline otherwise.
func (b *builder) schemaOf(t reflect.Type) spec.Schema {
	t = deref(t)
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return primitive("string", "byte") // encoding/json writes []byte as base64
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.Name() == "" {
			return b.object(t)
		}
		return b.ref(b.define(t))
	case reflect.Slice, reflect.Array:
		return arrayOf(b.schemaOf(t.Elem()))
	case reflect.Map:
		values := b.schemaOf(t.Elem())
		s := primitive("object", "")
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: &values}
		return s
	case reflect.Interface:
		return spec.Schema{} // any JSON value
	}
	return primitive(scalar(t.Kind()))
}

// scalar is the type and format of a Go scalar kind.
func scalar(k reflect.Kind) (typ, format string) {
	switch k {
	case reflect.Bool:
		return "boolean", ""
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return "integer", "int32"
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return "integer", "int64"
	case reflect.Float32:
		return "number", "float"
	case reflect.Float64:
		return "number", "double"
	}
	return "string", ""
}

// primitive is a schema of one type.
func primitive(typ, format string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{typ}, Format: format}}
}

// arrayOf is an array of items.
func arrayOf(items spec.Schema) spec.Schema {
	s := primitive("array", "")
	s.Items = &spec.SchemaOrArray{Schema: &items}
	return s
}
