package kasnodes

import (
	"context"
	"crypto/x509/pkix"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/raftapi/raftapi/bench/internal/certs"
	"github.com/raftapi/raftapi/bench/internal/etcdnodes"
	"github.com/raftapi/raftapi/bench/internal/kubeapi"
	"github.com/raftapi/raftapi/bench/internal/procs"
)

// Config describes the cluster to start.
type Config struct {
	// Binary is the kube-apiserver executable; Self is this benchmark's
	// binary, which runs the etcd members.
	Binary, Self string
	// Dir holds the certificates, etcd's members and the servers' logs;
	// the caller removes it.
	Dir string
	// Nodes is the number of etcd members and of kube-apiservers.
	Nodes int
	// Procs owns the processes.
	Procs *procs.Group
}

// Cluster is a running kube-apiserver cluster.
type Cluster struct {
	etcd    *etcdnodes.Cluster
	servers []*procs.Process
	logs    []string
	// Transport carries the clients' requests as the admin.
	Transport *http.Transport
	clients   []*kubeapi.Client
}

// readyTimeout bounds the wait for a kube-apiserver's first /readyz 200:
// it installs its API groups and bootstrap objects first, slowly on two
// busy cores.
const readyTimeout = 3 * time.Minute

// Start starts etcd, then a kube-apiserver per member, and returns once
// every kube-apiserver answers /readyz with 200.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	etcdDir := filepath.Join(cfg.Dir, "etcd")
	if err := os.MkdirAll(etcdDir, 0o700); err != nil {
		return nil, err
	}
	e, err := etcdnodes.Start(ctx, etcdnodes.Config{Self: cfg.Self, Dir: etcdDir, Members: cfg.Nodes, Procs: cfg.Procs})
	if err != nil {
		return nil, err
	}
	c := &Cluster{etcd: e}
	if err := c.start(ctx, cfg); err != nil {
		e.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, cfg Config) error {
	pki, err := writePKI(cfg.Dir)
	if err != nil {
		return err
	}
	if c.Transport, err = pki.transport(); err != nil {
		return err
	}
	for i, etcdURL := range c.etcd.ClientURLs() {
		addr, err := procs.FreeAddr()
		if err != nil {
			return err
		}
		name := fmt.Sprintf("kube-apiserver-%d", i+1)
		log := filepath.Join(cfg.Dir, name+".log")
		p, err := cfg.Procs.Start(name, log, argv(cfg.Binary, addr, etcdURL, c.etcd.TLS, pki))
		if err != nil {
			return err
		}
		c.servers, c.logs = append(c.servers, p), append(c.logs, log)
		c.clients = append(c.clients, kubeapi.New("https://"+addr, c.Transport))
	}
	for i := range c.servers {
		if err := c.waitReady(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// argv is the command line of the kube-apiserver serving on addr over
// the etcd member at etcdURL.
func argv(binary, addr, etcdURL string, etcd etcdnodes.TLSFiles, pki pkiFiles) []string {
	host, port, _ := strings.Cut(addr, ":")
	return []string{binary,
		"--bind-address=" + host, "--advertise-address=" + host, "--secure-port=" + port,
		"--tls-cert-file=" + pki.serving.Cert, "--tls-private-key-file=" + pki.serving.Key,
		"--client-ca-file=" + pki.ca, "--authorization-mode=Node,RBAC",
		"--etcd-servers=" + etcdURL, "--etcd-cafile=" + etcd.CA,
		"--etcd-certfile=" + etcd.Cert, "--etcd-keyfile=" + etcd.Key,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + pki.serviceAccountKey,
		"--service-account-signing-key-file=" + pki.serviceAccountKey,
		"--service-cluster-ip-range=10.96.0.0/12",
		// The endpoint reconciler refuses a loopback advertise address;
		// it keeps the default/kubernetes Endpoints, which no figure reads.
		"--endpoint-reconciler-type=none",
	}
}

// waitReady polls server i's /readyz until it answers 200, and fails at
// once should the process exit.
func (c *Cluster) waitReady(ctx context.Context, i int) error {
	err := procs.Poll(ctx, readyTimeout, func() error {
		if !c.servers[i].Running() {
			return procs.Stop{Err: fmt.Errorf("exited (%v); its log ends:\n%s", c.servers[i].ExitErr(), procs.Tail(c.logs[i], 2000))}
		}
		return c.clients[i].Ready(ctx)
	})
	if err != nil {
		return fmt.Errorf("kasnodes: kube-apiserver %d: %w", i+1, err)
	}
	return nil
}

// Clients returns a client per kube-apiserver over the cluster's
// transport, in order: kube-apiserver i talks to etcd member i.
func (c *Cluster) Clients() []*kubeapi.Client { return c.clients }

// NewTransport returns a transport of its own with the admin's
// credentials: its own connections.
func (c *Cluster) NewTransport() *http.Transport {
	return kubeapi.NewTransport(c.Transport.TLSClientConfig)
}

// Leader returns the index of the etcd leader, whose kube-apiserver has
// the same index.
func (c *Cluster) Leader(ctx context.Context) (int, error) { return c.etcd.Leader(ctx) }

// Close closes the etcd clients; the process group stops the servers.
func (c *Cluster) Close() { c.etcd.Close() }

// pkiFiles are the run's PEM files for the kube-apiservers.
type pkiFiles struct {
	ca                string     // the CA, which also signs client certificates
	serving           certs.Pair // every kube-apiserver's serving certificate
	admin             certs.Pair // the client's: CN admin, O system:masters
	serviceAccountKey string     // signs and verifies service account tokens
}

func writePKI(dir string) (pkiFiles, error) {
	ca, err := certs.NewCA(dir, "ca", "raftapi-bench kube-apiserver CA")
	if err != nil {
		return pkiFiles{}, err
	}
	f := pkiFiles{ca: ca.Path, serviceAccountKey: filepath.Join(dir, "sa-key.pem")}
	if f.serving, err = ca.Issue(dir, "serving", pkix.Name{CommonName: "kube-apiserver"}); err != nil {
		return f, err
	}
	if f.admin, err = ca.Issue(dir, "admin", pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}}); err != nil {
		return f, err
	}
	_, err = certs.NewKey(f.serviceAccountKey)
	return f, err
}

// transport returns the admin's transport: the CA trusted, the admin
// certificate presented.
func (f pkiFiles) transport() (*http.Transport, error) {
	tc, err := kubeapi.TLSFromFiles(f.ca, f.admin.Cert, f.admin.Key)
	if err != nil {
		return nil, err
	}
	return kubeapi.NewTransport(tc), nil
}
