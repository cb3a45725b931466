package raftstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/hashicorp/raft"
	"github.com/raftapi/raftapi/fsm"
)

// Backup is a consistent copy of a node's whole state at one revision,
// taken by OpenBackup. It holds a read transaction on the state file until
// Close: writes go on meanwhile, but the node cannot install a snapshot or
// shut down until it is closed.
type Backup struct {
	c *fsm.Copy
}

// OpenBackup begins a backup at a Most Recent point: it first waits (a
// quorum read index) until this node has applied every write acknowledged
// before the call, so the backup contains them. The caller must Close it.
func (s *Store) OpenBackup(ctx context.Context) (*Backup, error) {
	if _, err := s.prepareRead(ctx, ReadOptions{Consistency: MostRecent}); err != nil {
		return nil, err
	}
	c, err := s.fsm.OpenCopy()
	if err != nil {
		return nil, fmt.Errorf("raftstore: open backup: %w", err)
	}
	return &Backup{c: c}, nil
}

// Revision is the backup's revision: every write at or below it is in the
// backup, none above.
func (b *Backup) Revision() uint64 { return b.c.Applied() }

// Size is the number of bytes WriteTo writes.
func (b *Backup) Size() int64 { return b.c.Size() }

// WriteTo writes the backup: a state file that PrepareRestore accepts.
func (b *Backup) WriteTo(w io.Writer) (int64, error) {
	n, err := b.c.WriteTo(w)
	if err != nil {
		return n, fmt.Errorf("raftstore: write backup: %w", err)
	}
	return n, nil
}

// Close releases the backup's read transaction.
func (b *Backup) Close() error { return b.c.Close() }

// WriteSnapshot writes a backup taken at a Most Recent point (see
// OpenBackup) to w and returns its revision.
func (s *Store) WriteSnapshot(ctx context.Context, w io.Writer) (rev uint64, err error) {
	b, err := s.OpenBackup(ctx)
	if err != nil {
		return 0, err
	}
	defer b.Close()
	if _, err := b.WriteTo(w); err != nil {
		return 0, err
	}
	return b.Revision(), nil
}

// CheckBackup verifies that path holds a complete backup and returns its
// revision.
func CheckBackup(path string) (rev uint64, err error) {
	rev, err = fsm.CheckStateFile(path)
	if err != nil {
		return 0, fmt.Errorf("raftstore: check backup: %w", err)
	}
	return rev, nil
}

// RestoreConfig says how PrepareRestore lays out a data directory.
type RestoreConfig struct {
	// DataDir is the directory to prepare; it must not exist or be empty.
	DataDir string
	// Name is the raft server ID of the node that will run on DataDir.
	Name string
	// InitialCluster maps every voter of the restored cluster (this node
	// included) to the peer address it will advertise. Every node of a
	// restored cluster must be prepared from the same backup with the same
	// InitialCluster.
	InitialCluster map[string]string
}

// ErrDataDirNotEmpty is returned by PrepareRestore for a data directory that
// already holds files.
var ErrDataDirNotEmpty = errors.New("raftstore: data directory is not empty")

// restoreTerm is the raft term recorded in a restored snapshot. Every node
// of a restored cluster records the same one, so their logs agree.
const restoreTerm = 1

// PrepareRestore lays out an empty data directory so that a node opened on
// it (Open, with the same Name) serves the backup's state, as a member of
// a new cluster of cfg.InitialCluster:
//
//   - The backup's history is dropped and its compaction boundary set to its
//     revision: objects keep their revisions, while reads and watches from
//     before the backup fail as expired.
//   - The state becomes a raft snapshot at index = the backup's revision
//     with cfg.InitialCluster as configuration. Open restores it (the node
//     has no state file yet) and raft continues the log after it, so new
//     writes get higher revisions; no bootstrap happens since raft state
//     exists.
//
// It returns the backup's revision.
func PrepareRestore(backupFile string, cfg RestoreConfig) (rev uint64, err error) {
	if err := checkRestoreConfig(cfg); err != nil {
		return 0, err
	}
	created, err := prepareEmptyDir(cfg.DataDir)
	if err != nil {
		return 0, err
	}
	rev, err = restoreInto(backupFile, cfg)
	if err != nil {
		// Leave the directory as it was, so that a retry finds it empty.
		cleanDir(cfg.DataDir, created)
		return 0, err
	}
	return rev, nil
}

func restoreInto(backupFile string, cfg RestoreConfig) (uint64, error) {
	tmp := filepath.Join(cfg.DataDir, "restore.db.tmp")
	defer os.Remove(tmp)
	if err := copyFile(backupFile, tmp); err != nil {
		return 0, fmt.Errorf("raftstore: restore: copy backup: %w", err)
	}
	rev, err := fsm.ResetHistory(tmp)
	if err != nil {
		return 0, fmt.Errorf("raftstore: restore: %w", err)
	}
	if rev == 0 {
		return 0, fmt.Errorf("raftstore: restore: backup %s holds no applied entries", backupFile)
	}
	if err := writeRestoreSnapshot(cfg, tmp, rev); err != nil {
		return 0, err
	}
	return rev, nil
}

func checkRestoreConfig(cfg RestoreConfig) error {
	switch {
	case cfg.DataDir == "":
		return fmt.Errorf("raftstore: restore: DataDir is required")
	case cfg.Name == "":
		return fmt.Errorf("raftstore: restore: Name is required")
	case cfg.InitialCluster[cfg.Name] == "":
		return fmt.Errorf("raftstore: restore: InitialCluster lacks this node %q", cfg.Name)
	}
	return nil
}

// prepareEmptyDir creates dir, or checks that it is empty; created tells
// which.
func prepareEmptyDir(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return false, fmt.Errorf("raftstore: restore: create data dir: %w", err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("raftstore: restore: read data dir: %w", err)
	case len(entries) > 0:
		return false, fmt.Errorf("%w: %s", ErrDataDirNotEmpty, dir)
	}
	return false, nil
}

// cleanDir removes what a failed restore left in dir, and dir itself if
// the restore created it.
func cleanDir(dir string, created bool) {
	if created {
		_ = os.RemoveAll(dir)
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// writeRestoreSnapshot stores the state file at path as a raft snapshot at
// index rev in cfg.DataDir's snapshot store.
func writeRestoreSnapshot(cfg RestoreConfig, path string, rev uint64) error {
	snaps, err := raft.NewFileSnapshotStore(cfg.DataDir, 2, io.Discard)
	if err != nil {
		return fmt.Errorf("raftstore: restore: open snapshot store: %w", err)
	}
	// The snapshot's legacy peer list is encoded by a transport; an
	// in-memory one encodes addresses as they are, like the TCP transport.
	_, trans := raft.NewInmemTransport("")
	defer trans.Close()
	sink, err := snaps.Create(raft.SnapshotVersionMax, rev, restoreTerm, restoreConfiguration(cfg.InitialCluster), rev, trans)
	if err != nil {
		return fmt.Errorf("raftstore: restore: create snapshot: %w", err)
	}
	if err := copyInto(sink, path); err != nil {
		_ = sink.Cancel()
		return fmt.Errorf("raftstore: restore: write snapshot: %w", err)
	}
	if err := sink.Close(); err != nil {
		return fmt.Errorf("raftstore: restore: finish snapshot: %w", err)
	}
	return nil
}

// restoreConfiguration makes every member a voter, in name order.
func restoreConfiguration(members map[string]string) raft.Configuration {
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	sort.Strings(names)
	var conf raft.Configuration
	for _, n := range names {
		conf.Servers = append(conf.Servers, raft.Server{ID: raft.ServerID(n), Address: raft.ServerAddress(members[n]), Suffrage: raft.Voter})
	}
	return conf
}

func copyInto(w io.Writer, path string) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = io.Copy(w, in)
	return err
}

// copyFile copies src to a new file dst and syncs it.
func copyFile(src, dst string) error {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	err = copyInto(out, src)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// BackupStats describes a backup file.
type BackupStats = fsm.StateFileStats

// InspectBackup checks that path holds a complete backup (as CheckBackup
// does) and describes it.
func InspectBackup(path string) (BackupStats, error) {
	st, err := fsm.Stats(path)
	if err != nil {
		return st, fmt.Errorf("raftstore: inspect backup: %w", err)
	}
	return st, nil
}
