package garbagecollector

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// gcNode is one stored object as the garbage collector sees it: where it
// lives and its metadata.
type gcNode struct {
	res  *resource.Resource
	key  string
	rev  uint64
	meta gcMeta
}

// gcMeta is the part of an object's metadata the collector reads: a pass
// holds one per stored object, so labels, annotations and managedFields
// are left undecoded.
type gcMeta struct {
	Namespace         string                  `json:"namespace,omitempty"`
	Name              string                  `json:"name,omitempty"`
	UID               types.UID               `json:"uid,omitempty"`
	DeletionTimestamp *metav1.Time            `json:"deletionTimestamp,omitempty"`
	Finalizers        []string                `json:"finalizers,omitempty"`
	OwnerReferences   []metav1.OwnerReference `json:"ownerReferences,omitempty"`
}

// newGCNode reads the metadata of o, an object of res.
func newGCNode(res *resource.Resource, o registry.Object) (*gcNode, error) {
	var m gcMeta
	if err := decodeMetadata(o.Data, &m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", o.Key, err)
	}
	return &gcNode{res: res, key: res.Key(m.Namespace, m.Name), rev: o.Rev, meta: m}, nil
}

func (n *gcNode) uid() types.UID { return n.meta.UID }

// deleting reports whether the object has a deletionTimestamp.
func (n *gcNode) deleting() bool { return n.meta.DeletionTimestamp != nil }

func (n *gcNode) hasFinalizer(f string) bool { return slices.Contains(n.meta.Finalizers, f) }

// deletingDependents reports whether the object is being deleted in
// foreground.
func (n *gcNode) deletingDependents() bool {
	return n.deleting() && n.hasFinalizer(metav1.FinalizerDeleteDependents)
}

// blocks reports whether the object holds up the foreground deletion of
// the owner with uid owner (blockOwnerDeletion on its reference).
func (n *gcNode) blocks(owner types.UID) bool {
	for _, ref := range n.meta.OwnerReferences {
		if ref.UID == owner && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// String names n in logs: its resource, key and uid.
func (n *gcNode) String() string { return n.res.Plural + " " + n.key + " uid " + string(n.uid()) }

// gcGraph is every object the collector manages at the start of a pass,
// indexed by uid and by the uids their owner references name.
type gcGraph struct {
	nodes []*gcNode
	// listed are the nodes read as objects that can give the collector
	// work, before the owners they name were added.
	listed     []*gcNode
	byUID      map[types.UID]*gcNode
	dependents map[types.UID][]*gcNode
}

// collectable reports whether the collector manages the objects of res:
// those of stored resources it can delete.
func collectable(res *resource.Resource) bool { return res.Serves("delete") }

// snapshot lists every collectable resource with a Most Recent read: a
// node that no longer leads fails here instead of acting on old state.
//
// Only the objects that can give the collector work are decoded: those
// whose stored JSON mentions owner references or finalizers (an object
// being deleted has finalizers, or it would be gone). Most objects of a
// cluster are neither dependents nor being deleted, and decoding their
// metadata was most of a pass's time. Of the others, only the owners the
// decoded objects name are needed (as present owners, so that a
// dependent of one is not read again Most Recent); addOwners reads them
// afterwards by key.
func (gc *Collector) snapshot(ctx context.Context) (*gcGraph, error) {
	g := newGCGraph()
	for _, c := range gc.collectableResources() {
		if err := gc.addResource(ctx, g, c.res); err != nil {
			return nil, err
		}
	}
	g.listed = g.nodes
	if err := gc.addOwners(ctx, g); err != nil {
		return nil, err
	}
	return g, nil
}

// collectableResource is a resource whose objects the collector manages,
// with its storage prefix.
type collectableResource struct {
	prefix string
	res    *resource.Resource
}

// collectableResources returns the resources whose objects the collector
// manages, one per storage prefix: the versions of a resource share their
// storage.
func (gc *Collector) collectableResources() []collectableResource {
	var out []collectableResource
	seen := map[string]bool{}
	for _, res := range gc.reg.Resources().All() {
		if p := res.Prefix(""); collectable(res) && !seen[p] {
			seen[p] = true
			out = append(out, collectableResource{prefix: p, res: res})
		}
	}
	return out
}

// addListed adds o, an object of res read for a pass, to g if it can give
// the collector work; an owner that cannot is read by addOwners.
func (gc *Collector) addListed(g *gcGraph, res *resource.Resource, o registry.Object) {
	if !mentionsGC(o.Data) {
		return
	}
	n, err := newGCNode(res, o)
	if err != nil {
		gc.log.Warn("skipping undecodable object", "err", err)
		return
	}
	g.add(n)
}

func newGCGraph() *gcGraph {
	return &gcGraph{byUID: map[types.UID]*gcNode{}, dependents: map[types.UID][]*gcNode{}}
}

// gcPage is how many objects one list page of a pass holds: only a page
// of stored bytes is alive at a time, not every object of the resource.
const gcPage = 1000

// addResource adds every object of res to g, a page at a time; every page
// is read at the first's revision (a Most Recent read). The pages are not
// counted: a pass reads them all.
func (gc *Collector) addResource(ctx context.Context, g *gcGraph, res *resource.Resource) error {
	opts := registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.MostRecent}, Limit: gcPage, SkipCount: true}
	for {
		list, err := gc.store.List(ctx, res.Prefix(""), opts)
		if err != nil {
			return fmt.Errorf("list %s: %w", res.Plural, err)
		}
		for _, o := range list.Items {
			gc.addListed(g, res, o)
		}
		if list.Continue == "" {
			return nil
		}
		opts = registry.StoreListOptions{Limit: gcPage, Continue: list.Continue, SkipCount: true}
	}
}

// addOwners adds the owners g's objects name and g does not hold yet,
// read from this node's state. The pass's lists were Most Recent reads on
// this node, so its state is at least as new; an owner found is present
// as one in the lists would be. One not found is left out: classify
// confirms an absent owner with a Most Recent read before anything is
// deleted or unlinked because of it.
func (gc *Collector) addOwners(ctx context.Context, g *gcGraph) error {
	held := make(map[string]bool, len(g.nodes))
	for _, n := range g.nodes {
		held[n.key] = true
	}
	for _, n := range g.nodes { // the objects listed: range reads g.nodes once
		for _, ref := range n.meta.OwnerReferences {
			if g.byUID[ref.UID] != nil {
				continue
			}
			res, key, err := gc.ownerKey(n, ref)
			if err != nil || held[key] {
				continue // unresolvable: classify says so
			}
			held[key] = true
			o, err := gc.readNodeAt(ctx, res, key, registry.Any)
			if err != nil {
				return err
			}
			if o != nil {
				g.add(o)
			}
		}
	}
	return nil
}

func (g *gcGraph) add(n *gcNode) {
	g.nodes = append(g.nodes, n)
	g.byUID[n.uid()] = n
	for _, ref := range n.meta.OwnerReferences {
		g.dependents[ref.UID] = append(g.dependents[ref.UID], n)
	}
}

// dependentsOf returns the objects whose owner references name owner: by
// uid and, for a namespaced owner, in its namespace (a reference across
// namespaces never resolves).
func (g *gcGraph) dependentsOf(owner *gcNode) []*gcNode {
	var out []*gcNode
	for _, d := range g.dependents[owner.uid()] {
		if !owner.res.Namespaced || d.meta.Namespace == owner.meta.Namespace {
			out = append(out, d)
		}
	}
	return out
}

// ownerUIDs returns the uids the graph's owner references name.
func (g *gcGraph) ownerUIDs() map[string]bool {
	out := make(map[string]bool, len(g.dependents))
	for uid := range g.dependents {
		out[string(uid)] = true
	}
	return out
}
