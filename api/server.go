package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
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
	store  Storage
	opts   Options
	router *mux.Router
}

// NewServer returns the API server over store.
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
	s := &Server{store: store, opts: opts, router: mux.NewRouter()}
	s.routes()
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

func (s *Server) routes() {
	if s.opts.Health != nil {
		for _, p := range []string{"/livez", "/readyz", "/healthz"} {
			s.router.PathPrefix(p).Handler(s.opts.Health)
		}
	}
	s.discoveryRoutes()
	s.memberRoutes()
	for _, res := range builtins {
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
func (s *Server) resourceRoutes(res *Resource) {
	base := "/api/" + res.Version
	if res.Group != "" {
		base = "/apis/" + res.Group + "/" + res.Version
	}
	h := &handler{server: s, res: res}
	collections := []string{base + "/" + res.Plural}
	if res.Namespaced {
		collections = append(collections, base+"/namespaces/{namespace}/"+res.Plural)
		s.router.HandleFunc(base+"/namespaces/{namespace}/"+res.Plural+"/{name}", h.get).Methods(http.MethodGet)
		s.router.HandleFunc(base+"/namespaces/{namespace}/"+res.Plural+"/{name}", h.update).Methods(http.MethodPut)
		s.router.HandleFunc(base+"/namespaces/{namespace}/"+res.Plural+"/{name}", h.delete).Methods(http.MethodDelete)
		s.router.HandleFunc(base+"/namespaces/{namespace}/"+res.Plural, h.create).Methods(http.MethodPost)
	}
	for _, c := range collections {
		s.router.HandleFunc(c, h.list).Methods(http.MethodGet)
	}
}

// groupResourceOfPath guesses the resource a path names, for error text.
func groupResourceOfPath(p string) (gr schema.GroupResource) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 0 {
		gr.Resource = parts[len(parts)-1]
	}
	return gr
}
