package fsm

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hashicorp/raft"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Snapshot returns a consistent point-in-time copy of the state: a bbolt
// read transaction, opened here (fast) and streamed by Persist while
// ApplyBatch goes on. It commits the pending batches first: raft records
// the snapshot as covering every entry it has handed to ApplyBatch.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	f.flush()
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
	if _, err := s.tx.WriteTo(sink); err != nil {
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
//
// The new file is not fsynced where batches are not (see durability.go):
// raft calls Restore with a snapshot its store has made durable, and the
// marker beside the state file, written when the file was opened, stays
// through the swap. A machine that stops before the kernel has written
// the file back leaves the marker of another boot, and the next Open
// discards the file and restores that same snapshot. A new member's
// catch-up then waits for one fsync of the state it receives (the
// snapshot's), not two.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	tmp := f.path + ".restore"
	if err := writeFile(tmp, rc, f.sync); err != nil {
		return fmt.Errorf("fsm: restore: %w", err)
	}
	if _, err := checkStateFile(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("fsm: restore: %w", err)
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.commitPending()
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

// writeFile writes r's bytes to path, fsynced when sync is set.
func writeFile(path string, r io.Reader, sync bool) error {
	out, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	if !sync {
		return out.Close()
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// checkStateFile verifies that path is a complete bbolt file with our
// buckets and returns its applied index.
func checkStateFile(path string) (applied uint64, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return 0, fmt.Errorf("snapshot is not a state file: %w", err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		// A truncated copy passes bbolt's meta page checks, and reading a
		// page beyond the end of the mapped file is a fatal SIGBUS: check
		// the size the meta page records before reading any other page.
		if fi.Size() < tx.Size() {
			return fmt.Errorf("snapshot is truncated: %d of %d bytes", fi.Size(), tx.Size())
		}
		for _, name := range [][]byte{bucketCurrent, bucketRev, bucketMeta} {
			if tx.Bucket(name) == nil {
				return fmt.Errorf("snapshot lacks bucket %q", name)
			}
		}
		applied = getUint(tx.Bucket(bucketMeta), metaApplied)
		return nil
	})
	return applied, err
}

// Copy is a consistent point-in-time copy of the whole state, for backups:
// a bbolt read transaction held open until Close. ApplyBatch and views go
// on meanwhile; Restore waits for open copies to close. A Copy is used by
// one goroutine.
type Copy struct {
	tx      *bolt.Tx
	applied uint64
}

// OpenCopy begins a copy of the current state. The caller must Close it,
// or the state file cannot be restored or closed.
func (f *FSM) OpenCopy() (*Copy, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	tx, err := f.db.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("fsm: begin copy: %w", err)
	}
	return &Copy{tx: tx, applied: getUint(tx.Bucket(bucketMeta), metaApplied)}, nil
}

// Applied is the applied index of the copied state: its resourceVersion.
func (c *Copy) Applied() uint64 { return c.applied }

// Size is the number of bytes WriteTo writes.
func (c *Copy) Size() int64 { return c.tx.Size() }

// WriteTo writes the copy as a complete state file: what Restore and
// CheckStateFile accept.
func (c *Copy) WriteTo(w io.Writer) (int64, error) {
	n, err := c.tx.WriteTo(w)
	if err != nil {
		return n, fmt.Errorf("fsm: write copy at %d: %w", c.applied, err)
	}
	return n, nil
}

// Close ends the copy's read transaction. Safe to call twice.
func (c *Copy) Close() error {
	if err := c.tx.Rollback(); err != nil && !errors.Is(err, berrors.ErrTxClosed) {
		return fmt.Errorf("fsm: close copy: %w", err)
	}
	return nil
}
