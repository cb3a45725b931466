package api

import (
	"net/http"
	"path"
	"strings"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/discovery"
	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/api/openapi"
	"github.com/raftapi/raftapi/api/resource"
)

// routeTable routes the requests of one set of resources: the index of
// the resource paths in front of mux's router, which holds every route
// (the resource paths too) and answers what the index does not hold.
// Discovery, OpenAPI, health and member paths are the router's only; none
// of them overlaps a resource path, so the index answering first changes
// no request's route.
type routeTable struct {
	router *mux.Router
	index  *pathIndex
}

// ServeHTTP implements http.Handler.
func (t *routeTable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !t.index.serve(w, r) {
		t.router.ServeHTTP(w, r)
	}
}

// handle registers h for method on the resource path pattern.
func (t *routeTable) handle(method, pattern string, h http.Handler) {
	t.router.Handle(pattern, h).Methods(method)
	t.index.add(method, pattern, h)
}

// rebuildRoutes builds the router of every registered resource and swaps
// it in; requests in flight finish on the old one.
func (s *Server) rebuildRoutes() {
	s.mu.Lock()
	defer s.mu.Unlock()
	router := mux.NewRouter()
	table := &routeTable{router: router, index: newPathIndex()}
	if s.opts.Health != nil {
		for _, p := range []string{"/livez", "/readyz", "/healthz"} {
			router.PathPrefix(p).Handler(s.opts.Health)
		}
	}
	resources := s.registry.Resources()
	discovery.NewHandler(resources).Routes(router)
	openapi.NewHandler(resources).Routes(router)
	for _, res := range resources.All() {
		if res == membersResource {
			s.memberRoutes(router)
			continue
		}
		s.resourceRoutes(table, res)
	}
	router.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.unrouted(table, w, r)
	})
	router.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.WriteStatus(w, apierrors.NewMethodNotSupported(s.resourceOfPath(r.URL.Path), strings.ToLower(r.Method)))
	})
	s.router.Store(table)
}

// scope returns the handler scope of res, or of its subresource sub. A
// scale subresource decodes and encodes Scale objects.
func (s *Server) scope(res *resource.Resource, sub *resource.Subresource) *handlers.Scope {
	store, served := s.registry.Store(res), res
	if sub != nil {
		store = s.registry.Subresource(res, sub)
		if sub.Scale != nil {
			served = resource.ScaleResource(res)
		}
	}
	return &handlers.Scope{Store: store, Resource: served, Codecs: s.registry.Codecs(), Now: s.opts.Now, BookmarkInterval: s.opts.BookmarkInterval,
		WatchWriteTimeout: s.opts.WatchWriteTimeout, Streams: &s.watchStreams, Stopping: s.opts.Stopping}
}

// route binds one path and method to h when the resource serves verb.
type route struct {
	verb   string
	method string
	path   string
	h      http.HandlerFunc
}

// handle registers the routes whose verb res serves.
func handle(t *routeTable, res *resource.Resource, routes []route) {
	for _, rt := range routes {
		if res.Serves(rt.verb) || (rt.verb == "list" && res.Serves("watch")) {
			t.handle(rt.method, rt.path, handlers.WithWarnings(res.Warnings, rt.h))
		}
	}
}

// resourceRoutes registers the collection and item paths of res, for the
// verbs it serves.
func (s *Server) resourceRoutes(t *routeTable, res *resource.Resource) {
	base := "/api/" + res.Version
	if res.Group != "" {
		base = "/apis/" + res.Group + "/" + res.Version
	}
	sc := s.scope(res, nil)
	scoped := base + "/" + res.Plural
	var routes []route
	if res.Namespaced {
		scoped = base + "/namespaces/{namespace}/" + res.Plural
		routes = append(routes, route{"list", http.MethodGet, base + "/" + res.Plural, handlers.List(sc)})
	}
	if res.Review != nil {
		handle(t, res, []route{{"create", http.MethodPost, scoped, handlers.Review(sc)}})
		return
	}
	item := scoped + "/{name}"
	routes = append(routes,
		route{"list", http.MethodGet, scoped, handlers.List(sc)},
		route{"create", http.MethodPost, scoped, handlers.Create(sc)},
		route{"deletecollection", http.MethodDelete, scoped, handlers.DeleteCollection(sc)},
		route{"get", http.MethodGet, item, handlers.Get(sc)},
		route{"update", http.MethodPut, item, handlers.Update(sc)},
		route{"patch", http.MethodPatch, item, handlers.Patch(sc)},
		route{"delete", http.MethodDelete, item, handlers.Delete(sc)},
	)
	handle(t, res, routes)
	s.subresourceRoutes(t, res, item)
}

// subresourceRoutes registers item/{sub} for each subresource of res: get
// reads the object, update and patch write through the subresource.
func (s *Server) subresourceRoutes(t *routeTable, res *resource.Resource, item string) {
	for i := range res.Subresources {
		sub := &res.Subresources[i]
		p := item + "/" + sub.Name
		if sub.Create != nil {
			sc := &handlers.Scope{Resource: sub.Body, Codecs: s.registry.Codecs(), Now: s.opts.Now}
			t.handle(http.MethodPost, p, handlers.WithWarnings(res.Warnings, handlers.SubresourceCreate(sc, sub.Create)))
			continue
		}
		sc := s.scope(res, sub)
		var routes []route
		for _, verb := range sub.ServedVerbs() {
			switch verb {
			case "get":
				routes = append(routes, route{verb, http.MethodGet, p, handlers.Get(sc)})
			case "update":
				routes = append(routes, route{verb, http.MethodPut, p, handlers.Update(sc)})
			case "patch":
				routes = append(routes, route{verb, http.MethodPatch, p, handlers.Patch(sc)})
			}
		}
		for _, rt := range routes {
			t.handle(rt.method, rt.path, handlers.WithWarnings(res.Warnings, rt.h))
		}
	}
}

// pathsComplete reports whether the routes hold every resource this node
// has: the custom resources of the CRDs in its state are published.
func (s *Server) pathsComplete() bool {
	select {
	case <-s.serving.Synced():
		return true
	default:
		return false
	}
}

// unrouted answers a request that router has no route for. The routes
// may have changed since the request picked router: a request that took
// the router of just before the custom resources were published would
// otherwise be told 404 by a check that already sees them published.
// Whether the paths are complete is read first: a router stored before
// that (see Publish) is then either this one or replaced, and a replaced
// one hands the request to the current router.
func (s *Server) unrouted(t *routeTable, w http.ResponseWriter, r *http.Request) {
	complete := s.pathsComplete()
	if cur := s.router.Load(); cur != t {
		cur.ServeHTTP(w, r)
		return
	}
	if !complete {
		handlers.WriteStatus(w, pathsIncomplete())
		return
	}
	handlers.WriteStatus(w, notFound(r))
}

// pathsIncomplete is kube-apiserver's answer to a request for a path it
// does not serve yet while it is still installing paths (its CRDs not yet
// synced): 503, retry after 5 seconds, rather than a 404 that would tell
// a client an established resource does not exist.
func pathsIncomplete() error {
	err := apierrors.NewServiceUnavailable("the request has been made before all known HTTP paths have been installed, please try again")
	err.ErrStatus.Details = &metav1.StatusDetails{RetryAfterSeconds: 5}
	return err
}

// notFound is the 404 of a path no route serves.
func notFound(r *http.Request) error {
	return apierrors.NewNotFound(groupResourceOfPath(r.URL.Path), "")
}

// groupResourceOfPath guesses the resource a path names, for the text of
// a 404.
func groupResourceOfPath(p string) (gr schema.GroupResource) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 0 {
		gr.Resource = parts[len(parts)-1]
	}
	return gr
}

// resourceOfPath returns the resource a resource path names (the part
// after /api/VERSION or /apis/GROUP/VERSION and an optional
// namespaces/NS), for the text of a 405. namespaces/NS/SUB is a
// subresource of a namespace unless SUB is a namespaced resource of that
// group and version.
func (s *Server) resourceOfPath(p string) schema.GroupResource {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	var gv schema.GroupVersion
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		gv.Version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		gv.Group, gv.Version, parts = parts[1], parts[2], parts[3:]
	default:
		return groupResourceOfPath(p)
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		if res := s.registry.Resources().Get(gv.WithResource(parts[2])); res != nil && res.Namespaced {
			parts = parts[2:]
		}
	}
	return schema.GroupResource{Group: gv.Group, Resource: parts[0]}
}

// IsUncleanPath reports whether the request's path has empty, "." or
// ".." segments or an escaped slash, or its request target starts with
// "//" (which Go reads as a host followed by a path): the server answers
// such a request with a 404 Status instead of redirecting it or serving
// another resource, as kube-apiserver matches paths without cleaning them.
func IsUncleanPath(r *http.Request) bool {
	if strings.HasPrefix(r.RequestURI, "//") {
		return true
	}
	for _, p := range []string{r.URL.Path, r.URL.EscapedPath()} {
		if p != "" && p != "/" && path.Clean(p) != strings.TrimSuffix(p, "/") {
			return true
		}
	}
	return strings.Contains(strings.ToLower(r.URL.EscapedPath()), "%2f")
}
