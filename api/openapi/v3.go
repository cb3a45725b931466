package openapi

import (
	"net/http"

	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// pathV3 renders an endpoint as an OpenAPI 3.0 path item.
func (b *builder) pathV3(e endpoint, typed bool) *spec3.Path {
	p := &spec3.Path{}
	for _, prm := range e.params {
		p.Parameters = append(p.Parameters, parameterV3(prm))
	}
	for _, o := range e.ops {
		op := b.operationV3(o, typed)
		switch o.method {
		case "get":
			p.Get = op
		case "put":
			p.Put = op
		case "post":
			p.Post = op
		case "patch":
			p.Patch = op
		case "delete":
			p.Delete = op
		}
	}
	return p
}

// operationV3 renders one operation. Its parameters are inline: kubectl
// looks for fieldValidation by name among the PATCH operation's own.
func (b *builder) operationV3(o operation, typed bool) *spec3.Operation {
	op := &spec3.Operation{OperationProps: spec3.OperationProps{
		Tags:        []string{tag(o.gvk.GroupVersion())},
		Description: o.description,
		OperationId: o.id,
		Responses:   &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{}}},
	}}
	op.AddExtension(extAction, o.action)
	op.AddExtension(extGVK, gvkExtension(o.gvk))
	for _, prm := range o.params {
		op.Parameters = append(op.Parameters, parameterV3(prm))
	}
	if o.body.schema != "" {
		op.RequestBody = &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{
			Content:  b.contentV3(o.body.schema, requestTypes(o.body, typed)),
			Required: o.body.required,
		}}
	}
	for _, r := range o.responses {
		op.Responses.StatusCodeResponses[r.code] = &spec3.Response{ResponseProps: spec3.ResponseProps{
			Description: r.description(),
			Content:     b.contentV3(r.schema, responseTypes(typed, o.watch && r.code == http.StatusOK)),
		}}
	}
	op.Responses.StatusCodeResponses[http.StatusUnauthorized] = &spec3.Response{ResponseProps: spec3.ResponseProps{
		Description: http.StatusText(http.StatusUnauthorized),
	}}
	return op
}

// contentV3 is a content map giving each media type the schema of the
// definition called name.
func (b *builder) contentV3(name string, mediaTypes []string) map[string]*spec3.MediaType {
	content := map[string]*spec3.MediaType{}
	for _, mt := range mediaTypes {
		ref := b.ref(name)
		content[mt] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: &ref}}
	}
	return content
}

// parameterV3 renders a parameter.
func parameterV3(p param) *spec3.Parameter {
	s := spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{p.typ}, UniqueItems: p.in == "path"}}
	return &spec3.Parameter{ParameterProps: spec3.ParameterProps{
		Name: p.name, In: p.in, Description: p.description, Required: p.required, Schema: &s,
	}}
}
