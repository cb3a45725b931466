package main

import (
	"context"
	"encoding/base64"
	"errors"
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
	var initial, logLevel, logFormat, join, gossipKey, sans, tokenFile string
	fs.StringVar(&cfg.Name, "name", cluster.DefaultName, "this node's unique name in the cluster")
	fs.StringVar(&cfg.DataDir, "data-dir", cluster.DefaultDataDir, "directory holding the node's state")
	fs.StringVar(&cfg.Listen, "listen", cluster.DefaultListen, "HTTP API address")
	fs.StringVar(&cfg.PeerListen, "peer-listen", cluster.DefaultPeerListen, "node-to-node address (raft, forwarding, read index)")
	fs.StringVar(&cfg.PeerAdvertise, "peer-advertise", "", "peer address other nodes dial (default: the bound --peer-listen)")
	fs.StringVar(&initial, "initial-cluster", "", "static cluster on first start: name=host:port,... (peer addresses); empty: single node")
	fs.DurationVar(&cfg.HistoryRetention, "history-retention", 5*time.Minute, "how long past resourceVersions stay readable and watchable")
	fs.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&logFormat, "log-format", "text", "log format: text (logfmt) or json, one line per event")
	fs.StringVar(&cfg.GossipListen, "gossip-listen", "", "gossip address (host:port); enables discovery and dynamic membership")
	fs.StringVar(&cfg.GossipAdvertise, "gossip-advertise", "", "gossip address others use (default: the bound --gossip-listen)")
	fs.StringVar(&join, "join", "", "gossip addresses of running nodes: host:port[,host:port...]")
	fs.IntVar(&cfg.BootstrapExpect, "bootstrap-expect", 0, "form a new cluster once this many nodes see each other (0: only join)")
	fs.StringVar(&gossipKey, "gossip-key", "", "base64 key (16, 24 or 32 bytes) encrypting gossip (default: a key derived from the token)")
	fs.DurationVar(&cfg.DeadNodeTimeout, "dead-node-timeout", 30*time.Second, "how long a dead member stays before the leader removes it (quorum and configured size permitting)")
	fs.StringVar(&cfg.Token, "token", "", "the cluster's join token (K10<ca-hash>::server:<secret>, or any secret string): the same on every node; default the one in --data-dir, or a new one for a new single-node cluster")
	fs.StringVar(&tokenFile, "token-file", "", "file holding the join token, instead of --token (which other users can see in the process list)")
	fs.StringVar(&cfg.TLSCertFile, "tls-cert-file", "", "API serving certificate (default: one the node issues from the cluster CA)")
	fs.StringVar(&cfg.TLSKeyFile, "tls-private-key-file", "", "key of --tls-cert-file")
	fs.StringVar(&cfg.ClientCAFile, "client-ca-file", "", "CA bundle whose client certificates the API accepts besides the cluster CA's (common name: user, organizations: groups)")
	fs.StringVar(&sans, "tls-san", "", "extra DNS names or IPs for the serving certificate the node issues: name[,name...]")
	fs.BoolVar(&cfg.InsecureHTTP, "insecure-http", false, "serve the API over plain HTTP with NO authentication: anyone who reaches it can do anything (loopback addresses only)")
	fs.BoolVar(&cfg.InsecureHTTPAnyAddress, "insecure-http-allow-any-address", false, "allow --insecure-http on a non-loopback address")
	fs.StringVar(&cfg.EncryptionProviderConfig, "encryption-provider-config", "", "kube-apiserver EncryptionConfiguration file: the resources it lists are encrypted at rest (aesgcm, aescbc, secretbox, identity)")
	fs.StringVar(&cfg.PeerCertFile, "peer-cert", "", "certificate for mutual TLS on the peer address, instead of one derived from the token (its common name must be --name)")
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
	if tokenFile != "" {
		if cfg.Token != "" {
			return fmt.Errorf("give --token or --token-file, not both")
		}
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		cfg.Token = strings.TrimSpace(string(b))
	}
	if sans != "" {
		cfg.TLSSANs = strings.Split(sans, ",")
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
	opts := &slog.HandlerOptions{Level: level}
	switch logFormat {
	case "text":
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, opts))
	case "json":
		cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, opts))
	default:
		return fmt.Errorf("--log-format: %q is neither text nor json", logFormat)
	}
	return runNode(cfg)
}

func runNode(cfg cluster.Config) error {
	node, err := cluster.Start(cfg)
	if err != nil {
		return err
	}
	announce(node, cfg)
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

// announce prints where the node serves and how to reach it.
func announce(node *cluster.Node, cfg cluster.Config) {
	if !node.TLS() {
		cfg.Logger.Warn("serving the API over plain HTTP without authentication: anyone who can reach " + node.APIAddr() + " can read and change everything, secrets included")
		fmt.Printf("raftapi node %q serving the Kubernetes API on http://%s (plain HTTP, no authentication; data in %s)\n", cfg.Name, node.APIAddr(), dataDir(cfg))
		fmt.Printf("point kubectl at it:  kubectl --server http://%s get namespaces\n", node.APIAddr())
		return
	}
	fmt.Printf("raftapi node %q serving the Kubernetes API on https://%s (data in %s)\n", cfg.Name, node.APIAddr(), dataDir(cfg))
	if kc := node.Kubeconfig(); kc != "" {
		fmt.Printf("use it with:  kubectl --kubeconfig %s get namespaces\n", kc)
	}
	fmt.Printf("other nodes join with the token in %s (raftapi token --data-dir %s)\n", cluster.TokenPath(dataDir(cfg)), dataDir(cfg))
}

// leave leaves the cluster gracefully before stopping, when membership is
// dynamic (a static cluster keeps its configured members).
func leave(node *cluster.Node, cfg cluster.Config) {
	if cfg.GossipListen == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	switch err := node.Leave(ctx); {
	case errors.Is(err, cluster.ErrAllLeaving):
		cfg.Logger.Info("the whole cluster is stopping: leaving without removal")
	case err != nil:
		cfg.Logger.Warn("leave", "err", err)
	}
}

func dataDir(cfg cluster.Config) string {
	if cfg.DataDir == "" {
		return cluster.DefaultDataDir
	}
	return cfg.DataDir
}
