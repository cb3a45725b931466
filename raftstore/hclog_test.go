package raftstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// TestHCLogger checks that raft's log calls become one JSON record each,
// with their key-value pairs as attributes in readable form, the
// sub-logger's name, and levels that make a normal start and stop quiet
// (a read on a closed connection is no error, nor a vote refused by a
// node waiting for admission).
func TestHCLogger(t *testing.T) {
	var buf bytes.Buffer
	h := newHCLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	h.Info("initial configuration", "index", 1, "servers", hclog.Fmt("%+v", []string{"a"}))
	h.Named("snapshot").With("path", []byte("/d")).Warn("slow", "peer", &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 7}, "error", errors.New("boom"))
	h.Warn("heartbeat timeout reached, starting election", "last-leader-id", "")
	h.Debug("dropped below the level")
	h.Error("failed to decode incoming command", "error", &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed})
	h.StandardLogger(nil).Print("[ERR] raft-net: failed to accept")
	h.Error("failed to make requestVote RPC", "error", errors.New(errRejoining.Error()))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []map[string]any{
		{"level": "INFO", "msg": "initial configuration", "logger": "raft", "index": 1.0, "servers": "[a]"},
		{"level": "WARN", "msg": "slow", "logger": "raft.snapshot", "path": "/d", "peer": "10.0.0.1:7", "error": "boom"},
		{"level": "INFO", "msg": "heartbeat timeout reached, starting election", "logger": "raft"},
		{"level": "ERROR", "msg": "raft-net: failed to accept", "logger": "raft"},
		{"level": "INFO", "msg": "failed to make requestVote RPC", "logger": "raft"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, line := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("record %d is not JSON: %s", i, line)
		}
		for k, v := range want[i] {
			if got[k] != v {
				t.Errorf("record %d: %s = %v, want %v (%s)", i, k, got[k], v, line)
			}
		}
	}
}
