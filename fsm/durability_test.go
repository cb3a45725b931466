package fsm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
)

// withBootID makes the FSM see id as the machine's boot id for one test.
func withBootID(t *testing.T, id string) {
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
