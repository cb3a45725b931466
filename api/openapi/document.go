package openapi

import (
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/raftapi/raftapi/api/resource"
)

// V3 returns the OpenAPI 3.0 document of group/version gv of reg: the paths
// of its resources and the schemas they reach. ok is false when reg serves
// nothing in gv.
func V3(reg *resource.Registry, gv schema.GroupVersion) (doc *spec3.OpenAPI, ok bool) {
	rs := reg.All()
	if len(inGroupVersion(rs, gv)) == 0 {
		return nil, false
	}
	return buildV3(rs, gv), true
}

// V2 returns the Swagger 2.0 document of every resource of reg.
func V2(reg *resource.Registry) *spec.Swagger {
	return buildV2(reg.All())
}

// inGroupVersion returns the resources of rs in gv.
func inGroupVersion(rs []*resource.Resource, gv schema.GroupVersion) []*resource.Resource {
	var out []*resource.Resource
	for _, r := range rs {
		if r.GroupVersion() == gv {
			out = append(out, r)
		}
	}
	return out
}

// buildV3 is the OpenAPI 3.0 document of the resources of rs in gv. As in
// kube-apiserver's documents, the meta kinds list the group/versions of all
// of rs, so that merging the schemas of several documents loses none.
func buildV3(rs []*resource.Resource, gv schema.GroupVersion) *spec3.OpenAPI {
	b := newBuilder(openAPI3)
	paths := map[string]*spec3.Path{}
	for _, r := range inGroupVersion(rs, gv) {
		for _, e := range endpoints(r, b.defineResource(r)) {
			paths[e.path] = b.pathV3(e, r.Typed())
		}
	}
	b.defineMeta(groupVersions(rs))
	return &spec3.OpenAPI{
		Version:             "3.0.0",
		Info:                info(),
		Paths:               &spec3.Paths{Paths: paths},
		Components:          &spec3.Components{Schemas: b.definitions(), SecuritySchemes: spec3.SecuritySchemes{"BearerToken": bearerV3()}},
		SecurityRequirement: []map[string][]string{{"BearerToken": {}}},
	}
}

// buildV2 is the Swagger 2.0 document of rs.
func buildV2(rs []*resource.Resource) *spec.Swagger {
	b := newBuilder(swagger2)
	paths := map[string]spec.PathItem{}
	for _, r := range rs {
		for _, e := range endpoints(r, b.defineResource(r)) {
			paths[e.path] = b.pathV2(e, r.Typed())
		}
	}
	b.defineMeta(groupVersions(rs))
	defs := spec.Definitions{}
	for name, s := range b.definitions() {
		defs[name] = *s
	}
	return &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:             "2.0",
		Info:                info(),
		Paths:               &spec.Paths{Paths: paths},
		Definitions:         defs,
		SecurityDefinitions: spec.SecurityDefinitions{"BearerToken": bearerV2()},
		Security:            []map[string][]string{{"BearerToken": {}}},
	}}
}

// info describes the API.
func info() *spec.Info {
	return &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "unversioned"}}
}

// Bearer token authentication, as kube-apiserver declares it.
const (
	bearerDescription = "Bearer Token authentication"
	bearerHeader      = "authorization"
)

func bearerV3() *spec3.SecurityScheme {
	return &spec3.SecurityScheme{SecuritySchemeProps: spec3.SecuritySchemeProps{
		Type: "apiKey", Name: bearerHeader, In: "header", Description: bearerDescription,
	}}
}

func bearerV2() *spec.SecurityScheme {
	return &spec.SecurityScheme{SecuritySchemeProps: spec.SecuritySchemeProps{
		Type: "apiKey", Name: bearerHeader, In: "header", Description: bearerDescription,
	}}
}

// The meta types every document uses.
var (
	statusType        = reflect.TypeFor[metav1.Status]()
	deleteOptionsType = reflect.TypeFor[metav1.DeleteOptions]()
	patchType         = reflect.TypeFor[metav1.Patch]()
	watchEventType    = reflect.TypeFor[metav1.WatchEvent]()
)

// defineResource defines the schemas of r's objects and lists, and the
// meta types its operations refer to.
func (b *builder) defineResource(r *resource.Resource) resourceDefs {
	d := resourceDefs{
		status:        b.define(statusType),
		deleteOptions: b.define(deleteOptionsType),
		patch:         b.define(patchType),
	}
	switch {
	case !r.Typed():
		d.object, d.list = b.defineUntyped(r)
	case r.GoListType() != nil:
		d.object, d.list = b.define(r.GoType()), b.define(r.GoListType())
	case r.Review != nil:
		// A review is only ever created: kube-apiserver defines no list.
		d.object = b.define(r.GoType())
		b.addGVK(d.object, r.GroupVersionKind())
		return d
	default:
		d.object = b.define(r.GoType())
		d.list = strings.TrimSuffix(d.object, r.GoType().Name()) + listKind(r)
		b.defineList(d.list, d.object, r)
	}
	b.addGVK(d.object, r.GroupVersionKind())
	b.addGVK(d.list, r.GroupVersion().WithKind(listKind(r)))
	return d
}

// defineMeta defines the meta kinds of a document serving gvs: Status, and
// DeleteOptions and WatchEvent, which are kinds of every group/version.
func (b *builder) defineMeta(gvs []schema.GroupVersion) {
	b.addGVK(b.define(statusType), schema.GroupVersionKind{Version: "v1", Kind: "Status"})
	deleteOptions, watchEvent := b.define(deleteOptionsType), b.define(watchEventType)
	for _, gv := range gvs {
		b.addGVK(deleteOptions, gv.WithKind("DeleteOptions"))
		b.addGVK(watchEvent, gv.WithKind("WatchEvent"))
	}
}
