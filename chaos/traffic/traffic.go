package traffic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// Config sizes the traffic.
type Config struct {
	Client   *Client
	Recorder *history.Recorder
	// Nodes are the node names requests spread over.
	Nodes []string
	// RegisterClients, ListClients and Watchers count the concurrent
	// clients of each workload.
	RegisterClients, ListClients, Watchers int
	// Keys is how many keys the register clients share at a time; every
	// KeyLifetime they move on to fresh keys, which keeps each key's
	// history short enough to check.
	Keys        int
	KeyLifetime time.Duration
	// MaxOps bounds the register and list operations of the run.
	MaxOps int64
	Seed   uint64
}

// Traffic is the running clients.
type Traffic struct {
	cfg   Config
	rec   *history.Recorder
	start time.Time
	ops   atomic.Int64

	mu   sync.Mutex
	keys map[string]bool // every key ever used

	clients  sync.WaitGroup
	watchers sync.WaitGroup
	stopOps  context.CancelFunc
	ws       []*watcher
}

// Start starts every client; they run until Stop.
func Start(ctx context.Context, cfg Config) *Traffic {
	t := &Traffic{cfg: cfg, rec: cfg.Recorder, start: time.Now(), keys: map[string]bool{}}
	opsCtx, cancel := context.WithCancel(ctx)
	t.stopOps = cancel
	for i := range cfg.Watchers {
		w := &watcher{id: i + 1, mode: []string{history.WatchPlain, history.WatchBookmarks, history.WatchInitialEvents}[i%3],
			c: cfg.Client, rec: cfg.Recorder, nodes: cfg.Nodes, node: i, rnd: t.rand(1000 + i), stopped: make(chan struct{})}
		t.ws = append(t.ws, w)
		t.watchers.Add(1)
		go func() { defer t.watchers.Done(); w.run(ctx) }()
	}
	for i := range cfg.RegisterClients {
		rc := &registerClient{id: i, t: t, rnd: t.rand(i), known: map[string]known{}}
		t.loop(opsCtx, rc.step, 5, 20)
	}
	for i := range cfg.ListClients {
		lc := &listClient{id: cfg.RegisterClients + i, t: t, rnd: t.rand(500 + i)}
		t.loop(opsCtx, lc.step, 50, 200)
	}
	return t
}

func (t *Traffic) rand(i int) *rand.Rand { return rand.New(rand.NewPCG(t.cfg.Seed, uint64(i))) }

// loop runs step with a random think time in [lo, hi) ms until ctx ends
// or the run has issued MaxOps operations.
func (t *Traffic) loop(ctx context.Context, step func(context.Context), lo, hi int) {
	rnd := t.rand(int(t.ops.Add(0)) + lo*7919 + hi)
	t.clients.Add(1)
	go func() {
		defer t.clients.Done()
		for ctx.Err() == nil && (t.cfg.MaxOps == 0 || t.ops.Add(1) <= t.cfg.MaxOps) {
			step(ctx)
			think := time.NewTimer(time.Duration(lo+rnd.IntN(hi-lo)) * time.Millisecond)
			select {
			case <-ctx.Done():
			case <-think.C:
			}
			think.Stop()
		}
	}()
}

// key picks a key of the current generation and remembers it.
func (t *Traffic) key(rnd *rand.Rand) string {
	gen := int(time.Since(t.start) / t.cfg.KeyLifetime)
	k := fmt.Sprintf("r%d-%d", gen, rnd.IntN(t.cfg.Keys))
	t.mu.Lock()
	t.keys[k] = true
	t.mu.Unlock()
	return k
}

func (t *Traffic) node(rnd *rand.Rand) string { return t.cfg.Nodes[rnd.IntN(len(t.cfg.Nodes))] }

// Keys returns every key the register clients used, sorted.
func (t *Traffic) Keys() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.keys))
	for k := range t.keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// StopClients stops the register and list clients and waits for their
// operations in flight.
func (t *Traffic) StopClients() {
	t.stopOps()
	t.clients.Wait()
}

// StopWatchers lets every watcher run until it has seen target, then
// stops it; it waits at most timeout, then cancels those still running
// through cancel (the context their run was started with).
func (t *Traffic) StopWatchers(target int64, timeout time.Duration, cancel context.CancelFunc) {
	for _, w := range t.ws {
		w.target.Store(target)
		close(w.stopped)
	}
	done := make(chan struct{})
	go func() { t.watchers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		cancel()
		<-done
	}
}
