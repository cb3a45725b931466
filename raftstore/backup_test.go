package raftstore_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestBackupRestore writes objects to a 3-node cluster, saves a backup,
// prepares a new data directory from it and opens a single node on it:
// every object is there at its revision, a new write gets a higher
// revision, and a watch from before the backup is expired.
func TestBackupRestore(t *testing.T) {
	c := storetest.NewCluster(t, 3)
	ctx := storetest.Context(t)
	want := map[string]uint64{}
	for i := range 30 {
		key := fmt.Sprintf("/backup/k%02d", i)
		o, err := c.Nodes[i%3].Store.Create(ctx, key, faultObject(key, 10))
		if err != nil {
			t.Fatalf("create %s: %v", key, err)
		}
		want[key] = o.Rev
	}
	if _, err := c.Leader().Delete(ctx, "/backup/k00", raftstore.Preconditions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	delete(want, "/backup/k00")
	last, err := c.Nodes[1].Store.Create(ctx, "/backup/last", faultObject("last", 10))
	if err != nil {
		t.Fatalf("create last: %v", err)
	}
	want["/backup/last"] = last.Rev

	// A backup from a follower right after an acknowledged write holds it.
	file := filepath.Join(t.TempDir(), "backup.db")
	rev := mustWriteSnapshot(t, c.Follower(), file)
	if rev < last.Rev {
		t.Fatalf("backup revision %d below the last acknowledged write %d", rev, last.Rev)
	}
	if got, err := raftstore.CheckBackup(file); err != nil || got != rev {
		t.Fatalf("CheckBackup = %d, %v; want %d", got, err, rev)
	}
	// Writes after the backup must not appear in the restored state.
	if _, err := c.Leader().Create(ctx, "/backup/after", faultObject("after", 10)); err != nil {
		t.Fatalf("create after backup: %v", err)
	}

	s, cfg := openRestored(t, file, rev)
	for key, r := range want {
		if err := faultCheckGet(ctx, s, key, faultMostRecent, r, false); err != nil {
			t.Error(err)
		}
	}
	for _, key := range []string{"/backup/k00", "/backup/after"} {
		if err := faultCheckAbsent(ctx, s, key, faultMostRecent); err != nil {
			t.Error(err)
		}
	}
	o, err := s.Create(ctx, "/backup/new", faultObject("new", 10))
	if err != nil {
		t.Fatalf("create on restored node: %v", err)
	}
	if o.Rev <= rev {
		t.Fatalf("new write at revision %d, not above the backup's %d", o.Rev, rev)
	}
	checkExpiredWatch(ctx, t, s, rev-1)
	checkLiveWatch(ctx, t, s, rev)

	// A restart resumes from the node's own state, not the restored
	// snapshot again.
	want["/backup/new"] = o.Rev
	s = reopen(t, s, cfg)
	for key, r := range want {
		if err := faultCheckGet(ctx, s, key, faultMostRecent, r, false); err != nil {
			t.Error(err)
		}
	}
	if o2, err := s.Create(ctx, "/backup/new2", faultObject("new2", 10)); err != nil || o2.Rev <= o.Rev {
		t.Fatalf("create after restart: %v at %d, want above %d", err, o2.Rev, o.Rev)
	}
}

// TestBackupRestoreRefusesNonEmptyDir checks that a restore never mixes
// into existing state.
func TestBackupRestoreRefusesNonEmptyDir(t *testing.T) {
	c := storetest.NewCluster(t, 1)
	if _, err := c.Leader().Create(storetest.Context(t), "/backup/a", faultObject("a", 1)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "backup.db")
	mustWriteSnapshot(t, c.Leader(), file)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "raft.db"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := raftstore.PrepareRestore(file, raftstore.RestoreConfig{DataDir: dir, Name: "n1", InitialCluster: map[string]string{"n1": "127.0.0.1:1"}})
	if !errors.Is(err, raftstore.ErrDataDirNotEmpty) {
		t.Fatalf("PrepareRestore into a non-empty dir: %v, want ErrDataDirNotEmpty", err)
	}
	empty := t.TempDir()
	if _, err := raftstore.PrepareRestore(filepath.Join(dir, "raft.db"), raftstore.RestoreConfig{DataDir: empty, Name: "n1", InitialCluster: map[string]string{"n1": "127.0.0.1:1"}}); err == nil {
		t.Fatal("PrepareRestore accepted a file that is no backup")
	}
	if entries, err := os.ReadDir(empty); err != nil || len(entries) > 0 {
		t.Fatalf("a failed restore left %d entries in the data dir (%v)", len(entries), err)
	}
}

func mustWriteSnapshot(t *testing.T, s *raftstore.Store, path string) uint64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rev, err := s.WriteSnapshot(storetest.Context(t), f)
	if err != nil {
		t.Fatalf("WriteSnapshot: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return rev
}

// openRestored prepares a data directory from file and opens a single
// node on it, waiting until it leads.
func openRestored(t *testing.T, file string, rev uint64) (*raftstore.Store, raftstore.Config) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	dir := filepath.Join(t.TempDir(), "data")
	got, err := raftstore.PrepareRestore(file, raftstore.RestoreConfig{DataDir: dir, Name: "r1", InitialCluster: map[string]string{"r1": addr}})
	if err != nil {
		t.Fatalf("PrepareRestore: %v", err)
	}
	if got != rev {
		t.Fatalf("PrepareRestore revision %d, want %d", got, rev)
	}
	cfg := raftstore.Config{Name: "r1", DataDir: dir, PeerListen: addr, Logger: slog.New(slog.DiscardHandler)}
	withLn := cfg
	withLn.PeerListener = ln
	s := openLeader(t, withLn)
	if st := s.Status(); st.AppliedIndex < rev || st.Compacted != rev {
		t.Fatalf("restored node: applied %d, compacted %d; want applied >= %d, compacted %d", st.AppliedIndex, st.Compacted, rev, rev)
	}
	return s, cfg
}

// reopen closes s and opens a node on its data directory and address
// again.
func reopen(t *testing.T, s *raftstore.Store, cfg raftstore.Config) *raftstore.Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	var ln net.Listener
	faultEventually(t, faultDeadline, "peer address free again", func() (err error) {
		ln, err = net.Listen("tcp", cfg.PeerListen)
		return err
	})
	cfg.PeerListener = ln
	return openLeader(t, cfg)
}

// openLeader opens a single-node store and waits until it leads.
func openLeader(t *testing.T, cfg raftstore.Config) *raftstore.Store {
	t.Helper()
	s, err := raftstore.Open(cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Name, err)
	}
	t.Cleanup(func() { s.Close() })
	faultEventually(t, faultDeadline, cfg.Name+" leads", func() error {
		if !s.IsLeader() {
			return fmt.Errorf("state %s", s.Status().State)
		}
		return nil
	})
	return s
}

// firstWatchEvent opens a watch of /backup/ from revision from and returns
// its first event; ok is false if the channel closed without one.
func firstWatchEvent(ctx context.Context, t *testing.T, s *raftstore.Store, from uint64) (raftstore.WatchEvent, bool) {
	t.Helper()
	w, err := s.Watch(ctx, "/backup/", raftstore.WatchOptions{Revision: from, Recursive: true})
	if err != nil {
		t.Fatalf("watch from %d: %v", from, err)
	}
	defer w.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		return ev, ok
	case <-time.After(faultDeadline):
		t.Fatalf("watch from %d: no event", from)
		return raftstore.WatchEvent{}, false
	}
}

func checkExpiredWatch(ctx context.Context, t *testing.T, s *raftstore.Store, from uint64) {
	t.Helper()
	ev, ok := firstWatchEvent(ctx, t, s, from)
	if !ok || ev.Type != raftstore.WatchError || !raftstore.IsExpired(ev.Err) {
		t.Fatalf("watch from %d before the backup: got %v %v (open %v), want an expired error", from, ev.Type, ev.Err, ok)
	}
}

// checkLiveWatch checks that a watch from the backup's revision works and
// sees the write made after the restore.
func checkLiveWatch(ctx context.Context, t *testing.T, s *raftstore.Store, from uint64) {
	t.Helper()
	ev, _ := firstWatchEvent(ctx, t, s, from)
	if ev.Type != raftstore.Added || ev.Key != "/backup/new" {
		t.Fatalf("watch from the backup's revision %d: got %v %s %v, want ADDED /backup/new", from, ev.Type, ev.Key, ev.Err)
	}
}
