package cluster

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
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
	// HistoryRetention is how long past revisions stay readable. Default
	// five minutes.
	HistoryRetention time.Duration
	// Logger receives the node's logs; nil discards them.
	Logger *slog.Logger
}

// Defaults used when a Config field is empty.
const (
	DefaultName       = "raftapi"
	DefaultDataDir    = "./raftapi-data"
	DefaultListen     = "127.0.0.1:8080"
	DefaultPeerListen = "127.0.0.1:7080"
)

func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.PeerListen == "" {
		c.PeerListen = DefaultPeerListen
	}
	return c
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
