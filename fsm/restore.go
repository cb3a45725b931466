package fsm

import (
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// CheckStateFile verifies that path holds a complete state file (as
// Copy.WriteTo writes it) and returns its applied index. It opens the file
// read-only; it must not be open elsewhere for writing.
func CheckStateFile(path string) (applied uint64, err error) {
	applied, err = checkStateFile(path)
	if err != nil {
		return 0, fmt.Errorf("fsm: check %s: %w", path, err)
	}
	return applied, nil
}

// ResetHistory prepares the state file at path to seed a new cluster: it
// drops every history record and sets the compaction boundary to the
// applied index, in one transaction. The current objects and their
// revisions stay; reads and watches at a revision below the applied index
// then fail with ErrCompacted instead of seeing a history that the new
// cluster's log does not have. It returns the applied index. The file must
// not be open elsewhere.
func ResetHistory(path string) (applied uint64, err error) {
	if _, err := checkStateFile(path); err != nil {
		return 0, fmt.Errorf("fsm: reset history of %s: %w", path, err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return 0, fmt.Errorf("fsm: reset history: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketRev); err != nil {
			return fmt.Errorf("drop bucket %q: %w", bucketRev, err)
		}
		if _, err := tx.CreateBucket(bucketRev); err != nil {
			return fmt.Errorf("recreate bucket %q: %w", bucketRev, err)
		}
		meta := tx.Bucket(bucketMeta)
		applied = getUint(meta, metaApplied)
		return putUint(meta, metaCompacted, applied)
	})
	if cerr := db.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("fsm: reset history of %s: %w", path, err)
	}
	return applied, nil
}

// StateFileStats describes a state file (a backup or a stopped node's
// state).
type StateFileStats struct {
	// Applied is the last log index applied: the file's revision.
	Applied uint64
	// Compacted is the history boundary: revisions at or below it are
	// no longer readable.
	Compacted uint64
	// Objects is the number of current objects; Changes the number of
	// change records (one per write) kept for reads and watches at past
	// revisions.
	Objects, Changes int
	// Size is the file's size in bytes.
	Size int64
}

// Stats checks the state file at path (as CheckStateFile does) and
// describes it. It opens the file read-only.
func Stats(path string) (StateFileStats, error) {
	var st StateFileStats
	applied, err := checkStateFile(path)
	if err != nil {
		return st, fmt.Errorf("fsm: check %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return st, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return st, fmt.Errorf("fsm: open %s: %w", path, err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		st.Applied, st.Size = applied, fi.Size()
		st.Compacted = getUint(tx.Bucket(bucketMeta), metaCompacted)
		st.Objects = tx.Bucket(bucketCurrent).Stats().KeyN
		st.Changes = tx.Bucket(bucketRev).Stats().KeyN
		return nil
	})
	return st, err
}
