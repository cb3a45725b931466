package etcdnodes

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

// MemberConfig is one member's settings, as its command line carries
// them.
type MemberConfig struct {
	Name           string
	DataDir        string
	ClientAddr     string // host:port
	PeerAddr       string // host:port
	InitialCluster string // name=https://host:port,...
	TLS            TLSFiles
}

// memberReadyTimeout bounds the wait for the member to join its cluster.
const memberReadyTimeout = 2 * time.Minute

// RunMember runs one etcd member until ctx ends, then stops it. It is
// the body of the benchmark binary's etcd-member command. Everything but
// the addresses, TLS and the log level is etcd's default.
func RunMember(ctx context.Context, mc MemberConfig) error {
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = mc.Name, mc.DataDir
	cu := url.URL{Scheme: "https", Host: mc.ClientAddr}
	pu := url.URL{Scheme: "https", Host: mc.PeerAddr}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.InitialCluster, cfg.InitialClusterToken = mc.InitialCluster, "raftapi-bench"
	cfg.ClusterState = embed.ClusterStateFlagNew
	tls := transport.TLSInfo{CertFile: mc.TLS.Cert, KeyFile: mc.TLS.Key, TrustedCAFile: mc.TLS.CA, ClientCertAuth: true}
	cfg.ClientTLSInfo, cfg.PeerTLSInfo = tls, tls
	cfg.LogLevel, cfg.LogOutputs = "warn", []string{"stderr"}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("etcdnodes: start %s: %w", mc.Name, err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(memberReadyTimeout):
		return fmt.Errorf("etcdnodes: %s: not ready after %v", mc.Name, memberReadyTimeout)
	case <-ctx.Done():
		return nil
	}
	select {
	case err := <-e.Err():
		return fmt.Errorf("etcdnodes: %s: %w", mc.Name, err)
	case <-ctx.Done():
		return nil
	}
}
