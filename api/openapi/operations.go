package openapi

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/resource"
)

// endpoint is one path of a resource and the operations served on it, in a
// form both document dialects render.
type endpoint struct {
	path   string
	params []param // parameters of every operation on the path
	ops    []operation
}

// operation is one operation on a resource path, as kube-apiserver
// describes it.
type operation struct {
	method      string // lower-case HTTP method
	id          string
	description string
	action      string // x-kubernetes-action
	gvk         schema.GroupVersionKind
	params      []param
	body        body
	responses   []response
	watch       bool // the 200 response may also be a watch stream
}

// body is the request body of an operation.
type body struct {
	schema   string // definition name; "" when the operation takes none
	patch    bool   // a patch of schema, in one of the patch media types
	required bool
}

// response is one status code an operation answers with and the
// definition of its body.
type response struct {
	code   int
	schema string
}

// description is the text of a response code.
func (r response) description() string { return http.StatusText(r.code) }

// resourceDefs are the definitions a resource's operations refer to.
type resourceDefs struct {
	object, list, status, deleteOptions, patch string
}

// endpoints are the paths of r, as kube-apiserver serves them: the
// collection and the item, under /namespaces/{namespace}/ for a namespaced
// resource, which also has a list across namespaces. Operations appear for
// the served verbs; a path without operations is left out.
func endpoints(r *resource.Resource, defs resourceDefs) []endpoint {
	e := endpointBuilder{r: r, defs: defs, gv: r.GroupVersion()}
	base := "/api/" + r.Version
	if r.Group != "" {
		base = "/apis/" + r.Group + "/" + r.Version
	}
	var all []endpoint
	if r.Namespaced {
		ns := base + "/namespaces/{namespace}/" + r.Plural
		all = []endpoint{e.collection(ns, "Namespaced"), e.item(ns+"/{name}", "Namespaced"), e.allNamespaces(base + "/" + r.Plural)}
	} else {
		all = []endpoint{e.collection(base+"/"+r.Plural, ""), e.item(base+"/"+r.Plural+"/{name}", "")}
	}
	out := all[:0]
	for _, ep := range all {
		if len(ep.ops) > 0 {
			out = append(out, ep)
		}
	}
	return out
}

// endpointBuilder builds the endpoints of one resource.
type endpointBuilder struct {
	r    *resource.Resource
	gv   schema.GroupVersion
	defs resourceDefs
}

// op starts an operation of the resource: verb and rest make its ID.
func (e endpointBuilder) op(method, verb, rest, action, description string) operation {
	return operation{
		method: method, id: operationID(verb, e.gv, rest), description: description,
		action: action, gvk: e.r.GroupVersionKind(),
	}
}

// pathParams are the parameters of every operation on a path of scope
// ("Namespaced" or "") that names an object or not.
func pathParams(scope string, named bool) []param {
	var ps []param
	if named {
		ps = append(ps, paramName)
	}
	if scope != "" {
		ps = append(ps, paramNamespace)
	}
	return append(ps, paramPretty)
}

// collection is the path of all objects (in a namespace): list, create and
// deletecollection.
func (e endpointBuilder) collection(path, scope string) endpoint {
	r, kind := e.r, e.r.Kind
	ep := endpoint{path: path, params: pathParams(scope, false)}
	if r.Serves("list") {
		o := e.op("get", "list", scope+kind, "list", "list or watch objects of kind "+kind)
		o.params, o.watch = listParams(r.Serves("watch")), r.Serves("watch")
		o.responses = []response{{http.StatusOK, e.defs.list}}
		ep.ops = append(ep.ops, o)
	}
	if r.Serves("create") {
		o := e.op("post", "create", scope+kind, "post", "create a "+kind)
		o.params, o.body = writeParams, body{schema: e.defs.object, required: true}
		o.responses = []response{{http.StatusOK, e.defs.object}, {http.StatusCreated, e.defs.object}, {http.StatusAccepted, e.defs.object}}
		ep.ops = append(ep.ops, o)
	}
	if r.Serves("deletecollection") {
		o := e.op("delete", "delete", "Collection"+scope+kind, "deletecollection", "delete collection of "+kind)
		o.params, o.body = join(deleteParams, selectParams), body{schema: e.defs.deleteOptions}
		o.responses = []response{{http.StatusOK, e.defs.status}}
		ep.ops = append(ep.ops, o)
	}
	return ep
}

// item is the path of one object: get, update, patch and delete.
func (e endpointBuilder) item(path, scope string) endpoint {
	r, kind := e.r, e.r.Kind
	ep := endpoint{path: path, params: pathParams(scope, true)}
	if r.Serves("get") {
		o := e.op("get", "read", scope+kind, "get", "read the specified "+kind)
		o.responses = []response{{http.StatusOK, e.defs.object}}
		ep.ops = append(ep.ops, o)
	}
	if r.Serves("update") {
		o := e.op("put", "replace", scope+kind, "put", "replace the specified "+kind)
		o.params, o.body = writeParams, body{schema: e.defs.object, required: true}
		o.responses = []response{{http.StatusOK, e.defs.object}, {http.StatusCreated, e.defs.object}}
		ep.ops = append(ep.ops, o)
	}
	if r.Serves("patch") {
		o := e.op("patch", "patch", scope+kind, "patch", "partially update the specified "+kind)
		o.params, o.body = patchParams, body{schema: e.defs.patch, patch: true, required: true}
		o.responses = []response{{http.StatusOK, e.defs.object}, {http.StatusCreated, e.defs.object}}
		ep.ops = append(ep.ops, o)
	}
	if r.Serves("delete") {
		o := e.op("delete", "delete", scope+kind, "delete", "delete a "+kind)
		o.params, o.body = deleteParams, body{schema: e.defs.deleteOptions}
		o.responses = []response{{http.StatusOK, e.defs.status}, {http.StatusAccepted, e.defs.status}}
		ep.ops = append(ep.ops, o)
	}
	return ep
}

// allNamespaces is the path listing the objects of every namespace.
func (e endpointBuilder) allNamespaces(path string) endpoint {
	r, kind := e.r, e.r.Kind
	ep := endpoint{path: path, params: []param{paramPretty}}
	if r.Serves("list") {
		o := e.op("get", "list", kind+"ForAllNamespaces", "list", "list or watch objects of kind "+kind)
		o.params, o.watch = listParams(r.Serves("watch")), r.Serves("watch")
		o.responses = []response{{http.StatusOK, e.defs.list}}
		ep.ops = append(ep.ops, o)
	}
	return ep
}
