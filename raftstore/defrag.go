package raftstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Files of a data directory that Open creates.
const (
	stateFile = "state.db" // the state machine's bbolt database
	logFile   = "raft.db"  // raft-boltdb's log of earlier releases, moved to wal/ on start
)

// DefragResult is what Defrag did to one database file.
type DefragResult struct {
	File          string
	Before, After int64 // sizes in bytes
}

// ErrInUse is returned by Defrag when a running node holds the data
// directory.
var ErrInUse = errors.New("raftstore: the data directory is in use by a running node: stop the node first")

// defragTxSize bounds the size of one copying transaction.
const defragTxSize = 64 << 20

// Defrag compacts the databases of a stopped node's data directory: bbolt
// never returns freed pages to the file system, so a state that once held
// much more than now keeps its size. Each file is copied into a fresh,
// dense file beside it, synced, and renamed over the old one; a crash
// leaves either the old file or the new one. It refuses a directory a
// running node holds (bbolt's file lock). The raft log is a WAL that
// deletes whole segments itself; an earlier release's raft.db, not yet
// migrated, is compacted too.
func Defrag(dataDir string) ([]DefragResult, error) {
	var out []DefragResult
	for _, name := range []string{stateFile, logFile} {
		path := filepath.Join(dataDir, name)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		r, err := defragFile(path)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("raftstore: %s holds no node databases (%s, %s)", dataDir, stateFile, logFile)
	}
	return out, nil
}

func defragFile(path string) (DefragResult, error) {
	r := DefragResult{File: path, Before: fileSize(path)}
	src, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		return r, ErrInUse
	}
	if err != nil {
		return r, fmt.Errorf("raftstore: defrag %s: %w", path, err)
	}
	defer src.Close()
	tmp := path + ".defrag"
	_ = os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return r, fmt.Errorf("raftstore: defrag %s: %w", path, err)
	}
	if err := bolt.Compact(dst, src, defragTxSize); err != nil {
		dst.Close()
		os.Remove(tmp)
		return r, fmt.Errorf("raftstore: defrag %s: %w", path, err)
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		os.Remove(tmp)
		return r, fmt.Errorf("raftstore: defrag %s: %w", path, err)
	}
	if err := dst.Close(); err != nil {
		os.Remove(tmp)
		return r, fmt.Errorf("raftstore: defrag %s: %w", path, err)
	}
	if fileSize(tmp) >= r.Before {
		// Nothing to gain (bbolt grows files in steps): keep the file.
		r.After = r.Before
		return r, os.Remove(tmp)
	}
	if err := os.Rename(tmp, path); err != nil {
		return r, fmt.Errorf("raftstore: defrag %s: %w", path, err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return r, err
	}
	r.After = fileSize(path)
	return r, nil
}

// SyncDir makes a rename or a new file in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
