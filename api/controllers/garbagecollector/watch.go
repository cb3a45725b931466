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
// is an owner. objectMentions is mentionsGC of the change's object.
func (gc *Collector) relevant(ev registry.WatchEvent, objectMentions bool) bool {
	owners := gc.hasOwners()
	return gc.matters(ev.Object, owners || objectMentions) ||
		gc.matters(ev.Prev, owners || mentionsGC(ev.Prev))
}

// matters reports whether data, a stored object, has owner references or
// a propagation finalizer, or is an owner. It decodes data only when
// look is set: an object that mentions neither owner references nor
// finalizers (the common case, found without decoding) matters only as
// an owner, and there are none to look for.
func (gc *Collector) matters(data []byte, look bool) bool {
	var m gcMeta
	if !look || len(data) == 0 || decodeMetadata(data, &m) != nil {
		return false
	}
	return len(m.OwnerReferences) > 0 || gc.isOwner(string(m.UID)) ||
		slices.Contains(m.Finalizers, metav1.FinalizerOrphanDependents) ||
		slices.Contains(m.Finalizers, metav1.FinalizerDeleteDependents)
}

// mentionsGC reports whether the stored object's JSON holds an
// ownerReferences or finalizers member anywhere: objects without either
// (stored as our encoder wrote them, keys unescaped) cannot give the
// collector work unless they are owners.
func mentionsGC(data []byte) bool {
	return bytes.Contains(data, []byte(`"ownerReferences"`)) || bytes.Contains(data, []byte(`"finalizers"`))
}
