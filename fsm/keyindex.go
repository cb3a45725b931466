package fsm

import (
	"slices"
	"strings"
	"sync"

	"github.com/google/btree"
)

// The key index, held in memory.
//
// A read at a past revision needs, for each key, the key's first change
// after that revision: the version that change replaced is the one the
// key held (View.resolve). The history bucket is keyed by revision, so
// the FSM keeps the other direction in memory, as etcd's mvcc does: for
// every key changed at a retained revision, the revisions of its changes,
// the keys in order. It is rebuilt from the history records when the
// state file is opened (one sequential pass of the `rev` bucket) and
// changes with every apply and compaction.
//
// It was a bbolt bucket (key + 0x00 + revision -> nothing). Each write put
// an entry at its key's place among all the others, so every write dirtied
// a leaf of small entries of its own, which bbolt materialises entry by
// entry and writes back whole at commit: in fsm's BenchmarkCommitDelay
// about half of an update's cost in the state machine and half of its
// allocations.
//
// Concurrency. ApplyBatch adds revisions as it applies them, before their
// transaction commits, so the index runs ahead of the state a view reads:
// every query takes the view's applied index and ignores revisions above
// it. Compaction drops revisions below its boundary once its transaction
// has committed; a view whose transaction began before that commit may
// still ask about a revision below the new boundary, and is told that the
// revision is compacted (prunedTo), which it is by then.

// keyIndex is the FSM's key index; its methods are safe for concurrent
// use.
type keyIndex struct {
	mu   sync.RWMutex
	tree *btree.BTreeG[keyRevs]
	// prunedTo is the highest compaction boundary pruned: revisions
	// below it may be gone from the index.
	prunedTo uint64
}

// keyRevs is one key of the index and the revisions of its changes, in
// ascending order: first, then more. Most keys have one change inside
// the window, so that one is held inline: an entry is then one
// allocation (its key) in the tree's nodes, which keeps the index small
// and light for the garbage collector to mark at a million keys.
type keyRevs struct {
	key   string
	first uint64
	more  []uint64
}

// keyNext is a key of the index and the revision of its first change
// inside the range a query asked about, 0 for none.
type keyNext struct {
	key  string
	next uint64
}

// indexDegree is the in-memory B-tree's degree: nodes of up to 63 keys.
const indexDegree = 32

func newKeyIndex(prunedTo uint64) *keyIndex {
	return &keyIndex{
		tree:     btree.NewG(indexDegree, func(a, b keyRevs) bool { return a.key < b.key }),
		prunedTo: prunedTo,
	}
}

// add records a change of key at rev. Revisions must be added in
// ascending order.
func (x *keyIndex) add(key string, rev uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.addLocked(key, rev)
}

func (x *keyIndex) addLocked(key string, rev uint64) {
	// One descent for a key new to the index, the common case; a key
	// already there is put back with the revision appended.
	if kr, had := x.tree.ReplaceOrInsert(keyRevs{key: key, first: rev}); had {
		kr.more = append(kr.more, rev)
		x.tree.ReplaceOrInsert(kr)
	}
}

// next returns key's first change after rev and at or before applied, 0
// for none. ok is false when changes after rev may have been pruned: rev
// is below a committed compaction boundary.
func (x *keyIndex) next(key string, rev, applied uint64) (next uint64, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if rev < x.prunedTo {
		return 0, false
	}
	if kr, found := x.tree.Get(keyRevs{key: key}); found {
		next = kr.after(rev, applied)
	}
	return next, true
}

// after returns the first of the key's revisions in (rev, applied], 0 for
// none.
func (kr *keyRevs) after(rev, applied uint64) uint64 {
	next := kr.first
	if next <= rev {
		i, _ := slices.BinarySearch(kr.more, rev+1)
		if i == len(kr.more) {
			return 0
		}
		next = kr.more[i]
	}
	if next > applied {
		return 0
	}
	return next
}

// scan appends to buf, in key order, up to n keys with prefix at or after
// start, each with its first change in (rev, applied]. ok is false when
// rev is below a pruned compaction boundary. It holds the read lock only
// while it copies, so a long walk does not hold up applies.
func (x *keyIndex) scan(buf []keyNext, start, prefix string, rev, applied uint64, n int) (_ []keyNext, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if rev < x.prunedTo {
		return buf, false
	}
	x.tree.AscendGreaterOrEqual(keyRevs{key: start}, func(kr keyRevs) bool {
		if !strings.HasPrefix(kr.key, prefix) || len(buf) == n {
			return false
		}
		buf = append(buf, keyNext{key: kr.key, next: kr.after(rev, applied)})
		return true
	})
	return buf, true
}

// pruneBatch bounds how many keys prune drops under one hold of the lock.
const pruneBatch = 4096

// prune drops the revisions below boundary of the given keys (a key may
// repeat), and the keys left with none; queries about revisions below
// boundary fail from now on. It is called once the compaction's
// transaction has committed.
func (x *keyIndex) prune(keys []string, boundary uint64) {
	x.mu.Lock()
	x.prunedTo = max(x.prunedTo, boundary)
	x.mu.Unlock()
	for len(keys) > 0 {
		n := min(len(keys), pruneBatch)
		x.mu.Lock()
		for _, key := range keys[:n] {
			x.pruneKeyLocked(key, boundary)
		}
		x.mu.Unlock()
		keys = keys[n:]
	}
}

func (x *keyIndex) pruneKeyLocked(key string, boundary uint64) {
	kr, ok := x.tree.Get(keyRevs{key: key})
	if !ok || kr.first >= boundary {
		return
	}
	i, _ := slices.BinarySearch(kr.more, boundary)
	if i == len(kr.more) {
		x.tree.Delete(kr)
		return
	}
	// A fresh slice (or none): the dropped revisions' array would
	// otherwise stay behind the kept ones.
	kr.first, kr.more = kr.more[i], slices.Clone(kr.more[i+1:])
	if len(kr.more) == 0 {
		kr.more = nil
	}
	x.tree.ReplaceOrInsert(kr)
}

// indexCursor walks the index's keys with a prefix in order, a batch of
// them at a time (keyIndex.scan).
type indexCursor struct {
	x            *keyIndex
	prefix       string
	rev, applied uint64
	start        string // where the next batch begins
	buf          []keyNext
	i            int
	done, pruned bool
}

// cursorBatch is how many keys an indexCursor copies per hold of the lock.
const cursorBatch = 256

func (x *keyIndex) cursor(start, prefix string, rev, applied uint64) *indexCursor {
	c := &indexCursor{x: x, prefix: prefix, rev: rev, applied: applied, start: start}
	c.fill()
	return c
}

// key returns the key under the cursor, nil at the end or when the
// walk's revision was pruned (see err).
func (c *indexCursor) key() *keyNext {
	if c.i < len(c.buf) {
		return &c.buf[c.i]
	}
	return nil
}

// err is ErrCompacted when the walk's revision was pruned under it.
func (c *indexCursor) err() error {
	if c.pruned {
		return ErrCompacted
	}
	return nil
}

// advance moves to the next key.
func (c *indexCursor) advance() {
	c.i++
	if c.i == len(c.buf) {
		c.fill()
	}
}

func (c *indexCursor) fill() {
	c.buf, c.i = c.buf[:0], 0
	if c.done {
		return
	}
	var ok bool
	c.buf, ok = c.x.scan(c.buf, c.start, c.prefix, c.rev, c.applied, cursorBatch)
	c.pruned = !ok
	c.done = !ok || len(c.buf) < cursorBatch
	if n := len(c.buf); n > 0 {
		// No storage key contains keySep (0x00), so the least key after
		// the last one is the last one followed by it.
		c.start = c.buf[n-1].key + string(rune(keySep))
	}
}
