package fsm

import (
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/raft"
	bolt "go.etcd.io/bbolt"
)

// Snapshot returns a consistent point-in-time copy of the state: a bbolt
// read transaction, opened here (fast) and streamed by Persist while
// ApplyBatch goes on.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	tx, err := f.db.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("fsm: begin snapshot: %w", err)
	}
	return &snapshot{tx: tx}, nil
}

type snapshot struct{ tx *bolt.Tx }

// Persist writes the whole bbolt file to the sink.
func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	if err := copyTo(s.tx, sink); err != nil {
		sink.Cancel()
		return fmt.Errorf("fsm: write snapshot: %w", err)
	}
	return sink.Close()
}

// Release ends the read transaction.
func (s *snapshot) Release() { _ = s.tx.Rollback() }

// Restore replaces the whole state with a snapshot written by Persist. The
// new file is written and checked beside the old one and renamed over it,
// so a failure leaves the previous state in place. The listener is told,
// so that every open watch ends as "too old".
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	tmp := f.path + ".restore"
	if err := writeFile(tmp, rc); err != nil {
		return fmt.Errorf("fsm: restore: %w", err)
	}
	if err := checkStateFile(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("fsm: restore: %w", err)
	}
	f.mu.Lock()
	err := f.swap(tmp)
	f.mu.Unlock()
	if err != nil {
		return err
	}
	f.listener.Restored(f.Applied())
	return nil
}

// swap replaces the open state file with tmp; f.mu must be held.
func (f *FSM) swap(tmp string) error {
	if err := f.db.Close(); err != nil {
		return fmt.Errorf("fsm: restore: close state: %w", err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		panic(fmt.Sprintf("fsm: restore: replace %s: %v", f.path, err))
	}
	if err := f.open(); err != nil {
		panic(fmt.Sprintf("fsm: restore: reopen %s: %v", f.path, err))
	}
	return nil
}

func writeFile(path string, r io.Reader) error {
	out, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// checkStateFile verifies that path is a complete bbolt file with our
// buckets.
func checkStateFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("snapshot is not a state file: %w", err)
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		// A truncated copy passes bbolt's meta page checks, and reading a
		// page beyond the end of the mapped file is a fatal SIGBUS: check
		// the size the meta page records before reading any other page.
		if fi.Size() < tx.Size() {
			return fmt.Errorf("snapshot is truncated: %d of %d bytes", fi.Size(), tx.Size())
		}
		for _, name := range [][]byte{bucketCurrent, bucketRev, bucketKeyIdx, bucketMeta} {
			if tx.Bucket(name) == nil {
				return fmt.Errorf("snapshot lacks bucket %q", name)
			}
		}
		return nil
	})
}
