package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/raftapi/raftapi/cluster"
)

// serve runs one node until SIGINT or SIGTERM.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var cfg cluster.Config
	var initial, logLevel, join, gossipKey string
	fs.StringVar(&cfg.Name, "name", cluster.DefaultName, "this node's unique name in the cluster")
	fs.StringVar(&cfg.DataDir, "data-dir", cluster.DefaultDataDir, "directory holding the node's state")
	fs.StringVar(&cfg.Listen, "listen", cluster.DefaultListen, "HTTP API address")
	fs.StringVar(&cfg.PeerListen, "peer-listen", cluster.DefaultPeerListen, "node-to-node address (raft, forwarding, read index)")
	fs.StringVar(&cfg.PeerAdvertise, "peer-advertise", "", "peer address other nodes dial (default: the bound --peer-listen)")
	fs.StringVar(&initial, "initial-cluster", "", "static cluster on first start: name=host:port,... (peer addresses); empty: single node")
	fs.DurationVar(&cfg.HistoryRetention, "history-retention", 5*time.Minute, "how long past resourceVersions stay readable and watchable")
	fs.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&cfg.GossipListen, "gossip-listen", "", "gossip address (host:port); enables discovery and dynamic membership")
	fs.StringVar(&cfg.GossipAdvertise, "gossip-advertise", "", "gossip address others use (default: the bound --gossip-listen)")
	fs.StringVar(&join, "join", "", "gossip addresses of running nodes: host:port[,host:port...]")
	fs.IntVar(&cfg.BootstrapExpect, "bootstrap-expect", 0, "form a new cluster once this many nodes see each other (0: only join)")
	fs.StringVar(&gossipKey, "gossip-key", "", "base64 key (16, 24 or 32 bytes) encrypting gossip")
	fs.DurationVar(&cfg.DeadNodeTimeout, "dead-node-timeout", 30*time.Second, "how long a dead member stays before the leader removes it (quorum and configured size permitting)")
	fs.StringVar(&cfg.PeerCertFile, "peer-cert", "", "certificate for mutual TLS on the peer address")
	fs.StringVar(&cfg.PeerKeyFile, "peer-key", "", "key for --peer-cert")
	fs.StringVar(&cfg.PeerCAFile, "peer-ca", "", "CA that signs every peer certificate")
	if err := parseFlags(fs, "raftapi serve [flags]", args); err != nil {
		return err
	}
	var err error
	if cfg.InitialCluster, err = cluster.ParseInitialCluster(initial); err != nil {
		return err
	}
	if join != "" {
		cfg.Join = strings.Split(join, ",")
	}
	if gossipKey != "" {
		if cfg.GossipKey, err = base64.StdEncoding.DecodeString(gossipKey); err != nil {
			return fmt.Errorf("--gossip-key: %w", err)
		}
	}
	if (len(cfg.Join) > 0 || cfg.BootstrapExpect > 0) && cfg.GossipListen == "" {
		return fmt.Errorf("--join and --bootstrap-expect need --gossip-listen")
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
		leave(node, cfg)
	case err := <-node.Done():
		if err != nil {
			cfg.Logger.Error("HTTP server stopped", "err", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return node.Stop(ctx)
}

// leave leaves the cluster gracefully before stopping, when membership is
// dynamic (a static cluster keeps its configured members).
func leave(node *cluster.Node, cfg cluster.Config) {
	if cfg.GossipListen == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := node.Leave(ctx); err != nil {
		cfg.Logger.Warn("leave", "err", err)
	}
}

func dataDir(cfg cluster.Config) string {
	if cfg.DataDir == "" {
		return cluster.DefaultDataDir
	}
	return cfg.DataDir
}
