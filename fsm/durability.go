package fsm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The state file is written without fsync (bbolt's NoSync). The raft log
// is the durable record of every applied entry: raft fsyncs an entry into
// the local log before this node acknowledges or applies it, and on start
// raft replays every entry after the newest snapshot, which the replay
// guard skips up to the stored applied index. A state file that lost its
// last transactions therefore catches up by itself, and a client waits for
// the log's fsyncs only, not for two more per batch on the state file.
//
// What NoSync gives up is the file's consistency when the machine (not
// just the process) stops: a killed process leaves its writes in the page
// cache, whole and in order, but after a power loss or a kernel crash the
// disk may hold a meta page whose pages were never written. So while the
// file is open, a marker beside it holds the boot id of the kernel that
// writes it. Open finds the marker only when the previous run did not
// close the file; if the boot id differs, the machine restarted under an
// open file, and the file is discarded: the node rebuilds its state from
// the newest snapshot (fsynced by raft's snapshot store) and the log.
// Where the boot id is unknown (not Linux), every batch is fsynced as
// before.

// markerSuffix names the marker beside the state file.
const markerSuffix = ".unsynced"

// bootID returns the running kernel's boot id, "" when it is unknown. A
// variable so that tests can simulate a machine restart.
var bootID = func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// prepareDurability decides, before the state file is opened, whether it
// can be trusted and whether batches are fsynced, and leaves the marker
// for the next Open. It sets f.sync and f.discarded.
func (f *FSM) prepareDurability() error {
	marker := f.path + markerSuffix
	id := bootID()
	prev, err := os.ReadFile(marker)
	switch {
	case err == nil && strings.TrimSpace(string(prev)) != id:
		if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("fsm: discard %s written before a machine restart: %w", f.path, err)
		}
		f.discarded = true
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("fsm: read %s: %w", marker, err)
	}
	if id == "" {
		f.sync = true
		return removeSynced(marker)
	}
	return writeSynced(marker, []byte(id+"\n"))
}

// closeDurability makes the state file durable and removes the marker, so
// the next Open trusts the file whatever happens to the machine meanwhile.
func (f *FSM) closeDurability() error {
	if err := f.persistFreelist(); err != nil {
		return fmt.Errorf("fsm: write the free page list of %s: %w", f.path, err)
	}
	if !f.sync {
		if err := f.db.Sync(); err != nil {
			return fmt.Errorf("fsm: sync %s: %w", f.path, err)
		}
	}
	if err := f.db.Close(); err != nil {
		return err
	}
	return removeSynced(f.path + markerSuffix)
}

// persistFreelist writes bbolt's list of free pages into the file with
// one last, empty transaction. Batches leave it out (NoFreelistSync: it
// would be rewritten by every commit), so a file closed without it makes
// the next Open rebuild the list by walking every page of the file: a
// read of the whole state, seconds for a few GiB, before the first
// write. A file closed cleanly opens without that walk; the first batch
// after drops the list from the file again. After a crash the walk is
// still needed, and still correct.
func (f *FSM) persistFreelist() error {
	f.db.NoFreelistSync = false
	defer func() { f.db.NoFreelistSync = true }()
	return f.db.Update(func(*bolt.Tx) error { return nil })
}

// Discarded reports whether Open threw away a state file that a machine
// restart may have left inconsistent (see prepareDurability). The node
// then rebuilds its state from the newest snapshot and the raft log.
func (f *FSM) Discarded() bool { return f.discarded }

// writeSynced writes a small file and makes it and its name durable.
func writeSynced(path string, data []byte) error {
	if err := writeFile(path, bytes.NewReader(data), true); err != nil {
		return fmt.Errorf("fsm: write %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// removeSynced removes path, if present, and makes the removal durable.
func removeSynced(path string) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("fsm: remove %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsm: sync directory %s: %w", dir, err)
	}
	return nil
}
