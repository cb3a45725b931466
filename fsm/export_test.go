package fsm

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// ForceCountStrategy makes Count resolve past revisions one way only
// ("keys" or "changes"; "" restores the choice by cost) and returns a
// function that restores it.
func ForceCountStrategy(way string) (restore func()) {
	next := int32(countAuto)
	switch way {
	case "keys":
		next = countByKeys
	case "changes":
		next = countByChanges
	}
	prev := countStrategy.Swap(next)
	return func() { countStrategy.Store(prev) }
}

// MaxPending is how many command entries one delayed commit holds at most.
const MaxPending = maxPending

// RecordsWithObject counts the history records that carry their object,
// as records written by earlier releases do.
func RecordsWithObject(f *FSM) (n int) {
	f.flush()
	_ = f.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketRev).ForEach(func(k, v []byte) error {
			if decodeRecord(bytesToRev(k), v).Object != nil {
				n++
			}
			return nil
		})
	})
	return n
}

// RewriteRecordsWithObject rewrites every history record in the format of
// earlier releases, which store the change's object in the record.
func RewriteRecordsWithObject(f *FSM) error {
	f.flush()
	var events []Event
	err := f.View(func(v *View) error {
		return v.Events(v.Compacted(), func(e Event) bool { events = append(events, e); return true })
	})
	if err != nil {
		return err
	}
	return f.db.Update(func(tx *bolt.Tx) error {
		for _, e := range events {
			b := []byte{byte(e.Type)}
			b = appendBytes(b, []byte(e.Key))
			b = appendBytes(b, e.Object)
			b = appendBytes(b, e.Prev)
			b = binary.AppendUvarint(b, e.PrevRev)
			if err := tx.Bucket(bucketRev).Put(revBytes(e.Rev), b); err != nil {
				return err
			}
		}
		return nil
	})
}

// IndexRevisions returns every revision the FSM's in-memory key index
// holds, key by key.
func IndexRevisions(f *FSM) (revs []uint64) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	f.idx.mu.RLock()
	defer f.idx.mu.RUnlock()
	f.idx.tree.Ascend(func(kr keyRevs) bool {
		revs = append(append(revs, kr.first), kr.more...)
		return true
	})
	return revs
}

// HistoryLeafFill is the share of the history's leaf pages its records
// use.
func HistoryLeafFill(f *FSM) (fill float64) {
	f.flush()
	_ = f.db.View(func(tx *bolt.Tx) error {
		s := tx.Bucket(bucketRev).Stats()
		fill = float64(s.LeafInuse) / float64(s.LeafAlloc)
		return nil
	})
	return fill
}
