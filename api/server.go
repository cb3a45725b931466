package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/discovery"
	"github.com/raftapi/raftapi/api/openapi"
	"github.com/raftapi/raftapi/api/resource"
)

// Options configure a Server.
type Options struct {
	// Now returns the time stamped into creationTimestamp; default
	// time.Now.
	Now func() time.Time
	// NewUID returns a new object UID; default a random UUID.
	NewUID func() string
	// BookmarkInterval is how often a watch with allowWatchBookmarks gets a
	// bookmark. Default one minute.
	BookmarkInterval time.Duration
	// Health, if set, serves /livez, /readyz and /healthz.
	Health http.Handler
	// Members, if set, serves the read-only raftapi.io/v1 members resource.
	Members MemberLister
}

// Server is the HTTP API of one node.
type Server struct {
	store      Storage
	opts       Options
	registry   *resource.Registry
	codecs     *codecs
	router     *mux.Router
	namespaces *namespaceLifecycle
	fields     *fieldManagers
}

// NewServer returns the API server over store, serving the built-in
// resources.
func NewServer(store Storage, opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewUID == nil {
		opts.NewUID = func() string { return string(uuid.NewUUID()) }
	}
	if opts.BookmarkInterval <= 0 {
		opts.BookmarkInterval = time.Minute
	}
	reg := resource.NewRegistry(builtin.Resources()...)
	if opts.Members != nil {
		reg.Add(membersResource)
	}
	s := &Server{store: store, opts: opts, registry: reg, codecs: newCodecs(reg), router: mux.NewRouter(), fields: newFieldManagers(reg)}
	s.namespaces = newNamespaceLifecycle(s)
	s.routes()
	return s
}

// Run runs the server's controllers (the namespace lifecycle and the
// garbage collector) until ctx ends. They act only while this node leads.
func (s *Server) Run(ctx context.Context) {
	runConcurrently(ctx, s.namespaces.run, newGarbageCollector(s).run)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.router.ServeHTTP(&statusWriter{ResponseWriter: w, protobuf: prefersProtobuf(r), codecs: s.codecs}, r)
}

func (s *Server) routes() {
	if s.opts.Health != nil {
		for _, p := range []string{"/livez", "/readyz", "/healthz"} {
			s.router.PathPrefix(p).Handler(s.opts.Health)
		}
	}
	discovery.NewHandler(s.registry).Routes(s.router)
	openapi.NewHandler(s.registry).Routes(s.router)
	for _, res := range s.registry.All() {
		if res == membersResource {
			s.memberRoutes()
			continue
		}
		s.resourceRoutes(res)
	}
	s.router.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, apierrors.NewNotFound(groupResourceOfPath(r.URL.Path), ""))
	})
	s.router.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, apierrors.NewMethodNotSupported(groupResourceOfPath(r.URL.Path), strings.ToLower(r.Method)))
	})
}

// resourceRoutes registers the collection and item paths of res.
func (s *Server) resourceRoutes(res *resource.Resource) {
	base := "/api/" + res.Version
	if res.Group != "" {
		base = "/apis/" + res.Group + "/" + res.Version
	}
	h := &handler{server: s, res: res}
	scoped := base + "/" + res.Plural
	if res.Namespaced {
		scoped = base + "/namespaces/{namespace}/" + res.Plural
		s.router.HandleFunc(base+"/"+res.Plural, h.list).Methods(http.MethodGet)
	}
	item := scoped + "/{name}"
	s.router.HandleFunc(scoped, h.list).Methods(http.MethodGet)
	s.router.HandleFunc(scoped, h.create).Methods(http.MethodPost)
	s.router.HandleFunc(scoped, h.deleteCollection).Methods(http.MethodDelete)
	s.router.HandleFunc(item, h.get).Methods(http.MethodGet)
	s.router.HandleFunc(item, h.update).Methods(http.MethodPut)
	s.router.HandleFunc(item, h.patch).Methods(http.MethodPatch)
	s.router.HandleFunc(item, h.delete).Methods(http.MethodDelete)
	s.subresourceRoutes(res, item)
}

// groupResourceOfPath guesses the resource a path names, for error text.
func groupResourceOfPath(p string) (gr schema.GroupResource) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 0 {
		gr.Resource = parts[len(parts)-1]
	}
	return gr
}
