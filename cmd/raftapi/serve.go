package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/raftapi/raftapi/cluster"
)

// serve runs one node until SIGINT or SIGTERM.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var cfg cluster.Config
	var initial, logLevel string
	fs.StringVar(&cfg.Name, "name", cluster.DefaultName, "this node's unique name in the cluster")
	fs.StringVar(&cfg.DataDir, "data-dir", cluster.DefaultDataDir, "directory holding the node's state")
	fs.StringVar(&cfg.Listen, "listen", cluster.DefaultListen, "HTTP API address")
	fs.StringVar(&cfg.PeerListen, "peer-listen", cluster.DefaultPeerListen, "node-to-node address (raft, forwarding, read index)")
	fs.StringVar(&cfg.PeerAdvertise, "peer-advertise", "", "peer address other nodes dial (default: the bound --peer-listen)")
	fs.StringVar(&initial, "initial-cluster", "", "static cluster on first start: name=host:port,... (peer addresses); empty: single node")
	fs.DurationVar(&cfg.HistoryRetention, "history-retention", 5*time.Minute, "how long past resourceVersions stay readable and watchable")
	fs.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if cfg.InitialCluster, err = cluster.ParseInitialCluster(initial); err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	return runNode(cfg)
}

func runNode(cfg cluster.Config) error {
	node, err := cluster.Start(cfg)
	if err != nil {
		return err
	}
	fmt.Printf("raftapi node %q serving the Kubernetes API on http://%s (data in %s)\n", cfg.Name, node.APIAddr(), dataDir(cfg))
	fmt.Printf("point kubectl at it:  kubectl --server http://%s get configmaps -A\n", node.APIAddr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case s := <-sig:
		cfg.Logger.Info("stopping", "signal", s.String())
	case err := <-node.Done():
		cfg.Logger.Error("HTTP server stopped", "err", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return node.Stop(ctx)
}

func dataDir(cfg cluster.Config) string {
	if cfg.DataDir == "" {
		return cluster.DefaultDataDir
	}
	return cfg.DataDir
}
