package target

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/kubeapi"
)

// KubeAPI drives a cluster through its Kubernetes HTTP API: raftapi's
// nodes, or kube-apiservers over etcd.
type KubeAPI struct {
	name    string
	clients []*kubeapi.Client // one per node
	// caBundleWait is how long Prepare waits for the CA bundle ConfigMap
	// of a new namespace.
	caBundleWait time.Duration

	rvs     sync.Map // namespace/name → the resourceVersion last written
	watches watchPool
}

var _ figures.Target = (*KubeAPI)(nil)

// NewRaftapi returns the target of raftapi's nodes' clients (one per
// node, in node order), with newTransport for the watches' connections.
func NewRaftapi(clients []*kubeapi.Client, newTransport func() *http.Transport) *KubeAPI {
	return newKubeAPI("raftapi", clients, newTransport, caBundleWait)
}

// NewKubeAPIServer returns the target of kube-apiservers' clients, as
// NewRaftapi. With no kube-controller-manager beside them, no CA bundle
// appears in a new namespace, and Prepare does not wait for one.
func NewKubeAPIServer(clients []*kubeapi.Client, newTransport func() *http.Transport) *KubeAPI {
	return newKubeAPI("kube-apiserver", clients, newTransport, 0)
}

func newKubeAPI(name string, clients []*kubeapi.Client, newTransport func() *http.Transport, wait time.Duration) *KubeAPI {
	return &KubeAPI{name: name, clients: clients, caBundleWait: wait,
		watches: watchPool{nodes: clients, newTransport: newTransport}}
}

// Name implements figures.Target.
func (r *KubeAPI) Name() string { return r.name }

// Namespace is the namespace holding space's keys.
func Namespace(space string) string { return "bench-" + space }

func (r *KubeAPI) client(c int) *kubeapi.Client { return r.clients[c%len(r.clients)] }

// Prepare creates space's namespace and waits for the CA bundle
// ConfigMap raftapi adds to every namespace (as kube-controller-manager
// does), so that the namespace's content is settled before a figure
// counts it.
func (r *KubeAPI) Prepare(ctx context.Context, space string) error {
	ns := Namespace(space)
	if err := r.clients[0].CreateNamespace(ctx, ns); err != nil || r.caBundleWait == 0 {
		return err
	}
	deadline := time.Now().Add(r.caBundleWait)
	for {
		_, err := r.clients[0].GetConfigMap(ctx, ns, caBundle, false)
		if err == nil || !kubeapi.IsNotFound(err) || time.Now().After(deadline) {
			return nil // a server that adds no CA bundle is no error
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// caBundle is the ConfigMap raftapi, as kube-controller-manager, puts in
// every namespace; caBundleWait is how long Prepare waits for it.
const (
	caBundle     = "kube-root-ca.crt"
	caBundleWait = 10 * time.Second
)

// Create creates a ConfigMap holding value.
func (r *KubeAPI) Create(ctx context.Context, c int, space, name, value string) error {
	ns := Namespace(space)
	o, err := r.client(c).CreateConfigMap(ctx, ns, name, value)
	if err != nil {
		return err
	}
	r.rvs.Store(ns+"/"+name, o.ResourceVersion)
	return nil
}

// Update replaces the ConfigMap conditionally on the resourceVersion this
// target last wrote for it, as a controller updates what it read.
func (r *KubeAPI) Update(ctx context.Context, c int, space, name, value string) error {
	ns := Namespace(space)
	rv, ok := r.rvs.Load(ns + "/" + name)
	if !ok {
		return fmt.Errorf("target: update %s/%s: not written here", ns, name)
	}
	o, err := r.client(c).UpdateConfigMap(ctx, ns, name, rv.(string), value)
	if err != nil {
		return err
	}
	r.rvs.Store(ns+"/"+name, o.ResourceVersion)
	return nil
}

// Delete deletes the ConfigMap.
func (r *KubeAPI) Delete(ctx context.Context, c int, space, name string) error {
	ns := Namespace(space)
	if err := r.client(c).DeleteConfigMap(ctx, ns, name); err != nil {
		return err
	}
	r.rvs.Delete(ns + "/" + name)
	return nil
}

// Get reads the ConfigMap, Most Recent or with resourceVersion=0.
func (r *KubeAPI) Get(ctx context.Context, c int, space, name string, stale bool) error {
	_, err := r.client(c).GetConfigMap(ctx, Namespace(space), name, stale)
	return err
}

// List lists the namespace's ConfigMaps, Most Recent, in one request.
func (r *KubeAPI) List(ctx context.Context, c int, space string) (int, error) {
	p, err := r.client(c).ListConfigMaps(ctx, Namespace(space), kubeapi.ListOptions{})
	if err != nil {
		return 0, err
	}
	return p.Count(), nil
}
