package raftstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/migrate"
)

// The raft log and raft's stable store (current term and vote) live in a
// write-ahead log, hashicorp/raft-wal, in the data directory's wal/: an
// append is one write and one fdatasync of the tail segment, where
// raft-boltdb's bbolt commit costs two (pages, then meta page), and a
// truncation after a snapshot deletes whole segment files instead of
// freeing bbolt pages. Each write waits for the leader's append and a
// follower's in series, so this halves the fsyncs a client waits for on
// the log.
//
// Data directories written by earlier releases hold raft-boltdb's raft.db;
// openLogStore copies it into a new WAL once (see migrateLog).

const (
	// walDir is the raft log's directory in the data directory.
	walDir = "wal"
	// walSegmentSize is the size of one segment file, preallocated. The
	// log after the trailing entries kept past a snapshot is a few
	// segments.
	walSegmentSize = 16 << 20
	// migrateBatchBytes is how much log data one append of the migration
	// copies.
	migrateBatchBytes = 4 << 20
)

// stableKeys are the keys raft keeps in its stable store.
var stableKeys = []struct {
	key    string
	uint64 bool
}{{"CurrentTerm", true}, {"LastVoteTerm", true}, {"LastVoteCand", false}}

// logStore is what raft needs of the node's log: the entries and the
// stable store, closable.
type logStore interface {
	raft.LogStore
	raft.StableStore
	Close() error
}

// openLogStore opens the raft log of dataDir, migrating raft-boltdb's
// raft.db into a new WAL first when that is what the directory holds.
func openLogStore(dataDir string, hl hclog.Logger) (logStore, error) {
	dir := filepath.Join(dataDir, walDir)
	legacy := filepath.Join(dataDir, logFile)
	switch _, err := os.Stat(dir); {
	case err == nil:
		// A migration that renamed the WAL into place may have stopped
		// before removing the old log.
		if err := removeIfExists(legacy); err != nil {
			return nil, err
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("raftstore: raft log: %w", err)
	case fileExists(legacy):
		if err := migrateLog(legacy, dir, hl); err != nil {
			return nil, err
		}
	default:
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, fmt.Errorf("raftstore: create raft log directory: %w", err)
		}
	}
	w, err := openWAL(dir, hl)
	if err != nil {
		return nil, fmt.Errorf("raftstore: open raft log: %w", err)
	}
	return w, nil
}

func openWAL(dir string, hl hclog.Logger) (*walLog, error) {
	w, err := wal.Open(dir, wal.WithSegmentSize(walSegmentSize), wal.WithLogger(hl.Named("wal")))
	if err != nil {
		return nil, err
	}
	return &walLog{w}, nil
}

// walLog is the WAL with deleted entries out of reach: after a head
// truncation, raft-wal still serves the entries below the new first index
// that share a segment with kept ones. raft must not see them: a follower
// behind the leader's first index is to be sent a snapshot (which ends
// its watches as too old), as with any log store.
type walLog struct{ *wal.WAL }

// GetLog implements raft.LogStore.
func (w *walLog) GetLog(index uint64, log *raft.Log) error {
	first, err := w.FirstIndex()
	if err != nil {
		return err
	}
	if index < first {
		return raft.ErrLogNotFound
	}
	return w.WAL.GetLog(index, log)
}

// migrateLog copies raft-boltdb's log and stable store at legacy into a
// WAL built beside dir, then renames it to dir and removes legacy: a
// crash leaves either the old log alone or the complete new one.
func migrateLog(legacy, dir string, hl hclog.Logger) error {
	hl.Info("moving the raft log from raft-boltdb to a write-ahead log", "from", legacy, "to", dir)
	tmp := dir + ".migrating"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("raftstore: migrate raft log: %w", err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("raftstore: migrate raft log: %w", err)
	}
	if err := copyLog(legacy, tmp, hl); err != nil {
		return fmt.Errorf("raftstore: migrate raft log: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("raftstore: migrate raft log: %w", err)
	}
	if err := SyncDir(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("raftstore: migrate raft log: %w", err)
	}
	return removeIfExists(legacy)
}

// copyLog copies every entry and stable key of the raft-boltdb file src
// into a new WAL in dir.
func copyLog(src, dir string, hl hclog.Logger) (err error) {
	from, err := raftboltdb.New(raftboltdb.Options{Path: src})
	if err != nil {
		return err
	}
	defer from.Close()
	to, err := openWAL(dir, hl)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := to.Close(); err == nil {
			err = cerr
		}
	}()
	if err := migrate.CopyLogs(context.Background(), to, from, migrateBatchBytes, nil); err != nil {
		return err
	}
	return copyStable(to, from)
}

// copyStable copies raft's stable keys that src holds.
func copyStable(dst, src raft.StableStore) error {
	for _, k := range stableKeys {
		if k.uint64 {
			v, err := src.GetUint64([]byte(k.key))
			if err != nil || v == 0 {
				continue // never set
			}
			if err := dst.SetUint64([]byte(k.key), v); err != nil {
				return err
			}
			continue
		}
		v, err := src.Get([]byte(k.key))
		if err != nil || len(v) == 0 {
			continue
		}
		if err := dst.Set([]byte(k.key), v); err != nil {
			return err
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("raftstore: remove %s: %w", path, err)
	}
	return nil
}
