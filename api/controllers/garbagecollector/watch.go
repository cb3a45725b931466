package garbagecollector

import (
	"bytes"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/registry"
)

// registryPrefix is the storage prefix of every resource.
const registryPrefix = "/registry/"

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

// mentionsGC reports whether the stored object's JSON holds an
// ownerReferences or finalizers member anywhere: objects without either
// (stored as our encoder wrote them, keys unescaped) cannot give the
// collector work unless they are owners.
func mentionsGC(data []byte) bool {
	return bytes.Contains(data, []byte(`"ownerReferences"`)) || bytes.Contains(data, []byte(`"finalizers"`))
}
