package fsm

import (
	"bytes"
	"strings"
	"sync/atomic"
)

// Count returns how many objects Range would visit with the same
// arguments, without copying any of them: a paged list's
// remainingItemCount costs a walk of the keys that follow the page, not a
// read of their values.
//
// Every page of a list after the first is read at the first page's
// revision, which writes soon make historical. The state at a past
// revision differs from the current one only in the keys changed since,
// so Count walks the current keys (a cursor step each) and corrects the
// count for each key the history after rev names. Resolving every key at
// rev instead (a B-tree seek per key with history) made each page cost
// in proportion to the whole rest of the range: a paged pass over N
// objects cost N²/limit seeks, and the garbage collector's passes took a
// sixth of a loaded cluster's CPU. When more changes than keys follow
// rev, resolving the keys is the cheaper walk, and is taken.
func (v *View) Count(prefix, after string, rev uint64) (int64, error) {
	n := v.countCurrent(prefix, after)
	if rev == 0 || rev == v.applied {
		return n, nil
	}
	if err := v.checkRev(rev); err != nil {
		return 0, err
	}
	way := countStrategy.Load()
	if way == countByKeys || way == countAuto && v.applied-rev > uint64(n) {
		return v.countAtByKeys(prefix, after, rev)
	}
	return v.countAtByChanges(prefix, after, rev, n)
}

// How Count resolves a past revision; tests force each way.
const (
	countAuto = iota
	countByKeys
	countByChanges
)

var countStrategy atomic.Int32

// countCurrent counts the current keys with prefix after after.
func (v *View) countCurrent(prefix, after string) int64 {
	var n int64
	c := v.current.Cursor()
	for k, _ := c.Seek(startKey(prefix, after)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, _ = c.Next() {
		n++
	}
	return n
}

// countAtByKeys resolves at rev every key the range held since.
func (v *View) countAtByKeys(prefix, after string, rev uint64) (int64, error) {
	var n int64
	err := v.walkAt(prefix, after, rev, func(k keyAt) bool {
		if v.existedAt(k) {
			n++
		}
		return true
	})
	return n, err
}

// countAtByChanges turns current, the number of current keys in the
// range, into the number at rev: each key of the range changed after rev
// counts if it existed at rev and not if it exists now.
func (v *View) countAtByChanges(prefix, after string, rev uint64, current int64) (int64, error) {
	n := current
	seen := map[string]bool{}
	c := v.rev.Cursor()
	for k, val := c.Seek(revBytes(rev + 1)); k != nil; k, val = c.Next() {
		key := recordKey(bytesToRev(k), val)
		if seen[key] || !strings.HasPrefix(key, prefix) || key <= after {
			continue
		}
		seen[key] = true
		existed, err := v.existsAt(key, rev)
		if err != nil {
			return 0, err
		}
		if existed {
			n++
		}
		if v.current.Get([]byte(key)) != nil {
			n--
		}
	}
	return n, nil
}
