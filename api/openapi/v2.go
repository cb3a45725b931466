package openapi

import (
	"net/http"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// pathV2 renders an endpoint as a Swagger 2.0 path item.
func (b *builder) pathV2(e endpoint, typed bool) spec.PathItem {
	var p spec.PathItem
	for _, prm := range e.params {
		p.Parameters = append(p.Parameters, parameterV2(prm))
	}
	for _, o := range e.ops {
		op := b.operationV2(o, typed)
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

// operationV2 renders one operation, its parameters inline.
func (b *builder) operationV2(o operation, typed bool) *spec.Operation {
	op := &spec.Operation{OperationProps: spec.OperationProps{
		Description: o.description,
		Produces:    responseTypes(typed, o.watch),
		Schemes:     []string{"https"},
		Tags:        []string{tag(o.gvk.GroupVersion())},
		ID:          o.id,
		Responses:   &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{}}},
	}}
	op.AddExtension(extAction, o.action)
	op.AddExtension(extGVK, gvkExtension(o.gvk))
	if o.body.schema != "" {
		op.Consumes = requestTypes(o.body, typed)
		ref := b.ref(o.body.schema)
		op.Parameters = append(op.Parameters, spec.Parameter{ParamProps: spec.ParamProps{
			Name: "body", In: "body", Required: o.body.required, Schema: &ref,
		}})
	}
	for _, prm := range o.params {
		op.Parameters = append(op.Parameters, parameterV2(prm))
	}
	for _, r := range o.responses {
		ref := b.ref(r.schema)
		op.Responses.StatusCodeResponses[r.code] = spec.Response{ResponseProps: spec.ResponseProps{
			Description: r.description(), Schema: &ref,
		}}
	}
	op.Responses.StatusCodeResponses[http.StatusUnauthorized] = spec.Response{ResponseProps: spec.ResponseProps{
		Description: http.StatusText(http.StatusUnauthorized),
	}}
	return op
}

// parameterV2 renders a path or query parameter.
func parameterV2(p param) spec.Parameter {
	return spec.Parameter{
		ParamProps:        spec.ParamProps{Name: p.name, In: p.in, Description: p.description, Required: p.required},
		SimpleSchema:      spec.SimpleSchema{Type: p.typ},
		CommonValidations: spec.CommonValidations{UniqueItems: p.in == "path"},
	}
}
