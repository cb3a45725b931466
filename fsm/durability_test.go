package fsm

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	bolt "go.etcd.io/bbolt"
)

// withBootID makes the FSM see id as the machine's boot id for one test.
func withBootID(t testing.TB, id string) {
	t.Helper()
	old := bootID
	bootID = func() string { return id }
	t.Cleanup(func() { bootID = old })
}

// openWithWrites opens a state file at path and applies n creates.
func openWithWrites(t *testing.T, path string, n int) *FSM {
	t.Helper()
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		c := &Command{Type: CmdCreate, Key: "/k/" + string(rune('a'+i)), Object: []byte(`{}`)}
		res := f.ApplyBatch([]*raft.Log{{Index: uint64(i), Type: raft.LogCommand, Data: c.Encode()}})
		if r := res[0].(*Result); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	return f
}

// kill stops using f as a killed process does: no sync, no marker removal.
func kill(t *testing.T, f *FSM) {
	t.Helper()
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
}

func reopen(t *testing.T, path string) *FSM {
	t.Helper()
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A killed process leaves its writes in the page cache: the next start on
// the same boot keeps the state file and everything applied.
func TestKilledProcessKeepsUnsyncedState(t *testing.T) {
	withBootID(t, "boot-1")
	path := filepath.Join(t.TempDir(), "state.db")
	f := openWithWrites(t, path, 3)
	if f.sync {
		t.Fatal("batches are fsynced although the boot id is known")
	}
	kill(t, f)
	g := reopen(t, path)
	if g.Discarded() || g.Applied() != 3 {
		t.Fatalf("after a kill: discarded %v, applied %d; want kept at 3", g.Discarded(), g.Applied())
	}
}

// A machine restart under an open, unsynced state file discards it: the
// node rebuilds from the snapshot and the raft log instead of trusting
// pages that may never have reached the disk.
func TestMachineRestartDiscardsUnsyncedState(t *testing.T) {
	withBootID(t, "boot-1")
	path := filepath.Join(t.TempDir(), "state.db")
	kill(t, openWithWrites(t, path, 3))
	withBootID(t, "boot-2")
	g := reopen(t, path)
	if !g.Discarded() || g.Applied() != 0 {
		t.Fatalf("after a machine restart: discarded %v, applied %d; want discarded, 0", g.Discarded(), g.Applied())
	}
}

// A restored state file is written unsynced under the marker: killed, it
// is kept; after a machine restart it is discarded like any unsynced
// state, for the node to restore the snapshot (durable in raft's store)
// again.
func TestRestoredStateIsGuardedByTheMarker(t *testing.T) {
	withBootID(t, "boot-1")
	dir := t.TempDir()
	src := openWithWrites(t, filepath.Join(dir, "source.db"), 5)
	c, err := src.OpenCopy()
	if err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	if _, err := c.WriteTo(&snap); err != nil {
		t.Fatal(err)
	}
	c.Close()
	src.Close()
	path := filepath.Join(dir, "state.db")
	f := openWithWrites(t, path, 2)
	if err := f.Restore(io.NopCloser(&snap)); err != nil {
		t.Fatal(err)
	}
	if f.Applied() != 5 {
		t.Fatalf("applied %d after Restore, want 5", f.Applied())
	}
	if _, err := os.Stat(path + markerSuffix); err != nil {
		t.Fatalf("no marker after Restore: %v", err)
	}
	kill(t, f)
	g := reopen(t, path)
	if g.Discarded() || g.Applied() != 5 {
		t.Fatalf("after a kill: discarded %v, applied %d; want kept at 5", g.Discarded(), g.Applied())
	}
	kill(t, g)
	withBootID(t, "boot-2")
	h := reopen(t, path)
	if !h.Discarded() || h.Applied() != 0 {
		t.Fatalf("after a machine restart: discarded %v, applied %d; want discarded, 0", h.Discarded(), h.Applied())
	}
}

// A clean Close syncs the file and removes the marker: the file is
// trusted after any restart.
func TestCleanCloseSurvivesMachineRestart(t *testing.T) {
	withBootID(t, "boot-1")
	path := filepath.Join(t.TempDir(), "state.db")
	f := openWithWrites(t, path, 2)
	if _, err := os.Stat(path + markerSuffix); err != nil {
		t.Fatalf("no marker while open: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + markerSuffix); !os.IsNotExist(err) {
		t.Fatalf("marker left after Close: %v", err)
	}
	withBootID(t, "boot-2")
	g := reopen(t, path)
	if g.Discarded() || g.Applied() != 2 {
		t.Fatalf("after Close and a restart: discarded %v, applied %d; want kept at 2", g.Discarded(), g.Applied())
	}
}

// Without a boot id every batch is fsynced and no marker is written, and
// a marker left by an earlier run cannot be vouched for.
func TestUnknownBootIDSyncsEveryBatch(t *testing.T) {
	withBootID(t, "boot-1")
	path := filepath.Join(t.TempDir(), "state.db")
	kill(t, openWithWrites(t, path, 1))
	withBootID(t, "")
	g := reopen(t, path)
	if !g.sync || !g.Discarded() {
		t.Fatalf("sync %v, discarded %v; want both", g.sync, g.Discarded())
	}
	if _, err := os.Stat(path + markerSuffix); !os.IsNotExist(err) {
		t.Fatalf("marker written without a boot id: %v", err)
	}
}

// A cleanly closed state file carries bbolt's free page list, so the next
// Open need not walk the whole file to rebuild it, and the list it
// carries is right: the file checks clean, and writes after the reopen
// reuse free pages without corrupting anything.
func TestCloseKeepsFreelist(t *testing.T) {
	withBootID(t, "boot-1")
	path := filepath.Join(t.TempDir(), "state.db")
	f := openWithWrites(t, path, 20)
	// Deleting and compacting frees pages.
	for i := 1; i <= 20; i++ {
		c := &Command{Type: CmdDelete, Key: "/k/" + string(rune('a'+i))}
		f.ApplyBatch([]*raft.Log{{Index: uint64(20 + i), Type: raft.LogCommand, Data: c.Encode()}})
	}
	c := &Command{Type: CmdCompact, Revision: 40}
	f.ApplyBatch([]*raft.Log{{Index: 41, Type: raft.LogCommand, Data: c.Encode()}})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	if !syncedFreelist(t, path) {
		t.Fatal("a cleanly closed state file carries no free page list")
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatalf("closed state file fails bbolt's check: %v", err)
	}

	f = reopen(t, path)
	c = &Command{Type: CmdCreate, Key: "/k/after", Object: []byte(`{}`)}
	if r := f.ApplyBatch([]*raft.Log{{Index: 42, Type: raft.LogCommand, Data: c.Encode()}})[0].(*Result); r.Err != nil {
		t.Fatal(r.Err)
	}
	if syncedFreelist(t, path) {
		t.Error("a batch after the reopen left the free page list in the file")
	}
}

// syncedFreelist reports whether the newest meta page of the bbolt file
// at path points at a free page list. A meta page sits after a 16-byte
// page header: magic, version, page size and flags (4 bytes each), the
// root bucket (16), then the freelist's page id, the high-water page id
// and the transaction id (8 each).
func syncedFreelist(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	pageSize := int(le.Uint32(b[24:]))
	meta0, meta1 := b[16:], b[pageSize+16:]
	meta := meta0
	if le.Uint64(meta1[48:]) > le.Uint64(meta0[48:]) {
		meta = meta1
	}
	return le.Uint64(meta[32:]) != ^uint64(0)
}
