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

	migration  migrationOptions
	migrations migrations
}

// New returns the controllers of the CRDs of crds (the
// CustomResourceDefinition resource) in reg; builtins are the resources
// whose names no CRD may take.
func New(reg *registry.Registry, crds *resource.Resource, builtins []*resource.Resource, log *slog.Logger, now func() time.Time) *Controller {
	return &Controller{reg: reg, crds: crds, builtins: builtins, log: log, now: now, migration: defaultMigrationOptions()}
}

// Run reconciles while this node leads, until ctx ends: after every
// change of a CRD (one watch kept open while leading) and every
// resyncInterval. Storage version migrations run beside it and end with
// the leadership.
func (c *Controller) Run(ctx context.Context) {
	t := time.NewTicker(resyncInterval)
	defer t.Stop()
	defer c.stopMigrations()
	var w registry.Watcher
	stop := func() {
		if w != nil {
			w.Stop()
			w = nil
		}
	}
	defer stop()
	for ctx.Err() == nil {
		if !c.reg.Storage().IsLeader() {
			stop()
			c.stopMigrations()
		} else if rev := c.reconcile(ctx); w == nil && rev != 0 {
			w, _ = c.reg.Storage().Watch(ctx, c.crds.Prefix(""), registry.WatchOptions{Revision: rev, Recursive: true})
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		case _, ok := <-events(w):
			if !ok {
				stop()
			}
		}
	}
}

// events is w's channel, or nil (never ready) without a watch.
func events(w registry.Watcher) <-chan registry.WatchEvent {
	if w == nil {
		return nil
	}
	return w.ResultChan()
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
		c.startMigration(ctx, crds[i])
	}
	return list.Revision
}
