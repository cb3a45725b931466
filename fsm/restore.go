package fsm

import (
	"fmt"
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
		for _, name := range [][]byte{bucketRev, bucketKeyIdx} {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("drop bucket %q: %w", name, err)
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return fmt.Errorf("recreate bucket %q: %w", name, err)
			}
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
