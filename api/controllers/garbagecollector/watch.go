package garbagecollector

import (
	"bytes"
	"context"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/registry"
)

const (
	// registryPrefix is the storage prefix of every resource.
	registryPrefix = "/registry/"
	// gcCatchUpTimeout bounds the reading of the changes between two
	// ticks; past it the collector makes a pass instead.
	gcCatchUpTimeout = 5 * time.Second
)

// changedSince reports whether a change committed after revision from, up
// to revision to, can give the collector work. It reads them with a watch
// of the whole registry from from, stopped once it has delivered to (a
// progress bookmark marks the end when the last entries are not object
// changes). When the changes cannot be read (compacted history, a broken
// or slow watch) it reports true: a pass's fresh list covers them.
func (gc *Collector) changedSince(ctx context.Context, from, to uint64) bool {
	if from == 0 {
		// A watch from revision 0 starts from now: it cannot read the
		// changes made since a pass that saw nothing applied yet.
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, gcCatchUpTimeout)
	defer cancel()
	w, err := gc.store.Watch(ctx, registryPrefix, registry.WatchOptions{Revision: from, Recursive: true})
	if err != nil {
		return true
	}
	defer w.Stop()
	w.RequestProgress()
	for {
		select {
		case <-ctx.Done():
			return true
		case ev, ok := <-w.ResultChan():
			switch {
			case !ok || ev.Type == registry.WatchError:
				return true
			case ev.Type == registry.Bookmark && ev.Rev < to:
				sleep(ctx, time.Millisecond) // the node is still publishing up to to
				w.RequestProgress()
			case ev.Type != registry.Bookmark && gc.relevant(ev):
				return true
			}
			if ev.Rev >= to {
				return false
			}
		}
	}
}

// relevant reports whether a change can give the collector work: the
// object has (or had) owner references or a propagation finalizer, or it
// is an owner.
func (gc *Collector) relevant(ev registry.WatchEvent) bool {
	owners := gc.hasOwners()
	for _, data := range [][]byte{ev.Object, ev.Prev} {
		if !owners && !mentionsGC(data) {
			continue // the common case, found without decoding
		}
		var m gcMeta
		if len(data) == 0 || decodeMetadata(data, &m) != nil {
			continue
		}
		if len(m.OwnerReferences) > 0 || gc.isOwner(string(m.UID)) ||
			slices.Contains(m.Finalizers, metav1.FinalizerOrphanDependents) ||
			slices.Contains(m.Finalizers, metav1.FinalizerDeleteDependents) {
			return true
		}
	}
	return false
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

// mentionsGC reports whether the stored object's JSON holds an
// ownerReferences or finalizers member anywhere: objects without either
// (stored as our encoder wrote them, keys unescaped) cannot give the
// collector work unless they are owners.
func mentionsGC(data []byte) bool {
	return bytes.Contains(data, []byte(`"ownerReferences"`)) || bytes.Contains(data, []byte(`"finalizers"`))
}
