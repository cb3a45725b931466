package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/accessreview"
	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/controllers/crd"
	"github.com/raftapi/raftapi/api/controllers/garbagecollector"
	"github.com/raftapi/raftapi/api/controllers/namespace"
	rbacpolicy "github.com/raftapi/raftapi/api/controllers/rbac"
	"github.com/raftapi/raftapi/api/encryption"
	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/api/rbac"
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
	// WatchWriteTimeout bounds each watch event's write: a watcher that
	// stops reading is dropped, connection and all, once a write has
	// waited that long. Default handlers.DefaultWatchWriteTimeout.
	WatchWriteTimeout time.Duration
	// Stopping, if set, ends when the server begins to stop: open watches
	// then end, as their timeout would end them, so that they do not hold
	// up the HTTP server's graceful shutdown.
	Stopping context.Context
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
	// Authorizer, if set, is asked whether a user may "escalate" a role
	// or "bind" one when it writes roles and bindings (the server's
	// authorizer chain, as kube asks); nil asks the server's RBAC
	// authorizer (Server.RBAC) alone. It also answers the access reviews
	// (SelfSubjectRulesReview too when it is an authorizer.RuleResolver;
	// the RBAC authorizer's rules otherwise).
	Authorizer authorizer.UnconditionalAuthorizer
	// BootstrapRBAC, when set, installs kube-apiserver's default RBAC
	// policy on the leader (reconciled at the start of each term) and runs
	// the ClusterRole aggregation controller; RBACBootstrapReady says when
	// the policy is installed.
	BootstrapRBAC bool
	// ServiceAccounts, if set, keeps a default ServiceAccount in every
	// namespace and serves what ServiceAccountOptions turn on (tokens,
	// tokenreviews, the root CA configmap).
	ServiceAccounts *ServiceAccountOptions
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
	rbac       *rbac.Authorizer
	rbacPolicy *rbacpolicy.Controller
	rbacAggr   *rbacpolicy.Aggregator
	sa         serviceAccounts
	// watchStreams counts the open watch streams of every resource.
	watchStreams handlers.WatchStreams

	mu     sync.Mutex // serialises route rebuilds
	router atomic.Pointer[routeTable]
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
	crds, policies := apiextensions.CRDResource(), apiextensions.PolicyResource()
	resources := resource.NewRegistry(append(builtin.Resources(), crds, policies)...)
	if opts.Members != nil {
		resources.Add(membersResource)
	}
	builtins := resources.All()
	s := &Server{opts: opts, store: store}
	storage := encryption.Storage(registry.FromRaftstore(store), opts.Encryption, opts.Logger)
	s.addServiceAccountTokens(resources, storage)
	s.registry = registry.New(resources, storage, registry.Options{
		Now: opts.Now, NewUID: opts.NewUID, NamespaceDeleting: func() { s.namespaces.Kick() },
	})
	s.namespaces = namespace.New(s.registry)
	s.gc = garbagecollector.New(s.registry, opts.Logger)
	policies.Admit = apiextensions.NewPolicyAdmission(s.registry.Storage(), crds)
	s.serving = apiextensions.NewServing(s.registry.Storage(), crds, policies, s, opts.Logger)
	s.crds = crd.New(s.registry, crds, builtins, opts.Logger, opts.Now)
	s.rbac = rbac.New(s.registry.Storage(), opts.Logger)
	rbac.Guard(builtins, s.rbac.Admission(opts.Authorizer))
	s.rbacPolicy, s.rbacAggr = rbacpolicy.New(s.registry, opts.Logger), rbacpolicy.NewAggregator(s.registry, opts.Logger)
	for _, r := range accessreview.Resources(s.reviewers()) {
		s.registry.Register(r)
	}
	s.registerServiceAccounts()
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
// leads), the serving of custom resources and the RBAC authorizer's
// following of the RBAC objects, and with Options.BootstrapRBAC the RBAC
// policy and aggregation controllers (leader only), and with
// Options.ServiceAccounts the default service account and root CA
// controller (leader only), until ctx ends. A controller that panics is
// logged and restarted (supervise).
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	runs := map[string]func(context.Context){
		"namespace": s.namespaces.Run, "garbagecollector": s.gc.Run, "serving": s.serving.Run,
		"crd": s.crds.Run, "rbac-authorizer": s.rbac.Run,
	}
	if s.opts.BootstrapRBAC {
		runs["rbac-bootstrap"], runs["clusterrole-aggregation"] = s.rbacPolicy.Run, s.rbacAggr.Run
	}
	if s.sa.controller != nil {
		runs["serviceaccount"] = s.sa.controller.Run
	}
	for name, run := range runs {
		wg.Go(func() { supervise(ctx, s.opts.Logger, name, run) })
	}
	wg.Wait()
}

// RBAC returns the server's RBAC authorizer, which follows this node's
// RBAC objects while Run runs (its Synced tells when it has them all).
func (s *Server) RBAC() *rbac.Authorizer { return s.rbac }

// RBACBootstrapReady returns nil once the default RBAC policy is
// installed (kube's poststarthook/rbac/bootstrap-roles), or when the
// server does not install it (Options.BootstrapRBAC unset).
func (s *Server) RBACBootstrapReady() error {
	if !s.opts.BootstrapRBAC {
		return nil
	}
	return s.rbacPolicy.Ready()
}

// reviewers are what the access reviews are answered with:
// Options.Authorizer, or the RBAC authorizer; see Options.Authorizer.
func (s *Server) reviewers() (authorizer.UnconditionalAuthorizer, authorizer.RuleResolver) {
	if s.opts.Authorizer == nil {
		return s.rbac, s.rbac
	}
	if rules, ok := s.opts.Authorizer.(authorizer.RuleResolver); ok {
		return s.opts.Authorizer, rules
	}
	return s.opts.Authorizer, s.rbac
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
