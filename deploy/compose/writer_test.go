package compose

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writeInterval paces each node's writer: at most one create per
// interval, so the cluster keeps CPU for itself on a small machine.
const writeInterval = 20 * time.Millisecond

// writer creates ConfigMaps through every node at once, one goroutine
// per node, each under a name of its own, and records every create the
// cluster acknowledged. A failed create is not retried: its outcome may
// be unknown, and it is simply not counted.
type writer struct {
	namespace string
	nodes     []*node

	mu    sync.Mutex
	acked []string

	attempts, failures atomic.Int64
	wg                 sync.WaitGroup
	stop               context.CancelFunc
}

// startWriter starts writing to namespace through nodes until stopped.
func startWriter(ctx context.Context, namespace string, nodes []*node) *writer {
	ctx, cancel := context.WithCancel(ctx)
	w := &writer{namespace: namespace, nodes: nodes, stop: cancel}
	for _, n := range nodes {
		w.wg.Add(1)
		go w.loop(ctx, n)
	}
	return w
}

// loop writes through n until ctx ends.
func (w *writer) loop(ctx context.Context, n *node) {
	defer w.wg.Done()
	tick := time.NewTicker(writeInterval)
	defer tick.Stop()
	for seq := 0; ; seq++ {
		name := fmt.Sprintf("%s-%06d", n.name, seq)
		if err := w.create(ctx, n, name); err != nil {
			w.failures.Add(1)
		} else {
			w.record(name)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// create creates one ConfigMap through n.
func (w *writer) create(ctx context.Context, n *node, name string) error {
	w.attempts.Add(1)
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Data:       map[string]string{"node": n.name, "at": strconv.FormatInt(time.Now().UnixNano(), 10)},
	}
	_, err := n.client.CoreV1().ConfigMaps(w.namespace).Create(ctx, cm, metav1.CreateOptions{})
	return err
}

// record notes an acknowledged write.
func (w *writer) record(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.acked = append(w.acked, name)
}

// count returns how many writes were acknowledged so far.
func (w *writer) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

// waitFor returns nil once n more writes are acknowledged than when it
// was called and at least atLeast has passed: a few seconds' worth of writes.
func (w *writer) waitFor(ctx context.Context, n int, atLeast, timeout time.Duration) error {
	start, from := time.Now(), w.count()
	_, err := eventually(ctx, timeout, func(context.Context) error {
		if got := w.count() - from; got < n || time.Since(start) < atLeast {
			return fmt.Errorf("%d writes acknowledged in %v, want %d in at least %v", got, time.Since(start).Round(time.Millisecond), n, atLeast)
		}
		return nil
	})
	return err
}

// finish stops the writer and returns every acknowledged name.
func (w *writer) finish() []string {
	w.stop()
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.acked...)
}
