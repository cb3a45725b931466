package scalebench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
)

// exact compares an Exact list at an old revision, from before Churn of
// the listed objects were updated, with one at the current revision:
// the old state must be rebuilt from history, the current one is at
// hand. Each is timed Repeat times; both must return every object.
func (r *run) exact(ctx context.Context, res *Results) error {
	_, p, err := r.timedList(ctx, kubeapi.ListOptions{Limit: 1})
	if err != nil {
		return err
	}
	out := &Exact{OldRV: p.ResourceVersion, Churn: min(r.cfg.Churn, r.cfg.ListObjects)}
	if err := r.churn(ctx, out.Churn); err != nil {
		return err
	}
	if _, p, err = r.timedList(ctx, kubeapi.ListOptions{Limit: 1}); err != nil {
		return err
	}
	out.CurrentRV = p.ResourceVersion
	for range r.cfg.Repeat {
		for _, at := range []struct {
			rv    string
			times *[]time.Duration
		}{{out.OldRV, &out.Old}, {out.CurrentRV, &out.Current}} {
			d, err := r.exactList(ctx, at.rv)
			if err != nil {
				return err
			}
			*at.times = append(*at.times, d)
		}
	}
	res.Exact = out
	r.logf("exact list: at rv %s %v, at rv %s %v", out.OldRV, out.Old, out.CurrentRV, out.Current)
	return nil
}

// exactList times one Exact list at rv and checks it holds every object.
func (r *run) exactList(ctx context.Context, rv string) (time.Duration, error) {
	d, p, err := r.timedList(ctx, kubeapi.ListOptions{ResourceVersion: rv, ResourceVersionMatch: "Exact"})
	if err != nil {
		return 0, err
	}
	if n := p.Count(); n != r.objs.total {
		return 0, fmt.Errorf("exact list at %s: %d items, want %d", rv, n, r.objs.total)
	}
	return d, nil
}

// churn updates the first n listed objects once each, conditionally on
// the resourceVersion the load saw, and counts the change in the data
// held.
func (r *run) churn(ctx context.Context, n int) error {
	start := time.Now()
	var next atomic.Int64
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for c := range min(r.cfg.LoadClients, n) {
		wg.Go(func() {
			cl := r.clients[c%len(r.clients)]
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				o, err := cl.UpdateConfigMap(ctx, listNS, fmt.Sprintf("o-%d", i), r.objs.rvs[i], r.value[1:]+"u")
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if err == nil {
					r.held += int64(o.Bytes) - r.objs.sizes[i]
					r.objs.rvs[i], r.objs.sizes[i] = o.ResourceVersion, int64(o.Bytes)
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return fmt.Errorf("churn %s: %w", listNS, first)
	}
	r.logf("churn: %d updates in %v", n, time.Since(start).Round(time.Millisecond))
	return nil
}
