package openapi

import (
	"reflect"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// object is the schema of struct type t as encoding/json writes it: its
// fields are properties, inline and embedded structs are flattened, fields
// without omitempty are required. Descriptions come from SwaggerDoc.
func (b *builder) object(t reflect.Type) spec.Schema {
	s := primitive("object", "")
	s.Description = swaggerDoc(t)[""]
	b.addFields(&s, t)
	return s
}

// addFields adds the JSON fields of struct type t to s.
func (b *builder) addFields(s *spec.Schema, t reflect.Type) {
	docs := swaggerDoc(t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		jf, ok := jsonFieldOf(f)
		switch {
		case !ok:
			continue
		case jf.inline:
			b.addFields(s, deref(f.Type))
			continue
		}
		prop := b.annotated(b.schemaOf(f.Type), docs[jf.name], fieldExtensions(f))
		s.SetProperty(jf.name, prop)
		if !jf.omitempty {
			s.Required = append(s.Required, jf.name)
		}
	}
}

// jsonField is how encoding/json treats a struct field.
type jsonField struct {
	name      string
	omitempty bool // omitempty or omitzero: the field may be absent
	inline    bool // an embedded struct whose fields are the parent's
}

// jsonFieldOf returns how encoding/json writes f; ok is false for fields
// it leaves out.
func jsonFieldOf(f reflect.StructField) (jf jsonField, ok bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return jsonField{}, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if f.Anonymous && name == "" && deref(f.Type).Kind() == reflect.Struct {
		return jsonField{inline: true}, true
	}
	if !f.IsExported() {
		return jsonField{}, false
	}
	if name == "" {
		name = f.Name
	}
	jf = jsonField{name: name}
	for _, opt := range strings.Split(opts, ",") {
		if opt == "omitempty" || opt == "omitzero" {
			jf.omitempty = true
		}
	}
	return jf, true
}
