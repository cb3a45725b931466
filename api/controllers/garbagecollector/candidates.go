package garbagecollector

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// gcCandidates are the storage keys of the objects that can give the
// collector work: those whose latest version, as far as the feed has
// read, mentions owner references or finalizers (mentionsGC). A full
// pass adds every such object it lists; the feed then adds and removes
// keys as their objects change. The set may hold keys that no longer
// qualify (a pass's list and the feed race); a pass over the candidates
// reads each one again and skips those.
type gcCandidates struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

// track records the change ev: its key is a candidate when its new
// version mentions owner references or finalizers.
func (c *gcCandidates) track(ev registry.WatchEvent, mentions bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if mentions && ev.Type != registry.Deleted {
		c.keys[ev.Key] = struct{}{}
	} else {
		delete(c.keys, ev.Key)
	}
}

// addGraph adds the keys of the objects a full pass listed.
func (c *gcCandidates) addGraph(g *gcGraph) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range g.listed {
		c.keys[n.key] = struct{}{}
	}
}

// sorted returns the keys, in order.
func (c *gcCandidates) sorted() []string {
	c.mu.Lock()
	keys := make([]string, 0, len(c.keys))
	for k := range c.keys {
		keys = append(keys, k)
	}
	c.mu.Unlock()
	slices.Sort(keys)
	return keys
}

// snapshotOf builds the graph a full pass would hold from the objects at
// keys, read one by one, and the owners they name, instead of listing
// every collectable object. The first key is read Most Recent, so a node
// that no longer leads fails here as a full pass's list does; the rest
// are read from this node's state, which is at least that new.
func (gc *Collector) snapshotOf(ctx context.Context, keys []string) (*gcGraph, error) {
	g := newGCGraph()
	resources := gc.collectableResources()
	consistency := registry.MostRecent
	for _, key := range keys {
		res := resourceOfKey(resources, key)
		if res == nil {
			continue // not a collectable object (or no longer served)
		}
		o, err := gc.store.Get(ctx, key, registry.ReadOptions{Consistency: consistency})
		consistency = registry.Any
		if registry.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		gc.addListed(g, res, o)
	}
	g.listed = g.nodes
	if err := gc.addOwners(ctx, g); err != nil {
		return nil, err
	}
	return g, nil
}

// resourceOfKey returns the one of resources whose storage prefix holds
// key, the longest when prefixes nest; nil for none.
// Storage prefixes are never empty, so the zero value loses to any match.
func resourceOfKey(resources []collectableResource, key string) *resource.Resource {
	var best collectableResource
	for _, c := range resources {
		if strings.HasPrefix(key, c.prefix) && len(c.prefix) > len(best.prefix) {
			best = c
		}
	}
	return best.res
}
