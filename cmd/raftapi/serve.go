package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/raftapi/raftapi/cluster"
)

// serveFlags are serve's flags that need parsing before they fill a
// cluster.Config.
type serveFlags struct {
	initial, initialState, logLevel, logFormat, join, gossipKey, sans, tokenFile, configFile string
	anonymousAuth                                                                            bool
}

// newServeCmd builds "raftapi serve".
func newServeCmd() *cobra.Command {
	var cfg cluster.Config
	var sf serveFlags
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Run a node",
		Long: `Run a node: serve the Kubernetes API over HTTPS and replicate its state
with the other nodes. With no flags, a single node keeping its data in
./raftapi-data and serving https://127.0.0.1:8080; it writes an admin
kubeconfig into the data directory and prints how to use it.

A static cluster lists its members with --initial-cluster (read on a
node's first start only); a gossip cluster finds them with --gossip-listen,
--join and --bootstrap-expect. Every node of a cluster needs the same
--token. A member added to a running static cluster (raftapi members add)
starts with --initial-cluster-state existing.

Flags may also come from the environment (RAFTAPI_<FLAG>, e.g.
RAFTAPI_TOKEN_FILE) and from --config-file, a YAML mapping of flag names
to values; the command line wins over the environment, which wins over
the file.

Under systemd (Type=notify) the node reports READY=1 once it answers
/readyz. SIGTERM or SIGINT stops it; a gossip node leaves the cluster
first.`,
		Example: `  # A single node with its data in ./raftapi-data
  raftapi serve

  # The first of three static nodes
  raftapi serve --name n1 --data-dir d1 --listen 127.0.0.1:8081 --peer-listen 127.0.0.1:7081 \
    --token "$TOKEN" --initial-cluster n1=127.0.0.1:7081,n2=127.0.0.1:7082,n3=127.0.0.1:7083

  # A node of a gossip cluster of three
  raftapi serve --name n1 --gossip-listen 10.0.0.1:7946 --join 10.0.0.2:7946,10.0.0.3:7946 \
    --bootstrap-expect 3 --token-file /etc/raftapi/token

  # Settings from a file, the token from the environment
  RAFTAPI_TOKEN_FILE=/etc/raftapi/token raftapi serve --config-file /etc/raftapi/serve.yaml`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := sf.apply(&cfg); err != nil {
				return err
			}
			return runNode(cfg)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&cfg.Name, "name", cluster.DefaultName, "this node's unique name in the cluster")
	fs.StringVar(&cfg.DataDir, "data-dir", cluster.DefaultDataDir, "directory holding the node's state")
	fs.StringVar(&cfg.Listen, "listen", cluster.DefaultListen, "HTTP API address")
	fs.StringVar(&cfg.PeerListen, "peer-listen", cluster.DefaultPeerListen, "node-to-node address (raft, forwarding, read index)")
	fs.StringVar(&cfg.PeerAdvertise, "peer-advertise", "", "peer address other nodes dial (default: the bound --peer-listen)")
	fs.StringVar(&sf.initial, "initial-cluster", "", "static cluster on first start: name=host:port,... (peer addresses); empty: single node")
	fs.StringVar(&sf.initialState, "initial-cluster-state", "new", "new: form the --initial-cluster; existing: join a running cluster that already lists this node (raftapi members add)")
	fs.DurationVar(&cfg.HistoryRetention, "history-retention", 5*time.Minute, "how long past resourceVersions stay readable and watchable")
	fs.Uint64Var(&cfg.SnapshotCount, "snapshot-count", cluster.DefaultSnapshotCount, "applied log entries that may follow the newest snapshot before the node takes one; a start replays them (about 3.6s per 200,000 entries of 1 KiB)")
	fs.StringVar(&sf.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&sf.logFormat, "log-format", "text", "log format: text (logfmt) or json, one line per event")
	fs.StringVar(&cfg.GossipListen, "gossip-listen", "", "gossip address (host:port); enables discovery and dynamic membership")
	fs.StringVar(&cfg.GossipAdvertise, "gossip-advertise", "", "gossip address others use (default: the bound --gossip-listen)")
	fs.StringVar(&sf.join, "join", "", "gossip addresses of running nodes: host:port[,host:port...]")
	fs.IntVar(&cfg.BootstrapExpect, "bootstrap-expect", 0, "form a new cluster once this many nodes see each other (0: only join)")
	fs.StringVar(&sf.gossipKey, "gossip-key", "", "base64 key (16, 24 or 32 bytes) encrypting gossip (default: a key derived from the token)")
	fs.DurationVar(&cfg.DeadNodeTimeout, "dead-node-timeout", 30*time.Second, "how long a dead member stays before the leader removes it (quorum and configured size permitting)")
	fs.StringVar(&cfg.Token, "token", "", "the cluster's join token (K10<ca-hash>::server:<secret>, or any secret string): the same on every node; default the one in --data-dir, or a new one for a new single-node cluster")
	fs.StringVar(&sf.tokenFile, "token-file", "", "file holding the join token, instead of --token (which other users can see in the process list)")
	fs.StringVar(&cfg.TLSCertFile, "tls-cert-file", "", "API serving certificate (default: one the node issues from the cluster CA)")
	fs.StringVar(&cfg.TLSKeyFile, "tls-private-key-file", "", "key of --tls-cert-file")
	fs.StringVar(&cfg.ClientCAFile, "client-ca-file", "", "CA bundle whose client certificates the API accepts besides the cluster CA's (common name: user, organizations: groups)")
	fs.StringVar(&cfg.TokenAuthFile, "token-auth-file", "", "CSV file of bearer tokens for the API, as kube-apiserver's: token,user,uid,\"group1,group2\"")
	fs.BoolVar(&sf.anonymousAuth, "anonymous-auth", true, "serve requests without credentials as system:anonymous (group system:unauthenticated); false answers them 401")
	fs.StringSliceVar(&cfg.ServiceAccountIssuers, "service-account-issuer", []string{cluster.DefaultServiceAccountIssuer}, "issuer (\"iss\" claim) of service-account tokens; repeat to also accept tokens of former issuers (the first one signs)")
	fs.StringVar(&cfg.ServiceAccountSigningKeyFile, "service-account-signing-key-file", "", "PEM private key (EC or RSA) that signs service-account tokens (default: the key the cluster token derives, the same on every node)")
	fs.StringSliceVar(&cfg.ServiceAccountKeyFiles, "service-account-key-file", nil, "PEM file of public or private keys (EC or RSA) that also verify service-account tokens; repeatable")
	fs.StringSliceVar(&cfg.APIAudiences, "api-audiences", nil, "audiences of the API: a service-account token used against it must name one of them (default: the service-account issuers)")
	fs.DurationVar(&cfg.ServiceAccountMaxTokenExpiration, "service-account-max-token-expiration", 0, "longest lifetime of a token TokenRequest issues (1h to 2^32s); longer requests are shortened to it (0: no limit)")
	fs.StringVar(&cfg.ServiceAccountJWKSURI, "service-account-jwks-uri", "", "jwks_uri of /.well-known/openid-configuration (an https URL; default: https://<this node's API address>/openid/v1/jwks, as kube-apiserver)")
	for _, f := range []string{"service-account-signing-key-file", "service-account-key-file"} {
		_ = cmd.MarkFlagFilename(f)
	}
	fs.StringSliceVar(&cfg.AuthorizationModes, "authorization-mode", []string{cluster.ModeRBAC}, "ordered list of authorizers: RBAC, AlwaysAllow (development only: every authenticated or anonymous request may do anything), AlwaysDeny; system:masters may always do everything")
	fs.IntVar(&cfg.MaxRequestsInflight, "max-requests-inflight", cluster.DefaultMaxRequestsInflight, "read-only requests served at once; more get 429 TooManyRequests (watches and system:masters exempt; 0: no limit)")
	fs.IntVar(&cfg.MaxMutatingRequestsInflight, "max-mutating-requests-inflight", cluster.DefaultMaxMutatingRequestsInflight, "mutating requests served at once; more get 429 TooManyRequests (system:masters exempt; 0: no limit)")
	fs.BoolVar(&cfg.Profiling, "profiling", true, "enable profiling via web interface host:port/debug/pprof/ (authorized like any request: cluster-admin by default)")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", cluster.DefaultRequestTimeout, "how long a request other than a watch may take, body included, before it is answered 504 Timeout; a request's ?timeout= may ask for less")
	fs.StringVar(&sf.sans, "tls-san", "", "extra DNS names or IPs for the serving certificate the node issues: name[,name...]")
	fs.BoolVar(&cfg.InsecureHTTP, "insecure-http", false, "serve the API over plain HTTP with NO authentication: anyone who reaches it can do anything (loopback addresses only)")
	fs.BoolVar(&cfg.InsecureHTTPAnyAddress, "insecure-http-allow-any-address", false, "allow --insecure-http on a non-loopback address")
	fs.StringVar(&cfg.EncryptionProviderConfig, "encryption-provider-config", "", "kube-apiserver EncryptionConfiguration file: the resources it lists are encrypted at rest (aesgcm, aescbc, secretbox, identity)")
	cfg.Audit.AddFlags(fs)
	fs.StringVar(&cfg.PeerCertFile, "peer-cert", "", "certificate for mutual TLS on the peer address, instead of one derived from the token (its common name must be --name)")
	fs.StringVar(&cfg.PeerKeyFile, "peer-key", "", "key for --peer-cert")
	fs.StringVar(&cfg.PeerCAFile, "peer-ca", "", "CA that signs every peer certificate")
	fs.StringVar(&sf.configFile, configFileFlag, "", "YAML file of flag settings (flag-name: value); the command line and RAFTAPI_* win over it")
	completeValues(cmd, "log-level", "debug", "info", "warn", "error")
	completeValues(cmd, "log-format", "text", "json")
	completeValues(cmd, "initial-cluster-state", "new", "existing")
	completeValues(cmd, "authorization-mode", cluster.ModeRBAC, cluster.ModeAlwaysAllow, cluster.ModeAlwaysDeny)
	_ = cmd.MarkFlagDirname("data-dir")
	for _, f := range []string{"token-file", "token-auth-file", "tls-cert-file", "tls-private-key-file", "client-ca-file", "encryption-provider-config", "audit-policy-file", "audit-log-path", "peer-cert", "peer-key", "peer-ca", configFileFlag} {
		_ = cmd.MarkFlagFilename(f)
	}
	return cmd
}

// apply parses the flags that need it into cfg.
func (sf *serveFlags) apply(cfg *cluster.Config) error {
	var err error
	cfg.NoAnonymousAuth = !sf.anonymousAuth
	switch sf.initialState {
	case "new":
	case "existing":
		cfg.JoinExisting = true
	default:
		return usagef("--initial-cluster-state: %q is neither new nor existing", sf.initialState)
	}
	if cfg.InitialCluster, err = cluster.ParseInitialCluster(sf.initial); err != nil {
		return &usageError{err: err}
	}
	if sf.join != "" {
		cfg.Join = strings.Split(sf.join, ",")
	}
	if sf.tokenFile != "" {
		if cfg.Token != "" {
			return usagef("give --token or --token-file, not both")
		}
		b, err := os.ReadFile(sf.tokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		cfg.Token = strings.TrimSpace(string(b))
	}
	if sf.sans != "" {
		cfg.TLSSANs = strings.Split(sf.sans, ",")
	}
	if sf.gossipKey != "" {
		if cfg.GossipKey, err = base64.StdEncoding.DecodeString(sf.gossipKey); err != nil {
			return usagef("--gossip-key: %w", err)
		}
	}
	if (len(cfg.Join) > 0 || cfg.BootstrapExpect > 0) && cfg.GossipListen == "" {
		return usagef("--join and --bootstrap-expect need --gossip-listen")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(sf.logLevel)); err != nil {
		return usagef("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch sf.logFormat {
	case "text":
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, opts))
	case "json":
		cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, opts))
	default:
		return usagef("--log-format: %q is neither text nor json", sf.logFormat)
	}
	return nil
}

func runNode(cfg cluster.Config) error {
	tuneGC()
	node, err := cluster.Start(cfg)
	if err != nil {
		return err
	}
	announce(node, cfg)
	ready := make(chan struct{})
	defer close(ready)
	go notifyWhenReady(node, cfg.Logger, ready)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case s := <-sig:
		cfg.Logger.Info("stopping", "signal", s.String())
		notify(cfg.Logger, sdStopping)
		leave(node, cfg)
	case err := <-node.Done():
		if err != nil {
			cfg.Logger.Error("HTTP server stopped", "err", err)
		} else {
			cfg.Logger.Info("stopping", "why", "left the cluster")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return node.Stop(ctx)
}

// notifyWhenReady tells systemd (Type=notify) that the node is ready once
// it passes /readyz's checks, unless done closes first.
func notifyWhenReady(node *cluster.Node, log *slog.Logger, done <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-done
		cancel()
	}()
	if err := node.WaitReady(ctx); err != nil {
		return
	}
	log.Info("ready", "api", node.APIAddr())
	notify(log, sdReady+"\n"+sdStatus("serving the Kubernetes API on "+node.APIAddr()))
}

// notify sends state to systemd when the node runs under it; a failure is
// logged, never fatal.
func notify(log *slog.Logger, state string) {
	if _, err := sdNotify(state); err != nil {
		log.Warn("systemd notification", "err", err)
	}
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
