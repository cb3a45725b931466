package fsm

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
	bolt "go.etcd.io/bbolt"
)

// Listener receives the committed-event feed of an FSM.
//
// Committed is called after each bbolt commit of applied batches, in log
// order and never concurrently with itself or with Restored; it runs on
// raft's FSM goroutine, on the commit timer's or on a reader's calling
// Need, with the FSM's write lock held. applied is the index of the last
// entry committed (including entries that changed nothing); events are the
// changes in revision order and may be empty. It must not block: applying
// and reading wait for it.
//
// Restored is called after Restore replaced the whole state; applied is the
// restored state's applied index. Every event stream derived from the
// previous state is now invalid.
type Listener interface {
	Committed(applied uint64, events []Event)
	Restored(applied uint64)
}

// Result is what applying one command returned to its proposer. On success
// Err is nil, Rev is the entry's index and Object the stored object (for a
// delete: the deleted object stamped with the deletion's revision).
type Result struct {
	Rev    uint64
	Object []byte
	Err    *Error
}

// Error returns the rejection as an error, or nil.
func (r *Result) Error() error {
	if r.Err == nil {
		return nil
	}
	return r.Err
}

// FSM is the bbolt-backed state machine. It implements raft.BatchingFSM:
// ApplyBatch, Snapshot and Restore are called by raft as that interface
// documents; View, Applied and Need may be called concurrently with all of
// them.
type FSM struct {
	path     string
	listener Listener

	mu  sync.RWMutex // write-held only while Restore swaps db and idx
	db  *bolt.DB
	idx *keyIndex // the history's key index (keyindex.go)

	// wmu guards the write side: the open write transaction and every
	// commit, whether ApplyBatch, the commit timer or Need makes it.
	wmu         sync.Mutex
	pend        *pending // the open write transaction, nil when none is
	commitDelay time.Duration
	lastCommit  time.Time // of the last commit, for commitDelay
	want        uint64    // highest index a reader waits for (Need)
	// pendingEvents is what the open transaction changed, as of the end
	// of the last ApplyBatch, nil once committed: the lock-free check of
	// NeedPrefix. Its elements are never written after publication
	// (ApplyBatch only appends).
	pendingEvents atomic.Pointer[[]Event]

	applied   atomic.Uint64 // of the last committed transaction
	compacted atomic.Uint64

	sync      bool // fsync every batch (see durability.go)
	discarded bool // Open discarded an untrustworthy state file
}

var _ raft.BatchingFSM = (*FSM)(nil)

// Open opens (creating if needed) the state file at path. listener may be
// nil.
func Open(path string, listener Listener, opts ...Option) (*FSM, error) {
	f := &FSM{path: path, listener: listener}
	for _, o := range opts {
		o(f)
	}
	if f.listener == nil {
		f.listener = nopListener{}
	}
	if err := f.prepareDurability(); err != nil {
		return nil, err
	}
	if err := f.open(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *FSM) open() error {
	db, err := bolt.Open(f.path, 0o600, &bolt.Options{
		Timeout:        5 * time.Second,
		NoSync:         !f.sync,
		NoFreelistSync: true,
		// Map address space up front so a write that grows the file rarely
		// waits for open read transactions (views, snapshot streaming) to
		// end before remapping. Virtual size only.
		InitialMmapSize: 1 << 30,
		FreelistType:    bolt.FreelistMapType,
	})
	if err != nil {
		return fmt.Errorf("fsm: open %s: %w", f.path, err)
	}
	var applied, compacted uint64
	var idx *keyIndex
	err = db.Update(func(tx *bolt.Tx) error {
		if err := createBuckets(tx); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		applied, compacted = getUint(meta, metaApplied), getUint(meta, metaCompacted)
		idx = buildKeyIndex(tx.Bucket(bucketRev), compacted)
		return nil
	})
	if err != nil {
		db.Close()
		return fmt.Errorf("fsm: initialise %s: %w", f.path, err)
	}
	f.db, f.idx = db, idx
	f.applied.Store(applied)
	f.compacted.Store(compacted)
	return nil
}

// createBuckets creates the state's buckets where missing and drops the
// key index bucket that earlier releases kept (the index is now built in
// memory).
func createBuckets(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketCurrent, bucketRev, bucketMeta} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	if tx.Bucket(bucketOldKeyIdx) != nil {
		return tx.DeleteBucket(bucketOldKeyIdx)
	}
	return nil
}

// buildKeyIndex builds the key index from the history records, in one
// pass in revision order.
func buildKeyIndex(rev *bolt.Bucket, compacted uint64) *keyIndex {
	idx := newKeyIndex(compacted)
	c := rev.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		r := bytesToRev(k)
		idx.addLocked(recordKey(r, v), r)
	}
	return idx
}

// Close commits what is pending, makes the state file durable and closes
// it.
func (f *FSM) Close() error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.commitPending()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closeDurability()
}

// Applied returns the index of the last log entry applied and committed:
// the state View reads.
func (f *FSM) Applied() uint64 { return f.applied.Load() }

// Size returns the size in bytes of the state file as seen by a read
// transaction, or 0 when it cannot be read (the FSM is closed).
func (f *FSM) Size() int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var size int64
	_ = f.db.View(func(tx *bolt.Tx) error {
		size = tx.Size()
		return nil
	})
	return size
}

// Compacted returns the compaction boundary: reads and watches at a
// revision below it fail with ErrCompacted.
func (f *FSM) Compacted() uint64 { return f.compacted.Load() }

// Apply applies a single entry; see ApplyBatch.
func (f *FSM) Apply(l *raft.Log) interface{} {
	return f.ApplyBatch([]*raft.Log{l})[0]
}

func (t *txn) applyEntry(l *raft.Log) (*Result, *Event) {
	cmd, err := DecodeCommand(l.Data)
	if errors.Is(err, ErrUnknownCommand) {
		return &Result{Rev: l.Index, Err: rejectf(CodeInvalid, "", "%v", err)}, nil
	}
	if err != nil {
		panic(fmt.Sprintf("fsm: entry %d: %v", l.Index, err))
	}
	h, ok := handlers[cmd.Type]
	if !ok {
		panic(fmt.Sprintf("fsm: entry %d: no handler for %s", l.Index, cmd.Type))
	}
	return h(t, l.Index, cmd)
}

type nopListener struct{}

func (nopListener) Committed(uint64, []Event) {}
func (nopListener) Restored(uint64)           {}
