package crd

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// resyncInterval is how often the leader looks at every CRD even when
// none changed (instances held by finalizers, a leader just elected).
const resyncInterval = time.Second

// Controller is the CRD controllers of one node (see the package
// comment).
type Controller struct {
	reg      *registry.Registry
	crds     *resource.Resource
	builtins []*resource.Resource
	log      *slog.Logger
	now      func() time.Time
}

// New returns the controllers of the CRDs of crds (the
// CustomResourceDefinition resource) in reg; builtins are the resources
// whose names no CRD may take.
func New(reg *registry.Registry, crds *resource.Resource, builtins []*resource.Resource, log *slog.Logger, now func() time.Time) *Controller {
	return &Controller{reg: reg, crds: crds, builtins: builtins, log: log, now: now}
}

// Run reconciles while this node leads, until ctx ends: after every
// change of a CRD and every resyncInterval.
func (c *Controller) Run(ctx context.Context) {
	for ctx.Err() == nil {
		var rev uint64
		if c.reg.Storage().IsLeader() {
			rev = c.reconcile(ctx)
		}
		c.waitForChange(ctx, rev)
	}
}

// waitForChange returns after a change of a CRD after rev (0: none
// watched), or after resyncInterval.
func (c *Controller) waitForChange(ctx context.Context, rev uint64) {
	ctx, cancel := context.WithTimeout(ctx, resyncInterval)
	defer cancel()
	if rev == 0 {
		<-ctx.Done()
		return
	}
	w, err := c.reg.Storage().Watch(ctx, c.crds.Prefix(""), registry.WatchOptions{Revision: rev, Recursive: true})
	if err != nil {
		<-ctx.Done()
		return
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type != registry.Bookmark {
				return
			}
		}
	}
}

// reconcile makes one pass over the CRDs and returns the revision it
// listed at (0 when the list failed).
func (c *Controller) reconcile(ctx context.Context) uint64 {
	list, err := c.reg.Storage().List(ctx, c.crds.Prefix(""), registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.MostRecent}})
	if err != nil {
		return 0
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(list.Items))
	for _, o := range list.Items {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(o.Data, crd); err != nil {
			c.log.Error("crd controller: undecodable definition", "key", o.Key, "err", err)
			continue
		}
		crds = append(crds, crd)
	}
	// The oldest CRD's names first, as kube's queue takes them in order.
	slices.SortStableFunc(crds, func(a, b *apiextensionsv1.CustomResourceDefinition) int {
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	for i, crd := range crds {
		if crd.DeletionTimestamp != nil {
			c.cleanup(ctx, crd)
			continue
		}
		// The names just accepted count for the CRDs after this one.
		crds[i] = c.name(ctx, crd, crds)
	}
	return list.Revision
}
