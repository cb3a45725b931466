package fsm

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// handler applies one command type inside the batch's transaction. It
// returns the proposer's result and, when the state changed, the event.
type handler func(t *txn, index uint64, c *Command) (*Result, *Event)

var handlers = map[CommandType]handler{
	CmdCreate:  applyCreate,
	CmdUpdate:  applyUpdate,
	CmdDelete:  applyDelete,
	CmdCompact: applyCompact,
	CmdAdmit:   applyAdmit,
}

// txn is the write side of one batch: the buckets of its transaction and
// the key index, which it changes as it applies.
type txn struct {
	current, rev, meta *bolt.Bucket
	idx                *keyIndex
	// dropped lists the keys of the history records compactions in this
	// transaction dropped, to prune from idx once it commits.
	dropped []string
}

func newTxn(tx *bolt.Tx, idx *keyIndex) *txn {
	t := &txn{
		current: tx.Bucket(bucketCurrent),
		rev:     tx.Bucket(bucketRev),
		meta:    tx.Bucket(bucketMeta),
		idx:     idx,
	}
	t.rev.FillPercent = revFillPercent
	return t
}

// revFillPercent is how full the history's pages are written. Its keys
// are revisions, put in ascending order and deleted from the start, so
// a page that splits never receives another key: bbolt's default of
// half-full pages would leave half of every history page empty for good.
// etcd writes its revision-keyed bucket at 0.9 for the same reason.
const revFillPercent = 0.9

func (t *txn) applied() uint64   { return getUint(t.meta, metaApplied) }
func (t *txn) compacted() uint64 { return getUint(t.meta, metaCompacted) }

func (t *txn) setApplied(index uint64) error {
	return putUint(t.meta, metaApplied, index)
}

// lookup returns a copy of key's current object and its revision.
func (t *txn) lookup(key string) (obj []byte, rev uint64, ok bool) {
	v := t.current.Get([]byte(key))
	if v == nil {
		return nil, 0, false
	}
	rev, obj = splitCurrent(v)
	return clone(obj), rev, true
}

// exists reports whether key has a current object, without copying it.
func (t *txn) exists(key string) bool {
	return t.current.Get([]byte(key)) != nil
}

// record stores the change in the current state and the history, and
// adds it to the key index.
func (t *txn) record(e *Event) {
	var err error
	if e.Type == Deleted {
		err = t.current.Delete([]byte(e.Key))
	} else {
		err = t.current.Put([]byte(e.Key), currentValue(e.Rev, e.Object))
	}
	if err == nil {
		err = t.rev.Put(revBytes(e.Rev), encodeRecord(e))
	}
	if err != nil {
		panic(fmt.Sprintf("fsm: record %s of %q at %d: %v", e.Type, e.Key, e.Rev, err))
	}
	t.idx.add(e.Key, e.Rev)
}

func applyCreate(t *txn, index uint64, c *Command) (*Result, *Event) {
	if !validKey(c.Key) {
		return reject(index, rejectf(CodeInvalid, c.Key, "invalid storage key"))
	}
	if t.exists(c.Key) {
		return reject(index, rejectf(CodeAlreadyExists, c.Key, "key already exists"))
	}
	obj, err := StampResourceVersion(c.Object, index)
	if err != nil {
		return reject(index, rejectf(CodeInvalid, c.Key, "object is not a JSON object: %v", err))
	}
	return commit(t, &Event{Type: Created, Key: c.Key, Rev: index, Object: obj})
}

func applyUpdate(t *txn, index uint64, c *Command) (*Result, *Event) {
	if !validKey(c.Key) {
		return reject(index, rejectf(CodeInvalid, c.Key, "invalid storage key"))
	}
	prev, prevRev, ok := t.lookup(c.Key)
	if !ok {
		return reject(index, rejectf(CodeNotFound, c.Key, "key not found"))
	}
	if e := checkPreconditions(c.Key, c.Preconditions, prev, prevRev); e != nil {
		return reject(index, e)
	}
	obj, err := StampResourceVersion(c.Object, index)
	if err != nil {
		return reject(index, rejectf(CodeInvalid, c.Key, "object is not a JSON object: %v", err))
	}
	return commit(t, &Event{Type: Updated, Key: c.Key, Rev: index, Object: obj, Prev: prev, PrevRev: prevRev})
}

func applyDelete(t *txn, index uint64, c *Command) (*Result, *Event) {
	if !validKey(c.Key) {
		return reject(index, rejectf(CodeInvalid, c.Key, "invalid storage key"))
	}
	prev, prevRev, ok := t.lookup(c.Key)
	if !ok {
		return reject(index, rejectf(CodeNotFound, c.Key, "key not found"))
	}
	if e := checkPreconditions(c.Key, c.Preconditions, prev, prevRev); e != nil {
		return reject(index, e)
	}
	obj, err := StampResourceVersion(prev, index)
	if err != nil {
		panic(fmt.Sprintf("fsm: stored object %q at %d is not JSON: %v", c.Key, prevRev, err))
	}
	return commit(t, &Event{Type: Deleted, Key: c.Key, Rev: index, Object: obj, Prev: prev, PrevRev: prevRev})
}

func checkPreconditions(key string, p Preconditions, obj []byte, rev uint64) *Error {
	if p.ResourceVersion != 0 && p.ResourceVersion != rev {
		return rejectf(CodeConflict, key, "resourceVersion precondition %d does not match %d", p.ResourceVersion, rev)
	}
	if p.UID != "" {
		if uid := objectUID(obj); uid != p.UID {
			return rejectf(CodeConflict, key, "uid precondition %s does not match %s", p.UID, uid)
		}
	}
	return nil
}

// applyCompact drops every history record below the new boundary. The
// current state keeps every key's latest version, and each retained record
// carries the version before it, so any revision at or above the boundary
// can still be reconstructed (see View.Get). The key index drops the same
// revisions when the transaction commits (FSM.commitPending): until then
// views of the state before the compaction may still read them.
func applyCompact(t *txn, index uint64, c *Command) (*Result, *Event) {
	boundary := min(c.Revision, index)
	if boundary <= t.compacted() {
		return &Result{Rev: index}, nil
	}
	var revs []uint64
	cur := t.rev.Cursor()
	for k, v := cur.First(); k != nil && bytesToRev(k) < boundary; k, v = cur.Next() {
		rev := bytesToRev(k)
		revs = append(revs, rev)
		t.dropped = append(t.dropped, recordKey(rev, v))
	}
	for _, rev := range revs {
		if err := t.rev.Delete(revBytes(rev)); err != nil {
			panic(fmt.Sprintf("fsm: compact revision %d: %v", rev, err))
		}
	}
	if err := putUint(t.meta, metaCompacted, boundary); err != nil {
		panic(fmt.Sprintf("fsm: store compaction boundary %d: %v", boundary, err))
	}
	return &Result{Rev: index}, nil
}

func reject(index uint64, e *Error) (*Result, *Event) {
	return &Result{Rev: index, Err: e}, nil
}

func commit(t *txn, e *Event) (*Result, *Event) {
	t.record(e)
	return &Result{Rev: e.Rev, Object: e.Object}, e
}

// applyAdmit changes nothing: the entry's index is the answer (see
// CmdAdmit).
func applyAdmit(_ *txn, index uint64, _ *Command) (*Result, *Event) {
	return &Result{Rev: index}, nil
}
