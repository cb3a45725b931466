package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/raftstore"
)

// Node is one running raftapi node.
type Node struct {
	cfg     Config
	store   *raftstore.Store
	metrics *metrics
	gossip  *gossip // nil for a static cluster
	http    *http.Server
	ln      net.Listener
	done    chan error
	stop    chan struct{}
	wg      sync.WaitGroup
	leaving atomic.Bool // set by Leave: stop announcing and reconciling

	stopOnce sync.Once
	stopErr  error
}

// Start opens the node's store, serves its HTTP API and, when gossip is
// configured, joins the gossip pool and starts membership management. It
// returns once everything listens; the node may still be electing a leader
// or waiting to be added to a cluster.
func Start(c Config) (*Node, error) {
	cfg := c.withDefaults()
	store, err := openStore(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("cluster: listen on API address: %w", err)
	}
	n := &Node{cfg: cfg, store: store, ln: ln, done: make(chan error, 1), stop: make(chan struct{}), metrics: newMetrics(store)}
	n.http = &http.Server{Handler: n.routes(), ReadHeaderTimeout: 30 * time.Second}
	go func() { n.exit(n.http.Serve(ln)) }()
	if cfg.gossipEnabled() {
		if err := n.startGossip(); err != nil {
			n.Stop(context.Background())
			return nil, err
		}
	}
	return n, nil
}

func openStore(cfg Config) (*raftstore.Store, error) {
	rc := raftstore.Config{
		Name:             cfg.Name,
		DataDir:          cfg.DataDir,
		PeerListen:       cfg.PeerListen,
		PeerAdvertise:    cfg.PeerAdvertise,
		InitialCluster:   cfg.InitialCluster,
		DeferBootstrap:   cfg.gossipEnabled() && len(cfg.InitialCluster) == 0,
		HistoryRetention: cfg.HistoryRetention,
		Logger:           cfg.Logger,
	}
	tlsCfg, err := cfg.peerTLS()
	if err != nil {
		return nil, err
	}
	if tlsCfg != nil {
		ln, err := net.Listen("tcp", cfg.PeerListen)
		if err != nil {
			return nil, fmt.Errorf("cluster: listen on peer address: %w", err)
		}
		rc.PeerListener = tlsListener(ln, tlsCfg)
		rc.PeerDialer = tlsDialer(tlsCfg)
	}
	return raftstore.Open(rc)
}

func (n *Node) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(StatusPath, statusHandler(n.store))
	mux.Handle(SnapshotPath, snapshotHandler(n.store))
	mux.Handle(LeavePath, n.leaveHandler())
	mux.Handle("/metrics", n.metrics.handler())
	health := newHealth(n.store)
	apiServer := api.NewServer(n.store, api.Options{
		Health:  health,
		Members: n,
	})
	health.namespaces = apiServer.SystemNamespacesReady
	n.runControllers(apiServer)
	apiHandler := n.metrics.instrument(apiServer)
	mux.Handle("/", apiHandler)
	// ServeMux would redirect a path with "..", "//" or "%2F" to its
	// cleaned form with an HTML page; the API answers it with a Status.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if api.IsUncleanPath(r) {
			apiHandler.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// runControllers runs the API's controllers until the node stops.
func (n *Node) runControllers(s *api.Server) {
	ctx, cancel := context.WithCancel(context.Background())
	n.wg.Add(2)
	go func() {
		defer n.wg.Done()
		s.Run(ctx)
	}()
	go func() {
		defer n.wg.Done()
		<-n.stop
		cancel()
	}()
}

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

// Stop stops serving, waiting up to the context's deadline for requests in
// flight, then leaves gossip silently and closes the store. It does not
// leave the cluster: see Leave.
func (n *Node) Stop(ctx context.Context) error {
	n.stopOnce.Do(func() {
		close(n.stop)
		n.wg.Wait()
		herr := n.http.Shutdown(ctx)
		if errors.Is(herr, context.DeadlineExceeded) {
			herr = n.http.Close()
		}
		var gerr error
		if n.gossip != nil {
			gerr = n.gossip.shutdown()
		}
		n.stopErr = errors.Join(herr, gerr, n.store.Close())
	})
	return n.stopErr
}
