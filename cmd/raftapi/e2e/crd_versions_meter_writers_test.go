package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// meterField is the field of a meter's value in each version: v1
// spec.count is v2 spec.total.
var meterField = map[string]string{"v1": "count", "v2": "total"}

// meterRecord is what the writers know of one meter.
type meterRecord struct {
	owner   string
	acked   bool    // its creation was acknowledged
	value   int64   // the last value acknowledged
	pending []int64 // values written since, their outcome unknown
}

// allows reports whether the meter may read as v (present) or be absent.
func (r *meterRecord) allows(present bool, v int64) bool {
	if !present {
		return !r.acked
	}
	if r.acked && v == r.value {
		return true
	}
	for _, p := range r.pending {
		if v == p {
			return true
		}
	}
	return false
}

// meterLedger records every write of the writers, by meter.
type meterLedger struct {
	mu   sync.Mutex
	recs map[string]*meterRecord
	acks atomic.Int64 // acknowledged writes
	errs atomic.Int64 // writes whose outcome is unknown
}

func newMeterLedger() *meterLedger { return &meterLedger{recs: map[string]*meterRecord{}} }

func (l *meterLedger) record(name, owner string) *meterRecord {
	r := l.recs[name]
	if r == nil {
		r = &meterRecord{owner: owner}
		l.recs[name] = r
	}
	return r
}

// ack records that meter name was acknowledged with value v.
func (l *meterLedger) ack(name, owner string, v int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.record(name, owner)
	r.acked, r.value, r.pending = true, v, nil
	l.acks.Add(1)
}

// unknown records a write of v to meter name whose outcome is unknown.
func (l *meterLedger) unknown(name, owner string, v int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.record(name, owner)
	r.pending = append(r.pending, v)
	l.errs.Add(1)
}

// check compares the meters read in version (name to value and owner)
// with the ledger: every acknowledged meter is there with its last
// acknowledged value or a later one whose outcome was unknown, and no
// other meter is.
func (l *meterLedger) check(t *testing.T, where string, read map[string]meterRead) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var names []string
	for name := range l.recs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r := l.recs[name]
		got, present := read[name]
		switch {
		case !r.allows(present, got.value):
			t.Errorf("%s: meter %s reads %v (present %v); acknowledged %v with %d, unknown outcome %v", where, name, got.value, present, r.acked, r.value, r.pending)
		case present && got.owner != r.owner:
			t.Errorf("%s: meter %s has owner %q, want %q", where, name, got.owner, r.owner)
		}
	}
	for name := range read {
		if l.recs[name] == nil {
			t.Errorf("%s: meter %s was never written", where, name)
		}
	}
}

// meterRead is one meter as read.
type meterRead struct {
	value int64
	owner string
}

// meterWriters write meters through every node, in both versions, until
// stopped: each writer patches the meters it owns and creates more.
type meterWriters struct {
	group, ns string
	clients   []dynamic.Interface // one per node
	ledger    *meterLedger
	stopping  chan struct{}
	wg        sync.WaitGroup
}

// meterResource is the meters resource of group in version.
func meterResource(dc dynamic.Interface, group, ns, version string) dynamic.ResourceInterface {
	return dc.Resource(schema.GroupVersionResource{Group: group, Version: version, Resource: "meters"}).Namespace(ns)
}

// meter is a meter written in version.
func meter(group, name, owner, version string, v int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/" + version, "kind": "Meter",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{meterField[version]: v, "owner": owner},
	}}
}

// startMeterWriters starts n writers; writer i owns the meters of
// owned[i] and starts with node i.
func startMeterWriters(w *meterWriters, owned [][]string) {
	w.stopping = make(chan struct{})
	for i, names := range owned {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.run(i, names)
		}()
	}
}

// run is writer id's loop.
func (w *meterWriters) run(id int, owned []string) {
	owner := fmt.Sprintf("w%d", id)
	node := id % len(w.clients)
	pace := time.NewTicker(5 * time.Millisecond)
	defer pace.Stop()
	for seq := int64(1); ; seq++ {
		select {
		case <-w.stopping:
			return
		case <-pace.C:
		}
		version := []string{"v1", "v2"}[seq%2]
		rc := meterResource(w.clients[node], w.group, w.ns, version)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var name, recOwner string
		var err error
		if seq%4 == 0 {
			name, recOwner = fmt.Sprintf("%s-%d", owner, seq), owner
			_, err = rc.Create(ctx, meter(w.group, name, owner, version, seq), metav1.CreateOptions{})
			if err == nil {
				owned = append(owned, name)
			}
		} else {
			name = owned[rand.IntN(len(owned))]
			recOwner = w.ownerOf(name)
			patch := fmt.Sprintf(`{"spec":{%q:%d}}`, meterField[version], seq)
			_, err = rc.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		}
		cancel()
		if err != nil {
			w.ledger.unknown(name, recOwner, seq)
			node = (node + 1) % len(w.clients)
			continue
		}
		w.ledger.ack(name, recOwner, seq)
	}
}

// ownerOf returns the owner the ledger knows for meter name.
func (w *meterWriters) ownerOf(name string) string {
	w.ledger.mu.Lock()
	defer w.ledger.mu.Unlock()
	return w.ledger.recs[name].owner
}

// waitAcks waits until n more writes have been acknowledged.
func (w *meterWriters) waitAcks(t *testing.T, n int64, what string) {
	t.Helper()
	target := w.ledger.acks.Load() + n
	pollUntil(t, 60*time.Second, fmt.Sprintf("%d acknowledged writes %s", n, what), func() error {
		if got := w.ledger.acks.Load(); got < target {
			return fmt.Errorf("%d of %d acknowledged (%d unknown outcomes so far)", got, target, w.ledger.errs.Load())
		}
		return nil
	})
}

// stop stops the writers and waits for them.
func (w *meterWriters) stop() {
	close(w.stopping)
	w.wg.Wait()
}
