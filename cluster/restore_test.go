package cluster

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestoreStoresToken checks that restoring a cluster of several nodes
// needs a token and leaves it in the data directory, where the node
// started on it finds it.
func TestRestoreStoresToken(t *testing.T) {
	n := startSingleNode(t)
	file := filepath.Join(t.TempDir(), "backup.db")
	if _, err := SaveSnapshot(context.Background(), adminClient(t, n), baseURL(n), file); err != nil {
		t.Fatal(err)
	}
	members := map[string]string{"a": "127.0.0.1:1", "b": "127.0.0.1:2", "c": "127.0.0.1:3"}
	dir := filepath.Join(t.TempDir(), "a")
	if _, err := RestoreSnapshot(file, RestoreConfig{DataDir: dir, Name: "a", InitialCluster: members}); err == nil || !strings.Contains(err.Error(), "--token") {
		t.Fatalf("restore of three nodes without a token: %v", err)
	}
	if _, err := RestoreSnapshot(file, RestoreConfig{DataDir: dir, Name: "a", InitialCluster: members, Token: testToken}); err != nil {
		t.Fatal(err)
	}
	tok, err := ReadToken(dir)
	if err != nil || !strings.HasSuffix(tok, "::server:"+testToken) {
		t.Fatalf("stored token %q, %v", tok, err)
	}
}

// TestRestoredUnderAnotherName checks that a node refuses, with a sentence
// saying what to do, a data directory restored for another node name,
// instead of waiting forever unready; under the right name it serves.
func TestRestoredUnderAnotherName(t *testing.T) {
	n := startSingleNode(t)
	file := filepath.Join(t.TempDir(), "backup.db")
	if _, err := SaveSnapshot(context.Background(), adminClient(t, n), baseURL(n), file); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "restored")
	peer := freeAddr(t)
	if _, err := RestoreSnapshot(file, RestoreConfig{DataDir: dir, Name: "a", PeerListen: peer}); err != nil {
		t.Fatal(err)
	}
	_, err := Start(Config{Name: "b", DataDir: dir, Listen: "127.0.0.1:0", PeerListen: peer})
	if err == nil || !strings.Contains(err.Error(), `members are a, not "b"`) {
		t.Fatalf("start under another name: %v", err)
	}
	a, err := Start(Config{Name: "a", DataDir: dir, Listen: "127.0.0.1:0", PeerListen: peer})
	if err != nil {
		t.Fatalf("start under the restored name: %v", err)
	}
	stopNode(t, a)
}
