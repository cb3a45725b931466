package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/raftstore"
)

// Node is one running raftapi node.
type Node struct {
	cfg     Config
	store   *raftstore.Store
	metrics *metrics
	http  *http.Server
	ln    net.Listener
	done  chan error
}

// Start opens the node's store and serves its HTTP API. It returns once
// both listen; the node may still be electing a leader.
func Start(c Config) (*Node, error) {
	cfg := c.withDefaults()
	store, err := raftstore.Open(raftstore.Config{
		Name:             cfg.Name,
		DataDir:          cfg.DataDir,
		PeerListen:       cfg.PeerListen,
		PeerAdvertise:    cfg.PeerAdvertise,
		InitialCluster:   cfg.InitialCluster,
		HistoryRetention: cfg.HistoryRetention,
		Logger:           cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("cluster: listen on API address: %w", err)
	}
	n := &Node{cfg: cfg, store: store, ln: ln, done: make(chan error, 1), metrics: newMetrics(store)}
	mux := http.NewServeMux()
	mux.Handle(StatusPath, statusHandler(store))
	mux.Handle(SnapshotPath, snapshotHandler(store))
	mux.Handle("/metrics", n.metrics.handler())
	mux.Handle("/", n.metrics.instrument(api.NewServer(store, api.Options{Health: newHealth(store)})))
	n.http = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 30 * time.Second,
	}
	go func() { n.done <- n.http.Serve(ln) }()
	return n, nil
}

// APIAddr is the address the HTTP API listens on.
func (n *Node) APIAddr() string { return n.ln.Addr().String() }

// Store is the node's replicated store.
func (n *Node) Store() *raftstore.Store { return n.store }

// Done receives the HTTP server's exit error.
func (n *Node) Done() <-chan error { return n.done }

// Stop stops serving, waiting up to the context's deadline for requests in
// flight, then closes the store.
func (n *Node) Stop(ctx context.Context) error {
	herr := n.http.Shutdown(ctx)
	if errors.Is(herr, context.DeadlineExceeded) {
		herr = n.http.Close()
	}
	return errors.Join(herr, n.store.Close())
}
