package raftstore

import "testing"

// A fresh snapshot is taken for a newcomer when the log it would replay
// is long: always past TrailingLogs when the log was never truncated
// (the newcomer would replay the whole history), and only when the
// entries past the newest snapshot hold more than a quarter of the
// state's bytes when it was (the newcomer receives that snapshot
// anyway).
func TestSnapshotWorthIt(t *testing.T) {
	const trailing = 10240
	for _, tc := range []struct {
		name string
		b    backlog
		want bool
	}{
		{"short untruncated log", backlog{replay: trailing}, false},
		{"long untruncated log", backlog{replay: trailing + 1}, true},
		{"truncated, few entries", backlog{replay: 100, truncated: true, replayBytes: 1 << 30, stateBytes: 1 << 20}, false},
		{"truncated, entries small beside the state", backlog{replay: 200_000, truncated: true, replayBytes: 280 << 20, stateBytes: 2 << 30}, false},
		{"truncated, entries large beside the state", backlog{replay: 600_000, truncated: true, replayBytes: 840 << 20, stateBytes: 2 << 30}, true},
	} {
		if got := tc.b.snapshotWorthIt(trailing); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
