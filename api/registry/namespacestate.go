package registry

import (
	"encoding/json"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxNamespaceStates bounds the namespaces whose state admission keeps;
// past it the cache starts afresh.
const maxNamespaceStates = 4096

// namespaceStates remembers, per namespace, whether the version admission
// last read is terminating, so that a create in a namespace decodes the
// namespace once per revision instead of once per create. A revision's
// object never changes, so an entry is right for as long as the read
// returns the revision it was taken from. Safe for concurrent use.
type namespaceStates struct {
	mu sync.Mutex
	m  map[string]namespaceState
}

type namespaceState struct {
	rev         uint64
	terminating bool
}

// terminating reports whether ns, read as obj, is being deleted: it has
// a deletionTimestamp or its phase is Terminating.
func (c *namespaceStates) terminating(ns string, obj Object) (bool, error) {
	c.mu.Lock()
	s, ok := c.m[ns]
	c.mu.Unlock()
	if ok && s.rev == obj.Rev {
		return s.terminating, nil
	}
	var n struct {
		Metadata struct {
			DeletionTimestamp *metav1.Time `json:"deletionTimestamp"`
		} `json:"metadata"`
		Status struct {
			Phase corev1.NamespacePhase `json:"phase"`
		} `json:"status"`
	}
	if err := json.Unmarshal(obj.Data, &n); err != nil {
		return false, err
	}
	s = namespaceState{rev: obj.Rev, terminating: n.Metadata.DeletionTimestamp != nil || n.Status.Phase == corev1.NamespaceTerminating}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxNamespaceStates {
		c.m = map[string]namespaceState{}
	}
	c.m[ns] = s
	c.mu.Unlock()
	return s.terminating, nil
}
