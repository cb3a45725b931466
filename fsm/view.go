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
	applied, compacted uint64
	current, rev       *bolt.Bucket
	idx                *keyIndex
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
			idx:       f.idx,
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
	return v.objectAt(key, rev)
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
func (v *View) objectAt(key string, rev uint64) (Object, bool, error) {
	k, err := v.keyAtRev(key, rev)
	if err != nil {
		return Object{}, false, err
	}
	obj, ok := v.resolve(k)
	return obj, ok, nil
}

// existsAt reports whether key existed at rev, copying nothing.
func (v *View) existsAt(key string, rev uint64) (bool, error) {
	k, err := v.keyAtRev(key, rev)
	return err == nil && v.existedAt(k), err
}

// keyAtRev finds what key's state at rev depends on: its first change
// after rev in the key index, or else its current value.
func (v *View) keyAtRev(key string, rev uint64) (keyAt, error) {
	k := keyAt{key: []byte(key)}
	next, ok := v.idx.next(key, rev, v.applied)
	if !ok {
		return k, ErrCompacted
	}
	if k.next = next; next == 0 {
		k.current = v.current.Get(k.key)
	}
	return k, nil
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
	return v.rangeAt(prefix, after, rev, fn)
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
func (v *View) rangeAt(prefix, after string, rev uint64, fn func(Object) bool) error {
	return v.walkAt(prefix, after, rev, func(k keyAt) bool {
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
// among them, its delete record being retained). The key index gives each
// key with history its first change after rev as it is walked; the
// current value is the one under the walking cursor. It fails with
// ErrCompacted when a compaction pruned rev from the key index during the
// walk.
func (v *View) walkAt(prefix, after string, rev uint64, fn func(keyAt) bool) error {
	start := startKey(prefix, after)
	cur := v.current.Cursor()
	ck, cval := cur.Seek(start)
	idx := v.idx.cursor(string(start), prefix, rev, v.applied)
	for {
		ck = withPrefix(ck, prefix)
		in := idx.key()
		if err := idx.err(); err != nil {
			return err
		}
		if ck == nil && in == nil {
			return nil
		}
		k := keyAt{key: ck}
		if ck == nil || in != nil && in.key < string(ck) {
			k.key = []byte(in.key)
		}
		if in != nil && in.key == string(k.key) {
			k.next = in.next
			idx.advance()
		}
		if bytes.Equal(ck, k.key) {
			k.current = cval
			ck, cval = cur.Next()
		}
		if !fn(k) {
			return nil
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

// startKey is the first key to visit: the prefix, or just past after. No
// storage key contains keySep, so none sorts between after and
// after+keySep+1.
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
			obj, err := v.eventObject(&e)
			if err != nil {
				return err
			}
			e.Object = obj
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
// It fails only with ErrCompacted, when a compaction committed after the
// view began pruned the key index below the change.
func (v *View) eventObject(e *Event) ([]byte, error) {
	if e.Type == Deleted {
		obj, err := StampResourceVersion(e.Prev, e.Rev)
		if err != nil {
			panic(fmt.Sprintf("fsm: deleted object %q at %d is not JSON: %v", e.Key, e.Rev, err))
		}
		return obj, nil
	}
	obj, ok, err := v.objectAt(e.Key, e.Rev)
	if err != nil {
		return nil, err
	}
	if !ok || obj.Rev != e.Rev {
		panic(fmt.Sprintf("fsm: no version of %q at %d for its %s record (found %v at %d)", e.Key, e.Rev, e.Type, ok, obj.Rev))
	}
	return obj.Data, nil
}
