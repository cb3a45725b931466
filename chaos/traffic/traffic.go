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
	// Resources are the register resources (ConfigMaps, ChaosObjects):
	// register and list clients pick one at random for each operation,
	// watchers take them in turn. Empty means configmaps only.
	Resources []Resource
	// RegisterClients, ListClients and Watchers count the concurrent
	// clients of each workload.
	RegisterClients, ListClients, Watchers int
	// Keys is how many keys of each resource the register clients share
	// at a time; every KeyLifetime they move on to fresh keys, which keeps
	// each key's history short enough to check.
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
	keys map[Key]bool // every key ever used

	clients  sync.WaitGroup
	watchers sync.WaitGroup
	stopOps  context.CancelFunc
	ws       []*watcher
}

// Key is one register: a key of a resource (by name).
type Key struct {
	Resource string
	Name     string
}

// watchModes are the watcher kinds, taken in turn.
var watchModes = []string{history.WatchPlain, history.WatchBookmarks, history.WatchInitialEvents}

// watcherKind is the resource and mode of watcher i (from 0): the
// resources in turn, and for each the modes in turn, so that a few
// watchers already cover every resource and, from three per resource,
// every mode of each.
func watcherKind(i int, resources []Resource) (Resource, string) {
	n := len(resources)
	return resources[i%n], watchModes[(i/n)%len(watchModes)]
}

// Start starts every client; they run until Stop.
func Start(ctx context.Context, cfg Config) *Traffic {
	if len(cfg.Resources) == 0 {
		cfg.Resources = []Resource{ConfigMaps}
	}
	t := &Traffic{cfg: cfg, rec: cfg.Recorder, start: time.Now(), keys: map[Key]bool{}}
	opsCtx, cancel := context.WithCancel(ctx)
	t.stopOps = cancel
	for i := range cfg.Watchers {
		res, mode := watcherKind(i, cfg.Resources)
		w := &watcher{id: i + 1, mode: mode, res: res,
			c: cfg.Client, rec: cfg.Recorder, nodes: cfg.Nodes, node: i, rnd: t.rand(1000 + i), stopped: make(chan struct{})}
		t.ws = append(t.ws, w)
		t.watchers.Add(1)
		go func() { defer t.watchers.Done(); w.run(ctx) }()
	}
	for i := range cfg.RegisterClients {
		rc := &registerClient{id: i, t: t, rnd: t.rand(i), known: map[Key]known{}}
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

// key picks a key of res of the current generation and remembers it.
func (t *Traffic) key(rnd *rand.Rand, res Resource) Key {
	gen := int(time.Since(t.start) / t.cfg.KeyLifetime)
	k := Key{Resource: res.Name, Name: fmt.Sprintf("%s%d-%d", res.KeyPrefix, gen, rnd.IntN(t.cfg.Keys))}
	t.mu.Lock()
	t.keys[k] = true
	t.mu.Unlock()
	return k
}

func (t *Traffic) node(rnd *rand.Rand) string { return t.cfg.Nodes[rnd.IntN(len(t.cfg.Nodes))] }

// resource picks one of the resources for the next operation.
func (t *Traffic) resource(rnd *rand.Rand) Resource {
	return t.cfg.Resources[rnd.IntN(len(t.cfg.Resources))]
}

// Resources are the resources the traffic uses.
func (t *Traffic) Resources() []Resource { return t.cfg.Resources }

// Keys returns every key the register clients used, by resource and
// name.
func (t *Traffic) Keys() []Key {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Key, 0, len(t.keys))
	for k := range t.keys {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Resource != out[j].Resource {
			return out[i].Resource < out[j].Resource
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// StopClients stops the register and list clients and waits for their
// operations in flight.
func (t *Traffic) StopClients() {
	t.stopOps()
	t.clients.Wait()
}

// StopWatchers lets every watcher run until it has seen the target of
// its resource (by name: the last change of it the history knows), then
// stops it; it waits at most timeout, then cancels those still running
// through cancel (the context their run was started with).
func (t *Traffic) StopWatchers(targets map[string]int64, timeout time.Duration, cancel context.CancelFunc) {
	for _, w := range t.ws {
		w.target.Store(targets[w.res.Name])
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
