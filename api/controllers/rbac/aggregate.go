package rbac

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/raftapi/raftapi/api/registry"
)

const (
	// aggregateInterval is how often the Aggregator looks at its node's
	// leadership and retries a failed pass.
	aggregateInterval = 500 * time.Millisecond
	// resyncInterval is how often the leader recomputes every aggregated
	// role even when no change was seen.
	resyncInterval = 5 * time.Minute
)

// Aggregator is the ClusterRole aggregation controller of one node (see
// the package comment).
type Aggregator struct {
	reg    *registry.Registry
	logger *slog.Logger
	kickc  chan struct{}
}

// NewAggregator returns the aggregation controller of the ClusterRoles of
// reg.
func NewAggregator(reg *registry.Registry, logger *slog.Logger) *Aggregator {
	if logger == nil {
		logger = slog.Default()
	}
	return &Aggregator{reg: reg, logger: logger, kickc: make(chan struct{}, 1)}
}

// Run aggregates until ctx ends: on the leader, after every change of a
// ClusterRole, at the start of each term and every resyncInterval.
func (a *Aggregator) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a.watch(ctx)
	}()
	defer wg.Wait()
	t := time.NewTicker(aggregateInterval)
	defer t.Stop()
	dirty, last := true, time.Now()
	for {
		switch {
		case !a.reg.Storage().IsLeader():
			dirty = true
		case dirty || time.Since(last) > resyncInterval:
			dirty, last = a.Sync(ctx) != nil, time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-a.kickc:
			dirty = true
		}
	}
}

// kick asks for a pass soon; it never blocks.
func (a *Aggregator) kick() {
	select {
	case a.kickc <- struct{}{}:
	default:
	}
}

// watch kicks the loop after every change under the ClusterRoles' prefix,
// and after (re)opening its watch, which covers what it missed while
// closed.
func (a *Aggregator) watch(ctx context.Context) {
	for ctx.Err() == nil {
		res := a.reg.Resources().Get(clusterRolesGVR)
		if res == nil {
			sleep(ctx, aggregateInterval)
			continue
		}
		w, err := a.reg.Storage().Watch(ctx, res.Prefix(""), registry.WatchOptions{Recursive: true})
		if err != nil {
			sleep(ctx, aggregateInterval)
			continue
		}
		a.kick()
		for ev := range w.ResultChan() {
			if ev.Type != registry.Bookmark {
				a.kick()
			}
		}
		w.Stop()
	}
}

// Sync recomputes the rules of every ClusterRole with an aggregationRule
// and writes those that changed. Every role is tried; the error joins the
// failures.
func (a *Aggregator) Sync(ctx context.Context) error {
	ctx = loopback(ctx)
	store, err := storeOf(a.reg, clusterRolesGVR)
	if err != nil {
		return err
	}
	roles, err := a.list(ctx, store.Resource().Prefix(""))
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range roles {
		if r.AggregationRule == nil {
			continue
		}
		rules, err := aggregatedRules(r, roles)
		if err == nil && !equality.Semantic.DeepEqual(rules, r.Rules) {
			err = a.update(ctx, store, r, rules)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// list returns the ClusterRoles in this node's state, sorted by name.
func (a *Aggregator) list(ctx context.Context, prefix string) ([]*rbacv1.ClusterRole, error) {
	res, err := a.reg.Storage().List(ctx, prefix, registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.Any}})
	if err != nil {
		return nil, err
	}
	roles := make([]*rbacv1.ClusterRole, 0, len(res.Items))
	for _, o := range res.Items {
		r := &rbacv1.ClusterRole{}
		if json.Unmarshal(o.Data, r) == nil {
			roles = append(roles, r)
		}
	}
	slices.SortFunc(roles, func(x, y *rbacv1.ClusterRole) int { return strings.Compare(x.Name, y.Name) })
	return roles, nil
}

// update writes rules as the rules of r, with r's resourceVersion as a
// precondition.
func (a *Aggregator) update(ctx context.Context, store *registry.Store, r *rbacv1.ClusterRole, rules []rbacv1.PolicyRule) error {
	r = r.DeepCopy()
	r.Rules = rules
	r.TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"}
	if _, err := store.Update(ctx, "", r.Name, r, registry.WriteOptions{Manager: aggregationManager}); err != nil {
		return err
	}
	a.logger.Debug("rbac: aggregated clusterrole", "clusterrole", r.Name, "rules", len(rules))
	return nil
}

// aggregatedRules is the union of the rules of the roles (sorted by name)
// that one of r's selectors matches, r aside: selector by selector, role
// by role, each rule once, as kube's aggregation controller builds it.
func aggregatedRules(r *rbacv1.ClusterRole, roles []*rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	rules := []rbacv1.PolicyRule{}
	for i := range r.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&r.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, err
		}
		for _, other := range roles {
			if other.Name == r.Name || !sel.Matches(labels.Set(other.Labels)) {
				continue
			}
			for _, rule := range other.Rules {
				if !containsRule(rules, rule) {
					rules = append(rules, rule)
				}
			}
		}
	}
	return rules, nil
}

func containsRule(rules []rbacv1.PolicyRule, rule rbacv1.PolicyRule) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(r, rule) })
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
