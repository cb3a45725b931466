package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/controllers/crd"
	"github.com/raftapi/raftapi/api/controllers/garbagecollector"
	"github.com/raftapi/raftapi/api/controllers/namespace"
	"github.com/raftapi/raftapi/api/encryption"
	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
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
	// Logger receives the controllers' logs; default slog.Default().
	Logger *slog.Logger
	// Encryption, if set, encrypts the objects of the resources it names
	// at rest (--encryption-provider-config, see encryption.LoadFile);
	// nil stores every object as it is.
	Encryption *encryption.Config
}

// Server is the HTTP API of one node: the handlers over the registry over
// the store, and the controllers that are clients of the registry.
type Server struct {
	opts       Options
	store      *raftstore.Store
	registry   *registry.Registry
	namespaces *namespace.Controller
	gc         *garbagecollector.Collector
	serving    *apiextensions.Serving
	crds       *crd.Controller

	mu     sync.Mutex // serialises route rebuilds
	router atomic.Pointer[mux.Router]
}

// NewServer returns the API server over store, serving the built-in
// resources.
func NewServer(store *raftstore.Store, opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BookmarkInterval <= 0 {
		opts.BookmarkInterval = time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	crds := apiextensions.CRDResource()
	resources := resource.NewRegistry(append(builtin.Resources(), crds)...)
	if opts.Members != nil {
		resources.Add(membersResource)
	}
	builtins := resources.All()
	s := &Server{opts: opts, store: store}
	storage := encryption.Storage(registry.FromRaftstore(store), opts.Encryption, opts.Logger)
	s.registry = registry.New(resources, storage, registry.Options{
		Now: opts.Now, NewUID: opts.NewUID, NamespaceDeleting: func() { s.namespaces.Kick() },
	})
	s.namespaces = namespace.New(s.registry)
	s.gc = garbagecollector.New(s.registry, opts.Logger)
	s.serving = apiextensions.NewServing(s.registry.Storage(), crds, s, opts.Logger)
	s.crds = crd.New(s.registry, crds, builtins, opts.Logger, opts.Now)
	s.rebuildRoutes()
	return s
}

// Register adds res to the resources the server serves, while it serves:
// the registry, discovery, OpenAPI and the routes take it at once.
func (s *Server) Register(res *resource.Resource) {
	s.registry.Register(res)
	s.rebuildRoutes()
}

// Publish changes the resources served, while the server serves: the
// registry, discovery, OpenAPI and the routes take the change at once. It
// implements apiextensions.Publisher.
func (s *Server) Publish(add []*resource.Resource, remove []schema.GroupVersionResource) {
	for _, gvr := range remove {
		s.registry.Unregister(gvr)
	}
	for _, r := range add {
		s.registry.Register(r)
	}
	s.rebuildRoutes()
}

// Run runs the server's controllers (the namespace lifecycle, the garbage
// collector and the CRD controllers, which act only while this node
// leads) and the serving of custom resources, until ctx ends.
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, run := range []func(context.Context){s.namespaces.Run, s.gc.Run, s.serving.Run, s.crds.Run} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(ctx)
		}()
	}
	wg.Wait()
}

// SystemNamespacesReady returns nil once this node has every system
// namespace and serves the custom resources of the CRDs it had at start,
// an error naming what is missing otherwise.
func (s *Server) SystemNamespacesReady() error {
	if !s.pathsComplete() {
		return errors.New("custom resources not served yet")
	}
	return s.namespaces.Ready()
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := handlers.NewStatusWriter(w, r, s.registry.Codecs())
	if IsUncleanPath(r) {
		handlers.WriteStatus(sw, notFound(r))
		return
	}
	s.router.Load().ServeHTTP(sw, r)
}
