package apiextensions

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// servedCacheSize bounds the objects a version remembers the served form
// of: a few MiB for objects of a KiB.
const servedCacheSize = 2048

// servedCache remembers the served form of recently read stored objects:
// coercing a stored object to the schema (decode, prune, default,
// encode) costs far more than serving bytes, and an object is read many
// times between two writes. Entries are keyed by the stored bytes
// themselves (a hash, then a comparison), so a new write, a new schema
// (a new cache) or another version never meets a stale entry.
type servedCache struct {
	seed    maphash.Seed
	mu      sync.Mutex
	entries map[uint64]servedEntry
}

type servedEntry struct{ stored, served []byte }

func newServedCache() *servedCache {
	return &servedCache{seed: maphash.MakeSeed(), entries: map[uint64]servedEntry{}}
}

// get returns the served form remembered for stored, if any. The caller
// must not modify it.
func (c *servedCache) get(stored []byte) ([]byte, bool) {
	h := maphash.Bytes(c.seed, stored)
	c.mu.Lock()
	e, ok := c.entries[h]
	c.mu.Unlock()
	if !ok || !bytes.Equal(e.stored, stored) {
		return nil, false
	}
	return e.served, true
}

// put remembers served as the served form of stored, dropping an
// arbitrary entry when full.
func (c *servedCache) put(stored, served []byte) {
	h := maphash.Bytes(c.seed, stored)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= servedCacheSize {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[h] = servedEntry{stored: stored, served: served}
}
