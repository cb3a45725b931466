package fsm

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Object is one stored object as read from the state.
type Object struct {
	Key  string
	Rev  uint64
	Data []byte
	// Stale is never set by the FSM or the store. A storage layer that
	// transforms values on their way in and out (api/encryption) sets it
	// on a read whose stored form is not the one it would write now (a
	// value encrypted with a key that is no longer the first): an update
	// of the object must then be written even when it changes nothing, so
	// that rewriting every object migrates them to the current form.
	Stale bool
}

// View is a consistent read-only view of the state at one applied index.
// It is valid only inside the function passed to FSM.View; the values it
// returns are copies and stay valid after.
type View struct {
	applied, compacted   uint64
	current, rev, keyIdx *bolt.Bucket
}

// View runs fn with a consistent snapshot of the state. Any number of views
// may run concurrently with each other and with ApplyBatch.
func (f *FSM) View(fn func(v *View) error) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		return fn(&View{
			applied:   getUint(meta, metaApplied),
			compacted: getUint(meta, metaCompacted),
			current:   tx.Bucket(bucketCurrent),
			rev:       tx.Bucket(bucketRev),
			keyIdx:    tx.Bucket(bucketKeyIdx),
		})
	})
}

// Applied is the index of the last entry reflected in this view.
func (v *View) Applied() uint64 { return v.applied }

// Compacted is the compaction boundary of this view.
func (v *View) Compacted() uint64 { return v.compacted }

// checkRev validates a historical revision: ErrCompacted below the
// boundary, ErrFutureRevision above the applied index.
func (v *View) checkRev(rev uint64) error {
	switch {
	case rev > v.applied:
		return ErrFutureRevision
	case rev < v.compacted:
		return ErrCompacted
	}
	return nil
}

// Get returns key's object as of revision rev; rev 0 means the current
// state. ok is false when the key did not exist at rev.
func (v *View) Get(key string, rev uint64) (obj Object, ok bool, err error) {
	if rev == 0 || rev == v.applied {
		obj, ok = v.currentObject([]byte(key))
		return obj, ok, nil
	}
	if err := v.checkRev(rev); err != nil {
		return Object{}, false, err
	}
	obj, ok = v.objectAt(key, rev)
	return obj, ok, nil
}

func (v *View) currentObject(key []byte) (Object, bool) {
	val := v.current.Get(key)
	if val == nil {
		return Object{}, false
	}
	rev, data := splitCurrent(val)
	return Object{Key: string(key), Rev: rev, Data: clone(data)}, true
}

// objectAt reconstructs key at rev: the first retained change after rev
// carries the version it replaced; with no change after rev the current
// version is the one.
func (v *View) objectAt(key string, rev uint64) (Object, bool) {
	return v.resolve(v.keyAtRev(key, rev))
}

// existsAt reports whether key existed at rev, copying nothing.
func (v *View) existsAt(key string, rev uint64) bool {
	return v.existedAt(v.keyAtRev(key, rev))
}

// keyAtRev finds what key's state at rev depends on, with a seek of its
// own.
func (v *View) keyAtRev(key string, rev uint64) keyAt {
	k := keyAt{key: []byte(key)}
	ik, _ := v.keyIdx.Cursor().Seek(keyIdxKey(key, rev+1))
	if bytes.Equal(keyOfKeyIdx(ik), k.key) {
		k.next = revOfKeyIdx(ik)
	} else {
		k.current = v.current.Get(k.key)
	}
	return k
}

// Range calls fn, in key order, for every object whose key has the given
// prefix and sorts after the key after ("" for the start), as of revision
// rev (0 means the current state), until fn returns false.
func (v *View) Range(prefix, after string, rev uint64, fn func(Object) bool) error {
	if rev == 0 || rev == v.applied {
		v.rangeCurrent(prefix, after, fn)
		return nil
	}
	if err := v.checkRev(rev); err != nil {
		return err
	}
	v.rangeAt(prefix, after, rev, fn)
	return nil
}

func (v *View) rangeCurrent(prefix, after string, fn func(Object) bool) {
	c := v.current.Cursor()
	for k, val := c.Seek(startKey(prefix, after)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, val = c.Next() {
		rev, data := splitCurrent(val)
		if !fn(Object{Key: string(k), Rev: rev, Data: clone(data)}) {
			return
		}
	}
}

// rangeAt reconstructs, at rev, each key walkAt visits.
func (v *View) rangeAt(prefix, after string, rev uint64, fn func(Object) bool) {
	v.walkAt(prefix, after, rev, func(k keyAt) bool {
		obj, ok := v.resolve(k)
		return !ok || fn(obj)
	})
}

// keyAt is what a key's state at a past revision depends on, pointing
// into the transaction's memory.
type keyAt struct {
	key []byte
	// current is the key's current value (revision + object), nil if
	// the key does not exist now; it may be left out (nil) when next is
	// set, which then decides.
	current []byte
	// next is the revision of the key's first change after the past
	// revision, 0 if it has not changed since.
	next uint64
}

// resolve returns the object k's key held at the past revision: the
// version its next change replaced, or its current version.
func (v *View) resolve(k keyAt) (Object, bool) {
	data, rev := k.current, uint64(0)
	if k.next != 0 {
		data, rev = recordPrev(k.next, v.rev.Get(revBytes(k.next)))
	} else if data != nil {
		rev, data = splitCurrent(data)
	}
	if data == nil {
		return Object{}, false
	}
	return Object{Key: string(k.key), Rev: rev, Data: clone(data)}, true
}

// existedAt reports whether k's key existed at the past revision,
// copying nothing.
func (v *View) existedAt(k keyAt) bool {
	if k.next != 0 {
		prev, _ := recordPrev(k.next, v.rev.Get(revBytes(k.next)))
		return prev != nil
	}
	return k.current != nil
}

// walkAt calls fn, in key order and until it returns false, for every key
// with the prefix after the key after that may have existed at rev: the
// keys that exist now merged with the keys of the key index, which holds
// every key changed inside the history window (a key deleted since rev
// among them, its delete record being retained). It walks both buckets
// together: one key index seek per key with history finds its first
// change after rev and, for a key unchanged since, lands on the next key;
// the current value is the one under the walking cursor. Resolving each
// key on its own took two more B-tree seeks per key, which made an Exact
// list at an old revision twice as slow as a list of the current state.
func (v *View) walkAt(prefix, after string, rev uint64, fn func(keyAt) bool) {
	start := startKey(prefix, after)
	cur := v.current.Cursor()
	ck, cval := cur.Seek(start)
	idx := v.keyIdx.Cursor()
	ik, _ := idx.Seek(start)
	var seek []byte
	for {
		ck = withPrefix(ck, prefix)
		ikey := withPrefix(keyOfKeyIdx(ik), prefix)
		if ck == nil && ikey == nil {
			return
		}
		k := keyAt{key: ck}
		if ck == nil || ikey != nil && bytes.Compare(ikey, ck) < 0 {
			k.key = ikey
		}
		if ikey != nil && bytes.Equal(ikey, k.key) {
			seek = appendKeyIdxKey(seek[:0], k.key, rev+1)
			ik, _ = idx.Seek(seek)
			if bytes.Equal(keyOfKeyIdx(ik), k.key) {
				k.next = revOfKeyIdx(ik)
				seek = append(append(seek[:0], k.key...), keySep+1)
				ik, _ = idx.Seek(seek)
			}
		}
		if bytes.Equal(ck, k.key) {
			k.current = cval
			ck, cval = cur.Next()
		}
		if !fn(k) {
			return
		}
	}
}

// withPrefix returns k if it has the prefix, else nil.
func withPrefix(k []byte, prefix string) []byte {
	if k == nil || !bytes.HasPrefix(k, []byte(prefix)) {
		return nil
	}
	return k
}

// startKey is the first key to visit: the prefix, or just past after. The
// keyidx entries of after itself (after, keySep, revision) sort below
// after+keySep+1, so one seek key skips after in both buckets; no storage
// key contains keySep, so none is skipped in between.
func startKey(prefix, after string) []byte {
	if after != "" && after >= prefix {
		return append([]byte(after), keySep+1)
	}
	return []byte(prefix)
}

// Events calls fn, in revision order, for every change after revision
// after, until fn returns false. It fails with ErrCompacted when changes
// after that revision have been dropped.
func (v *View) Events(after uint64, fn func(Event) bool) error {
	if after < v.compacted {
		return ErrCompacted
	}
	c := v.rev.Cursor()
	for k, val := c.Seek(revBytes(after + 1)); k != nil; k, val = c.Next() {
		e := decodeRecord(bytesToRev(k), val)
		if e.Object == nil {
			e.Object = v.eventObject(&e)
		}
		if !fn(e) {
			return nil
		}
	}
	return nil
}

// eventObject finds the object a change stored, which its history record
// leaves out (encodeRecord). A delete stored the version it removed,
// stamped with its own revision: stamping is deterministic, so stamping
// again gives the same bytes. A create or update stored the version the
// key held at the change's revision: the key's current version, or the
// one its next change replaced, a record that compaction keeps as long as
// it keeps this one.
func (v *View) eventObject(e *Event) []byte {
	if e.Type == Deleted {
		obj, err := StampResourceVersion(e.Prev, e.Rev)
		if err != nil {
			panic(fmt.Sprintf("fsm: deleted object %q at %d is not JSON: %v", e.Key, e.Rev, err))
		}
		return obj
	}
	obj, ok := v.objectAt(e.Key, e.Rev)
	if !ok || obj.Rev != e.Rev {
		panic(fmt.Sprintf("fsm: no version of %q at %d for its %s record (found %v at %d)", e.Key, e.Rev, e.Type, ok, obj.Rev))
	}
	return obj.Data
}
