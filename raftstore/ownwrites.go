package raftstore

import (
	"bytes"
	"sync"
)

// A client that updates what it just wrote sends the resourceVersion its
// write returned, and the update reads the key not older than that
// revision. Through a follower the write was forwarded to the leader, and
// the follower learns that it committed only with the leader's next
// AppendEntries (CommitTimeout later): without more, the read goes to the
// leader (getFromLeader), one more round trip on every such update.
//
// The follower already holds the answer: the object its own write
// returned. The value of a key at the revision of a committed write is
// fixed forever, so that object is a correct answer to any NotOlderThan
// read of the key at or below its revision, whoever wrote the key since
// (a read not older than R may be served at any revision from R on). An
// update decided on it is still a compare-and-swap on that revision in the
// log, so a newer write elsewhere makes it a conflict as it would with the
// leader's copy. ownWrites keeps these objects, one per key, only while
// the node's own state has not caught up with them: once it has, the
// state answers.

// ownWritesCap bounds the keys ownWrites holds; a node whose state keeps
// up (every node but a lagging one) holds a handful at a time.
const ownWritesCap = 1024

// ownWrites holds the newest write this node answered for each key whose
// revision its state may not have applied yet. It is safe for concurrent
// use.
type ownWrites struct {
	mu   sync.Mutex
	objs map[string]ownWrite
}

// ownWrite is one key's newest answered write. A delete is kept as gone,
// so that a slower, older write answered after it does not bring the
// object back.
type ownWrite struct {
	obj  Object
	gone bool
}

// wrote records obj, answered for a create or update of obj.Key; applied
// is the node's applied index, below which entries are dropped when the
// map is full.
func (w *ownWrites) wrote(obj Object, applied uint64) {
	w.put(ownWrite{obj: Object{Key: obj.Key, Rev: obj.Rev, Data: bytes.Clone(obj.Data)}}, applied)
}

// deleted records the delete of key at rev.
func (w *ownWrites) deleted(key string, rev, applied uint64) {
	w.put(ownWrite{obj: Object{Key: key, Rev: rev}, gone: true}, applied)
}

// forget drops key: a write to it whose outcome is unknown may have
// committed at any revision.
func (w *ownWrites) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.objs, key)
}

func (w *ownWrites) put(e ownWrite, applied uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.objs[e.obj.Key]; ok && old.obj.Rev >= e.obj.Rev {
		return
	}
	if w.objs == nil {
		w.objs = make(map[string]ownWrite)
	}
	if len(w.objs) >= ownWritesCap {
		w.evict(applied)
	}
	w.objs[e.obj.Key] = e
}

// evict makes room: first every entry the node's state has applied, then,
// should the node lag that far, an arbitrary half.
func (w *ownWrites) evict(applied uint64) {
	for k, e := range w.objs {
		if e.obj.Rev <= applied {
			delete(w.objs, k)
		}
	}
	if len(w.objs) < ownWritesCap {
		return
	}
	for k := range w.objs {
		if len(w.objs) < ownWritesCap/2 {
			return
		}
		delete(w.objs, k)
	}
}

// get returns a copy of the object this node last wrote to key when it is
// not older than rev and the key was not deleted since.
func (w *ownWrites) get(key string, rev uint64) (Object, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.objs[key]
	if !ok || e.gone || e.obj.Rev < rev {
		return Object{}, false
	}
	return Object{Key: key, Rev: e.obj.Rev, Data: bytes.Clone(e.obj.Data)}, true
}
