package raftstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/migrate"

	"github.com/raftapi/raftapi/raftstore/storetest"
)

// TestLegacyLogMigrated starts a node on a data directory whose raft log
// is raft-boltdb's raft.db, as earlier releases wrote it: the node must
// move it into the WAL, keep its term and every write, and go on writing.
func TestLegacyLogMigrated(t *testing.T) {
	c := storetest.NewCluster(t, 1, benchQuiet)
	ctx := faultStepContext(t, 2*faultDeadline)
	before := writeKeys(t, ctx, c.Leader(), "/migrate/a/", 20)
	dir := c.Nodes[0].Dir
	c.Stop(0)
	term := walToLegacy(t, dir)

	c.Restart(0)
	s := c.Nodes[0].Store
	faultEventually(t, faultDeadline, "the migrated node leads", func() error {
		return checkRecords(ctx, s, before, faultMostRecent)
	})
	if got := s.Raft().CurrentTerm(); got < term {
		t.Errorf("term %d after the migration, want at least the stored %d", got, term)
	}
	if _, err := os.Stat(filepath.Join(dir, "raft.db")); !os.IsNotExist(err) {
		t.Errorf("raft.db left after the migration: %v", err)
	}
	after := writeKeys(t, ctx, s, "/migrate/b/", 5)
	if err := checkRecords(ctx, s, append(before, after...), faultMostRecent); err != nil {
		t.Fatal(err)
	}
}

// walToLegacy rewrites a stopped node's WAL as raft-boltdb's raft.db and
// returns the stored term.
func walToLegacy(t *testing.T, dataDir string) uint64 {
	t.Helper()
	walDir := filepath.Join(dataDir, "wal")
	w, err := wal.Open(walDir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dataDir, "raft.db")})
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate.CopyLogs(context.Background(), b, w, 1<<20, nil); err != nil {
		t.Fatal(err)
	}
	var term uint64
	for _, k := range []string{"CurrentTerm", "LastVoteTerm"} {
		v, err := w.GetUint64([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.SetUint64([]byte(k), v); err != nil {
			t.Fatal(err)
		}
		if k == "CurrentTerm" {
			term = v
		}
	}
	cand, err := w.Get([]byte("LastVoteCand"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Set([]byte("LastVoteCand"), cand); err != nil {
		t.Fatal(err)
	}
	var first raft.Log
	if idx, _ := b.FirstIndex(); idx == 0 || b.GetLog(idx, &first) != nil {
		t.Fatal("the legacy log holds no entries")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(walDir); err != nil {
		t.Fatal(err)
	}
	return term
}
