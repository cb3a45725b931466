package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/api/audit"
	"github.com/raftapi/raftapi/api/encryption"
	"github.com/raftapi/raftapi/raftstore"
)

// Node is one running raftapi node.
type Node struct {
	cfg     Config
	store   *raftstore.Store
	metrics *metrics
	gossip  *gossip // nil for a static cluster
	// gossipReady holds gossip once started, for the peer port's
	// goroutines, which start before it.
	gossipReady atomic.Pointer[gossip]
	// apiAddr is the API address other nodes and clients are told (see
	// advertisedAPI), for the peer port's goroutines, which start before
	// the API listens.
	apiAddr atomic.Pointer[string]
	http    *http.Server
	ln      net.Listener
	api     *apiSecurity
	// kubeconfig is the admin kubeconfig written at start ("" when the
	// serving certificate is not the node's own or the API is plain HTTP).
	kubeconfig string
	encryption *encryption.Config
	health     *health
	// sa issues and verifies service-account tokens.
	sa *serviceAccounts
	// authz decides what each request's user may do.
	authz *unionAuthorizer
	// audit records the requests served (--audit-policy-file).
	audit   *audit.Auditor
	done    chan error
	stop    chan struct{}
	wg      sync.WaitGroup
	leaving atomic.Bool // set by Leave: stop announcing and reconciling

	// requests is the base context of every request: Stop cancels it
	// once requests in flight have had half of its time to finish.
	requests       context.Context
	cancelRequests context.CancelFunc

	stopOnce sync.Once
	stopErr  error
}

// Start opens the node's store, serves its HTTP API and, when gossip is
// configured, joins the gossip pool and starts membership management. It
// returns once everything listens; the node may still be electing a leader
// or waiting to be added to a cluster.
func Start(c Config) (*Node, error) {
	cfg := c.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	sec, err := setUpSecurity(&cfg)
	if err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, api: sec.api, sa: sec.sa, done: make(chan error, 1), stop: make(chan struct{})}
	n.requests, n.cancelRequests = context.WithCancel(context.Background())
	if cfg.EncryptionProviderConfig != "" {
		if n.encryption, err = encryption.LoadFile(cfg.EncryptionProviderConfig); err != nil {
			return nil, fmt.Errorf("cluster: --encryption-provider-config: %w", err)
		}
	}
	store, err := openStore(cfg, sec.peer, n.gossipVouches, n.info)
	if err != nil {
		return nil, err
	}
	if err := checkIdentity(cfg, store); err != nil {
		store.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("cluster: listen on API address: %w", err)
	}
	n.store, n.ln, n.metrics = store, ln, newMetrics(store)
	addr := advertisedAPI(ln.Addr().String(), store.PeerAddr())
	n.apiAddr.Store(&addr)
	if n.kubeconfig, err = sec.api.writeKubeconfig(cfg.DataDir, ln.Addr().String()); err != nil {
		ln.Close()
		store.Close()
		return nil, err
	}
	if n.audit, err = newAuditor(cfg); err != nil {
		ln.Close()
		store.Close()
		return nil, err
	}
	// Requests other than watches get a deadline (withRequestTimeout)
	// around the serving chain, which recovers its panics.
	n.http = &http.Server{Handler: parseOnce(withRequestTimeout(cfg.RequestTimeout, n.routes())), ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 90 * time.Second,
		// The server's own errors are mostly failed TLS handshakes of
		// probes and scanners: debug, in the node's log format.
		ErrorLog:    slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug),
		BaseContext: func(net.Listener) context.Context { return n.requests }}
	serveLn := ln
	if sec.api.tls != nil {
		serveLn = tls.NewListener(ln, sec.api.tls)
	}
	go func() { n.exit(n.http.Serve(serveLn)) }()
	if cfg.gossipEnabled() {
		if err := n.startGossip(); err != nil {
			n.Stop(context.Background())
			return nil, err
		}
	} else {
		n.wg.Add(1)
		go n.keepAddressCurrent()
	}
	return n, nil
}

// checkIdentity refuses a static node whose data directory holds a
// cluster it is not a member of (a directory restored or copied under
// another name): nothing would ever add it, and it would wait forever. A
// gossip node may be added back by the leader, so it is not refused.
func checkIdentity(cfg Config, store *raftstore.Store) error {
	if cfg.gossipEnabled() || !store.HasState() {
		return nil
	}
	members, err := store.Members()
	if err != nil || len(members) == 0 {
		return err
	}
	names := make([]string, len(members))
	for i, m := range members {
		if m.Name == cfg.Name {
			return nil
		}
		names[i] = m.Name
	}
	return fmt.Errorf("cluster: the data directory %s holds a cluster whose members are %s, not %q: start with --name set to one of them, "+
		"or prepare the directory again with raftapi snapshot restore --name %s", cfg.DataDir, strings.Join(names, ", "), cfg.Name, cfg.Name)
}

func openStore(cfg Config, peer *peerSecurity, vouched func(string) bool, info func() []byte) (*raftstore.Store, error) {
	rc := raftstore.Config{
		Name:             cfg.Name,
		DataDir:          cfg.DataDir,
		PeerListen:       cfg.PeerListen,
		PeerAdvertise:    cfg.PeerAdvertise,
		InitialCluster:   cfg.InitialCluster,
		DeferBootstrap:   cfg.JoinExisting || (cfg.gossipEnabled() && len(cfg.InitialCluster) == 0),
		HistoryRetention: cfg.HistoryRetention,
		MaxReplayEntries: cfg.SnapshotCount,
		Logger:           cfg.Logger,
	}
	ln, err := net.Listen("tcp", cfg.PeerListen)
	if err != nil {
		return nil, fmt.Errorf("cluster: listen on peer address: %w", err)
	}
	rc.PeerListener = tls.NewListener(ln, peer.tls)
	rc.PeerDialer = peer.dialer()
	rc.PeerIdentity = peer.identity
	rc.NodeInfo = info
	if cfg.gossipEnabled() {
		rc.PeerVouched = vouched
	}
	return raftstore.Open(rc)
}

func (n *Node) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(StatusPath, statusHandler(n.store))
	mux.Handle(SnapshotPath, snapshotHandler(n.store))
	mux.Handle(LeavePath, n.leaveHandler())
	mux.Handle(MembersPath, n.memberAdminHandler())
	mux.Handle(MembersPath+"/", n.memberAdminHandler())
	mux.Handle("/metrics", n.metrics.handler())
	if n.cfg.Profiling {
		mountProfiling(mux)
	}
	health := newHealth(n.store)
	n.health = health
	n.authz = &unionAuthorizer{modes: n.cfg.AuthorizationModes}
	stopping := n.stopContext()
	apiServer := api.NewServer(n.store, api.Options{
		Authorizer:    n.authz,
		BootstrapRBAC: n.authz.uses(ModeRBAC),
		Health:        health,
		Members:       n,
		Encryption:    n.encryption,
		Logger:        n.cfg.Logger,

		ServiceAccounts: n.sa.apiOptions(n),

		WatchWriteTimeout: n.cfg.WatchWriteTimeout,
		// A stopping node ends its watches (their clients resume on
		// another node) instead of waiting out the shutdown timeout.
		Stopping: stopping,
	})
	health.namespaces = apiServer.SystemNamespacesReady
	n.sa.auth = apiServer.ServiceAccountAuthenticator()
	n.sa.mountDiscovery(mux, n)
	n.authz.rbac = apiServer.RBAC()
	health.rbac = n.rbacReady(apiServer)
	n.runControllers(stopping, apiServer)
	apiHandler := n.metrics.instrument(apiServer)
	mux.Handle("/", apiHandler)
	limit := newInflight(n.cfg.MaxRequestsInflight, n.cfg.MaxMutatingRequestsInflight)
	authed := n.withAuth(limit.limit(mux))
	// ServeMux would redirect a path with "..", "//" or "%2F" to its
	// cleaned form with an HTML page; the API answers it with a Status.
	return withRecover(n.cfg.Logger, n.audit.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if api.IsUncleanPath(r) {
			n.withAuth(limit.limit(apiHandler)).ServeHTTP(w, r)
			return
		}
		authed.ServeHTTP(w, r)
	})))
}

// runControllers runs the API's controllers until the node stops.
func (n *Node) runControllers(ctx context.Context, s *api.Server) {
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		s.Run(ctx)
	}()
}

// stopContext returns a context that ends when the node begins to stop.
func (n *Node) stopContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		<-n.stop
		cancel()
	}()
	return ctx
}

// Kubeconfig is the path of the admin kubeconfig the node wrote at start,
// or "" when it wrote none (plain HTTP, or a serving certificate from a
// file).
func (n *Node) Kubeconfig() string { return n.kubeconfig }

// TLS reports whether the API speaks TLS.
func (n *Node) TLS() bool { return n.api.tls != nil }

// advertisedAPI is the API address to tell others: the bound one, or for
// a wildcard listener (0.0.0.0) the host of the peer address the node
// advertises, which other nodes can reach, with the API port.
func advertisedAPI(bound, peer string) string {
	if !wildcard(bound) {
		return bound
	}
	_, port, err1 := net.SplitHostPort(bound)
	host, _, err2 := net.SplitHostPort(peer)
	if err1 != nil || err2 != nil {
		return bound
	}
	return net.JoinHostPort(host, port)
}

// advertisedAPIAddr is the API address other nodes are told.
func (n *Node) advertisedAPIAddr() string { return *n.apiAddr.Load() }

// APIAddr is the address the HTTP API listens on.
func (n *Node) APIAddr() string { return n.ln.Addr().String() }

// Store is the node's replicated store.
func (n *Node) Store() *raftstore.Store { return n.store }

// Done receives one value when the node ends on its own: the HTTP server's
// error, or nil after a leave requested over the API.
func (n *Node) Done() <-chan error { return n.done }

func (n *Node) exit(err error) {
	select {
	case n.done <- err:
	default:
	}
}

// shutdownHTTP stops accepting requests and lets those in flight finish
// for half of the time ctx leaves. Then it cancels their contexts: a
// request still waiting on the store (say a Most Recent read on a node
// just removed from the cluster, whose state will never reach the index
// it waits for) answers at once instead of at its own deadline. A node
// that has left the cluster gives no grace: its state no longer advances,
// so a request still in flight may wait for what will never come. Whatever
// is left when ctx ends is closed.
func (n *Node) shutdownHTTP(ctx context.Context) error {
	if n.leaving.Load() {
		n.cancelRequests()
	}
	grace := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		grace, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
		defer cancel()
	}
	err := n.http.Shutdown(grace)
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		n.cancelRequests()
		if errors.Is(err, context.DeadlineExceeded) {
			return n.http.Close()
		}
		return err
	}
	n.cancelRequests()
	if err = n.http.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
		return n.http.Close()
	}
	return err
}

// Stop stops serving, waiting up to the context's deadline for requests in
// flight, then leaves gossip silently and closes the store. It does not
// leave the cluster: see Leave.
func (n *Node) Stop(ctx context.Context) error {
	n.stopOnce.Do(func() {
		phases := newStopPhases(n.cfg.Logger)
		close(n.stop)
		phases.run("the node's loops and controllers", func() error { n.wg.Wait(); return nil })
		herr := phases.run("requests in flight", func() error { return n.shutdownHTTP(ctx) })
		var gerr error
		if n.gossip != nil {
			gerr = phases.run("gossip", n.gossip.shutdown)
		}
		serr := phases.run("the store", n.store.Close)
		n.stopErr = errors.Join(herr, gerr, serr, n.audit.Close())
	})
	return n.stopErr
}
