package fsm

import (
	"bytes"
	"encoding/binary"
	"strings"

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
	prev, prevRev, changed := v.replacedAfter(key, rev)
	if !changed {
		return v.currentObject([]byte(key))
	}
	if prev == nil {
		return Object{}, false
	}
	return Object{Key: key, Rev: prevRev, Data: clone(prev)}, true
}

// existsAt reports whether key existed at rev, copying nothing.
func (v *View) existsAt(key string, rev uint64) bool {
	prev, _, changed := v.replacedAfter(key, rev)
	if !changed {
		return v.current.Get([]byte(key)) != nil
	}
	return prev != nil
}

// replacedAfter finds the first retained change of key after rev and
// returns the version it replaced (nil when it created the key) and that
// version's revision; changed is false when key has not changed since rev.
// prev points into the transaction's memory.
func (v *View) replacedAfter(key string, rev uint64) (prev []byte, prevRev uint64, changed bool) {
	c := v.keyIdx.Cursor()
	k, _ := c.Seek(keyIdxKey(key, rev+1))
	if k == nil {
		return nil, 0, false
	}
	kk, next := splitKeyIdx(k)
	if kk != key {
		return nil, 0, false
	}
	prev, prevRev = recordPrev(next, v.rev.Get(revBytes(next)))
	return prev, prevRev, true
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

// rangeAt reconstructs the range at rev. It walks the current keys and
// the keyidx entries together, in key order, as keysSince does: a key's
// first keyidx entry after rev is the change that replaced its version at
// rev (which the change's history record carries), and a key with none
// has its current version at rev, or did not exist then if it has none
// now. One keyidx seek finds that entry, and leaves the cursor on the
// next key when the key has not changed since rev; the current version
// is the one under the walking cursor. Resolving each key on its own
// (objectAt) costs two more B-tree seeks a key, which made an Exact list
// at an old revision twice as slow as a list of the current state.
func (v *View) rangeAt(prefix, after string, rev uint64, fn func(Object) bool) {
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
		key := ck
		if ck == nil || ikey != nil && bytes.Compare(ikey, ck) < 0 {
			key = ikey
		}
		var obj Object
		ok, changed := false, false
		if ikey != nil && bytes.Equal(ikey, key) {
			seek = append(append(seek[:0], key...), keySep)
			ik, _ = idx.Seek(binary.BigEndian.AppendUint64(seek, rev+1))
			if next := keyOfKeyIdx(ik); next != nil && bytes.Equal(next, key) {
				changed = true
				obj, ok = v.replacedBy(string(key), binary.BigEndian.Uint64(ik[len(ik)-8:]))
				ik, _ = idx.Seek(append(append(seek[:0], key...), keySep+1))
			}
		}
		if ck != nil && bytes.Equal(ck, key) {
			if !changed {
				r, data := splitCurrent(cval)
				obj, ok = Object{Key: string(key), Rev: r, Data: clone(data)}, true
			}
			ck, cval = cur.Next()
		}
		if ok && !fn(obj) {
			return
		}
	}
}

// replacedBy returns the version of key that the change at revision next
// replaced; ok is false when that change created the key.
func (v *View) replacedBy(key string, next uint64) (obj Object, ok bool) {
	prev, prevRev := recordPrev(next, v.rev.Get(revBytes(next)))
	if prev == nil {
		return Object{}, false
	}
	return Object{Key: key, Rev: prevRev, Data: clone(prev)}, true
}

// keyOfKeyIdx returns the storage key of a keyidx entry (nil for none),
// pointing into the entry.
func keyOfKeyIdx(k []byte) []byte {
	if len(k) < 9 {
		return nil
	}
	return k[:len(k)-9]
}

// withPrefix returns k if it has the prefix, else nil.
func withPrefix(k []byte, prefix string) []byte {
	if k == nil || !bytes.HasPrefix(k, []byte(prefix)) {
		return nil
	}
	return k
}

// keysSince calls fn, in key order and until it returns false, for every
// key with the prefix after the key after that may have existed at a
// retained revision: it merges the keys that exist now with the keys that
// changed inside the history window (which include every key deleted
// since).
func (v *View) keysSince(prefix, after string, fn func(key string) bool) {
	start := startKey(prefix, after)
	cur := v.current.Cursor()
	ck, _ := cur.Seek(start)
	idx := v.keyIdx.Cursor()
	ik, _ := idx.Seek(start)
	for {
		ckey, cok := prefixed(ck, prefix)
		ikey, iok := "", false
		if ik != nil {
			ikey, _ = splitKeyIdx(ik)
			iok = strings.HasPrefix(ikey, prefix)
		}
		if !cok && !iok {
			return
		}
		var key string
		switch {
		case cok && (!iok || ckey <= ikey):
			key = ckey
		default:
			key = ikey
		}
		if cok && ckey == key {
			ck, _ = cur.Next()
		}
		if iok && ikey == key {
			ik, _ = idx.Seek(append([]byte(key), keySep+1))
		}
		if !fn(key) {
			return
		}
	}
}

func prefixed(k []byte, prefix string) (string, bool) {
	if k == nil || !bytes.HasPrefix(k, []byte(prefix)) {
		return "", false
	}
	return string(k), true
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
		if !fn(decodeRecord(bytesToRev(k), val)) {
			return nil
		}
	}
	return nil
}
