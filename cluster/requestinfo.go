package cluster

import (
	"net/http"
	"strings"

	"github.com/raftapi/raftapi/api/request"
)

// requestInfo is what the request metrics label a request with, derived
// from its method, path and query the way k8s.io/apiserver's
// RequestInfoFactory and its metrics package do.
type requestInfo struct {
	verb        string // GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION, CONNECT; the method otherwise
	group       string
	version     string
	resource    string // "" for a non-resource path (discovery, health, ...)
	subresource string
	scope       string // resource, namespace, cluster; "" for a non-resource path
	namespace   string // not a metrics label
	name        string // not a metrics label
	watchPath   bool   // under /watch/; not a metrics label
}

// connectSubresources are the subresources kube-apiserver reports as
// CONNECT.
var connectSubresources = map[string]bool{"exec": true, "attach": true, "portforward": true, "proxy": true}

// parseRequestInfo labels r. Resource paths are
//
//	/api/{version}[/watch]/{resource}[/{name}[/{subresource}]]
//	/api/{version}[/watch]/namespaces/{namespace}/{resource}[/{name}[/{subresource}]]
//	/apis/{group}/{version}/... the same
//
// where /api/{version}/namespaces/{name}[/status|/finalize] is the
// namespace object itself. Anything else is a non-resource path, labelled
// with its method only.
func parseRequestInfo(r *http.Request) requestInfo {
	info := requestInfo{verb: r.Method}
	parts := splitPath(r.URL.Path)
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		info.version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		info.group, info.version, parts = parts[1], parts[2], parts[3:]
	default:
		return info
	}
	watchPath := false
	if parts[0] == "watch" {
		watchPath, parts = true, parts[1:]
		if len(parts) == 0 {
			return requestInfo{verb: r.Method}
		}
	}
	var namespace, name string
	if parts[0] == "namespaces" && len(parts) > 1 {
		namespace = parts[1]
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	info.resource = parts[0]
	if len(parts) > 1 {
		name = parts[1]
	}
	if len(parts) > 2 {
		info.subresource = parts[2]
	}
	// As kube's RequestInfoFactory, a namespace object's request is in
	// the namespace it names.
	info.namespace, info.name, info.watchPath = namespace, name, watchPath
	info.verb = resourceVerb(r, name != "", watchPath, info.subresource)
	info.scope = scope(info.verb, namespace, name)
	return info
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// resourceVerb is kube-apiserver's metrics verb for a resource request.
func resourceVerb(r *http.Request, named, watchPath bool, subresource string) string {
	switch {
	case connectSubresources[subresource] || r.Method == http.MethodConnect:
		return "CONNECT"
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		if watchPath || watchParam(r) {
			return "WATCH"
		}
		if !named {
			return "LIST"
		}
		return "GET"
	case r.Method == http.MethodDelete && !named:
		return "DELETECOLLECTION"
	case r.Method == http.MethodPatch && r.Header.Get("Content-Type") == "application/apply-patch+yaml":
		return "APPLY"
	}
	return r.Method
}

// isWatch reports a watch as kube's RequestInfoFactory names it: a
// /watch/ path, or a collection GET with a watch parameter read as
// kube-apiserver and the handlers read it (anything but "0" or "false").
// The inflight limit and the request timeout both leave such requests
// alone. A GET of a named object stays a get whatever its watch
// parameter (see servedAsGet).
func isWatch(r *http.Request) bool {
	info := requestInfoOf(r)
	return info.verb == "WATCH" && !info.servedAsGet()
}

// servedAsGet reports a GET of a named object that the metrics label
// WATCH for its watch parameter, as kube-apiserver's CleanVerb does for
// any GET with one, but that kube's RequestInfoFactory — and so its
// authorizers, its timeout and its inflight limit — and the handlers
// take for the get it is: only a collection can be watched that way.
func (i requestInfo) servedAsGet() bool {
	return i.verb == "WATCH" && i.name != "" && !i.watchPath
}

// watchParam reports a ?watch= other than "0" or "false".
func watchParam(r *http.Request) bool {
	v, ok := request.Query(r, "watch")
	if !ok {
		return false
	}
	s := strings.ToLower(v)
	return s != "0" && s != "false"
}

// scope is kube-apiserver's scope label: "resource" for one named object
// (and for a create), "namespace" for a namespaced collection, "cluster"
// for a cluster-wide collection.
func scope(verb, namespace, name string) string {
	switch {
	case name != "" || verb == http.MethodPost:
		return "resource"
	case namespace != "":
		return "namespace"
	}
	return "cluster"
}

// authzVerb is the verb kube's authorizers see for a resource request.
func (i requestInfo) authzVerb() string {
	switch i.verb {
	case "POST":
		return "create"
	case "PUT":
		return "update"
	case "APPLY":
		return "patch"
	}
	if i.servedAsGet() {
		return "get"
	}
	return strings.ToLower(i.verb)
}
