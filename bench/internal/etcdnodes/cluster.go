package etcdnodes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/raftapi/raftapi/bench/internal/procs"
)

// Config describes the cluster to start.
type Config struct {
	// Self is the benchmark binary, which runs a member with
	// `etcd-member`.
	Self string
	// Dir holds the certificates and one directory per member; the caller
	// removes it.
	Dir string
	// Members is the cluster's size.
	Members int
	// Procs owns the processes.
	Procs *procs.Group
}

// Cluster is a running etcd cluster.
type Cluster struct {
	// TLS is the run's CA and the certificate members and clients
	// present.
	TLS     TLSFiles
	members []MemberConfig
	procs   []*procs.Process
	clients []*clientv3.Client
}

// Start starts the members and returns once each answers a
// linearizable read.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	tlsFiles, err := writeCerts(cfg.Dir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{TLS: tlsFiles}
	var initial []string
	for i := range cfg.Members {
		m, err := newMember(fmt.Sprintf("e%d", i+1), cfg.Dir, tlsFiles)
		if err != nil {
			return nil, err
		}
		c.members = append(c.members, m)
		initial = append(initial, m.Name+"=https://"+m.PeerAddr)
	}
	for i := range c.members {
		c.members[i].InitialCluster = strings.Join(initial, ",")
		p, err := cfg.Procs.Start(c.members[i].Name, filepath.Join(cfg.Dir, c.members[i].Name+".log"), c.members[i].argv(cfg.Self))
		if err != nil {
			return nil, err
		}
		c.procs = append(c.procs, p)
	}
	if err := c.connect(ctx, tlsFiles); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func newMember(name, dir string, tlsFiles TLSFiles) (MemberConfig, error) {
	client, err := procs.FreeAddr()
	if err != nil {
		return MemberConfig{}, err
	}
	peer, err := procs.FreeAddr()
	if err != nil {
		return MemberConfig{}, err
	}
	m := MemberConfig{Name: name, DataDir: filepath.Join(dir, name), ClientAddr: client, PeerAddr: peer, TLS: tlsFiles}
	return m, os.MkdirAll(m.DataDir, 0o700)
}

// argv is the command line running member m.
func (m MemberConfig) argv(self string) []string {
	return []string{self, "etcd-member", "-name", m.Name, "-data-dir", m.DataDir,
		"-client-addr", m.ClientAddr, "-peer-addr", m.PeerAddr, "-initial-cluster", m.InitialCluster,
		"-ca", m.TLS.CA, "-cert", m.TLS.Cert, "-key", m.TLS.Key}
}

// connect makes a client per member and waits until each answers a
// linearizable read.
func (c *Cluster) connect(ctx context.Context, files TLSFiles) error {
	tc, err := transport.TLSInfo{CertFile: files.Cert, KeyFile: files.Key, TrustedCAFile: files.CA}.ClientConfig()
	if err != nil {
		return fmt.Errorf("etcdnodes: client TLS: %w", err)
	}
	for _, m := range c.members {
		cl, err := clientv3.New(clientv3.Config{Endpoints: []string{"https://" + m.ClientAddr}, TLS: tc, DialTimeout: 10 * time.Second})
		if err != nil {
			return fmt.Errorf("etcdnodes: client of %s: %w", m.Name, err)
		}
		c.clients = append(c.clients, cl)
	}
	deadline := time.Now().Add(memberReadyTimeout)
	for i, cl := range c.clients {
		for {
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := cl.Get(rctx, "/ready")
			cancel()
			if err == nil {
				break
			}
			if !c.procs[i].Running() || time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("etcdnodes: %s not ready: %v", c.members[i].Name, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// Clients returns a client per member, in member order.
func (c *Cluster) Clients() []*clientv3.Client { return c.clients }

// ClientURLs returns each member's client URL, in member order.
func (c *Cluster) ClientURLs() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = "https://" + m.ClientAddr
	}
	return out
}

// Close closes the clients; the process group stops the members.
func (c *Cluster) Close() {
	for _, cl := range c.clients {
		cl.Close()
	}
}

// Leader returns the index of the member every member names as leader.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	ids := make([]uint64, len(c.clients))
	var leader uint64
	for i, cl := range c.clients {
		st, err := cl.Status(ctx, cl.Endpoints()[0])
		if err != nil {
			return -1, fmt.Errorf("etcdnodes: status of %s: %w", c.members[i].Name, err)
		}
		if leader != 0 && st.Leader != leader {
			return -1, fmt.Errorf("etcdnodes: no agreed leader")
		}
		ids[i], leader = st.Header.MemberId, st.Leader
	}
	for i, id := range ids {
		if id == leader {
			return i, nil
		}
	}
	return -1, fmt.Errorf("etcdnodes: leader %x is not a member", leader)
}
