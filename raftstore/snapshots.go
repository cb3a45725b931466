package raftstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc64"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// The layout of raft's FileSnapshotStore: <data dir>/snapshots/<id>/
// holds meta.json (the SnapshotMeta and the CRC-64 of state.bin) and
// state.bin (what the FSM's Persist wrote).
const (
	snapshotsDir     = "snapshots"
	snapshotMetaFile = "meta.json"
	snapshotDataFile = "state.bin"
)

// snapshotReadBuffer is the size of the reads of an opened snapshot.
const snapshotReadBuffer = 1 << 20

// snapshotStore is raft's FileSnapshotStore, in the same files, with one
// change: Open checks a snapshot's CRC-64 as the returned reader is read,
// and the read that reaches the end fails when the bytes or their number
// are not what the snapshot's metadata records, instead of reading the
// whole file once before returning it. A snapshot is read to its end by
// both of its readers (the transport sending it to a follower, the FSM's
// Restore), and neither acts on what it read before the end: the sender's
// follower discards a snapshot whose stream failed, and Restore writes
// into a file beside the state that it renames only after a complete
// read. So each read of a snapshot is one pass over the file instead of
// two, on the leader sending a million objects' 2.5 GiB to a new member
// and on the member restoring them. Create, List and the retention of old
// snapshots are FileSnapshotStore's.
type snapshotStore struct {
	*raft.FileSnapshotStore
	dir string
}

var _ raft.SnapshotStore = (*snapshotStore)(nil)

// newSnapshotStore opens the snapshot store of dataDir keeping the retain
// newest snapshots.
func newSnapshotStore(dataDir string, retain int, logger hclog.Logger) (*snapshotStore, error) {
	fs, err := raft.NewFileSnapshotStoreWithLogger(dataDir, retain, logger)
	if err != nil {
		return nil, err
	}
	return &snapshotStore{FileSnapshotStore: fs, dir: filepath.Join(dataDir, snapshotsDir)}, nil
}

// snapshotFileMeta is meta.json, as FileSnapshotStore writes it.
type snapshotFileMeta struct {
	raft.SnapshotMeta
	CRC []byte
}

// Open returns snapshot id's metadata and a reader of its data whose
// final read checks the data against the metadata (see snapshotStore).
func (s *snapshotStore) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	if id == "" || filepath.Base(id) != id || id == "." || id == ".." {
		return nil, nil, fmt.Errorf("raftstore: snapshot id %q is not a snapshot's name", id)
	}
	meta, err := readSnapshotMeta(filepath.Join(s.dir, id, snapshotMetaFile))
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(filepath.Join(s.dir, id, snapshotDataFile))
	if err != nil {
		return nil, nil, fmt.Errorf("raftstore: open snapshot %s: %w", id, err)
	}
	return &meta.SnapshotMeta, newCheckedSnapshot(id, f, meta), nil
}

// readSnapshotMeta reads a snapshot's meta.json.
func readSnapshotMeta(path string) (*snapshotFileMeta, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("raftstore: read snapshot metadata: %w", err)
	}
	meta := &snapshotFileMeta{}
	if err := json.Unmarshal(data, meta); err != nil {
		return nil, fmt.Errorf("raftstore: snapshot metadata %s: %w", path, err)
	}
	return meta, nil
}

// errSnapshotCorrupt is the error of a snapshot whose data is not what
// its metadata records.
var errSnapshotCorrupt = errors.New("raftstore: snapshot is corrupt")

// checkedSnapshot reads a snapshot's data, summing it as it goes; the
// read that reaches the end returns errSnapshotCorrupt instead of io.EOF
// when the size or the CRC-64 differ from the metadata's.
type checkedSnapshot struct {
	id   string
	f    *os.File
	meta *snapshotFileMeta
	sum  hash.Hash64
	n    int64
}

func newCheckedSnapshot(id string, f *os.File, meta *snapshotFileMeta) *checkedSnapshot {
	return &checkedSnapshot{id: id, f: f, meta: meta, sum: crc64.New(crc64.MakeTable(crc64.ECMA))}
}

// Read reads the next bytes of the data.
func (c *checkedSnapshot) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	c.sum.Write(p[:n])
	c.n += int64(n)
	if err == io.EOF {
		if cerr := c.check(); cerr != nil {
			return n, cerr
		}
	}
	return n, err
}

// WriteTo copies the rest of the data to w in large reads. The last of
// them is checked before it is written, so that a corrupt snapshot never
// reaches w whole.
func (c *checkedSnapshot) WriteTo(w io.Writer) (int64, error) {
	buf := make([]byte, snapshotReadBuffer)
	var written int64
	for {
		n, err := io.ReadFull(c.f, buf[:max(0, min(int64(len(buf)), c.meta.Size-c.n))])
		c.sum.Write(buf[:n])
		c.n += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return written, c.check()
		}
		if err != nil {
			return written, err
		}
		last := c.n >= c.meta.Size // past it only after Reads of an extended file
		if last {
			if err := c.checkEnd(); err != nil {
				return written, err
			}
		}
		m, err := w.Write(buf[:n])
		written += int64(m)
		if err != nil || last {
			return written, err
		}
	}
}

// checkEnd checks, once the size the metadata records is read, that the
// file ends there and the data is what was written.
func (c *checkedSnapshot) checkEnd() error {
	var extra [1]byte
	n, err := c.f.Read(extra[:])
	if err != nil && err != io.EOF {
		return err
	}
	c.sum.Write(extra[:n])
	c.n += int64(n)
	return c.check()
}

// check compares the bytes read so far, all there are, with the
// metadata: nil when they match, errSnapshotCorrupt otherwise.
func (c *checkedSnapshot) check() error {
	if c.n != c.meta.Size {
		return fmt.Errorf("%w: %s does not hold the %d bytes its metadata records", errSnapshotCorrupt, c.id, c.meta.Size)
	}
	if !bytes.Equal(c.sum.Sum(nil), c.meta.CRC) {
		return fmt.Errorf("%w: %s fails its CRC-64", errSnapshotCorrupt, c.id)
	}
	return nil
}

// Close closes the data file.
func (c *checkedSnapshot) Close() error { return c.f.Close() }
