package namespace

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/registry"
)

// reconcileInterval is how often the leader looks at the namespaces.
const reconcileInterval = time.Second

// Controller is the namespace lifecycle of one node (see the package
// comment).
type Controller struct {
	reg   *registry.Registry
	store registry.Storage
	kickc chan struct{}
}

// New returns the namespace lifecycle of the namespaces in reg.
func New(reg *registry.Registry) *Controller {
	return &Controller{reg: reg, store: reg.Storage(), kickc: make(chan struct{}, 1)}
}

// Kick asks for a reconcile soon: a namespace was marked for deletion.
// It never blocks.
func (c *Controller) Kick() {
	select {
	case c.kickc <- struct{}{}:
	default:
	}
}

// Run reconciles until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	t := time.NewTicker(reconcileInterval)
	defer t.Stop()
	for {
		if c.store.IsLeader() {
			c.reconcile(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.kickc:
		}
	}
}

func (c *Controller) reconcile(ctx context.Context) {
	for _, ns := range registry.SystemNamespaces {
		if _, err := c.store.Get(ctx, registry.NamespaceKey(ns), registry.ReadOptions{Consistency: registry.Any}); registry.IsNotFound(err) {
			_ = c.reg.EnsureNamespace(ctx, ns)
		}
	}
	res, err := c.store.List(ctx, registry.NamespaceKey(""), registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.Any}})
	if err != nil {
		return
	}
	for _, o := range res.Items {
		var n corev1.Namespace
		if json.Unmarshal(o.Data, &n) == nil && n.DeletionTimestamp != nil {
			c.finalize(ctx, o, &n)
		}
	}
}

// finalize deletes the content of a terminating namespace and, once none
// is left, the namespace itself.
func (c *Controller) finalize(ctx context.Context, cur registry.Object, n *corev1.Namespace) {
	if c.deleteContent(ctx, n.Name) > 0 {
		return
	}
	key := registry.NamespaceKey(n.Name)
	if len(n.Finalizers) == 0 {
		_, _ = c.store.Delete(ctx, key, registry.Preconditions{ResourceVersion: cur.Rev})
		return
	}
	if len(n.Spec.Finalizers) > 0 {
		n.Spec.Finalizers = nil
		if data, err := json.Marshal(n); err == nil {
			_, _ = c.store.Update(ctx, key, data, registry.Preconditions{ResourceVersion: cur.Rev})
		}
	}
}

// deleteContent deletes every object in namespace ns, through the
// registry as a client's DELETE would, and returns how many remain (held
// by finalizers, or failed).
func (c *Controller) deleteContent(ctx context.Context, ns string) int {
	remaining := 0
	seen := map[string]bool{}
	for _, res := range c.reg.Resources().All() {
		if !res.Namespaced || seen[res.Prefix("")] {
			continue // versions of a resource share its storage
		}
		seen[res.Prefix("")] = true
		list, err := c.store.List(ctx, res.Prefix(ns), registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.Any}})
		if err != nil {
			remaining++
			continue
		}
		for _, o := range list.Items {
			m, err := codec.DecodeStored(res, o.Data)
			if err != nil {
				remaining++
				continue
			}
			d, err := c.reg.Store(res).Delete(ctx, ns, codec.Accessor(m).GetName(), &metav1.DeleteOptions{})
			if err != nil || !d.Gone {
				remaining++
			}
		}
	}
	return remaining
}

// Ready returns nil once this node has every system namespace, an error
// naming the first missing one otherwise.
func (c *Controller) Ready() error {
	for _, ns := range registry.SystemNamespaces {
		_, err := c.store.Get(context.Background(), registry.NamespaceKey(ns), registry.ReadOptions{Consistency: registry.Any})
		if err != nil {
			return fmt.Errorf("namespace %s: %w", ns, err)
		}
	}
	return nil
}
