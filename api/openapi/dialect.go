package openapi

import "k8s.io/kube-openapi/pkg/validation/spec"

// dialect is what differs between the schemas of a Swagger 2.0 and an
// OpenAPI 3.0 document.
type dialect struct {
	// refPrefix locates the definitions: "#/definitions/" or
	// "#/components/schemas/".
	refPrefix string
	// v3 allows oneOf, and wraps a $ref that has siblings (a description,
	// extensions) in allOf, since OpenAPI 3.0 ignores a $ref's siblings.
	// Swagger 2.0 keeps them side by side, which is what kubectl's v2
	// model parser expects.
	v3 bool
}

var (
	swagger2 = dialect{refPrefix: "#/definitions/"}
	openAPI3 = dialect{refPrefix: "#/components/schemas/", v3: true}
)

// ref returns a schema referring to the definition called name.
func (d dialect) ref(name string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(d.refPrefix + name)}}
}

// annotated returns s with description and extensions added, keeping a
// $ref valid in the dialect.
func (d dialect) annotated(s spec.Schema, description string, ext spec.Extensions) spec.Schema {
	if d.v3 && s.Ref.String() != "" && (description != "" || len(ext) > 0) {
		s = spec.Schema{SchemaProps: spec.SchemaProps{AllOf: []spec.Schema{s}}}
	}
	s.Description = description
	for k, v := range ext {
		s.AddExtension(k, v)
	}
	return s
}
