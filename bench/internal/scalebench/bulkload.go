package scalebench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
)

// loaded is what a bulk load leaves for later steps: each object's
// resourceVersion and size, by index.
type loaded struct {
	rvs   []string
	sizes []int64
}

// progressEvery is how often a load reports its progress.
const progressEvery = 5 * time.Second

// bulkLoad creates n ConfigMaps named prefix-0 ... in namespace ns with
// many clients spread over the nodes, printing its progress. A failed
// create is tried again a few times (an AlreadyExists then means the
// first try went through).
func (r *run) bulkLoad(ctx context.Context, ns, prefix string, n int) (Load, loaded, error) {
	res := Load{Namespace: ns, Objects: n, Clients: r.cfg.LoadClients}
	out := loaded{rvs: make([]string, n), sizes: make([]int64, n)}
	if err := r.clients[0].CreateNamespace(ctx, ns); err != nil {
		return res, out, err
	}
	var next, done atomic.Int64
	var firstErr error
	var once sync.Once
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	stopProgress := r.progress(ns, n, &done, start, &res)
	var wg sync.WaitGroup
	for c := range min(r.cfg.LoadClients, n) {
		wg.Go(func() {
			cl := r.clients[c%len(r.clients)]
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				o, err := createRetrying(ctx, cl, ns, fmt.Sprintf("%s-%d", prefix, i), r.value)
				if err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
				out.rvs[i], out.sizes[i] = o.ResourceVersion, int64(o.Bytes)
				done.Add(1)
			}
		})
	}
	wg.Wait()
	stopProgress()
	res.Elapsed = time.Since(start)
	for _, s := range out.sizes {
		res.Bytes += s
	}
	if firstErr != nil {
		return res, out, fmt.Errorf("scalebench: load %s: %w", ns, firstErr)
	}
	return res, out, ctx.Err()
}

// createRetrying creates a ConfigMap, trying again on failure.
func createRetrying(ctx context.Context, cl *kubeapi.Client, ns, name, value string) (kubeapi.Object, error) {
	var err error
	for try := range 5 {
		var o kubeapi.Object
		o, err = cl.CreateConfigMap(ctx, ns, name, value)
		if err == nil {
			return o, nil
		}
		if try > 0 && kubeapi.IsAlreadyExists(err) {
			return cl.GetConfigMap(ctx, ns, name, false)
		}
		if errors.Is(err, context.Canceled) {
			return o, err
		}
		time.Sleep(time.Duration(try+1) * 200 * time.Millisecond)
	}
	return kubeapi.Object{}, err
}

// progress prints the load's progress and samples its rate until the
// returned function is called.
func (r *run) progress(ns string, n int, done *atomic.Int64, start time.Time, res *Load) func() {
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		last, lastAt := int64(0), start
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				d := done.Load()
				rate := float64(d-last) / now.Sub(lastAt).Seconds()
				res.Rate = append(res.Rate, RatePoint{At: now.Sub(start), PerSecond: rate})
				eta := time.Duration(float64(int64(n)-d) / max(rate, 1) * float64(time.Second))
				r.logf("load %s: %d/%d (%.0f/s, about %v left)", ns, d, n, rate, eta.Round(time.Second))
				last, lastAt = d, now
			}
		}
	}()
	return func() { close(stop); <-finished }
}
