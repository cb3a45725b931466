package apiextensions

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// emptyPoll is the pause before listing again a store nothing was ever
// written to (revision 0).
const emptyPoll = 100 * time.Millisecond

// Publisher changes the resources a node serves: the registry, and
// whatever derives from it (routes, discovery, OpenAPI).
type Publisher interface {
	// Publish registers add (replacing resources of the same group,
	// version and plural) and unregisters remove, in one step.
	Publish(add []*resource.Resource, remove []schema.GroupVersionResource)
}

// Serving keeps the custom resources a node serves in step with the
// CustomResourceDefinitions in the node's own committed state: it lists
// them locally, watches for changes and, on each, describes every served
// version of every served CRD (Resources) and publishes the difference.
// Every node runs one, leader or not, so a follower serves a custom
// resource as soon as it has applied its CRD.
type Serving struct {
	storage  registry.Storage
	crds     *resource.Resource
	policies *resource.Resource
	pub      Publisher
	log      *slog.Logger

	// served is, per CRD name, the resourceVersion its resources were
	// built from and the resources published for it.
	served map[string]servedCRD
	// synced is closed after the first reconciliation.
	synced chan struct{}
}

type servedCRD struct {
	// rv is the CRD's resourceVersion, and its policy's after a slash.
	rv   string
	gvrs []schema.GroupVersionResource
}

// NewServing returns the serving loop of the CRDs of crds (the
// CustomResourceDefinition resource) stored in storage, converted by the
// ConversionPolicies of policies (PolicyResource) that name them.
func NewServing(storage registry.Storage, crds, policies *resource.Resource, pub Publisher, log *slog.Logger) *Serving {
	return &Serving{storage: storage, crds: crds, policies: policies, pub: pub, log: log,
		served: map[string]servedCRD{}, synced: make(chan struct{})}
}

// Synced is closed once the CRDs present at start are served.
func (s *Serving) Synced() <-chan struct{} { return s.synced }

// Run reconciles until ctx ends: once at start, then after every change
// of a CRD, relisting after a broken watch. The first list is a Most
// Recent read, so Synced means every CRD committed before the node
// started (or restarted) is served, not only those its state had applied;
// later ones read the node's own state.
func (s *Serving) Run(ctx context.Context) {
	first := true
	for ctx.Err() == nil {
		consistency := registry.Any
		if first {
			consistency = registry.MostRecent
		}
		rev, err := s.reconcile(ctx, consistency)
		if first && err == nil {
			close(s.synced)
			first = false
		}
		if err != nil {
			if !first {
				s.log.Warn("custom resources: listing definitions", "err", err)
			}
			sleep(ctx, time.Second)
			continue
		}
		s.waitForChange(ctx, rev)
	}
}

// waitForChange returns after the first change of a CRD or a policy
// after rev, or when a watch ends.
func (s *Serving) waitForChange(ctx context.Context, rev uint64) {
	if rev == 0 {
		// A store nothing was ever written to: a watch from 0 starts at
		// the current revision and would miss a CRD written since the
		// list. List again shortly instead.
		sleep(ctx, emptyPoll)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changed := make(chan struct{}, 2)
	for _, prefix := range []string{s.crds.Prefix(""), s.policies.Prefix("")} {
		w, err := s.storage.Watch(ctx, prefix, registry.WatchOptions{Revision: rev, Recursive: true})
		if err != nil {
			sleep(ctx, time.Second)
			return
		}
		go func() {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type != registry.Bookmark {
					break
				}
			}
			changed <- struct{}{}
		}()
	}
	select {
	case <-changed:
	case <-ctx.Done():
	}
}

// listPolicies returns the stored ConversionPolicies by name (the name of
// the CRD each converts), and the revision of the list.
func (s *Serving) listPolicies(ctx context.Context, consistency registry.Consistency) (map[string]*ConversionPolicy, uint64, error) {
	list, err := s.storage.List(ctx, s.policies.Prefix(""), registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: consistency}})
	if err != nil {
		return nil, 0, err
	}
	out := make(map[string]*ConversionPolicy, len(list.Items))
	for _, o := range list.Items {
		p := &ConversionPolicy{}
		if err := json.Unmarshal(o.Data, p); err != nil {
			s.log.Error("custom resources: undecodable conversion policy", "key", o.Key, "err", err)
			continue
		}
		out[p.Name] = p
	}
	return out, list.Revision, nil
}

// reconcile publishes the resources of the CRDs stored now and returns
// the revision it listed at.
func (s *Serving) reconcile(ctx context.Context, consistency registry.Consistency) (uint64, error) {
	policies, rev, err := s.listPolicies(ctx, consistency)
	if err != nil {
		return 0, err
	}
	list, err := s.storage.List(ctx, s.crds.Prefix(""), registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: consistency}})
	if err != nil {
		return 0, err
	}
	var add []*resource.Resource
	var remove []schema.GroupVersionResource
	seen := map[string]bool{}
	for _, o := range list.Items {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(o.Data, crd); err != nil {
			s.log.Error("custom resources: undecodable definition", "key", o.Key, "err", err)
			continue
		}
		seen[crd.Name] = true
		a, r := s.update(crd, policies[crd.Name])
		add, remove = append(add, a...), append(remove, r...)
	}
	for name, sc := range s.served {
		if !seen[name] {
			remove = append(remove, sc.gvrs...)
			delete(s.served, name)
		}
	}
	if len(add) > 0 || len(remove) > 0 {
		s.pub.Publish(add, remove)
	}
	return rev, nil
}

// update returns what changes in the resources served for crd, converted
// by policy (nil for none).
func (s *Serving) update(crd *apiextensionsv1.CustomResourceDefinition, policy *ConversionPolicy) (add []*resource.Resource, remove []schema.GroupVersionResource) {
	rv := crd.ResourceVersion
	if policy != nil {
		rv += "/" + policy.ResourceVersion
	}
	prev, ok := s.served[crd.Name]
	if ok && prev.rv == rv {
		return nil, nil
	}
	var rs []*resource.Resource
	if Served(crd) {
		var err error
		if rs, err = Resources(crd, policy); err != nil {
			s.log.Error("custom resources: cannot serve definition", "crd", crd.Name, "err", err)
			rs = nil
		}
	}
	next := servedCRD{rv: rv}
	keep := map[schema.GroupVersionResource]bool{}
	for _, r := range rs {
		gvr := r.GroupVersion().WithResource(r.Plural)
		next.gvrs = append(next.gvrs, gvr)
		keep[gvr] = true
	}
	for _, gvr := range prev.gvrs {
		if !keep[gvr] {
			remove = append(remove, gvr)
		}
	}
	s.served[crd.Name] = next
	return rs, remove
}

// sleep waits for d or the end of ctx.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
