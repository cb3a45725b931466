package registry

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// Options configure a Registry.
type Options struct {
	// Now returns the time stamped into creationTimestamp and
	// deletionTimestamp; default time.Now.
	Now func() time.Time
	// NewUID returns a new object UID; default a random UUID.
	NewUID func() string
	// NamespaceDeleting, if set, is called after a namespace is marked
	// for deletion, so the namespace lifecycle can start at once. It must
	// not block.
	NamespaceDeleting func()
}

// Registry holds the verb rules of every resource of a resource.Registry
// over one Storage. Resources may be added to the resource registry while
// the Registry serves: Store builds the rules of a resource on first use.
type Registry struct {
	resources *resource.Registry
	storage   Storage
	codecs    atomic.Pointer[codec.Codecs]
	opts      Options
	fields    *fieldManagers
	// namespaces is what admission last read of each namespace.
	namespaces namespaceStates

	mu     sync.Mutex
	stores map[storeKey]*Store
}

type storeKey struct {
	res *resource.Resource
	sub *resource.Subresource
}

// New returns the registry of the resources in resources, stored in
// storage.
func New(resources *resource.Registry, storage Storage, opts Options) *Registry {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewUID == nil {
		opts.NewUID = func() string { return string(uuid.NewUUID()) }
	}
	if opts.NamespaceDeleting == nil {
		opts.NamespaceDeleting = func() {}
	}
	r := &Registry{
		resources: resources, storage: limitObjectSize(storage), opts: opts,
		fields: newFieldManagers(resources), stores: map[storeKey]*Store{},
	}
	r.codecs.Store(codec.NewCodecs(resources))
	return r
}

// Register adds res to the resources served, while the registry serves:
// its store is built on first use and the codecs are rebuilt with its
// types.
func (r *Registry) Register(res *resource.Resource) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forget(res.GroupVersion().WithResource(res.Plural))
	r.resources.Add(res)
	r.codecs.Store(codec.NewCodecs(r.resources))
}

// Unregister stops serving the resource of gvr: its stores are dropped
// and the codecs rebuilt without it. Its stored objects stay.
func (r *Registry) Unregister(gvr schema.GroupVersionResource) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forget(gvr)
	r.resources.Remove(gvr)
	r.codecs.Store(codec.NewCodecs(r.resources))
}

// forget drops the stores and field managers built for the resource now
// registered as gvr, which is being replaced or removed.
func (r *Registry) forget(gvr schema.GroupVersionResource) {
	old := r.resources.Get(gvr)
	if old == nil {
		return
	}
	for k := range r.stores {
		if k.res == old {
			delete(r.stores, k)
		}
	}
	r.fields.forget(old)
}

// Resources returns the resource descriptions the registry serves.
func (r *Registry) Resources() *resource.Registry { return r.resources }

// Storage returns the store the registry writes to.
func (r *Registry) Storage() Storage { return r.storage }

// Codecs returns the serializers of the resources served now.
func (r *Registry) Codecs() *codec.Codecs { return r.codecs.Load() }

// Store returns the verbs of res.
func (r *Registry) Store(res *resource.Resource) *Store { return r.store(res, nil) }

// Subresource returns the verbs of subresource sub of res.
func (r *Registry) Subresource(res *resource.Resource, sub *resource.Subresource) *Store {
	return r.store(res, sub)
}

func (r *Registry) store(res *resource.Resource, sub *resource.Subresource) *Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := storeKey{res, sub}
	s, ok := r.stores[k]
	if !ok {
		s = &Store{reg: r, res: res, sub: sub}
		r.stores[k] = s
	}
	return s
}
