package raftstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
)

// writeSnapshot stores data as a snapshot at index 7 in dir with raft's
// own FileSnapshotStore and returns its id.
func writeSnapshot(t *testing.T, dir string, data []byte) string {
	t.Helper()
	fs, err := raft.NewFileSnapshotStore(dir, 2, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, trans := raft.NewInmemTransport("")
	defer trans.Close()
	sink, err := fs.Create(raft.SnapshotVersionMax, 7, 2, raft.Configuration{}, 1, trans)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sink.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	return sink.ID()
}

// snapshotSizes: none, less than one of WriteTo's reads, several and a
// short one, and exactly two.
var snapshotSizes = []int{0, 1000, 3*snapshotReadBuffer + 12345, 2 * snapshotReadBuffer}

// snapshotData is size bytes that are not all alike.
func snapshotData(size int) []byte {
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7 / 5)
	}
	return data
}

// snapshotReaders read an opened snapshot: with plain reads (io.ReadAll),
// and with io.Copy into a writer as the transport and Restore do
// (WriteTo).
var snapshotReaders = map[string]func(io.Reader) ([]byte, error){
	"Read": io.ReadAll,
	"WriteTo": func(r io.Reader) ([]byte, error) {
		var b bytes.Buffer
		_, err := io.Copy(&b, r)
		return b.Bytes(), err
	},
}

func openSnapshotStore(t *testing.T, dir string) *snapshotStore {
	t.Helper()
	s, err := newSnapshotStore(dir, 2, newHCLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSnapshotStoreReadsRaftsSnapshots(t *testing.T) {
	for _, size := range snapshotSizes {
		dir := t.TempDir()
		data := snapshotData(size)
		id := writeSnapshot(t, dir, data)
		s := openSnapshotStore(t, dir)
		list, err := s.List()
		if err != nil || len(list) != 1 || list[0].ID != id {
			t.Fatalf("List = %v, %v; want the one snapshot %s", list, err, id)
		}
		for name, read := range snapshotReaders {
			meta, rc, err := s.Open(id)
			if err != nil {
				t.Fatalf("%d bytes, %s: Open: %v", size, name, err)
			}
			if meta.Index != 7 || meta.Term != 2 || meta.Size != int64(size) {
				t.Errorf("%d bytes, %s: meta = %+v", size, name, meta)
			}
			got, err := read(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%d bytes, %s: read %d bytes, %v; want the %d written", size, name, len(got), err, size)
			}
		}
	}
}

// TestSnapshotStoreRefusesCorruptData: a changed byte, a lost tail or an
// extra byte fails the read that reaches the end, and a copy never
// receives the whole corrupt stream.
func TestSnapshotStoreRefusesCorruptData(t *testing.T) {
	corruptions := map[string]func([]byte) []byte{
		"changed byte": func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
		"truncated":    func(b []byte) []byte { return b[:len(b)-1] },
		"extended":     func(b []byte) []byte { return append(b, 0) },
	}
	for _, size := range snapshotSizes[1:] {
		data := snapshotData(size)
		for corruption, change := range corruptions {
			what := fmt.Sprintf("%d bytes, %s", size, corruption)
			dir := t.TempDir()
			id := writeSnapshot(t, dir, data)
			path := filepath.Join(dir, snapshotsDir, id, snapshotDataFile)
			if err := os.WriteFile(path, change(bytes.Clone(data)), 0o600); err != nil {
				t.Fatal(err)
			}
			s := openSnapshotStore(t, dir)
			for name, read := range snapshotReaders {
				_, rc, err := s.Open(id)
				if err != nil {
					t.Fatalf("%s, %s: Open: %v", what, name, err)
				}
				got, err := read(rc)
				rc.Close()
				if !errors.Is(err, errSnapshotCorrupt) {
					t.Errorf("%s, %s: read error %v, want a corrupt snapshot", what, name, err)
				}
				if name == "WriteTo" && len(got) >= size-1 {
					t.Errorf("%s, %s: %d of %d bytes reached the writer", what, name, len(got), size)
				}
			}
		}
	}
}

// TestSnapshotStoreCopyAfterReadsPastTheEnd: plain reads of an extended
// file past the recorded size, then a copy of the rest, end in the
// corrupt-snapshot error rather than a bad slice or an endless copy.
func TestSnapshotStoreCopyAfterReadsPastTheEnd(t *testing.T) {
	dir := t.TempDir()
	data := snapshotData(1000)
	id := writeSnapshot(t, dir, data)
	path := filepath.Join(dir, snapshotsDir, id, snapshotDataFile)
	if err := os.WriteFile(path, append(bytes.Clone(data), make([]byte, 100)...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, rc, err := openSnapshotStore(t, dir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, make([]byte, 1050)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, rc); !errors.Is(err, errSnapshotCorrupt) {
		t.Fatalf("copy after reading past the recorded size: %v, want a corrupt snapshot", err)
	}
}

func TestSnapshotStoreOpensOnlyItsSnapshots(t *testing.T) {
	dir := t.TempDir()
	writeSnapshot(t, dir, []byte("state"))
	s := openSnapshotStore(t, dir)
	for _, id := range []string{"", ".", "..", "../snapshots", "a/b", "missing"} {
		if _, rc, err := s.Open(id); err == nil {
			rc.Close()
			t.Errorf("Open(%q) succeeded", id)
		}
	}
}
