package serviceaccount

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// Intervals of the controller's loops.
const (
	// leaderPoll is how often a follower checks whether it leads, and
	// the leader whether it still does and retries failed namespaces.
	leaderPoll = time.Second
	// resyncInterval is how often the leader looks at every namespace.
	resyncInterval = time.Minute
)

// manager is the field manager the controller's writes are recorded
// under, kube-controller-manager's.
const manager = "kube-controller-manager"

var (
	namespacesGVR      = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	serviceAccountsGVR = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	configMapsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// Controller keeps the default service account and the root CA
// configmap of every namespace (see the package comment).
type Controller struct {
	reg    *registry.Registry
	store  registry.Storage
	rootCA []byte
	log    *slog.Logger
}

// New returns the controller of the namespaces in reg. rootCA is the PEM
// CA bundle published as kube-root-ca.crt; empty publishes none.
func New(reg *registry.Registry, rootCA []byte, log *slog.Logger) *Controller {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Controller{reg: reg, store: reg.Storage(), rootCA: rootCA, log: log}
}

// Run keeps the namespaces in order while this node leads, until ctx
// ends.
func (c *Controller) Run(ctx context.Context) {
	t := time.NewTicker(leaderPoll)
	defer t.Stop()
	for {
		if c.store.IsLeader() {
			c.lead(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// lead does a full pass, then follows the changes until this node no
// longer leads, ctx ends or the watch ends.
func (c *Controller) lead(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rev, ok := c.resync(ctx)
	if !ok || rev == 0 {
		// Revision 0 is a store nothing was ever written to, and a watch
		// from 0 starts at the current revision: a namespace created
		// between the list and the watch would go unseen. The next
		// leadership check lists again.
		return
	}
	events, ended, err := c.watch(ctx, rev)
	if err != nil {
		return
	}
	retry := time.NewTicker(leaderPoll)
	defer retry.Stop()
	resync := time.NewTicker(resyncInterval)
	defer resync.Stop()
	failed := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-ended:
			return
		case ns := <-events:
			c.syncOrRemember(ctx, ns, failed)
		case <-retry.C:
			if !c.store.IsLeader() {
				return
			}
			for ns := range failed {
				delete(failed, ns)
				c.syncOrRemember(ctx, ns, failed)
			}
		case <-resync.C:
			c.resync(ctx)
		}
	}
}

// syncOrRemember brings namespace ns in order, or records it for a retry.
func (c *Controller) syncOrRemember(ctx context.Context, ns string, failed map[string]bool) {
	if err := c.sync(ctx, ns); err != nil {
		c.log.Debug("service accounts: namespace not in order yet", "namespace", ns, "err", err)
		failed[ns] = true
	}
}

// resync brings every namespace in order and returns the revision of the
// list it went through; ok is false when the namespaces could not be
// listed.
func (c *Controller) resync(ctx context.Context) (rev uint64, ok bool) {
	list, err := c.store.List(ctx, c.resource(namespacesGVR).Prefix(""), registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.Any}})
	if err != nil {
		return 0, false
	}
	for _, o := range list.Items {
		var ns corev1.Namespace
		if json.Unmarshal(o.Data, &ns) == nil {
			if err := c.sync(ctx, ns.Name); err != nil {
				c.log.Debug("service accounts: namespace not in order yet", "namespace", ns.Name, "err", err)
			}
		}
	}
	return list.Revision, true
}

// resource returns the built-in resource of gvr.
func (c *Controller) resource(gvr schema.GroupVersionResource) *resource.Resource {
	return c.reg.Resources().Get(gvr)
}
