package resource

import (
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Registry is the set of served resources. It is safe for concurrent use;
// resources may be added while serving (custom resources).
type Registry struct {
	mu        sync.RWMutex
	resources map[schema.GroupVersionResource]*Resource
}

// NewRegistry returns a registry holding rs.
func NewRegistry(rs ...*Resource) *Registry {
	reg := &Registry{resources: map[schema.GroupVersionResource]*Resource{}}
	for _, r := range rs {
		reg.Add(r)
	}
	return reg
}

// Add registers r, replacing a resource of the same group/version/plural.
func (reg *Registry) Add(r *Resource) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	reg.resources[r.GroupVersion().WithResource(r.Plural)] = r
}

// Remove unregisters the resource of gvr, if any.
func (reg *Registry) Remove(gvr schema.GroupVersionResource) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	delete(reg.resources, gvr)
}

// Get returns the resource for gvr, or nil.
func (reg *Registry) Get(gvr schema.GroupVersionResource) *Resource {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return reg.resources[gvr]
}

// All returns every resource, sorted by group, version and plural.
func (reg *Registry) All() []*Resource {
	reg.mu.RLock()
	out := make([]*Resource, 0, len(reg.resources))
	for _, r := range reg.resources {
		out = append(out, r)
	}
	reg.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Plural < b.Plural
	})
	return out
}

// GroupVersions returns the served group/versions, the core group's "v1"
// first and then the named groups sorted.
func (reg *Registry) GroupVersions() []schema.GroupVersion {
	seen := map[schema.GroupVersion]bool{}
	var out []schema.GroupVersion
	for _, r := range reg.All() {
		if gv := r.GroupVersion(); !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	return out
}
