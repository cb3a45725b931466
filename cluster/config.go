package cluster

import (
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/raftapi/raftapi/api/audit"
	"github.com/raftapi/raftapi/raftstore"
)

// Config configures one node.
type Config struct {
	// Name is the node's unique name in the cluster. Default "raftapi".
	Name string
	// DataDir holds all of the node's state. Default "./raftapi-data".
	DataDir string
	// Listen is the HTTP API address. Default "127.0.0.1:8080".
	Listen string
	// PeerListen is the node-to-node address. Default "127.0.0.1:7080".
	PeerListen string
	// PeerAdvertise is the peer address others dial; default the bound one.
	PeerAdvertise string
	// InitialCluster maps names to peer addresses for a static cluster's
	// first start; empty starts a single-node cluster.
	InitialCluster map[string]string
	// JoinExisting starts a new static member of a running cluster
	// (--initial-cluster-state existing, after raftapi members add): the
	// node forms no cluster of its own and waits for the leader to bring
	// it up to date.
	JoinExisting bool
	// HistoryRetention is how long past revisions stay readable. Default
	// five minutes.
	HistoryRetention time.Duration
	// SnapshotCount is how many applied entries may follow the node's
	// newest snapshot before it takes one (--snapshot-count): a start
	// replays them. Zero means DefaultSnapshotCount.
	SnapshotCount uint64

	// GossipListen enables gossip discovery and membership on this
	// host:port (memberlist, TCP and UDP).
	GossipListen string
	// GossipAdvertise is the gossip address others use; default the bound
	// one.
	GossipAdvertise string
	// Join lists gossip addresses of running nodes to contact.
	Join []string
	// BootstrapExpect is the number of nodes that must see each other
	// before a new cluster is formed with all of them as voters. Zero
	// means this node never forms a cluster: it waits to be added to one.
	BootstrapExpect int
	// GossipKey encrypts gossip (16, 24 or 32 bytes); nil sends it clear.
	GossipKey []byte
	// DeadNodeTimeout is how long a member may stay dead before the leader
	// removes it from the voters, which it does only while quorum is kept
	// and the cluster stays at least its configured size. Default 30s.
	DeadNodeTimeout time.Duration
	// ReconcileInterval is how often the leader reconciles raft membership
	// with gossip. Default one second.
	ReconcileInterval time.Duration

	// Token is the cluster's join token (see cluster/DESIGN.md): a full
	// token K10<ca-hash>::server:<secret> or a bare secret. Every node of a
	// cluster derives its CAs from the secret. Empty: the token stored in
	// the data directory, or, for a new single-node cluster, a new one.
	Token string

	// TLSCertFile and TLSKeyFile replace the serving certificate the node
	// issues itself from the cluster CA (kube-apiserver's
	// --tls-cert-file and --tls-private-key-file).
	TLSCertFile, TLSKeyFile string
	// ClientCAFile adds CAs whose client certificates the API accepts,
	// besides the cluster CA (kube-apiserver's --client-ca-file): the
	// common name is the user, the organizations its groups.
	ClientCAFile string
	// TokenAuthFile is kube-apiserver's --token-auth-file: a CSV file of
	// bearer tokens, each with its user name, uid and groups.
	TokenAuthFile string
	// ServiceAccountIssuers are kube-apiserver's --service-account-issuer:
	// the "iss" claims of service-account tokens accepted, the first the
	// one new tokens carry. Default DefaultServiceAccountIssuer.
	ServiceAccountIssuers []string
	// ServiceAccountSigningKeyFile (--service-account-signing-key-file)
	// is a PEM private key, EC or RSA, that signs service-account tokens
	// instead of the key the cluster token derives.
	ServiceAccountSigningKeyFile string
	// ServiceAccountKeyFiles (--service-account-key-file) hold PEM keys,
	// public or private, that also verify service-account tokens.
	ServiceAccountKeyFiles []string
	// APIAudiences (--api-audiences) are the audiences a token used
	// against the API must name one of. Default the issuers.
	APIAudiences []string
	// ServiceAccountMaxTokenExpiration
	// (--service-account-max-token-expiration) caps the lifetime of the
	// tokens TokenRequest issues; zero: no cap.
	ServiceAccountMaxTokenExpiration time.Duration
	// ServiceAccountJWKSURI (--service-account-jwks-uri) is the jwks_uri
	// of the discovery document; default https://<the advertised API address>/openid/v1/jwks.
	ServiceAccountJWKSURI string
	// NoAnonymousAuth refuses requests that carry no credential with 401
	// (kube-apiserver's --anonymous-auth=false) instead of serving them
	// as system:anonymous.
	NoAnonymousAuth bool
	// AuthorizationModes is kube-apiserver's --authorization-mode: the
	// authorizers asked in order (RBAC, AlwaysAllow, AlwaysDeny); empty
	// means RBAC. system:masters may always do everything.
	AuthorizationModes []string
	// MaxRequestsInflight and MaxMutatingRequestsInflight bound the
	// read-only and the mutating requests served at once (kube-apiserver's
	// --max-requests-inflight and --max-mutating-requests-inflight);
	// more get 429. Watches and system:masters are exempt. Zero: no limit.
	MaxRequestsInflight, MaxMutatingRequestsInflight int
	// RequestTimeout is kube-apiserver's --request-timeout: how long a
	// request other than a watch may take, body included, before it is
	// answered 504 Timeout (a request's ?timeout= may ask for less).
	// Zero means DefaultRequestTimeout; negative is refused.
	RequestTimeout time.Duration
	// WatchWriteTimeout bounds each watch event's write to its client: a
	// watcher that stops reading is dropped, connection and all, once a
	// write has waited that long. Zero means 30 seconds.
	WatchWriteTimeout time.Duration
	// Profiling serves Go's profiles under /debug/pprof/ on the API port
	// (kube-apiserver's --profiling), authenticated and authorized as
	// every request is: by default only cluster-admin may read them.
	Profiling bool
	// TLSSANs are extra names (DNS names or IPs) for the serving
	// certificate the node issues itself.
	TLSSANs []string
	// InsecureHTTP serves the API over plain HTTP, with every request
	// treated as the all-powerful user system:unsecured. Only on a
	// loopback address unless InsecureHTTPAnyAddress is also set.
	InsecureHTTP           bool
	InsecureHTTPAnyAddress bool

	// EncryptionProviderConfig is a kube-apiserver EncryptionConfiguration
	// file (--encryption-provider-config): the resources it names are
	// encrypted before they enter the raft log.
	EncryptionProviderConfig string

	// Audit is kube-apiserver's auditing (--audit-policy-file,
	// --audit-log-path, --audit-log-*): requests are recorded only with
	// both a policy file and a log path.
	Audit audit.Options

	// PeerCertFile, PeerKeyFile and PeerCAFile replace the peer
	// certificates derived from the token: every node presents its
	// certificate, whose common name must be its node name, and accepts
	// only peers whose certificate the CA signed.
	PeerCertFile, PeerKeyFile, PeerCAFile string
	// Logger receives the node's logs; nil discards them.
	Logger *slog.Logger
}

// Defaults used when a Config field is empty.
const (
	DefaultName       = "raftapi"
	DefaultDataDir    = "./raftapi-data"
	DefaultListen     = "127.0.0.1:8080"
	DefaultPeerListen = "127.0.0.1:7080"
	// DefaultSnapshotCount is what a zero SnapshotCount means.
	DefaultSnapshotCount = raftstore.DefaultMaxReplayEntries
)

func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if len(c.AuthorizationModes) == 0 {
		c.AuthorizationModes = []string{ModeRBAC}
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.PeerListen == "" {
		c.PeerListen = DefaultPeerListen
	}
	if c.DeadNodeTimeout <= 0 {
		c.DeadNodeTimeout = 30 * time.Second
	}
	if c.ReconcileInterval <= 0 {
		c.ReconcileInterval = time.Second
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// validate refuses settings no node could run with.
func (c Config) validate() error {
	if c.RequestTimeout < 0 {
		return fmt.Errorf("cluster: --request-timeout can not be negative value")
	}
	if err := validateModes(c.AuthorizationModes); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if err := validateAudit(c.Audit); err != nil {
		return err
	}
	if c.PeerAdvertise == "" && (c.multiNode() || c.gossipEnabled()) && wildcard(c.PeerListen) {
		return fmt.Errorf("cluster: --peer-listen %s is a wildcard address other nodes cannot dial: give --peer-advertise HOST:PORT", c.PeerListen)
	}
	return nil
}

// wildcard reports whether addr's host is unspecified (0.0.0.0, ::, or
// empty).
func wildcard(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "" || (ip != nil && ip.IsUnspecified())
}

// multiNode reports whether the node is configured to be one of several,
// which needs a shared token.
func (c Config) multiNode() bool {
	return len(c.InitialCluster) > 1 || len(c.Join) > 0 || c.BootstrapExpect > 1 || c.JoinExisting
}

// gossipEnabled reports whether the node finds its cluster by gossip.
func (c Config) gossipEnabled() bool { return c.GossipListen != "" }

// minVoters is the cluster's configured size: the leader never removes a
// dead voter below it on its own.
func (c Config) minVoters() int {
	switch {
	case c.BootstrapExpect > 0:
		return c.BootstrapExpect
	case len(c.InitialCluster) > 0:
		return len(c.InitialCluster)
	}
	return 1
}

// ParseInitialCluster parses "n1=host:port,n2=host:port".
func ParseInitialCluster(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, addr, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || name == "" || addr == "" {
			return nil, fmt.Errorf("cluster: initial cluster member %q is not name=host:port", part)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("cluster: initial cluster names %q twice", name)
		}
		out[name] = addr
	}
	return out, nil
}
